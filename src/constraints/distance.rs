//! Distance constraints: stretch, shear, rope segments and the cross-distance bending variant.

use super::family::{Family, FamilyKind, Projection};
use super::stiffness::{Coeffs, delta_lambda};
use crate::math::{LaneVec, Lanes, Real, Vec3};

/// Distance constraints (see [`Family`]); `rest` holds the rest lengths `d`, m.
pub type DistanceSet = Family<2, Distance>;

/// The kind of [`DistanceSet`]: its kernel is [`solve_distance`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Distance;

/// Position corrections of a two-particle constraint and its multiplier change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairCorrection {
    /// Correction of the first particle, m.
    pub dp0: Vec3,
    /// Correction of the second particle, m.
    pub dp1: Vec3,
    /// Change of the multiplier.
    pub delta_lambda: Real,
}

/// Projects one distance constraint.
///
/// `C(p0, p1) = |p0 − p1| − d`, `∇_{p0} C = n`, `∇_{p1} C = −n` with `n = (p0 − p1) / |p0 − p1|`
/// (Müller et al. 2007, "Position Based Dynamics", sec. 3.3; XPBD update of Macklin et al. 2016).
/// `dx_rel` is `(p0 − x0) − (p1 − x1)`, the relative displacement in this substep, used by XPBD
/// damping and, when `k.shake`, for the direction at the substep's start (`shake_step`; `None`
/// without either). Returns `None` for coincident particles.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn solve_distance(
    p0: Vec3,
    w0: Real,
    p1: Vec3,
    w1: Real,
    d: Real,
    lambda: Real,
    dx_rel: Option<Vec3>,
    k: &Coeffs,
) -> Option<PairCorrection> {
    // `dx_rel` as the first particle's displacement and zero as the second's: `dx0 − dx1` is
    // `dx_rel`, exactly.
    let dx = dx_rel.map(|d| [d.into(), LaneVec([0.0; 3])]);
    let r = Distance::project([p0.into(), p1.into()], [w0, w1], d, [0.0; 4], lambda, dx, k);
    (r.applied > 0.0).then(|| PairCorrection {
        dp0: r.dp[0].into(),
        dp1: r.dp[1].into(),
        delta_lambda: r.delta_lambda,
    })
}

/// The arithmetic of [`solve_distance`], for one constraint or for one per lane of a batch (see
/// [`Lanes`]): returns the multiplier change `Δλ`, the scale `s` of the correction
/// (`Δp0 = (w0 diff) s`, `Δp1 = −(w1 diff) s`) and `|diff|`, for `diff = p0 − p1`,
/// `w_sum = w0 + w1` and `diff_dot_dx = diff · dx_rel`. `Δλ` and `s` are 0 for coincident
/// particles.
///
/// The order of the operations keeps the chain that waits on the square root short: `1 / |diff|`
/// and the stiffness scale are combined while `Δλ` is computed, so `s` is one multiplication
/// after it, and `w diff` is ready before `s`, rather than scaling `diff` by `Δλ`, `k`,
/// `1 / |diff|` and `w` one after another (see `docs/performance.md`).
#[inline(always)]
fn distance_step<T: Lanes>(
    diff: [T; 3],
    w_sum: T,
    d: T,
    lambda: T,
    diff_dot_dx: Option<T>,
    k: &Coeffs<T>,
) -> (T, T, T) {
    let (eps, zero) = (T::splat(Real::EPSILON), T::splat(0.0));
    let len = (diff[0] * diff[0] + diff[1] * diff[1] + diff[2] * diff[2]).sqrt();
    // `n = diff / len`, with one division instead of three.
    let inv_len = len.select_gt(eps, T::splat(1.0) / len, zero);
    let grad_dot_dx = diff_dot_dx.map(|g| g * inv_len);
    let delta_lambda = delta_lambda(len - d, w_sum, grad_dot_dx, lambda, k);
    (
        len.select_gt(eps, delta_lambda, zero),
        delta_lambda * (k.scale * inv_len),
        len,
    )
}

/// The smallest cosine between a distance constraint's start and current directions at which
/// [`SolverParams::shake`](crate::SolverParams::shake) projects it along the start one (25.8°).
/// Measured on W at N = 64, 10 x 10: with a bound of ½ (60°) the fixed-direction sweeps did not
/// converge where the pins stretch the cloth (the mean stretch 5.2% at 10 iterations and 13% at
/// 40, against 0.19% and 0.059% projected along the current direction); with 0.9, 0.30% and
/// 0.11%; with 0.99, 0.30% and 0.092%. The larger bound leaves more of a fast chain's turns to
/// the dissipating projection; with 0.9 the chain of `tests/integration/energy.rs` keeps its
/// energy.
const SHAKE_MIN_COS: Real = 0.9;

