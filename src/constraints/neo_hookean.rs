//! XPBD Neo-Hookean tets: an isotropic solid given by Young's modulus `E` and Poisson ratio `ν`
//! (Macklin and Müller 2021, "A Constraint-based Formulation of Stable Neo-Hookean Materials",
//! MIG '21).
//!
//! Each tet of rest volume `V` holds two constraints on its deformation gradient
//! `F = D_s D_m⁻¹` (`D_s` the columns `pᵢ − p₀`, `i` = 1, 2, 3, `D_m` the same at rest):
//!
//! ```text
//! deviatoric   C_D = |F|_F = √tr(FᵀF)      ∂C_D/∂F = F / C_D        α_D = 1 / (μ V)
//! hydrostatic  C_H = det F − γ,  γ = 1 + μ/λ   ∂C_H/∂F = cof F     α_H = 1 / (λ V)
//! ```
//!
//! whose XPBD energy `C_D² / (2 α_D) + C_H² / (2 α_H)` is `V` times the stable Neo-Hookean
//! density `½ μ (I_C − 3) + ½ λ (J − γ)²` (up to a constant); `γ` makes the rest shape stress
//! free. The position gradients are `∇ᵢC = (∂C/∂F D_m⁻ᵀ)` column `i − 1` for `i` = 1, 2, 3 and
//! `∇₀C = −(∇₁C + ∇₂C + ∇₃C)`.
//!
//! **Lamé parameters.** Linearized at rest (`F = I + H`, `J ≈ 1 + tr H + ½ ((tr H)² − tr H²)`),
//! the density is `μ |ε|² + ½ (λ − μ) (tr ε)²` for the small strain `ε`, so the small-strain
//! solid of `E` and `ν` takes `μ = E / (2 (1 + ν))` and `λ = λ_L + μ`, with Lamé's
//! `λ_L = E ν / ((1 + ν)(1 − 2ν))` (see [`lame`]): the reparametrization of Smith, de Goes and
//! Kim 2018, "Stable Neo-Hookean Flesh Simulation", sec. 3.4, for this energy. With `λ_L` itself
//! the block's Poisson ratio would be wrong (`tests/elastic.rs` measures both).
//!
//! The two constraints of a tet are solved together, as the paper does (a 2 × 2 system per tet,
//! its sec. 4): at rest their gradients are parallel and solving them one after the other makes
//! each undo the other.

use super::Stiffness;
use super::stiffness::{Coeffs, MaterialTable};
use crate::math::{Mat3, Real, Vec3};
use crate::solver::view::Slot;

/// The Lamé parameters `(μ, λ)` of the constraint pair for Young's modulus `youngs` (Pa) and
/// Poisson ratio `poisson` in (−1, ½): `μ = E / (2 (1 + ν))`, `λ = E ν / ((1 + ν)(1 − 2ν)) + μ`
/// (see the module docs), both in Pa.
pub fn lame(youngs: Real, poisson: Real) -> (Real, Real) {
    let mu = youngs / (2.0 * (1.0 + poisson));
    let lambda = youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
    (mu, lambda + mu)
}

/// The Neo-Hookean tets of soft bodies: per tet its four particles (positively oriented), the
/// inverse rest shape `D_m⁻¹`, `γ`, and two materials and multipliers, the deviatoric one first.
/// Projected serially in a fixed order (the same result on any number of threads).
#[derive(Clone, Debug, Default)]
pub struct NeoHookeanSet {
    /// The particles of each tet (world indices).
    pub ids: Vec<[u32; 4]>,
    /// `D_m⁻¹` of each tet, 1/m.
    pub inv_rest: Vec<Mat3>,
    /// `γ = 1 + μ/λ` of each tet (from its materials' compliances).
    pub gamma: Vec<Real>,
    /// The deviatoric and hydrostatic materials of each tet (XPBD compliances `1 / (μ V)` and
    /// `1 / (λ V)`, 1/(Pa·m³)).
    pub mat: Vec<[u16; 2]>,
    /// Lagrange multipliers accumulated in the current substep, two per tet (deviatoric,
    /// hydrostatic).
    pub lambda: Vec<Real>,
    /// The materials.
    pub materials: MaterialTable,
}

/// What [`solve_neo_hookean`] does to one tet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TetCorrection {
    /// Position change of each particle, m.
    pub dp: [Vec3; 4],
    /// Multiplier changes (deviatoric, hydrostatic).
    pub delta_lambda: [Real; 2],
}

/// The deformation gradient `F = D_s D_m⁻¹` of the tet `p`.
#[inline]
pub fn deformation_gradient(p: [Vec3; 4], inv_rest: &Mat3) -> Mat3 {
    Mat3::from_columns(&[p[1] - p[0], p[2] - p[0], p[3] - p[0]]) * inv_rest
}

