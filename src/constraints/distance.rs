//! Distance constraints: stretch, shear, rope segments and the cross-distance bending variant.

use super::stiffness::{Coeffs, MaterialTable, delta_lambda};
use crate::coloring::{self, Correction, JacobiScratch, Kernel, Positions};
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;

/// Distance constraints, one entry per constraint in each field, in color order (see
/// [`coloring`]).
#[derive(Clone, Debug, Default)]
pub struct DistanceSet {
    /// The two particles (private: the colored driver relies on the colors' ids not changing).
    ids: Vec<[u32; 2]>,
    /// Color offsets (see [`coloring::Coloring::offsets`]); constraints from the last offset on
    /// (all of them before [`DistanceSet::color`]) form the overflow range, projected serially.
    colors: Vec<usize>,
    /// Rest length `d`, m.
    pub rest: Vec<Real>,
    /// Lagrange multiplier accumulated in the current substep.
    pub lambda: Vec<Real>,
    /// Index into `materials`.
    pub mat: Vec<u16>,
    /// Stiffness of the constraints, per material.
    pub materials: MaterialTable,
}

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
    let len = diff.norm();
    if len <= Real::EPSILON {
        return None;
    }
    // `n = diff / len`, with one division instead of three.
    let inv_len = 1.0 / len;
    let c = len - d;
    let delta_lambda = delta_lambda(c, w0 + w1, diff.dot(&dx_rel) * inv_len, lambda, k);
    let step = diff * (k.scale * delta_lambda * inv_len);
    Some(PairCorrection {
        dp0: step * w0,
        dp1: -step * w1,
        delta_lambda,
    })
}

impl DistanceSet {
    /// Number of constraints.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the set holds no constraint.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The two particles of each constraint.
    pub fn ids(&self) -> &[[u32; 2]] {
        &self.ids
    }

    /// Color offsets: color `k` is `colors()[k]..colors()[k + 1]`; the rest is the overflow.
    pub fn colors(&self) -> &[usize] {
        &self.colors
    }

    /// Adds a constraint between `a` and `b` at rest length `rest` with material `mat`, at the end
    /// of the overflow range (until the next [`DistanceSet::color`]).
    pub fn push(&mut self, a: u32, b: u32, rest: Real, mat: u16) {
        self.ids.push([a, b]);
        self.rest.push(rest);
        self.lambda.push(0.0);
        self.mat.push(mat);
    }

    /// Colors the whole set from its particle ids and reorders it into color order.
    pub fn color(&mut self) {
        let coloring = coloring::greedy(&self.ids);
        coloring::permute(&mut self.ids, &coloring.order);
        coloring::permute(&mut self.rest, &coloring.order);
        coloring::permute(&mut self.lambda, &coloring.order);
        coloring::permute(&mut self.mat, &coloring.order);
        self.colors = coloring.offsets;
        assert_eq!(coloring::validate(&self.ids, &self.colors), Ok(()));
    }

    /// The kernel view, the multipliers and the color offsets, borrowed apart.
    fn split(&mut self) -> (DistanceKernel<'_>, &mut [Real], &[usize]) {
        (
            DistanceKernel {
                ids: &self.ids,
                rest: &self.rest,
                mat: &self.mat,
                coeffs: &self.materials.coeffs,
            },
            &mut self.lambda,
            &self.colors,
        )
    }

    /// Projects constraints `range` in order, Gauss-Seidel style (each sees the previous ones).
    pub fn project_serial(&mut self, ps: &mut ParticleSet, range: std::ops::Range<usize>) {
        let (kernel, lambda, _) = self.split();
        coloring::project_serial(&kernel, lambda, ps, range);
    }

    /// Projects every constraint, the colors in parallel (bit-identical to
    /// [`DistanceSet::project_serial`] over the whole set).
    pub fn project_colored(&mut self, ps: &mut ParticleSet) {
        let (kernel, lambda, colors) = self.split();
        // SAFETY: `colors` was validated against `ids` by `color` (an assert), and `ids` has not
        // changed since except by `push`, which appends to the serial overflow range; the kernel
        // reads and corrects only `ids[c]`.
        unsafe { coloring::project_colored(&kernel, lambda, colors, ps) };
    }

    /// Projects every constraint Jacobi-style (see [`coloring::project_jacobi`]).
    pub fn project_jacobi(&mut self, ps: &mut ParticleSet, scratch: &mut JacobiScratch) {
        let (kernel, lambda, _) = self.split();
        coloring::project_jacobi(&kernel, lambda, ps, scratch);
    }

    /// Relative stretch `(|p_a − p_b| − d) / d` of constraint `c` at positions `x`.
    pub fn strain(&self, x: &[Vec3], c: usize) -> Real {
        let [a, b] = self.ids[c];
        ((x[a as usize] - x[b as usize]).norm() - self.rest[c]) / self.rest[c]
    }
}

/// The read-only data of a [`DistanceSet`] that the drivers need.
struct DistanceKernel<'a> {
    ids: &'a [[u32; 2]],
    rest: &'a [Real],
    mat: &'a [u16],
    coeffs: &'a [Coeffs],
}

impl Kernel<2> for DistanceKernel<'_> {
    fn particles(&self, c: usize) -> [usize; 2] {
        self.ids[c].map(|i| i as usize)
    }

    fn damped(&self) -> bool {
        coloring::any_damped(self.coeffs)
    }

    #[inline(always)]
    unsafe fn correction<const DAMPED: bool>(
        &self,
        c: usize,
        lambda: Real,
        p: &Positions,
        x: &[Vec3],
        w: &[Real],
    ) -> Option<Correction<2>> {
        let [a, b] = self.particles(c);
        // SAFETY: no other thread writes `a` or `b` (the caller's contract).
        let (pa, pb) = unsafe { (p.get(a), p.get(b)) };
        let dx_rel = if DAMPED {
            (pa - x[a]) - (pb - x[b])
        } else {
            Vec3::zeros()
        };
        let k = &self.coeffs[self.mat[c] as usize];
        let r = solve_distance(pa, w[a], pb, w[b], self.rest[c], lambda, dx_rel, k)?;
        Some(Correction {
            ids: [a, b],
            dp: [r.dp0, r.dp1],
            delta_lambda: r.delta_lambda,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::stiffness::Stiffness;

    fn rigid() -> Coeffs {
        Stiffness::default().coeffs(0.01, 1)
    }

    #[test]
    fn rigid_projection_reaches_rest_length() {
        let (p0, p1) = (Vec3::new(0.1, 0.2, 0.3), Vec3::new(1.5, -0.4, 0.9));
        let r = solve_distance(p0, 1.0, p1, 3.0, 0.5, 0.0, Vec3::zeros(), &rigid()).unwrap();
        let len = ((p0 + r.dp0) - (p1 + r.dp1)).norm();
        assert!((len - 0.5).abs() < 1e-6, "length {len}");
    }

    #[test]
    fn correction_keeps_the_mass_weighted_centroid() {
        let (p0, p1) = (Vec3::new(0.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 0.0));
        let (w0, w1) = (0.5, 2.0);
        let r = solve_distance(p0, w0, p1, w1, 1.0, 0.0, Vec3::zeros(), &rigid()).unwrap();
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
            &rigid(),
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
                &rigid()
            )
            .is_none()
        );
    }
}
