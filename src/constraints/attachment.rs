//! Attachment constraints: a particle held to a fixed point in space by a spring of its own
//! compliance (a soft pin, or the mouse grab of the viewer).

use super::stiffness::{Coeffs, MaterialTable, delta_lambda};
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;

/// Attachments, one entry per constraint in each field.
#[derive(Clone, Debug, Default)]
pub struct AttachmentSet {
    /// The attached particle.
    pub ids: Vec<u32>,
    /// The point it is held to, m.
    pub target: Vec<Vec3>,
    /// Lagrange multiplier accumulated in the current substep.
    pub lambda: Vec<Real>,
    /// Index into `materials`.
    pub mat: Vec<u16>,
    /// Stiffness per material.
    pub materials: MaterialTable,
}

/// Projects one attachment: `C(p) = |p − t|`, `∇C = (p − t) / |p − t|` (a distance constraint of
/// rest length 0 to a fixed point; Müller et al. 2007 sec. 3.3, XPBD update of Macklin et al.
/// 2016). Returns the correction of `p` and `Δλ`, or `None` when `p` is at the target.
#[inline]
pub fn solve_attachment(
    p: Vec3,
    w: Real,
    target: Vec3,
    lambda: Real,
    dx: Vec3,
    k: &Coeffs,
) -> Option<(Vec3, Real)> {
    let diff = p - target;
    let c = diff.norm();
    if c <= Real::EPSILON {
        return None;
    }
    let n = diff / c;
    let dl = delta_lambda(c, w, Some(n.dot(&dx)), lambda, k);
    Some((n * (w * k.scale * dl), dl))
}

impl AttachmentSet {
    /// Adds an attachment of particle `id` to `target` with material `mat`.
    pub fn push(&mut self, id: u32, target: Vec3, mat: u16) {
        self.ids.push(id);
        self.target.push(target);
        self.lambda.push(0.0);
        self.mat.push(mat);
    }

    /// Projects every attachment in order.
    pub fn project_serial(&mut self, ps: &mut ParticleSet) {
        for c in 0..self.ids.len() {
            let i = self.ids[c] as usize;
            let k = &self.materials.coeffs[self.mat[c] as usize];
            let dx = ps.p[i] - ps.x[i];
            if let Some((dp, dl)) = solve_attachment(
                ps.p[i],
                ps.inv_mass[i],
                self.target[c],
                self.lambda[c],
                dx,
                k,
            ) {
                ps.p[i] += dp;
                self.lambda[c] += dl;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::stiffness::Stiffness;

    #[test]
    fn rigid_attachment_moves_the_particle_onto_the_target() {
        let k = Coeffs::rigid();
        let (p, t) = (Vec3::new(1.0, 2.0, 3.0), Vec3::new(0.5, 2.5, 2.0));
        let (dp, _) = solve_attachment(p, 2.0, t, 0.0, Vec3::zeros(), &k).unwrap();
        assert!((p + dp - t).norm() < 1e-6);
    }

    #[test]
    fn compliant_attachment_balances_a_constant_force() {
        // A particle of mass m pulled by gravity hangs below its target by α m g at equilibrium.
        let (m, g, alpha, h) = (0.2, 9.81, 1e-2, 0.01);
        let k = Stiffness::Xpbd {
            compliance: alpha,
            damping: 0.0,
        }
        .coeffs(h, 1);
        let t = Vec3::zeros();
        let (mut x, mut v) = (t, Vec3::zeros());
        for _ in 0..5000 {
            v.y -= g * h;
            let mut p = x + v * h;
            if let Some((dp, _)) = solve_attachment(p, 1.0 / m, t, 0.0, p - x, &k) {
                p += dp;
            }
            // Damp the velocity after the update, so that the rest state feels the full weight.
            v = (p - x) / h * 0.99;
            x = p;
        }
        let expected = alpha * m * g;
        assert!(
            ((t.y - x.y) - expected).abs() < 0.01 * expected,
            "sag {} vs {expected}",
            t.y - x.y
        );
    }

    #[test]
    fn pinned_particle_is_not_moved() {
        let k = Coeffs::rigid();
        let (dp, _) =
            solve_attachment(Vec3::x(), 0.0, Vec3::zeros(), 0.0, Vec3::zeros(), &k).unwrap();
        assert_eq!(dp, Vec3::zeros());
    }
}
