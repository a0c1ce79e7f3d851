//! Stage 5: constraint projection.

use crate::collision::Collider;
use crate::constraints::ConstraintSets;
use crate::params::SolverMethod;
use crate::particles::ParticleSet;

/// Runs `iterations` passes over every constraint family: stretch, distance bending, dihedral
/// bending, tet volumes, enclosed volumes, attachments, then contacts last so that they have the final word on penetration.
pub fn project_constraints(
    method: SolverMethod,
    cs: &mut ConstraintSets,
    ps: &mut ParticleSet,
    colliders: &[Collider],
    iterations: u32,
) {
    match method {
        SolverMethod::GaussSeidel => {
            for _ in 0..iterations {
                cs.stretch.project_serial(ps, 0..cs.stretch.len());
                cs.bend_distance
                    .project_serial(ps, 0..cs.bend_distance.len());
                cs.dihedral.project_serial(ps, 0..cs.dihedral.len());
                cs.volume.project_serial(ps);
                cs.pressure.project_serial(ps);
                cs.attachment.project_serial(ps);
                cs.contact.project_serial(ps, colliders);
            }
        }
    }
}
