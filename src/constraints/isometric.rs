//! Isometric bending (Bergou, Wardetzky, Harmon, Zorin and Grinspun 2006, "A Quadratic Bending
//! Model for Inextensible Surfaces"): for a surface that bends without stretching, the bending
//! energy of a hinge is quadratic in its four positions, so its constraint is linear and needs
//! no angle, no trigonometry and one square root.
//!
//! It holds for a cloth whose rest shape is flat (the quadratic energy's minimum is the flat
//! hinge); a cloth that is curved at rest takes dihedral bending (see
//! [`bending`](super::bending)).

use super::bending::QuadCorrection;
use super::family::{Family, FamilyKind, Projection, project_one};
use super::stiffness::{Coeffs, delta_lambda};
use crate::math::{LaneVec, Lanes, Real, Vec3};

/// Isometric bending constraints (see [`Family`]): `ids = [e0, e1, a, b]` as for a
/// [`DihedralSet`](super::DihedralSet), each with the weights of [`isometric_weights`]; the
/// rest value is unused (0).
pub type IsometricSet = Family<4, Isometric>;

/// The kind of [`IsometricSet`]: its kernel is [`solve_isometric`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Isometric;

/// The weights `kᵢ` of a hinge `[e0, e1, a, b]` at its rest positions `x` (triangles
/// `e0, e1, a` and `e1, e0, b`), or `None` when a triangle or the edge is degenerate.
///
/// `k = (cot α₁ + cot β₁, cot α₀ + cot β₀, −cot α₀ − cot α₁, −cot β₀ − cot β₁) / |e|`, with `α₀`
/// and `α₁` the angles of triangle `a` at `e0` and `e1`, `β₀` and `β₁` those of triangle `b`,
/// and `e = e1 − e0`: the cotangent weights of Bergou et al. 2006 (sec. 4, their `K`) divided by
/// the rest length of the edge, so that `C = |Σ kᵢ xᵢ|` is `2 sin(θ/2) ≈ |θ|` when the hinge
/// is folded by `θ` without stretching (the same measure as the dihedral angle for small folds).
/// The weights sum to zero, and `Σ kᵢ x̄ᵢ = 0` for a flat hinge.
pub fn isometric_weights(x: [Vec3; 4]) -> Option<[Real; 4]> {
    let [e0, e1, a, b] = x;
    let e = e1 - e0;
    let len = e.norm();
    // The cotangent of the angle between `u` and `v`: `u·v / |u × v|`.
    let cot = |u: Vec3, v: Vec3| {
        let sin = u.cross(&v).norm();
        (sin > Real::EPSILON * u.norm() * v.norm()).then(|| u.dot(&v) / sin)
    };
    let (alpha0, alpha1) = (cot(e, a - e0)?, cot(-e, a - e1)?);
    let (beta0, beta1) = (cot(e, b - e0)?, cot(-e, b - e1)?);
    let k = [
        alpha1 + beta1,
        alpha0 + beta0,
        -(alpha0 + alpha1),
        -(beta0 + beta1),
    ];
    (len > 0.0).then(|| k.map(|k| k / len))
}

/// `C = |Σ kᵢ xᵢ|` of a hinge at `x` with weights `k` (see [`isometric_weights`]): 0 for the
/// flat hinge, `2 sin(θ/2)` for a fold by `θ` without stretching.
pub fn isometric_curvature(x: [Vec3; 4], k: [Real; 4]) -> Real {
    Vec3::from(fold(x.map(LaneVec::from), k)).norm()
}

/// `v = Σ kᵢ xᵢ`, whose length is the constraint (for one hinge or one per lane).
#[inline(always)]
fn fold<T: Lanes>(x: [LaneVec<T>; 4], k: [T; 4]) -> LaneVec<T> {
    x[0] * k[0] + x[1] * k[1] + x[2] * k[2] + x[3] * k[3]
}

