//! Dihedral-angle bending between two triangles that share an edge.
//!
//! The cheap bending variant, a distance constraint between the two vertices opposite the shared
//! edge, is a [`DistanceSet`](super::distance::DistanceSet) of its own.

use super::family::{Family, FamilyKind, Projection, project_one};
use super::stiffness::{Coeffs, delta_lambda_scaled};
use crate::math::{LaneVec, Lanes, Real, Vec3, atan2};
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
/// `θ = atan2((n₁ × n₂)·e, (n₁·n₂)|e|)` with `n₁ = (a − e0) × (a − e1)`, `n₂ = (b − e1) × (b − e0)`,
/// `e = e1 − e0` (the angle between the normals, measured about `e`); it is 0 for coplanar
/// triangles and has the sign of the fold. The gradient is the closed form of Bridson, Marino and
/// Fedkiw 2003, "Simulation of Clothing with Folds and Wrinkles", sec. 4: `∇_a θ = −|e| m₁`,
/// `∇_b θ = −|e| m₂`, `∇_e1 θ = ((a − e0)·ê) m₁ + ((b − e0)·ê) m₂` with `m₁ = n₁/|n₁|²`,
/// `m₂ = n₂/|n₂|²`, `ê = e/|e|`, and `∇_e0 θ` from the four summing to zero.
pub fn dihedral_angle_and_gradient(x: [Vec3; 4]) -> Option<(Real, [Vec3; 4])> {
    let (theta, h, valid) = hinge(x.map(LaneVec::from));
    let (m1, m2) = (h.n1 * (1.0 / h.n1_sq), h.n2 * (1.0 / h.n2_sq));
    let grad = h
        .coeffs()
        .map(|[alpha, beta]| Vec3::from((m1 * alpha + m2 * beta) * (1.0 / h.e_len)));
    (valid > 0.0).then_some((theta, grad))
}

/// A hinge's angle and what its gradient is made of (see [`dihedral_angle_and_gradient`]):
/// `∇ᵢθ = (αᵢ m₁ + βᵢ m₂) / |e|` with `m₁ = n₁/|n₁|²`, `m₂ = n₂/|n₂|²` and four pairs of reals
/// `(αᵢ, βᵢ)` ([`Hinge::coeffs`]) rather than four vectors, nothing divided yet.
struct Hinge<T> {
    n1: LaneVec<T>,
    n2: LaneVec<T>,
    /// `|n₁|²`, `|n₂|²` and `n₁·n₂`.
    n1_sq: T,
    n2_sq: T,
    n1_n2: T,
    /// `|e|` and `|e|²`.
    e_len: T,
    e_sq: T,
    /// `(a − e0)·e` and `(b − e0)·e`: `(α, β)` of `e1`.
    along: [T; 2],
}

impl<T: Lanes> Hinge<T> {
    /// `(αᵢ, βᵢ)` of `e0`, `e1`, `a` and `b`.
    #[inline(always)]
    fn coeffs(&self) -> [[T; 2]; 4] {
        let [sa, sb] = self.along;
        let (e, zero) = (self.e_sq, T::splat(0.0));
        [[e - sa, e - sb], [sa, sb], [-e, zero], [zero, -e]]
    }
}

