//! Cloth draped over triangle-mesh colliders never ends up inside them.

use std::path::Path;
use supple::scene::{load_scene, parse_scene};
use supple::world::World;

/// The deepest a particle has gone inside collider 0, m (0 when none is inside).
fn depth_in_first_collider(world: &World) -> f32 {
    let shape = &world.colliders()[0].shape;
    world
        .particles()
        .x
        .iter()
        .map(|&x| -shape.exact_distance(x).0)
        .fold(0.0, f32::max)
}

/// Runs `frames` frames and returns the deepest penetration into collider 0 seen at any frame.
fn deepest(world: &mut World, frames: u32) -> f32 {
    (0..frames).fold(0.0, |deepest, _| {
        world.step().unwrap();
        deepest.max(depth_in_first_collider(world))
    })
}

#[test]
fn cloth_drapes_over_the_shipped_mesh_without_entering_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/cloth_on_mesh.toml");
    let mut world = load_scene(&path).unwrap().world;
    let depth = deepest(&mut world, 180);
    let top = world
        .particles()
        .x
        .iter()
        .map(|p| p.y)
        .fold(f32::MIN, f32::max);
    println!("lumpy blob: deepest {depth} m, top particle at {top} m");
    assert!(depth < 1e-3, "a particle went {depth} m inside the mesh");
    assert!(
        top > 0.5,
        "the cloth rests on the mesh: top particle at {top} m"
    );
}

#[test]
fn cloth_drapes_over_the_stanford_bunny_without_entering_it() {
    let bunny = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes/stanford-bunny.obj");
    let scene = format!(
        r#"
        [solver]
        substeps = 10
        iterations = 4
        damping = 0.1
        [[cloth]]
        resolution = [30, 30]
        size = [1.2, 1.2]
        center = [-0.1, 1.1, 0.0]
        mass = 0.3
        shear = {{ model = "xpbd", compliance = 1e-5 }}
        bend = {{ model = "xpbd", compliance = 1.0, kind = "cross-distance" }}
        damping = 0.02
        [[collider]]
        shape = "mesh"
        mesh = "{}"
        scale = 5.0
        position = [0.0, -0.16, 0.0]
        friction = 0.5
        [[collider]]
        shape = "plane"
        "#,
        bunny.display()
    );
    let mut world = parse_scene(&scene, Path::new("bunny.toml")).unwrap();
    let depth = deepest(&mut world, 120);
    println!("bunny: deepest {depth} m");
    assert!(depth < 1e-3, "a particle went {depth} m inside the bunny");
}
