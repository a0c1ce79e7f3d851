//! Stage 3: position prediction.

use crate::math::Real;
use crate::particles::ParticleSet;

/// `p ← x + h v` for every particle.
pub fn predict_positions(ps: &mut ParticleSet, h: Real) {
    for ((p, x), v) in ps.p.iter_mut().zip(&ps.x).zip(&ps.v) {
        *p = x + v * h;
    }
}
