//! Stage 4: contact generation, every substep. First the swept test that keeps a fast particle
//! from stepping through a collider thinner than its displacement ([`sweep_colliders`]), then
//! the contacts with colliders ([`generate_contacts`]) and between particles, from the kept
//! list of candidate pairs ([`generate_particle_contacts`]), and between particles and the
//! surfaces of soft bodies ([`generate_surface_contacts`]). The contacts are projected with the other
//! constraints (stage 5), and respond with friction and restitution in the velocity update
//! (stage 6, [`update_velocities`](super::velocities::update_velocities)).

use crate::bodies::Body;
use crate::collision::{BodySurfaces, Carry, Collider, ParticlePairs};
use crate::constraints::{ContactSet, ParticleContactSet, SurfaceContactSet};
use crate::math::Real;
use crate::particles::ParticleSet;

/// Shortest step along a swept path, as a fraction of the particle's radius.
const MIN_STEP: Real = 0.5;

/// Most steps along one particle's path per collider in one substep: the cost of the test is
/// bounded by the particle and collider counts, whatever the speeds.
const MAX_SWEEP_STEPS: u32 = 32;

/// Keeps every free particle from stepping through a collider in this substep of `h` seconds.
///
/// The particle's path is taken relative to each collider (for a kinematic one, it starts where
/// the start position `x` is carried by the collider's motion in this substep, its
/// [`Carry`]) and walked by conservative advancement: each step is the distance to
/// the collider at the current point ([`Shape::distance_within`](crate::collision::Shape::distance_within)
/// with a reach of `r / 2`), which cannot cross its surface, and at least half the radius `r`;
/// the walk ends without a query at the end of the path when that distance covers the rest of
/// it (so a particle far from every collider costs one query per collider). If a step ends inside, or `MAX_SWEEP_STEPS` steps do not reach the end of the
/// path, the prediction `p` is pulled back to the last point reached, which is outside, and the
/// contact generated next stops the particle on the side it came from. Only a feature thinner
/// than `r / 2` passing within `r / 2` of the path can be stepped over; a particle that moves
/// less than `r / 2` relative to a collider costs one length test.
pub fn sweep_colliders(ps: &mut ParticleSet, colliders: &[Collider], carries: &[Option<Carry>]) {
    for i in (0..ps.len()).filter(|&i| ps.inv_mass[i] > 0.0) {
        let min_step = MIN_STEP * ps.radius[i];
        for (collider, carry) in colliders.iter().zip(carries) {
            let start = carry.map_or(ps.x[i], |m| m.apply(ps.x[i]));
            let path = ps.p[i] - start;
            let len = path.norm();
            if len <= min_step {
                continue;
            }
            let distance = |t: Real| collider.shape.distance_within(start + path * t, min_step).0;
            let (mut t, mut d) = (0.0, distance(0.0));
            if d < 0.0 {
                continue;
            }
            for _ in 0..MAX_SWEEP_STEPS {
                if t + d / len >= 1.0 {
                    // The rest of the path is within the distance to the collider.
                    t = 1.0;
                    break;
                }
                let next = (t + d.max(min_step) / len).min(1.0);
                let d_next = distance(next);
                if d_next < 0.0 {
                    break;
                }
                (t, d) = (next, d_next);
                if t >= 1.0 {
                    break;
                }
            }
            if t < 1.0 {
                ps.p[i] = start + path * t;
            }
        }
    }
}

/// Replaces `contacts` by one contact per free particle whose predicted position is within
/// reach of a collider: twice its collision distance `r`, plus its travel relative to the
/// collider in this substep (`|p − m(x)|` for its motion `m`, [`Carry`]). The
/// margin lets a contact catch a particle that other constraints push toward the surface during
/// projection; they move it by about as much as its neighbours travel, which is its own travel
/// where the body moves as one (a curtain swept by a paddle at 25 m/s: every particle travels
/// 4 cm per substep relative to it, and one beyond `2 r` of the rim is dragged inside by the
/// neighbours it pushes). A resting particle keeps the reach `2 r`, within the distance grid's
/// fast path of a mesh; an inactive contact costs one distance query per iteration and applies
/// nothing.
pub fn generate_contacts(
    ps: &ParticleSet,
    colliders: &[Collider],
    carries: &[Option<Carry>],
    contacts: &mut ContactSet,
) {
    contacts.clear();
    if colliders.is_empty() {
        return;
    }
    for i in (0..ps.len()).filter(|&i| ps.inv_mass[i] > 0.0) {
        // Relative to a static collider, the particle's own travel.
        let own = (ps.p[i] - ps.x[i]).norm();
        for (j, (collider, carry)) in colliders.iter().zip(carries).enumerate() {
            let travel = carry.map_or(own, |m| (ps.p[i] - m.apply(ps.x[i])).norm());
            let reach = 2.0 * ps.radius[i] + travel;
            let (d, n) = collider.shape.distance_within(ps.p[i], reach);
            if d < reach {
                let v = ps.v[i] - collider.surface_velocity(ps.x[i]);
                contacts.push(i as u32, j as u32, n.dot(&v), (n, n.dot(&ps.p[i]) - d));
            }
        }
    }
}

