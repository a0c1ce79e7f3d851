//! `supple run SCENE.toml`: the window, or a headless run with export and report.

use super::SolverOverrides;
use crate::export::usd::UsdWriter;
use crate::export::{BodyRecord, FrameRecord, Report, export_frame};
use crate::scene::{Scene, load_scene};
use crate::stats::FrameStats;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Frames a headless run simulates when `--frames` is not given (5 s at 60 Hz).
pub const DEFAULT_FRAMES: u64 = 300;
/// Frames simulated before a `--screenshot` when `--frames` is not given (1 s at 60 Hz).
pub const DEFAULT_SCREENSHOT_FRAMES: u64 = 60;
/// Frames recorded by `--gif` and `--video` when `--frames` is not given (3 s at 60 Hz).
pub const DEFAULT_RECORD_FRAMES: u64 = 180;

/// Arguments of `supple run`.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    /// Window or headless run, export and report.
    #[command(flatten)]
    pub output: RunOutput,
}

/// How a loaded scene is run: in the window, headless, or for a screenshot (`supple run` and
/// `supple import`).
#[derive(Args, Debug, Clone)]
pub struct RunOutput {
    /// Simulate without a window (with a progress bar and a one-line summary).
    #[arg(long)]
    pub headless: bool,
    /// Frames to simulate (headless default 300; the window runs until closed).
    #[arg(long)]
    pub frames: Option<u64>,
    /// Write one OBJ per body per frame into this folder: `DIR/<body>_<frame:05>.obj`.
    #[arg(long, value_name = "DIR")]
    pub export: Option<PathBuf>,
    /// Write the whole run to this USD file (text, `.usda` or `.usd`): one time-sampled mesh or
    /// curve per body and the colliders, for Blender, Houdini, Omniverse and usdview.
    #[arg(long, value_name = "FILE.usda", value_parser = usd_path)]
    pub export_usd: Option<PathBuf>,
    /// Write per-frame statistics to this JSON file.
    #[arg(long, value_name = "FILE.json")]
    pub report: Option<PathBuf>,
    /// Render offscreen (no display needed), simulating `--frames` frames (default 60), save a
    /// PNG of the last one and exit.
    #[arg(long, value_name = "FILE.png", conflicts_with_all = ["headless", "export", "export_usd", "report"])]
    pub screenshot: Option<PathBuf>,
    /// Render offscreen (no display needed), simulating `--frames` frames (default 180), and
    /// write an animated GIF of every `--record-stride`-th frame.
    #[arg(long, value_name = "FILE.gif", conflicts_with_all = ["headless", "export", "export_usd", "report", "screenshot"])]
    pub gif: Option<PathBuf>,
    /// Like `--gif`, as an MP4 video encoded by ffmpeg (which must be on the PATH).
    #[arg(long, value_name = "FILE.mp4", conflicts_with_all = ["headless", "export", "export_usd", "report", "screenshot"])]
    pub video: Option<PathBuf>,
    /// Size of the `--gif` and `--video` pictures, pixels.
    #[arg(long, value_name = "WxH", default_value = "640x400", value_parser = picture_size)]
    pub record_size: (u32, u32),
    /// Record every N-th frame for `--gif` and `--video` (from frame 0).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    pub record_stride: u64,
    /// Threads of the parallel solver (default: RAYON_NUM_THREADS, else one per core).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// Overrides of the scene's solver settings.
    #[command(flatten)]
    pub solver: SolverOverrides,
}

/// What a headless run measured.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Frames simulated.
    pub frames: u64,
    /// Wall time of the steps, s.
    pub wall_s: f64,
    /// Statistics after the last frame.
    pub last: FrameStats,
}

/// Runs `supple run`.
pub fn run(args: &RunArgs) -> anyhow::Result<()> {
    set_threads(&args.output)?;
    run_scene(load_scene(&args.scene)?, &args.output)
}

/// Sizes the global rayon pool as `--threads` says; call it before anything uses rayon (building
/// a scene does). The pool is global rather than installed around the run because the window's
/// event loop must stay on the main thread.
pub fn set_threads(args: &RunOutput) -> anyhow::Result<()> {
    if let Some(t) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t as usize)
            .build_global()?;
    }
    Ok(())
}

/// Runs a loaded scene as `args` say: a screenshot, an animation, headless, or in the window.
pub fn run_scene(mut scene: Scene, args: &RunOutput) -> anyhow::Result<()> {
    args.solver.apply(&mut scene.world.params);
    for body in scene.world.bodies() {
        let (welded, collapsed) = (body.welded_vertices(), body.collapsed_triangles());
        if welded + collapsed > 0 {
            eprintln!(
                "{} '{}': welded {welded} of its {} vertices into seams and collapsed {collapsed} \
                 sliver or degenerate triangles ({} particles)",
                body.kind.name(),
                body.name,
                body.vertex_count(),
                body.particles.len()
            );
        }
    }
    if let Some(path) = &args.screenshot {
        return screenshot(
            scene,
            args.frames.unwrap_or(DEFAULT_SCREENSHOT_FRAMES),
            path,
        );
    }
    if args.gif.is_some() || args.video.is_some() {
        return record(scene, args);
    }
    if args.headless || args.export.is_some() || args.export_usd.is_some() || args.report.is_some()
    {
        let frames = args.frames.unwrap_or(DEFAULT_FRAMES);
        let name = scene.name.clone();
        let s = run_headless(scene, frames, args, true)?;
        let ms = if s.frames > 0 {
            1e3 * s.wall_s / s.frames as f64
        } else {
            0.0
        };
        println!(
            "{name}: {} frames in {:.2} s, {ms:.3} ms per frame, final max strain {:.3}%",
            s.frames,
            s.wall_s,
            100.0 * s.last.max_strain
        );
        return Ok(());
    }
    open_window(scene)
}

