//! Criterion timings of the stiffness experiment: one settled rope sweep point, one frame of
//! workload W at N = 32.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use supple::cli::experiments::stiffness::{RunSpec, Workload, bench_params, cloth_w, run_point};
use supple::constraints::Stiffness;

fn rope_point(c: &mut Criterion) {
    let spec = RunSpec {
        workload: Workload::Rope,
        stiffness: Stiffness::Xpbd {
            compliance: 1e-4,
            damping: 0.0,
        },
        substeps: 4,
        iterations: 16,
    };
    let mut group = c.benchmark_group("stiffness");
    group.sample_size(10);
    group.bench_function(
        "rope xpbd 1e-4, 4 substeps x 16 iterations, 600 frames",
        |b| b.iter(|| run_point(black_box(&spec)).unwrap()),
    );
    group.finish();
}

fn cloth32_frame(c: &mut Criterion) {
    let mut world = cloth_w(32, Stiffness::default(), bench_params(10, 10));
    c.bench_function("cloth32 frame, 10 substeps x 10 iterations", |b| {
        b.iter(|| world.step().unwrap())
    });
}

criterion_group!(benches, rope_point, cloth32_frame);
criterion_main!(benches);
