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
//! the block's Poisson ratio would be wrong (`tests/integration/elastic.rs` measures both).
//!
//! The two constraints of a tet are solved together, as the paper does (a 2 × 2 system per tet,
//! its sec. 4): at rest their gradients are parallel and solving them one after the other makes
//! each undo the other.

use super::Stiffness;
use super::stiffness::{Coeffs, MaterialTable};
use crate::math::{LaneVec, Lanes, Mat3, Real, Vec3};
use crate::solver::schedule::{self, LANES};
use crate::solver::simd::{self, Batch, SimdPath, gather_vec3};
use crate::solver::view::Slot;
use std::ops::Range;

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
/// Projected serially in a fixed order (the same result on any number of threads), in batches
/// of [`LANES`] tets that share no particle, each batch as SIMD vectors (see
/// [`NeoHookeanSet::schedule`]).
///
/// Why not a [`Family`](super::family::Family) on the common schedule: its batches come from the
/// same [`schedule::schedule`] and its vectors from the same [`simd::path`], but a family's
/// constraint has one multiplier, one material and one rest value, and each method projects it
/// its own way (colored blocks in parallel, Jacobi with averaging), whereas a tet's two
/// constraints are solved together as a 2 × 2 system in `f64` and every method walks the tets
/// serially in build order. As a family they would be projected in the colored order or
/// Jacobi-style, which changes every soft body's results (the fingerprints), and the family's
/// kernel would need two multipliers and twelve rest values per constraint.
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
    /// Starts of the batches of tets that share no particle (see
    /// [`Blocks::batches`](schedule::Blocks::batches)), then the end of the last; the tets from
    /// there on (pushed since the last [`NeoHookeanSet::schedule`]) go one at a time.
    batches: Vec<usize>,
    /// One more than the largest particle id of a tet.
    span: usize,
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

/// `D_m⁻¹` by rows, `m[k][b]` its entry in row `k` and column `b`, one value per lane.
type Rows<T> = [[T; 3]; 3];

/// The rows of `inv_rest` (see [`Rows`]).
fn rows(inv_rest: &Mat3) -> Rows<Real> {
    std::array::from_fn(|k| std::array::from_fn(|b| inv_rest[(k, b)]))
}

/// The position gradient of a function of `F` whose derivative has the columns `d` (module
/// docs): `∇ᵢC = Σ_b d_b m[i − 1][b]` for `i` = 1, 2, 3, the columns of `∂C/∂F D_m⁻ᵀ`.
#[inline(always)]
// Written out, without closures or `array::map`: this must compile inside the AVX caller.
fn position_gradient<T: Lanes>(d: &[LaneVec<T>; 3], m: &Rows<T>) -> [LaneVec<T>; 4] {
    let g1 = d[0] * m[0][0] + d[1] * m[0][1] + d[2] * m[0][2];
    let g2 = d[0] * m[1][0] + d[1] * m[1][1] + d[2] * m[1][2];
    let g3 = d[0] * m[2][0] + d[1] * m[2][1] + d[2] * m[2][2];
    [-(g1 + g2 + g3), g1, g2, g3]
}

/// `[C_D, C_H]` and their position gradients `[∇C_D, ∇C_H]` (one vector per particle), one tet
/// per lane.
type ConstraintPair<T> = ([T; 2], [[LaneVec<T>; 4]; 2]);

/// The constraint pair of tets `p` with `D_m⁻¹` rows `m` and `γ` (module docs), one tet per
/// lane: `[C_D, C_H]` and their position gradients. `F`'s columns are `f_b = Σ_k e_k m[k][b]`
/// (`e_k = p_k − p₀`); `C_D = |F|_F` with `∂C_D/∂F = F / C_D` (zero for a tet collapsed to a
/// point), `C_H = det F − γ` with `∂ det F / ∂F = cof F`, whose columns are `f₂ × f₃`,
/// `f₃ × f₁` and `f₁ × f₂`.
#[inline(always)]
fn pair<T: Lanes>(p: &[LaneVec<T>; 4], m: &Rows<T>, gamma: T) -> ConstraintPair<T> {
    let e = [p[1] - p[0], p[2] - p[0], p[3] - p[0]];
    let f = [
        e[0] * m[0][0] + e[1] * m[1][0] + e[2] * m[2][0],
        e[0] * m[0][1] + e[1] * m[1][1] + e[2] * m[2][1],
        e[0] * m[0][2] + e[1] * m[1][2] + e[2] * m[2][2],
    ];
    let (eps, zero) = (T::splat(Real::EPSILON), T::splat(0.0));
    let norm = (f[0].norm_squared() + f[1].norm_squared() + f[2].norm_squared()).sqrt();
    let inv_norm = norm.select_gt(eps, T::splat(1.0) / norm, zero);
    let c_d = norm.select_gt(eps, norm, zero);
    let cof = [f[1].cross(f[2]), f[2].cross(f[0]), f[0].cross(f[1])];
    let c_h = f[0].dot(cof[0]) - gamma;
    (
        [c_d, c_h],
        [
            position_gradient(&[f[0] * inv_norm, f[1] * inv_norm, f[2] * inv_norm], m),
            position_gradient(&cof, m),
        ],
    )
}

