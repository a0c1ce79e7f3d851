//! Stage 5: constraint projection.

use crate::bodies::Body;
use crate::collision::Collider;
use crate::constraints::ConstraintSets;
use crate::constraints::contact;
use crate::constraints::registry::{ConstraintFamily, FAMILIES, FAMILY_COUNT, Pass, Phase};
use crate::math::{Real, Vec3};
use crate::params::{SolverMethod, SolverParams};
use crate::particles::ParticleSet;
use crate::solver::drivers::{CHEBYSHEV_START, COLORED_RHO, JACOBI_RHO, Next};
use crate::solver::global::GlobalStep;
use crate::solver::view::{pack, repack, unpack};
use crate::solver::{JacobiScratch, Slot, Team};
use crate::timing::{Stage, StageClock};

/// The projection's working memory, kept from one substep to the next.
#[derive(Clone, Debug, Default)]
pub(crate) struct Workspace {
    /// The working copy of the predicted positions and inverse masses (see [`pack`]).
    slots: Vec<Slot>,
    /// The substep's start positions beside `slots`, relative to the same origins, m.
    starts: Vec<Vec3>,
    /// What the slots' `f32` positions leave out of the exact relative positions, m (see
    /// [`pack`]).
    lost: Vec<Vec3>,
    /// The origin of each body's slots in the current substep: the start position of its first
    /// particle, m (see [`view`](crate::solver::view)).
    origins: Vec<Vec3>,
    /// The Jacobi solver's buffers and per-family state.
    jacobi: JacobiScratch,
    /// The factorized global step of `colored-global`.
    global: GlobalStep,
}

/// Runs `params.iterations` passes over the constraint families of the
/// [registry](crate::constraints::registry), in its order, for a substep of `params.h()`. Each
/// iteration projects the [`Phase::Scheduled`] families as `params.method` says (serially;
/// `colored` spreads the blocks of a color over `team`, whose leader calls this; `jacobi` sums
/// each family's corrections over `team`; `jacobi` and `colored-chebyshev` extrapolate every
/// iteration, see [`JacobiScratch`]), then the [`Phase::Serial`] ones; after the last iteration the
/// [`Phase::AfterIterations`] ones (tethers, strain limits); and every iteration the
/// [`Phase::Particles`] families (shape matching, pressure, attachments), then the
/// [`Phase::Contacts`] ones, last so that they have the final word on penetration.
///
/// The slot phases project a packed copy of the predicted positions and inverse masses (see
/// [`pack`]), each position relative to its body's origin (the start position of the body's
/// first particle; see [`view`](crate::solver::view)), so that the projection's precision does
/// not depend on where the body is. The copy is written back to `ps.p` for the particle phase,
/// when it has work (and what it did is added back with [`repack`]), and at the end. Each
/// family's passes are timed on `clock` as its [`Stage::Family`], the copies as [`Stage::Pack`].
///
/// With `colored-global` the isometric bending family is instead solved by the global step
/// (see [`global`](crate::solver::global)) on the predicted positions, before the iterations,
/// and timed as its family; the iterations leave it out.
#[allow(clippy::too_many_arguments)]
pub(crate) fn project_constraints(
    params: &SolverParams,
    cs: &mut ConstraintSets,
    work: &mut Workspace,
    ps: &mut ParticleSet,
    bodies: &[Body],
    colliders: &[Collider],
    team: &Team,
    clock: &mut StageClock,
) {
    // The family that the global step of `colored-global` has solved, which the iterations
    // then leave out.
    let skip = (params.method == SolverMethod::ColoredGlobal
        && work.global.step(&cs.isometric, ps))
    .then(|| FAMILIES.iter().position(|f| f.name == "isometric"))
    .flatten();
    if let Some(f) = skip {
        clock.lap(Stage::Family(f));
    }
    let mut families = cs.each_mut();
    let has = |families: &[&mut dyn ConstraintFamily; FAMILY_COUNT], phase| {
        in_phase(phase).any(|f| !families[f].is_empty())
    };
    let particle_families = has(&families, Phase::Particles);
    let particles = particle_families || has(&families, Phase::Contacts);
    // What moves the particles after the Chebyshev extrapolation, before the next iteration.
    let next = if particle_families || has(&families, Phase::Serial) {
        Next::Families
    } else if particles {
        Next::Contacts
    } else {
        Next::Here
    };
    let with_starts = families.iter().any(|f| f.reads_starts());
    let Workspace {
        slots,
        starts,
        lost,
        origins,
        jacobi,
        global: _,
    } = work;
    origins.clear();
    let first = bodies.iter().map(|b| ps.x.get(b.particles.start));
    origins.extend(first.map(|x| x.copied().unwrap_or_else(Vec3::zeros)));
    pack(ps, origins, slots, (starts, lost), with_starts, team);
    clock.lap(Stage::Pack);
    let chebyshev = chebyshev_of(params);
    for iteration in 0..params.iterations {
        let mut pass = Pass {
            method: params.method,
            iteration,
            iterations: params.iterations,
            h: params.h(),
            index: 0,
            slots,
            starts,
            jacobi: None,
            team,
            ps,
            up: contact::up(params.gravity),
            colliders,
        };
        if let Some(rho) = chebyshev {
            jacobi.begin_iteration((iteration, params.iterations), rho, pass.slots, team);
            if iteration == 0 && params.method != SolverMethod::Jacobi {
                jacobi.record_multipliers(&multipliers(&mut families), team);
            }
            clock.lap(Stage::Pack);
            pass.jacobi = Some(&mut *jacobi);
        }
        project(&mut families, Phase::Scheduled, skip, &mut pass, clock);
        // The acceleration's state, while the families it leaves out are to be recorded.
        let mut leaving_out = None;
        if let Some(jacobi) = pass.jacobi.take() {
            let mut lambdas = multipliers(&mut families);
            jacobi.end_iteration(pass.slots, &mut lambdas, next, team);
            clock.lap(Stage::Pack);
            project(&mut families, Phase::Serial, None, &mut pass, clock);
            if next == Next::Families {
                jacobi.serial_moved(pass.slots, team);
                clock.lap(Stage::Pack);
                leaving_out = Some(jacobi);
            }
        } else {
            project(&mut families, Phase::Serial, None, &mut pass, clock);
        }
        if iteration + 1 == params.iterations {
            project(
                &mut families,
                Phase::AfterIterations,
                None,
                &mut pass,
                clock,
            );
        }
        if particles {
            unpack(pass.slots, origins, lost, pass.ps, team);
            clock.lap(Stage::Pack);
            match leaving_out.filter(|_| particle_families) {
                Some(jacobi) => {
                    jacobi.mark_particles(&pass.ps.p, team);
                    clock.lap(Stage::Pack);
                    project(&mut families, Phase::Particles, None, &mut pass, clock);
                    jacobi.particles_moved(&pass.ps.p, team);
                    clock.lap(Stage::Pack);
                }
                None => project(&mut families, Phase::Particles, None, &mut pass, clock),
            }
            project(&mut families, Phase::Contacts, None, &mut pass, clock);
            repack(pass.ps, origins, pass.slots, team);
            clock.lap(Stage::Pack);
        }
    }
    unpack(slots, origins, lost, ps, team);
    clock.lap(Stage::Pack);
}

