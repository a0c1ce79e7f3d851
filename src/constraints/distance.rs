//! Distance constraints: stretch, shear, rope segments and the cross-distance bending variant.

use super::family::{Family, FamilyData, FamilyKind};
use super::stiffness::{Coeffs, delta_lambda};
use crate::coloring::{LANES, View};
use crate::math::{Lanes, Real, Vec3};
use wide::f32x8;

/// Distance constraints (see [`Family`]); `rest` holds the rest lengths `d`, m.
pub type DistanceSet = Family<2, Distance>;

/// The kind of [`DistanceSet`]: its kernel is [`solve_distance`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Distance;

/// Position corrections of a two-particle constraint and its multiplier change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairCorrection {
    pub dp0: Vec3,
    pub dp1: Vec3,
    pub delta_lambda: Real,
}

/// Projects one distance constraint.
///
/// `C(p0, p1) = |p0 − p1| − d`, `∇_{p0} C = n`, `∇_{p1} C = −n` with `n = (p0 − p1) / |p0 − p1|`
/// (Müller et al. 2007, "Position Based Dynamics", sec. 3.3; XPBD update of Macklin et al. 2016).
/// `dx_rel` is `(p0 − x0) − (p1 − x1)`, the relative displacement in this substep, used only by
/// XPBD damping. Returns `None` for coincident particles.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn solve_distance(
    p0: Vec3,
    w0: Real,
    p1: Vec3,
    w1: Real,
    d: Real,
    lambda: Real,
    dx_rel: Vec3,
    k: &Coeffs,
) -> Option<PairCorrection> {
    let diff = p0 - p1;
    let (delta_lambda, s, len) =
        distance_step(diff.into(), w0 + w1, d, lambda, diff.dot(&dx_rel), k);
    if len <= Real::EPSILON {
        return None;
    }
    let step = diff * s;
    Some(PairCorrection {
        dp0: step * w0,
        dp1: -step * w1,
        delta_lambda,
    })
}

/// The arithmetic of [`solve_distance`], for one constraint or for one per lane of a batch (see
/// [`Lanes`]): returns the multiplier change `Δλ`, the scale `s` of the correction
/// (`Δp0 = s w0 diff`, `Δp1 = −s w1 diff`) and `|diff|`, for `diff = p0 − p1`,
/// `w_sum = w0 + w1` and `diff_dot_dx = diff · dx_rel`. `Δλ` and `s` are 0 for coincident
/// particles.
#[inline(always)]
fn distance_step<T: Lanes>(
    diff: [T; 3],
    w_sum: T,
    d: T,
    lambda: T,
    diff_dot_dx: T,
    k: &Coeffs<T>,
) -> (T, T, T) {
    let (eps, zero) = (T::splat(Real::EPSILON), T::splat(0.0));
    let len = (diff[0] * diff[0] + diff[1] * diff[1] + diff[2] * diff[2]).sqrt();
    // `n = diff / len`, with one division instead of three.
    let inv_len = len.select_gt(eps, T::splat(1.0) / len, zero);
    let delta_lambda = delta_lambda(len - d, w_sum, diff_dot_dx * inv_len, lambda, k);
    let delta_lambda = len.select_gt(eps, delta_lambda, zero);
    (delta_lambda, k.scale * delta_lambda * inv_len, len)
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
    /// The coefficients of the materials `mat` of a batch, one per lane (unused lanes: zero).
    #[inline(always)]
    fn lane_coeffs(&self, mat: &[u16]) -> Coeffs<f32x8> {
        let first = self.coeffs[mat[0] as usize];
        if mat.iter().all(|&m| m == mat[0]) {
            // The usual case: the whole batch is one material.
            return Coeffs {
                alpha_tilde: f32x8::splat(first.alpha_tilde),
                gamma: f32x8::splat(first.gamma),
                scale: f32x8::splat(first.scale),
            };
        }
        let [mut alpha_tilde, mut gamma, mut scale] = [[0.0; LANES]; 3];
        for (l, &m) in mat.iter().enumerate() {
            let k = &self.coeffs[m as usize];
            (alpha_tilde[l], gamma[l], scale[l]) = (k.alpha_tilde, k.gamma, k.scale);
        }
        Coeffs {
            alpha_tilde: f32x8::from(alpha_tilde),
            gamma: f32x8::from(gamma),
            scale: f32x8::from(scale),
        }
    }
}