/// The position gradient of a function of `F` whose derivative is `dc_df` (module docs).
#[inline]
fn position_gradient(dc_df: Mat3, inv_rest: &Mat3) -> [Vec3; 4] {
    let h = dc_df * inv_rest.transpose();
    let (g1, g2, g3): (Vec3, Vec3, Vec3) =
        (h.column(0).into(), h.column(1).into(), h.column(2).into());
    [-(g1 + g2 + g3), g1, g2, g3]
}

/// `C_D = |F|_F` of a tet of deformation gradient `f` (see [`deformation_gradient`]) and its
/// position gradient (module docs); zero for a tet collapsed to a point.
#[inline]
pub fn deviatoric(f: &Mat3, inv_rest: &Mat3) -> (Real, [Vec3; 4]) {
    let c = f.norm();
    if c > Real::EPSILON {
        (c, position_gradient(f / c, inv_rest))
    } else {
        (0.0, [Vec3::zeros(); 4])
    }
}

/// `C_H = det F − γ` of a tet of deformation gradient `f` (see [`deformation_gradient`]) and its
/// position gradient, `∂ det F / ∂F = cof F` (the columns `f₂ × f₃`, `f₃ × f₁`, `f₁ × f₂`;
/// module docs).
#[inline]
pub fn hydrostatic(f: &Mat3, inv_rest: &Mat3, gamma: Real) -> (Real, [Vec3; 4]) {
    let (f1, f2, f3): (Vec3, Vec3, Vec3) =
        (f.column(0).into(), f.column(1).into(), f.column(2).into());
    let cof = Mat3::from_columns(&[f2.cross(&f3), f3.cross(&f1), f1.cross(&f2)]);
    (
        f1.dot(&cof.column(0)) - gamma,
        position_gradient(cof, inv_rest),
    )
}

/// Projects the Neo-Hookean constraint pair of one tet (module docs; Macklin and Müller 2021,
/// eqs. 9–11 and their simultaneous solve): with `aⱼₖ = Σᵢ wᵢ ∇ᵢCⱼ · ∇ᵢCₖ`, the XPBD update of
/// Macklin et al. 2016 (eq. 18, damping eq. 26) for both at once,
///
/// ```text
/// ((1 + γⱼ) Σₖ aⱼₖ Δλₖ) + α̃ⱼ Δλⱼ = −Cⱼ − α̃ⱼ λⱼ − γⱼ ∇Cⱼ·(x − xⁿ),   Δpᵢ = wᵢ Σⱼ sⱼ ∇ᵢCⱼ Δλⱼ
/// ```
///
/// (`γⱼ`, `α̃ⱼ`, `sⱼ` the coefficients `k` of each material; `dx` holds `p − x` of each particle,
/// read only by damping). A tet whose 2 × 2 system is singular (all particles pinned, a rigid
/// material with parallel gradients) gets a zero correction.
pub fn solve_neo_hookean(
    p: [Vec3; 4],
    w: [Real; 4],
    inv_rest: &Mat3,
    gamma: Real,
    lambda: [Real; 2],
    dx: [Vec3; 4],
    k: [&Coeffs; 2],
) -> TetCorrection {
    // `F` once for both constraints.
    let f = deformation_gradient(p, inv_rest);
    let (c_d, g_d) = deviatoric(&f, inv_rest);
    let (c_h, g_h) = hydrostatic(&f, inv_rest, gamma);
    let dot = |a: &[Vec3; 4], b: &[Vec3; 4]| -> f64 {
        (0..4).map(|i| f64::from(w[i] * a[i].dot(&b[i]))).sum()
    };
    let along = |g: &[Vec3; 4]| -> Real { (0..4).map(|i| g[i].dot(&dx[i])).sum() };
    let (a11, a12, a22) = (dot(&g_d, &g_d), dot(&g_d, &g_h), dot(&g_h, &g_h));
    let [kd, kh] = k.map(|k| {
        (
            1.0 + f64::from(k.gamma),
            f64::from(k.alpha_tilde),
            f64::from(k.gamma),
        )
    });
    let r1 = -f64::from(c_d) - kd.1 * f64::from(lambda[0]) - kd.2 * f64::from(along(&g_d));
    let r2 = -f64::from(c_h) - kh.1 * f64::from(lambda[1]) - kh.2 * f64::from(along(&g_h));
    let (m11, m12, m21, m22) = (kd.0 * a11 + kd.1, kd.0 * a12, kh.0 * a12, kh.0 * a22 + kh.1);
    let det = m11 * m22 - m12 * m21;
    if det.abs() <= f64::from(Real::EPSILON) * (m11 * m22).abs() || !det.is_finite() {
        return TetCorrection {
            dp: [Vec3::zeros(); 4],
            delta_lambda: [0.0; 2],
        };
    }
    let dl_d = ((r1 * m22 - m12 * r2) / det) as Real;
    let dl_h = ((m11 * r2 - m21 * r1) / det) as Real;
    let (s_d, s_h) = (k[0].scale * dl_d, k[1].scale * dl_h);
    TetCorrection {
        dp: std::array::from_fn(|i| (g_d[i] * s_d + g_h[i] * s_h) * w[i]),
        delta_lambda: [dl_d, dl_h],
    }
}