/// The arithmetic of [`dihedral_angle_and_gradient`], for one constraint or for one per lane of
/// a batch (see [`Lanes`]): `θ`, the hinge, and 1 where the pair is not degenerate (0 where it
/// is).
///
/// No square root but `|e|`'s, no division but [`atan2`](crate::math::atan2)'s and no inverse
/// trigonometric call: the angle comes from `atan2`, a polynomial within 4.2e-7 rad, of the
/// unnormalized normals (`atan2` needs only the ratio of its arguments, so scaling both by
/// `|n₁||n₂|` leaves `θ`).
#[inline(always)]
fn hinge<T: Lanes>(x: [LaneVec<T>; 4]) -> (T, Hinge<T>, T) {
    let [e0, e1, a, b] = x;
    let (zero, one, eps) = (T::splat(0.0), T::splat(1.0), T::splat(Real::EPSILON));
    let eps_sq = T::splat(Real::EPSILON * Real::EPSILON);
    let e = e1 - e0;
    let e_sq = e.norm_squared();
    let e_len = e_sq.sqrt();
    let (a0, b0) = (a - e0, b - e0);
    // `n₁ = (a − e0) × (a − e1) = e × (a − e0)`, `n₂ = (b − e1) × (b − e0) = (b − e0) × e`.
    let n1 = e.cross(a0);
    let n2 = b0.cross(e);
    let (n1_sq, n2_sq, n1_n2) = (n1.norm_squared(), n2.norm_squared(), n1.dot(n2));
    let valid = e_len.select_gt(
        eps,
        n1_sq.select_gt(eps_sq, n2_sq.select_gt(eps_sq, one, zero), zero),
        zero,
    );
    // `(n₁ × n₂)·e = −|e|² n₁·(b − e0)`, since `n₁ ⊥ e`; both arguments divided by `|e|`.
    let theta = atan2(-(n1.dot(b0) * e_len), n1_n2);
    let h = Hinge {
        n1,
        n2,
        n1_sq,
        n2_sq,
        n1_n2,
        e_len,
        e_sq,
        along: [a0.dot(e), b0.dot(e)],
    };
    (theta, h, valid)
}

/// Corrections of a four-particle constraint and its multiplier change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuadCorrection {
    /// Correction of each particle, m.
    pub dp: [Vec3; 4],
    /// Change of the multiplier.
    pub delta_lambda: Real,
}

impl From<Projection<Real, 4>> for QuadCorrection {
    fn from(r: Projection<Real, 4>) -> Self {
        QuadCorrection {
            dp: r.dp.map(Vec3::from),
            delta_lambda: r.delta_lambda,
        }
    }
}

/// Projects one dihedral bending constraint `C = θ − θ₀`, wrapped to (−π, π] (Müller et al.
/// 2007, "Position Based Dynamics", appendix A), with the signed angle and gradient of
/// [`dihedral_angle_and_gradient`], which stay smooth through the flat configuration where the
/// paper's `acos` is singular. A pair folded flat onto itself (`C = ±π`) has no preferred side:
/// without self-collision the fold may flip there.
///
/// Like every PBD/XPBD constraint, the update uses `∇C` but not the curvature `∇²C` (the
/// "geometric stiffness" of Tournier et al. 2015, "Stable Constrained Dynamics"), and the angle
/// is far more curved than a distance: a correction of `δ` rad moves `a` and `b` along straight
/// lines where the hinge turns them on arcs, so it stretches the triangles by about `δ²/2` (40%
/// at 0.9 rad), which the stretch constraints give back as velocity. With stiff bending and few
/// iterations a crumpled cloth's hinges reached `C = ±π`, where the sign flips, and the kicks grew
/// every substep (the 48 x 48 cloth of `tests/integration/divergence.rs` at 20 substeps x 1 iteration,
/// compliance 1, diverged by frame 25). So each projection corrects the residual by
/// at most [`MAX_ANGLE_STEP`] (see [`delta_lambda_scaled`]): a larger fold is undone over
/// several projections, and a converged or compliant equilibrium is unchanged.
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
    let r = project_one::<4, Dihedral>(p, w, theta0, [0.0; 4], lambda, dx, k);
    (r.applied > 0.0).then(|| r.into())
}

/// The most one projection corrects a dihedral constraint's residual, rad: the straight-line
/// correction then stretches the hinge's triangles by at most about 3% (`0.25²/2`).
pub const MAX_ANGLE_STEP: Real = 0.25;

