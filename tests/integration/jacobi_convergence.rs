//! The Jacobi solver converges on the standard workload W to within 3x the stretch of the
//! colored solver (its thread independence is in `thread_determinism.rs`).

use crate::common::workload_w;
use supple::params::SolverMethod;
use supple::stats::FrameStats;

#[test]
fn jacobi_stretch_on_w_is_within_3x_of_colored() {
    // W at N = 64 after 2 s: the pins' support reaches the far rows one
    // constraint per Jacobi iteration, so without acceleration Jacobi stretched 5x as much.
    let mean_stretch = |method| {
        let mut world = workload_w(64, method);
        for _ in 0..120 {
            world.step().unwrap();
        }
        FrameStats::measure(&world).mean_strain
    };
    let (jacobi, colored) = (
        mean_stretch(SolverMethod::Jacobi),
        mean_stretch(SolverMethod::Colored),
    );
    assert!(
        jacobi < 3.0 * colored,
        "mean stretch: jacobi {jacobi}, colored {colored}"
    );
}
