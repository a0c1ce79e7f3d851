//! Strain limiting: an edge of a cloth or rope is kept at most a fraction `s` longer than its
//! rest length, whatever its stiffness and the solver's budget.
//!
//! After the iterations of each substep every edge longer than `(1 + s) d` is moved back to that
//! length, its two ends sharing the correction by their inverse masses; shorter edges are left
//! alone (the constraint is unilateral). This is the deformation constraint of Provot 1995
//! ("Deformation constraints in a mass-spring model to describe rigid cloth behavior"), the
//! stretch limit of Houdini's Vellum cloth, as one projection of a rigid inequality constraint.
//! The edges are those of the stretch family (stretch and shear of a cloth, a rope's segments),
//! scheduled like it, so the pass is batched and colored like the other distance families.

use super::family::{Family, FamilyKind, Projection};
use super::stiffness::{Coeffs, Stiffness, delta_lambda};
use crate::math::{LaneVec, Lanes, Real, Vec3};
use crate::solver::{Slot, Team, View};

/// Strain limits (see the module docs): the edges, scheduled like a distance family, whose
/// rest value is the longest allowed length `(1 + s) d`, m.
#[derive(Clone, Debug, Default)]
pub struct StrainLimitSet {
    /// The limited edges.
    pub(crate) edges: Family<2, StrainLimit>,
}

/// How far past its limit an edge may stay, relative to the limit: the passes stop once every
/// edge is within `(1 + TOLERANCE) l_max`.
pub const TOLERANCE: Real = 1e-3;

/// The most passes in one substep: enough for the pull of a whole cloth hanging from two
/// corners to travel from the pins across it, and a bound on the cost when it cannot converge
/// (two pins farther apart than the limit allows).
pub const MAX_PASSES: u32 = 64;

/// The kind of [`StrainLimitSet`]: its kernel is [`solve_strain_limit`].
#[derive(Clone, Copy, Debug, Default)]
pub struct StrainLimit;

/// Projects one strain limit of the particles `p0`, `p1` (inverse masses `w0`, `w1`), whose
/// longest allowed length is `l_max` = `(1 + s) d`.
///
/// `C(p0, p1) = |p0 − p1| − l_max ≤ 0`, `∇_{p0} C = n`, `∇_{p1} C = −n` with
/// `n = (p0 − p1) / |p0 − p1|`; where `C > 0` the particles move by `Δp0 = −w0 C n / (w0 + w1)`
/// and `Δp1 = +w1 C n / (w0 + w1)` (Provot 1995; the projection of Müller et al. 2007, sec.
/// 3.3). Returns the two corrections, or `None` where the limit holds or both ends are pinned.
pub fn solve_strain_limit(
    p0: Vec3,
    w0: Real,
    p1: Vec3,
    w1: Real,
    l_max: Real,
) -> Option<[Vec3; 2]> {
    let r = StrainLimit::project(
        [p0.into(), p1.into()],
        [w0, w1],
        l_max,
        [0.0; 4],
        0.0,
        None,
        &Coeffs {
            alpha_tilde: 0.0,
            gamma: 0.0,
            scale: 1.0,
            shake: false,
        },
    );
    (r.applied > 0.0 && w0 + w1 > 0.0).then(|| r.dp.map(Into::into))
}

impl StrainLimitSet {
    /// Number of limited edges.
    pub fn len(&self) -> usize {
        self.edges.len()
    }

    /// True when no edge is limited.
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// The particles of each limited edge.
    pub fn ids(&self) -> &[[u32; 2]] {
        self.edges.ids()
    }

    /// The longest allowed length of each edge, m.
    pub fn max_length(&self) -> &[Real] {
        &self.edges.rest
    }

    /// Limits the edge between `a` and `b` of rest length `d` (m) to `(1 + limit) d`.
    pub fn push(&mut self, a: u32, b: u32, d: Real, limit: Real) {
        if self.edges.materials.coeffs.is_empty() {
            let rigid = Stiffness::Xpbd {
                compliance: 0.0,
                damping: 0.0,
            };
            self.edges.materials.add(rigid);
        }
        self.edges.push_constraint([a, b], (1.0 + limit) * d, 0);
    }