/// What the 2 × 2 system of a tet needs of its constraints, one tet per lane (see
/// [`solve_pair`]): `w_i ∇ᵢC_j·∇ᵢC_k` per particle for `jk` = DD, DH, HH, and `∇C_j·(p − x)`.
struct System<T> {
    products: [[T; 4]; 3],
    along: [T; 2],
}

/// The [`System`] of the gradients `g` of tets whose particles have inverse masses `w` and moved
/// by `dx` in the substep.
#[inline(always)]
fn system<T: Lanes>(g: &[[LaneVec<T>; 4]; 2], w: &[T; 4], dx: &[LaneVec<T>; 4]) -> System<T> {
    let [d, h] = g;
    let zero = T::splat(0.0);
    let mut products = [[zero; 4]; 3];
    let mut along = [zero; 2];
    for i in 0..4 {
        products[0][i] = w[i] * d[i].dot(d[i]);
        products[1][i] = w[i] * d[i].dot(h[i]);
        products[2][i] = w[i] * h[i].dot(h[i]);
    }
    for (along, g) in along.iter_mut().zip(g) {
        *along = g[0].dot(dx[0]) + g[1].dot(dx[1]) + g[2].dot(dx[2]) + g[3].dot(dx[3]);
    }
    System { products, along }
}

/// Solves one tet's 2 × 2 system for `Δλ` (see [`solve_neo_hookean`]) in `f64`: at rest the two
/// gradients are parallel, and the determinant is a small difference of large products.
/// `products` and `along` are the tet's lane of a [`System`]. `None` when the system is singular
/// (all particles pinned, a rigid material with parallel gradients).
fn solve_pair(
    c: [Real; 2],
    products: [[Real; 4]; 3],
    along: [Real; 2],
    lambda: [Real; 2],
    k: [&Coeffs; 2],
) -> Option<[Real; 2]> {
    let sum = |a: [Real; 4]| -> f64 { a.iter().map(|&x| f64::from(x)).sum() };
    let [a11, a12, a22] = products.map(sum);
    let [kd, kh] = k.map(|k| {
        (
            1.0 + f64::from(k.gamma),
            f64::from(k.alpha_tilde),
            f64::from(k.gamma),
        )
    });
    let r1 = -f64::from(c[0]) - kd.1 * f64::from(lambda[0]) - kd.2 * f64::from(along[0]);
    let r2 = -f64::from(c[1]) - kh.1 * f64::from(lambda[1]) - kh.2 * f64::from(along[1]);
    let (m11, m12, m21, m22) = (kd.0 * a11 + kd.1, kd.0 * a12, kh.0 * a12, kh.0 * a22 + kh.1);
    let det = m11 * m22 - m12 * m21;
    if det.abs() <= f64::from(Real::EPSILON) * (m11 * m22).abs() || !det.is_finite() {
        return None;
    }
    Some([
        ((r1 * m22 - m12 * r2) / det) as Real,
        ((m11 * r2 - m21 * r1) / det) as Real,
    ])
}

/// The corrections `Δpᵢ = wᵢ Σⱼ sⱼ ∇ᵢCⱼ Δλⱼ` of tets with gradients `g` for the multiplier
/// changes `dl` (`s` the materials' `scale`s), zero in the lanes where `solved` is not above ½.
#[inline(always)]
// Plain loops: this must compile inside the AVX caller.
#[allow(clippy::needless_range_loop)]
fn corrections<T: Lanes>(
    g: &[[LaneVec<T>; 4]; 2],
    w: &[T; 4],
    dl: [T; 2],
    scale: [T; 2],
    solved: T,
) -> [LaneVec<T>; 4] {
    let (s_d, s_h) = (scale[0] * dl[0], scale[1] * dl[1]);
    let (half, zero) = (T::splat(0.5), T::splat(0.0));
    let mut dp = [LaneVec([zero; 3]); 4];
    for i in 0..4 {
        let d = ((g[0][i] * s_d + g[1][i] * s_h) * w[i]).0;
        for c in 0..3 {
            dp[i].0[c] = solved.select_gt(half, d[c], zero);
        }
    }
    dp
}