impl NeoHookeanSet {
    /// Number of tets.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the set holds no tet.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Adds the tet `ids`, at rest at `x` (positively oriented), of Young's modulus `youngs` (Pa),
    /// Poisson ratio `poisson` and constraint damping `damping` (s; see
    /// [`Stiffness::ElasticSolid`]); a flat tet (no volume) is left out.
    pub fn push(&mut self, ids: [u32; 4], x: &[Vec3], youngs: Real, poisson: Real, damping: Real) {
        let p = ids.map(|i| x[i as usize]);
        let d_m = Mat3::from_columns(&[p[1] - p[0], p[2] - p[0], p[3] - p[0]]);
        let volume = d_m.determinant() / 6.0;
        let Some(inv_rest) = d_m.try_inverse().filter(|_| volume > 0.0) else {
            return;
        };
        let (mu, lambda) = lame(youngs, poisson);
        let mat = [mu, lambda].map(|modulus| {
            let stiffness = Stiffness::Elastic {
                stiffness: modulus,
                damping,
            };
            self.materials.add_element(stiffness, volume)
        });
        let compliance = mat.map(|m| match self.materials.stiffness[m as usize] {
            Stiffness::Xpbd { compliance, .. } => compliance,
            other => unreachable!("elastic elements are XPBD, not {other:?}"),
        });
        self.ids.push(ids);
        self.inv_rest.push(inv_rest);
        // `μ/λ` of the rounded compliances, so that the rest shape stays stress free.
        self.gamma.push(1.0 + compliance[1] / compliance[0]);
        self.mat.push(mat);
        self.lambda.extend([0.0, 0.0]);
    }

    /// The largest relative change of length of any line through tet `t` at positions `x`:
    /// `max |σᵢ − 1|` over the singular values `σᵢ` of its deformation gradient (the principal
    /// stretches). No edge of the tet changes its length by a larger fraction, so this is the
    /// tets' counterpart of a distance constraint's `|ℓ − d| / d`; a shear shows where the
    /// volume strain `|det F − 1|` does not.
    pub fn strain(&self, x: &[Vec3], t: usize) -> Real {
        let f = deformation_gradient(self.ids[t].map(|i| x[i as usize]), &self.inv_rest[t]);
        (f.transpose() * f)
            .symmetric_eigenvalues()
            .iter()
            .map(|&stretch_sq| (stretch_sq.max(0.0).sqrt() - 1.0).abs())
            .fold(0.0, Real::max)
    }

