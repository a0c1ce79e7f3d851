//! The registry of constraint families: every family of the world listed once, with the
//! [`Phase`] of the substep it belongs to. Each phase projects its families in the registry's
//! order, which is also the order of their columns in the report (a new family goes last, so
//! that the columns before it keep their places). Families of one phase that share no particle
//! (cloth bending and soft-body tets) give the same bits in either order.
//!
//! The projection stage (`src/stages/project.rs`), the report's stage timings
//! ([`StageMs`](crate::timing::StageMs)), tearing, the scheduling of a built body and the
//! Jacobi solver's buffers all walk this list; none of them names a family. Adding a family
//! means its module (its data and its `solve_*` kernel), one line in the `registry!` table of
//! this file (with an impl of the crate's `ConstraintFamily` trait here, unless the family is
//! a [`Family`] of `K`-particle constraints, which has one), and its scene keys.

use super::family::{Family, FamilyKind};
use super::stiffness::{Coeffs, MaterialTable};
use super::{
    AttachmentSet, ContactSet, DihedralSet, DistanceSet, IsometricSet, NeoHookeanSet,
    ParticleContactSet, PressureSet, RopeBendingSet, StrainLimitSet, SurfaceContactSet,
    TetVolumeSet, TetherSet,
};
use crate::collision::Collider;
use crate::math::{Real, Vec3};
use crate::params::SolverMethod;
use crate::particles::ParticleSet;
use crate::shape_matching::ClusterSet;
use crate::solver::{JacobiScratch, Slot, Team, View};

/// When in a substep a family is projected, and on which copy of the positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Every iteration, on the packed slots, as the solver method says: serially
    /// (Gauss-Seidel), by colored blocks over the team, or Jacobi-style.
    Scheduled,
    /// Every iteration, after the scheduled families, on the packed slots, one constraint after
    /// another.
    Serial,
    /// Once per substep, after the last iteration, on the packed slots.
    AfterIterations,
    /// Every iteration, after the slot phases, on the particles themselves, one constraint
    /// after another.
    Particles,
    /// Every iteration, last of all, on the particles themselves, one constraint after another:
    /// the contacts, so that they have the final word on penetration.
    Contacts,
}

/// What a family is given to project once: the settings of the pass and both copies of the
/// positions (the packed slots, current in the slot phases, and the particles, current in
/// [`Phase::Particles`] and [`Phase::Contacts`]).
pub(crate) struct Pass<'a> {
    /// The solver method.
    pub(crate) method: SolverMethod,
    /// The iteration, counted from 0 in each substep.
    pub(crate) iteration: u32,
    /// Iterations per substep.
    pub(crate) iterations: u32,
    /// The substep, s.
    pub(crate) h: Real,
    /// The family's place in the registry (its state in the Jacobi buffers).
    pub(crate) index: usize,
    /// The projection's working copy of the predicted positions and inverse masses.
    pub(crate) slots: &'a mut [Slot],
    /// The substep's start positions beside `slots`.
    pub(crate) starts: &'a [Vec3],
    /// The Chebyshev acceleration's buffers (with the Jacobi solver's), inside the sweep of the
    /// scheduled families of a method that has it; the families project Jacobi-style only with
    /// `jacobi`.
    pub(crate) jacobi: Option<&'a mut JacobiScratch>,
    /// The thread team (its leader runs the pass).
    pub(crate) team: &'a Team,
    /// The particles.
    pub(crate) ps: &'a mut ParticleSet,
    /// The direction opposite gravity (unit; `+y` without gravity).
    pub(crate) up: Vec3,
    /// The colliders.
    pub(crate) colliders: &'a [Collider],
}

/// A constraint family as the projection, the substep's bookkeeping and tearing see it: one
/// dynamic call per family and pass, nothing dynamic per constraint.
pub(crate) trait ConstraintFamily {
    /// True when the family holds no constraint.
    fn is_empty(&self) -> bool;

    /// Computes the materials' coefficients for a substep of `h` seconds and resets the
    /// multipliers (XPBD accumulates `λ` over the iterations of one substep), spread over `team`.
    fn begin_substep(&mut self, _h: Real, _iterations: u32, _team: &Team) {}

