//! A run that diverges stops with an error naming the body and the frame, instead of running on
//! with exploding geometry (and, before this check, taking longer every frame).

use std::path::Path;
use supple::scene::parse_scene;
use supple::{Real, SimError, World};

/// The abuse case: a 48 x 48 cloth pinned at two corners, 0.04 s frames of one substep and one
/// iteration, stiff dihedral bending, a ground plane.
const UNSTABLE: &str = r#"
[solver]
dt = 0.04
substeps = 1
iterations = 1

[[cloth]]
name = "sheet"
resolution = [48, 48]
size = [1.5, 1.5]
center = [0.0, 1.5, 0.0]
mass = 0.5
pin = [[0, 0], [-1, 0]]
bend = { model = "xpbd", compliance = 0.01 }

[[collider]]
shape = "plane"
"#;

fn run(mut world: World, frames: u32) -> Result<u64, SimError> {
    for _ in 0..frames {
        world.step()?;
    }
    Ok(world.frame())
}

#[test]
fn a_diverging_cloth_stops_with_its_name_and_frame() {
    let world = parse_scene(UNSTABLE, Path::new("unstable.toml")).unwrap();
    let e = run(world, 60).unwrap_err();
    let SimError::Diverged {
        ref body,
        frame,
        strain,
        limit,
    } = e
    else {
        panic!("expected a divergence, got {e}");
    };
    assert_eq!((body.as_str(), limit), ("sheet", 10.0));
    assert!(
        strain > limit && frame < 60,
        "strain {strain} at frame {frame}"
    );
    let message = e.to_string();
    assert!(
        message.contains("body 'sheet'") && message.contains("max_strain"),
        "{message}"
    );
}

#[test]
fn the_limit_is_a_solver_key_and_a_stable_run_passes_it() {
    let strict = UNSTABLE.replace("iterations = 1", "iterations = 1\nmax_strain = 0.5");
    let world = parse_scene(&strict, Path::new("strict.toml")).unwrap();
    let Err(SimError::Diverged {
        frame: strict_frame,
        ..
    }) = run(world, 60)
    else {
        panic!("a 50% limit stops the run");
    };
    let world = parse_scene(UNSTABLE, Path::new("unstable.toml")).unwrap();
    let Err(SimError::Diverged { frame, .. }) = run(world, 60) else {
        panic!("the default limit stops the run");
    };
    assert!(strict_frame <= frame);
    // The same cloth with more substeps and cross-distance bending is stable and runs to the end.
    let stable = UNSTABLE.replace("substeps = 1", "substeps = 20").replace(
        "compliance = 0.01",
        "compliance = 0.01, kind = \"cross-distance\"",
    );
    let world = parse_scene(&stable, Path::new("stable.toml")).unwrap();
    assert_eq!(run(world, 60).unwrap(), 60);
    let bad = UNSTABLE.replace("iterations = 1", "iterations = 1\nmax_strain = 0.0");
    let e = parse_scene(&bad, Path::new("bad.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bad.toml:6:") && e.contains("`solver.max_strain`"),
        "{e}"
    );
}

/// Kinetic plus gravitational potential energy of the moving particles, J.
fn energy(world: &World) -> Real {
    let ps = world.particles();
    let g = world.params().gravity;
    (0..ps.len())
        .filter(|&i| ps.inv_mass[i] > 0.0)
        .map(|i| (0.5 * ps.v[i].norm_squared() - g.dot(&ps.x[i])) / ps.inv_mass[i])
        .sum()
}

/// The same cloth with stiff dihedral bending (compliance 1) at 20 substeps x 1 iteration. An
/// unbounded projection moves the hinges by up to π rad along straight lines, and the cloth
/// diverges by frame 25; bounded to `MAX_ANGLE_STEP` per projection it runs on, and with
/// no work done on it but gravity's (counted in the energy) its energy does not grow.
#[test]
fn stiff_dihedral_bending_at_one_iteration_stays_bounded() {
    let scene = UNSTABLE
        .replace("substeps = 1", "substeps = 20")
        .replace("compliance = 0.01", "compliance = 1.0");
    let mut world = parse_scene(&scene, Path::new("stiff.toml")).unwrap();
    let mut e = Vec::new();
    for _ in 0..150 {
        if let Err(err) = world.step() {
            panic!("{err}");
        }
        e.push(energy(&world));
    }
    let mean = |w: &[Real]| w.iter().sum::<Real>() / w.len() as Real;
    let (first, last) = (mean(&e[..50]), mean(&e[100..]));
    assert!(
        last <= first,
        "mean energy {first} J in frames 1-50, {last} J in frames 101-150"
    );
}
