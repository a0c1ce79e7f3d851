//! The construction API: worlds built in code, their handles, checks and controls.

use std::path::Path;
use supple::scene::parse_scene;
use supple::{
    BendKind, ClothDesc, Collider, Orientation, Quat, RopeDesc, Shape, SolverParams, Stiffness,
    Vec3, World,
};

fn sheet() -> ClothDesc {
    let mut sheet = ClothDesc::grid(
        [12, 10],
        [1.2, 0.9],
        Vec3::new(0.1, 1.0, -0.2),
        Orientation::Horizontal,
        0.4,
    )
    .unwrap();
    sheet.name = "sheet".into();
    sheet.pin = vec![
        ClothDesc::grid_index(12, 0, 0),
        ClothDesc::grid_index(12, 11, 0),
    ];
    sheet.shear = Stiffness::Xpbd {
        compliance: 1e-6,
        damping: 0.0,
    };
    sheet.bend = Some((
        Stiffness::Xpbd {
            compliance: 10.0,
            damping: 0.0,
        },
        BendKind::Dihedral,
    ));
    sheet
}

fn bits(world: &World) -> Vec<[u32; 3]> {
    let x = &world.particles().x;
    x.iter()
        .map(|p| [p.x, p.y, p.z].map(f32::to_bits))
        .collect()
}

#[test]
fn a_cloth_built_in_code_equals_the_same_cloth_from_a_scene_file_bit_for_bit() {
    let mut coded = World::new(SolverParams::default()).unwrap();
    coded.add_cloth(&sheet()).unwrap();
    let ground = Shape::Plane {
        point: Vec3::new(0.0, 0.2, 0.0),
        normal: Vec3::y(),
    };
    coded.add_collider(Collider::new(ground)).unwrap();
    let text = r#"
        [[cloth]]
        name = "sheet"
        resolution = [12, 10]
        size = [1.2, 0.9]
        center = [0.1, 1.0, -0.2]
        mass = 0.4
        pin = [[0, 0], [-1, 0]]
        shear = { model = "xpbd", compliance = 1e-6 }
        bend = { model = "xpbd", compliance = 10.0 }

        [[collider]]
        shape = "plane"
        point = [0.0, 0.2, 0.0]
    "#;
    let mut loaded = parse_scene(text, Path::new("sheet.toml")).unwrap();
    for _ in 0..40 {
        coded.step().unwrap();
        loaded.step().unwrap();
    }
    assert!(bits(&coded) == bits(&loaded));
    // It fell and draped onto the plane at y = 0.2.
    let lowest = coded
        .particles()
        .x
        .iter()
        .map(|p| p.y)
        .fold(f32::MAX, f32::min);
    assert!((0.2..0.25).contains(&lowest), "lowest point {lowest}");
}

#[test]
fn bad_descriptions_name_the_key_and_build_nothing() {
    let mut world = World::new(SolverParams::default()).unwrap();
    let cases: [(ClothDesc, &str); 5] = [
        (
            ClothDesc {
                mass: -1.0,
                ..sheet()
            },
            "mass",
        ),
        (
            ClothDesc {
                pin: vec![0, 120],
                ..sheet()
            },
            "pin[1]",
        ),
        (
            ClothDesc {
                thickness: 0.0,
                ..sheet()
            },
            "thickness",
        ),
        (
            ClothDesc {
                stretch: Stiffness::Pbd { k: 2.0 },
                ..sheet()
            },
            "stretch.k",
        ),
        (
            ClothDesc {
                triangles: vec![[0, 1, 500]],
                ..sheet()
            },
            "triangles[0]",
        ),
    ];
    for (desc, key) in cases {
        let e = world.add_cloth(&desc).unwrap_err();
        assert_eq!(e.key, key, "{e}");
    }
    let mut nan = sheet();
    nan.positions[7].y = f32::NAN;
    assert_eq!(world.add_cloth(&nan).unwrap_err().key, "positions[7]");
    assert_eq!(
        ClothDesc::grid(
            [1, 4],
            [1.0, 1.0],
            Vec3::zeros(),
            Orientation::Vertical,
            1.0
        )
        .unwrap_err()
        .key,
        "resolution"
    );
    assert!(world.particles().is_empty() && world.bodies().is_empty());
    world.add_cloth(&sheet()).unwrap();
    let e = world.add_cloth(&sheet()).unwrap_err();
    assert_eq!(
        (e.key.as_str(), e.to_string().contains("another body")),
        ("name", true)
    );
    let bad_sphere = Collider::new(Shape::Sphere {
        center: Vec3::zeros(),
        radius: -1.0,
    });
    assert_eq!(world.add_collider(bad_sphere).unwrap_err().key, "radius");
    let bad_params = SolverParams {
        substeps: 0,
        ..SolverParams::default()
    };
    assert_eq!(World::new(bad_params).unwrap_err().key, "substeps");
}

