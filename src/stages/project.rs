//! Stage 5: constraint projection.

use crate::collision::Collider;
use crate::constraints::ConstraintSets;
use crate::params::SolverMethod;
use crate::particles::ParticleSet;
use crate::solver::Team;
use crate::solver::view::{pack, unpack};
use crate::solver::{Sweep, View};

/// Runs `iterations` passes over every constraint family: stretch, distance bending, dihedral
/// bending and tet volumes (each visited as `method` says, forward on even iterations and
/// backward on odd ones; `colored` spreads the blocks of a color over `team`, whose leader calls
/// this; `jacobi` sums each family's corrections over `team` and extrapolates every iteration,
/// see [`JacobiScratch`](crate::solver::JacobiScratch)), after the last iteration the tethers
/// (one color, in parallel over `team` with every method, see
/// [`TetherSet`](crate::constraints::TetherSet)), then serially enclosed volumes,
/// attachments, particle-particle contacts and collider contacts, contacts last so that they
/// have the final word on penetration.
///
/// The scheduled families project a packed copy of the predicted positions and inverse masses
/// (`cs.slots`, see [`pack`]); the copy is written back to `ps.p` for the serial
/// families, when there are any, and at the end.
pub fn project_constraints(
    method: SolverMethod,
    cs: &mut ConstraintSets,
    ps: &mut ParticleSet,
    colliders: &[Collider],
    iterations: u32,
    team: &Team,
) {
    let serial = !(cs.pressure.is_empty()
        && cs.attachment.ids.is_empty()
        && cs.particle_contact.is_empty()
        && cs.contact.is_empty());
    pack(ps, &mut cs.slots, team);
    for i in 0..iterations {
        let sweep = Sweep::of_iteration(i);
        match method {
            SolverMethod::GaussSeidel => {
                let v = View::new(&mut cs.slots, &ps.x);
                cs.stretch.project_serial(&v, sweep);
                cs.bend_distance.project_serial(&v, sweep);
                cs.dihedral.project_serial(&v, sweep);
                cs.volume.project_serial(&v, sweep);
            }
            SolverMethod::Colored => {
                let v = View::new(&mut cs.slots, &ps.x);
                cs.stretch.project_colored(&v, sweep, team);
                cs.bend_distance.project_colored(&v, sweep, team);
                cs.dihedral.project_colored(&v, sweep, team);
                cs.volume.project_colored(&v, sweep, team);
            }
            SolverMethod::Jacobi => {
                let (slots, x, scratch) = (&mut cs.slots, &ps.x, &mut cs.jacobi);
                scratch.begin_iteration(i, slots, team);
                cs.stretch.project_jacobi(slots, x, scratch, 0, i, team);
                cs.bend_distance
                    .project_jacobi(slots, x, scratch, 1, i, team);
                cs.dihedral.project_jacobi(slots, x, scratch, 2, i, team);
                cs.volume.project_jacobi(slots, x, scratch, 3, i, team);
                let mut lambdas = [
                    &mut cs.stretch.lambda[..],
                    &mut cs.bend_distance.lambda,
                    &mut cs.dihedral.lambda,
                    &mut cs.volume.lambda,
                ];
                scratch.end_iteration(slots, &mut lambdas, team);
            }
        }
        if i + 1 == iterations && !cs.tether.is_empty() {
            cs.tether.project(&mut cs.slots, team);
        }
        if serial {
            unpack(&cs.slots, ps, team);
            cs.pressure.project_serial(ps);
            cs.attachment.project_serial(ps);
            cs.particle_contact.project_serial(ps);
            cs.contact
                .project_serial(ps, |j, p| colliders[j].shape.distance(p));
            pack(ps, &mut cs.slots, team);
        }
    }
    unpack(&cs.slots, ps, team);
}
