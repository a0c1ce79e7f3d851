//! Stage 5: constraint projection.

use crate::bodies::Body;
use crate::collision::Collider;
use crate::constraints::{ConstraintSets, contact};
use crate::math::Vec3;
use crate::params::{SolverMethod, SolverParams};
use crate::particles::ParticleSet;
use crate::shape_matching::ClusterSet;
use crate::solver::view::{pack, repack, unpack};
use crate::solver::{Team, View};
use crate::stats::{Stage, StageClock};

/// Runs `params.iterations` passes over every constraint family of a substep of `params.h()`:
/// stretch, distance bending, dihedral and isometric bending and tet volumes (each visited as `params.method`
/// says, every iteration in the same order; `colored` spreads the blocks of a
/// color over `team`, whose leader calls this; `jacobi` sums each family's corrections over
/// `team` and extrapolates every iteration, see [`JacobiScratch`](crate::solver::JacobiScratch)),
/// then serially the Neo-Hookean tets (see [`NeoHookeanSet`](crate::constraints::NeoHookeanSet))
/// and the elastic rope bending (see [`RopeBendingSet`](crate::constraints::RopeBendingSet)),
/// after the last iteration the tethers (one color, in parallel over `team` with every method, see
/// [`TetherSet`](crate::constraints::TetherSet)), then serially shape matching (a constraint
/// inside the iterations, see [`ClusterSet::match_shapes`]), enclosed volumes, attachments,
/// particle-particle contacts, particle-surface contacts (a lighter side under the other taking
/// its inverse mass, see [`supported`](crate::constraints::contact::supported)) and collider
/// contacts with their static friction, contacts last so that they have the final word on
/// penetration.
///
/// The scheduled families project a packed copy of the predicted positions and inverse masses
/// (`cs.slots`, with the start positions in `cs.starts`, see [`pack`]), each position relative
/// to its body's origin (`cs.origins`: the start position of the body's first particle; see
/// [`view`](crate::solver::view)), so that the projection's precision does not depend on where
/// the body is. The copy is written back to `ps.p` for the serial families, when there are any
/// (and what they did is added back with [`repack`]), and at the end. Each family's passes are
/// timed on `clock` as its [`Stage`] (an empty family's few nanoseconds go to the next), the
/// copies as [`Stage::Pack`].
#[allow(clippy::too_many_arguments)]
pub fn project_constraints(
    params: &SolverParams,
    cs: &mut ConstraintSets,
    ps: &mut ParticleSet,
    bodies: &[Body],
    clusters: &mut ClusterSet,
    colliders: &[Collider],
    team: &Team,
    clock: &mut StageClock,
) {
    let (method, iterations, h) = (params.method, params.iterations, params.h());
    let serial = !(clusters.is_empty()
        && cs.pressure.is_empty()
        && cs.attachment.ids.is_empty()
        && cs.particle_contact.is_empty()
        && cs.surface_contact.is_empty()
        && cs.contact.is_empty());
    cs.origins.clear();
    let starts = bodies.iter().map(|b| ps.x.get(b.particles.start));
    cs.origins
        .extend(starts.map(|x| x.copied().unwrap_or_else(Vec3::zeros)));
    let origins = &cs.origins;
    // The start positions are read by XPBD damping and by the Neo-Hookean and rope-bending
    // kernels only.
    let with_starts = cs.stretch.damped()
        || cs.bend_distance.damped()
        || cs.dihedral.damped()
        || cs.isometric.damped()
        || cs.volume.damped()
        || !cs.neo_hookean.is_empty()
        || !cs.rope_bending.is_empty();
    pack(
        ps,
        origins,
        &mut cs.slots,
        (&mut cs.starts, &mut cs.lost),
        with_starts,
        team,
    );
    clock.lap(Stage::Pack);
    for i in 0..iterations {
        match method {
            SolverMethod::GaussSeidel => {
                let v = View::new(&mut cs.slots, &cs.starts);
                cs.stretch.project_serial(&v);
                clock.lap_if(!cs.stretch.is_empty(), Stage::Stretch);
                cs.bend_distance.project_serial(&v);
                clock.lap_if(!cs.bend_distance.is_empty(), Stage::BendDistance);
                cs.dihedral.project_serial(&v);
                clock.lap_if(!cs.dihedral.is_empty(), Stage::Dihedral);
                cs.isometric.project_serial(&v);
                clock.lap_if(!cs.isometric.is_empty(), Stage::Isometric);
                cs.volume.project_serial(&v);
                clock.lap_if(!cs.volume.is_empty(), Stage::Volume);
            }
            SolverMethod::Colored => {
                let v = View::new(&mut cs.slots, &cs.starts);
                cs.stretch.project_colored(&v, team);
                clock.lap_if(!cs.stretch.is_empty(), Stage::Stretch);
                cs.bend_distance.project_colored(&v, team);
                clock.lap_if(!cs.bend_distance.is_empty(), Stage::BendDistance);
                cs.dihedral.project_colored(&v, team);
                clock.lap_if(!cs.dihedral.is_empty(), Stage::Dihedral);
                cs.isometric.project_colored(&v, team);
                clock.lap_if(!cs.isometric.is_empty(), Stage::Isometric);
                cs.volume.project_colored(&v, team);
                clock.lap_if(!cs.volume.is_empty(), Stage::Volume);
            }
            SolverMethod::Jacobi => {
                let (slots, x, scratch) = (&mut cs.slots, &cs.starts, &mut cs.jacobi);
                scratch.begin_iteration(i, slots, team);
                clock.lap(Stage::Pack);
                cs.stretch.project_jacobi(slots, x, scratch, 0, i, team);
                clock.lap_if(!cs.stretch.is_empty(), Stage::Stretch);
                cs.bend_distance
                    .project_jacobi(slots, x, scratch, 1, i, team);
                clock.lap_if(!cs.bend_distance.is_empty(), Stage::BendDistance);
                cs.dihedral.project_jacobi(slots, x, scratch, 2, i, team);
                clock.lap_if(!cs.dihedral.is_empty(), Stage::Dihedral);
                cs.isometric.project_jacobi(slots, x, scratch, 3, i, team);
                clock.lap_if(!cs.isometric.is_empty(), Stage::Isometric);
                cs.volume.project_jacobi(slots, x, scratch, 4, i, team);
                clock.lap_if(!cs.volume.is_empty(), Stage::Volume);
                let mut lambdas = [
                    &mut cs.stretch.lambda[..],
                    &mut cs.bend_distance.lambda,
                    &mut cs.dihedral.lambda,
                    &mut cs.isometric.lambda,
                    &mut cs.volume.lambda,
                ];
                scratch.end_iteration(slots, &mut lambdas, team);
                clock.lap(Stage::Pack);
            }
        }
        if !cs.neo_hookean.is_empty() {
            cs.neo_hookean.project_serial(&mut cs.slots, &cs.starts);
            clock.lap(Stage::Volume);
        }
        if !cs.rope_bending.is_empty() {
            cs.rope_bending.project_serial(&mut cs.slots, &cs.starts);
            clock.lap(Stage::BendDistance);
        }
        if i + 1 == iterations && !cs.tether.is_empty() {
            cs.tether.project(&mut cs.slots, team);
            clock.lap(Stage::Tether);
        }
        if serial {
            unpack(&cs.slots, origins, &cs.lost, ps, team);
            clock.lap(Stage::Pack);
            clusters.match_shapes(ps, h, iterations, i + 1 == iterations);
            clock.lap_if(!clusters.is_empty(), Stage::ShapeMatching);
            cs.pressure.project_serial(ps);
            clock.lap_if(!cs.pressure.is_empty(), Stage::Pressure);
            cs.attachment.project_serial(ps);
            clock.lap_if(!cs.attachment.ids.is_empty(), Stage::Attachment);
            let up = contact::up(params.gravity);
            cs.particle_contact.project_serial(ps, up);
            clock.lap_if(!cs.particle_contact.is_empty(), Stage::ParticleContact);
            let k = cs.particle_contact.materials.coeffs[0];
            let mu_s = cs.particle_contact.response.static_friction;
            cs.surface_contact.project_serial(ps, &k, mu_s, up);
            clock.lap_if(!cs.surface_contact.is_empty(), Stage::SurfaceContact);
            let surface = |j: usize, x| {
                let c: &Collider = &colliders[j];
                (c.surface_velocity(x) * h, c.material.static_friction)
            };
            cs.contact.project_serial(ps, surface);
            clock.lap_if(!cs.contact.is_empty(), Stage::Contact);
            repack(ps, origins, &mut cs.slots, team);
            clock.lap(Stage::Pack);
        }
    }
    unpack(&cs.slots, origins, &cs.lost, ps, team);
    clock.lap(Stage::Pack);
}