#[test]
fn unnamed_bodies_are_named_by_kind_and_found_by_name() {
    let mut world = World::new(SolverParams::default()).unwrap();
    let rope = RopeDesc::new(Vec3::zeros(), Vec3::x(), 4, 0.1);
    let a = world.add_rope(&rope).unwrap();
    let b = world.add_rope(&rope).unwrap();
    let c = world
        .add_cloth(&ClothDesc {
            name: String::new(),
            ..sheet()
        })
        .unwrap();
    assert_eq!(world.body(a).name, "rope0");
    assert_eq!(world.body(b).name, "rope1");
    assert_eq!(world.body(c).name, "cloth0");
    assert_eq!(world.body_named("rope1"), Some(b));
    assert_eq!(world.positions(c).len(), 120);
}

#[test]
fn a_pinned_particle_stays_and_falls_when_unpinned() {
    let mut world = World::new(SolverParams::default()).unwrap();
    let rope = RopeDesc {
        pin_start: true,
        ..RopeDesc::new(Vec3::new(0.0, 1.0, 0.0), Vec3::new(1.0, 1.0, 0.0), 4, 0.5)
    };
    let h = world.add_rope(&rope).unwrap();
    world.pin(h, 4).unwrap();
    world.step_frames(30).unwrap();
    assert_eq!(world.positions(h)[4], Vec3::new(1.0, 1.0, 0.0));
    assert!(world.positions(h)[2].y < 1.0, "the middle sagged");
    world.unpin(h, 4).unwrap();
    world.step_frames(10).unwrap();
    assert!(world.positions(h)[4].y < 0.99, "the freed end fell");
    assert_eq!(
        world.positions(h)[0],
        Vec3::new(0.0, 1.0, 0.0),
        "still pinned"
    );
    assert_eq!(world.pin(h, 5).unwrap_err().argument, "particle");
    let wrong = world.set_positions(h, &[Vec3::zeros(); 3]).unwrap_err();
    assert_eq!(wrong.argument, "positions");
}

#[test]
fn a_collider_moved_from_code_arrives_in_one_frame_then_stops() {
    let mut world = World::new(SolverParams::default()).unwrap();
    let start = Vec3::new(0.0, 0.5, 0.0);
    let ball = world
        .add_collider(Collider::new(Shape::Sphere {
            center: start,
            radius: 0.2,
        }))
        .unwrap();
    let step = Vec3::new(0.3, 0.0, -0.1);
    let turn = Quat::from_axis_angle(&Vec3::y_axis(), 0.5);
    world.move_collider(ball, step, turn).unwrap();
    world.step().unwrap();
    let center = world.collider(ball).shape.center();
    assert!((center - (start + step)).norm() < 1e-5, "{center}");
    world.step().unwrap();
    assert_eq!(world.collider(ball).shape.center(), center, "it stopped");
    assert!(world.collider(ball).motion == Default::default());
}

#[test]
fn colliders_of_a_scene_file_are_found_by_name_and_in_order() {
    let text = r#"
[[collider]]
shape = "plane"

[[collider]]
name = "ball"
shape = "sphere"
center = [0.0, 0.5, 0.0]
radius = 0.2
"#;
    let mut world = parse_scene(text, Path::new("two.toml")).unwrap();
    let handles: Vec<_> = world.collider_handles().collect();
    assert_eq!(handles.len(), 2);
    let ball = world.collider_named("ball").unwrap();
    assert_eq!(ball, handles[1]);
    assert!(world.collider_named("plane").is_none());
    assert_eq!(world.collider(handles[0]).name, "");
    // The handle drives the file's collider like one added in code.
    world
        .move_collider(ball, Vec3::new(0.3, 0.0, 0.0), Quat::identity())
        .unwrap();
    world.step().unwrap();
    let Shape::Sphere { center, .. } = &world.collider(ball).shape else {
        panic!("the ball is a sphere")
    };
    assert!((center - Vec3::new(0.3, 0.5, 0.0)).norm() < 1e-5);
}
