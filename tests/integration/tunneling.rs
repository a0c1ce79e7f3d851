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

/// Builds a world from a scene written in the test, its meshes found from `scenes/`.
fn scene(text: &str) -> World {
    let at = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/tunneling.toml");
    supple::scene::parse_scene(text, &at).unwrap()
}

#[test]
fn a_paddle_at_25_metres_per_second_pushes_a_curtain_instead_of_passing_it() {
    paddle_through_a_curtain(0.0);
}

/// The same with the default friction (0.3): static friction in the position solve drags the
/// particles the paddle pushes, and they drag their neighbours; with a contact reach of `2 r`
/// alone, one 1 cm below the rim, beyond that reach when contacts are generated, ends a substep
/// inside the paddle and is pushed out of its far face (frame 2). Collider contacts therefore
/// reach `2 r` plus the particle's travel relative to the collider.
#[test]
fn a_paddle_with_friction_pushes_a_curtain_instead_of_passing_it() {
    paddle_through_a_curtain(supple::ContactMaterial::default().static_friction);
}

/// A 2 cm thick paddle of friction `mu` moves 4.2 cm per substep: without the swept test relative
/// to colliders it jumps over the still particles, which the contacts then push out through its
/// back face.
fn paddle_through_a_curtain(mu: f32) {
    let mut world = scene(
        r#"
[[cloth]]
name = "curtain"
resolution = [30, 30]
size = [1.0, 1.0]
center = [0.0, 1.5, 0.0]
orientation = "vertical"
mass = 0.3
pin_edges = ["j=0"]
"#,
    );
    let curtain = world.body_named("curtain").unwrap();
    let mut box_at = Collider::new(Shape::Box {
        center: Vec3::new(0.0, 1.4, -0.3),
        half_extents: Vec3::new(0.2, 0.2, 0.01),
        rotation: Quat::identity(),
    });
    box_at.motion.velocity = Vec3::new(0.0, 0.0, 25.0);
    box_at.material.static_friction = mu;
    box_at.material.kinetic_friction = mu;
    let paddle = world.add_collider(box_at).unwrap();
    // 25 m/s for 3 frames (1.25 m). A particle may get behind the paddle
    // only around its rim: one that changes sides between two frames while over the paddle's face
    // at both, farther than its radius (1 cm) from the rim, went through it.
    let over = |p: &Vec3, c: &Vec3| (p.x - c.x).abs() < 0.19 && (p.y - c.y).abs() < 0.19;
    let mut before: Vec<Vec3> = world.positions(curtain).to_vec();
    let mut c_before = Vec3::new(0.0, 1.4, -0.3);
    for frame in 0..3 {
        world.step().unwrap();
        let Shape::Box { center: c, .. } = world.collider(paddle).shape else {
            unreachable!()
        };
        for (p, q) in world.positions(curtain).iter().zip(&before) {
            let switched = (p.z > c.z) != (q.z > c_before.z);
            assert!(
                !(switched && over(p, &c) && over(q, &c_before)),
                "frame {frame}: a particle went from {q} to {p}, through the paddle at {c}"
            );
        }
        before = world.positions(curtain).to_vec();
        c_before = c;
    }
}

#[test]
fn a_body_dropped_at_20_metres_per_second_stays_on_the_cloth() {
    // The block moves 3.3 cm per substep, its lattice particles are 5 cm apart and 1 cm thick,
    // the cloth's 3 cm apart: without the swept test it goes through.
    let mut world = scene(
        r#"
[[cloth]]
name = "hammock"
resolution = [40, 40]
size = [1.2, 1.2]
center = [0.0, 1.0, 0.0]
mass = 0.5
pin = [[0, 0], [-1, 0], [0, -1], [-1, -1]]

[[soft_body]]
name = "block"
mesh = "../meshes/rounded-box.obj"
model = "tets"
resolution = 6
fit = 0.3
mass = 0.5
center = [0.0, 1.4, 0.0]

[[collider]]
shape = "plane"
"#,
    );
    let (hammock, block) = (
        world.body_named("hammock").unwrap(),
        world.body_named("block").unwrap(),
    );
    let n = world.positions(block).len();
    world
        .set_velocities(block, &vec![Vec3::new(0.0, -20.0, 0.0); n])
        .unwrap();
    for frame in 0..60 {
        world.step().unwrap();
        let low = world
            .positions(hammock)
            .iter()
            .map(|p| p.y)
            .fold(f32::MAX, f32::min);
        let c = world.positions(block).iter().sum::<Vec3>() / n as f32;
        assert!(
            c.y > low,
            "frame {frame}: the block's centre {c} is below the cloth's lowest point {low} m"
        );
    }
}

#[test]
fn a_cloth_thrown_at_20_metres_per_second_stays_on_a_thin_box() {
    // 0.5 cm thick particles, a 4 mm plate, 1 substep: 33 cm per substep, walked by
    // conservative advancement in steps of at least 2.5 mm. (Fixed samples 1 cm apart would
    // only land in the plate by chance.)
    for substeps in [1, 2] {
        let mut world = scene(&format!(
            r#"
[solver]
substeps = {substeps}

[[cloth]]
name = "sheet"
resolution = [20, 20]
size = [0.5, 0.5]
center = [0.0, 0.6, 0.0]
mass = 0.1
thickness = 0.005

[[collider]]
shape = "box"
center = [0.0, 0.0, 0.0]
half_extents = [0.6, 0.002, 0.6]
"#
        ));
        let sheet = world.body_named("sheet").unwrap();
        let n = world.positions(sheet).len();
        world
            .set_velocities(sheet, &vec![Vec3::new(0.0, -20.0, 0.0); n])
            .unwrap();
        for frame in 0..30 {
            world.step().unwrap();
            let low = world
                .positions(sheet)
                .iter()
                .map(|p| p.y)
                .fold(f32::MAX, f32::min);
            assert!(
                low > 0.002,
                "{substeps} substeps, frame {frame}: a particle at {low} m, below the plate's top"
            );
        }
    }
}
