//! `SUPPLE_SIMD`: every SIMD path this processor runs gives the same bits, and `supple` refuses a
//! value that names no path, or a path the processor lacks.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable, and its values from the narrowest path to the widest.
const SIMD_ENV: &str = "SUPPLE_SIMD";
const PATHS: [&str; 3] = ["portable", "avx2", "avx512"];

/// Runs `supple ARGS` in `dir` with `SUPPLE_SIMD` set to `simd` (unset for `None`): (success,
/// stdout, stderr).
fn supple_with(simd: Option<&str>, args: &[&str], dir: &Path) -> (bool, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_supple"));
    command.args(args).current_dir(dir);
    match simd {
        Some(value) => command.env(SIMD_ENV, value),
        None => command.env_remove(SIMD_ENV),
    };
    let out = command.output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The paths this processor runs: those `supple` accepts.
fn runnable() -> Vec<&'static str> {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "bench",
        "step",
        "--n",
        "2",
        "--frames",
        "1",
        "--threads",
        "1",
    ];
    let paths: Vec<&str> = PATHS
        .into_iter()
        .filter(|p| supple_with(Some(p), &args, dir.path()).0)
        .collect();
    assert_eq!(
        paths.first(),
        Some(&"portable"),
        "every processor runs the portable path"
    );
    paths
}

fn scene(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(format!("{name}.toml"))
}

/// The OBJ files of `scene` run headless for `frames` frames on `simd`, by name (the positions
/// printed in full: Rust's shortest representation that reads back as the same `f32`).
fn exported(simd: Option<&str>, scene_name: &str, frames: u32) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let path = scene(scene_name);
    let frames = frames.to_string();
    let args = [
        "run",
        path.to_str().unwrap(),
        "--headless",
        "--frames",
        &frames,
        "--export",
        "out",
    ];
    let (ok, _, stderr) = supple_with(simd, &args, dir.path());
    assert!(ok, "{scene_name} on {simd:?}: {stderr}");
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{scene_name}: nothing exported");
    files
}

/// Scenes that between them run every kernel that has a SIMD build: the scheduled families
/// (distance, dihedral, volume), the Neo-Hookean tets and the wind, each projected with every
/// path this processor has, give the bits of the path it picks by itself.
#[test]
fn every_path_gives_the_bits_of_the_default_one() {
    let paths = runnable();
    for (scene_name, frames) in [
        ("flag-gusts", 12),
        ("drape", 12),
        ("jelly", 12),
        ("soft-models", 8),
    ] {
        let default = exported(None, scene_name, frames);
        for path in &paths {
            let forced = exported(Some(path), scene_name, frames);
            assert!(
                forced == default,
                "{scene_name}: SUPPLE_SIMD={path} gives other positions than the default path"
            );
        }
    }
}

/// `supple bench step` says which path ran, on stdout and in a last CSV column.
#[test]
fn bench_step_reports_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "bench",
        "step",
        "--n",
        "8",
        "--method",
        "colored",
        "--threads",
        "1",
        "--frames",
        "1",
        "--csv",
        "out.csv",
    ];
    let (ok, stdout, stderr) = supple_with(Some("portable"), &args, dir.path());
    assert!(ok, "{stderr}");
    assert!(stdout.starts_with("simd: portable\n"), "{stdout}");
    let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    let mut lines = csv.lines();
    assert!(
        lines.next().unwrap().ends_with(",mean_stretch,simd"),
        "{csv}"
    );
    assert!(lines.next().unwrap().ends_with(",portable"), "{csv}");
}

/// A value that names no path, or a path wider than the processor's, stops `supple` at start-up
/// with an error naming the variable, the value and the paths it may take.
#[test]
fn a_bad_value_is_refused_at_start_up() {
    let dir = tempfile::tempdir().unwrap();
    let path = scene("rope");
    let args = ["run", path.to_str().unwrap(), "--headless", "--frames", "1"];
    let (ok, _, stderr) = supple_with(Some("sse9"), &args, dir.path());
    assert!(!ok, "an unknown path was accepted");
    assert!(
        stderr.contains(
            "SUPPLE_SIMD=\"sse9\" names no SIMD path: expected one of portable, avx2, avx512"
        ),
        "{stderr}"
    );
    if !runnable().contains(&"avx512") {
        let (ok, _, stderr) = supple_with(Some("avx512"), &args, dir.path());
        assert!(!ok, "a path the processor lacks was accepted");
        assert!(
            stderr.contains("SUPPLE_SIMD=avx512: this processor cannot run the avx512 path"),
            "{stderr}"
        );
    }
}
