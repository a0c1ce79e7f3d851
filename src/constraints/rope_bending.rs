//! Bending of ropes as an elastic rod of bending stiffness `EI`: one constraint per interior
//! particle, on it and its two neighbours.
//!
//! ```text
//! C = |d|,  d = (p₀ + p₂)/2 − p₁        ∇₀C = ∇₂C = n/2,  ∇₁C = −n,  n = d / |d|
//! ```
//!
//! `d` is the offset of the middle particle from the midpoint of its neighbours, zero on a
//! straight rope (ropes are built straight). Two segments of length `L` turned by the small
//! angle `θ` put the middle particle `|d| = L sin(θ/2) ≈ Lθ/2` off the chord, and the rod's
//! energy there, `½ EI κ² L` with the discrete curvature `κ = θ/L`, is `½ (EI/L) θ² =
//! ½ (4 EI / L³) |d|²`: XPBD compliance `α = L³ / (4 EI)` (see
//! [`Stiffness::per_element`](super::Stiffness::per_element)). The update is XPBD's (Macklin,
//! Müller and Chentanez 2016), as in the distance constraint with zero rest length (Müller et
//! al. 2007, "Position Based Dynamics", sec. 4) between the middle particle and the midpoint.

use super::stiffness::{Coeffs, MaterialTable, delta_lambda};
use crate::math::{Real, Vec3};
use crate::solver::view::Slot;

/// Rope bending constraints: per interior particle its two neighbours and itself
/// (`[previous, middle, next]`), a material (XPBD compliance in m/N) and a multiplier.
/// Projected serially in a fixed order (the same result on any number of threads).
#[derive(Clone, Debug, Default)]
pub struct RopeBendingSet {
    /// `[previous, middle, next]` of each constraint (world indices).
    pub ids: Vec<[u32; 3]>,
    /// The material of each constraint.
    pub mat: Vec<u16>,
    /// Lagrange multiplier accumulated in the current substep.
    pub lambda: Vec<Real>,
    /// The materials.
    pub materials: MaterialTable,
}

/// Projects one rope bending constraint (module docs) on the particles `p` (previous, middle,
/// next) of inverse masses `w`; `dx` holds `p − x` of each, read only by XPBD damping. A
/// straight triple, or one whose particles are all pinned, gets a zero correction. Returns the
/// position changes and `Δλ`.
pub fn solve_rope_bending(
    p: [Vec3; 3],
    w: [Real; 3],
    lambda: Real,
    dx: [Vec3; 3],
    k: &Coeffs,
) -> ([Vec3; 3], Real) {
    let d = (p[0] + p[2]) * 0.5 - p[1];
    let c = d.norm();
    if c <= Real::EPSILON {
        return ([Vec3::zeros(); 3], 0.0);
    }
    let n = d / c;
    let grad = [n * 0.5, -n, n * 0.5];
    let w_grad_sq = 0.25 * w[0] + w[1] + 0.25 * w[2];
    let grad_dot_dx = grad[0].dot(&dx[0]) + grad[1].dot(&dx[1]) + grad[2].dot(&dx[2]);
    let dl = delta_lambda(c, w_grad_sq, Some(grad_dot_dx), lambda, k);
    let s = k.scale * dl;
    (std::array::from_fn(|i| grad[i] * (w[i] * s)), dl)
}

impl RopeBendingSet {
    /// Number of constraints.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the set holds no constraint.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Adds the constraint on `[previous, middle, next]` of material `mat`.
    pub fn push(&mut self, ids: [u32; 3], mat: u16) {
        self.ids.push(ids);
        self.mat.push(mat);
        self.lambda.push(0.0);
    }

    /// Projects every constraint once, in order, on the packed positions `slots` with the
    /// substep's start positions `x` (relative to the same origins; see
    /// [`crate::solver::view`]).
    pub fn project_serial(&mut self, slots: &mut [Slot], x: &[Vec3]) {
        for (c, ids) in self.ids.iter().enumerate() {
            let ids = ids.map(|i| i as usize);
            let p = ids.map(|i| slots[i].p);
            let dx = std::array::from_fn(|j| p[j] - x[ids[j]]);
            let k = &self.materials.coeffs[self.mat[c] as usize];
            let (dp, dl) = solve_rope_bending(p, ids.map(|i| slots[i].w), self.lambda[c], dx, k);
            for (i, dp) in ids.into_iter().zip(dp) {
                slots[i].p += dp;
            }
            self.lambda[c] += dl;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradient_matches_finite_differences() {
        let p = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.5, 0.1, -0.05),
            Vec3::new(1.0, 0.02, 0.1),
        ];
        let c = |p: [Vec3; 3]| ((p[0] + p[2]) * 0.5 - p[1]).norm();
        let d = (p[0] + p[2]) * 0.5 - p[1];
        let n = d / d.norm();
        let grad = [n * 0.5, -n, n * 0.5];
        crate::constraints::assert_gradient(p, c, grad, (1e-3, 1e-3));
    }

    #[test]
    fn a_rigid_bend_straightens_and_keeps_the_momentum() {
        let p = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.5, 0.2, 0.0),
            Vec3::new(1.0, 0.0, 0.1),
        ];
        let w = [1.0, 0.5, 2.0];
        let (dp, dl) = solve_rope_bending(p, w, 0.0, [Vec3::zeros(); 3], &Coeffs::rigid());
        let q: Vec<Vec3> = (0..3).map(|i| p[i] + dp[i]).collect();
        assert!(((q[0] + q[2]) * 0.5 - q[1]).norm() < 1e-6);
        let momentum: Vec3 = (0..3).map(|i| dp[i] / w[i]).sum();
        assert!(momentum.norm() < 1e-6);
        assert!(dl < 0.0);
    }
}
