//! Scene files and meshes mutated at random (truncated, bytes replaced, lines swapped and
//! repeated, numbers made NaN, infinite, negative, huge or zero): every case ends within a time
//! budget with a world or an error that names the file, never a panic or a hang.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;
use supple::mesh::obj::parse_obj;
use supple::scene::parse_scene;

/// How long one case may take to load (and, when it loads, to step one frame).
const BUDGET: Duration = Duration::from_secs(20);

/// The values a number is replaced by.
const ODD_NUMBERS: [&str; 12] = [
    "nan",
    "inf",
    "-inf",
    "-1.0",
    "-3",
    "0",
    "0.0",
    "1e30",
    "1e-30",
    "4294967296",
    "99999999999",
    "65536",
];

fn shipped(dir: &str, extension: &str) -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    files.sort();
    files
}

/// One random change to `text`, chosen by `kind` and placed by `at` and `pick` (fractions of
/// the text and of the choices).
fn mutate(text: &str, kind: u8, at: f64, pick: f64, byte: char) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let line = ((at * lines.len() as f64) as usize).min(lines.len().saturating_sub(1));
    let other = ((pick * lines.len() as f64) as usize).min(lines.len().saturating_sub(1));
    match kind % 5 {
        0 => {
            let mut cut = (at * text.len() as f64) as usize;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text[..cut].to_string()
        }
        1 => {
            let mut chars: Vec<char> = text.chars().collect();
            let i = ((at * chars.len() as f64) as usize).min(chars.len().saturating_sub(1));
            if let Some(c) = chars.get_mut(i) {
                *c = byte;
            }
            chars.into_iter().collect()
        }
        2 => {
            let mut l = lines.clone();
            l.swap(line, other);
            l.join("\n")
        }
        3 => {
            let mut l = lines.clone();
            l.insert(other, lines[line]);
            l.join("\n")
        }
        _ => {
            // Replace the number nearest after `at` by an odd one.
            let value = ODD_NUMBERS[(pick * ODD_NUMBERS.len() as f64) as usize % ODD_NUMBERS.len()];
            let start = (at * text.len() as f64) as usize;
            let bytes = text.as_bytes();
            let Some(s) = (start..text.len()).find(|&i| bytes[i].is_ascii_digit()) else {
                return text.to_string();
            };
            let e = (s..text.len())
                .find(|&i| !(bytes[i].is_ascii_alphanumeric() || b".-+".contains(&bytes[i])))
                .unwrap_or(text.len());
            format!("{}{value}{}", &text[..s], &text[e..])
        }
    }
}

/// Runs `job` on its own thread; fails the test if it panics or outlives the budget.
fn within_budget(what: String, job: impl FnOnce() -> Result<(), String> + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)));
    });
    match rx.recv_timeout(BUDGET) {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(message))) => panic!("{what}: {message}"),
        Ok(Err(_)) => panic!("{what}: panicked"),
        Err(_) => panic!("{what}: took longer than {BUDGET:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn mutated_scenes_load_or_fail_with_the_file_named(
        file in 0usize..64, kind: u8, at in 0.0f64..1.0, pick in 0.0f64..1.0, byte: char,
    ) {
        let scenes = shipped("scenes", "toml");
        let (path, text) = scenes[file % scenes.len()].clone();
        let mutated = mutate(&text, kind, at, pick, byte);
        let what = format!("{} mutated (kind {}, at {at:.3}, pick {pick:.3})", path.display(), kind % 5);
        within_budget(what, move || match parse_scene(&mutated, &path) {
            Ok(mut world) => {
                // A valid world may ask for much work (65,536 substeps is a legal setting): step
                // it when a frame is at most about ten times the largest shipped scene's
                // (particles x substeps x iterations). Stepping may fail (a mutated time step can
                // blow up), never panic or hang.
                let p = world.params();
                let per_particle = u64::from(p.substeps) * u64::from(p.iterations);
                if world.particles().len() as u64 * per_particle <= 20_000_000 {
                    let _ = world.step();
                }
                Ok(())
            }
            Err(e) if e.to_string().starts_with(&path.display().to_string()) => Ok(()),
            Err(e) => Err(format!("the error does not name the file: {e}")),
        });
    }

    #[test]
    fn mutated_meshes_parse_or_fail_with_the_file_named(
        file in 0usize..64, kind: u8, at in 0.0f64..1.0, pick in 0.0f64..1.0, byte: char,
    ) {
        let meshes = shipped("meshes", "obj");
        let (path, text) = meshes[file % meshes.len()].clone();
        let mutated = mutate(&text, kind, at, pick, byte);
        let what = format!("{} mutated (kind {}, at {at:.3}, pick {pick:.3})", path.display(), kind % 5);
        within_budget(what, move || match parse_obj(mutated.as_bytes(), &path) {
            Ok(mesh) if mesh.positions.iter().all(|p| p.iter().all(|c| c.is_finite())) => Ok(()),
            Ok(_) => Err("a mesh with non-finite positions was accepted".into()),
            Err(e) if e.to_string().starts_with(&path.display().to_string()) => Ok(()),
            Err(e) => Err(format!("the error does not name the file: {e}")),
        });
    }
}

#[test]
fn enormous_sizes_are_refused_before_anything_is_allocated() {
    let cases = [
        (
            "[[cloth]]\nresolution = [100000, 100000]\nmass = 1.0\n",
            "`cloth[0].resolution`",
        ),
        (
            "[[rope]]\nstart = [0.0, 0.0, 0.0]\nend = [1.0, 0.0, 0.0]\nsegments = 4000000000\nmass = 1.0\n",
            "`rope[0].segments`",
        ),
        (
            "[[soft_body]]\nmesh = \"../meshes/torus.obj\"\nresolution = 100000\nmass = 1.0\n",
            "`soft_body[0].resolution`",
        ),
    ];
    for (text, key) in cases {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/huge.toml");
        let what = format!("{text:?}");
        within_budget(what, move || {
            let e = parse_scene(text, &path)
                .err()
                .ok_or("accepted")?
                .to_string();
            if e.contains(key) {
                Ok(())
            } else {
                Err(format!("{e} does not name {key}"))
            }
        });
    }
}

#[test]
fn a_tiny_thickness_does_not_make_a_step_endless() {
    // Found by the mutation test: a thickness of 1e-30 m made the swept test sample each path
    // every 5e-31 m, billions of samples per particle and substep.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/drape.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("thickness = 0.01", "thickness = 1e-30");
    within_budget("drape.toml with thickness 1e-30".into(), move || {
        let mut world = parse_scene(&text, &path).map_err(|e| e.to_string())?;
        for _ in 0..3 {
            if world.step().is_err() {
                break;
            }
        }
        Ok(())
    });
}
