//! `supple import`: the scene written by `--out` reproduces the import; bad input writes nothing.
#![cfg(feature = "cli")]

use crate::cli_helper::supple;
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
    let (vertices, triangles) = cleaned_counts(&std::fs::read_to_string(&mesh).unwrap());
    assert_eq!(
        (count("v "), count("vn "), count("f ")),
        (vertices, vertices, triangles)
    );
}

/// The vertices and triangles left of the OBJ text `obj` after the cleaning that `import`
/// documents, computed here on their own: polygons fanned into triangles from their first
/// vertex; vertices at identical coordinates welded into the first; triangles with a repeated
/// vertex dropped; of triangles on the same three vertices, a repeat with the same winding
/// dropped and both of a pair with opposite winding dropped (a sheet of zero thickness); then
/// the vertices no triangle uses dropped. (For suzanne.obj: 507 vertices and 32 + 2 × 468 =
/// 968 triangles; two vertices welded; two quads fan into the same triangle wound both ways,
/// whose removal leaves one vertex unused: 504 and 966.)
fn cleaned_counts(obj: &str) -> (usize, usize) {
    let (mut first_at, mut weld) = (std::collections::HashMap::new(), Vec::new());
    let mut triangles = Vec::new();
    for line in obj.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                let key: Vec<&str> = words.take(3).collect();
                let first = *first_at.entry(key.join(" ")).or_insert(weld.len());
                weld.push(first);
            }
            Some("f") => {
                let ids: Vec<usize> = words
                    .map(|w| w.split('/').next().unwrap().parse::<usize>().unwrap() - 1)
                    .collect();
                for k in 1..ids.len() - 1 {
                    triangles.push([ids[0], ids[k], ids[k + 1]].map(|i| weld[i]));
                }
            }
            _ => {}
        }
    }
    triangles.retain(|[a, b, c]| a != b && b != c && a != c);
    // The rotation starting at the smallest vertex: equal for the same winding.
    let rotated = |t: [usize; 3]| {
        let k = (0..3).min_by_key(|&k| t[k]).unwrap();
        [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
    };
    let mut kept: Vec<Option<[usize; 3]>> = Vec::new();
    for t in triangles.into_iter().map(rotated) {
        let reversed = rotated([t[0], t[2], t[1]]);
        if kept.contains(&Some(t)) {
            continue;
        }
        match kept.iter().position(|k| *k == Some(reversed)) {
            Some(i) => kept[i] = None,
            None => kept.push(Some(t)),
        }
    }
    let kept: Vec<[usize; 3]> = kept.into_iter().flatten().collect();
    let used: std::collections::HashSet<usize> = kept.iter().flatten().copied().collect();
    (used.len(), kept.len())
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
