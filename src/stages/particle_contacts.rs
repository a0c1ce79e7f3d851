//! Stage 4b: contact generation between particles, through the spatial hash.

use crate::collision::ParticlePairs;
use crate::constraints::ParticleContactSet;
use crate::particles::ParticleSet;

/// Pairs closer than this multiple of their contact distance get a contact.
const SEARCH_MARGIN: f32 = 1.5;

/// Replaces `contacts` by one contact per pair of particles that may collide (see
/// [`ParticlePairs`]) and whose predicted positions are within `SEARCH_MARGIN` times their
/// contact distance `d` (a pair that the other constraints push together during projection is
/// caught; an inactive contact costs one distance per iteration; a wider margin than 1.5 made
/// the search and the projection dearer with no pair closer in the tests). Does nothing unless the world has two bodies or one that
/// self-collides. Generated every substep, like the collider contacts.
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
