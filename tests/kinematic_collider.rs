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
