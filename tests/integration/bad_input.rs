//! Bad scenes and meshes: a clear message naming the file, line and key, a non-zero exit, no
//! panic, and nothing written.
#![cfg(feature = "cli")]

use std::process::Command;

const GOOD: &str = r#"
[solver]
substeps = 2
iterations = 2

[[cloth]]
name = "sheet"
resolution = [4, 4]
size = [1.0, 1.0]
mass = 0.5
stretch = { model = "xpbd", compliance = 0.0 }
"#;

/// Writes `scene` (and an OBJ mesh `mesh.obj` with `obj` text, if given) to a fresh folder, runs
/// it headless with export and report, and returns (exit success, stderr, the folder).
fn run(scene: &str, obj: Option<&[u8]>) -> (bool, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scene.toml"), scene).unwrap();
    if let Some(obj) = obj {
        std::fs::write(dir.path().join("mesh.obj"), obj).unwrap();
    }
    let output = Command::new(env!("CARGO_BIN_EXE_supple"))
        .args([
            "run",
            "scene.toml",
            "--headless",
            "--frames",
            "2",
            "--export",
            "out",
            "--report",
            "out.json",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "panic: {stderr}"
    );
    assert!(
        !dir.path().join("out.json").exists() || output.status.success(),
        "a failed run wrote a report"
    );
    (output.status.success(), stderr, dir)
}

/// Asserts the run fails, writes nothing, and its message contains every one of `needles`.
fn fails_with(scene: &str, obj: Option<&[u8]>, needles: &[&str]) {
    let (ok, stderr, dir) = run(scene, obj);
    assert!(!ok, "expected a failure for:\n{scene}");
    assert!(
        !dir.path().join("out").exists(),
        "a scene that failed validation wrote its export folder"
    );
    for n in needles {
        assert!(stderr.contains(n), "message {stderr:?} lacks {n:?}");
    }
}

#[test]
fn the_good_scene_runs() {
    let (ok, stderr, dir) = run(GOOD, None);
    assert!(ok, "{stderr}");
    assert!(dir.path().join("out/sheet_00002.obj").exists());
    assert!(dir.path().join("out.json").exists());
}

#[test]
fn toml_syntax_error_names_the_line() {
    fails_with("[solver]\nsubsteps = = 3\n", None, &["scene.toml:2:"]);
}

#[test]
fn unknown_key_names_the_line_and_key() {
    fails_with(
        &GOOD.replace("mass = 0.5", "mass = 0.5\nmas = 1.0"),
        None,
        &["scene.toml:11:", "unknown field `mas`"],
    );
}

#[test]
fn wrong_type_names_the_line() {
    fails_with(
        &GOOD.replace("mass = 0.5", "mass = \"heavy\""),
        None,
        &["scene.toml:10:", "mass"],
    );
}

#[test]
fn out_of_range_values_name_line_key_and_expectation() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "mass = 0.5",
            "mass = -1.0",
            &["scene.toml:10:", "`cloth[0].mass`", "> 0"],
        ),
        (
            "compliance = 0.0",
            "compliance = -0.5",
            &["scene.toml:11:", "`cloth[0].stretch.compliance`", ">= 0"],
        ),
        (
            "substeps = 2",
            "substeps = 0",
            &["scene.toml:3:", "`solver.substeps`", ">= 1"],
        ),
        (
            r#"model = "xpbd", compliance = 0.0"#,
            r#"model = "pbd", k = 1.5"#,
            &["scene.toml:11:", "`cloth[0].stretch.k`", "[0, 1]"],
        ),
        (
            r#"model = "xpbd", compliance = 0.0"#,
            r#"model = "stiff""#,
            &["scene.toml:11:", "`cloth[0].stretch.model`", "\"xpbd\""],
        ),
        (
            r#"model = "xpbd", compliance = 0.0"#,
            r#"model = "elastic", stiffness = -500.0"#,
            &["scene.toml:11:", "`cloth[0].stretch.stiffness`", "> 0"],
        ),
        (
            r#"model = "xpbd", compliance = 0.0"#,
            r#"model = "elastic""#,
            &["scene.toml:11:", "`cloth[0].stretch`", "no `stiffness`"],
        ),
        (
            r#"model = "xpbd", compliance = 0.0 }"#,
            r#"model = "xpbd" }
bend = { model = "elastic", stiffness = 1e-3, kind = "cross-distance" }"#,
            &["scene.toml:12:", "`cloth[0].bend`", "dihedral"],
        ),
        (
            "resolution = [4, 4]",
            "resolution = [4, 4]\ndiagonals = \"diagonal\"",
            &["scene.toml:9:", "`cloth[0].diagonals`", "\"uniform\""],
        ),
        (
            "resolution = [4, 4]",
            "resolution = [1, 4]",
            &["scene.toml:8:", "`cloth[0].resolution`", ">= 2"],
        ),
        (
            "iterations = 2",
            "iterations = 2\nmethod = \"magic\"",
            &["scene.toml:5:", "`solver.method`", "gauss-seidel"],
        ),
    ];
    for (from, to, needles) in cases {
        fails_with(&GOOD.replace(from, to), None, needles);
    }
}