    /// Projects every tet once, in order, on the packed positions `slots` with the substep's
    /// start positions `x` (relative to the same origins; see [`crate::solver::view`]).
    pub fn project_serial(&mut self, slots: &mut [Slot], x: &[Vec3]) {
        for (t, ids) in self.ids.iter().enumerate() {
            let ids = ids.map(|i| i as usize);
            let p = ids.map(|i| slots[i].p);
            let w = ids.map(|i| slots[i].w);
            let dx = std::array::from_fn(|j| p[j] - x[ids[j]]);
            let k = self.mat[t].map(|m| &self.materials.coeffs[m as usize]);
            let lambda = [self.lambda[2 * t], self.lambda[2 * t + 1]];
            let r = solve_neo_hookean(p, w, &self.inv_rest[t], self.gamma[t], lambda, dx, k);
            for (i, dp) in ids.into_iter().zip(r.dp) {
                slots[i].p += dp;
            }
            self.lambda[2 * t] += r.delta_lambda[0];
            self.lambda[2 * t + 1] += r.delta_lambda[1];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tet() -> [Vec3; 4] {
        [
            Vec3::new(0.1, 0.0, -0.2),
            Vec3::new(1.0, 0.2, 0.1),
            Vec3::new(0.2, 0.9, 0.0),
            Vec3::new(0.0, 0.1, 1.1),
        ]
    }

    /// The rest tet's `D_m⁻¹` and a deformed copy of it.
    fn rest_and_deformed() -> (Mat3, [Vec3; 4]) {
        let p = tet();
        let d_m = Mat3::from_columns(&[p[1] - p[0], p[2] - p[0], p[3] - p[0]]);
        let q = p.map(|x| Vec3::new(1.1 * x.x + 0.2 * x.y, 0.8 * x.y, x.z - 0.1 * x.x));
        (d_m.try_inverse().unwrap(), q)
    }

    #[test]
    fn gradients_match_finite_differences() {
        let (inv_rest, q) = rest_and_deformed();
        let gamma = 1.3;
        let f = |q| deformation_gradient(q, &inv_rest);
        let value = |q: [Vec3; 4]| {
            [
                deviatoric(&f(q), &inv_rest).0,
                hydrostatic(&f(q), &inv_rest, gamma).0,
            ]
        };
        let grads = [
            deviatoric(&f(q), &inv_rest).1,
            hydrostatic(&f(q), &inv_rest, gamma).1,
        ];
        for (c, grad) in grads.into_iter().enumerate() {
            crate::constraints::assert_gradient(q, |q| value(q)[c], grad, (1e-3, 2e-3));
        }
    }

    fn set_of_one_tet(youngs: Real, poisson: Real) -> (NeoHookeanSet, Vec<Slot>, Vec<Vec3>) {
        let x = tet().to_vec();
        let mut set = NeoHookeanSet::default();
        set.push([0, 1, 2, 3], &x, youngs, poisson, 0.0);
        set.materials.resolve(0.01, 1);
        let slots = x.iter().map(|p| Slot::new(p.x, p.y, p.z, 1.0)).collect();
        (set, slots, x)
    }

    #[test]
    fn the_rest_shape_is_stress_free() {
        let (mut set, mut slots, x) = set_of_one_tet(1e5, 0.3);
        set.project_serial(&mut slots, &x);
        for (s, x) in slots.iter().zip(&x) {
            assert!((s.p - x).norm() < 1e-6, "{:?} moved from {x:?}", s.p);
        }
    }

    /// A tet squashed to 70% of its height, its particles of unequal masses, relaxed by
    /// substeps that start at rest (one projection each, from the positions the last one left):
    /// each keeps the momentum, and the tet returns to its rest shape. The substep is small
    /// enough for the material (`α̃` of the order of `Σ wᵢ |∇ᵢC|²`, see `docs/elastic.md`).
    #[test]
    fn a_squashed_tet_springs_back_and_keeps_its_momentum() {
        let (mut set, mut slots, _) = set_of_one_tet(1e4, 0.25);
        let w = [1.0, 2.0, 0.5, 1.0];
        for (s, &w) in slots.iter_mut().zip(&w) {
            s.p.y *= 0.7;
            s.w = w;
        }
        let inv_rest = set.inv_rest[0];
        let strain = |s: &[Slot]| {
            let f = deformation_gradient(std::array::from_fn(|i| s[i].p), &inv_rest);
            (f.transpose() * f - Mat3::identity()).norm()
        };
        let before = strain(&slots);
        for _ in 0..50 {
            let start: Vec<Vec3> = slots.iter().map(|s| s.p).collect();
            set.lambda.fill(0.0);
            set.project_serial(&mut slots, &start);
            let momentum: Vec3 = (0..4).map(|i| (slots[i].p - start[i]) / w[i]).sum();
            assert!(momentum.norm() < 1e-5, "{momentum:?}");
        }
        assert!(
            strain(&slots) < 1e-3 * before,
            "{} vs {before}",
            strain(&slots)
        );
    }

    #[test]
    fn pinned_tet_does_not_move() {
        let (inv_rest, q) = rest_and_deformed();
        let k = Coeffs::rigid();
        let r = solve_neo_hookean(
            q,
            [0.0; 4],
            &inv_rest,
            1.2,
            [0.0; 2],
            [Vec3::zeros(); 4],
            [&k, &k],
        );
        assert!(r.dp.iter().all(|d| *d == Vec3::zeros()));
    }

    #[test]
    fn lame_parameters_give_the_small_strain_moduli() {
        let (e, nu) = (2e5, 0.3);
        let (mu, lambda) = lame(e, nu);
        // The linearized density μ|ε|² + ½(λ − μ)(tr ε)² is the isotropic solid of E and ν.
        let lambda_l = lambda - mu;
        assert!((mu * (3.0 * lambda_l + 2.0 * mu) / (lambda_l + mu) - e).abs() < 1e-3 * e);
        assert!((lambda_l / (2.0 * (lambda_l + mu)) - nu).abs() < 1e-6);
    }
}
