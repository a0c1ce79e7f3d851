//! Contacts between two particles (cloth self-collision, and any body against any other),
//! regenerated every substep from the spatial hash.

use super::contact::{ContactMaterial, static_friction, supported};
use super::distance::PairCorrection;
use super::stiffness::{Coeffs, MaterialTable, Stiffness, delta_lambda};
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;

/// The particle-particle contacts of the current substep, one entry per contact in each field,
/// and the one contact material they share.
#[derive(Clone, Debug)]
pub struct ParticleContactSet {
    /// The two particles, lower index first.
    pub ids: Vec<[u32; 2]>,
    /// Contact distance `d` between their centres, m: the mean of their thicknesses.
    pub distance: Vec<Real>,
    /// Relative normal velocity `(v_a − v_b)·n` when the contact was generated, m/s.
    pub normal_velocity: Vec<Real>,
    /// Lagrange multiplier accumulated in the current substep (≥ 0: contacts only push).
    pub lambda: Vec<Real>,
    /// Stiffness of every particle contact: material 0 (default rigid).
    pub materials: MaterialTable,
    /// Friction and restitution between particles.
    pub response: ContactMaterial,
}

impl Default for ParticleContactSet {
    fn default() -> Self {
        let mut materials = MaterialTable::default();
        materials.add(Stiffness::default());
        ParticleContactSet {
            ids: Vec::new(),
            distance: Vec::new(),
            normal_velocity: Vec::new(),
            lambda: Vec::new(),
            materials,
            response: ContactMaterial::default(),
        }
    }
}

/// Projects one particle-particle contact, the inequality
/// `C(p0, p1) = |p0 − p1| − d ≥ 0`, `∇_{p0} C = n`, `∇_{p1} C = −n`, `n = (p0 − p1) / |p0 − p1|`
/// (the particle collision constraint of Macklin et al. 2014, "Unified Particle Physics for
/// Real-Time Applications", sec. 5; XPBD update of Macklin et al. 2016 with the accumulated
/// multiplier clamped to `λ ≥ 0`). Returns `None` for coincident particles, whose normal is
/// undefined.
#[inline]
pub fn solve_particle_contact(
    p0: Vec3,
    w0: Real,
    p1: Vec3,
    w1: Real,
    d: Real,
    lambda: Real,
    k: &Coeffs,
) -> Option<PairCorrection> {
    let diff = p0 - p1;
    let len = diff.norm();
    if len <= Real::EPSILON {
        return None;
    }
    let n = diff / len;
    let c = len - d;
    let dl = (lambda + delta_lambda(c, w0 + w1, None, lambda, k)).max(0.0) - lambda;
    Some(PairCorrection {
        dp0: n * (w0 * k.scale * dl),
        dp1: -n * (w1 * k.scale * dl),
        delta_lambda: dl,
    })
}

impl ParticleContactSet {
    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when there is no contact.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Removes every contact (keeps the material).
    pub fn clear(&mut self) {
        self.ids.clear();
        self.distance.clear();
        self.normal_velocity.clear();
        self.lambda.clear();
    }

    /// Adds a contact between particles `a` and `b` at distance `d` m, approaching at
    /// `normal_velocity` m/s (negative when they close in).
    pub fn push(&mut self, a: u32, b: u32, d: Real, normal_velocity: Real) {
        self.ids.push([a, b]);
        self.distance.push(d);
        self.normal_velocity.push(normal_velocity);
        self.lambda.push(0.0);
    }

