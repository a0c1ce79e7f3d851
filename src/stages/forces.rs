//! Stage 1: external forces (gravity and wind).

use crate::bodies::Body;
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;
use crate::solver::Team;
use crate::wind::{Gust, WindField};

/// The wind of a substep: the mean wind, its gusts if any, and the time, s.
#[derive(Clone, Copy, Debug)]
pub struct Wind<'a> {
    /// Mean wind velocity, m/s.
    pub mean: Vec3,
    /// Gusts on top of it.
    pub gust: Option<&'a Gust>,
    /// Simulated time, s.
    pub time: Real,
}

impl Wind<'_> {
    /// True when there is no air motion at all (no mean wind and no gusts).
    pub fn is_calm(&self) -> bool {
        self.mean == Vec3::zeros() && self.gust.is_none_or(|g| g.amplitude == 0.0)
    }
}

/// The aerodynamic force on a triangle of unit normal `n` and area `area` (m²) in air moving at
/// `u` (m/s) relative to it: drag `½ρC_d · A · (u·n̂)|u·n̂| · n̂` (the quadratic normal drag of
/// Bridson's and Müller's cloth demos; `drag` is `½ρC_d`, kg/m³) plus lift
/// `½ρC_l · A · (u·n̂) (|u| n̂ − (u·n̂) û)`, of magnitude `½ρC_l A |u|² sin α cos α` for the angle of
/// attack `α` between the flow and the triangle, across the flow on the side it pushes (the
/// flat-plate lift of FleX's cloth, `lift` is `½ρC_l`, kg/m³). Both are unchanged when `n̂` flips.
#[inline]
pub fn aerodynamic_force(u: Vec3, n: Vec3, area: Real, drag: Real, lift: Real) -> Vec3 {
    let un = u.dot(&n);
    let mut f = n * (drag * area * un * un.abs());
    let speed = u.norm();
    if lift != 0.0 && speed > Real::EPSILON {
        f += (n * speed - u * (un / speed)) * (lift * area * un);
    }
    f
}

/// Adds the aerodynamic force of `wind` on every cloth triangle to the particles' `force`
/// ([`aerodynamic_force`], with the triangle's air-relative velocity `u = wind − v̄`, the wind
/// taken at its centroid), spread equally over its three particles.
pub fn accumulate_wind(ps: &mut ParticleSet, body: &Body, wind: &Wind) {
    if body.drag <= 0.0 && body.lift == 0.0 {
        return;
    }
    let s = body.particles.start;
    let field = WindField::new(wind.mean, wind.gust, wind.time);
    for t in &body.triangles {
        let [a, b, c] = t.map(|i| s + i as usize);
        let cross = (ps.x[b] - ps.x[a]).cross(&(ps.x[c] - ps.x[a]));
        let double_area = cross.norm();
        if double_area <= Real::EPSILON {
            continue;
        }
        let n = cross / double_area;
        let centroid = (ps.x[a] + ps.x[b] + ps.x[c]) / 3.0;
        let air = field.at(centroid);
        let u = air - (ps.v[a] + ps.v[b] + ps.v[c]) / 3.0;
        let f = aerodynamic_force(u, n, 0.5 * double_area, body.drag, body.lift) / 3.0;
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
    wind: &Wind,
    h: Real,
    team: &Team,
) {
    if !wind.is_calm() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drag_pushes_along_the_normal_and_lift_across_the_flow() {
        // A plate at 30° to a 2 m/s flow along x.
        let alpha: Real = 30.0_f32.to_radians();
        let n = Vec3::new(-alpha.sin(), alpha.cos(), 0.0);
        let u = Vec3::x() * 2.0;
        let drag = aerodynamic_force(u, n, 0.5, 0.6, 0.0);
        let un = u.dot(&n);
        assert!((drag - n * (0.6 * 0.5 * un * un.abs())).norm() < 1e-6);
        let lift = aerodynamic_force(u, n, 0.5, 0.0, 0.4);
        assert!(lift.dot(&u).abs() < 1e-6, "lift is across the flow");
        let expected = 0.4 * 0.5 * 4.0 * alpha.sin() * alpha.cos();
        assert!(
            (lift.norm() - expected).abs() < 1e-6,
            "{} vs {expected}",
            lift.norm()
        );
        assert_eq!(
            aerodynamic_force(u, -n, 0.5, 0.6, 0.4),
            aerodynamic_force(u, n, 0.5, 0.6, 0.4)
        );
        assert_eq!(
            aerodynamic_force(u, Vec3::y(), 0.5, 0.0, 0.4),
            Vec3::zeros(),
            "edge-on: α = 0"
        );
    }
}
