//! Shape matching as a material on any body: a whole cloth or rope as one cluster keeps its rest
//! shape (Müller et al. 2005), while the same body without it deforms.

use std::path::Path;
use supple::World;
use supple::scene::parse_scene;

/// Distance between the first and last particle, m.
fn end_to_end(world: &World) -> f32 {
    let x = &world.particles().x;
    (x[x.len() - 1] - x[0]).norm()
}

/// Largest distance of a particle from the line through the first and last particle, m.
fn off_line(world: &World) -> f32 {
    let x = &world.particles().x;
    let (a, b) = (x[0], x[x.len() - 1]);
    let dir = (b - a).normalize();
    x.iter()
        .map(|p| (p - a - dir * (p - a).dot(&dir)).norm())
        .fold(0.0, f32::max)
}

/// Runs `scene` for `frames` frames and returns the world and the largest `off_line` seen.
fn run(scene: &str, frames: usize) -> (World, f32) {
    let mut world = parse_scene(scene, Path::new("shape.toml")).unwrap();
    let mut most = 0.0f32;
    for _ in 0..frames {
        world.step().unwrap();
        most = most.max(off_line(&world));
    }
    (world, most)
}

#[test]
fn a_rope_with_a_rigid_shape_swings_as_a_rod() {
    let rope = |shape: &str| {
        format!(
            r#"
            [[rope]]
            start = [0.0, 2.0, 0.0]
            end = [1.0, 2.0, 0.0]
            segments = 10
            mass = 0.2
            pin = ["start"]
            {shape}
            "#
        )
    };
    // Released horizontally, a chain bends as it falls; a rigid rod stays on the line from its
    // pin to its tip while it swings down about the pin.
    let (_, chain) = run(&rope(""), 40);
    let (rod, straight) = run(&rope("shape = { stiffness = 1.0 }"), 40);
    assert!(chain > 0.05, "the chain bent by {chain} m");
    assert!(straight < 0.005, "the rod bent by {straight} m");
    assert!(
        (end_to_end(&rod) - 1.0).abs() < 0.005,
        "rod length {}",
        end_to_end(&rod)
    );
    let tip = rod.particles().x[10];
    assert!(tip.y < 1.5, "the rod swung down: tip at {tip}");
}

#[test]
fn a_cloth_with_a_rigid_shape_stays_flat_on_a_sphere() {
    let cloth = |shape: &str| {
        format!(
            r#"
            [solver]
            damping = 0.5
            [[cloth]]
            resolution = [12, 12]
            size = [1.0, 1.0]
            center = [0.0, 1.2, 0.0]
            mass = 0.3
            {shape}
            [[collider]]
            shape = "sphere"
            center = [0.0, 0.5, 0.0]
            radius = 0.5
            friction = 0.8
            "#
        )
    };
    let diagonal = 2.0f32.sqrt();
    // Draped, the corner-to-corner distance shrinks; as a rigid plate it stays the diagonal.
    let (draped, _) = run(&cloth(""), 90);
    let (plate, _) = run(&cloth("shape = { stiffness = 1.0 }"), 90);
    assert!(
        end_to_end(&draped) < 0.9 * diagonal,
        "draped diagonal {}",
        end_to_end(&draped)
    );
    let error = (end_to_end(&plate) - diagonal).abs();
    assert!(
        error < 0.01 * diagonal,
        "plate diagonal {}",
        end_to_end(&plate)
    );
}
