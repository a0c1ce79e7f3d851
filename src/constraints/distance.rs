//! Distance constraints: stretch, shear, rope segments and the cross-distance bending variant.

use super::family::{Family, FamilyData, FamilyKind};
use super::stiffness::{Coeffs, delta_lambda};
use crate::math::{Lanes, Real, Vec3};
use crate::solver::drivers::{self, Correction, Kernel, Sweep};
use crate::solver::simd::Batch;
use crate::solver::{LANES, View};
use std::ops::Range;

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
/// `dx_rel` is `(p0 − x0) − (p1 − x1)`, the relative displacement in this substep, used only by
/// XPBD damping (`None` without). Returns `None` for coincident particles.
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
    let diff = p0 - p1;
    let diff_dot_dx = dx_rel.map(|dx| diff.dot(&dx));
    let (delta_lambda, s, len) = distance_step(diff.into(), w0 + w1, d, lambda, diff_dot_dx, k);
    if len <= Real::EPSILON {
        return None;
    }
    Some(PairCorrection {
        dp0: diff * w0 * s,
        dp1: -(diff * w1 * s),
        delta_lambda,
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
/// `1 / |diff|` and `w` one after another (measured in `docs/step-bench.md`).
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

impl FamilyData<'_, 2, Distance> {
    /// The coefficients of the materials `mat` of a batch, one per lane (the unused lanes of a
    /// partial batch repeat the last).
    #[inline(always)]
    fn lane_coeffs<V: Batch>(&self, mat: &[u16]) -> Coeffs<V> {
        let [mut alpha_tilde, mut gamma, mut scale] = [[0.0; LANES]; 3];
        for (l, m) in padded(mat).into_iter().enumerate() {
            let k = &self.coeffs[m as usize];
            (alpha_tilde[l], gamma[l], scale[l]) = (k.alpha_tilde, k.gamma, k.scale);
        }
        Coeffs {
            alpha_tilde: V::from_array(alpha_tilde),
            gamma: V::from_array(gamma),
            scale: V::from_array(scale),
        }
    }
}

/// The values of a batch, one per lane; the unused lanes of a partial batch repeat the last.
#[inline(always)]
fn padded<T: Copy>(a: &[T]) -> [T; LANES] {
    <[T; LANES]>::try_from(a).unwrap_or_else(|_| {
        // A loop of known length, unrolled, rather than a `memcpy` call of unknown length.
        let mut p = [a[0]; LANES];
        for (l, p) in p.iter_mut().enumerate() {
            *p = a[l.min(a.len() - 1)];
        }
        p
    })
}

/// The distance family's kernel with its batches projected as SIMD vectors `V` (see
/// [`Batch`]).
struct Batched<'d, 'a, V> {
    data: &'d FamilyData<'a, 2, Distance>,
    /// The coefficients of every lane when all the family's materials have the same.
    uniform: Option<Coeffs<V>>,
}

impl<'d, 'a, V: Batch> Batched<'d, 'a, V> {
    #[inline(always)]
    fn new(data: &'d FamilyData<'a, 2, Distance>) -> Self {
        assert!(
            data.rest.len() == data.ids.len() && data.offsets.len() == data.ids.len(),
            "one rest length and one offset pair per constraint"
        );
        // A cloth's stretch and shear are two materials, usually alike.
        let uniform = match data.coeffs {
            [k, rest @ ..] if rest.iter().all(|r| r == k) => Some(Coeffs {
                alpha_tilde: V::splat(k.alpha_tilde),
                gamma: V::splat(k.gamma),
                scale: V::splat(k.scale),
            }),
            _ => None,
        };
        Batched { data, uniform }
    }
}

impl<V: Batch> Kernel<2> for Batched<'_, '_, V> {
    #[inline(always)]
    fn particles(&self, c: usize) -> [usize; 2] {
        self.data.particles(c)
    }

    fn damped(&self) -> bool {
        self.data.damped()
    }

    #[inline(always)]
    unsafe fn correction<const DAMPED: bool>(
        &self,
        c: usize,
        lambda: Real,
        v: &View,
    ) -> Option<Correction<2>> {
        // SAFETY: forwarded from the caller.
        unsafe { self.data.correction::<DAMPED>(c, lambda, v) }
    }

    /// The constraints of a batch at once: their particles' slots are gathered into one vector
    /// per coordinate, [`distance_step`] runs on all [`LANES`] lanes, and the new positions are
    /// scattered back; the same arithmetic as [`solve_distance`], so the same bits. A full batch
    /// reads its slot offsets, rest lengths and multipliers in place; a partial batch works on
    /// padded copies, whose unused lanes repeat its last constraint, so they compute and write
    /// the very values that lane writes.
    #[inline(always)]
    unsafe fn project_lanes<const DAMPED: bool>(&self, c: usize, lambda: &mut [Real], v: &View) {
        let data = self.data;
        let lanes = c..c + lambda.len();
        debug_assert!(lanes.end <= data.ids.len());
        // SAFETY: the lanes are constraints of the family (the caller's contract), and the family
        // holds one rest length and one offset pair per constraint (checked in `Batched::new`).
        let (offsets, rest) = unsafe {
            (
                data.offsets.get_unchecked(lanes.clone()),
                data.rest.get_unchecked(lanes.clone()),
            )
        };
        let full = (
            <&[[u32; 2]; LANES]>::try_from(offsets),
            <&[Real; LANES]>::try_from(rest),
            <&mut [Real; LANES]>::try_from(&mut *lambda),
        );
        // SAFETY (both arms): forwarded from the caller.
        match full {
            (Ok(offsets), Ok(rest), Ok(lambda)) => unsafe {
                self.project_batch::<DAMPED>(lanes, offsets, rest, lambda, v)
            },
            _ => {
                let mut padded_lambda = padded(lambda);
                unsafe {
                    self.project_batch::<DAMPED>(
                        lanes,
                        &padded(offsets),
                        &padded(rest),
                        &mut padded_lambda,
                        v,
                    )
                };
                let n = lambda.len();
                lambda.copy_from_slice(&padded_lambda[..n]);
            }
        }
    }
}

impl<V: Batch> Batched<'_, '_, V> {
    /// [`Kernel::project_lanes`] on a batch of exactly [`LANES`] lanes: the constraints `lanes`
    /// (a partial batch's unused lanes repeat its last constraint), whose particles' slots are
    /// at `offsets`, with rest lengths `rest` and multipliers `lambda`.
    ///
    /// # Safety
    /// As [`Kernel::project_lanes`], and `offsets` are the family's offsets of `lanes`.
    #[inline(always)]
    unsafe fn project_batch<const DAMPED: bool>(
        &self,
        lanes: Range<usize>,
        offsets: &[[u32; 2]; LANES],
        rest: &[Real; LANES],
        lambda: &mut [Real; LANES],
        v: &View,
    ) {
        let data = self.data;
        // Every id is below `span`, so this one check bounds every access below.
        assert!(
            data.span <= v.p.len(),
            "constraints reach past the particles"
        );
        // Plain loops here and below: `array::map` is not always inlined, and this must compile
        // inside the AVX caller.
        let (mut a, mut b) = ([std::ptr::null_mut(); LANES], [std::ptr::null_mut(); LANES]);
        for l in 0..LANES {
            // SAFETY: the offsets are 16 times ids below `span` (checked above).
            unsafe {
                a[l] = v.p.slot_at(offsets[l][0]);
                b[l] = v.p.slot_at(offsets[l][1]);
            }
        }
        // SAFETY: no other thread accesses these particles (the caller's contract); distinct
        // lanes share no particle (repeated lanes read and write the same values).
        let ([ax, ay, az, w0], [bx, by, bz, w1]) = unsafe { (V::gather(&a), V::gather(&b)) };
        let dot = DAMPED.then(|| {
            // SAFETY: the lanes are constraints of the family (the caller's contract).
            let pairs = padded(unsafe { data.ids.get_unchecked(lanes.clone()) });
            let mut dot = [0.0; LANES];
            for l in 0..LANES {
                let (i, j) = (pairs[l][0] as usize, pairs[l][1] as usize);
                // SAFETY: as above.
                let (pa, pb) = unsafe { ((*a[l]).p, (*b[l]).p) };
                dot[l] = (pa - pb).dot(&((pa - v.x[i]) - (pb - v.x[j])));
            }
            V::from_array(dot)
        });
        let k = match self.uniform {
            Some(k) => k,
            None => data.lane_coeffs::<V>(&data.mat[lanes]),
        };
        let (d, lam) = (V::from_array(*rest), V::from_array(*lambda));
        let diff = [ax - bx, ay - by, az - bz];
        let (delta_lambda, s, _) = distance_step(diff, w0 + w1, d, lam, dot, &k);
        let (a_new, b_new) = (
            [
                ax + diff[0] * w0 * s,
                ay + diff[1] * w0 * s,
                az + diff[2] * w0 * s,
            ],
            [
                bx - diff[0] * w1 * s,
                by - diff[1] * w1 * s,
                bz - diff[2] * w1 * s,
            ],
        );
        // SAFETY: as above.
        unsafe {
            V::scatter([a_new[0], a_new[1], a_new[2], w0], &a);
            V::scatter([b_new[0], b_new[1], b_new[2], w1], &b);
        }
        *lambda = (lam + delta_lambda).to_array();
    }
}

impl FamilyKind<2> for Distance {
    const SLOT_OFFSETS: bool = true;

    #[inline(always)]
    fn solve(
        p: [Vec3; 2],
        w: [Real; 2],
        rest: Real,
        lambda: Real,
        dx: Option<[Vec3; 2]>,
        k: &Coeffs,
    ) -> Option<([Vec3; 2], Real)> {
        let dx_rel = dx.map(|[dx0, dx1]| dx0 - dx1);
        let r = solve_distance(p[0], w[0], p[1], w[1], rest, lambda, dx_rel, k)?;
        Some(([r.dp0, r.dp1], r.delta_lambda))
    }

    /// Batches as SIMD vectors: AVX where the processor has it (x86-64), `wide::f32x8`
    /// otherwise (see [`crate::solver::simd`]).
    #[inline(always)]
    unsafe fn walk_batches<const DAMPED: bool>(
        data: &FamilyData<'_, 2, Self>,
        lambda: &mut [Real],
        batches: &[usize],
        sweep: Sweep,
        v: &View,
    ) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: the processor has AVX; the rest is forwarded from the caller.
            return unsafe { walk_batches_avx::<DAMPED>(data, lambda, batches, sweep, v) };
        }
        // SAFETY: forwarded from the caller.
        unsafe { walk_batches_as::<wide::f32x8, DAMPED>(data, lambda, batches, sweep, v) }
    }
}