#[cfg(feature = "viewer")]
fn open_window(scene: Scene) -> anyhow::Result<()> {
    if !crate::viewer::display_available() {
        anyhow::bail!(
            "no display is available to open a window: run with --headless (for example `supple run SCENE.toml --headless --frames 300 --export out/`)"
        );
    }
    crate::viewer::run_window(scene.world, &scene.name)
}

#[cfg(feature = "viewer")]
fn screenshot(scene: Scene, frames: u64, path: &Path) -> anyhow::Result<()> {
    crate::viewer::screenshot(scene.world, &scene.name, frames, path)
}

#[cfg(feature = "viewer")]
fn record(scene: Scene, args: &RunOutput) -> anyhow::Result<()> {
    let recording = crate::viewer::record::Recording {
        frames: args.frames.unwrap_or(DEFAULT_RECORD_FRAMES),
        stride: args.record_stride,
        size: args.record_size,
        gif: args.gif.clone(),
        video: args.video.clone(),
    };
    crate::viewer::record::record(scene.world, &scene.name, &recording)
}

/// Why a build without the viewer cannot draw.
#[cfg(not(feature = "viewer"))]
const NO_VIEWER: &str = "this build of supple has no viewer (built without the `viewer` feature)";

#[cfg(not(feature = "viewer"))]
fn open_window(_scene: Scene) -> anyhow::Result<()> {
    anyhow::bail!("{NO_VIEWER}: run with --headless")
}

#[cfg(not(feature = "viewer"))]
fn screenshot(_scene: Scene, _frames: u64, _path: &Path) -> anyhow::Result<()> {
    anyhow::bail!("{NO_VIEWER}: it cannot take screenshots")
}

#[cfg(not(feature = "viewer"))]
fn record(_scene: Scene, _args: &RunOutput) -> anyhow::Result<()> {
    anyhow::bail!("{NO_VIEWER}: it cannot record animations")
}

/// Parses a picture size `WxH` in pixels, each side 16 to 8192.
fn picture_size(s: &str) -> Result<(u32, u32), String> {
    let parsed = s
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)));
    match parsed {
        Some((w, h)) if (16..=8192).contains(&w) && (16..=8192).contains(&h) => Ok((w, h)),
        _ => Err(format!(
            "expected a size WxH in pixels, each side 16 to 8192 (e.g. 640x400), got '{s}'"
        )),
    }
}

/// Accepts a USD file name that Supple can write: text USD, `.usda` or `.usd`.
fn usd_path(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    match path.extension().and_then(|e| e.to_str()) {
        Some("usda" | "usd") => Ok(path),
        Some("usdc" | "usdz") => Err(format!(
            "'{s}': Supple writes text USD; name the file .usda (usdcat converts it to .usdc)"
        )),
        _ => Err(format!(
            "'{s}': expected a USD file name ending in .usda or .usd"
        )),
    }
}

/// Simulates `frames` frames of `scene`, writing every frame (from frame 0) as `outputs` ask:
/// OBJ files into `--export`, the USD file `--export-usd`, and the statistics of every frame to
/// `--report`. Stops at the first non-finite frame with its error, leaving no USD file or report.
pub fn run_headless(
    scene: Scene,
    frames: u64,
    outputs: &RunOutput,
    progress: bool,
) -> anyhow::Result<Summary> {
    let Scene { name, mut world } = scene;
    let export = outputs.export.as_ref();
    let report = outputs.report.as_ref();
    if let Some(dir) = export {
        std::fs::create_dir_all(dir).map_err(|e| {
            anyhow::anyhow!("cannot create the export folder {}: {e}", dir.display())
        })?;
        export_frame(&world, dir)?;
    }
    let mut usd = match &outputs.export_usd {
        Some(path) => Some(UsdWriter::create(path, &world, &name)?),
        None => None,
    };
    if let Some(usd) = &mut usd {
        usd.write_frame(&world)?;
    }
    let mut records = Vec::new();
    let record = |world: &crate::World, step_ms: f64, stats: FrameStats| FrameRecord {
        frame: world.frame,
        time: world.frame as f64 * world.params.dt as f64,
        step_ms,
        stage_ms: *world.stage_ms(),
        stats,
    };
    // The stats (strain over every constraint, tets' by their singular values) only where they
    // are written: every frame for a report, else once at the end for the summary.
    if report.is_some() {
        records.push(record(&world, 0.0, FrameStats::measure(&world)));
    }
    let bar = if progress {
        ProgressBar::new(frames)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} frames, {per_sec}, eta {eta}")
            .expect("valid template"),
    );
    let mut wall_s = 0.0;
    for _ in 0..frames {
        let t = Instant::now();
        world.step()?;
        let step = t.elapsed().as_secs_f64();
        wall_s += step;
        if let Some(dir) = export {
            export_frame(&world, dir)?;
        }
        if let Some(usd) = &mut usd {
            usd.write_frame(&world)?;
        }
        if report.is_some() {
            records.push(record(&world, 1e3 * step, FrameStats::measure(&world)));
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    if let Some(usd) = usd {
        usd.finish(&world)?;
    }
    if let Some(path) = report {
        Report {
            scene: name,
            settings: (&world.params).into(),
            bodies: world.bodies().iter().map(BodyRecord::from).collect(),
            frames: records,
        }
        .write(path)?;
    }
    Ok(Summary {
        frames,
        wall_s,
        last: FrameStats::measure(&world),
    })
}
