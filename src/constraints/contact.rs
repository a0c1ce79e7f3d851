//! Contact constraints between particles and static colliders, regenerated every substep.

use super::stiffness::{Coeffs, MaterialTable, delta_lambda};
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;

/// How a contact responds: Coulomb friction (static in the position solve, see
/// [`static_friction`]; kinetic in the velocity update) and restitution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactMaterial {
    /// Coulomb static friction coefficient (default 0.3).
    pub static_friction: Real,
    /// Coulomb kinetic friction coefficient (default 0.3).
    pub kinetic_friction: Real,
    /// Coefficient of restitution in [0, 1] (default 0: contacts do not bounce).
    pub restitution: Real,
}

/// Default Coulomb friction coefficient of a contact, static and kinetic.
pub const DEFAULT_FRICTION: Real = 0.3;

impl Default for ContactMaterial {
    fn default() -> Self {
        ContactMaterial {
            static_friction: DEFAULT_FRICTION,
            kinetic_friction: DEFAULT_FRICTION,
            restitution: 0.0,
        }
    }
}

/// The contacts of the current substep, one entry per contact in each field.
#[derive(Clone, Debug, Default)]
pub struct ContactSet {
    /// The particle in contact.
    pub particle: Vec<u32>,
    /// The collider it touches (index into the world's colliders, and into `materials`).
    pub collider: Vec<u32>,
    /// Normal velocity of the particle when the contact was generated, m/s (for restitution).
    pub normal_velocity: Vec<Real>,
    /// The collider's tangent plane where the contact was generated, `(n, o)`: the outward unit
    /// normal and the offset, so that `φ(p) ≈ n·p − o` near the contact (m).
    pub plane: Vec<(Vec3, Real)>,
    /// Lagrange multiplier accumulated in the current substep (≥ 0: contacts only push).
    pub lambda: Vec<Real>,
    /// Stiffness per collider.
    pub materials: MaterialTable,
}

/// Projects one contact, the inequality `C(p) = φ(p) − r ≥ 0` with `φ` the collider's signed
/// distance, `∇C = n` its outward normal and `r` the particle's collision distance (Müller et al.
/// 2007 sec. 4.2; XPBD update of Macklin et al. 2016 with the accumulated multiplier clamped to
/// `λ ≥ 0`, Macklin et al. 2014 "Unified Particle Physics" sec. 4). Returns the correction of `p`
/// and `Δλ`.
#[inline]
pub fn solve_contact(c: Real, n: Vec3, w: Real, lambda: Real, k: &Coeffs) -> (Vec3, Real) {
    let dl = (lambda + delta_lambda(c, w, None, lambda, k)).max(0.0) - lambda;
    (n * (w * k.scale * dl), dl)
}

/// Static friction inside the position solve (Macklin et al. 2014, "Unified Particle Physics for
/// Real-Time Applications", sec. 6.1; Müller et al. 2020, "Detailed Rigid Body Simulation with
/// Extended Position Based Dynamics", eqs. 22–26): a contact of unit normal `n` that has pushed
/// the two sides apart by `depth` m in this substep (its normal correction `w s λ`) holds when
/// the tangential part `Δx_t` of their relative displacement `dx` over the substep is within the
/// friction cone, `|Δx_t| ≤ μ_s depth`. Returns `Δx_t`, the displacement to take back, or `None`
/// when the contact slides (kinetic friction then acts on the velocities).
#[inline]
pub fn static_friction(dx: Vec3, n: Vec3, depth: Real, mu_s: Real) -> Option<Vec3> {
    let dx_t = dx - n * n.dot(&dx);
    (dx_t.norm() <= mu_s * depth).then_some(dx_t)
}

/// Cosine of the largest angle between a contact's normal and the vertical at which its lower
/// side is taken as the support of the upper one ([`supported`]): 60°.
pub const SUPPORT_COS: Real = 0.5;

/// The inverse masses `(w_a, w_b)` that a contact between two bodies uses in its projection and
/// velocity response, given their true ones and the contact's unit normal `n` from side b to
/// side a: shock propagation (Guendelman, Bridson and Fedkiw 2003, "Nonconvex Rigid Bodies with
/// Stacking", sec. 7; the mass scaling for stacks of Macklin et al. 2014, "Unified Particle
/// Physics for Real-Time Applications"). When one side carries the other (`n` within
/// `acos(SUPPORT_COS)` of `up`, the unit vector against gravity, or of `−up`) and is the lighter,
/// it takes the inverse mass of the side it carries: the correction is shared equally instead of
/// moving nearly only the light side, which Gauss-Seidel cannot carry back through its other
/// constraints (a 200 kg box's particle on a 0.125 g cloth particle moved the cloth 4,000 times
/// as far as the box, and the box sank through the hammock's stretch). The support then acts as
/// though its own constraints held it: exact for a support held by stiff constraints (an
/// inextensible hammock), but a compliant support (an elastic hammock) feels only `m_b w_a` of
/// the load. A side with zero inverse mass (pinned) keeps it, and contacts within a body of one
/// mass are unchanged (same bits).
#[inline]
pub fn supported(n: Vec3, up: Vec3, w_a: Real, w_b: Real) -> (Real, Real) {
    let n_up = n.dot(&up);
    if n_up >= SUPPORT_COS && w_b > w_a && w_a > 0.0 {
        (w_a, w_a)
    } else if -n_up >= SUPPORT_COS && w_a > w_b && w_b > 0.0 {
        (w_b, w_b)
    } else {
        (w_a, w_b)
    }
}