#[test]
fn pins_out_of_range_are_errors() {
    fails_with(
        &GOOD.replace("mass = 0.5", "mass = 0.5\npin = [[0, 9]]"),
        None,
        &["scene.toml:11:", "`cloth[0].pin[0]`"],
    );
}

#[test]
fn a_bad_tear_limit_and_a_body_after_a_tearing_cloth_are_errors() {
    fails_with(
        &GOOD.replace("mass = 0.5", "mass = 0.5\ntear = { strain = -0.1 }"),
        None,
        &["scene.toml:11:", "`cloth[0].tear.strain`", "> 0"],
    );
    let torn = GOOD.replace("mass = 0.5", "mass = 0.5\ntear = { strain = 0.2 }");
    let scene = format!("{torn}\n[[cloth]]\nname = \"after\"\nresolution = [3, 3]\nmass = 1.0\n");
    fails_with(&scene, None, &["`cloth[1].tear`", "'sheet'", "last body"]);
}

#[test]
fn duplicate_body_names_are_errors() {
    let scene = format!("{GOOD}\n[[cloth]]\nname = \"sheet\"\nresolution = [3, 3]\nmass = 1.0\n");
    fails_with(&scene, None, &["`cloth[1].name`", "another body"]);
}

#[test]
fn collider_without_its_keys_is_an_error() {
    fails_with(
        &format!("{GOOD}\n[[collider]]\nshape = \"sphere\"\nradius = 0.5\n"),
        None,
        &["`collider[0]`", "needs `center`"],
    );
    fails_with(
        &format!("{GOOD}\n[[collider]]\nshape = \"plane\"\nradius = 0.5\n"),
        None,
        &["`collider[0].radius`", "does not apply"],
    );
}

fn mesh_scene() -> String {
    GOOD.replace(
        "resolution = [4, 4]\nsize = [1.0, 1.0]",
        "mesh = \"mesh.obj\"",
    )
}

#[test]
fn a_mesh_cloth_runs() {
    let (ok, stderr, dir) = run(
        &mesh_scene(),
        Some(b"v 0 0 0\nv 1 0 0\nv 0 0 1\nv 1 0 1\nf 1 3 2\nf 2 3 4\n"),
    );
    assert!(ok, "{stderr}");
    let obj = std::fs::read_to_string(dir.path().join("out/sheet_00000.obj")).unwrap();
    assert_eq!(obj.lines().filter(|l| l.starts_with("v ")).count(), 4);
    assert_eq!(obj.lines().filter(|l| l.starts_with("vn ")).count(), 4);
    assert!(obj.contains("f 1//1 3//3 2//2"));
}

#[test]
fn isometric_bending_takes_flat_cloths_only() {
    let isometric = |scene: &str| {
        scene.replace(
            r#"model = "xpbd", compliance = 0.0 }"#,
            r#"model = "xpbd", compliance = 0.0 }
bend = { model = "xpbd", compliance = 1.0, kind = "isometric" }"#,
        )
    };
    let flat = b"v 0 0 0\nv 1 0 0\nv 0 0 1\nv 1 0 1\nf 1 3 2\nf 2 3 4\n";
    let (ok, stderr, _) = run(&isometric(&mesh_scene()), Some(flat));
    assert!(ok, "{stderr}");
    // The same sheet with one corner raised by its side: folded by acos(1/√3) = 54.74° along
    // its diagonal.
    let folded = b"v 0 0 0\nv 1 0 0\nv 0 0 1\nv 1 1 1\nf 1 3 2\nf 2 3 4\n";
    fails_with(
        &isometric(&mesh_scene()),
        Some(folded),
        &["`cloth[0].bend`", "flat at rest", "54.74°", "dihedral"],
    );
}

