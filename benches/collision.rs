//! Cost of self-collision: one frame of an N × N cloth collapsing onto the ground, with and
//! without self-collision, from the same state (1 s into the fall, layers touching).
//! Run: `cargo bench --no-default-features --bench collision`.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::path::Path;
use supple::World;
use supple::scene::parse_scene;

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
            group.bench_function(name, |b| {
                b.iter_batched(
                    || world.clone(),
                    |mut w| w.step().unwrap(),
                    BatchSize::LargeInput,
                )
            });
        }
        group.finish();
    }
}

criterion_group!(benches, self_collision);
criterion_main!(benches);