    /// Projects every contact in order (skipping those that have not pushed in this substep and
    /// are not closer than their distance); a contact that pushes then applies [`static_friction`]
    /// to the pair's relative displacement over the substep, each particle taking the share
    /// `w_i / (w_a + w_b)` of the take-back (which keeps the pair's momentum). The inverse masses
    /// are those of [`supported`], `up` the unit vector against gravity (zero without gravity).
    pub fn project_serial(&mut self, ps: &mut ParticleSet, up: Vec3) {
        let k = self.materials.coeffs[0];
        let mu_s = self.response.static_friction;
        for c in 0..self.ids.len() {
            let [a, b] = self.ids[c].map(|i| i as usize);
            let (d, lambda) = (self.distance[c], self.lambda[c]);
            let diff = ps.p[a] - ps.p[b];
            let len = diff.norm();
            // A pair that has not pushed and is not closer than `d` gets `Δλ = 0` (and no
            // friction): skip the kernel, most contacts of a resting cloth are such.
            if lambda == 0.0 && len >= d {
                continue;
            }
            let (wa, wb) = supported(diff / len, up, ps.inv_mass[a], ps.inv_mass[b]);
            let Some(r) = solve_particle_contact(ps.p[a], wa, ps.p[b], wb, d, lambda, &k) else {
                continue;
            };
            ps.p[a] += r.dp0;
            ps.p[b] += r.dp1;
            self.lambda[c] += r.delta_lambda;
            let (w, diff) = (wa + wb, ps.p[a] - ps.p[b]);
            let len = diff.norm();
            if self.lambda[c] > 0.0 && w > 0.0 && len > Real::EPSILON {
                let dx = (ps.p[a] - ps.x[a]) - (ps.p[b] - ps.x[b]);
                let depth = w * k.scale * self.lambda[c];
                if let Some(back) = static_friction(dx, diff / len, depth, mu_s) {
                    ps.p[a] -= back * (wa / w);
                    ps.p[b] += back * (wb / w);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_pair_is_pushed_to_the_contact_distance_by_inverse_mass() {
        let (p0, p1) = (Vec3::new(0.01, 0.0, 0.0), Vec3::zeros());
        let r = solve_particle_contact(p0, 1.0, p1, 3.0, 0.02, 0.0, &Coeffs::rigid()).unwrap();
        let (q0, q1) = (p0 + r.dp0, p1 + r.dp1);
        assert!(((q0 - q1).norm() - 0.02).abs() < 1e-7);
        assert!((r.dp0.x - 0.0025).abs() < 1e-7 && (r.dp1.x + 0.0075).abs() < 1e-7);
        // Internal forces keep the mass-weighted centroid: m0 dp0 + m1 dp1 = 0.
        assert!((r.dp0 * 1.0 + r.dp1 / 3.0).norm() < 1e-8);
        // Δλ = −C / (w0 + w1) on a fresh constraint.
        assert!((r.delta_lambda - 0.01 / 4.0).abs() < 1e-8);
    }

    #[test]
    fn separated_pair_is_left_alone_and_coincident_pair_skipped() {
        let r = solve_particle_contact(
            Vec3::x(),
            1.0,
            Vec3::zeros(),
            1.0,
            0.5,
            0.0,
            &Coeffs::rigid(),
        );
        assert_eq!(r.map(|r| r.delta_lambda), Some(0.0));
        let p = Vec3::new(1.0, 2.0, 3.0);
        assert_eq!(
            solve_particle_contact(p, 1.0, p, 1.0, 0.5, 0.0, &Coeffs::rigid()),
            None
        );
    }

    #[test]
    fn gradient_agrees_with_finite_differences() {
        let (p0, p1) = (Vec3::new(0.3, -0.2, 0.1), Vec3::new(-0.1, 0.25, 0.05));
        let c = |p0: Vec3| (p0 - p1).norm() - 1.0;
        // With w1 = 0 the correction of p0 is −C ∇C / |∇C|², so ∇C = −dp0 / C.
        let r = solve_particle_contact(p0, 1.0, p1, 0.0, 1.0, 0.0, &Coeffs::rigid()).unwrap();
        let grad = -r.dp0 / c(p0);
        let eps = 1e-3;
        for axis in 0..3 {
            let mut e = Vec3::zeros();
            e[axis] = eps;
            let fd = (c(p0 + e) - c(p0 - e)) / (2.0 * eps);
            assert!(
                (fd - grad[axis]).abs() < 1e-3,
                "axis {axis}: {fd} vs {}",
                grad[axis]
            );
        }
    }
}
