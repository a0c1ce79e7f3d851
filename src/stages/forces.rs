//! Stage 1: external forces (gravity and wind).

use crate::bodies::Body;
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;
use crate::solver::Team;

/// Adds the aerodynamic force of `wind` on every cloth triangle to the particles' `force`:
/// `f = ½ρC_d · A · (u·n̂)|u·n̂| · n̂` with `u = wind − v̄` the triangle's air-relative velocity,
/// spread equally over its three particles (the quadratic normal drag of Bridson's and
/// Müller's cloth demos; `½ρC_d` is the body's `drag`).
pub fn accumulate_wind(ps: &mut ParticleSet, body: &Body, wind: Vec3) {
    if body.drag <= 0.0 {
        return;
    }
    let s = body.particles.start;
    for t in &body.triangles {
        let [a, b, c] = t.map(|i| s + i as usize);
        let cross = (ps.x[b] - ps.x[a]).cross(&(ps.x[c] - ps.x[a]));
        let double_area = cross.norm();
        if double_area <= Real::EPSILON {
            continue;
        }
        let n = cross / double_area;
        let u = wind - (ps.v[a] + ps.v[b] + ps.v[c]) / 3.0;
        let un = u.dot(&n);
        let f = n * (body.drag * 0.5 * double_area * un * un.abs() / 3.0);
        for i in [a, b, c] {
            ps.force[i] += f;
        }
    }
}

/// `v ← v + h (g + w f)` for every free particle, then clears the accumulated forces. The wind
/// is accumulated on this thread, the particles are then spread over `team`.
pub fn apply_external_forces(
    ps: &mut ParticleSet,
    bodies: &[Body],
    gravity: Vec3,
    wind: Vec3,
    h: Real,
    team: &Team,
) {
    if wind != Vec3::zeros() {
        for body in bodies {
            accumulate_wind(ps, body, wind);
        }
    }
    let fields = (&mut ps.v[..], &mut ps.force[..], &ps.inv_mass[..]);
    team.for_each_chunk(fields, |_, (v, force, inv_mass)| {
        for ((v, f), &w) in v.iter_mut().zip(force).zip(inv_mass) {
            if w > 0.0 {
                *v += (gravity + *f * w) * h;
            }
            *f = Vec3::zeros();
        }
    });
}
