//! Editing a running world: removing a body leaves the others as they were, and
//! `pin_to_collider` hangs vertices on a collider, solid or not, until `unpin` frees them.

use supple::mesh::generate;
use supple::{
    ClothDesc, Collider, Orientation, Quat, RopeDesc, Shape, SoftBodyDesc, SolverParams, Tear,
    Vec3, World,
};

/// A rope, a pinned cloth with self-collision, a soft body and a ground plane, far enough
/// apart that the bodies never touch each other.
fn three_bodies() -> World {
    let mut world = World::new(SolverParams::default()).unwrap();
    world
        .add_collider(Collider::new(Shape::Plane {
            point: Vec3::zeros(),
            normal: Vec3::y(),
        }))
        .unwrap();
    let rope = RopeDesc {
        name: "rope".into(),
        pin_start: true,
        ..RopeDesc::new(
            Vec3::new(-2.0, 1.0, 0.0),
            Vec3::new(-1.2, 1.0, 0.0),
            16,
            0.1,
        )
    };
    world.add_rope(&rope).unwrap();
    let mut cloth = ClothDesc::grid(
        [12, 12],
        [0.6, 0.6],
        Vec3::new(0.0, 1.0, 0.0),
        Orientation::Horizontal,
        0.2,
    )
    .unwrap();
    cloth.pin = vec![0, 11];
    cloth.self_collision = true;
    world.add_cloth(&cloth).unwrap();
    let mut blob = generate::lumpy();
    supple::place_mesh(
        &mut blob,
        0.3,
        Quat::identity(),
        Some(Vec3::new(2.0, 0.6, 0.0)),
    );
    world.add_soft_body(&SoftBodyDesc::new(blob, 0.5)).unwrap();
    world
}

#[test]
fn removing_a_body_leaves_the_others_moving_as_they_would() {
    let mut kept = three_bodies();
    kept.step_frames(20).unwrap();
    let cloth = kept.body_named("cloth0").unwrap();
    kept.pin(cloth, 60).unwrap();
    let mut removed = kept.clone();
    let rope = removed.body_named("rope").unwrap();
    removed.remove_body(rope).unwrap();
    assert_eq!(removed.bodies().len(), 2);
    assert_eq!(removed.body_named("rope"), None);
    assert_eq!(removed.frame(), 20);
    kept.step_frames(30).unwrap();
    removed.step_frames(30).unwrap();
    for name in ["cloth0", "soft_body0"] {
        let (a, b) = (
            kept.body_named(name).unwrap(),
            removed.body_named(name).unwrap(),
        );
        assert_eq!(b.index(), a.index() - 1, "{name} moved down one place");
        let (x, y) = (kept.positions(a), removed.positions(b));
        let gap = x
            .iter()
            .zip(&y)
            .map(|(p, q)| (p - q).norm())
            .fold(0.0, f32::max);
        assert!(
            gap < 1e-5,
            "{name}: {gap} m from where it is in the full world"
        );
    }
    // The pin made at run time held: vertex 60 has not moved since.
    let (a, b) = (
        kept.body_named("cloth0").unwrap(),
        removed.body_named("cloth0").unwrap(),
    );
    assert_eq!(removed.positions(b)[60], kept.positions(a)[60]);
}

#[test]
fn removing_keeps_the_pins_a_collider_carries() {
    let mut world = three_bodies();
    let cloth = world.body_named("cloth0").unwrap();
    let mut ball = Collider::new(Shape::Sphere {
        center: Vec3::new(0.0, 1.3, 0.0),
        radius: 0.05,
    });
    ball.motion.velocity = Vec3::new(0.3, 0.0, 0.0);
    let ball = world.add_collider(ball).unwrap();
    world.pin_to_collider(cloth, &[66], ball).unwrap();
    world.step_frames(10).unwrap();
    let rope = world.body_named("rope").unwrap();
    world.remove_body(rope).unwrap();
    world.step_frames(20).unwrap();
    let cloth = world.body_named("cloth0").unwrap();
    let carried = world.positions(cloth)[66];
    let center = world.collider(ball).shape.center();
    let start = ClothDesc::grid(
        [12, 12],
        [0.6, 0.6],
        Vec3::new(0.0, 1.0, 0.0),
        Orientation::Horizontal,
        0.2,
    )
    .unwrap()
    .positions[66];
    let expected = center + (start - Vec3::new(0.0, 1.3, 0.0));
    assert!(
        (carried - expected).norm() < 1e-4,
        "the carried vertex is at {carried}, its point on the ball at {expected}"
    );
}

#[test]
fn a_world_with_a_tearing_cloth_refuses_to_remove_another_body() {
    let mut world = World::new(SolverParams::default()).unwrap();
    let rope = world
        .add_rope(&RopeDesc::new(Vec3::zeros(), Vec3::x(), 8, 0.1))
        .unwrap();
    let mut cloth =
        ClothDesc::grid([6, 6], [0.3, 0.3], Vec3::y(), Orientation::Horizontal, 0.1).unwrap();
    cloth.tear = Some(Tear { strain: 0.5 });
    let torn = world.add_cloth(&cloth).unwrap();
    let err = world.remove_body(rope).unwrap_err();
    assert_eq!(err.argument, "body");
    assert!(err.message.contains("tearing cloth ('cloth0')"), "{err}");
    assert_eq!(world.bodies().len(), 2, "nothing changed");
    world.remove_body(torn).unwrap();
    assert_eq!(world.bodies().len(), 1);
    let err = world.remove_body(torn).unwrap_err();
    assert_eq!(err.to_string(), "`body` = 1: expected a body index in 0..1");
}

#[test]
fn a_collider_that_is_not_solid_carries_its_pins_and_touches_nothing() {
    let mut world = World::new(SolverParams::default()).unwrap();
    // A pole that moves sideways, and a rope hung from its tip that it does not touch.
    let mut pole = Collider::new(Shape::Capsule {
        a: Vec3::new(0.0, 0.0, 0.0),
        b: Vec3::new(0.0, 1.0, 0.0),
        radius: 0.3,
    });
    pole.solid = false;
    let pole = world.add_collider(pole).unwrap();
    let rope = world
        .add_rope(&RopeDesc::new(
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.2, 0.0),
            10,
            0.1,
        ))
        .unwrap();
    world.pin_to_collider(rope, &[0], pole).unwrap();
    let dt = world.params().dt;
    for _ in 0..30 {
        world
            .move_collider(pole, Vec3::new(0.5 * dt, 0.0, 0.0), Quat::identity())
            .unwrap();
        world.step().unwrap();
    }
    let x = world.positions(rope);
    assert!(
        (x[0] - Vec3::new(0.25, 1.0, 0.0)).norm() < 1e-5,
        "the tip moved with the pole: {}",
        x[0]
    );
    // Inside the capsule (radius 0.3 about its axis) all along: a solid one pushes it out.
    let axis = world.collider(pole).shape.center().x;
    assert!(x.iter().all(|p| (p.x - axis).abs() < 0.3), "{x:?}");
    // Freed, the tip falls.
    world.unpin(rope, 0).unwrap();
    world.step_frames(10).unwrap();
    assert!(
        world.positions(rope)[0].y < 0.95,
        "{}",
        world.positions(rope)[0]
    );
    let err = world
        .pin_to_collider(rope, &[11], pole)
        .unwrap_err()
        .to_string();
    assert_eq!(err, "`particle` = 11: expected a vertex index in 0..11");
}
