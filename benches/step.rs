//! Criterion benches of the constraint kernels and of one frame of workload W.
//! Run: `cargo bench --no-default-features --bench step`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
#[path = "../tests/common/mod.rs"]
mod common;
use common::workload_w;
use supple::constraints::Stiffness;
use supple::constraints::bending::solve_dihedral;
use supple::constraints::distance::solve_distance;
use supple::math::Vec3;
use supple::params::SolverMethod;
use supple::solver::Team;
use supple::solver::view::pack;
use supple::solver::{Sweep, View};

fn kernels(c: &mut Criterion) {
    let k = Stiffness::default().coeffs(1.0 / 600.0, 10);
    let (p0, p1) = (Vec3::new(0.1, 0.2, 0.3), Vec3::new(0.12, 0.19, 0.31));
    c.bench_function("solve_distance", |b| {
        b.iter(|| {
            solve_distance(
                black_box(p0),
                black_box(1.0),
                black_box(p1),
                black_box(1.0),
                black_box(0.02),
                black_box(0.0),
                None,
                &k,
            )
        })
    });
    let quad = [
        Vec3::zeros(),
        Vec3::x(),
        Vec3::new(0.4, 1.0, 0.0),
        Vec3::new(0.6, -0.8, 0.5),
    ];
    c.bench_function("solve_dihedral", |b| {
        b.iter(|| {
            solve_dihedral(
                black_box(quad),
                black_box([1.0; 4]),
                black_box(0.0),
                black_box(0.0),
                None,
                &k,
            )
        })
    });
}

/// One Gauss-Seidel pass over W's 48,641 stretch constraints at N = 128 (the batched SIMD
/// kernel; AVX where the processor has it), from the state after 10 frames.
fn stretch_pass(c: &mut Criterion) {
    let mut world = workload_w(128, SolverMethod::GaussSeidel);
    for _ in 0..10 {
        world.step().unwrap();
    }
    let ps = world.particles();
    let mut stretch = world.constraints().stretch.clone();
    let mut slots = Vec::new();
    Team::scope(1, |team| pack(ps, &mut slots, team));
    c.bench_function("stretch_pass_n128", |b| {
        b.iter(|| stretch.project_serial(&View::new(&mut slots, &ps.x), Sweep::Forward))
    });
}

fn w_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("w_frame_n64");
    group.sample_size(20);
    for method in SolverMethod::ALL {
        let mut world = workload_w(64, method);
        for _ in 0..10 {
            world.step().unwrap();
        }
        group.bench_function(method.name(), |b| b.iter(|| world.step().unwrap()));
    }
    group.finish();
}

criterion_group!(benches, kernels, stretch_pass, w_frame);
criterion_main!(benches);
