//! Dihedral-angle bending between two triangles that share an edge.
//!
//! The cheap bending variant, a distance constraint between the two vertices opposite the shared
//! edge, is a [`DistanceSet`](super::distance::DistanceSet) of its own.

use super::family::{Family, FamilyKind};
use super::stiffness::{Coeffs, delta_lambda};
use crate::math::{Real, Vec3};
use std::f32::consts::PI;

/// Dihedral bending constraints (see [`Family`]): `ids = [e0, e1, a, b]`, the shared edge
/// `e0 → e1` and the vertices `a` (of triangle `e0, e1, a`) and `b` (of triangle `e1, e0, b`)
/// opposite it; `rest` holds the rest angles `θ₀`, radians (0 when the two triangles are
/// coplanar).
pub type DihedralSet = Family<4, Dihedral>;

/// The kind of [`DihedralSet`]: its kernel is [`solve_dihedral`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Dihedral;

/// The signed dihedral angle `θ` of the triangle pair and its gradient with respect to
/// `[e0, e1, a, b]`, or `None` for a degenerate triangle or edge.
///
/// `θ = atan2((n̂₁ × n̂₂)·ê, n̂₁·n̂₂)` with `n₁ = (a − e0) × (a − e1)`, `n₂ = (b − e1) × (b − e0)`,
/// `e = e1 − e0`; it is 0 for coplanar triangles and has the sign of the fold. The gradient is the
/// closed form of Bridson, Marino and Fedkiw 2003, "Simulation of Clothing with Folds and
/// Wrinkles", sec. 4: `∇_a θ = −|e| n₁/|n₁|²`, `∇_b θ = −|e| n₂/|n₂|²` and the edge terms below.
pub fn dihedral_angle_and_gradient(x: [Vec3; 4]) -> Option<(Real, [Vec3; 4])> {
    let [e0, e1, a, b] = x;
    let e = e1 - e0;
    let e_len = e.norm();
    let n1 = (a - e0).cross(&(a - e1));
    let n2 = (b - e1).cross(&(b - e0));
    let (n1_sq, n2_sq) = (n1.norm_squared(), n2.norm_squared());
    if e_len <= Real::EPSILON
        || n1_sq <= Real::EPSILON * Real::EPSILON
        || n2_sq <= Real::EPSILON * Real::EPSILON
    {
        return None;
    }
    let (m1, m2) = (n1 / n1_sq, n2 / n2_sq);
    let (n1_hat, n2_hat) = (n1 / n1_sq.sqrt(), n2 / n2_sq.sqrt());
    let theta = n1_hat
        .cross(&n2_hat)
        .dot(&(e / e_len))
        .atan2(n1_hat.dot(&n2_hat));
    let grad_a = -m1 * e_len;
    let grad_b = -m2 * e_len;
    let grad_e0 = -(m1 * ((a - e1).dot(&e) / e_len) + m2 * ((b - e1).dot(&e) / e_len));
    let grad_e1 = m1 * ((a - e0).dot(&e) / e_len) + m2 * ((b - e0).dot(&e) / e_len);
    Some((theta, [grad_e0, grad_e1, grad_a, grad_b]))
}

/// Wraps an angle difference to (−π, π].
fn wrap_angle(a: Real) -> Real {
    let mut a = a % (2.0 * PI);
    if a > PI {
        a -= 2.0 * PI;
    } else if a <= -PI {
        a += 2.0 * PI;
    }
    a
}

/// Corrections of a four-particle constraint and its multiplier change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuadCorrection {
    /// Correction of each particle, m.
    pub dp: [Vec3; 4],
    /// Change of the multiplier.
    pub delta_lambda: Real,
}

/// Projects one dihedral bending constraint `C = θ − θ₀`, wrapped to (−π, π] (Müller et al.
/// 2007, "Position Based Dynamics", appendix A), with the signed angle and gradient of
/// [`dihedral_angle_and_gradient`], which stay smooth through the flat configuration where the
/// paper's `acos` is singular. A pair folded flat onto itself (`C = ±π`) has no preferred side:
/// without self-collision the fold may flip there.
///
/// Like every PBD/XPBD constraint, the update uses `∇C` but not the curvature `∇²C` (the
/// "geometric stiffness" of Tournier et al. 2015, "Stable Constrained Dynamics"), and the angle
/// is far more curved than a distance. Measured on a 2.4 m, 50 x 50 cloth of 0.6 kg: with
/// compliance 1 rad/(N·m), 40 substeps and 2 iterations, the kinetic energy of the hanging cloth
/// grew past 20 J from 6 J of potential energy; with 8 iterations, or the cross-distance variant,
/// it stayed bounded. Very stiff dihedral bending needs more iterations.
///
/// `dx` holds `p − x` of each particle this substep, read only by XPBD damping.
pub fn solve_dihedral(
    p: [Vec3; 4],
    w: [Real; 4],
    theta0: Real,
    lambda: Real,
    dx: Option<[Vec3; 4]>,
    k: &Coeffs,
) -> Option<QuadCorrection> {
    let (theta, grad) = dihedral_angle_and_gradient(p)?;
    let c = wrap_angle(theta - theta0);
    let w_grad_sq: Real = (0..4).map(|i| w[i] * grad[i].norm_squared()).sum();
    let grad_dot_dx = dx.map(|dx| (0..4).map(|i| grad[i].dot(&dx[i])).sum());
    let delta_lambda = delta_lambda(c, w_grad_sq, grad_dot_dx, lambda, k);
    let s = k.scale * delta_lambda;
    Some(QuadCorrection {
        dp: std::array::from_fn(|i| grad[i] * (w[i] * s)),
        delta_lambda,
    })
}