/// The unit vector against `gravity` that [`supported`] takes as up: zero without gravity, so
/// that no side carries the other.
pub fn up(gravity: Vec3) -> Vec3 {
    -gravity.try_normalize(0.0).unwrap_or_else(Vec3::zeros)
}

impl ContactSet {
    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.particle.len()
    }

    /// True when there is no contact.
    pub fn is_empty(&self) -> bool {
        self.particle.is_empty()
    }

    /// Removes every contact (keeps the materials).
    pub fn clear(&mut self) {
        self.particle.clear();
        self.collider.clear();
        self.normal_velocity.clear();
        self.plane.clear();
        self.lambda.clear();
    }

    /// Adds a contact of `particle` with `collider`, whose tangent plane there is `plane`.
    pub fn push(
        &mut self,
        particle: u32,
        collider: u32,
        normal_velocity: Real,
        plane: (Vec3, Real),
    ) {
        self.particle.push(particle);
        self.collider.push(collider);
        self.normal_velocity.push(normal_velocity);
        self.plane.push(plane);
        self.lambda.push(0.0);
    }

    /// Projects every contact in order, with the signed distance `φ(p) = n·p − o` of its
    /// tangent plane: the side of the collider where the contact was generated, which a
    /// particle that other constraints pull deep into a thin collider is pushed back to (the
    /// closest point would push it out of the far side). A contact that pushes then applies
    /// [`static_friction`] to the particle's displacement relative to the surface, `surface(j, x)`
    /// giving the displacement over the substep of collider `j`'s surface at `x` and its static
    /// friction coefficient.
    pub fn project_serial(
        &mut self,
        ps: &mut ParticleSet,
        surface: impl Fn(usize, Vec3) -> (Vec3, Real),
    ) {
        for c in 0..self.particle.len() {
            let (i, j) = (self.particle[c] as usize, self.collider[c] as usize);
            let (n, o) = self.plane[c];
            let phi = n.dot(&ps.p[i]) - o;
            let (w, k) = (ps.inv_mass[i], &self.materials.coeffs[j]);
            let (dp, dl) = solve_contact(phi - ps.radius[i], n, w, self.lambda[c], k);
            ps.p[i] += dp;
            self.lambda[c] += dl;
            if self.lambda[c] > 0.0 {
                let (motion, mu_s) = surface(j, ps.x[i]);
                let dx = (ps.p[i] - ps.x[i]) - motion;
                let depth = w * k.scale * self.lambda[c];
                if let Some(back) = static_friction(dx, n, depth, mu_s) {
                    ps.p[i] -= back;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_light_support_takes_the_inverse_mass_of_what_it_carries() {
        let up = Vec3::y();
        // Side a (w = 2) rests on side b (w = 8000): b carries a, whichever is listed first.
        assert_eq!(supported(up, up, 2.0, 8000.0), (2.0, 2.0));
        assert_eq!(supported(-up, up, 8000.0, 2.0), (2.0, 2.0));
        // Within 60° of the vertical, not beyond; a heavy support, equal masses, a pinned side
        // and no gravity are left as they are.
        let tilted = |deg: Real| Vec3::new(deg.to_radians().sin(), deg.to_radians().cos(), 0.0);
        assert_eq!(supported(tilted(59.0), up, 2.0, 8000.0), (2.0, 2.0));
        assert_eq!(supported(tilted(61.0), up, 2.0, 8000.0), (2.0, 8000.0));
        assert_eq!(supported(up, up, 8000.0, 2.0), (8000.0, 2.0));
        assert_eq!(supported(up, up, 5.0, 5.0), (5.0, 5.0));
        assert_eq!(supported(up, up, 0.0, 8000.0), (0.0, 8000.0));
        assert_eq!(supported(up, Vec3::zeros(), 2.0, 8000.0), (2.0, 8000.0));
    }

    #[test]
    fn penetrating_particle_is_pushed_to_the_surface() {
        let k = Coeffs::rigid();
        let (dp, dl) = solve_contact(-0.03, Vec3::y(), 2.0, 0.0, &k);
        assert!((dp - Vec3::y() * 0.03).norm() < 1e-7);
        assert!(dl > 0.0);
    }

    #[test]
    fn separated_particle_is_left_alone() {
        let k = Coeffs::rigid();
        assert_eq!(
            solve_contact(0.05, Vec3::y(), 1.0, 0.0, &k),
            (Vec3::zeros(), 0.0)
        );
    }

    #[test]
    fn static_friction_holds_inside_the_cone_only() {
        let dx = Vec3::new(0.003, -0.01, 0.004);
        // Tangential displacement 5 mm; pushed out by 10 mm: held by μ_s ≥ 0.5.
        let back = static_friction(dx, Vec3::y(), 0.01, 0.6).unwrap();
        assert!((back - Vec3::new(0.003, 0.0, 0.004)).norm() < 1e-9);
        assert_eq!(static_friction(dx, Vec3::y(), 0.01, 0.4), None);
    }

    #[test]
    fn contact_never_pulls_back_more_than_it_pushed() {
        let k = Coeffs::rigid();
        // Pushed out by 0.03 earlier (λ = 0.015 with w = 2), now 0.05 clear: it may only release λ.
        let (dp, dl) = solve_contact(0.05, Vec3::y(), 2.0, 0.015, &k);
        assert!((dl + 0.015).abs() < 1e-7);
        assert!((dp.y + 0.03).abs() < 1e-7);
    }
}