/// [`drivers::walk_batches`] with the family's batches projected as vectors `V`.
///
/// # Safety
/// The contract of [`drivers::walk_batches`].
#[inline(always)]
unsafe fn walk_batches_as<V: Batch, const DAMPED: bool>(
    data: &FamilyData<'_, 2, Distance>,
    lambda: &mut [Real],
    batches: &[usize],
    sweep: Sweep,
    v: &View,
) {
    let kernel = Batched::<V>::new(data);
    // SAFETY: forwarded from the caller.
    unsafe { drivers::walk_batches::<2, DAMPED, _>(&kernel, lambda, batches, sweep, v) }
}

/// [`walk_batches_as`] with AVX vectors, compiled for AVX.
///
/// # Safety
/// The processor has AVX, and the contract of [`drivers::walk_batches`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn walk_batches_avx<const DAMPED: bool>(
    data: &FamilyData<'_, 2, Distance>,
    lambda: &mut [Real],
    batches: &[usize],
    sweep: Sweep,
    v: &View,
) {
    // SAFETY: forwarded from the caller.
    unsafe {
        walk_batches_as::<crate::solver::simd::avx::F32x8, DAMPED>(data, lambda, batches, sweep, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::stiffness::Stiffness;
    use crate::particles::ParticleSet;
    use crate::solver::Sweep;
    use crate::solver::Team;
    use crate::solver::view::{pack, unpack};

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
        // Without and with XPBD damping (the family's two code paths), with one material (the
        // coefficients splatted once) and two (gathered per batch).
        for damping in [0.0, 0.01] {
            for two_materials in [false, true] {
                batched_matches_scalar(damping, two_materials);
            }
        }
    }

    /// The edges of a 30 x 30 grid, far from rest, one or two materials, a few pins.
    fn batched_matches_scalar(damping: Real, two_materials: bool) {
        let n = 30u32;
        let mut ps = ParticleSet::default();
        let mut set = DistanceSet::default();
        let soft = Stiffness::Xpbd {
            compliance: 1e-4,
            damping,
        };
        let rigid = set.materials.add(if two_materials {
            Stiffness::default()
        } else {
            soft
        });
        let soft = if two_materials {
            set.materials.add(soft)
        } else {
            rigid
        };
        for i in 0..n * n {
            let (x, z) = ((i % n) as Real, (i / n) as Real);
            let jitter = Vec3::new((i * 7 % 11) as Real, (i * 5 % 13) as Real, 0.0) * 0.01;
            let w = if i % 97 == 0 {
                0.0
            } else {
                1.0 + (i % 3) as Real
            };
            ps.push(Vec3::new(x * 0.1, 0.0, z * 0.1) + jitter, w, 0.01, 0);
        }
        for j in 0..n {
            for i in 0..n {
                let a = j * n + i;
                if i + 1 < n {
                    set.push(a, a + 1, 0.09, rigid);
                }
                if j + 1 < n {
                    set.push(a, a + n, 0.11, if i % 4 == 0 { soft } else { rigid });
                }
            }
        }
        set.schedule();
        set.materials.resolve(0.01, 4);
        ps.x = ps.p.iter().map(|p| p * 0.99).collect();
        // The scalar kernel, constraint after constraint in build order.
        let (mut reference, mut lambda) = (ps.p.clone(), set.lambda.clone());
        for (c, l) in lambda.iter_mut().enumerate() {
            let [a, b] = set.ids()[c].map(|i| i as usize);
            let dx_rel = (reference[a] - ps.x[a]) - (reference[b] - ps.x[b]);
            let k = &set.materials.coeffs[set.mat[c] as usize];
            let (w0, w1) = (ps.inv_mass[a], ps.inv_mass[b]);
            let (p0, p1, d) = (reference[a], reference[b], set.rest[c]);
            if let Some(r) =
                solve_distance(p0, w0, p1, w1, d, *l, (damping > 0.0).then_some(dx_rel), k)
            {
                reference[a] += r.dp0;
                reference[b] += r.dp1;
                *l += r.delta_lambda;
            }
        }
        let check = |path: &str, project: &dyn Fn(&mut DistanceSet, &View)| {
            let mut set = set.clone();
            let mut slots = Vec::new();
            Team::scope(1, |team| pack(&ps, &mut slots, team));
            project(&mut set, &View::new(&mut slots, &ps.x));
            let mut out = ps.clone();
            Team::scope(1, |team| unpack(&slots, &mut out, team));
            assert!(
                reference == out.p,
                "{path}: positions differ (damping {damping}, two materials {two_materials})"
            );
            assert!(
                lambda == set.lambda,
                "{path}: multipliers differ (damping {damping}, two materials {two_materials})"
            );
        };
        check("the serial driver", &|set, v| {
            set.project_serial(v, Sweep::Forward)
        });
        check("wide::f32x8", &|set, v| walk_all(set, v, false));
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            check("AVX", &|set, v| walk_all(set, v, true));
        }
    }

    /// Projects every batch of `set` forward with `wide::f32x8`, or with AVX when `avx` (only
    /// where the processor has it).
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn walk_all(set: &mut DistanceSet, v: &View, avx: bool) {
        let (data, lambda, blocks) = set.split();
        let (b, s) = (&blocks.batches, Sweep::Forward);
        // SAFETY: one thread; AVX only where the processor has it (the caller checks).
        unsafe {
            #[cfg(target_arch = "x86_64")]
            if avx {
                return match data.damped() {
                    true => walk_batches_avx::<true>(&data, lambda, b, s, v),
                    false => walk_batches_avx::<false>(&data, lambda, b, s, v),
                };
            }
            match data.damped() {
                true => walk_batches_as::<wide::f32x8, true>(&data, lambda, b, s, v),
                false => walk_batches_as::<wide::f32x8, false>(&data, lambda, b, s, v),
            }
        }
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
