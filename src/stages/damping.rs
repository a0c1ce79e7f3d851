//! Stage 1: velocity damping (before the forces, so that it does not scale a static load).

use crate::bodies::Body;
use crate::math::{Mat3, Real, Vec3};
use crate::params::fraction_over;
use crate::particles::ParticleSet;
use std::ops::Range;

/// Global linear damping `v ← v·exp(−c h)` (`c` in 1/s), then each body's Müller damping with
/// its fraction `k` per [`RATE_TIME`](crate::params::RATE_TIME) turned into the fraction
/// [`fraction_over`]`(k, h)` per substep: both decay by the same factor per second at any
/// substep count.
///
/// The step runs it before the external forces, on the velocities the previous substep left:
/// damped after gravity, a resting body's velocity `g h` would lose `exp(−c h)` of it every
/// substep, and its weight on what holds it with it.
pub fn apply_damping(ps: &mut ParticleSet, bodies: &[Body], c: Real, h: Real) {
    if c > 0.0 {
        let factor = (-c * h).exp();
        ps.v.iter_mut().for_each(|v| *v *= factor);
    }
    for body in bodies.iter().filter(|b| b.damping > 0.0) {
        damp_non_rigid(ps, body.particles.clone(), fraction_over(body.damping, h));
    }
}

/// Removes the fraction `k` of the velocity that is not rigid motion (Müller et al. 2007,
/// "Position Based Dynamics", sec. 3.5): with `x_cm`, `v_cm` the mass-weighted centre and
/// velocity, `L = Σ rᵢ × mᵢvᵢ`, `I = Σ mᵢ r̃ᵢ r̃ᵢᵀ = Σ mᵢ (|rᵢ|² E − rᵢrᵢᵀ)` and `ω = I⁻¹L`, every
/// particle gets `vᵢ += k (v_cm + ω × rᵢ − vᵢ)`. Pinned particles are left out. A body whose
/// inertia is singular (a straight rope) uses the pseudo-inverse, which keeps the spin it can
/// have.
///
/// Two passes over the particles, each taking a particle's mass once (one division, where the
/// sums took four and the cross-product matrix `r̃ r̃ᵀ` 27 multiplications).
pub fn damp_non_rigid(ps: &mut ParticleSet, range: Range<usize>, k: Real) {
    let free = || range.clone().filter(|&i| ps.inv_mass[i] > 0.0);
    let (mut mass, mut mx, mut mv) = (0.0, Vec3::zeros(), Vec3::zeros());
    for i in free() {
        let m = 1.0 / ps.inv_mass[i];
        (mass, mx, mv) = (mass + m, mx + ps.x[i] * m, mv + ps.v[i] * m);
    }
    if mass <= 0.0 {
        return;
    }
    let (x_cm, v_cm) = (mx / mass, mv / mass);
    // `L`, `Σ mᵢ|rᵢ|²` and the upper triangle of `Σ mᵢ rᵢrᵢᵀ`.
    let (mut l, mut r_sq, mut rr) = (Vec3::zeros(), 0.0, [0.0; 6]);
    for i in free() {
        let m = 1.0 / ps.inv_mass[i];
        let r = ps.x[i] - x_cm;
        l += r.cross(&ps.v[i]) * m;
        let mr = r * m;
        r_sq += mr.dot(&r);
        let terms = [
            mr.x * r.x,
            mr.x * r.y,
            mr.x * r.z,
            mr.y * r.y,
            mr.y * r.z,
            mr.z * r.z,
        ];
        rr.iter_mut().zip(terms).for_each(|(a, t)| *a += t);
    }
    let [xx, xy, xz, yy, yz, zz] = rr;
    let inertia = Mat3::new(
        r_sq - xx,
        -xy,
        -xz,
        -xy,
        r_sq - yy,
        -yz,
        -xz,
        -yz,
        r_sq - zz,
    );
    let omega = inverse_inertia(&inertia).map_or(Vec3::zeros(), |inv| inv * l);
    for i in range.filter(|&i| ps.inv_mass[i] > 0.0) {
        let rigid = v_cm + omega.cross(&(ps.x[i] - x_cm));
        let v = ps.v[i];
        ps.v[i] = v + (rigid - v) * k;
    }
}

/// The inverse of an inertia tensor (symmetric, positive semi-definite), or its pseudo-inverse
/// when it is singular or nearly so (its determinant below `1e-6` of the cube of its mean
/// diagonal, so that the plain inverse would amplify rounding): the inverse costs a few dozen
/// operations where the pseudo-inverse takes a singular value decomposition.
fn inverse_inertia(inertia: &Mat3) -> Option<Mat3> {
    let scale = inertia.trace() / 3.0;
    let well_conditioned = inertia.determinant() > 1e-6 * scale * scale * scale;
    match well_conditioned {
        true => inertia.try_inverse(),
        false => inertia.pseudo_inverse(1e-9).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spinning_square() -> ParticleSet {
        let mut ps = ParticleSet::default();
        for (x, z) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            ps.push(Vec3::new(x, 0.0, z), 1.0, 0.01, 0);
        }
        let omega = Vec3::new(0.0, 2.0, 0.0);
        for i in 0..4 {
            ps.v[i] = Vec3::new(0.5, 0.0, 0.0) + omega.cross(&ps.x[i]);
        }
        ps
    }

    #[test]
    fn rigid_motion_is_untouched() {
        let mut ps = spinning_square();
        let before = ps.v.clone();
        damp_non_rigid(&mut ps, 0..4, 1.0);
        for (a, b) in ps.v.iter().zip(&before) {
            assert!((a - b).norm() < 1e-5, "{a} vs {b}");
        }
    }

    #[test]
    fn full_damping_removes_all_deformation_velocity() {
        let mut ps = spinning_square();
        let rigid = ps.v.clone();
        // Stretch the square outward: pure deformation.
        for i in 0..4 {
            ps.v[i] += ps.x[i] * 0.3;
        }
        damp_non_rigid(&mut ps, 0..4, 1.0);
        for (a, b) in ps.v.iter().zip(&rigid) {
            assert!((a - b).norm() < 1e-5);
        }
    }

    #[test]
    fn inertia_is_inverted_and_a_straight_rope_s_pseudo_inverted() {
        // A rope along x: no moment about its axis.
        let rope = Mat3::from_diagonal(&Vec3::new(0.0, 2.0, 2.0));
        let inv = inverse_inertia(&rope).unwrap();
        assert!((inv - Mat3::from_diagonal(&Vec3::new(0.0, 0.5, 0.5))).norm() < 1e-6);
        // A square plate's tensor, turned: the plain inverse.
        let plate = Mat3::new(2.0, 0.5, 0.0, 0.5, 2.0, 0.0, 0.0, 0.0, 4.0);
        let inv = inverse_inertia(&plate).unwrap();
        assert!((inv * plate - Mat3::identity()).norm() < 1e-6);
    }

    #[test]
    fn global_damping_decays_exponentially() {
        let mut ps = spinning_square();
        let v0 = ps.v[0];
        apply_damping(&mut ps, &[], 2.0, 0.5);
        assert!((ps.v[0] - v0 * (-1.0f32).exp()).norm() < 1e-6);
    }
}
