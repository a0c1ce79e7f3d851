//! `supple import`: the scene written by `--out` reproduces the import; bad input writes nothing.
#![cfg(feature = "cli")]

mod cli_helper;

use cli_helper::supple;
use std::path::Path;

/// A mesh of `../shared/meshes`.
fn shared_mesh(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/meshes")
        .join(name)
}

fn last_bodies(report: &Path) -> serde_json::Value {
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    r["frames"].as_array().unwrap().last().unwrap()["bodies"].clone()
}

#[test]
fn out_scene_reproduces_the_import() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = shared_mesh("suzanne.obj");
    let (ok, stdout, stderr) = supple(
        &[
            "import",
            mesh.to_str().unwrap(),
            "--resolution",
            "6",
            "--model",
            "clusters",
            "--headless",
            "--frames",
            "5",
            "--out",
            "suzanne.toml",
            "--report",
            "a.json",
            "--export",
            "out",
        ],
        dir.path(),
    );
    assert!(ok, "{stderr}");
    assert!(stdout.contains("welded 2 vertices"), "{stdout}");
    let (ok, _, stderr) = supple(
        &[
            "run",
            "suzanne.toml",
            "--headless",
            "--frames",
            "5",
            "--report",
            "b.json",
        ],
        dir.path(),
    );
    assert!(ok, "{stderr}");
    let a = last_bodies(&dir.path().join("a.json"));
    assert_eq!(a, last_bodies(&dir.path().join("b.json")));
    assert_eq!(a[0]["name"], "suzanne");
    assert!(a[0]["volume"].as_f64().unwrap() > 0.0);
    let obj = std::fs::read_to_string(dir.path().join("out/suzanne_00005.obj")).unwrap();
    let count = |prefix: &str| obj.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!((count("v "), count("vn "), count("f ")), (504, 504, 966));
}

#[test]
fn surface_on_an_open_mesh_fails_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = shared_mesh("teapot.obj");
    let (ok, _, stderr) = supple(
        &[
            "import",
            mesh.to_str().unwrap(),
            "--model",
            "surface",
            "--headless",
            "--out",
            "t.toml",
            "--report",
            "r.json",
        ],
        dir.path(),
    );
    assert!(!ok);
    assert!(stderr.contains("--model tets"), "{stderr}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn bad_obj_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.obj"),
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n",
    )
    .unwrap();
    let (ok, _, stderr) = supple(
        &["import", "bad.obj", "--headless", "--out", "s.toml"],
        dir.path(),
    );
    assert!(!ok);
    assert!(
        stderr.contains("bad.obj") && stderr.contains(":4"),
        "{stderr}"
    );
    assert!(!dir.path().join("s.toml").exists());
}

#[test]
fn import_takes_the_solver_method_and_thread_count() {
    // Importing builds the lattice with rayon, so the pool must be sized before it.
    let dir = tempfile::tempdir().unwrap();
    let mesh = shared_mesh("suzanne.obj");
    let (ok, stdout, stderr) = supple(
        &[
            "import",
            mesh.to_str().unwrap(),
            "--resolution",
            "6",
            "--headless",
            "--frames",
            "3",
            "--method",
            "colored",
            "--threads",
            "2",
        ],
        dir.path(),
    );
    assert!(ok, "{stderr}");
    assert!(stdout.contains("3 frames"), "{stdout}");
}
