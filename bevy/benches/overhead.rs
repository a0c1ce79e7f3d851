//! What the plugin costs per frame over `World::step`: a 64 × 64 cloth held by two corners,
//! stepped by `World::step` alone and by a headless app with the plugin (one fixed step per
//! update, the mesh written back), in one run.
//!
//! `cargo bench -p bevy_supple --bench overhead`; compare the medians of `world_step` and
//! `app_update`.

use bevy::asset::AssetPlugin;
use bevy::mesh::{Mesh, MeshPlugin, VertexAttributeValues};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_supple::prelude::*;
use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;

/// Vertices a side.
const N: u32 = 64;

/// A 1 m square, N × N vertices, and the two corners of its first row.
fn sheet() -> (Mesh, [usize; 2]) {
    let mesh = Plane3d::default()
        .mesh()
        .size(1.0, 1.0)
        .subdivisions(N - 2)
        .build();
    (mesh, [0, N as usize - 1])
}

fn world_step(c: &mut Criterion) {
    let (mesh, pins) = sheet();
    let Some(VertexAttributeValues::Float32x3(p)) = mesh.attribute(Mesh::ATTRIBUTE_POSITION) else {
        panic!("a plane has positions");
    };
    let positions = p
        .iter()
        .map(|p| supple::Vec3::new(p[0], p[1] + 1.0, p[2]))
        .collect();
    let indices: Vec<u32> = mesh.indices().unwrap().iter().map(|i| i as u32).collect();
    let triangles = indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    let mut desc = ClothDesc::mesh(positions, triangles, 0.2);
    desc.pin = pins.to_vec();
    let mut world = supple::World::new(SolverParams::default()).unwrap();
    world.add_cloth(&desc).unwrap();
    world.step_frames(30).unwrap();

    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        TransformPlugin,
        MeshPlugin,
        SupplePlugin,
    ));
    let dt = Duration::from_secs_f64(f64::from(SolverParams::default().dt));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(dt));
    let handle = app.world_mut().resource_mut::<Assets<Mesh>>().add(mesh);
    app.world_mut().spawn((
        Mesh3d(handle),
        Transform::from_xyz(0.0, 1.0, 0.0),
        SuppleCloth::from_mesh(0.2).pinned(pins),
    ));
    for _ in 0..31 {
        app.update();
    }
    let frame = app.world().resource::<SuppleWorld>().world().frame();
    assert!(
        frame >= 29,
        "the app steps a frame per update: {frame} in 31"
    );

    let mut group = c.benchmark_group("plugin_64x64");
    group.sample_size(30);
    group.bench_function("world_step", |b| b.iter(|| world.step().unwrap()));
    group.bench_function("app_update", |b| b.iter(|| app.update()));
    group.finish();
}

criterion_group!(benches, world_step);
criterion_main!(benches);