    /// Whether the projection reads the substep's start positions beside the slots.
    fn reads_starts(&self) -> bool {
        false
    }

    /// Orders the family for the solver once a body has been built (or torn).
    fn schedule(&mut self) {}

    /// Removes every constraint on a particle numbered `first` or above: those of the last
    /// body, which tearing builds again.
    fn remove_from(&mut self, _first: u32) {}

    /// The multipliers that the Chebyshev acceleration extrapolates ([`Phase::Scheduled`]
    /// families): none where every material is rigid, whose `Δλ` does not depend on `λ`.
    fn multipliers(&mut self) -> &mut [Real] {
        &mut []
    }

    /// Projects every constraint of the family once.
    fn project(&mut self, pass: &mut Pass);
}

/// A family's line of the registry.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// The family's name: its stage in the report's `stage_ms` and in the benchmarks' CSV.
    pub name: &'static str,
    /// When it is projected.
    pub phase: Phase,
}

/// Declares [`ConstraintSets`] (one field per family), [`FAMILIES`] (each family's name and
/// phase) and the walk over them, from one line per family: `name: Set, Phase`.
macro_rules! registry {
    ($( $(#[doc = $doc:expr])* $field:ident: $set:ty, $phase:ident; )*) => {
        /// Every constraint of a world, one flat array per family (see [`FAMILIES`]).
        #[derive(Clone, Debug, Default)]
        pub struct ConstraintSets {
            $( $(#[doc = $doc])* pub $field: $set, )*
        }

        /// The registry: every family's name and phase, in the order of the report's columns.
        pub const FAMILIES: &[Entry] = &[
            $( Entry { name: stringify!($field), phase: Phase::$phase }, )*
        ];

        /// How many families the registry lists.
        pub const FAMILY_COUNT: usize = [$(stringify!($field)),*].len();

        impl ConstraintSets {
            /// Every family, in the order of [`FAMILIES`].
            pub(crate) fn each_mut(&mut self) -> [&mut dyn ConstraintFamily; FAMILY_COUNT] {
                [$( &mut self.$field ),*]
            }
        }
    };
}

registry! {
    /// Shape-matching clusters (Müller et al. 2005), as a constraint.
    shape_matching: ClusterSet, Particles;
    /// Stretch and shear of cloth, rope segments: the constraints whose strain is reported.
    stretch: DistanceSet, Scheduled;
    /// Cross-distance bending of cloth and bending of rope (particles two apart).
    bend_distance: DistanceSet, Scheduled;
    /// Dihedral-angle bending of cloth.
    dihedral: DihedralSet, Scheduled;
    /// Tetrahedron volumes of soft bodies.
    volume: TetVolumeSet, Scheduled;
    /// Long-range attachments of free particles to their nearest pins.
    tether: TetherSet, AfterIterations;
    /// Enclosed volumes of surface soft bodies.
    pressure: PressureSet, Particles;
    /// Particles held to fixed points.
    attachment: AttachmentSet, Particles;
    /// Particle-particle contacts of the current substep.
    particle_contact: ParticleContactSet, Contacts;
    /// Particle-surface contacts of the current substep (stiffness: the particle contacts').
    surface_contact: SurfaceContactSet, Contacts;
    /// Particle-collider contacts of the current substep.
    contact: ContactSet, Contacts;
    /// Isometric bending of flat cloth.
    isometric: IsometricSet, Scheduled;
    /// Neo-Hookean tets of soft bodies of an elastic solid.
    neo_hookean: NeoHookeanSet, Serial;
    /// Elastic bending of ropes (bending stiffness `EI`).
    rope_bending: RopeBendingSet, Serial;
    /// Strain limits of cloth and rope edges (`stretch_limit`).
    stretch_limit: StrainLimitSet, AfterIterations;
}

impl ConstraintSets {
    /// Schedules every family from its particle ids (see [`schedule`](crate::solver::schedule));
    /// called when a body has been built or torn.
    pub(crate) fn schedule(&mut self) {
        self.each_mut().into_iter().for_each(|f| f.schedule());
    }

    /// Removes every constraint on a particle numbered `first` or above (see
    /// [`ConstraintFamily::remove_from`]).
    pub(crate) fn remove_from(&mut self, first: u32) {
        self.each_mut()
            .into_iter()
            .for_each(|f| f.remove_from(first));
    }

    /// Begins a substep of `h` seconds in every family (see
    /// [`ConstraintFamily::begin_substep`]), the distance families projected SHAKE's way when
    /// `shake` (see [`SolverParams::shake`](crate::SolverParams::shake)). The particle-surface
    /// contacts take the particle contacts' stiffness and static friction.
    pub(crate) fn begin_substep(&mut self, h: Real, iterations: u32, shake: bool, team: &Team) {
        for f in self.each_mut() {
            f.begin_substep(h, iterations, team);
        }
        for set in [&mut self.stretch, &mut self.bend_distance] {
            set.materials
                .coeffs
                .iter_mut()
                .for_each(|k| k.shake = shake);
        }
        self.surface_contact.stiffness = (
            self.particle_contact.materials.coeffs[0],
            self.particle_contact.response.static_friction,
        );
    }
}

/// The families scheduled into colored batches (see [`Family`]): projected as the method says
/// in [`Phase::Scheduled`]; in a later phase Gauss-Seidel stays serial and the other methods
/// run the colored driver.
impl<const K: usize, Kind: FamilyKind<K>> ConstraintFamily for Family<K, Kind> {
    fn is_empty(&self) -> bool {
        Family::is_empty(self)
    }

    fn begin_substep(&mut self, h: Real, iterations: u32, team: &Team) {
        if self.lambda_zero {
            self.materials.resolve(h, iterations);
        } else {
            reset(&mut self.materials, &mut self.lambda, h, iterations, team);
        }
        self.lambda_zero = self.materials.coeffs.iter().all(Coeffs::is_rigid);
    }

    fn reads_starts(&self) -> bool {
        self.damped()
    }

    fn schedule(&mut self) {
        Family::schedule(self);
    }

    fn remove_from(&mut self, first: u32) {
        Family::remove_from(self, first);
    }

    fn multipliers(&mut self) -> &mut [Real] {
        match self.lambda_zero {
            true => &mut [],
            false => &mut self.lambda,
        }
    }

    fn project(&mut self, pass: &mut Pass) {
        match (pass.method, pass.jacobi.as_deref_mut()) {
            (SolverMethod::GaussSeidel, _) => {
                self.project_serial(&View::new(pass.slots, pass.starts));
            }
            (SolverMethod::Jacobi, Some(scratch)) => {
                let (i, index) = (pass.iteration, pass.index);
                self.project_jacobi(pass.slots, pass.starts, scratch, index, i, pass.team);
            }
            _ => self.project_colored(&View::new(pass.slots, pass.starts), pass.team),
        }
    }
}

/// Resolves `materials` for a substep of `h` seconds and zeroes the multipliers `lambda`.
fn reset(materials: &mut MaterialTable, lambda: &mut [Real], h: Real, n: u32, team: &Team) {
    materials.resolve(h, n);
    team.for_each_chunk(lambda, |_, l| l.fill(0.0));
}

impl ConstraintFamily for NeoHookeanSet {
    fn is_empty(&self) -> bool {
        NeoHookeanSet::is_empty(self)
    }

    fn begin_substep(&mut self, h: Real, iterations: u32, team: &Team) {
        reset(&mut self.materials, &mut self.lambda, h, iterations, team);
    }

    fn reads_starts(&self) -> bool {
        !self.is_empty()
    }

    fn schedule(&mut self) {
        NeoHookeanSet::schedule(self);
    }

    fn project(&mut self, pass: &mut Pass) {
        self.project_serial(pass.slots, pass.starts);
    }
}

impl ConstraintFamily for RopeBendingSet {
    fn is_empty(&self) -> bool {
        RopeBendingSet::is_empty(self)
    }

    fn begin_substep(&mut self, h: Real, iterations: u32, team: &Team) {
        reset(&mut self.materials, &mut self.lambda, h, iterations, team);
    }

    fn reads_starts(&self) -> bool {
        !self.is_empty()
    }

    fn project(&mut self, pass: &mut Pass) {
        self.project_serial(pass.slots, pass.starts);
    }
}

/// Tethers touch distinct particles: one color, in parallel over the team with every method.
impl ConstraintFamily for TetherSet {
    fn is_empty(&self) -> bool {
        TetherSet::is_empty(self)
    }

    fn remove_from(&mut self, first: u32) {
        TetherSet::remove_from(self, first);
    }

    fn project(&mut self, pass: &mut Pass) {
        TetherSet::project(self, pass.slots, pass.team);
    }
}

/// The limits are projected until they hold (see [`StrainLimitSet::project`]): serially with
/// Gauss-Seidel, by colored blocks with the other methods.
impl ConstraintFamily for StrainLimitSet {
    fn is_empty(&self) -> bool {
        StrainLimitSet::is_empty(self)
    }

    fn begin_substep(&mut self, h: Real, iterations: u32, team: &Team) {
        self.edges.begin_substep(h, iterations, team);
    }

    fn schedule(&mut self) {
        self.edges.schedule();
    }

    fn remove_from(&mut self, first: u32) {
        self.edges.remove_from(first);
    }

    fn project(&mut self, pass: &mut Pass) {
        let serial = pass.method == SolverMethod::GaussSeidel;
        StrainLimitSet::project(self, pass.slots, pass.starts, serial, pass.team);
    }
}

impl ConstraintFamily for ClusterSet {
    fn is_empty(&self) -> bool {
        ClusterSet::is_empty(self)
    }

    fn project(&mut self, pass: &mut Pass) {
        let last = pass.iteration + 1 == pass.iterations;
        self.match_shapes(pass.ps, pass.h, pass.iterations, last);
    }
}

impl ConstraintFamily for PressureSet {
    fn is_empty(&self) -> bool {
        PressureSet::is_empty(self)
    }

    fn begin_substep(&mut self, h: Real, iterations: u32, team: &Team) {
        reset(&mut self.materials, &mut self.lambda, h, iterations, team);
    }

    fn project(&mut self, pass: &mut Pass) {
        self.project_serial(pass.ps);
    }
}

impl ConstraintFamily for AttachmentSet {
    fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    fn begin_substep(&mut self, h: Real, iterations: u32, team: &Team) {
        reset(&mut self.materials, &mut self.lambda, h, iterations, team);
    }

    fn project(&mut self, pass: &mut Pass) {
        self.project_serial(pass.ps);
    }
}

impl ConstraintFamily for ParticleContactSet {
    fn is_empty(&self) -> bool {
        ParticleContactSet::is_empty(self)
    }

    fn begin_substep(&mut self, h: Real, iterations: u32, team: &Team) {
        reset(&mut self.materials, &mut self.lambda, h, iterations, team);
    }

    fn project(&mut self, pass: &mut Pass) {
        self.project_serial(pass.ps, pass.up);
    }
}

impl ConstraintFamily for SurfaceContactSet {
    fn is_empty(&self) -> bool {
        SurfaceContactSet::is_empty(self)
    }

    fn project(&mut self, pass: &mut Pass) {
        let (k, mu_s) = self.stiffness;
        self.project_serial(pass.ps, &k, mu_s, pass.up);
    }
}

/// Collider `j`'s contacts move with its surface and take its static friction.
impl ConstraintFamily for ContactSet {
    fn is_empty(&self) -> bool {
        ContactSet::is_empty(self)
    }

    fn begin_substep(&mut self, h: Real, iterations: u32, team: &Team) {
        reset(&mut self.materials, &mut self.lambda, h, iterations, team);
    }

    fn project(&mut self, pass: &mut Pass) {
        let (colliders, h) = (pass.colliders, pass.h);
        let surface = |j: usize, x| {
            let c: &Collider = &colliders[j];
            (c.surface_velocity(x) * h, c.material.static_friction)
        };
        self.project_serial(pass.ps, surface);
    }
}