impl FamilyKind<2> for Distance {
    #[inline(always)]
    fn solve(
        p: [Vec3; 2],
        w: [Real; 2],
        rest: Real,
        lambda: Real,
        dx: [Vec3; 2],
        k: &Coeffs,
    ) -> Option<([Vec3; 2], Real)> {
        let r = solve_distance(p[0], w[0], p[1], w[1], rest, lambda, dx[0] - dx[1], k)?;
        Some(([r.dp0, r.dp1], r.delta_lambda))
    }

    /// The constraints of a batch at once: their particles are gathered into one array per
    /// coordinate, [`distance_step`] runs on all [`LANES`] lanes as SIMD vectors (unused lanes
    /// hold coincident particles, which do not move), and the new positions are scattered back;
    /// the same arithmetic as [`solve_distance`], so the same bits.
    #[inline(always)]
    unsafe fn project_lanes<const DAMPED: bool>(
        data: &FamilyData<'_, 2, Self>,
        c: usize,
        lambda: &mut [Real],
        v: &View,
    ) {
        let lanes = c..c + lambda.len();
        let (ids, mat, rest) = (
            &data.ids[lanes.clone()],
            &data.mat[lanes.clone()],
            &data.rest[lanes],
        );
        let [mut ax, mut ay, mut az, mut bx, mut by, mut bz] = [[0.0; LANES]; 6];
        let [mut w0, mut w1, mut d, mut lam, mut dot] = [[0.0; LANES]; 5];
        // One loop gathers everything (separate copies of `rest` and `lambda` become `memcpy`
        // calls).
        for (l, (&[a, b], (&r, &m))) in ids.iter().zip(rest.iter().zip(lambda.iter())).enumerate() {
            let (a, b) = (a as usize, b as usize);
            // SAFETY: no other thread writes `a` or `b` (the caller's contract).
            let (pa, pb) = unsafe { (v.p.get(a), v.p.get(b)) };
            (ax[l], ay[l], az[l]) = (pa.x, pa.y, pa.z);
            (bx[l], by[l], bz[l]) = (pb.x, pb.y, pb.z);
            (w0[l], w1[l], d[l], lam[l]) = (v.w[a], v.w[b], r, m);
            if DAMPED {
                dot[l] = (pa - pb).dot(&((pa - v.x[a]) - (pb - v.x[b])));
            }
        }
        let k = data.lane_coeffs(mat);
        let (ax, ay, az) = (f32x8::new(ax), f32x8::new(ay), f32x8::new(az));
        let (bx, by, bz) = (f32x8::new(bx), f32x8::new(by), f32x8::new(bz));
        let (w0, w1, lam) = (f32x8::new(w0), f32x8::new(w1), f32x8::new(lam));
        let diff = [ax - bx, ay - by, az - bz];
        let (delta_lambda, s, _) =
            distance_step(diff, w0 + w1, f32x8::new(d), lam, f32x8::new(dot), &k);
        let lam = (lam + delta_lambda).to_array();
        let (sx, sy, sz) = (diff[0] * s, diff[1] * s, diff[2] * s);
        let (ax, ay, az) = (
            (ax + sx * w0).to_array(),
            (ay + sy * w0).to_array(),
            (az + sz * w0).to_array(),
        );
        let (bx, by, bz) = (
            (bx + -sx * w1).to_array(),
            (by + -sy * w1).to_array(),
            (bz + -sz * w1).to_array(),
        );
        for (l, (&[a, b], m)) in ids.iter().zip(lambda.iter_mut()).enumerate() {
            *m = lam[l];
            // SAFETY: as above; the lanes share no particle.
            unsafe {
                v.p.set(a as usize, Vec3::new(ax[l], ay[l], az[l]));
                v.p.set(b as usize, Vec3::new(bx[l], by[l], bz[l]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coloring::Sweep;
    use crate::constraints::stiffness::Stiffness;
    use crate::particles::ParticleSet;

    #[test]
    fn rigid_projection_reaches_rest_length() {
        let (p0, p1) = (Vec3::new(0.1, 0.2, 0.3), Vec3::new(1.5, -0.4, 0.9));
        let r =
            solve_distance(p0, 1.0, p1, 3.0, 0.5, 0.0, Vec3::zeros(), &Coeffs::rigid()).unwrap();
        let len = ((p0 + r.dp0) - (p1 + r.dp1)).norm();
        assert!((len - 0.5).abs() < 1e-6, "length {len}");
    }

    #[test]
    fn correction_keeps_the_mass_weighted_centroid() {
        let (p0, p1) = (Vec3::new(0.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 0.0));
        let (w0, w1) = (0.5, 2.0);
        let r = solve_distance(p0, w0, p1, w1, 1.0, 0.0, Vec3::zeros(), &Coeffs::rigid()).unwrap();
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
            Vec3::zeros(),
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
        let r = solve_distance(
            Vec3::zeros(),
            w0,
            Vec3::x() * 1.3,
            w1,
            1.0,
            0.0,
            Vec3::zeros(),
            &k,
        )
        .unwrap();
        let expected = -c / (w0 + w1 + alpha / (h * h));
        assert!((r.delta_lambda - expected).abs() < 1e-6);
    }

    #[test]
    fn pbd_stiffness_scales_the_correction() {
        let k = Stiffness::Pbd { k: 0.25 }.coeffs(0.01, 1);
        let r = solve_distance(
            Vec3::zeros(),
            1.0,
            Vec3::x() * 2.0,
            1.0,
            1.0,
            0.0,
            Vec3::zeros(),
            &k,
        )
        .unwrap();
        // Full correction would move each end by 0.5; a quarter of it is 0.125.
        assert!((r.dp0.x - 0.125).abs() < 1e-6 && (r.dp1.x + 0.125).abs() < 1e-6);
    }

    #[test]
    fn batched_projection_matches_the_scalar_kernel_bit_for_bit() {
        // Without and with XPBD damping (the family's two code paths).
        for damping in [0.0, 0.01] {
            batched_matches_scalar(damping);
        }
    }

    /// The edges of a 30 x 30 grid, far from rest, two materials, a few pins.
    fn batched_matches_scalar(damping: Real) {
        let n = 30u32;
        let mut ps = ParticleSet::default();
        let mut set = DistanceSet::default();
        let rigid = set.materials.add(Stiffness::default());
        let soft = set.materials.add(Stiffness::Xpbd {
            compliance: 1e-4,
            damping,
        });
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
        let (mut reference, mut lambda) = (ps.p.clone(), set.lambda.clone());
        set.project_serial(&mut ps, Sweep::Forward);
        for (c, l) in lambda.iter_mut().enumerate() {
            let [a, b] = set.ids()[c].map(|i| i as usize);
            let dx_rel = (reference[a] - ps.x[a]) - (reference[b] - ps.x[b]);
            let k = &set.materials.coeffs[set.mat[c] as usize];
            let (w0, w1) = (ps.inv_mass[a], ps.inv_mass[b]);
            let (p0, p1, d) = (reference[a], reference[b], set.rest[c]);
            if let Some(r) = solve_distance(p0, w0, p1, w1, d, *l, dx_rel, k) {
                reference[a] += r.dp0;
                reference[b] += r.dp1;
                *l += r.delta_lambda;
            }
        }
        assert!(reference == ps.p, "positions differ (damping {damping})");
        assert!(
            lambda == set.lambda,
            "multipliers differ (damping {damping})"
        );
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
                Vec3::zeros(),
                &Coeffs::rigid()
            )
            .is_none()
        );
    }
}
