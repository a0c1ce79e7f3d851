//! Cost of collisions, in pairs of scenes that differ in one feature only (one thread, 10
//! substeps × 4 iterations, one frame from the same state, cloned for every sample):
//! - `folds_frame_n{64,128}`: an N × N cloth collapsing onto the ground, with and without
//!   self-collision (1 s into the fall, layers touching);
//! - `drape_frame_n64`: a 64 × 64 cloth draped on the 69,451-triangle Stanford bunny and on a
//!   sphere of about its size (`benches/scenes/cloth_on_{bunny,ball}.toml`, 1 s after the drop);
//! - `bunny_load`: building the bunny's collider (BVH and pseudo-normals) from its parsed OBJ.
//!
//! Run: `cargo bench --no-default-features --bench collision` (the bunny comes from
//! `../shared/meshes`, beside the repository).

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::path::Path;
use supple::World;
use supple::collision::MeshShape;
use supple::mesh::TriMesh;
use supple::scene::{load_scene, parse_scene};

/// `scenes/folds.toml` at `n × n` particles (thickness 0.9 × the spacing), run for 1 s.
fn folding_cloth(n: u32) -> World {
    let thickness = 0.9 / (n - 1) as f32;
    let scene = format!(
        r#"
        [solver]
        substeps = 10
        iterations = 4
        damping = 0.1
        [[cloth]]
        resolution = [{n}, {n}]
        center = [0.0, 0.55, 0.0]
        orientation = "vertical"
        rotation = [8.0, 0.0, 4.0]
        mass = 0.3
        shear = {{ model = "xpbd", compliance = 1e-5 }}
        bend = {{ model = "xpbd", compliance = 2.0, kind = "cross-distance" }}
        thickness = {thickness}
        damping = 0.02
        self_collision = true
        [[collider]]
        shape = "plane"
        friction = 0.6
        "#
    );
    let mut world = parse_scene(&scene, Path::new("folds.toml")).unwrap();
    for _ in 0..60 {
        world.step().unwrap();
    }
    world
}

fn self_collision(c: &mut Criterion) {
    for n in [64, 128] {
        let mut group = c.benchmark_group(format!("folds_frame_n{n}"));
        group.sample_size(10);
        let with = folding_cloth(n);
        let mut without = with.clone();
        let cloth = without.body_named("cloth0").unwrap();
        without.set_self_collision(cloth, false);
        for (name, world) in [("self_collision", &with), ("no_self_collision", &without)] {
            bench_frame(&mut group, name, world);
        }
        group.finish();
    }
}

/// Times one frame of `world`, cloned for every sample, as `name` in `group`.
fn bench_frame(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    world: &World,
) {
    group.bench_function(name, |b| {
        b.iter_batched(
            || world.clone(),
            |mut w| w.step().unwrap(),
            BatchSize::LargeInput,
        )
    });
}

/// `benches/scenes/<name>.toml`, run for 1 s.
fn draped(name: &str) -> World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("benches/scenes/{name}.toml"));
    let mut world = load_scene(&path).unwrap().world;
    world.step_frames(60).unwrap();
    world
}

fn mesh_collider(c: &mut Criterion) {
    let mut group = c.benchmark_group("drape_frame_n64");
    group.sample_size(10);
    for name in ["cloth_on_bunny", "cloth_on_ball"] {
        bench_frame(&mut group, name, &draped(name));
    }
    group.finish();
    let bunny = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes/stanford-bunny.obj");
    let mesh = TriMesh::load(&bunny).unwrap();
    let mut group = c.benchmark_group("bunny_load");
    group.sample_size(10);
    group.bench_function("collider", |b| b.iter(|| MeshShape::new(&mesh, 5.0)));
    group.finish();
}

criterion_group!(benches, self_collision, mesh_collider);
criterion_main!(benches);
