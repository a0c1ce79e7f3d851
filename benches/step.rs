//! Criterion benches of the constraint kernels, of one pass over a family or over the
//! shape-matching clusters, and of frames of
//! workload W and of a cloth with each bending kind.
//! Run: `cargo bench --no-default-features --bench step`.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
// The tests' helpers; the bench takes only the workload (it keeps its pools across samples).
#[path = "../tests/integration/common.rs"]
#[allow(dead_code)]
mod common;
use common::workload_w;
use std::path::Path;
use supple::World;
use supple::constraints::bending::solve_dihedral;
use supple::constraints::distance::solve_distance;
use supple::constraints::family::{Family, FamilyKind};
use supple::constraints::isometric::{isometric_weights, solve_isometric};
use supple::constraints::volume::solve_tet_volume;
use supple::constraints::{ConstraintSets, Stiffness};
use supple::math::Vec3;
use supple::params::SolverMethod;
use supple::scene::parse_scene;
use supple::solver::Team;
use supple::solver::View;
use supple::solver::view::pack;

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
    let flat = [quad[0], quad[1], quad[2], Vec3::new(0.6, -0.8, 0.0)];
    let weights = isometric_weights(flat).unwrap();
    c.bench_function("solve_isometric", |b| {
        b.iter(|| {
            solve_isometric(
                black_box(quad),
                black_box([1.0; 4]),
                black_box(weights),
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
/// substeps of 4 Gauss-Seidel iterations, with bending `kind` (`dihedral`, `cross-distance` or
/// `isometric`): scenes that differ only in the bending kind.
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
/// ../shared/meshes/stanford-bunny.obj --resolution 32`: 10,450 particles, 50,292 tets), with
/// the soft body's keys `material` added (none: tet volumes and edges).
fn bunny(material: &str) -> World {
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
        {material}
        [[collider]]
        shape = "plane"
        point = [0.0, 0.0, 0.0]
        normal = [0.0, 1.0, 0.0]
        "#,
        mesh.display()
    );
    parse_scene(&text, Path::new("bunny.toml")).unwrap()
}

/// `world` after 10 frames.
fn settled(mut world: World) -> World {
    for _ in 0..10 {
        world.step().unwrap();
    }
    world
}

/// Benches, as `name`, one pass over the family that `family` picks out of `world`'s
/// constraints (the batched SIMD kernel; AVX where the processor has it), on a copy: Gauss-Seidel,
/// or by colors when `colored` (one thread).
fn bench_pass<const K: usize, Kind: FamilyKind<K> + Send>(
    c: &mut Criterion,
    name: &str,
    world: &World,
    colored: bool,
    family: impl Fn(&ConstraintSets) -> &Family<K, Kind>,
) where
    Family<K, Kind>: Clone,
{
    let (ps, mut set) = (world.particles(), family(world.constraints()).clone());
    let (mut slots, mut starts, mut lost) = (Vec::new(), Vec::new(), Vec::new());
    let origins = vec![Vec3::zeros(); world.bodies().len()];
    let buffers = (&mut starts, &mut lost);
    let damped = set.damped();
    Team::scope(1, |team| {
        pack(ps, &origins, &mut slots, buffers, damped, team)
    });
    c.bench_function(name, |b| {
        b.iter(|| {
            // A team of one is this thread alone: no thread is started.
            Team::scope(1, |team| {
                let v = View::new(&mut slots, &starts);
                match colored {
                    true => set.project_colored(&v, team),
                    false => set.project_serial(&v),
                }
            })
        })
    });
}

/// One pass over W's 48,641 stretch constraints at N = 128, over W's 12,033 at N = 64 (serial
/// and colored), over the dihedral and isometric families of [`bend_cloth`] (11,781 constraints
/// each), over the bunny's 50,292 tet volumes and 64,635 edges, and over the same tets as
/// Neo-Hookean tets, each from the state after 10 frames.
fn family_passes(c: &mut Criterion) {
    let w = settled(workload_w(128, SolverMethod::GaussSeidel));
    bench_pass(c, "stretch_pass_n128", &w, false, |cs| &cs.stretch);
    let w = settled(workload_w(64, SolverMethod::GaussSeidel));
    bench_pass(c, "stretch_pass_n64", &w, false, |cs| &cs.stretch);
    bench_pass(c, "stretch_pass_n64_colored", &w, true, |cs| &cs.stretch);
    let cloth = settled(bend_cloth("dihedral"));
    bench_pass(c, "dihedral_pass_n64", &cloth, false, |cs| &cs.dihedral);
    let cloth = settled(bend_cloth("isometric"));
    bench_pass(c, "isometric_pass_n64", &cloth, false, |cs| &cs.isometric);
    let tets = settled(bunny(""));
    bench_pass(c, "tet_volume_pass_bunny32", &tets, false, |cs| &cs.volume);
    bench_pass(c, "tet_edge_pass_bunny32", &tets, false, |cs| &cs.stretch);
    let elastic = r#"volume = { model = "elastic", youngs = 2e4, poisson = 0.4, damping = 0.002 }"#;
    neo_hookean_pass(c, "neo_hookean_pass_bunny32", &settled(bunny(elastic)));
}

/// Benches, as `name`, one pass over the Neo-Hookean tets of `world` (batched; AVX where the
/// processor has it), on a copy.
fn neo_hookean_pass(c: &mut Criterion, name: &str, world: &World) {
    let (ps, mut set) = (world.particles(), world.constraints().neo_hookean.clone());
    let (mut slots, mut starts, mut lost) = (Vec::new(), Vec::new(), Vec::new());
    let origins = vec![Vec3::zeros(); world.bodies().len()];
    Team::scope(1, |team| {
        pack(
            ps,
            &origins,
            &mut slots,
            (&mut starts, &mut lost),
            true,
            team,
        )
    });
    c.bench_function(name, |b| b.iter(|| set.project_serial(&mut slots, &starts)));
}

/// One shape-matching pass (one iteration of a substep of 1/600 s out of 4) over the clusters of
/// `scenes/soft-models.toml`: the clay capsule's 62 overlapping clusters of about 17 particles
/// (linear deformation and plasticity) and the rigid crate's one of 214. Every sample starts
/// from a fresh copy of the state after 10 frames, whose rotations are those of that state (so
/// their extraction converges at once) and whose arrays are not yet in the caches.
fn shape_matching_pass(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/soft-models.toml");
    let world = settled(supple::scene::load_scene(&path).unwrap().world);
    let (ps, set) = (world.particles(), world.clusters());
    c.bench_function("shape_matching_pass_soft_models", |b| {
        b.iter_batched_ref(
            || (ps.clone(), set.clone()),
            |(ps, set)| set.match_shapes(ps, 1.0 / 600.0, 4, false),
            BatchSize::SmallInput,
        )
    });
}

/// Frames of [`bend_cloth`] with each bending kind, after 10 frames.
fn bend_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("bend_frame_n64");
    group.sample_size(20);
    for kind in ["dihedral", "cross-distance", "isometric"] {
        let mut world = settled(bend_cloth(kind));
        group.bench_function(kind, |b| b.iter(|| world.step().unwrap()));
    }
    group.finish();
}

fn w_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("w_frame_n64");
    group.sample_size(20);
    for method in SolverMethod::ALL {
        let mut world = settled(workload_w(64, method));
        group.bench_function(method.name(), |b| b.iter(|| world.step().unwrap()));
    }
    group.finish();
}

/// A square plate 0.5 m across of 65 x 65 particles, 0.1 kg, clamped along one edge (two rows
/// pinned), with stiff isometric bending (`elastic`, `D` = 1 N·m) and 20 substeps x 10
/// iterations, solved by `method`.
fn stiff_plate(method: SolverMethod) -> World {
    let scene = format!(
        r#"
        [solver]
        substeps = 20
        iterations = 10
        method = "{}"
        [[cloth]]
        resolution = [65, 65]
        size = [0.5, 0.5]
        center = [0.0, 1.0, 0.0]
        mass = 0.1
        pin_edges = ["j=0"]
        pin = [{}]
        bend = {{ model = "elastic", stiffness = 1.0, kind = "isometric" }}
        "#,
        method.name(),
        (0..65)
            .map(|i| format!("[{i}, 1]"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    parse_scene(&scene, Path::new("plate.toml")).unwrap()
}

/// Frames of [`stiff_plate`], after 10 frames: Gauss-Seidel, and the global step of
/// `colored-global` (one factorization, then a solve per substep) with the colored iterations.
fn plate_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("plate_frame_n65");
    group.sample_size(10);
    for method in [SolverMethod::GaussSeidel, SolverMethod::ColoredGlobal] {
        let mut world = settled(stiff_plate(method));
        group.bench_function(method.name(), |b| b.iter(|| world.step().unwrap()));
    }
    group.finish();
}

/// One frame of W at N = 64 with the Jacobi solver in a pool of one and of two threads.
fn w_frame_jacobi_threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("w_frame_n64_jacobi");
    group.sample_size(20);
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut world = settled(workload_w(64, SolverMethod::Jacobi));
        group.bench_function(format!("{threads}_threads"), |b| {
            b.iter(|| pool.install(|| world.step().unwrap()))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    kernels,
    family_passes,
    shape_matching_pass,
    w_frame,
    bend_frame,
    plate_frame,
    w_frame_jacobi_threads
);
criterion_main!(benches);