#[test]
fn bad_meshes_name_the_scene_key_and_the_mesh_line() {
    let scene = mesh_scene();
    fails_with(
        &scene.replace("mesh.obj", "missing.obj"),
        None,
        &["scene.toml:8:", "`cloth[0].mesh`", "missing.obj"],
    );
    fails_with(
        &scene,
        Some(b"\x00\x01\x02binary junk\xff"),
        &["mesh.obj", "not an OBJ text file"],
    );
    fails_with(
        &scene,
        Some(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n"),
        &["mesh.obj:4:", "out of range"],
    );
    fails_with(
        &scene,
        Some(b"v 0 0 0\nv 1 nan 0\nv 0 1 0\nf 1 2 3\n"),
        &["mesh.obj:2:", "nan"],
    );
    fails_with(
        &scene,
        Some(b"v 0 0 0\nv 1 0 0\nv 0 1 0\n"),
        &["mesh.obj", "no faces"],
    );
}

#[test]
fn elastic_solids_name_their_wrong_key() {
    let cube = supple::mesh::generate::obj_text(&supple::mesh::generate::cube(), "cube");
    let scene = |volume: &str, extra: &str| {
        format!("[[soft_body]]\nmesh = \"mesh.obj\"\nmass = 1.0\nvolume = {{ {volume} }}\n{extra}")
    };
    let solid = r#"model = "elastic", youngs = 1e5, poisson = 0.3"#;
    let (ok, stderr, _dir) = run(&scene(solid, ""), Some(cube.as_bytes()));
    assert!(ok, "{stderr}");
    for (volume, extra, needles) in [
        (
            r#"model = "elastic", youngs = 1e5, poisson = 0.5"#,
            "",
            &[
                "scene.toml:4:",
                "`soft_body[0].volume.poisson`",
                "(-1, 0.5)",
            ][..],
        ),
        (
            r#"model = "elastic", youngs = 0.0, poisson = 0.3"#,
            "",
            &["scene.toml:4:", "`soft_body[0].volume.youngs`", "> 0"],
        ),
        (
            r#"model = "elastic", youngs = 1e5"#,
            "",
            &["scene.toml:4:", "`soft_body[0].volume`", "no `poisson`"],
        ),
        (
            solid,
            r#"edge = { model = "xpbd", compliance = 1e-4 }"#,
            &["`soft_body[0].edge`", "elastic solid"],
        ),
        (
            solid,
            r#"model = "surface""#,
            &["`soft_body[0].volume.youngs`", "\"tets\""],
        ),
    ] {
        fails_with(&scene(volume, extra), Some(cube.as_bytes()), needles);
    }
    fails_with(
        &GOOD.replace(
            r#"model = "xpbd", compliance = 0.0"#,
            r#"model = "elastic", youngs = 1e5, poisson = 0.3"#,
        ),
        None,
        &["scene.toml:11:", "`cloth[0].stretch.youngs`", "soft bodies"],
    );
}

#[test]
fn a_missing_scene_file_is_an_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_supple"))
        .args(["run", "no/such/scene.toml", "--headless"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("no/such/scene.toml: cannot read the scene file")
    );
}

#[test]
fn a_blown_up_simulation_names_the_body_and_frame() {
    // A frame of 1e30 s overflows f32 positions in the first substep.
    let (ok, stderr, dir) = run(
        &GOOD.replace("iterations = 2", "iterations = 2\ndt = 1e30"),
        None,
    );
    assert!(!ok);
    assert!(
        stderr.contains("body 'sheet'") && stderr.contains("frame 1"),
        "{stderr}"
    );
    // Frame 0 was finite and stays; the non-finite frame is not exported.
    assert!(dir.path().join("out/sheet_00000.obj").exists());
    assert!(!dir.path().join("out/sheet_00001.obj").exists());
}

#[test]
fn a_diverging_simulation_stops_at_the_strain_limit_and_exports_nothing_of_that_frame() {
    // A soft cloth hung from two corners stretches by far more than a limit of 1e-6 in its
    // first frame.
    let scene = GOOD
        .replace("iterations = 2", "iterations = 2\nmax_strain = 1e-6")
        .replace("compliance = 0.0", "compliance = 1.0")
        .replace("mass = 0.5", "mass = 0.5\npin = [[0, 0], [-1, 0]]");
    let (ok, stderr, dir) = run(&scene, None);
    assert!(!ok);
    assert!(
        stderr.contains("body 'sheet'")
            && stderr.contains("frame 1")
            && stderr.contains("diverging"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(dir.path().join("out/sheet_00000.obj").exists());
    assert!(!dir.path().join("out/sheet_00001.obj").exists());
}
