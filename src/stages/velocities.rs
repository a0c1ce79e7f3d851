//! Stage 6: velocity update, with friction and restitution at contacts.

use crate::collision::Collider;
use crate::constraints::ContactSet;
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;

/// `v ← (p − x) / h`, `x ← p`; then, at every contact that pushed (`λ > 0`), Coulomb friction and
/// restitution on the velocity (Müller et al. 2020, "Detailed Rigid Body Simulation with Extended
/// Position Based Dynamics", sec. 3.6, for a particle against a static body):
///
/// - the normal impulse per unit mass is `Δv_n = w s λ / h` (`s` the material's correction scale);
/// - static friction: if `|v_t| ≤ μ_s Δv_n` the tangential velocity is removed;
///   otherwise kinetic friction removes `min(μ_k Δv_n, |v_t|)` of it;
/// - restitution: an approaching normal velocity `v_n⁻ < 0` (measured before the substep) becomes
///   `−e v_n⁻`, or 0 when `|v_n⁻| ≤ 2 |g| h` so that resting contact does not jitter.
pub fn update_velocities(
    ps: &mut ParticleSet,
    contacts: &ContactSet,
    colliders: &[Collider],
    h: Real,
    gravity: Vec3,
) {
    for ((v, x), p) in ps.v.iter_mut().zip(ps.x.iter_mut()).zip(&ps.p) {
        *v = (p - *x) / h;
        *x = *p;
    }
    for c in 0..contacts.len() {
        if contacts.lambda[c] <= 0.0 {
            continue;
        }
        let (i, j) = (contacts.particle[c] as usize, contacts.collider[c] as usize);
        let collider = &colliders[j];
        let (_, n) = collider.shape.distance(ps.x[i]);
        let v = ps.v[i];
        let vn = n.dot(&v);
        let mut vt = v - n * vn;
        let dvn = ps.inv_mass[i] * contacts.materials.coeffs[j].scale * contacts.lambda[c] / h;
        let vt_len = vt.norm();
        if vt_len <= collider.static_friction * dvn {
            vt = Vec3::zeros();
        } else if vt_len > 0.0 {
            vt -= vt * ((collider.kinetic_friction * dvn).min(vt_len) / vt_len);
        }
        let approach = contacts.normal_velocity[c];
        let vn = if approach < 0.0 {
            if -approach <= 2.0 * gravity.norm() * h {
                0.0
            } else {
                -collider.restitution * approach
            }
        } else {
            vn
        };
        ps.v[i] = vt + n * vn;
    }
}
