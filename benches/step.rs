//! Criterion benches of the constraint kernels, of one pass over a family, and of frames of
//! workload W and of a cloth with each bending kind.
//! Run: `cargo bench --no-default-features --bench step`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::Path;
use supple::World;
use supple::bench_step::workload_w;
use supple::constraints::Stiffness;
use supple::constraints::bending::solve_dihedral;
use supple::constraints::distance::solve_distance;
use supple::constraints::volume::solve_tet_volume;
use supple::math::Vec3;
use supple::params::SolverMethod;
use supple::scene::parse_scene;
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
    c.bench_function("solve_tet_volume", |b| {
        b.iter(|| {
            solve_tet_volume(
                black_box(quad),
                black_box([1.0; 4]),
                black_box(0.1),
                black_box(0.0),
                None,
                &k,
            )
        })
    });
}

/// A 64 x 64 cloth like W at N = 64 (1 m, pinned at two corners, every constraint rigid), 10
/// substeps of 4 Gauss-Seidel iterations, with bending `kind` (`dihedral` or `cross-distance`):
/// the pair of scenes that differ only in the bending kind.
fn bend_cloth(kind: &str) -> World {
    let text = format!(
        r#"
        [solver]
        substeps = 10
        iterations = 4
        method = "gauss-seidel"
        [[cloth]]
        name = "cloth"
        resolution = [64, 64]
        size = [1.0, 1.0]
        center = [0.5, 0.0, 0.5]
        orientation = "horizontal"
        mass = 1.0
        pin = [[0, 0], [-1, 0]]
        stretch = {{ model = "xpbd", compliance = 0.0 }}
        shear = {{ model = "xpbd", compliance = 0.0 }}
        bend = {{ model = "xpbd", compliance = 0.0, kind = "{kind}" }}
        "#
    );
    parse_scene(&text, Path::new("bend_cloth.toml")).unwrap()
}

/// The Stanford bunny imported as a tet soft body at resolution 32 (as `supple import
/// ../shared/meshes/stanford-bunny.obj --resolution 32`: 10,450 particles, 50,292 tets).
fn bunny() -> World {
    let mesh = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes/stanford-bunny.obj");
    let text = format!(
        r#"
        [solver]
        substeps = 10
        iterations = 10
        [[soft_body]]
        name = "bunny"
        mesh = "{}"
        model = "tets"
        resolution = 32
        mass = 1
        scale = 6.422649
        center = [0, 0.6268666, 0]
        [[collider]]
        shape = "plane"
        point = [0.0, 0.0, 0.0]
        normal = [0.0, 1.0, 0.0]
        "#,
        mesh.display()
    );
    parse_scene(&text, Path::new("bunny.toml")).unwrap()
}

/// One Gauss-Seidel pass over the dihedral family of [`bend_cloth`] (11,781 constraints) and over
/// the bunny's 50,292 tet volumes and 64,635 edges (the batched SIMD kernels; AVX where the
/// processor has it), each from the state after 10 frames.
fn family_passes(c: &mut Criterion) {
    let mut cloth = bend_cloth("dihedral");
    let mut bunny = bunny();
    for _ in 0..10 {
        cloth.step_frame().unwrap();
        bunny.step_frame().unwrap();
    }
    let mut slots = Vec::new();
    let (ps, cs) = (&cloth.particles, &mut cloth.constraints);
    Team::scope(1, |team| pack(ps, &mut slots, team));
    c.bench_function("dihedral_pass_n64", |b| {
        b.iter(|| {
            cs.dihedral
                .project_serial(&View::new(&mut slots, &ps.x), Sweep::Forward)
        })
    });
    let (ps, cs) = (&bunny.particles, &mut bunny.constraints);
    Team::scope(1, |team| pack(ps, &mut slots, team));
    c.bench_function("tet_volume_pass_bunny32", |b| {
        b.iter(|| {
            cs.volume
                .project_serial(&View::new(&mut slots, &ps.x), Sweep::Forward)
        })
    });
    c.bench_function("tet_edge_pass_bunny32", |b| {
        b.iter(|| {
            cs.stretch
                .project_serial(&View::new(&mut slots, &ps.x), Sweep::Forward)
        })
    });
}

/// Frames of [`bend_cloth`] with each bending kind, after 10 frames.
fn bend_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("bend_frame_n64");
    group.sample_size(20);
    for kind in ["dihedral", "cross-distance"] {
        let mut world = bend_cloth(kind);
        for _ in 0..10 {
            world.step_frame().unwrap();
        }
        group.bench_function(kind, |b| b.iter(|| world.step_frame().unwrap()));
    }
    group.finish();
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

criterion_group!(
    benches,
    kernels,
    stretch_pass,
    family_passes,
    w_frame,
    bend_frame
);
criterion_main!(benches);
