//! Stage 6: velocity update, with friction and restitution at contacts.

use crate::collision::Collider;
use crate::constraints::contact::{self, supported};
use crate::constraints::surface_contact::{SURFACE_PARTICLES, surface_inverse_mass};
use crate::constraints::{ContactMaterial, ContactSet, ParticleContactSet, SurfaceContactSet};
use crate::math::{Coords, Flat4, Real, Vec3};
use crate::particles::ParticleSet;
use crate::solver::Team;

/// Coulomb friction on a tangential velocity `v_t` given the normal velocity change `Δv_n` the
/// contact applied this substep: static friction removes `v_t` when `|v_t| ≤ μ_s Δv_n`, kinetic
/// friction otherwise removes `μ_k Δv_n` of it (Müller et al. 2020, "Detailed Rigid Body
/// Simulation with Extended Position Based Dynamics", eq. 30). Returns the new tangential
/// velocity. (A sticking contact has already held its position in the solve, see
/// [`static_friction`](crate::constraints::contact::static_friction); this removes what is left
/// of its tangential velocity.)
#[inline]
pub fn apply_friction(vt: Vec3, dvn: Real, static_friction: Real, kinetic_friction: Real) -> Vec3 {
    let len = vt.norm();
    if len <= static_friction * dvn {
        Vec3::zeros()
    } else {
        vt * (1.0 - (kinetic_friction * dvn).min(len) / len)
    }
}

/// Normal velocity after restitution (Müller et al. 2020, eq. 34): a contact that was
/// approaching at `approach = v_n⁻ < 0` m/s before the substep leaves at `−e v_n⁻`, or at 0 when
/// `|v_n⁻| ≤ 2 g h` (`g` = |gravity|, m/s²) so that resting contact does not jitter; a contact
/// that was not approaching keeps its normal velocity `vn`.
#[inline]
pub fn restitution_velocity(approach: Real, vn: Real, e: Real, g: Real, h: Real) -> Real {
    if approach >= 0.0 {
        vn
    } else if -approach <= 2.0 * g * h {
        0.0
    } else {
        -e * approach
    }
}

/// One contact's velocity response, on the relative velocity `v` of the two sides at a contact
/// of unit normal `n`: its normal and tangential parts before (`vn`, `vt`) and after (`vn_new`,
/// `vt_new`) friction and restitution.
struct Response {
    vn: Real,
    vt: Vec3,
    vn_new: Real,
    vt_new: Vec3,
}

/// Friction and restitution at a contact that pushed with multiplier `λ > 0` in this substep,
/// written once for collider and particle contacts: the normal velocity change is
/// `Δv_n = w s λ / h` (`w` the contact's total inverse mass, `s` its material's correction
/// scale, given as `(w, s, λ)`), [`apply_friction`] acts on the tangential part of `v` and
/// [`restitution_velocity`] sets the normal part (`approach` is the normal velocity when the
/// contact was generated).
fn respond(
    v: Vec3,
    n: Vec3,
    (w, scale, lambda): (Real, Real, Real),
    approach: Real,
    material: &ContactMaterial,
    g: Real,
    h: Real,
) -> Response {
    let vn = n.dot(&v);
    let vt = v - n * vn;
    let dvn = w * scale * lambda / h;
    let vt_new = apply_friction(vt, dvn, material.static_friction, material.kinetic_friction);
    let vn_new = restitution_velocity(approach, vn, material.restitution, g, h);
    Response {
        vn,
        vt,
        vn_new,
        vt_new,
    }
}

