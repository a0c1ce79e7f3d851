//! A cloth from a mesh in any vertex order: its particles are numbered for locality when it is
//! built, and nothing a user sees shows it. Positions, pins and exports keep the file's order,
//! the colored solver gives the same bits on any number of threads, and a shuffled mesh hangs
//! as the ordered one does, within the solver's own error.

use crate::common::on_threads;
use supple::{
    BendKind, ClothDesc, Real, SolverMethod, SolverParams, Stiffness, Vec3, World, export_frame,
};

/// Workload W's cloth at `n` x `n` as a mesh whose vertex `k` is the grid's particle
/// `order[k]`, its triangles in the grid's order, pinned at the grid's two pinned corners.
fn w_mesh(n: u32, order: &[u32]) -> ClothDesc {
    let w = ClothDesc::workload_w(n, Stiffness::default());
    let mut vertex_of = vec![0u32; order.len()];
    for (k, &i) in order.iter().enumerate() {
        vertex_of[i as usize] = k as u32;
    }
    let positions = order.iter().map(|&i| w.positions[i as usize]).collect();
    let triangles = w
        .triangles
        .iter()
        .map(|t| t.map(|i| vertex_of[i as usize]))
        .collect();
    ClothDesc {
        name: "cloth".into(),
        pin: w.pin.iter().map(|&i| vertex_of[i] as usize).collect(),
        bend: Some((Stiffness::default(), BendKind::CrossDistance)),
        ..ClothDesc::mesh(positions, triangles, 1.0)
    }
}

/// A fixed permutation of `0..len`.
fn shuffled(len: u32) -> Vec<u32> {
    let mut order: Vec<u32> = (0..len).collect();
    let mut state = 12_345u64;
    for k in (1..order.len()).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        order.swap(k, (state >> 33) as usize % (k + 1));
    }
    order
}

/// The cloth's positions in the grid's particle order after `frames` frames of `iterations`
/// iterations with `method`, stepped in a pool of `threads` threads.
fn hang(
    desc: &ClothDesc,
    order: &[u32],
    method: SolverMethod,
    iterations: u32,
    threads: usize,
    frames: u32,
) -> Vec<Vec3> {
    let params = SolverParams {
        method,
        iterations,
        ..SolverParams::default()
    };
    let mut world = World::new(params).unwrap();
    let h = world.add_cloth(desc).unwrap();
    on_threads(threads, || world.step_frames(frames)).unwrap();
    let x = world.positions(h);
    assert_eq!(x.len(), order.len(), "one position per vertex of the file");
    let mut in_grid_order = vec![Vec3::zeros(); x.len()];
    for (k, &i) in order.iter().enumerate() {
        in_grid_order[i as usize] = x[k];
    }
    in_grid_order
}

fn largest_gap(a: &[Vec3], b: &[Vec3]) -> Real {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q).norm())
        .fold(0.0, Real::max)
}

#[test]
fn a_shuffled_mesh_hangs_as_the_ordered_one_within_the_solvers_error() {
    let n = 24;
    let (ordered, random) = ((0..n * n).collect::<Vec<u32>>(), shuffled(n * n));
    let gs = SolverMethod::GaussSeidel;
    let a = hang(&w_mesh(n, &ordered), &ordered, gs, 10, 1, 60);
    let b = hang(&w_mesh(n, &random), &random, gs, 10, 1, 60);
    // The solver's own error: how far the ordered mesh moves with twice the iterations. (Both
    // meshes are numbered alike here, from the same far corner, and hang to the same bits.)
    let converged = hang(&w_mesh(n, &ordered), &ordered, gs, 20, 1, 60);
    let (gap, error) = (largest_gap(&a, &b), largest_gap(&a, &converged));
    assert!(
        error > 0.0 && gap <= error,
        "shuffled {gap} m from ordered; 20 iterations {error} m"
    );
    // The pins stay where the file put them.
    let w = ClothDesc::workload_w(n, Stiffness::default());
    for &i in &w.pin {
        assert_eq!(b[i], w.positions[i]);
    }
}

#[test]
fn a_shuffled_mesh_gives_the_same_bits_on_one_and_two_threads() {
    let n = 32;
    let random = shuffled(n * n);
    let desc = w_mesh(n, &random);
    for method in [
        SolverMethod::Colored,
        SolverMethod::Jacobi,
        SolverMethod::ColoredChebyshev,
    ] {
        let one = hang(&desc, &random, method, 10, 1, 20);
        let two = hang(&desc, &random, method, 10, 2, 20);
        assert!(one == two, "{method:?}: the bits differ");
    }
}