/// `θ − θ₀` wrapped to (−π, π], for `θ` and `θ₀` in [−π, π].
#[inline(always)]
fn wrap_angle<T: Lanes>(d: T) -> T {
    let turn = T::splat(2.0 * PI);
    let d = d.select_gt(T::splat(PI), d - turn, d);
    d.select_gt(T::splat(-PI), d, d + turn)
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
    /// The dihedral kernel's long arithmetic pays for pairing: its stage on W at N = 64 with
    /// dihedral bending is about 8% faster paired with AVX-512, 2% to 5% with AVX's two
    /// registers (see `docs/performance.md`).
    #[inline(always)]
    fn pairs(_split: bool, _paired: bool) -> bool {
        true
    }
    /// Its twelve coordinates spilled when kept for the end: added in place, its stage in the
    /// default scene took 1.45 instead of 1.52 ms on AVX.
    const ADDS: bool = true;

    /// [`solve_dihedral`]'s update with the gradient kept as a `Hinge`, over the common
    /// denominator `D = |e|²|n₁|²|n₂|²`: `Σ wᵢ|∇ᵢθ|² = q / D` with
    /// `q = |n₂|² Σ wᵢαᵢ² + 2 n₁·n₂ Σ wᵢαᵢβᵢ + |n₁|² Σ wᵢβᵢ²` (see [`delta_lambda_scaled`]) and
    /// `Δpᵢ = s Δλ wᵢ∇ᵢθ = (s Δλ / D) |e| (|n₂|² n₁ wᵢαᵢ + |n₁|² n₂ wᵢβᵢ)`: one division beside
    /// `atan2`'s, and fewer operations and live vectors than four gradient vectors. (Dividing
    /// for `1/(|e||n₁|²|n₂|²)` as well made the dihedral stage 2% slower.)
    #[inline(always)]
    fn project<T: Lanes>(
        p: [LaneVec<T>; 4],
        w: [T; 4],
        theta0: T,
        _: [T; 4],
        lambda: T,
        dx: Option<[LaneVec<T>; 4]>,
        k: &Coeffs<T>,
    ) -> Projection<T, 4> {
        let (theta, h, valid) = hinge(p);
        let c = wrap_angle(theta - theta0);
        let [[a0, b0], [a1, b1], _, _] = h.coeffs();
        let e_sq = h.e_sq;
        // `wᵢαᵢ` and `wᵢβᵢ`; `a`'s are `(−w_a|e|², 0)`, `b`'s `(0, −w_b|e|²)`.
        let (wa0, wb0, wa1, wb1) = (w[0] * a0, w[0] * b0, w[1] * a1, w[1] * b1);
        let (wa, wb) = (w[2] * e_sq, w[3] * e_sq);
        let sum_aa = wa0 * a0 + wa1 * a1 + wa * e_sq;
        let sum_bb = wb0 * b0 + wb1 * b1 + wb * e_sq;
        let sum_ab = wa0 * b0 + wa1 * b1;
        let q = sum_aa * h.n2_sq + (sum_ab + sum_ab) * h.n1_n2 + sum_bb * h.n1_sq;
        // The denominator `D`; 0 for a degenerate pair, which then does not move.
        let d = valid * (e_sq * h.n1_sq * h.n2_sq);
        // A `match`, not `Option::map`: LLVM did not inline the closure into the AVX walk.
        #[allow(clippy::manual_map)]
        let grad_dot_dx = match dx {
            Some([d0, d1, da, db]) => {
                let along_n1 = h.n1.dot(d0 * a0 + d1 * a1 - da * e_sq);
                let along_n2 = h.n2.dot(d0 * b0 + d1 * b1 - db * e_sq);
                let scaled = (along_n1 * h.n2_sq + along_n2 * h.n1_sq) * h.e_len;
                Some(d.select_gt(T::splat(0.0), scaled / d, T::splat(0.0)))
            }
            None => None,
        };
        let bound = Some(T::splat(MAX_ANGLE_STEP));
        let (delta_lambda, per_d) = delta_lambda_scaled(c, q, d, grad_dot_dx, lambda, k, bound);
        let s = k.scale * per_d * h.e_len;
        let (u1, u2) = (h.n1 * (s * h.n2_sq), h.n2 * (s * h.n1_sq));
        Projection {
            dp: [
                u1 * wa0 + u2 * wb0,
                u1 * wa1 + u2 * wb1,
                -(u1 * wa),
                -(u2 * wb),
            ],
            delta_lambda,
            applied: valid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::batched::{assert_batched_matches_scalar, test_hinges};
    use crate::particles::ParticleSet;

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
        let theta = |x| dihedral_angle_and_gradient(x).unwrap().0;
        crate::constraints::assert_gradient(x, theta, grad, (1e-3, 2e-3));
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

    /// `Σ ∇ᵢθ·Δpᵢ`: how far a correction moves the linearized angle.
    fn linearized_change(p: [Vec3; 4], dp: [Vec3; 4]) -> Real {
        let (_, grad) = dihedral_angle_and_gradient(p).unwrap();
        grad.iter().zip(dp).map(|(g, d)| g.dot(&d)).sum()
    }

    #[test]
    fn a_deep_fold_is_corrected_by_at_most_the_angle_step() {
        let k = Coeffs::rigid();
        for fold in [2.5, -2.5, 1.0] {
            let p = folded(fold);
            let (theta, _) = dihedral_angle_and_gradient(p).unwrap();
            let r = solve_dihedral(p, [1.0; 4], 0.0, 0.0, None, &k).unwrap();
            let step = linearized_change(p, r.dp);
            assert!(
                (step + MAX_ANGLE_STEP * theta.signum()).abs() < 1e-5,
                "fold {fold}: the linearized angle moved by {step}"
            );
            let moved = [0, 1, 2, 3].map(|i| p[i] + r.dp[i]);
            let (after, _) = dihedral_angle_and_gradient(moved).unwrap();
            assert!(
                after.abs() < theta.abs() && after * theta > 0.0,
                "{theta} -> {after}"
            );
        }
        // A small residual is corrected in full, as without the bound.
        let p = folded(0.1);
        let (theta, _) = dihedral_angle_and_gradient(p).unwrap();
        let r = solve_dihedral(p, [1.0; 4], 0.0, 0.0, None, &k).unwrap();
        assert!((linearized_change(p, r.dp) + theta).abs() < 1e-5);
    }

    #[test]
    fn a_compliant_hinge_in_equilibrium_past_the_step_is_left_alone() {
        let k = Coeffs {
            alpha_tilde: 10.0,
            gamma: 0.0,
            scale: 1.0,
            shake: false,
        };
        let p = folded(1.0);
        let (theta, _) = dihedral_angle_and_gradient(p).unwrap();
        // `C + α̃λ = 0`: the bending moment balances the load that holds the fold.
        let r = solve_dihedral(p, [1.0; 4], 0.0, -theta / 10.0, None, &k).unwrap();
        assert!(r.delta_lambda.abs() < 1e-7 && r.dp.iter().all(|d| d.norm() < 1e-7));
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

    #[test]
    fn batched_projection_matches_the_scalar_kernel_bit_for_bit() {
        assert_batched_matches_scalar(family);
    }

    /// The hinges of [`test_hinges`], rest angles from a rippled shape; a few pairs with a
    /// zero-area triangle (whose particles coincide).
    fn family(damping: Real, two_materials: bool) -> (DihedralSet, ParticleSet) {
        let ripple = |x: Vec3| x + Vec3::y() * (0.03 * (x.x * 9.0).sin() * (x.z * 7.0).cos());
        let push = |set: &mut DihedralSet, q, x: &[Vec3], mat| set.push(q, x, mat);
        let (set, mut ps) = test_hinges(damping, two_materials, ripple, push);
        // Three pairs with one triangle collapsed onto a point: degenerate, skipped.
        for i in [40, 41, 300] {
            ps.p[i] = ps.p[i + 1];
        }
        (set, ps)
    }
}
