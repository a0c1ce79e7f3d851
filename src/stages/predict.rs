//! Stage 3: position prediction.

use crate::math::Real;
use crate::particles::ParticleSet;
use crate::solver::Team;

/// `p ← x + h v` for every particle, remembering the rounding error `(p − x) − h v`.
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
/// (Sterbenz), so the error is known and [`update_velocities`](super::update_velocities) removes
/// it: velocities then evolve as in exact arithmetic, and positions keep only the rounding of each
/// step, which does not accumulate into speed.
///
/// Particles are spread over `team`.
pub fn predict_positions(ps: &mut ParticleSet, h: Real, max_displacement: Real, team: &Team) {
    let fields = (
        &mut ps.p[..],
        &mut ps.rounding[..],
        &ps.x[..],
        &ps.v[..],
        &ps.radius[..],
    );
    team.for_each_chunk(fields, |_, (p, rounding, x, v, radius)| {
        for ((((p, r), x), v), radius) in p.iter_mut().zip(rounding).zip(x).zip(v).zip(radius) {
            let mut step = v * h;
            let (len, max) = (step.norm(), max_displacement * radius);
            if max > 0.0 && len > max {
                step *= max / len;
            }
            *p = x + step;
            *r = (*p - x) - step;
        }
    });
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
