//! Cloth dropped on a sphere: never inside it, comes to rest, stays finite.

use std::path::Path;
use supple::params::SolverMethod;
use supple::scene::load_scene;
use supple::stats::FrameStats;
use supple::world::World;

/// The deepest a particle's surface (its centre less its thickness) is inside any collider, m
/// (0 when none is).
fn surface_penetration(world: &World) -> f32 {
    let ps = world.particles();
    world
        .colliders()
        .iter()
        .flat_map(|c| {
            let inside = |(&x, r): (&supple::Vec3, &f32)| r - c.shape.distance(x).0;
            ps.x.iter().zip(&ps.radius).map(inside)
        })
        .fold(0.0, f32::max)
}

#[test]
fn draped_cloth_never_penetrates_and_comes_to_rest() {
    drapes(SolverMethod::GaussSeidel);
}

#[test]
fn colored_draped_cloth_never_penetrates_and_comes_to_rest() {
    drapes(SolverMethod::Colored);
}

#[test]
fn colored_chebyshev_draped_cloth_never_penetrates_and_comes_to_rest() {
    drapes(SolverMethod::ColoredChebyshev);
}

fn drapes(method: SolverMethod) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/drape.toml");
    let mut world = load_scene(&path).unwrap().world;
    let params = supple::params::SolverParams {
        method,
        ..world.params().clone()
    };
    world.set_params(params).unwrap();
    let mut deepest = 0.0f32;
    for _ in 0..300 {
        world.step().unwrap();
        deepest = deepest.max(surface_penetration(&world));
    }
    let stats = FrameStats::measure(&world);
    assert!(
        deepest < 1e-3,
        "a particle went {deepest} m inside a collider"
    );
    assert!(
        stats.kinetic_energy < 1e-3,
        "kinetic energy after 5 s: {} J",
        stats.kinetic_energy
    );
    // Draped: the middle rests on the sphere top (radius 0.5 at y = 0.5), the rim reaches the ground.
    let x = &world.particles().x;
    let top = x.iter().map(|p| p.y).fold(f32::MIN, f32::max);
    let low = x.iter().map(|p| p.y).fold(f32::MAX, f32::min);
    assert!((top - 1.01).abs() < 0.02, "highest particle at {top} m");
    assert!(low < 0.05, "lowest particle at {low} m");
}
