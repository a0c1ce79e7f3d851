//! What several integration tests and benches build the same way.

use supple::{ClothDesc, SolverMethod, SolverParams, Stiffness, World};

/// Workload W (`ClothDesc::workload_w`) at `n` x `n`, every constraint rigid, projected with
/// `method`, the default solver settings otherwise.
pub fn workload_w(n: u32, method: SolverMethod) -> World {
    let params = SolverParams {
        method,
        ..SolverParams::default()
    };
    let mut world = World::new(params).unwrap();
    world
        .add_cloth(&ClothDesc::workload_w(n, Stiffness::default()))
        .unwrap();
    world
}

/// Runs `f` in a rayon pool of `threads` threads: the colored and Jacobi solvers' teams take
/// their members from the pool they step in.
pub fn on_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}
