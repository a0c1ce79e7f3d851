//! Stage 4: contact generation, every substep. First the swept test that keeps a fast particle
//! from stepping through a collider thinner than its displacement ([`sweep_colliders`]), then
//! the contacts with colliders ([`generate_contacts`]) and between particles, from the kept
//! list of candidate pairs ([`generate_particle_contacts`]). The contacts are projected with the other
//! constraints (stage 5), and respond with friction and restitution in the velocity update
//! (stage 6, [`update_velocities`](super::velocities::update_velocities)).

use crate::collision::{Collider, ParticlePairs};
use crate::constraints::{ContactSet, ParticleContactSet};
use crate::math::Real;
use crate::particles::ParticleSet;

/// Spacing of the samples along a swept path, as a fraction of the particle's radius.
const SAMPLE_SPACING: Real = 0.5;

/// Most samples along one particle's path in one substep: the cost of the test is bounded by the
/// particle count, whatever the speeds (a particle moving more than `MAX_SWEEP_SAMPLES · r / 2`
/// in a substep is sampled more sparsely).
const MAX_SWEEP_SAMPLES: u32 = 32;

/// Samples the path `x → p` of every free particle that moves more than half its radius `r` in
/// this substep, every `r / 2` or closer (at most `MAX_SWEEP_SAMPLES` samples), against every
/// collider at its current pose; if a sample is inside a collider (signed distance < 0), the
/// prediction `p` is pulled back to the sample before it, which is outside. The contact generated
/// next then stops the particle on the side it came from. A collider thinner than the sample
/// spacing along the path can still be stepped over; slow particles cost one length test.
pub fn sweep_colliders(ps: &mut ParticleSet, colliders: &[Collider]) {
    if colliders.is_empty() {
        return;
    }
    for i in (0..ps.len()).filter(|&i| ps.inv_mass[i] > 0.0) {
        let (x, path) = (ps.x[i], ps.p[i] - ps.x[i]);
        let spacing = SAMPLE_SPACING * ps.radius[i];
        let len = path.norm();
        if len <= spacing {
            continue;
        }
        let n = ((len / spacing).ceil() as u32).min(MAX_SWEEP_SAMPLES);
        let at = |k: u32| x + path * (k as Real / n as Real);
        if let Some(k) = (1..=n).find(|&k| {
            colliders
                .iter()
                .any(|c| c.shape.distance_within(at(k), 0.0).0 < 0.0)
        }) {
            ps.p[i] = at(k - 1);
        }
    }
}

/// Replaces `contacts` by one contact per free particle whose predicted position is within
/// twice its collision distance of a collider (the margin lets a contact catch a particle that
/// other constraints push toward the surface during projection; an inactive contact costs one
/// distance query per iteration and applies nothing).
pub fn generate_contacts(ps: &ParticleSet, colliders: &[Collider], contacts: &mut ContactSet) {
    contacts.clear();
    for i in (0..ps.len()).filter(|&i| ps.inv_mass[i] > 0.0) {
        for (j, collider) in colliders.iter().enumerate() {
            let reach = 2.0 * ps.radius[i];
            let (d, n) = collider.shape.distance_within(ps.p[i], reach);
            if d < reach {
                let v = ps.v[i] - collider.surface_velocity(ps.x[i]);
                contacts.push(i as u32, j as u32, n.dot(&v));
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
