//! Stage 5: constraint projection.

use crate::collision::Collider;
use crate::constraints::ConstraintSets;
use crate::params::SolverMethod;
use crate::particles::ParticleSet;

/// Runs `iterations` passes over every constraint family: stretch, distance bending, dihedral
/// bending (each visited as `method` says), then serially tet volumes, enclosed volumes,
/// attachments, particle-particle contacts and collider contacts, contacts last so that they
/// have the final word on penetration.
pub fn project_constraints(
    method: SolverMethod,
    cs: &mut ConstraintSets,
    ps: &mut ParticleSet,
    colliders: &[Collider],
    iterations: u32,
) {
    for _ in 0..iterations {
        match method {
            SolverMethod::GaussSeidel => {
                cs.stretch.project_serial(ps, 0..cs.stretch.len());
                cs.bend_distance
                    .project_serial(ps, 0..cs.bend_distance.len());
                cs.dihedral.project_serial(ps, 0..cs.dihedral.len());
            }
            SolverMethod::Colored => {
                cs.stretch.project_colored(ps);
                cs.bend_distance.project_colored(ps);
                cs.dihedral.project_colored(ps);
            }
            SolverMethod::Jacobi => {
                cs.stretch.project_jacobi(ps, &mut cs.jacobi);
                cs.bend_distance.project_jacobi(ps, &mut cs.jacobi);
                cs.dihedral.project_jacobi(ps, &mut cs.jacobi);
            }
        }
        cs.volume.project_serial(ps);
        cs.pressure.project_serial(ps);
        cs.attachment.project_serial(ps);
        cs.particle_contact.project_serial(ps);
        cs.contact.project_serial(ps, colliders);
    }
}
