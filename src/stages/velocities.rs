//! Stage 6: velocity update, with friction and restitution at contacts.

use crate::collision::Collider;
use crate::constraints::ContactSet;
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;
use crate::team::Team;

/// Coulomb friction on a tangential velocity `v_t` given the normal velocity change `Δv_n` the
/// contact applied this substep: static friction removes `v_t` when `|v_t| ≤ μ_s Δv_n`, kinetic
/// friction otherwise removes `μ_k Δv_n` of it (Müller et al. 2020, "Detailed Rigid Body
/// Simulation with Extended Position Based Dynamics", eq. 30). Returns the new tangential
/// velocity and whether the contact sticks.
#[inline]
pub fn apply_friction(
    vt: Vec3,
    dvn: Real,
    static_friction: Real,
    kinetic_friction: Real,
) -> (Vec3, bool) {
    let len = vt.norm();
    if len <= static_friction * dvn {
        (Vec3::zeros(), true)
    } else {
        (vt * (1.0 - (kinetic_friction * dvn).min(len) / len), false)
    }
}

/// Normal velocity after restitution (Müller et al. 2020, eq. 34): a contact that was
/// approaching at `approach = v_n⁻ < 0` m/s before the substep leaves at `−e v_n⁻`, or at 0 when
/// `|v_n⁻| ≤ 2 g h` (`g` = |gravity|, m/s²) so that resting contact does not jitter; a contact
/// that was not approaching keeps its normal velocity `vn`.
#[inline]
pub fn restitution_velocity(approach: Real, vn: Real, e: Real, g: Real, h: Real) -> Real {
    if approach >= 0.0 {
        vn
    } else if -approach <= 2.0 * g * h {
        0.0
    } else {
        -e * approach
    }
}

/// `v ← (p − x) / h` (less the prediction's rounding error), `x ← p`; then, at every contact that pushed (`λ > 0`), friction and
/// restitution:
///
/// - velocities are taken relative to the collider's surface (a kinematic collider drags what
///   it touches);
/// - the normal velocity change is `Δv_n = w s λ / h` (`s` the material's correction scale), and
///   [`apply_friction`] acts on the tangential velocity. A sticking contact also takes back this
///   substep's relative tangential displacement `v_t h`: friction applied to velocities alone would let a
///   resting particle creep down a slope by `g sin θ h²` every substep;
/// - restitution: [`restitution_velocity`].
///
/// The first step is spread over `team`, the contacts are handled on this thread.
pub fn update_velocities(
    ps: &mut ParticleSet,
    contacts: &ContactSet,
    colliders: &[Collider],
    h: Real,
    gravity: Vec3,
    team: &Team,
) {
    let fields = (&mut ps.v[..], &mut ps.x[..], &ps.p[..], &ps.rounding[..]);
    team.for_each_chunk(fields, |_, (v, x, p, rounding)| {
        for (((v, x), p), r) in v.iter_mut().zip(x).zip(p).zip(rounding) {
            *v = ((p - *x) - r) / h;
            *x = *p;
        }
    });
    for c in 0..contacts.len() {
        if contacts.lambda[c] <= 0.0 {
            continue;
        }
        let (i, j) = (contacts.particle[c] as usize, contacts.collider[c] as usize);
        let collider = &colliders[j];
        let (_, n) = collider.shape.distance(ps.x[i]);
        let surface = collider.surface_velocity(ps.x[i]);
        let v = ps.v[i] - surface;
        let vn = n.dot(&v);
        let vt = v - n * vn;
        let dvn = ps.inv_mass[i] * contacts.materials.coeffs[j].scale * contacts.lambda[c] / h;
        let (vt_new, stuck) =
            apply_friction(vt, dvn, collider.static_friction, collider.kinetic_friction);
        if stuck {
            ps.x[i] -= vt * h;
        }
        let vn = restitution_velocity(
            contacts.normal_velocity[c],
            vn,
            collider.restitution,
            gravity.norm(),
            h,
        );
        ps.v[i] = surface + vt_new + n * vn;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn friction_sticks_inside_the_cone_and_slides_outside_it() {
        let vt = Vec3::new(0.3, 0.0, 0.4);
        assert_eq!(apply_friction(vt, 1.0, 0.6, 0.4), (Vec3::zeros(), true));
        let (slid, stuck) = apply_friction(vt, 1.0, 0.4, 0.3);
        assert!(!stuck);
        assert!(
            (slid.norm() - 0.2).abs() < 1e-6,
            "0.5 m/s less 0.3 m/s of kinetic friction"
        );
        assert!((slid.normalize() - vt.normalize()).norm() < 1e-6);
    }

    #[test]
    fn kinetic_friction_never_reverses_the_motion() {
        let (slid, _) = apply_friction(Vec3::x() * 0.1, 1.0, 0.05, 2.0);
        assert_eq!(slid, Vec3::zeros());
    }
}