/// Pairs closer than this multiple of their contact distance get a contact.
const SEARCH_MARGIN: Real = 1.5;

/// Replaces `contacts` by one contact per pair of particles that may collide (see
/// [`ParticlePairs`]) and whose predicted positions are within `SEARCH_MARGIN` times their
/// contact distance `d` (a pair that the other constraints push together during projection is
/// caught; an inactive contact costs one distance per iteration; a wider margin than 1.5 made
/// the search and the projection dearer with no pair closer in the tests). Does nothing unless
/// the world has two bodies or one that self-collides. Generated every substep, like the
/// collider contacts, from candidate pairs that are searched again only when a particle has
/// moved more than half its radius since the last search (relative to the mean motion).
pub fn generate_particle_contacts(
    ps: &ParticleSet,
    bodies: usize,
    pairs: &mut ParticlePairs,
    contacts: &mut ParticleContactSet,
) {
    contacts.clear();
    if !pairs.active(bodies) {
        return;
    }
    pairs.for_each_pair(ps, SEARCH_MARGIN, |a, b, d| {
        let diff = ps.p[a] - ps.p[b];
        let len = diff.norm();
        let vn = if len > 0.0 {
            diff.dot(&(ps.v[a] - ps.v[b])) / len
        } else {
            0.0
        };
        contacts.push(a as u32, b as u32, d, vn);
    });
}

/// Replaces `contacts` by one contact per particle and cloth or soft-body surface of another body that
/// the particle touches (see [`BodySurface::touch`](crate::collision::BodySurface::touch)): its
/// path crossed the surface in this substep, or it ends within `SEARCH_MARGIN` times the
/// contact distance `d` of it, `d` the mean of the two bodies' thicknesses. A surface is
/// skinned and refitted only when some particle of another body comes within reach of the box
/// around its body's particles, so a body alone, or far from the others, costs one box test
/// per particle.
pub fn generate_surface_contacts(
    ps: &ParticleSet,
    bodies: &[Body],
    surfaces: &mut BodySurfaces,
    contacts: &mut SurfaceContactSet,
) {
    contacts.clear();
    if bodies.len() < 2 {
        return;
    }
    surfaces.add_new(bodies, &ps.x);
    for surface in &mut surfaces.surfaces {
        let own = bodies[surface.body as usize].particles.clone();
        let (lo, hi) = ps.x[own.clone()]
            .iter()
            .chain(&ps.p[own.clone()])
            .fold((ps.p[own.start], ps.p[own.start]), |(lo, hi), v| {
                (lo.inf(v), hi.sup(v))
            });
        let thickness = ps.radius[own.start];
        let pinned = ps.inv_mass[own.clone()].iter().all(|&w| w == 0.0);
        let near = |i: usize| {
            let reach = SEARCH_MARGIN * (ps.radius[i] + thickness) / 2.0;
            let (x, p) = (ps.x[i], ps.p[i]);
            let fixed = pinned && ps.inv_mass[i] == 0.0;
            !own.contains(&i)
                && !fixed
                && (0..3)
                    .all(|a| x[a].min(p[a]) - reach <= hi[a] && x[a].max(p[a]) + reach >= lo[a])
        };
        let Some(first) = (0..ps.len()).find(|&i| near(i)) else {
            continue;
        };
        surface.update(ps);
        for i in (first..ps.len()).filter(|&i| near(i)) {
            let d = (ps.radius[i] + thickness) / 2.0;
            if let Some(hit) = surface.touch(ps.x[i], ps.p[i], SEARCH_MARGIN * d) {
                contacts.push(i as u32, hit.ids, hit.weights, hit.normal, d);
            }
        }
    }
}
