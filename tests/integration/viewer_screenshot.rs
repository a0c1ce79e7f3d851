//! The offscreen screenshot of the default scene shows the cloth, and it moves between frames.
#![cfg(feature = "viewer")]

use crate::viewer_helper;

use supple::viewer::{ViewerError, screenshot};
use viewer_helper::default_world as world;

/// Pixels that differ from the top-right corner, which the scene never covers: the background.
fn differs_from_background(image: &image::RgbImage) -> usize {
    let background = image.get_pixel(image.width() - 1, 0).0;
    image
        .pixels()
        .filter(|p| p.0.iter().zip(background).any(|(a, b)| a.abs_diff(b) > 8))
        .count()
}

#[test]
fn screenshot_shows_the_cloth_and_it_moves() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("frame1.png");
    let later = dir.path().join("frame60.png");
    match screenshot(world(), "default", 1, &first) {
        Err(e) if matches!(e.downcast_ref(), Some(ViewerError::NoAdapter(_))) => {
            return viewer_helper::no_vulkan(&e.to_string());
        }
        result => result.unwrap(),
    }
    screenshot(world(), "default", 60, &later).unwrap();
    let a = image::open(&first).unwrap().to_rgb8();
    let b = image::open(&later).unwrap().to_rgb8();
    assert_eq!(a.dimensions(), b.dimensions());
    let (covered, total) = (
        differs_from_background(&a),
        (a.width() * a.height()) as usize,
    );
    assert!(
        covered > total / 20,
        "only {covered} of {total} pixels differ from the background"
    );
    let changed = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    assert!(
        changed > total / 100,
        "only {changed} pixels changed between frame 1 and frame 60"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "temporary files left: {leftovers:?}");
    if let Ok(keep) = std::env::var("SUPPLE_KEEP_SCREENSHOTS") {
        std::fs::copy(&first, format!("{keep}/frame1.png")).unwrap();
        std::fs::copy(&later, format!("{keep}/frame60.png")).unwrap();
    }
}

/// A successful `--screenshot` prints no line that says "error", even where the environment has
/// no `XDG_RUNTIME_DIR` (the Wayland probe complained about it).
#[cfg(feature = "cli")]
#[test]
fn a_successful_screenshot_prints_no_error() {
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("shot.png");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_supple"))
        .args([
            "run",
            "scenes/default.toml",
            "--frames",
            "2",
            "--screenshot",
        ])
        .arg(&shot)
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("Vulkan") && !output.status.success() {
        return viewer_helper::no_vulkan(&stderr);
    }
    assert!(output.status.success(), "{stderr}");
    assert!(shot.exists());
    assert!(!stderr.to_lowercase().contains("error"), "{stderr}");
}