    /// Whether some edge is longer than `(1 + TOLERANCE)` times its limit at the positions
    /// `slots` (compared squared: no square root per edge).
    pub(crate) fn any_over(&self, slots: &[Slot]) -> bool {
        let scale = (1.0 + TOLERANCE) * (1.0 + TOLERANCE);
        self.ids()
            .iter()
            .zip(self.max_length())
            .any(|(&[a, b], &l)| {
                let d = slots[a as usize].p - slots[b as usize].p;
                d.norm_squared() > scale * l * l
            })
    }

    /// Projects the limits after the iterations of a substep, with the colored driver over
    /// `team` (serially when `serial`), pass after pass until every edge is within
    /// [`TOLERANCE`] of its limit, at most [`MAX_PASSES`] times. Returns the number of passes.
    pub(crate) fn project(
        &mut self,
        slots: &mut [Slot],
        x: &[Vec3],
        serial: bool,
        team: &Team,
    ) -> u32 {
        let mut passes = 0;
        while passes < MAX_PASSES && self.any_over(slots) {
            let v = View::new(slots, x);
            match serial {
                true => self.edges.project_serial(&v),
                false => self.edges.project_colored(&v, team),
            }
            passes += 1;
        }
        passes
    }
}

impl FamilyKind<2> for StrainLimit {
    /// The rigid XPBD update of `C` where `C > 0` (`Δλ = −C / (w0 + w1)`), nothing elsewhere.
    #[inline(always)]
    fn project<T: Lanes>(
        p: [LaneVec<T>; 2],
        w: [T; 2],
        l_max: T,
        _: [T; 4],
        lambda: T,
        _: Option<[LaneVec<T>; 2]>,
        k: &Coeffs<T>,
    ) -> Projection<T, 2> {
        let (zero, one) = (T::splat(0.0), T::splat(1.0));
        let diff = p[0] - p[1];
        let len = diff.norm_squared().sqrt();
        let c = len - l_max;
        let over = c.select_gt(zero, one, zero);
        let inv_len = len.select_gt(T::splat(Real::EPSILON), one / len, zero);
        let delta_lambda = delta_lambda(c * over, w[0] + w[1], None, lambda, k);
        let s = delta_lambda * (k.scale * inv_len);
        Projection {
            dp: [diff * w[0] * s, -(diff * w[1] * s)],
            delta_lambda,
            applied: over,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edge_past_its_limit_is_brought_back_to_it_keeping_its_centre_of_mass() {
        let (p0, p1) = (Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.5, 0.0, 0.0));
        let (w0, w1) = (1.0, 3.0);
        let l_max = 1.1;
        let [dp0, dp1] = solve_strain_limit(p0, w0, p1, w1, l_max).expect("stretched");
        let (q0, q1) = (p0 + dp0, p1 + dp1);
        assert!(((q0 - q1).norm() - l_max).abs() < 1e-6);
        // Masses 1 and 1/3: the mass-weighted centre does not move.
        assert!((dp0 / w0 + dp1 / w1).norm() < 1e-6);
        // The heavier end moves a third as far as the lighter.
        assert!((dp1.norm() - 3.0 * dp0.norm()).abs() < 1e-6);
    }

    #[test]
    fn an_edge_within_its_limit_or_compressed_is_left_alone() {
        let p0 = Vec3::zeros();
        for x in [1.09, 1.0, 0.5] {
            let p1 = Vec3::new(x, 0.0, 0.0);
            assert_eq!(
                solve_strain_limit(p0, 1.0, p1, 1.0, 1.1),
                None,
                "length {x}"
            );
        }
    }

    #[test]
    fn a_pinned_end_stays_and_the_free_end_takes_the_whole_correction() {
        let (p0, p1) = (Vec3::zeros(), Vec3::new(0.0, -2.0, 0.0));
        let [dp0, dp1] = solve_strain_limit(p0, 0.0, p1, 1.0, 1.2).expect("stretched");
        assert_eq!(dp0, Vec3::zeros());
        assert!(((p1 + dp1).norm() - 1.2).abs() < 1e-6);
        assert_eq!(solve_strain_limit(p0, 0.0, p1, 0.0, 1.2), None);
    }
}