impl DihedralSet {
    /// Adds a constraint whose rest angle is the angle at `x` (the particles' rest positions).
    pub fn push(&mut self, ids: [u32; 4], x: &[Vec3], mat: u16) {
        let rest =
            dihedral_angle_and_gradient(ids.map(|i| x[i as usize])).map_or(0.0, |(theta, _)| theta);
        self.push_constraint(ids, rest, mat);
    }
}

impl FamilyKind<4> for Dihedral {
    #[inline(always)]
    fn solve(
        p: [Vec3; 4],
        w: [Real; 4],
        rest: Real,
        lambda: Real,
        dx: Option<[Vec3; 4]>,
        k: &Coeffs,
    ) -> Option<([Vec3; 4], Real)> {
        solve_dihedral(p, w, rest, lambda, dx, k).map(|r| (r.dp, r.delta_lambda))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A triangle pair folded by `angle` about the x axis edge from the origin to (1, 0, 0).
    fn folded(angle: Real) -> [Vec3; 4] {
        let a = Vec3::new(0.4, 1.0, 0.0);
        let b = Vec3::new(0.6, -angle.cos(), angle.sin());
        [Vec3::zeros(), Vec3::x(), a, b]
    }

    #[test]
    fn coplanar_pair_has_zero_angle_and_fold_has_its_angle() {
        let (flat, _) = dihedral_angle_and_gradient(folded(0.0)).unwrap();
        assert!(flat.abs() < 1e-6);
        for angle in [0.3, -0.7, 1.5, 2.5] {
            let (theta, _) = dihedral_angle_and_gradient(folded(angle)).unwrap();
            assert!(
                (theta.abs() - angle.abs()).abs() < 1e-5,
                "{theta} vs {angle}"
            );
        }
        let (pos, _) = dihedral_angle_and_gradient(folded(0.5)).unwrap();
        let (neg, _) = dihedral_angle_and_gradient(folded(-0.5)).unwrap();
        assert!(pos * neg < 0.0, "opposite folds have opposite signs");
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let x = [
            Vec3::new(0.05, -0.02, 0.01),
            Vec3::new(1.0, 0.1, -0.05),
            Vec3::new(0.4, 0.9, 0.3),
            Vec3::new(0.7, -0.8, 0.5),
        ];
        let (_, grad) = dihedral_angle_and_gradient(x).unwrap();
        let h = 1e-3;
        for i in 0..4 {
            for axis in 0..3 {
                let (mut plus, mut minus) = (x, x);
                plus[i][axis] += h;
                minus[i][axis] -= h;
                let fd = (dihedral_angle_and_gradient(plus).unwrap().0
                    - dihedral_angle_and_gradient(minus).unwrap().0)
                    / (2.0 * h);
                assert!(
                    (fd - grad[i][axis]).abs() < 2e-3,
                    "particle {i} axis {axis}: fd {fd} analytic {}",
                    grad[i][axis]
                );
            }
        }
    }

    #[test]
    fn gradient_sums_to_zero() {
        let (_, g) = dihedral_angle_and_gradient(folded(0.8)).unwrap();
        assert!((g[0] + g[1] + g[2] + g[3]).norm() < 1e-5);
    }

    #[test]
    fn rigid_projection_returns_to_the_rest_angle() {
        let k = Coeffs::rigid();
        let mut p = folded(0.6);
        let w = [1.0; 4];
        for _ in 0..20 {
            let r = solve_dihedral(p, w, 0.0, 0.0, None, &k).unwrap();
            for (pi, dp) in p.iter_mut().zip(r.dp) {
                *pi += dp;
            }
        }
        let (theta, _) = dihedral_angle_and_gradient(p).unwrap();
        assert!(theta.abs() < 1e-4, "angle after projection {theta}");
    }

    #[test]
    fn correction_keeps_the_centroid_of_equal_masses() {
        let k = Coeffs::rigid();
        let r = solve_dihedral(folded(1.0), [1.0; 4], 0.2, 0.0, None, &k).unwrap();
        assert!((r.dp[0] + r.dp[1] + r.dp[2] + r.dp[3]).norm() < 1e-5);
    }

    #[test]
    fn wrap_keeps_differences_within_half_a_turn() {
        assert!((wrap_angle(1.5 * PI) + 0.5 * PI).abs() < 1e-5);
        assert!((wrap_angle(-1.5 * PI) - 0.5 * PI).abs() < 1e-5);
        assert!((wrap_angle(0.25) - 0.25).abs() < 1e-7);
    }
}
