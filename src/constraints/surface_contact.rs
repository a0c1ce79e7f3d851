//! Contacts between a particle and a point of another body's surface triangle (the skinned
//! surface of a soft body with tets, or the particles of a `surface` soft body), regenerated
//! every substep by `generate_surface_contacts` (`src/stages/contacts.rs`).
//!
//! The surface point is a fixed linear combination `c = Σⱼ βⱼ xⱼ` of at most
//! [`SURFACE_PARTICLES`] particles: the barycentric coordinates of the contact point in its
//! triangle times each corner's skinning weights in its tet. With the normal fixed when the
//! contact is generated, the constraint is linear in the positions, so its gradient is exact.

use super::contact::{static_friction, supported};
use super::stiffness::{Coeffs, delta_lambda};
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;

/// Most particles that a surface point depends on: three triangle corners, each skinned in a
/// tet of four particles.
pub const SURFACE_PARTICLES: usize = 12;

/// The particle-surface contacts of the current substep, one entry per contact in each field.
#[derive(Clone, Debug, Default)]
pub struct SurfaceContactSet {
    /// The particle that touches the surface.
    pub particle: Vec<u32>,
    /// The particles of the surface point (unused slots have weight 0).
    pub ids: Vec<[u32; SURFACE_PARTICLES]>,
    /// The weight `βⱼ` of each of those particles in the surface point (they sum to 1).
    pub weights: Vec<[Real; SURFACE_PARTICLES]>,
    /// Unit normal of the surface at the contact, pointing to the side the particle must be on.
    pub normal: Vec<Vec3>,
    /// Distance the particle must keep from the surface, m: the mean of the two bodies'
    /// thicknesses, as in a particle-particle contact.
    pub distance: Vec<Real>,
    /// Lagrange multiplier accumulated in the current substep (≥ 0: contacts only push).
    pub lambda: Vec<Real>,
    /// The particle contacts' coefficients and static friction in the current substep, which
    /// these contacts share.
    pub stiffness: (Coeffs, Real),
}

/// Position corrections of a particle-surface contact: the particle moves by `dq`, surface
/// particle `j` by `−wⱼ βⱼ g`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceCorrection {
    /// Correction of the particle, m.
    pub dq: Vec3,
    /// Correction of the surface per unit of `wⱼ βⱼ`, m·kg.
    pub g: Vec3,
    /// Change of the multiplier.
    pub delta_lambda: Real,
}

/// The inverse mass of a surface point `Σ βⱼ xⱼ` along the contact normal: `Σ wⱼ βⱼ²` of its
/// particles' inverse masses `w` and weights `beta`, 1/kg.
#[inline]
pub fn surface_inverse_mass(
    w: &[Real; SURFACE_PARTICLES],
    beta: &[Real; SURFACE_PARTICLES],
) -> Real {
    (0..SURFACE_PARTICLES)
        .map(|j| w[j] * beta[j] * beta[j])
        .sum::<Real>()
}

/// Projects one particle-surface contact, the inequality
/// `C(q, x₀ … x₁₁) = n·(q − Σⱼ βⱼ xⱼ) − d ≥ 0`, `∇_q C = n`, `∇_{xⱼ} C = −βⱼ n`: the
/// vertex-triangle collision constraint of Bridson, Fedkiw and Anderson 2002 ("Robust Treatment
/// of Collisions, Contact and Friction for Cloth Animation", sec. 7.1), with the triangle's
/// corners skinned in tets; XPBD update of Macklin et al. 2016 with the accumulated multiplier
/// clamped to `λ ≥ 0`. Returns `None` when nothing can move (`w_q + Σ wⱼ βⱼ² = 0`).
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn solve_surface_contact(
    q: Vec3,
    w_q: Real,
    x: &[Vec3; SURFACE_PARTICLES],
    w: &[Real; SURFACE_PARTICLES],
    beta: &[Real; SURFACE_PARTICLES],
    n: Vec3,
    d: Real,
    lambda: Real,
    k: &Coeffs,
) -> Option<SurfaceCorrection> {
    let w_grad_sq = w_q + surface_inverse_mass(w, beta);
    if w_grad_sq <= 0.0 {
        return None;
    }
    let c_point: Vec3 = (0..SURFACE_PARTICLES).map(|j| x[j] * beta[j]).sum();
    let c = n.dot(&(q - c_point)) - d;
    let dl = (lambda + delta_lambda(c, w_grad_sq, None, lambda, k)).max(0.0) - lambda;
    let g = n * (k.scale * dl);
    Some(SurfaceCorrection {
        dq: g * w_q,
        g,
        delta_lambda: dl,
    })
}

