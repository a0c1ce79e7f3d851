//! A spinning sphere drags the cloth lying on it around by friction.

use std::path::Path;
use supple::scene::load_scene;

#[test]
fn spinning_sphere_twists_the_cloth_on_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/twist.toml");
    let mut world = load_scene(&path).unwrap().world;
    // Let the cloth settle on the sphere for 1 s, then follow its top particle for 1 s.
    for _ in 0..60 {
        world.step().unwrap();
    }
    // Particle (20, 20) of the 40 × 40 grid: the middle of the cloth, on top of the sphere.
    let i = 20 * 40 + 20;
    let angle = |x: supple::math::Vec3| x.z.atan2(x.x);
    let before = angle(world.particles().x[i]);
    for _ in 0..60 {
        world.step().unwrap();
    }
    let after = angle(world.particles().x[i]);
    let turned = (before - after).rem_euclid(std::f32::consts::TAU);
    println!("the middle of the cloth turned {turned} rad in 1 s; the sphere 1.5 rad");
    // The sphere turns 1.5 rad/s about +y: seen from above, x → −z, so atan2(z, x) decreases.
    assert!(turned > 0.5 && turned < 1.6, "turned {turned} rad");
}

/// A mesh collider rising at 0.3 m/s and spinning at 1 rad/s under a cloth carries the cloth up
/// and never lets a particle inside it (measured with the exact distance to its triangles).
#[test]
fn rising_spinning_mesh_carries_the_cloth_without_letting_it_in() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/cloth_on_mesh.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace(
            "rotation = [0.0, 30.0, 0.0]",
            "rotation = [0.0, 30.0, 0.0]\nmotion = { velocity = [0.0, 0.3, 0.0], spin = [0.0, 1.0, 0.0] }",
        );
    let mut world = supple::scene::parse_scene(&text, &path).unwrap();
    let mut deepest = 0.0f32;
    for _ in 0..120 {
        world.step().unwrap();
        let shape = &world.colliders()[0].shape;
        let depth = world
            .particles()
            .x
            .iter()
            .map(|&x| -shape.exact_distance(x).0)
            .fold(0.0, f32::max);
        deepest = deepest.max(depth);
    }
    let top = world
        .particles()
        .x
        .iter()
        .map(|p| p.y)
        .fold(f32::MIN, f32::max);
    println!("rising mesh: deepest {deepest} m, top particle at {top} m");
    assert!(
        deepest < 1e-3,
        "a particle went {deepest} m inside the mesh"
    );
    // At rest on the static mesh the top particle is at 0.89 m; the mesh rose 0.6 m.
    assert!(
        top > 1.3,
        "the cloth was carried up: top particle at {top} m"
    );
}
