//! A fast particle does not pass through a thin collider.

use supple::RopeDesc;
use supple::collision::{Collider, Shape};
use supple::math::{Quat, Vec3};
use supple::params::SolverParams;
use supple::world::World;

/// Drops one particle of radius 1 cm at 10 m/s onto a 1 cm thick box from `height` m above its
/// top, and returns the lowest height it reached, m.
fn lowest_after_hitting_the_plate(substeps: u32, height: f32) -> f32 {
    let mut world = World::new(SolverParams {
        substeps,
        ..SolverParams::default()
    })
    .unwrap();
    world
        .add_collider(Collider::new(Shape::Box {
            center: Vec3::zeros(),
            half_extents: Vec3::new(0.5, 0.005, 0.5),
            rotation: Quat::identity(),
        }))
        .unwrap();
    // Two particles side by side on a rigid link: they fall as one.
    let y = 0.005 + height;
    let pair = RopeDesc::new(Vec3::new(-0.01, y, 0.0), Vec3::new(0.01, y, 0.0), 1, 2.0);
    let body = world.add_rope(&pair).unwrap();
    world
        .set_velocities(body, &[Vec3::new(0.0, -10.0, 0.0); 2])
        .unwrap();
    let mut lowest = f32::MAX;
    for _ in 0..30 {
        world.step().unwrap();
        let low = world
            .positions(body)
            .iter()
            .map(|p| p.y)
            .fold(f32::MAX, f32::min);
        lowest = lowest.min(low);
    }
    lowest
}

#[test]
fn ten_metres_per_second_does_not_pass_a_one_centimetre_plate() {
    // 10 m/s moves 1.7 cm per substep with 10 substeps at 60 Hz, 8.3 cm with 2: more than the
    // plate's thickness either way. Several starting heights cover every phase of the steps.
    for substeps in [10, 2] {
        for k in 0..20 {
            let height = 0.3 + 0.003 * k as f32;
            let lowest = lowest_after_hitting_the_plate(substeps, height);
            assert!(
                lowest > 0.005,
                "{substeps} substeps, from {height} m: reached {lowest} m, below the plate's top"
            );
        }
    }
}
