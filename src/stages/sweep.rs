//! Stage 3b: continuous collision against colliders, so that a fast particle cannot step
//! through a collider thinner than its displacement in one substep.

use crate::collision::Collider;
use crate::math::Real;
use crate::particles::ParticleSet;

/// Spacing of the samples along a swept path, as a fraction of the particle's radius.
const SAMPLE_SPACING: Real = 0.5;

/// Samples the path `x → p` of every free particle that moves more than half its radius `r` in
/// this substep, every `r / 2` or closer, against every collider at its current pose; if a sample
/// is inside a collider (signed distance < 0), the prediction `p` is pulled back to the sample
/// before it, which is outside. The contact generated next then stops the particle on the side
/// it came from. A collider thinner than `r / 2` along the path can still be stepped over; slow
/// particles cost one length test.
pub fn sweep_colliders(ps: &mut ParticleSet, colliders: &[Collider]) {
    if colliders.is_empty() {
        return;
    }
    for i in (0..ps.len()).filter(|&i| ps.inv_mass[i] > 0.0) {
        let (x, path) = (ps.x[i], ps.p[i] - ps.x[i]);
        let spacing = SAMPLE_SPACING * ps.radius[i];
        let len = path.norm();
        if len <= spacing {
            continue;
        }
        let n = (len / spacing).ceil() as u32;
        let at = |k: u32| x + path * (k as Real / n as Real);
        if let Some(k) =
            (1..=n).find(|&k| colliders.iter().any(|c| c.shape.distance(at(k)).0 < 0.0))
        {
            ps.p[i] = at(k - 1);
        }
    }
}
