//! The same scene and settings give bit-identical results.
#![cfg(feature = "cli")]

use std::path::Path;
use std::process::Command;

fn run_export(scene: &Path, out: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_supple"))
        .args([
            "run",
            scene.to_str().unwrap(),
            "--headless",
            "--frames",
            "30",
            "--export",
            out.to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn running_a_scene_twice_exports_identical_files() {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/drape.toml");
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    run_export(&scene, &a);
    run_export(&scene, &b);
    let mut names: Vec<_> = std::fs::read_dir(&a)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    // Frame 0 and one file per frame after it.
    assert_eq!(names.len(), 31);
    assert_eq!(names[0].to_str().unwrap(), "drape_00000.obj");
    for name in names {
        let (fa, fb) = (
            std::fs::read(a.join(&name)).unwrap(),
            std::fs::read(b.join(&name)).unwrap(),
        );
        assert!(fa == fb, "{name:?} differs between two runs");
    }
}
