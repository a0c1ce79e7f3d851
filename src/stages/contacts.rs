//! Stage 4: contact generation against colliders.

use crate::collision::Collider;
use crate::constraints::ContactSet;
use crate::particles::ParticleSet;

/// Replaces `contacts` by one contact per free particle whose predicted position is within
/// twice its collision distance of a collider (the margin lets a contact catch a particle that
/// other constraints push toward the surface during projection; an inactive contact costs one
/// distance query per iteration and applies nothing).
pub fn generate_contacts(ps: &ParticleSet, colliders: &[Collider], contacts: &mut ContactSet) {
    contacts.clear();
    for i in (0..ps.len()).filter(|&i| ps.inv_mass[i] > 0.0) {
        for (j, collider) in colliders.iter().enumerate() {
            let (d, n) = collider.shape.distance(ps.p[i]);
            if d < 2.0 * ps.radius[i] {
                let v = ps.v[i] - collider.surface_velocity(ps.x[i]);
                contacts.push(i as u32, j as u32, n.dot(&v));
            }
        }
    }
}