/// `[C_D, C_H]` of the tet `p` with inverse rest shape `inv_rest` and `γ` `gamma`, and their
/// position gradients (module docs).
pub fn constraint_pair(p: [Vec3; 4], inv_rest: &Mat3, gamma: Real) -> ([Real; 2], [[Vec3; 4]; 2]) {
    let (c, g) = pair(&p.map(LaneVec::from), &rows(inv_rest), gamma);
    (c, g.map(|g| g.map(Vec3::from)))
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
/// material with parallel gradients) gets a zero correction. The batched projection of
/// [`NeoHookeanSet`] runs the same arithmetic on eight tets at once, so it gives these bits.
pub fn solve_neo_hookean(
    p: [Vec3; 4],
    w: [Real; 4],
    inv_rest: &Mat3,
    gamma: Real,
    lambda: [Real; 2],
    dx: [Vec3; 4],
    k: [&Coeffs; 2],
) -> TetCorrection {
    let (c, g) = pair(&p.map(LaneVec::from), &rows(inv_rest), gamma);
    let sys = system(&g, &w, &dx.map(LaneVec::from));
    let solved = solve_pair(c, sys.products, sys.along, lambda, k);
    let dl = solved.unwrap_or([0.0; 2]);
    let dp = corrections(
        &g,
        &w,
        dl,
        k.map(|k| k.scale),
        Real::from(u8::from(solved.is_some())),
    );
    TetCorrection {
        dp: dp.map(Vec3::from),
        delta_lambda: dl,
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
        self.span = ids.iter().fold(self.span, |s, &i| s.max(i as usize + 1));
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

    /// Reorders the tets into batches of [`LANES`] that share no particle (see [`schedule`]),
    /// keeping the build order between tets that share one: walking the batches gives the
    /// result of walking the tets in build order.
    pub fn schedule(&mut self) {
        let s = schedule::schedule(&self.ids);
        schedule::permute(&mut self.ids, &s.order);
        schedule::permute(&mut self.inv_rest, &s.order);
        schedule::permute(&mut self.gamma, &s.order);
        schedule::permute(&mut self.mat, &s.order);
        let lambda = &self.lambda;
        self.lambda = s
            .order
            .iter()
            .flat_map(|&t| [lambda[2 * t as usize], lambda[2 * t as usize + 1]])
            .collect();
        self.batches = s.blocks.batches;
    }

    /// Projects every tet once, in order, on the packed positions `slots` with the substep's
    /// start positions `x` (relative to the same origins; see [`crate::solver::view`]): the
    /// scheduled batches as SIMD vectors (those of [`simd::path`]), then the tets pushed since
    /// one by one.
    pub fn project_serial(&mut self, slots: &mut [Slot], x: &[Vec3]) {
        assert!(
            self.span <= slots.len() && self.span <= x.len(),
            "tets reach past the particles"
        );
        // SAFETY: the ids are below `slots.len()` (checked above), and `simd::path` is one the
        // processor has.
        unsafe { self.project_on(simd::path(), slots, x) }
    }

    /// [`NeoHookeanSet::project_as`] with the vectors of `path`: AVX's for AVX and wider (a tet's
    /// 2 × 2 systems are solved lane by lane, so 32 registers would not pay).
    ///
    /// # Safety
    /// The processor has `path`, and the contract of [`NeoHookeanSet::project_as`].
    unsafe fn project_on(&mut self, path: SimdPath, slots: &mut [Slot], x: &[Vec3]) {
        // SAFETY (both arms): forwarded from the caller.
        unsafe {
            match path {
                #[cfg(target_arch = "x86_64")]
                SimdPath::Avx2 | SimdPath::Avx512 => self.project_avx(slots, x),
                _ => self.project_as::<wide::f32x8>(slots, x),
            }
        }
    }

    /// [`NeoHookeanSet::project_as`] with AVX vectors, compiled for AVX.
    ///
    /// # Safety
    /// The processor has AVX, and the contract of [`NeoHookeanSet::project_as`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn project_avx(&mut self, slots: &mut [Slot], x: &[Vec3]) {
        // SAFETY: forwarded from the caller.
        unsafe { self.project_as::<crate::solver::simd::avx::F32x8>(slots, x) }
    }

    /// [`NeoHookeanSet::project_serial`] with the batches as vectors `V`.
    ///
    /// # Safety
    /// Every id is below `slots.len()` and `x.len()`.
    #[inline(always)]
    unsafe fn project_as<V: Batch>(&mut self, slots: &mut [Slot], x: &[Vec3]) {
        let end = self.batches.last().copied().unwrap_or(0);
        for b in 1..self.batches.len() {
            let tets = self.batches[b - 1]..self.batches[b];
            // SAFETY: forwarded from the caller; the tets of a batch share no particle.
            unsafe { self.project_batch::<V>(tets, slots, x) };
        }
        for t in end..self.len() {
            self.project_tet(t, slots, x);
        }
    }

    /// Projects tet `t` alone with [`solve_neo_hookean`].
    fn project_tet(&mut self, t: usize, slots: &mut [Slot], x: &[Vec3]) {
        let ids = self.ids[t].map(|i| i as usize);
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

    /// Projects the tets `tets` (at most [`LANES`], sharing no particle) at once, one per lane of
    /// vectors `V`: [`solve_neo_hookean`]'s arithmetic, each tet's 2 × 2 system solved in its
    /// lane. The unused lanes of a partial batch repeat its last tet, and so write the values
    /// that tet writes.
    ///
    /// # Safety
    /// As [`NeoHookeanSet::project_as`].
    #[inline(always)]
    // Plain loops over lanes and particles: this must compile inside the AVX caller.
    #[allow(clippy::needless_range_loop)]
    unsafe fn project_batch<V: Batch>(
        &mut self,
        tets: Range<usize>,
        slots: &mut [Slot],
        x: &[Vec3],
    ) {
        let lane = |l: usize| (tets.start + l).min(tets.end - 1);
        let base = slots.as_mut_ptr();
        let zero = V::splat(0.0);
        let (mut ptrs, mut p, mut w) = (
            [[std::ptr::null_mut(); LANES]; 4],
            [LaneVec([zero; 3]); 4],
            [zero; 4],
        );
        let mut dx = [LaneVec([zero; 3]); 4];
        for j in 0..4 {
            let mut particles = [0; LANES];
            for l in 0..LANES {
                particles[l] = self.ids[lane(l)][j] as usize;
                // SAFETY: the id is below `slots.len()` (the caller's contract).
                ptrs[j][l] = unsafe { base.add(particles[l]) };
            }
            // SAFETY: valid, aligned slots of `slots`, borrowed exclusively.
            let [px, py, pz, pw] = unsafe { V::gather(&ptrs[j]) };
            (p[j], w[j]) = (LaneVec([px, py, pz]), pw);
            dx[j] = p[j] - gather_vec3::<V>(x, &particles);
        }
        let mut m: Rows<V> = [[zero; 3]; 3];
        for k in 0..3 {
            for b in 0..3 {
                m[k][b] = V::from_array(std::array::from_fn(|l| self.inv_rest[lane(l)][(k, b)]));
            }
        }
        let gamma = V::from_array(std::array::from_fn(|l| self.gamma[lane(l)]));
        let (c, g) = pair(&p, &m, gamma);
        let sys = system(&g, &w, &dx);
        let (c, along) = (
            [c[0].to_array(), c[1].to_array()],
            [sys.along[0].to_array(), sys.along[1].to_array()],
        );
        let mut products = [[[0.0; LANES]; 4]; 3];
        for jk in 0..3 {
            for i in 0..4 {
                products[jk][i] = sys.products[jk][i].to_array();
            }
        }
        let (mut dl, mut scale, mut solved) = ([[0.0; LANES]; 2], [[0.0; LANES]; 2], [0.0; LANES]);
        for l in 0..LANES {
            let t = lane(l);
            let [kd, kh] = self.mat[t];
            let k = [
                &self.materials.coeffs[kd as usize],
                &self.materials.coeffs[kh as usize],
            ];
            let lambda = [self.lambda[2 * t], self.lambda[2 * t + 1]];
            let q = std::array::from_fn(|jk| std::array::from_fn(|i| products[jk][i][l]));
            let (c, along) = ([c[0][l], c[1][l]], [along[0][l], along[1][l]]);
            if let Some(d) = solve_pair(c, q, along, lambda, k) {
                (dl[0][l], dl[1][l], solved[l]) = (d[0], d[1], 1.0);
            }
            (scale[0][l], scale[1][l]) = (k[0].scale, k[1].scale);
        }
        let dp = corrections(
            &g,
            &w,
            [V::from_array(dl[0]), V::from_array(dl[1])],
            [V::from_array(scale[0]), V::from_array(scale[1])],
            V::from_array(solved),
        );
        for j in 0..4 {
            let [x, y, z] = (p[j] + dp[j]).0;
            // SAFETY: as for the gather; repeated lanes write the same values.
            unsafe { V::scatter([x, y, z, w[j]], &ptrs[j]) };
        }
        for (l, t) in tets.enumerate() {
            self.lambda[2 * t] += dl[0][l];
            self.lambda[2 * t + 1] += dl[1][l];
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
        let (c, grads) = constraint_pair(q, &inv_rest, gamma);
        // The values themselves: |F|_F and det F − γ of the deformation gradient.
        let f = deformation_gradient(q, &inv_rest);
        assert!((c[0] - f.norm()).abs() < 1e-5 * f.norm());
        assert!((c[1] - (f.determinant() - gamma)).abs() < 1e-5);
        for (n, grad) in grads.into_iter().enumerate() {
            let value = |q| constraint_pair(q, &inv_rest, gamma).0[n];
            crate::constraints::assert_gradient(q, value, grad, (1e-3, 2e-3));
        }
    }

    /// The tets of the unit cube's lattice at resolution 6, squashed and sheared, some particles
    /// pinned, damped, scheduled into batches (with a tail of tets pushed after), projected
    /// twice with the portable vectors and (where the processor has it) AVX: the positions and
    /// multipliers of [`solve_neo_hookean`] walking the tets one after another in the
    /// scheduled order, bit for bit.
    #[test]
    fn batched_projection_matches_the_scalar_kernel_bit_for_bit() {
        let lattice =
            crate::mesh::tetrahedralize::tetrahedralize(&crate::mesh::generate::cube(), 6);
        let x = &lattice.positions;
        let tets = schedule::order_for_batches(lattice.tets.clone());
        let mut set = NeoHookeanSet::default();
        for (t, &tet) in tets.iter().enumerate() {
            let youngs = if t % 5 == 1 { 2e4 } else { 3e3 };
            set.push(tet, x, youngs, 0.4, 0.003);
        }
        set.schedule();
        set.push(tets[7], x, 1e4, 0.3, 0.0);
        set.push(tets[40], x, 1e4, 0.3, 0.0);
        set.materials.resolve(0.005, 2);
        let full = set
            .batches
            .windows(2)
            .filter(|w| w[1] - w[0] == LANES)
            .count();
        assert!(full * 2 > set.batches.len(), "{full} full batches");
        let slots: Vec<Slot> = (0u32..)
            .zip(x)
            .map(|(i, p)| {
                let h = (i * 7 % 11) as Real * 0.004;
                let w = if i % 29 == 0 {
                    0.0
                } else {
                    1.0 + (i % 3) as Real
                };
                Slot::new(p.x + 0.2 * p.y, p.y * 0.8 + h, p.z, w)
            })
            .collect();
        let starts: Vec<Vec3> = x.iter().map(|p| p * 0.99).collect();
        // The scalar walk: every tet one after another with `solve_neo_hookean`.
        let (mut want, mut want_set) = (slots.clone(), set.clone());
        for _ in 0..2 {
            for t in 0..want_set.len() {
                want_set.project_tet(t, &mut want, &starts);
            }
        }
        let bits = |s: &[Slot], l: &[Real]| -> Vec<u32> {
            s.iter()
                .flat_map(|s| [s.p.x, s.p.y, s.p.z, s.w])
                .chain(l.iter().copied())
                .map(f32::to_bits)
                .collect()
        };
        let moved = want.iter().zip(&slots).filter(|(a, b)| a.p != b.p).count();
        assert!(moved > slots.len() / 2, "{moved} particles moved");
        for path in SimdPath::ALL.into_iter().filter(|&p| p <= simd::detected()) {
            let (mut got, mut got_set) = (slots.clone(), set.clone());
            for _ in 0..2 {
                // SAFETY: the ids are particles of `got` and `starts`; the processor has `path`.
                unsafe { got_set.project_on(path, &mut got, &starts) };
            }
            assert_eq!(
                bits(&got, &got_set.lambda),
                bits(&want, &want_set.lambda),
                "{path}"
            );
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
