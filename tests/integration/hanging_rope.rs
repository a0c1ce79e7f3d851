//! A hanging rope settles to Hooke's law under XPBD compliance; under PBD it stiffens with
//! iterations.

use std::path::Path;
use supple::World;
use supple::scene::parse_scene;

const SEGMENTS: usize = 20;
const MASS: f32 = 0.21;
const LENGTH: f32 = 1.0;
const G: f32 = 9.81;

fn hanging_rope(stretch: &str, substeps: u32, iterations: u32, method: &str) -> World {
    let scene = format!(
        r#"
        [solver]
        dt = 0.016666667
        substeps = {substeps}
        iterations = {iterations}
        method = "{method}"
        damping = 2.0
        [[rope]]
        start = [0.0, 2.0, 0.0]
        end = [0.0, {end}, 0.0]
        segments = {SEGMENTS}
        mass = {MASS}
        pin = ["start"]
        stretch = {stretch}
        "#,
        end = 2.0 - LENGTH
    );
    let mut world = parse_scene(&scene, Path::new("rope.toml")).unwrap();
    for _ in 0..600 {
        world.step().unwrap();
    }
    world
}

/// Extension of each segment from the top, m.
fn extensions(world: &World) -> Vec<f32> {
    let x = &world.particles().x;
    let rest = LENGTH / SEGMENTS as f32;
    (0..SEGMENTS)
        .map(|k| (x[k + 1] - x[k]).norm() - rest)
        .collect()
}

fn settles_to_hookes_law(method: &str, iterations: u32) {
    let compliance = 0.005;
    let world = hanging_rope(
        &format!("{{ model = \"xpbd\", compliance = {compliance} }}"),
        20,
        iterations,
        method,
    );
    let m = MASS / (SEGMENTS + 1) as f32;
    for (k, e) in extensions(&world).into_iter().enumerate() {
        // Segment k (from the top) carries the SEGMENTS − k particles below it.
        let analytic = compliance * (SEGMENTS - k) as f32 * m * G;
        assert!(
            ((e - analytic) / analytic).abs() < 0.02,
            "{method}: segment {k}: extension {e} m, Hooke's law {analytic} m"
        );
    }
}

#[test]
fn xpbd_rope_settles_to_hookes_law() {
    settles_to_hookes_law("gauss-seidel", 10);
}

#[test]
fn colored_xpbd_rope_settles_to_hookes_law() {
    settles_to_hookes_law("colored", 10);
}

#[test]
fn jacobi_xpbd_rope_settles_to_hookes_law() {
    settles_to_hookes_law("jacobi", 10);
}

#[test]
fn colored_chebyshev_xpbd_rope_settles_to_hookes_law() {
    // The multipliers are extrapolated with the positions, so each stays the impulse its
    // segment applied and the compliance holds.
    settles_to_hookes_law("colored-chebyshev", 10);
}

#[test]
fn pbd_rope_gets_stiffer_with_more_iterations() {
    let total = |iterations| {
        extensions(&hanging_rope(
            "{ model = \"pbd\", k = 0.5 }",
            5,
            iterations,
            "gauss-seidel",
        ))
        .iter()
        .sum::<f32>()
    };
    let (few, many) = (total(2), total(16));
    // PBD projects a fraction k of the error every iteration, so more iterations leave less of it.
    assert!(
        many < 0.5 * few,
        "2 iterations stretch {few} m, 16 iterations {many} m"
    );
    assert!(many > 0.0);
}

#[test]
fn corrected_pbd_depends_less_on_iterations_than_plain_pbd() {
    let ratio = |model: &str| {
        let total = |iterations| {
            extensions(&hanging_rope(
                &format!("{{ model = \"{model}\", k = 0.5 }}"),
                5,
                iterations,
                "gauss-seidel",
            ))
            .iter()
            .sum::<f32>()
        };
        total(2) / total(16)
    };
    let (plain, corrected) = (ratio("pbd"), ratio("pbd_corrected"));
    assert!(
        corrected < plain,
        "extension ratio 2 vs 16 iterations: pbd {plain}, pbd_corrected {corrected}"
    );
}
