//! Stage 3: position prediction.

use crate::math::{Coords, Flat4, Real, Vec3};
use crate::particles::ParticleSet;
use crate::solver::Team;

/// `p ← x + h v` for every particle, remembering the rounding error: the predicted position is
/// `x + residual + h v` = `p − rounding`.
///
/// With `max_displacement = k > 0`, the displacement `h v` of a particle of radius `r` is
/// clamped to length `k r`: its speed to `k r / h`. Collider contacts are generated within `2 r`,
/// so with `k ≤ 1` a particle held at `r` from a surface cannot step past it unseen; particle
/// contacts are generated within `1.5 d` and a pair closes by at most `2 k r` per substep, so
/// `k ≤ 0.25` keeps that within the `0.5 d` of slack. Substeps raise the speed limit (it grows
/// as `1 / h`). `k = 0` turns the clamp off.
///
/// In `f32` a displacement `h v` much smaller than `|x|` loses low bits when added to `x`, and
/// the velocity update `v = (p − x) / h` would turn that loss into lost velocity: a body falling
/// from 100 m in 1 ms substeps loses a fifth of its speed in one second. `p − x` is exact
/// (Sterbenz), so the error is known: the projection starts from the exact prediction (in
/// coordinates relative to the body's origin, see [`view`](crate::solver::view)) and
/// [`update_velocities`](super::update_velocities) keeps what world coordinates cannot hold in
/// `residual`, so that positions and velocities evolve as in exact arithmetic and `x` is their
/// rounding.
///
/// Particles are spread over `team`.
pub fn predict_positions(ps: &mut ParticleSet, h: Real, max_displacement: Real, team: &Team) {
    let fields = (
        (&mut ps.p[..], &mut ps.rounding[..]),
        (&ps.x[..], &ps.residual[..]),
        (&ps.v[..], &ps.radius[..]),
    );
    team.for_each_chunk(fields, |_, ((p, rounding), (x, residual), (v, radius))| {
        // Without a clamp, four particles at a time; the rest, and every particle when the step
        // may be clamped (by its own length), one by one.
        let whole = match max_displacement > 0.0 {
            true => 0,
            false => p.len() / 4 * 4,
        };
        for i in (0..whole).step_by(4) {
            // Slices of four, whose bounds the loads and stores need not check again.
            let at = i..i + 4;
            let (x, step) = (Flat4::load(&x[at.clone()]), Flat4::load(&v[at.clone()]) * h);
            let out = (&mut p[at.clone()], &mut rounding[at.clone()]);
            predict_at(x, step, Flat4::load(&residual[at]), out);
        }
        for i in whole..p.len() {
            let mut step = v[i] * h;
            // The length (a square root) only when there is a clamp.
            let max = max_displacement * radius[i];
            if max > 0.0 {
                let len = step.norm();
                if len > max {
                    step *= max / len;
                }
            }
            predict_at(x[i], step, residual[i], (&mut p[i..], &mut rounding[i..]));
        }
    });
}

/// The predicted positions `x + step` of the `T::N` particles at the start of `p`, and their
/// roundings (what `p` leaves out of `x + residual + step`).
#[inline(always)]
fn predict_at<T: Coords>(x: T, step: T, residual: T, (p, rounding): (&mut [Vec3], &mut [Vec3])) {
    let predicted = x + step;
    predicted.store(p);
    (((predicted - x) - step) - residual).store(rounding);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;

    #[test]
    fn displacement_is_clamped_to_a_fraction_of_the_radius_only_when_asked() {
        let mut ps = ParticleSet::default();
        ps.push(Vec3::zeros(), 1.0, 0.01, 0);
        ps.v[0] = Vec3::new(0.0, -10.0, 0.0);
        Team::scope(1, |team| predict_positions(&mut ps, 0.01, 0.5, team));
        assert!((ps.p[0].y + 0.005).abs() < 1e-7, "{}", ps.p[0].y);
        Team::scope(1, |team| predict_positions(&mut ps, 0.01, 0.0, team));
        assert!((ps.p[0].y + 0.1).abs() < 1e-7);
    }
}