/// Projects one isometric bending constraint `C = |v|`, `v = Σ kᵢ pᵢ` (see
/// [`isometric_weights`]), with `∇ᵢC = kᵢ v̂`: the XPBD update of Macklin et al. 2016 with
/// `Σ wᵢ|∇ᵢC|² = Σ wᵢkᵢ²` and `Δpᵢ = wᵢkᵢ v̂ Δλ`. Its energy `C²/(2α)` is the quadratic bending
/// energy of Bergou et al. 2006 (sec. 4); `v` is linear in the positions, so a rigid constraint
/// reaches `C = 0` in one projection, and the correction moves the hinge along the gradient
/// without the curvature that makes the dihedral angle's straight-line steps stretch the cloth
/// (see [`solve_dihedral`](super::bending::solve_dihedral)). `C` is 0 at a flat hinge, where
/// `v̂` is undefined and nothing is projected (`None`).
///
/// `dx` holds `p − x` of each particle this substep, read only by XPBD damping.
pub fn solve_isometric(
    p: [Vec3; 4],
    w: [Real; 4],
    k: [Real; 4],
    lambda: Real,
    dx: Option<[Vec3; 4]>,
    coeffs: &Coeffs,
) -> Option<QuadCorrection> {
    let r = project_one::<4, Isometric>(p, w, 0.0, k, lambda, dx, coeffs);
    (r.applied > 0.0).then(|| r.into())
}

impl FamilyKind<4> for Isometric {
    /// Paired in one AVX-512 register only: in AVX's two its stage was 3% to 9% slower (see
    /// `docs/performance.md`).
    #[inline(always)]
    fn pairs(split: bool, _paired: bool) -> bool {
        !split
    }
    const WEIGHTED: bool = true;

