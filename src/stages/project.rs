//! Stage 5: constraint projection.

use crate::collision::Collider;
use crate::coloring::Sweep;
use crate::constraints::ConstraintSets;
use crate::params::SolverMethod;
use crate::particles::ParticleSet;

/// Runs `iterations` passes over every constraint family: stretch, distance bending, dihedral
/// bending and tet volumes (each visited as `method` says, forward on even iterations and
/// backward on odd ones), then serially enclosed volumes, attachments, particle-particle contacts
/// and collider contacts, contacts last so that they have the final word on penetration.
pub fn project_constraints(
    method: SolverMethod,
    cs: &mut ConstraintSets,
    ps: &mut ParticleSet,
    colliders: &[Collider],
    iterations: u32,
) {
    for i in 0..iterations {
        let sweep = Sweep::of_iteration(i);
        match method {
            SolverMethod::GaussSeidel => {
                cs.stretch.project_serial(ps, sweep);
                cs.bend_distance.project_serial(ps, sweep);
                cs.dihedral.project_serial(ps, sweep);
                cs.volume.project_serial(ps, sweep);
            }
            SolverMethod::Colored => {
                cs.stretch.project_colored(ps, sweep);
                cs.bend_distance.project_colored(ps, sweep);
                cs.dihedral.project_colored(ps, sweep);
                cs.volume.project_colored(ps, sweep);
            }
            SolverMethod::Jacobi => {
                cs.stretch.project_jacobi(ps, &mut cs.jacobi);
                cs.bend_distance.project_jacobi(ps, &mut cs.jacobi);
                cs.dihedral.project_jacobi(ps, &mut cs.jacobi);
                cs.volume.project_jacobi(ps, &mut cs.jacobi);
            }
        }
        cs.pressure.project_serial(ps);
        cs.attachment.project_serial(ps);
        cs.particle_contact.project_serial(ps);
        cs.contact.project_serial(ps, colliders);
    }
}