/// The projection of a distance constraint along its direction at the substep's start (SHAKE,
/// Ryckaert, Ciccotti and Berendsen 1977), for `diff = p0 − p1` now and `start = x0 − x1` at the
/// substep's start.
///
/// `C` and `∇C` are those of [`solve_distance`]; the correction is `Δp0 = w0 Δλ n⁰`,
/// `Δp1 = −w1 Δλ n⁰` along `n⁰ = start / |start|` instead of `n = diff / |diff|`, with `Δλ` the
/// XPBD update for the linearized constraint along it: `∇C·M⁻¹∇C` becomes
/// `(w0 + w1) (n·n⁰)`. The force then acts along the constraint's gradient at the substep's
/// start, as in the Störmer-Verlet step with constraints, which is symplectic: converged, it keeps
/// a rigid chain's energy, where the projection along the current direction (an implicit step)
/// dissipates it (Leimkuhler and Reich 2004, "Simulating Hamiltonian Dynamics", sec. 7.2). Where
/// the two directions are further apart than [`SHAKE_MIN_COS`] allows (a fast turn in one
/// substep, or coincident start positions) the step along `n⁰` is ill-conditioned, and the
/// constraint is projected along `n` as [`solve_distance`] does.
#[inline(always)]
fn shake_step<T: Lanes>(
    diff: LaneVec<T>,
    start: LaneVec<T>,
    w: [T; 2],
    d: T,
    lambda: T,
    diff_dot_dx: Option<T>,
    k: &Coeffs<T>,
) -> Projection<T, 2> {
    let (eps, zero, one) = (T::splat(Real::EPSILON), T::splat(0.0), T::splat(1.0));
    let min_cos = T::splat(SHAKE_MIN_COS);
    let len = diff.norm_squared().sqrt();
    let inv_len = len.select_gt(eps, one / len, zero);
    let start_len = start.norm_squared().sqrt();
    let inv_start = start_len.select_gt(eps, one / start_len, zero);
    let cos = diff.dot(start) * (inv_len * inv_start);
    // Written out rather than with `array::from_fn`: a closure is not compiled with the walk's
    // target features, and its SIMD selects would be calls.
    let (a, b) = (start.0, diff.0);
    let dir = LaneVec([
        cos.select_gt(min_cos, a[0], b[0]),
        cos.select_gt(min_cos, a[1], b[1]),
        cos.select_gt(min_cos, a[2], b[2]),
    ]);
    let inv_dir = cos.select_gt(min_cos, inv_start, inv_len);
    let w_grad_sq = (w[0] + w[1]) * cos.select_gt(min_cos, cos, one);
    let grad_dot_dx = diff_dot_dx.map(|g| g * inv_len);
    let delta_lambda = len.select_gt(
        eps,
        delta_lambda(len - d, w_grad_sq, grad_dot_dx, lambda, k),
        zero,
    );
    let s = delta_lambda * (k.scale * inv_dir);
    Projection {
        dp: [dir * w[0] * s, -(dir * w[1] * s)],
        delta_lambda,
        applied: len.select_gt(eps, one, zero),
    }
}

impl DistanceSet {
    /// Adds a constraint between `a` and `b` at rest length `rest` with material `mat`, at the end
    /// of the serial tail (until the next [`Family::schedule`]).
    pub fn push(&mut self, a: u32, b: u32, rest: Real, mat: u16) {
        self.push_constraint([a, b], rest, mat);
    }

    /// Relative stretch `(|p_a − p_b| − d) / d` of constraint `c` at positions `x`.
    pub fn strain(&self, x: &[Vec3], c: usize) -> Real {
        let [a, b] = self.ids()[c];
        ((x[a as usize] - x[b as usize]).norm() - self.rest[c]) / self.rest[c]
    }
}

impl FamilyKind<2> for Distance {
    /// In AVX's two registers where the family has paired slots: on W's grid (both its
    /// families paired) the stretch and bending stages took 6% to 10% less, while the
    /// alternating grids' families, which have no pairs, were up to 1.4% slower paired. Not in
    /// AVX-512's one register: there W at N = 64 was 7% faster paired but N = 128 4% slower (see
    /// `docs/performance.md`).
    #[inline(always)]
    fn pairs(split: bool, paired: bool) -> bool {
        split && paired
    }