/// The Chebyshev acceleration's spectral radius, for the methods that have it. A substep too
/// short to reach `CHEBYSHEV_START` is never extrapolated, and `colored-chebyshev` then is
/// `colored`, without recording iterates it would not use.
fn chebyshev_of(params: &SolverParams) -> Option<Real> {
    match params.method {
        SolverMethod::Jacobi => Some(JACOBI_RHO),
        SolverMethod::ColoredChebyshev if params.iterations > CHEBYSHEV_START => Some(COLORED_RHO),
        SolverMethod::ColoredChebyshev
        | SolverMethod::GaussSeidel
        | SolverMethod::Colored
        | SolverMethod::ColoredGlobal => None,
    }
}

/// The families of `phase`, by their place in the registry.
fn in_phase(phase: Phase) -> impl Iterator<Item = usize> {
    (0..FAMILY_COUNT).filter(move |&f| FAMILIES[f].phase == phase)
}

/// Projects the families of `phase` that have constraints once each, in registry order, but
/// the family numbered `skip`, timing each on `clock` (an empty family's few nanoseconds go to
/// the next stage).
fn project(
    families: &mut [&mut dyn ConstraintFamily; FAMILY_COUNT],
    phase: Phase,
    skip: Option<usize>,
    pass: &mut Pass,
    clock: &mut StageClock,
) {
    for f in in_phase(phase) {
        if families[f].is_empty() || skip == Some(f) {
            continue;
        }
        pass.index = f;
        families[f].project(pass);
        clock.lap(Stage::Family(f));
    }
}

/// The multipliers of every family, in registry order, for the Chebyshev extrapolation:
/// those of the [`Phase::Scheduled`] families, none of the others.
fn multipliers<'a>(
    families: &'a mut [&mut dyn ConstraintFamily; FAMILY_COUNT],
) -> [&'a mut [Real]; FAMILY_COUNT] {
    let mut f = 0;
    families.each_mut().map(|family| {
        let scheduled = FAMILIES[f].phase == Phase::Scheduled;
        f += 1;
        match scheduled {
            true => family.multipliers(),
            false => &mut [],
        }
    })
}
