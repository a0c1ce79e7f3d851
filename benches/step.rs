//! Criterion benches of the constraint kernels and of one frame of workload W.
//! Run: `cargo bench --no-default-features --bench step`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use supple::bench_step::workload_w;
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
        world.step_frame().unwrap();
    }
    let (ps, cs) = (&world.particles, &mut world.constraints);
    let mut slots = Vec::new();
    Team::scope(1, |team| pack(ps, &mut slots, team));
    c.bench_function("stretch_pass_n128", |b| {
        b.iter(|| {
            cs.stretch
                .project_serial(&View::new(&mut slots, &ps.x), Sweep::Forward)
        })
    });
}

fn w_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("w_frame_n64");
    group.sample_size(20);
    for method in SolverMethod::ALL {
        let mut world = workload_w(64, method);
        for _ in 0..10 {
            world.step_frame().unwrap();
        }
        group.bench_function(method.name(), |b| b.iter(|| world.step_frame().unwrap()));
    }
    group.finish();
}

/// One frame of W at N = 64 with the Jacobi solver on a team of one and of two threads (its
/// frames run the substeps in a team of their own, as `World::step_frame` does for `colored`).
fn w_frame_jacobi_threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("w_frame_n64_jacobi");
    group.sample_size(20);
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut world = workload_w(64, SolverMethod::Jacobi);
        let h = world.params.h();
        let mut frame = || {
            pool.install(|| {
                Team::scope(threads, |team| {
                    for _ in 0..world.params.substeps {
                        world.substep(h, team);
                    }
                })
            })
        };
        for _ in 0..10 {
            frame();
        }
        group.bench_function(format!("{threads}_threads"), |b| b.iter(&mut frame));
    }
    group.finish();
}

criterion_group!(
    benches,
    kernels,
    stretch_pass,
    w_frame,
    w_frame_jacobi_threads
);
criterion_main!(benches);
