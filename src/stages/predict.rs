//! Stage 3: position prediction.

use crate::math::Real;
use crate::particles::ParticleSet;

/// `p ← x + h v` for every particle, remembering the rounding error `(p − x) − h v`.
///
/// In `f32` a displacement `h v` much smaller than `|x|` loses low bits when added to `x`, and
/// the velocity update `v = (p − x) / h` would turn that loss into lost velocity: a body falling
/// from 100 m in 1 ms substeps loses a fifth of its speed in one second. `p − x` is exact
/// (Sterbenz), so the error is known and [`update_velocities`](super::update_velocities) removes
/// it: velocities then evolve as in exact arithmetic, and positions keep only the rounding of each
/// step, which does not accumulate into speed.
pub fn predict_positions(ps: &mut ParticleSet, h: Real) {
    for (((p, r), x), v) in
        ps.p.iter_mut()
            .zip(ps.rounding.iter_mut())
            .zip(&ps.x)
            .zip(&ps.v)
    {
        let step = v * h;
        *p = x + step;
        *r = (*p - x) - step;
    }
}