/// `v ← (p − x) / h` and `x ← p` on the positions `f32` world coordinates cannot hold exactly
/// (`p − rounding` and `x + residual`, see [`ParticleSet`]), keeping the new position's rounding
/// in `residual`; then friction and restitution at every collider, particle and particle-surface
/// contact that pushed (`λ > 0`), with [`apply_friction`] and [`restitution_velocity`].
/// Velocities are relative to a collider's surface (a kinematic collider drags what it touches),
/// and between two particles relative to each other, each taking the share `w_i / (w_a + w_b)`
/// of the change (which conserves momentum). Static friction has already held sticking contacts
/// in place in the position solve. The first step is spread over `team`, the contacts are
/// handled on this thread.
#[allow(clippy::too_many_arguments)]
pub fn update_velocities(
    ps: &mut ParticleSet,
    contacts: &ContactSet,
    particle_contacts: &ParticleContactSet,
    surface_contacts: &SurfaceContactSet,
    colliders: &[Collider],
    h: Real,
    gravity: Vec3,
    team: &Team,
) {
    let fields = (
        (&mut ps.v[..], &mut ps.x[..], &mut ps.residual[..]),
        (&ps.p[..], &ps.rounding[..]),
    );
    team.for_each_chunk(fields, |_, ((v, x, residual), (p, rounding))| {
        // Four particles at a time, the rest one by one.
        let whole = p.len() / 4 * 4;
        for i in (0..whole).step_by(4) {
            // Slices of four, whose bounds the loads and stores need not check again.
            let at = i..i + 4;
            let state = (
                &mut v[at.clone()],
                &mut x[at.clone()],
                &mut residual[at.clone()],
            );
            advance::<Flat4>(&p[at.clone()], &rounding[at], h, state);
        }
        for i in whole..p.len() {
            let state = (&mut v[i..], &mut x[i..], &mut residual[i..]);
            advance::<Vec3>(&p[i..], &rounding[i..], h, state);
        }
    });
    respond_colliders(ps, contacts, colliders, gravity.norm(), h);
    let up = contact::up(gravity);
    respond_pairs(ps, particle_contacts, gravity.norm(), h, up);
    respond_surfaces(
        ps,
        surface_contacts,
        particle_contacts,
        gravity.norm(),
        h,
        up,
    );
}

/// The velocities `v = (p − x − rounding − residual) / h` of the `T::N` particles at the start of
/// the slices, from their predicted positions `p` and roundings; the positions `x` move to `p`
/// and keep what world coordinates leave out of it in `residual`.
#[inline(always)]
fn advance<T: Coords>(
    p: &[Vec3],
    rounding: &[Vec3],
    h: Real,
    (v, x, residual): (&mut [Vec3], &mut [Vec3], &mut [Vec3]),
) {
    let (p, r) = (T::load(p), T::load(rounding));
    (((p - T::load(x)) - (r + T::load(residual))) / h).store(v);
    p.store(x);
    (-r).store(residual);
}

/// [`respond`] at every collider contact that pushed, with velocities taken relative to the
/// collider's surface (a kinematic collider drags what it touches).
fn respond_colliders(
    ps: &mut ParticleSet,
    contacts: &ContactSet,
    colliders: &[Collider],
    g: Real,
    h: Real,
) {
    for c in (0..contacts.len()).filter(|&c| contacts.lambda[c] > 0.0) {
        let (i, j) = (contacts.particle[c] as usize, contacts.collider[c] as usize);
        let collider = &colliders[j];
        let (_, n) = collider.shape.distance(ps.x[i]);
        let surface = collider.surface_velocity(ps.x[i]);
        let r = respond(
            ps.v[i] - surface,
            n,
            (
                ps.inv_mass[i],
                contacts.materials.coeffs[j].scale,
                contacts.lambda[c],
            ),
            contacts.normal_velocity[c],
            &collider.material,
            g,
            h,
        );
        ps.v[i] = surface + r.vt_new + n * r.vn_new;
    }
}

/// [`respond`] at every particle contact that pushed, on the relative velocity `v_a − v_b`; each
/// particle takes the share `w_i / (w_a + w_b)` of the change, which conserves momentum.
fn respond_pairs(ps: &mut ParticleSet, pairs: &ParticleContactSet, g: Real, h: Real, up: Vec3) {
    let scale = pairs.materials.coeffs[0].scale;
    for c in (0..pairs.len()).filter(|&c| pairs.lambda[c] > 0.0) {
        let [a, b] = pairs.ids[c].map(|i| i as usize);
        let diff = ps.x[a] - ps.x[b];
        let len = diff.norm();
        if len <= Real::EPSILON {
            continue;
        }
        let n = diff / len;
        let (wa, wb) = supported(n, up, ps.inv_mass[a], ps.inv_mass[b]);
        let w = wa + wb;
        if w <= 0.0 {
            continue;
        }
        let r = respond(
            ps.v[a] - ps.v[b],
            n,
            (w, scale, pairs.lambda[c]),
            pairs.normal_velocity[c],
            &pairs.response,
            g,
            h,
        );
        let dv = (r.vt_new - r.vt) + n * (r.vn_new - r.vn);
        ps.v[a] += dv * (wa / w);
        ps.v[b] -= dv * (wb / w);
    }
}

