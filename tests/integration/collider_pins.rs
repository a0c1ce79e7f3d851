//! Pins carried by a kinematic collider (`pin = { collider = .. }`, `ClothDesc::pin_collider`)
//! follow the collider's pose exactly, and the scene key names its collider.

use std::path::Path;
use supple::scene::{load_scene, parse_scene};
use supple::{ClothDesc, Collider, Motion, Orientation, Quat, Shape, SolverParams, Vec3, World};

#[test]
fn pins_follow_a_moving_turning_sphere() {
    let mut world = World::new(SolverParams::default()).unwrap();
    let c0 = Vec3::new(0.0, 1.0, 0.0);
    let (velocity, spin) = (Vec3::new(0.4, 0.1, 0.0), Vec3::new(0.0, 1.5, 0.5));
    let mut sphere = Collider::new(Shape::Sphere {
        center: c0,
        radius: 0.2,
    });
    sphere.motion = Motion { velocity, spin };
    let sphere = world.add_collider(sphere).unwrap();
    let desc = ClothDesc {
        pin: vec![0, 1, 2, 3, 4],
        pin_collider: Some(sphere),
        ..ClothDesc::grid(
            [5, 8],
            [0.4, 0.7],
            c0 + Vec3::new(0.0, 0.1, -0.21),
            Orientation::Vertical,
            0.2,
        )
        .unwrap()
    };
    let cloth = world.add_cloth(&desc).unwrap();
    let dt = world.params().dt;
    for frame in 1..=90 {
        world.step().unwrap();
        let t = dt * frame as f32;
        let turn = Quat::from_scaled_axis(spin * t);
        for &k in &desc.pin {
            let expected = c0 + velocity * t + turn * (desc.positions[k] - c0);
            let x = world.positions(cloth)[k];
            assert!(
                (x - expected).norm() < 2e-5,
                "frame {frame}, pin {k}: at {x}, the sphere's point at {expected}"
            );
        }
    }
    // The pins went round: 1.58 rad after 1.5 s.
    let moved = (world.positions(cloth)[0] - desc.positions[0]).norm();
    assert!(moved > 0.5, "moved {moved} m");
}

#[test]
fn the_cape_scene_carries_its_top_edge_on_the_turning_capsule() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/cape.toml");
    let mut world = load_scene(&path).unwrap().world;
    let cape = world.body_named("cape").unwrap();
    let top: Vec<Vec3> = world.positions(cape)[..24].to_vec();
    world.step_frames(60).unwrap();
    // After 1 s at 3 rad/s, the capsule turned 3 rad about its axis (the y axis).
    let turn = Quat::from_scaled_axis(Vec3::y() * 3.0);
    let axis = Vec3::new(0.0, 1.2, 0.0);
    for (k, x0) in top.iter().enumerate() {
        let expected = axis + turn * (x0 - axis);
        let x = world.positions(cape)[k];
        assert!((x - expected).norm() < 1e-4, "pin {k}: {x} vs {expected}");
    }
}

#[test]
fn a_pin_table_naming_no_collider_is_refused_with_its_key() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/cape.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("collider = \"body\"", "collider = \"torso\"");
    let err = parse_scene(&text, &path).unwrap_err().to_string();
    assert!(
        err.contains("cloth[0].pin.collider") && err.contains("\"torso\"") && err.contains("body"),
        "{err}"
    );
}

#[test]
fn rope_ends_follow_a_moving_turning_box() {
    let text = r#"
[[collider]]
name = "hand"
shape = "box"
center = [0.0, 1.5, 0.0]
half_extents = [0.1, 0.1, 0.1]
motion = { velocity = [0.3, 0.0, 0.2], spin = [0.5, 2.0, 0.0] }

[[rope]]
start = [0.0, 1.4, 0.0]
end = [0.8, 1.4, 0.0]
segments = 16
mass = 0.1
pin = { collider = "hand", at = ["start"] }
"#;
    let path = Path::new("rope-in-hand.toml");
    let mut world = parse_scene(text, path).unwrap();
    let c0 = Vec3::new(0.0, 1.5, 0.0);
    let (velocity, spin) = (Vec3::new(0.3, 0.0, 0.2), Vec3::new(0.5, 2.0, 0.0));
    let rope = world.body_named("rope0").unwrap();
    let x0 = world.positions(rope)[0];
    let dt = world.params().dt;
    for frame in 1..=90 {
        world.step().unwrap();
        let t = dt * frame as f32;
        let turn = Quat::from_scaled_axis(spin * t);
        let expected = c0 + velocity * t + turn * (x0 - c0);
        let x = world.positions(rope)[0];
        assert!(
            (x - expected).norm() < 2e-5,
            "frame {frame}: the rope's start at {x}, the box's point at {expected}"
        );
    }
    assert!((world.positions(rope)[0] - x0).norm() > 0.4, "it moved");
    let err = parse_scene(
        &text
            .replace("\"hand\" ,", "")
            .replace("collider = \"hand\"", "collider = \"foot\""),
        path,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("rope[0].pin.collider") && err.contains("hand"),
        "{err}"
    );
}