impl SurfaceContactSet {
    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.particle.len()
    }

    /// True when there is no contact.
    pub fn is_empty(&self) -> bool {
        self.particle.is_empty()
    }

    /// The inverse masses `(w_q, [wⱼ])` that contact `c` uses, from the particles' true ones
    /// `inv_mass`: [`supported`] with the surface point's `Σ wⱼ βⱼ²` as the surface side's (its
    /// particles scaled alike), `up` the unit vector against gravity (zero without gravity).
    pub fn inverse_masses(
        &self,
        c: usize,
        inv_mass: &[Real],
        up: Vec3,
    ) -> (Real, [Real; SURFACE_PARTICLES]) {
        let (beta, w) = (&self.weights[c], self.ids[c].map(|j| inv_mass[j as usize]));
        let w_s = surface_inverse_mass(&w, beta);
        match supported(self.normal[c], up, inv_mass[self.particle[c] as usize], w_s) {
            (w_q, s) if s != w_s => (w_q, w.map(|w| w * (s / w_s))),
            (w_q, _) => (w_q, w),
        }
    }

    /// Removes every contact.
    pub fn clear(&mut self) {
        self.particle.clear();
        self.ids.clear();
        self.weights.clear();
        self.normal.clear();
        self.distance.clear();
        self.lambda.clear();
    }

    /// Adds a contact of particle `q` with the surface point `Σ weights[j] · x[ids[j]]`, to be
    /// kept `distance` m away along the unit `normal`.
    pub fn push(
        &mut self,
        q: u32,
        ids: [u32; SURFACE_PARTICLES],
        weights: [Real; SURFACE_PARTICLES],
        normal: Vec3,
        distance: Real,
    ) {
        self.particle.push(q);
        self.ids.push(ids);
        self.weights.push(weights);
        self.normal.push(normal);
        self.distance.push(distance);
        self.lambda.push(0.0);
    }

    /// Projects every contact in order with the stiffness `k`; a contact that pushes then
    /// applies [`static_friction`] (coefficient `mu_s`) to the relative displacement over the
    /// substep of the particle and its surface point, the particle taking the share `w_q / W` of
    /// the take-back and surface particle `j` the share `−wⱼ βⱼ / W`, `W = w_q + Σⱼ wⱼ βⱼ²`
    /// (which keeps momentum). The inverse masses are those of [`inverse_masses`](Self::inverse_masses), `up` the
    /// unit vector against gravity (zero without gravity).
    pub fn project_serial(&mut self, ps: &mut ParticleSet, k: &Coeffs, mu_s: Real, up: Vec3) {
        for c in 0..self.len() {
            let (q, ids, beta) = (self.particle[c] as usize, &self.ids[c], &self.weights[c]);
            let x = ids.map(|j| ps.p[j as usize]);
            let n = self.normal[c];
            let (w_q, w) = self.inverse_masses(c, &ps.inv_mass, up);
            let (d, lambda) = (self.distance[c], self.lambda[c]);
            let Some(r) = solve_surface_contact(ps.p[q], w_q, &x, &w, beta, n, d, lambda, k) else {
                continue;
            };
            ps.p[q] += r.dq;
            for j in 0..SURFACE_PARTICLES {
                ps.p[ids[j] as usize] -= r.g * (w[j] * beta[j]);
            }
            self.lambda[c] += r.delta_lambda;
            let total = w_q + surface_inverse_mass(&w, beta);
            if self.lambda[c] <= 0.0 || total <= 0.0 {
                continue;
            }
            let moved = |i: usize| ps.p[i] - ps.x[i];
            let surface: Vec3 = (0..SURFACE_PARTICLES)
                .map(|j| moved(ids[j] as usize) * beta[j])
                .sum();
            let depth = total * k.scale * self.lambda[c];
            if let Some(back) = static_friction(moved(q) - surface, n, depth, mu_s) {
                ps.p[q] -= back * (w_q / total);
                for j in 0..SURFACE_PARTICLES {
                    ps.p[ids[j] as usize] += back * (w[j] * beta[j] / total);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A surface point halfway between particles 0 and 1 (the other slots unused), weights
    /// `w`, and a particle 1 cm above it along +y.
    fn case(w: [Real; 2]) -> ([Vec3; SURFACE_PARTICLES], [Real; 12], [Real; 12]) {
        let mut x = [Vec3::zeros(); SURFACE_PARTICLES];
        let (mut wt, mut beta) = ([0.0; 12], [0.0; 12]);
        x[0] = Vec3::new(-0.1, 0.0, 0.0);
        x[1] = Vec3::new(0.1, 0.0, 0.0);
        wt[..2].copy_from_slice(&w);
        beta[..2].copy_from_slice(&[0.5, 0.5]);
        (x, wt, beta)
    }

    #[test]
    fn rigid_contact_reaches_its_distance_and_keeps_momentum() {
        let (x, w, beta) = case([2.0, 2.0]);
        let q = Vec3::new(0.0, 0.01, 0.0);
        let (w_q, d) = (1.0, 0.03);
        let r = solve_surface_contact(q, w_q, &x, &w, &beta, Vec3::y(), d, 0.0, &Coeffs::rigid())
            .unwrap();
        let q1 = q + r.dq;
        let x1: Vec<Vec3> = (0..2).map(|j| x[j] - r.g * (w[j] * beta[j])).collect();
        let c1 = (x1[0] + x1[1]) * 0.5;
        // A linear constraint is met in one projection.
        assert!(((q1 - c1).y - d).abs() < 1e-7);
        // Δλ = −C / (w_q + Σ wⱼ βⱼ²) = 0.02 / (1 + 2 · 2 · 0.25).
        assert!((r.delta_lambda - 0.02 / 2.0).abs() < 1e-7);
        // Internal forces: Σ mᵢ Δxᵢ = 0.
        let momentum = r.dq / w_q + (0..2).map(|j| -r.g * beta[j]).sum::<Vec3>();
        assert!(momentum.norm() < 1e-8);
    }

    #[test]
    fn separated_contact_pushes_nothing_and_pinned_ones_are_skipped() {
        let (x, w, beta) = case([1.0, 1.0]);
        let far = Vec3::new(0.0, 0.5, 0.0);
        let r = solve_surface_contact(
            far,
            1.0,
            &x,
            &w,
            &beta,
            Vec3::y(),
            0.03,
            0.0,
            &Coeffs::rigid(),
        );
        assert_eq!(r.map(|r| r.delta_lambda), Some(0.0));
        let (x, w, beta) = case([0.0, 0.0]);
        let pinned = solve_surface_contact(
            far,
            0.0,
            &x,
            &w,
            &beta,
            Vec3::y(),
            0.03,
            0.0,
            &Coeffs::rigid(),
        );
        assert_eq!(pinned, None);
    }

    #[test]
    fn gradient_agrees_with_finite_differences() {
        let (mut x, w, mut beta) = case([1.0, 3.0]);
        beta[..2].copy_from_slice(&[0.3, 0.7]);
        x[1].y = 0.02;
        let n = Vec3::new(0.2, 1.0, -0.1).normalize();
        let q = Vec3::new(0.05, 0.015, 0.01);
        let d = 0.02;
        let c = |q: Vec3, x: &[Vec3; 12]| n.dot(&(q - (x[0] * beta[0] + x[1] * beta[1]))) - d;
        let k = Coeffs::rigid();
        let eps = 1e-3;
        for j in 0..2 {
            let mut fd = Vec3::zeros();
            for axis in 0..3 {
                let (mut plus, mut minus) = (x, x);
                plus[j][axis] += eps;
                minus[j][axis] -= eps;
                fd[axis] = (c(q, &plus) - c(q, &minus)) / (2.0 * eps);
            }
            // With particle j alone free, its correction is −C ∇C / |∇C|².
            let mut w1 = [0.0; 12];
            w1[j] = w[j];
            let r = solve_surface_contact(q, 0.0, &x, &w1, &beta, n, d, 0.0, &k).unwrap();
            let dx = -r.g * (w1[j] * beta[j]);
            let expected = -fd * (c(q, &x) / fd.norm_squared());
            assert!(
                (dx - expected).norm() < 1e-5,
                "particle {j}: {dx} vs {expected}"
            );
        }
    }

    /// A particle pressed 5 mm into a surface of two free particles (surface point halfway
    /// between them, contact distance 1 cm) while sliding `slide` m along it in the substep.
    fn pressed_and_sliding(slide: Real) -> (ParticleSet, SurfaceContactSet) {
        let mut ps = ParticleSet::default();
        ps.push(Vec3::new(-0.1, 0.0, 0.0), 2.0, 0.01, 0);
        ps.push(Vec3::new(0.1, 0.0, 0.0), 2.0, 0.01, 0);
        let q = ps.push(Vec3::new(0.0, 0.01, 0.0), 1.0, 0.01, 1);
        ps.p[q] = Vec3::new(slide, 0.005, 0.0);
        let mut contacts = SurfaceContactSet::default();
        let (mut ids, mut beta) = ([0; SURFACE_PARTICLES], [0.0; SURFACE_PARTICLES]);
        (ids[1], beta[0], beta[1]) = (1, 0.5, 0.5);
        contacts.push(q as u32, ids, beta, Vec3::y(), 0.01);
        (ps, contacts)
    }

    #[test]
    fn static_friction_holds_inside_the_cone_keeping_momentum_and_lets_go_outside_it() {
        let momentum = |ps: &ParticleSet| (0..3).map(|i| ps.p[i] / ps.inv_mass[i]).sum::<Vec3>();
        // The contact pushes the two sides 5 mm apart, W s λ = 5 mm, so μ_s = 0.5 holds a
        // relative slide of up to 2.5 mm.
        let (mut ps, mut held) = pressed_and_sliding(0.002);
        let before = momentum(&ps);
        held.project_serial(&mut ps, &Coeffs::rigid(), 0.5, Vec3::y());
        let surface = (ps.p[0] + ps.p[1]) * 0.5;
        assert!((ps.p[2].x - surface.x).abs() < 1e-7, "held: {}", ps.p[2]);
        assert!((momentum(&ps) - before).norm() < 1e-6);
        let (mut ps, mut sliding) = pressed_and_sliding(0.004);
        sliding.project_serial(&mut ps, &Coeffs::rigid(), 0.5, Vec3::y());
        assert!((ps.p[2].x - 0.004).abs() < 1e-7, "slides: {}", ps.p[2]);
    }
}