/// [`respond`] at every particle-surface contact that pushed, with the particle contacts'
/// material, on the relative velocity `v_q − Σⱼ βⱼ vⱼ` of the particle and the surface point;
/// the particle takes the share `w_q / W` of the change and surface particle `j` the share
/// `−wⱼ βⱼ / W`, `W = w_q + Σⱼ wⱼ βⱼ²` (which conserves momentum). The contact was generated in this substep, so its normal velocity before
/// it is not known: a contact still approaching stops, as with no restitution.
fn respond_surfaces(
    ps: &mut ParticleSet,
    contacts: &SurfaceContactSet,
    pairs: &ParticleContactSet,
    g: Real,
    h: Real,
    up: Vec3,
) {
    let scale = pairs.materials.coeffs[0].scale;
    for c in (0..contacts.len()).filter(|&c| contacts.lambda[c] > 0.0) {
        let (q, ids, beta) = (
            contacts.particle[c] as usize,
            &contacts.ids[c],
            &contacts.weights[c],
        );
        let n = contacts.normal[c];
        let (w_q, w_j) = contacts.inverse_masses(c, &ps.inv_mass, up);
        let w = w_q + surface_inverse_mass(&w_j, beta);
        if w <= 0.0 {
            continue;
        }
        let surface: Vec3 = (0..SURFACE_PARTICLES)
            .map(|j| ps.v[ids[j] as usize] * beta[j])
            .sum();
        let v = ps.v[q] - surface;
        let approach = n.dot(&v).min(0.0);
        let r = respond(
            v,
            n,
            (w, scale, contacts.lambda[c]),
            approach,
            &pairs.response,
            g,
            h,
        );
        let dv = (r.vt_new - r.vt) + n * (r.vn_new - r.vn);
        ps.v[q] += dv * (w_q / w);
        for j in 0..SURFACE_PARTICLES {
            let share = w_j[j] * beta[j] / w;
            ps.v[ids[j] as usize] -= dv * share;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn friction_sticks_inside_the_cone_and_slides_outside_it() {
        let vt = Vec3::new(0.3, 0.0, 0.4);
        assert_eq!(apply_friction(vt, 1.0, 0.6, 0.4), Vec3::zeros());
        let slid = apply_friction(vt, 1.0, 0.4, 0.3);
        assert!(
            (slid.norm() - 0.2).abs() < 1e-6,
            "0.5 m/s less 0.3 m/s of kinetic friction"
        );
        assert!((slid.normalize() - vt.normalize()).norm() < 1e-6);
    }

    #[test]
    fn kinetic_friction_never_reverses_the_motion() {
        let slid = apply_friction(Vec3::x() * 0.1, 1.0, 0.05, 2.0);
        assert_eq!(slid, Vec3::zeros());
    }

    #[test]
    fn sliding_pair_keeps_momentum_and_loses_relative_tangential_speed() {
        let mut ps = ParticleSet::default();
        ps.push(Vec3::new(0.0, 0.02, 0.0), 1.0, 0.01, 0);
        ps.push(Vec3::zeros(), 2.0, 0.01, 1);
        ps.v[0] = Vec3::new(1.0, 0.0, 0.0);
        let mut pairs = ParticleContactSet::default();
        pairs.materials.resolve(0.01, 1);
        pairs.push(0, 1, 0.02, 0.0);
        pairs.lambda[0] = 0.001;
        let momentum = |ps: &ParticleSet| ps.v[0] / ps.inv_mass[0] + ps.v[1] / ps.inv_mass[1];
        let before = momentum(&ps);
        respond_pairs(&mut ps, &pairs, 0.0, 0.01, Vec3::zeros());
        assert!((momentum(&ps) - before).norm() < 1e-6);
        // Δv_n = 3 · 0.001 / 0.01 = 0.3 m/s of normal impulse; kinetic friction removes 0.3 · 0.3.
        let rel = (ps.v[0] - ps.v[1]).x;
        assert!((rel - (1.0 - 0.09)).abs() < 1e-5, "relative speed {rel}");
    }
}