    /// [`solve_isometric`].
    #[inline(always)]
    fn project<T: Lanes>(
        p: [LaneVec<T>; 4],
        w: [T; 4],
        _: T,
        k: [T; 4],
        lambda: T,
        dx: Option<[LaneVec<T>; 4]>,
        coeffs: &Coeffs<T>,
    ) -> Projection<T, 4> {
        let v = fold(p, k);
        let c = v.norm_squared().sqrt();
        let (zero, one, eps) = (T::splat(0.0), T::splat(1.0), T::splat(Real::EPSILON));
        let valid = c.select_gt(eps, one, zero);
        let n = v * c.select_gt(eps, one / c, zero);
        let wk = [w[0] * k[0], w[1] * k[1], w[2] * k[2], w[3] * k[3]];
        let w_grad_sq = wk[0] * k[0] + wk[1] * k[1] + wk[2] * k[2] + wk[3] * k[3];
        // A `match`, not `Option::map`: LLVM did not inline the closure into the AVX walk.
        #[allow(clippy::manual_map)]
        let grad_dot_dx = match dx {
            Some(dx) => Some(n.dot(fold(dx, k))),
            None => None,
        };
        let delta_lambda = delta_lambda(c, w_grad_sq, grad_dot_dx, lambda, coeffs) * valid;
        let s = n * (coeffs.scale * delta_lambda);
        Projection {
            dp: [s * wk[0], s * wk[1], s * wk[2], s * wk[3]],
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

    /// A hinge on the x axis edge from the origin to (1.3, 0, 0), its `b` folded by `angle`
    /// about the edge.
    fn folded(angle: Real) -> [Vec3; 4] {
        let a = Vec3::new(0.4, 0.9, 0.0);
        let b = Vec3::new(0.9, -0.7 * angle.cos(), 0.7 * angle.sin());
        [Vec3::zeros(), Vec3::new(1.3, 0.0, 0.0), a, b]
    }

    /// A rotation of `x` about the axis `(1, 2, 3)` by 0.8 rad, then a translation.
    fn moved(x: [Vec3; 4]) -> [Vec3; 4] {
        let r = nalgebra::Rotation3::from_axis_angle(
            &nalgebra::Unit::new_normalize(Vec3::new(1.0, 2.0, 3.0)),
            0.8,
        );
        x.map(|x| r * x + Vec3::new(-2.0, 0.5, 3.0))
    }

    #[test]
    fn weights_sum_to_zero_and_vanish_on_a_flat_hinge() {
        for rest in [folded(0.0), moved(folded(0.0))] {
            let k = isometric_weights(rest).unwrap();
            assert!(k.iter().sum::<Real>().abs() < 1e-5, "{k:?}");
            assert!(isometric_curvature(rest, k) < 1e-5);
        }
    }

    #[test]
    fn a_fold_without_stretch_measures_two_sines_of_half_the_angle() {
        let k = isometric_weights(folded(0.0)).unwrap();
        for angle in [0.01, 0.3, -0.7, 1.5, 2.5] {
            let c = isometric_curvature(folded(angle), k);
            let expected = 2.0 * (angle / 2.0 as Real).sin().abs();
            assert!((c - expected).abs() < 1e-5, "{angle}: {c} vs {expected}");
            // The same fold anywhere, turned any way, measures the same.
            let there = isometric_curvature(moved(folded(angle)), k);
            assert!((there - c).abs() < 1e-5, "{there} vs {c}");
        }
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let k = isometric_weights(folded(0.0)).unwrap();
        let x = [
            Vec3::new(0.05, -0.02, 0.01),
            Vec3::new(1.3, 0.1, -0.05),
            Vec3::new(0.4, 0.9, 0.3),
            Vec3::new(0.8, -0.6, 0.5),
        ];
        let v = Vec3::from(fold(x.map(LaneVec::from), k));
        let grad = k.map(|k| v.normalize() * k);
        let c = |x| isometric_curvature(x, k);
        crate::constraints::assert_gradient(x, c, grad, (1e-3, 2e-3));
    }

    #[test]
    fn rigid_projection_flattens_a_fold_at_once_and_keeps_momentum() {
        let rest = folded(0.0);
        let k = isometric_weights(rest).unwrap();
        let p = moved(folded(1.2));
        let w = [1.0, 0.5, 2.0, 0.25];
        let r = solve_isometric(p, w, k, 0.0, None, &Coeffs::rigid()).unwrap();
        let after = [0, 1, 2, 3].map(|i| p[i] + r.dp[i]);
        assert!(isometric_curvature(after, k) < 1e-5);
        let momentum: Vec3 = (0..4).map(|i| r.dp[i] / w[i]).sum();
        assert!(momentum.norm() < 1e-5, "momentum change {momentum}");
        let angular: Vec3 = (0..4).map(|i| p[i].cross(&(r.dp[i] / w[i]))).sum();
        assert!(angular.norm() < 1e-4, "angular momentum change {angular}");
    }

    #[test]
    fn a_compliant_hinge_in_equilibrium_is_left_alone() {
        let k = isometric_weights(folded(0.0)).unwrap();
        let coeffs = Coeffs {
            alpha_tilde: 10.0,
            gamma: 0.0,
            scale: 1.0,
            shake: false,
        };
        let p = folded(1.0);
        let c = isometric_curvature(p, k);
        // `C + α̃λ = 0`: the bending moment balances the load that holds the fold.
        let r = solve_isometric(p, [1.0; 4], k, -c / 10.0, None, &coeffs).unwrap();
        assert!(r.delta_lambda.abs() < 1e-7 && r.dp.iter().all(|d| d.norm() < 1e-7));
    }

    #[test]
    fn a_flat_hinge_is_not_moved() {
        let k = isometric_weights(folded(0.0)).unwrap();
        let r = solve_isometric(folded(0.0), [1.0; 4], k, 0.0, None, &Coeffs::rigid());
        assert!(r.is_none_or(|r| r.dp.iter().all(|d| d.norm() < 1e-6)));
    }

    #[test]
    fn degenerate_hinges_have_no_weights() {
        let [e0, e1, a, _] = folded(0.0);
        assert!(isometric_weights([e0, e1, a, e1]).is_none());
        assert!(isometric_weights([e0, e0, a, a]).is_none());
    }

    #[test]
    fn batched_projection_matches_the_scalar_kernel_bit_for_bit() {
        assert_batched_matches_scalar(family);
    }

    /// The hinges of [`test_hinges`], flat at rest.
    fn family(damping: Real, two_materials: bool) -> (IsometricSet, ParticleSet) {
        let push = |set: &mut IsometricSet, q: [u32; 4], x: &[Vec3], mat| {
            let k = isometric_weights(q.map(|i| x[i as usize])).unwrap();
            set.push_weighted(q, 0.0, k, mat);
        };
        test_hinges(damping, two_materials, |x| x, push)
    }
}
