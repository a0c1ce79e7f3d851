//! The four real meshes of `../shared/meshes` as soft bodies, with every model that applies,
//! dropped on the ground for 2 s: finite, at rest on the ground, volume within 10% of rest, and
//! every surface vertex inside the tet it is embedded in.
//!
//! Resolution 8 and 2 iterations of 10 substeps keep the whole file at a few seconds in release.
//! Run with `--nocapture` to see the volume ratios.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use supple::World;
use supple::bodies::Body;
use supple::bodies::soft_body::fit_scale;
use supple::cli::import::DROP_HEIGHT;
use supple::mesh::obj::load_obj;
use supple::mesh::skinning::barycentric;
use supple::mesh::tetrahedralize::tet_volume;
use supple::scene::{SceneError, parse_scene};
use supple::stats::FrameStats;

/// Frames of a 2 s drop at 60 Hz.
const FRAMES: usize = 120;

fn shared(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/meshes")
        .join(name)
}

/// Lattice cells along the longest side.
const RESOLUTION: u32 = 8;

/// A scene dropping `mesh` (fitted to 1 m) with `model` onto the ground, from the height of
/// `supple import`: the mesh's lowest point 10 cm up, plus one lattice cell.
fn scene(mesh: &Path, model: &str) -> String {
    let raw = load_obj(mesh).unwrap();
    let scale = fit_scale(&raw, 1.0);
    let (lo, hi) = raw
        .positions
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), p| {
            (lo.min(p.y), hi.max(p.y))
        });
    let (resolution, cell) = if model == "surface" {
        (String::new(), 0.0)
    } else {
        (
            format!("resolution = {RESOLUTION}\n"),
            1.0 / RESOLUTION as f32,
        )
    };
    let y = (hi - lo) * scale / 2.0 + DROP_HEIGHT + cell;
    format!(
        r#"
[solver]
substeps = 10
iterations = 2

[[soft_body]]
name = "body"
mesh = {mesh:?}
model = "{model}"
{resolution}mass = 1.0
fit = 1.0
center = [0.0, {y}, 0.0]
damping = 0.05

[[collider]]
shape = "plane"
"#,
        mesh = mesh.display().to_string()
    )
}

fn load(mesh: &Path, model: &str) -> Result<World, SceneError> {
    parse_scene(&scene(mesh, model), Path::new("drop.toml"))
}

/// Runs the drop and checks it; returns the final volume over the rest volume.
fn drop(name: &str, model: &str) -> f32 {
    let mut world = load(&shared(name), model).unwrap();
    let label = format!("{name} as {model}");
    let rest = world.bodies()[0].surface(&world.particles().x);
    check_embedding(&world.bodies()[0], &world, &label);
    for _ in 0..FRAMES {
        world.step().unwrap_or_else(|e| panic!("{label}: {e}"));
    }
    let body = &world.bodies()[0];
    let surface = body.surface(&world.particles().x);
    assert_eq!(surface.len(), rest.len());
    let points = || world.particles().x.iter().chain(&surface);
    assert!(
        points().all(|p| p.iter().all(|c| c.is_finite())),
        "{label}: not finite"
    );
    let lowest = points().map(|p| p.y).fold(f32::MAX, f32::min);
    assert!(
        lowest > -0.01,
        "{label}: a point is {lowest} m below the ground"
    );
    let lowest_particle = world
        .particles()
        .x
        .iter()
        .map(|p| p.y)
        .fold(f32::MAX, f32::min);
    assert!(
        lowest_particle < 0.03,
        "{label}: floats {lowest_particle} m above the ground"
    );
    let stats = FrameStats::measure(&world);
    assert!(
        stats.kinetic_energy < 0.01,
        "{label}: not at rest, {} J",
        stats.kinetic_energy
    );
    check_embedding(body, &world, &label);
    let ratio = body.volume(&world.particles().x) / body.rest_volume;
    eprintln!("{label}: volume / rest volume = {ratio:.4}");
    assert!((ratio - 1.0).abs() < 0.1, "{label}: volume ratio {ratio}");
    ratio
}

/// Every surface vertex is embedded in one of the body's tets, with barycentric weights in
/// [0, 1], and lies inside that tet as it is now (the tet is not inverted or flat).
fn check_embedding(body: &Body, world: &World, label: &str) {
    let Some(skin) = &body.skin else { return };
    let x = &world.particles().x[body.particles.clone()];
    let mut tets: Vec<[u32; 4]> = body.tets.iter().map(|t| sorted(*t)).collect();
    tets.sort_unstable();
    let surface = skin.skin(x);
    for ((t, w), v) in skin.tets.iter().zip(&skin.weights).zip(&surface) {
        assert!(
            tets.binary_search(&sorted(*t)).is_ok(),
            "{label}: embedded in no tet"
        );
        assert!(
            w.iter().all(|&b| (-1e-6..=1.0 + 1e-6).contains(&b)),
            "{label}: {w:?}"
        );
        let p = t.map(|i| x[i as usize]);
        assert!(tet_volume(p).abs() > 0.0, "{label}: a flat tet");
        let b = barycentric(p, *v).expect("a tet with volume");
        assert!(
            b.iter().all(|&b| b > -1e-3),
            "{label}: a vertex outside its tet: {b:?}"
        );
    }
}

fn sorted(mut t: [u32; 4]) -> [u32; 4] {
    t.sort_unstable();
    t
}

#[test]
fn spot_drops_as_tets_clusters_and_surface() {
    for model in ["tets", "clusters", "surface"] {
        drop("spot.obj", model);
    }
}

#[test]
fn suzanne_drops_as_tets_and_clusters() {
    for model in ["tets", "clusters"] {
        drop("suzanne.obj", model);
    }
}

#[test]
fn bunny_drops_as_tets_and_clusters() {
    for model in ["tets", "clusters"] {
        drop("stanford-bunny.obj", model);
    }
}

#[test]
fn teapot_drops_as_tets_and_clusters() {
    for model in ["tets", "clusters"] {
        drop("teapot.obj", model);
    }
}

#[test]
fn open_meshes_are_refused_as_surface_with_a_hint() {
    for name in ["suzanne.obj", "stanford-bunny.obj", "teapot.obj"] {
        let err = load(&shared(name), "surface").unwrap_err().to_string();
        assert!(
            err.contains("not closed") && err.contains("tets"),
            "{name}: {err}"
        );
    }
}

#[test]
fn a_rigid_body_keeps_its_shape() {
    let mut world = load(&shared("spot.obj"), "rigid").unwrap();
    let rest = world.particles().x.clone();
    for _ in 0..FRAMES {
        world.step().unwrap();
    }
    let x = &world.particles().x;
    for i in (0..x.len()).step_by(7) {
        for j in (0..x.len()).step_by(11) {
            let d = (x[i] - x[j]).norm() - (rest[i] - rest[j]).norm();
            assert!(d.abs() < 1e-3, "{i}-{j} changed by {d} m");
        }
    }
}

#[test]
fn shipped_meshes_are_closed_and_make_balloons() {
    let meshes = Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes");
    for name in ["torus.obj", "capsule.obj", "rounded-box.obj"] {
        let world = load(&meshes.join(name), "surface").unwrap();
        let body = &world.bodies()[0];
        assert!(body.rest_volume > 0.0, "{name}: outward-wound");
    }
}
