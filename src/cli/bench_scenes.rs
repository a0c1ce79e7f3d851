//! `supple bench scenes`: every shipped scene headless, timed stage by stage (see
//! [`scenes`](super::experiments::scenes)).

use super::pools::{in_pool, pools};
use crate::cli::experiments::scenes::{SceneResult, TIMED_FRAMES, bench_scene};
use crate::export::write_atomic;
use crate::scene::load_scene;
use crate::timing::StageMs;
use anyhow::{anyhow, bail};
use clap::Args;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Arguments of `supple bench scenes`.
#[derive(Args, Debug, Clone)]
pub struct ScenesArgs {
    /// Timed frames per scene, after 10 warm-up frames.
    #[arg(long, default_value_t = TIMED_FRAMES, value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: u32,
    /// Thread counts, comma-separated (default: RAYON_NUM_THREADS, else one per core).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Vec<u32>,
    /// Only these scenes, by file name without `.toml`, comma-separated (default: all).
    #[arg(long, value_delimiter = ',', value_name = "NAME")]
    pub scene: Vec<String>,
    /// The folder of the scene files.
    #[arg(long, value_name = "DIR", default_value = "scenes")]
    pub dir: PathBuf,
    /// Also write the table to this CSV file.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
}

/// The CSV columns before the stages' (one per stage, named as in [`StageMs::names`], ms).
pub const CSV_COLUMNS: &str = "scene,threads,ms_per_frame,realtime_factor";

/// Runs `supple bench scenes`: every scene x thread count, a table on stdout and the CSV.
pub fn run(args: &ScenesArgs) -> anyhow::Result<()> {
    let files = scene_files(&args.dir, &args.scene)?;
    let width = files.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    let mut header = format!(
        "{:<width$} {:>7} {:>9} {:>9}",
        "scene", "threads", "ms/frame", "realtime"
    );
    let mut csv = String::from(CSV_COLUMNS);
    for name in StageMs::names() {
        write!(header, " {name:>w$}", w = column_width(name)).expect("a String");
        write!(csv, ",{name}").expect("a String");
    }
    csv.push('\n');
    println!("{header}");
    for (_, path) in &files {
        for threads in pools(&args.threads) {
            // The cause in the message itself: `main` prints an error's outermost message.
            let r = in_pool(threads, || Ok(bench_scene(load_scene(path)?, args.frames)?))
                .map_err(|e| anyhow!("benchmarking {}: {e:#}", path.display()))?;
            println!("{}", table_row(&r, width));
            csv_row(&mut csv, &r);
        }
    }
    println!(
        "ms per frame: the median of {} frames after 10; realtime: simulated over wall time; \
         stages: ms of the median frame",
        args.frames
    );
    if let Some(path) = &args.csv {
        write_atomic(path, csv.as_bytes())?;
    }
    Ok(())
}

/// The scene files of `dir` (`*.toml`, by name), or those named in `only`; each with its name.
fn scene_files(dir: &Path, only: &[String]) -> anyhow::Result<Vec<(String, PathBuf)>> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        anyhow!(
            "cannot read the scene folder {}: {e} (run from the repository's root or give --dir)",
            dir.display()
        )
    })?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "toml") {
            let name = path.file_stem().unwrap_or_default().to_string_lossy();
            files.push((name.into_owned(), path));
        }
    }
    files.sort();
    if files.is_empty() {
        bail!("no scene files (*.toml) in {}", dir.display());
    }
    if only.is_empty() {
        return Ok(files);
    }
    let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    if let Some(missing) = only.iter().find(|n| !names.contains(&n.as_str())) {
        bail!(
            "--scene {missing}: no such scene in {} (expected one of {})",
            dir.display(),
            names.join(", ")
        );
    }
    files.retain(|(name, _)| only.contains(name));
    Ok(files)
}

/// Width of a stage's column of the table.
fn column_width(stage: &str) -> usize {
    stage.len().max(6)
}

fn table_row(r: &SceneResult, width: usize) -> String {
    let mut row = format!(
        "{:<width$} {:>7} {:>9.3} {:>8.2}x",
        r.scene, r.threads, r.ms_per_frame, r.realtime_factor
    );
    for (stage, ms) in r.stage_ms.iter() {
        write!(row, " {ms:>w$.3}", w = column_width(stage)).expect("a String");
    }
    row
}

fn csv_row(csv: &mut String, r: &SceneResult) {
    write!(
        csv,
        "{},{},{:.6},{:.4}",
        r.scene, r.threads, r.ms_per_frame, r.realtime_factor
    )
    .expect("a String");
    for (_, ms) in r.stage_ms.iter() {
        write!(csv, ",{ms:.6}").expect("a String");
    }
    csv.push('\n');
}