    /// `distance_step` on the particles' positions (the correction `Δp0 = (w0 diff) s`,
    /// `Δp1 = −(w1 diff) s`).
    #[inline(always)]
    fn project<T: Lanes>(
        p: [LaneVec<T>; 2],
        w: [T; 2],
        rest: T,
        _: [T; 4],
        lambda: T,
        dx: Option<[LaneVec<T>; 2]>,
        k: &Coeffs<T>,
    ) -> Projection<T, 2> {
        let diff = p[0] - p[1];
        let dx_rel = dx.map(|[dx0, dx1]| dx0 - dx1);
        let diff_dot_dx = dx_rel.map(|d| diff.dot(d));
        if let (true, Some(d)) = (k.shake, dx_rel) {
            return shake_step(diff, diff - d, w, rest, lambda, diff_dot_dx, k);
        }
        let (delta_lambda, s, len) =
            distance_step(diff.0, w[0] + w[1], rest, lambda, diff_dot_dx, k);
        Projection {
            dp: [diff * w[0] * s, -(diff * w[1] * s)],
            delta_lambda,
            applied: len.select_gt(T::splat(Real::EPSILON), T::splat(1.0), T::splat(0.0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::batched::{
        assert_batched_matches_scalar, test_materials, test_particles,
    };
    use crate::constraints::stiffness::Stiffness;
    use crate::particles::ParticleSet;

    #[test]
    fn rigid_projection_reaches_rest_length() {
        let (p0, p1) = (Vec3::new(0.1, 0.2, 0.3), Vec3::new(1.5, -0.4, 0.9));
        let r = solve_distance(p0, 1.0, p1, 3.0, 0.5, 0.0, None, &Coeffs::rigid()).unwrap();
        let len = ((p0 + r.dp0) - (p1 + r.dp1)).norm();
        assert!((len - 0.5).abs() < 1e-6, "length {len}");
    }

    #[test]
    fn correction_keeps_the_mass_weighted_centroid() {
        let (p0, p1) = (Vec3::new(0.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 0.0));
        let (w0, w1) = (0.5, 2.0);
        let r = solve_distance(p0, w0, p1, w1, 1.0, 0.0, None, &Coeffs::rigid()).unwrap();
        let momentum = r.dp0 / w0 + r.dp1 / w1;
        assert!(momentum.norm() < 1e-6);
    }

    #[test]
    fn pinned_particle_never_moves() {
        let r = solve_distance(
            Vec3::zeros(),
            0.0,
            Vec3::x() * 2.0,
            1.0,
            1.0,
            0.0,
            None,
            &Coeffs::rigid(),
        )
        .unwrap();
        assert_eq!(r.dp0, Vec3::zeros());
        assert!((r.dp1.x + 1.0).abs() < 1e-6);
    }

    #[test]
    fn delta_lambda_of_a_fresh_compliant_constraint() {
        let h = 0.02;
        let alpha = 1e-3;
        let k = Stiffness::Xpbd {
            compliance: alpha,
            damping: 0.0,
        }
        .coeffs(h, 1);
        let (w0, w1, c) = (1.0, 1.0, 0.3);
        let r = solve_distance(Vec3::zeros(), w0, Vec3::x() * 1.3, w1, 1.0, 0.0, None, &k).unwrap();
        let expected = -c / (w0 + w1 + alpha / (h * h));
        assert!((r.delta_lambda - expected).abs() < 1e-6);
    }

    #[test]
    fn pbd_stiffness_scales_the_correction() {
        let k = Stiffness::Pbd { k: 0.25 }.coeffs(0.01, 1);
        let r =
            solve_distance(Vec3::zeros(), 1.0, Vec3::x() * 2.0, 1.0, 1.0, 0.0, None, &k).unwrap();
        // Full correction would move each end by 0.5; a quarter of it is 0.125.
        assert!((r.dp0.x - 0.125).abs() < 1e-6 && (r.dp1.x + 0.125).abs() < 1e-6);
    }

    #[test]
    fn batched_projection_matches_the_scalar_kernel_bit_for_bit() {
        assert_batched_matches_scalar(|damping, two| family(damping, two, false));
    }

    #[test]
    fn batched_projection_of_runs_matches_the_scalar_kernel_bit_for_bit() {
        let (mut set, _) = family(0.0, false, true);
        let count = |set: &mut DistanceSet, entry: u8| {
            set.split().0.paired.iter().filter(|&&r| r == entry).count()
        };
        let paired = count(&mut set, 0b11);
        assert!(paired > 50, "{paired} batches of paired lanes");
        let straddled = count(&mut set, crate::solver::schedule::STRADDLED);
        assert!(straddled > 50, "{straddled} batches of straddled lanes");
        assert_batched_matches_scalar(|damping, two| family(damping, two, true));
    }

    /// The edges of a 30 x 30 grid, far from rest, one or two materials, a few pins: the edges
    /// along and across the rows quad by quad, or (`runs`) every edge of W's triangulation in
    /// `order_grid_edges`' runs.
    fn family(damping: Real, two_materials: bool, runs: bool) -> (DistanceSet, ParticleSet) {
        let n = 30u32;
        let mut ps = test_particles((0..n * n).map(|i| {
            let (x, z) = ((i % n) as Real, (i / n) as Real);
            let jitter = Vec3::new((i * 7 % 11) as Real, (i * 5 % 13) as Real, 0.0) * 0.01;
            Vec3::new(x * 0.1, 0.0, z * 0.1) + jitter
        }));
        let mut set = DistanceSet::default();
        let [soft, other] = test_materials(&mut set.materials, 1e-4, damping, two_materials);
        let mut edges = Vec::new();
        for j in 0..n {
            for i in 0..n {
                let a = j * n + i;
                if i + 1 < n {
                    edges.push([a, a + 1]);
                }
                if j + 1 < n {
                    edges.push([a, a + n]);
                }
                if runs && i + 1 < n && j + 1 < n {
                    edges.push([a + 1, a + n]);
                }
            }
        }
        if runs {
            edges = crate::solver::schedule::order_grid_edges(edges, n);
        }
        for [a, b] in edges {
            match b - a {
                1 | 29 => set.push(a, b, 0.09, other),
                _ => set.push(
                    a,
                    b,
                    0.11,
                    if (a % n).is_multiple_of(4) {
                        soft
                    } else {
                        other
                    },
                ),
            }
        }
        set.schedule();
        set.materials.resolve(0.01, 4);
        // Start positions that turn every edge a little, so that SHAKE's start direction is
        // not the current one.
        ps.x = (0u32..)
            .zip(&ps.p)
            .map(|(i, p)| p * 0.99 + Vec3::new(0.0, (i % 5) as Real, (i % 3) as Real) * 0.004)
            .collect();
        (set, ps)
    }

    /// SHAKE's coefficients: rigid, with `shake` set.
    fn shake() -> Coeffs {
        Coeffs {
            shake: true,
            ..Coeffs::rigid()
        }
    }

    /// A rigid unit edge whose start direction is `x` and whose current one is turned by 15°
    /// and stretched by 30%: every projection moves both ends along `x`, keeps the momentum,
    /// and repeated projections reach the rest length along that line (SHAKE's fixed-direction
    /// iteration).
    #[test]
    fn shake_corrects_along_the_start_direction_until_the_edge_is_at_rest() {
        let (w0, w1) = (1.0, 3.0);
        let (x0, x1) = (Vec3::zeros(), Vec3::x());
        let turn = 15.0_f32.to_radians();
        let (mut p0, mut p1) = (x0, x0 + Vec3::new(turn.cos(), turn.sin(), 0.0) * 1.3);
        for _ in 0..20 {
            let dx_rel = (p0 - x0) - (p1 - x1);
            let r = solve_distance(p0, w0, p1, w1, 1.0, 0.0, Some(dx_rel), &shake()).unwrap();
            assert!(r.dp0.cross(&Vec3::x()).norm() < 1e-7, "dp0 = {}", r.dp0);
            assert!((r.dp0 / w0 + r.dp1 / w1).norm() < 1e-6, "momentum");
            (p0, p1) = (p0 + r.dp0, p1 + r.dp1);
        }
        let len = (p1 - p0).norm();
        assert!((len - 1.0).abs() < 1e-6, "length {len}");
        // The ends moved along `x` only: the far end kept its height.
        assert!((p1.y - 1.3 * turn.sin()).abs() < 1e-6);
    }

    /// Where the start direction is 76° from the current one, beyond `SHAKE_MIN_COS`, SHAKE's
    /// step would be ill-conditioned, and the edge is projected along its current direction,
    /// to the bit.
    #[test]
    fn shake_falls_back_to_the_current_direction_after_a_sharp_turn() {
        let (x0, x1) = (Vec3::zeros(), Vec3::x());
        let (p0, p1) = (Vec3::zeros(), Vec3::new(0.3, 1.2, 0.0));
        let dx_rel = (p0 - x0) - (p1 - x1);
        let along_start = solve_distance(p0, 1.0, p1, 2.0, 1.0, 0.0, Some(dx_rel), &shake());
        let current = solve_distance(p0, 1.0, p1, 2.0, 1.0, 0.0, None, &Coeffs::rigid());
        assert_eq!(along_start, current);
    }

    #[test]
    fn coincident_particles_are_skipped() {
        assert!(
            solve_distance(
                Vec3::zeros(),
                1.0,
                Vec3::zeros(),
                1.0,
                1.0,
                0.0,
                None,
                &Coeffs::rigid()
            )
            .is_none()
        );
    }
}
