//! Stage 5: constraint projection.

use crate::constraints::ConstraintSets;
use crate::params::SolverMethod;
use crate::particles::ParticleSet;
use crate::solver::Team;
use crate::solver::view::{pack, unpack};
use crate::solver::{Sweep, View};
use crate::stats::{Stage, StageClock};

/// Runs `iterations` passes over every constraint family: stretch, distance bending, dihedral
/// bending and tet volumes (each visited as `method` says, forward on even iterations and
/// backward on odd ones; `colored` spreads the blocks of a color over `team`, whose leader calls
/// this; `jacobi` sums each family's corrections over `team` and extrapolates every iteration,
/// see [`JacobiScratch`](crate::solver::JacobiScratch)), then the tethers (one color, in
/// parallel over `team` with every method, see [`TetherSet`](crate::constraints::TetherSet)),
/// then serially enclosed volumes, attachments, particle-particle contacts, particle-surface
/// contacts and collider contacts, contacts last so that they
/// have the final word on penetration.
///
/// The scheduled families project a packed copy of the predicted positions and inverse masses
/// (`cs.slots`, see [`pack`]); the copy is written back to `ps.p` for the serial
/// families, when there are any, and at the end. Each family's passes are timed on `clock` as its
/// [`Stage`] (an empty family's few nanoseconds go to the next), the copies as [`Stage::Pack`].
pub fn project_constraints(
    method: SolverMethod,
    cs: &mut ConstraintSets,
    ps: &mut ParticleSet,
    iterations: u32,
    team: &Team,
    clock: &mut StageClock,
) {
    let serial = !(cs.pressure.is_empty()
        && cs.attachment.ids.is_empty()
        && cs.particle_contact.is_empty()
        && cs.surface_contact.is_empty()
        && cs.contact.is_empty());
    pack(ps, &mut cs.slots, team);
    clock.lap(Stage::Pack);
    for i in 0..iterations {
        let sweep = Sweep::of_iteration(i);
        match method {
            SolverMethod::GaussSeidel => {
                let v = View::new(&mut cs.slots, &ps.x);
                cs.stretch.project_serial(&v, sweep);
                clock.lap_if(!cs.stretch.is_empty(), Stage::Stretch);
                cs.bend_distance.project_serial(&v, sweep);
                clock.lap_if(!cs.bend_distance.is_empty(), Stage::BendDistance);
                cs.dihedral.project_serial(&v, sweep);
                clock.lap_if(!cs.dihedral.is_empty(), Stage::Dihedral);
                cs.volume.project_serial(&v, sweep);
                clock.lap_if(!cs.volume.is_empty(), Stage::Volume);
            }
            SolverMethod::Colored => {
                let v = View::new(&mut cs.slots, &ps.x);
                cs.stretch.project_colored(&v, sweep, team);
                clock.lap_if(!cs.stretch.is_empty(), Stage::Stretch);
                cs.bend_distance.project_colored(&v, sweep, team);
                clock.lap_if(!cs.bend_distance.is_empty(), Stage::BendDistance);
                cs.dihedral.project_colored(&v, sweep, team);
                clock.lap_if(!cs.dihedral.is_empty(), Stage::Dihedral);
                cs.volume.project_colored(&v, sweep, team);
                clock.lap_if(!cs.volume.is_empty(), Stage::Volume);
            }
            SolverMethod::Jacobi => {
                let (slots, x, scratch) = (&mut cs.slots, &ps.x, &mut cs.jacobi);
                scratch.begin_iteration(i, slots, team);
                clock.lap(Stage::Pack);
                cs.stretch.project_jacobi(slots, x, scratch, 0, i, team);
                clock.lap_if(!cs.stretch.is_empty(), Stage::Stretch);
                cs.bend_distance
                    .project_jacobi(slots, x, scratch, 1, i, team);
                clock.lap_if(!cs.bend_distance.is_empty(), Stage::BendDistance);
                cs.dihedral.project_jacobi(slots, x, scratch, 2, i, team);
                clock.lap_if(!cs.dihedral.is_empty(), Stage::Dihedral);
                cs.volume.project_jacobi(slots, x, scratch, 3, i, team);
                clock.lap_if(!cs.volume.is_empty(), Stage::Volume);
                let mut lambdas = [
                    &mut cs.stretch.lambda[..],
                    &mut cs.bend_distance.lambda,
                    &mut cs.dihedral.lambda,
                    &mut cs.volume.lambda,
                ];
                scratch.end_iteration(slots, &mut lambdas, team);
                clock.lap(Stage::Pack);
            }
        }
        if !cs.tether.is_empty() {
            cs.tether.project(&mut cs.slots, team);
            clock.lap(Stage::Tether);
        }
        if serial {
            unpack(&cs.slots, ps, team);
            clock.lap(Stage::Pack);
            cs.pressure.project_serial(ps);
            clock.lap_if(!cs.pressure.is_empty(), Stage::Pressure);
            cs.attachment.project_serial(ps);
            clock.lap_if(!cs.attachment.ids.is_empty(), Stage::Attachment);
            cs.particle_contact.project_serial(ps);
            clock.lap_if(!cs.particle_contact.is_empty(), Stage::ParticleContact);
            let k = cs.particle_contact.materials.coeffs[0];
            cs.surface_contact.project_serial(ps, &k);
            clock.lap_if(!cs.surface_contact.is_empty(), Stage::SurfaceContact);
            cs.contact.project_serial(ps);
            clock.lap_if(!cs.contact.is_empty(), Stage::Contact);
            pack(ps, &mut cs.slots, team);
            clock.lap(Stage::Pack);
        }
    }
    unpack(&cs.slots, ps, team);
    clock.lap(Stage::Pack);
}
