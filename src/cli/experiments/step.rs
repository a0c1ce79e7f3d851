//! The standard workload W ([`ClothDesc::workload_w`](crate::ClothDesc::workload_w)) and the step
//! benchmark run on it.
//!
//! W is an N x N cloth, a 1 m square lying flat in the XZ plane at y = 0 with spacing 1/(N-1),
//! pinned at particles 0 and N-1 (the two corners of the j = 0 edge), every other particle of
//! mass 1/N²; hard (XPBD compliance 0) distance constraints on every triangle edge and between the
//! two opposite vertices of every pair of triangles sharing an edge; gravity only; 1/60 s frames
//! of 10 substeps x 10 iterations.

use super::scenes::median_frame;
use crate::constraints::Stiffness;
use crate::params::{SolverMethod, SolverParams};
use crate::solver::simd::{self, SimdPath};
use crate::stats::FrameStats;
use crate::world::{SimError, World};

/// Frames simulated before timing starts.
pub const WARMUP_FRAMES: u32 = 10;
/// Frames timed (with the warm-up, 2 s at 60 Hz).
pub const TIMED_FRAMES: u32 = 110;

/// Builds workload W with `n` x `n` particles, projected with `method`: every constraint rigid
/// (XPBD compliance 0), the default solver settings otherwise.
pub fn workload_w(n: u32, method: SolverMethod) -> World {
    let params = SolverParams {
        method,
        ..SolverParams::default()
    };
    crate::cli::experiments::stiffness::cloth_w(n, Stiffness::default(), params)
}

/// One row of the step benchmark.
#[derive(Clone, Debug, PartialEq)]
pub struct StepResult {
    /// Particles per side.
    pub n: u32,
    /// Projection method.
    pub method: SolverMethod,
    /// Threads of the rayon pool the benchmark ran in.
    pub threads: usize,
    /// Median wall time of one timed frame, ms.
    pub ms_per_frame: f64,
    /// `ms_per_frame` divided by the constraint projections of a frame (constraints x substeps x
    /// iterations), ns.
    pub ns_per_projection: f64,
    /// Largest `|ℓ − d| / d` over the stretch constraints after the last frame.
    pub max_stretch: f64,
    /// Mean `|ℓ − d| / d` over the stretch constraints after the last frame.
    pub mean_stretch: f64,
    /// The instruction set the batched kernels ran with (see [`simd::path`]).
    pub simd: SimdPath,
}

/// Runs W at `n` with `method` in the current rayon pool: [`WARMUP_FRAMES`] frames, then `frames`
/// timed frames; the quality is measured after the last one.
pub fn bench_w(n: u32, method: SolverMethod, frames: u32) -> Result<StepResult, SimError> {
    let mut world = workload_w(n, method);
    let (ms_per_frame, _) = median_frame(&mut world, frames)?;
    let p = &world.params;
    let cs = &world.constraints;
    let projections = (cs.stretch.len() + cs.bend_distance.len()) as f64
        * f64::from(p.substeps)
        * f64::from(p.iterations);
    let stats = FrameStats::measure(&world);
    Ok(StepResult {
        n,
        method,
        threads: rayon::current_num_threads(),
        ms_per_frame,
        ns_per_projection: 1e6 * ms_per_frame / projections,
        max_stretch: f64::from(stats.max_strain),
        mean_stretch: f64::from(stats.mean_strain),
        simd: simd::path(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;

    #[test]
    fn w64_has_the_constraint_counts_of_the_workload() {
        let world = workload_w(64, SolverMethod::Colored);
        let (ps, cs) = (&world.particles, &world.constraints);
        assert_eq!(ps.len(), 4096);
        assert_eq!(cs.stretch.len(), 12_033);
        assert_eq!(cs.bend_distance.len(), 11_781);
        // Slabs of rows: only neighbouring slabs share particles, so even and odd slabs.
        for blocks in [cs.stretch.blocks(), cs.bend_distance.blocks()] {
            assert_eq!(blocks.colors, vec![vec![0, 2], vec![1, 3]]);
        }
        assert_eq!(cs.dihedral.len(), 0);
        assert_eq!(ps.inv_mass[0], 0.0);
        assert_eq!(ps.inv_mass[63], 0.0);
        assert!((ps.inv_mass[1] - 4096.0).abs() < 1e-3);
        assert_eq!(ps.inv_mass.iter().filter(|&&w| w == 0.0).count(), 2);
        assert!((ps.x[63] - Vec3::new(1.0, 0.0, 0.0)).norm() < 1e-6);
        assert!((ps.x[64] - Vec3::new(0.0, 0.0, 1.0 / 63.0)).norm() < 1e-6);
    }

    #[test]
    fn a_family_of_one_block_is_projected_alike_by_both_methods() {
        // N = 8: each family is under `2 * MIN_BLOCK_LEN`, so one block, one color.
        let mut gs = workload_w(8, SolverMethod::GaussSeidel);
        let mut colored = workload_w(8, SolverMethod::Colored);
        for blocks in [
            colored.constraints.stretch.blocks(),
            colored.constraints.bend_distance.blocks(),
        ] {
            assert_eq!(blocks.colors, vec![vec![0]]);
        }
        for _ in 0..3 {
            gs.step().unwrap();
            colored.step().unwrap();
        }
        assert_eq!(gs.particles.x, colored.particles.x);
    }
}