#[test]
fn positions_set_positions_pins_and_exports_use_the_files_vertex_order() {
    let n = 8;
    let random = shuffled(n * n);
    let desc = w_mesh(n, &random);
    let mut world = World::new(SolverParams::default()).unwrap();
    let h = world.add_cloth(&desc).unwrap();
    assert_eq!(world.positions(h), desc.positions);
    world.step_frames(5).unwrap();
    // The export writes vertex k as `positions[k]`.
    let dir = tempfile::tempdir().unwrap();
    export_frame(&world, dir.path()).unwrap();
    let obj = std::fs::read_to_string(dir.path().join("cloth_00005.obj")).unwrap();
    let exported: Vec<Vec3> = obj
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let c: Vec<Real> = l.split(' ').map(|c| c.parse().unwrap()).collect();
            Vec3::new(c[0], c[1], c[2])
        })
        .collect();
    let x = world.positions(h);
    assert_eq!(exported.len(), x.len());
    assert!(largest_gap(&exported, &x) < 1e-5);
    // Setting the positions puts vertex k at `positions[k]`; pinning vertex k holds it there.
    let moved: Vec<Vec3> = desc.positions.iter().map(|p| p + Vec3::y()).collect();
    world.set_positions(h, &moved).unwrap();
    assert_eq!(world.positions(h), moved);
    let k = 5;
    world.pin(h, k).unwrap();
    world.step_frames(3).unwrap();
    assert_eq!(world.positions(h)[k], moved[k]);
}

/// A surface soft body (the lumpy blob of `meshes/`, 0.4 m across) whose vertex `k` is the
/// file's vertex `order[k]`, over a ground.
fn blob_world(order: &[u32], iterations: u32, method: SolverMethod) -> (World, supple::BodyHandle) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/lumpy.obj");
    let mut mesh = supple::load_obj(&path).unwrap();
    let scale = supple::fit_scale(&mesh, 0.4);
    supple::place_mesh(
        &mut mesh,
        scale,
        supple::Quat::identity(),
        Some(Vec3::new(0.0, 0.5, 0.0)),
    );
    let mut vertex_of = vec![0u32; order.len()];
    for (k, &i) in order.iter().enumerate() {
        vertex_of[i as usize] = k as u32;
    }
    let mesh = supple::TriMesh {
        positions: order.iter().map(|&i| mesh.positions[i as usize]).collect(),
        triangles: (mesh.triangles.iter())
            .map(|t| t.map(|i| vertex_of[i as usize]))
            .collect(),
    };
    let mut desc = supple::SoftBodyDesc::new(mesh, 0.5);
    desc.material.model = supple::SoftModel::Surface;
    let params = SolverParams {
        method,
        iterations,
        ..SolverParams::default()
    };
    let mut world = World::new(params).unwrap();
    world
        .add_collider(supple::Collider::new(supple::Shape::Plane {
            point: Vec3::zeros(),
            normal: Vec3::y(),
        }))
        .unwrap();
    let h = world.add_soft_body(&desc).unwrap();
    assert_eq!(
        world.positions(h),
        desc.mesh.positions,
        "the file's vertices in its order"
    );
    (world, h)
}

/// The positions of a body of [`blob_world`] in the file's order.
fn in_file_order(x: &[Vec3], order: &[u32]) -> Vec<Vec3> {
    let mut y = vec![Vec3::zeros(); x.len()];
    for (k, &i) in order.iter().enumerate() {
        y[i as usize] = x[k];
    }
    y
}

#[test]
fn a_shuffled_surface_soft_body_drops_as_the_ordered_one_within_the_solvers_error() {
    let n = supple::load_obj(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/lumpy.obj"),
    )
    .unwrap()
    .positions
    .len() as u32;
    let (ordered, random) = ((0..n).collect::<Vec<u32>>(), shuffled(n));
    let gs = SolverMethod::GaussSeidel;
    let drop = |order: &[u32], iterations| {
        let (mut world, h) = blob_world(order, iterations, gs);
        world.step_frames(90).unwrap();
        let volume = world.body(h).volume(&world.particles().x);
        (in_file_order(&world.positions(h), order), volume)
    };
    let ((a, va), (b, vb), (c, _)) = (drop(&ordered, 10), drop(&random, 10), drop(&ordered, 20));
    let (gap, error) = (largest_gap(&a, &b), largest_gap(&a, &c));
    assert!(
        error > 0.0 && gap <= error,
        "shuffled {gap} m from ordered; 20 iterations {error} m"
    );
    assert!((va - vb).abs() <= 0.01 * va, "volumes {va} and {vb} m³");
    // It landed: the blob rests on the ground at its thickness (0.01 m), not fallen through
    // nor left in the air.
    let lowest = b.iter().map(|p| p.y).fold(Real::MAX, Real::min);
    assert!((lowest - 0.01).abs() < 1e-3, "lowest point at {lowest} m");
    // The same bits on one and two threads with the colored solver.
    let colored = |threads| {
        let (mut world, h) = blob_world(&random, 10, SolverMethod::Colored);
        on_threads(threads, || world.step_frames(20)).unwrap();
        world.positions(h)
    };
    assert!(colored(1) == colored(2), "the bits differ across threads");
}
