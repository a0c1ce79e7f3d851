//! A sheet collapsing onto itself on the ground: self-collision keeps every pair of its particles
//! apart and the ground keeps them all above it.

use std::path::Path;
use supple::scene::load_scene;
use supple::world::World;

/// The smallest distance between two particles of the world, m, and the pair.
fn closest_pair(world: &World) -> (f32, usize, usize) {
    let x = &world.particles().x;
    let mut best = (f32::MAX, 0, 0);
    for a in 0..x.len() {
        for b in a + 1..x.len() {
            let d = (x[a] - x[b]).norm();
            if d < best.0 {
                best = (d, a, b);
            }
        }
    }
    best
}

#[test]
fn folded_cloth_keeps_its_layers_apart_and_stays_above_the_ground() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/folds.toml");
    let mut world = load_scene(&path).unwrap().world;
    let thickness = world.particles().radius[0];
    let mut closest = f32::MAX;
    let mut lowest = f32::MAX;
    for frame in 0..240 {
        world.step().unwrap();
        if frame % 10 == 9 {
            closest = closest.min(closest_pair(&world).0);
        }
        lowest = lowest.min(
            world
                .particles()
                .x
                .iter()
                .map(|p| p.y)
                .fold(f32::MAX, f32::min),
        );
    }
    // It did fold: the 1 m sheet now lies within a few layers of the ground.
    let top = world
        .particles()
        .x
        .iter()
        .map(|p| p.y)
        .fold(f32::MIN, f32::max);
    assert!(
        top < 0.3,
        "highest particle at {top} m: the sheet did not collapse"
    );
    let (end, a, b) = closest_pair(&world);
    println!(
        "closest pair over the run {closest} m, at the end {end} m ({a}, {b}); lowest {lowest} m; top {top} m"
    );
    assert!(
        closest >= 0.9 * thickness,
        "two particles came {closest} m apart, contact distance {thickness} m"
    );
    // Measured at the particles' surface: a centre at `thickness` above the ground touches it.
    assert!(
        lowest - thickness >= -1e-4,
        "a particle's surface went {} m below the ground",
        thickness - lowest
    );
}
