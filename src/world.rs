//! The world: particles, constraints, colliders and bodies, and the step that advances them.

use crate::bodies::cloth::ClothDesc;
use crate::bodies::rope::RopeDesc;
use crate::bodies::soft_body::SoftBodyDesc;
#[cfg(doc)]
use crate::bodies::soft_body::SoftBodyError;
use crate::bodies::tear::Tearing;
use crate::bodies::{Body, BodyKind, strain_floor};
use crate::collision::{BodySurfaces, Carry, Collider, Motion, ParticlePairs, Shape};
use crate::constraints::{ColliderPinSet, ConstraintSets};
use crate::handles::{BodyHandle, ColliderHandle};
use crate::math::{Quat, Real, Vec3};
use crate::params::{SolverMethod, SolverParams};
use crate::particles::ParticleSet;
use crate::shape_matching::{ClusterMaterial, ClusterSet};
use crate::solver::Team;
use crate::stages::project::Workspace;
use crate::stages::*;
use crate::timing::{Stage, StageClock, StageMs};
use crate::validate::{self, BuildError};
use std::ops::Range;
use std::sync::Arc;

/// A simulation that cannot go on.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SimError {
    /// A position became NaN or infinite.
    #[error(
        "body '{body}' has a non-finite position at frame {frame}: the simulation blew up (try more substeps, a smaller dt or softer constraints)"
    )]
    NonFinite {
        /// The body's name.
        body: String,
        /// The frame that produced it.
        frame: u64,
    },
    /// A stretch constraint's strain passed [`SolverParams::max_strain`].
    #[error(
        "body '{body}' is stretched to {percent:.0}% strain at frame {frame}, past the limit of {limit_percent:.0}% ([solver] max_strain = {limit}): the simulation is diverging and was stopped (try more substeps or iterations, a smaller dt, or softer bending)",
        percent = strain * 100.0,
        limit_percent = limit * 100.0
    )]
    Diverged {
        /// The body's name.
        body: String,
        /// The frame that produced it.
        frame: u64,
        /// Its largest strain `|ℓ − d| / max(d, floor)`, the floor being 1/32 of its rest size
        /// ([`STRAIN_FLOOR`](crate::bodies::STRAIN_FLOOR)).
        strain: Real,
        /// The limit, [`SolverParams::max_strain`].
        limit: Real,
    },
}

/// A call on a built world that cannot be carried out: the argument that is wrong
/// (`positions`, `particle`, `translation`) and what was expected. Nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{argument}` {message}")]
pub struct WorldError {
    /// The argument, or the path inside it (`positions[3]`).
    pub argument: String,
    /// What is wrong, starting with the value given: `= 5: expected a particle index in 0..5`.
    pub message: String,
}

impl From<BuildError> for WorldError {
    fn from(e: BuildError) -> Self {
        WorldError {
            argument: e.key,
            message: e.message,
        }
    }
}

/// Everything that is simulated: particles, constraints, shape-matching clusters, colliders and
/// bodies. Built with [`World::new`] and the `add_*` methods, advanced with [`World::step`].
#[derive(Clone, Debug, Default)]
pub struct World {
    /// Solver settings.
    pub(crate) params: SolverParams,
    /// All particles, body after body.
    pub(crate) particles: ParticleSet,
    /// All constraints, one flat array per family (shape-matching clusters included).
    pub(crate) constraints: ConstraintSets,
    /// The constraint projection's working memory.
    projection: Workspace,
    /// Colliders (static or kinematic); collider `j`'s contact stiffness is material `j` of
    /// `constraints.contact`.
    pub(crate) colliders: Vec<Collider>,
    /// A motion for the next frame only, per collider ([`World::move_collider`]).
    pub(crate) next_motion: Vec<Option<Motion>>,
    /// Bodies, in the order they were added.
    pub(crate) bodies: Vec<Body>,
    /// Which particle pairs may collide (self-collision per body), and the spatial hash.
    pub(crate) particle_pairs: ParticlePairs,
    /// The soft bodies' surfaces, for particle-surface contacts.
    pub(crate) body_surfaces: BodySurfaces,
    /// Frames simulated so far.
    pub(crate) frame: u64,
    /// Wall time of each stage of the last step.
    pub(crate) stage_ms: StageMs,
    /// Pins carried by colliders.
    pub(crate) collider_pins: ColliderPinSet,
    /// Each collider's motion over the current substep (`None`: static).
    carries: Vec<Option<Carry>>,
    /// The boxes around groups of particles in the current substep, and the colliders each
    /// group may reach.
    near_colliders: (ParticleGroups, NearColliders),
    /// The tearing cloth, if any (the last body).
    pub(crate) tearing: Option<Tearing>,
    /// Per body, the shortest length the divergence check measures stretch against, m
    /// ([`strain_floor`]).
    strain_floors: Vec<Real>,
    /// Per body, the description it was built from, for [`World::remove_body`].
    descs: Vec<Arc<BodyDesc>>,
}

/// The description a body was built from.
#[derive(Debug)]
enum BodyDesc {
    Rope(RopeDesc),
    Cloth(ClothDesc),
    Soft(SoftBodyDesc),
}

impl World {
    /// An empty world with the solver settings `params` (checked).
    pub fn new(params: SolverParams) -> Result<Self, BuildError> {
        params.validate()?;
        Ok(World {
            params,
            ..Default::default()
        })
    }

    /// Adds a rope; returns its handle.
    pub fn add_rope(&mut self, desc: &RopeDesc) -> Result<BodyHandle, BuildError> {
        desc.validate()?;
        self.after_tearing()?;
        let name = self.body_name(&desc.name, BodyKind::Rope)?;
        self.check_pin_collider(desc.pin_collider)?;
        let index = self.bodies.len() as u32;
        let body = desc.build(name, &mut self.particles, &mut self.constraints, index);
        self.carry_pins(desc.pin_collider, &body, &desc.pins());
        let shape = desc.shape;
        Ok(self.push_body(body, shape, false, BodyDesc::Rope(desc.clone())))
    }

    /// Adds a cloth; returns its handle.
    pub fn add_cloth(&mut self, desc: &ClothDesc) -> Result<BodyHandle, BuildError> {
        desc.validate()?;
        self.after_tearing()?;
        let name = self.body_name(&desc.name, BodyKind::Cloth)?;
        self.check_pin_collider(desc.pin_collider)?;
        let index = self.bodies.len() as u32;
        let body = desc.build(name, &mut self.particles, &mut self.constraints, index);
        self.carry_pins(desc.pin_collider, &body, &desc.pin);
        if let Some(tear) = desc.tear {
            self.tearing = Some(Tearing::new(index as usize, desc, tear));
        }
        let (shape, self_collision) = (desc.shape, desc.self_collision);
        Ok(self.push_body(body, shape, self_collision, BodyDesc::Cloth(desc.clone())))
    }

    /// Fails (at key `pin.collider`) when `collider` is not one of the world's.
    fn check_pin_collider(&self, collider: Option<ColliderHandle>) -> Result<(), BuildError> {
        match collider {
            Some(j) => validate::check(j.index() < self.colliders.len(), "pin.collider", || {
                format!(
                    "is collider {}: the world has {}",
                    j.index(),
                    self.colliders.len()
                )
            }),
            None => Ok(()),
        }
    }

    /// Makes `collider`, if any, carry the pinned vertices `pins` (0-based within `body`, just
    /// built).
    fn carry_pins(&mut self, collider: Option<ColliderHandle>, body: &Body, pins: &[usize]) {
        if let Some(j) = collider {
            let mut particles: Vec<usize> = pins
                .iter()
                .map(|&k| body.particles.start + body.particle_of_vertex(k))
                .collect();
            particles.sort_unstable();
            particles.dedup();
            self.carry(j, &particles);
        }
    }

    /// Makes collider `j` carry the world's `particles` (sorted, distinct) from where they are.
    fn carry(&mut self, j: ColliderHandle, particles: &[usize]) {
        let c = &self.colliders[j.index()];
        for &i in particles {
            self.collider_pins
                .push(i as u32, self.particles.x[i], j.index(), c);
        }
    }

    /// Fails (at key `tear`) when the world has a tearing cloth: it grows as it tears, so it
    /// must be the last body.
    fn after_tearing(&self) -> Result<(), BuildError> {
        match &self.tearing {
            Some(t) => Err(BuildError::new(
                "tear",
                format!(
                    "is set on cloth '{}', which must be the world's last body: add it after this one (in a scene, tear only the last [[cloth]], with no soft body)",
                    self.bodies[t.body].name
                ),
            )),
            None => Ok(()),
        }
    }

    /// Edges torn so far (0 without a tearing cloth; see [`tear`](crate::bodies::tear)).
    pub fn torn_edges(&self) -> u64 {
        self.tearing.as_ref().map_or(0, |t| t.torn)
    }

    /// Adds a soft body; returns its handle. Fails with [`BuildError`] at key `mesh` when the
    /// mesh cannot become the model asked for (see [`SoftBodyError`]).
    pub fn add_soft_body(&mut self, desc: &SoftBodyDesc) -> Result<BodyHandle, BuildError> {
        desc.validate()?;
        self.after_tearing()?;
        let name = self.body_name(&desc.name, BodyKind::Soft)?;
        let index = self.bodies.len() as u32;
        let (ps, cs) = (&mut self.particles, &mut self.constraints);
        let body = desc
            .build(name, ps, cs, index)
            .map_err(|e| BuildError::new("mesh", format!("cannot be made a soft body: {e}")))?;
        Ok(self.push_body(body, None, false, BodyDesc::Soft(desc.clone())))
    }

    /// Adds a collider (checked; a plane's normal is normalized); returns its handle.
    pub fn add_collider(&mut self, mut collider: Collider) -> Result<ColliderHandle, BuildError> {
        collider.validate()?;
        if let Shape::Plane { normal, .. } = &mut collider.shape {
            *normal = normal.normalize();
        }
        self.constraints.contact.materials.add(collider.stiffness);
        self.colliders.push(collider);
        self.next_motion.push(None);
        Ok(ColliderHandle(self.colliders.len() as u32 - 1))
    }

    /// The name a new body of `kind` gets: `given`, checked and unique, or `<kind><n>` for the
    /// n-th body of that kind when `given` is empty.
    fn body_name(&self, given: &str, kind: BodyKind) -> Result<String, BuildError> {
        let name = if given.is_empty() {
            let n = self.bodies.iter().filter(|b| b.kind == kind).count();
            format!("{}{n}", kind.name())
        } else {
            given.to_string()
        };
        validate::name(&name, "name")?;
        validate::check(self.body_named(&name).is_none(), "name", || {
            format!("= \"{name}\": another body already has this name")
        })?;
        Ok(name)
    }

    /// Adds `body`, just built from `desc`, with its shape-matching cluster and self-collision,
    /// and reschedules the constraint families.
    fn push_body(
        &mut self,
        body: Body,
        shape: Option<ClusterMaterial>,
        self_collision: bool,
        desc: BodyDesc,
    ) -> BodyHandle {
        let handle = BodyHandle(self.bodies.len() as u32);
        self.constraints.schedule();
        if let Some(material) = shape {
            let members: Vec<u32> = body.particles.clone().map(|i| i as u32).collect();
            let ps = &self.particles;
            self.constraints
                .shape_matching
                .push(&members, &ps.x, &ps.inv_mass, material);
        }
        self.particle_pairs
            .set_self_collision(handle.0, self_collision);
        let rest = &self.particles.x[body.particles.clone()];
        self.strain_floors.push(strain_floor(rest));
        self.bodies.push(body);
        self.descs.push(Arc::new(desc));
        handle
    }

    /// Removes a body with its constraints, contacts and pins. The other bodies keep their
    /// state (positions, velocities, pins, self-collision); those added after it move down one
    /// place, so that their handles are one less (look them up again with
    /// [`World::body_named`]; collider handles do not change). The world is built again from
    /// the other bodies' descriptions, which costs about what adding them did.
    ///
    /// Fails, changing nothing, when `body` is not one of the world's, or when the world has a
    /// tearing cloth other than `body`: its torn mesh cannot be built again.
    pub fn remove_body(&mut self, body: BodyHandle) -> Result<(), WorldError> {
        let (gone, n) = (body.index(), self.bodies.len());
        validate::check(gone < n, "body", || {
            format!("= {gone}: expected a body index in 0..{n}")
        })?;
        if let Some(t) = self.tearing.as_ref().filter(|t| t.body != gone) {
            return Err(WorldError {
                argument: "body".into(),
                message: format!(
                    "= {gone}: the world has a tearing cloth ('{}'), whose torn mesh cannot be built again: remove it first",
                    self.bodies[t.body].name
                ),
            });
        }
        let mut world = World::new(self.params.clone())?;
        for c in &self.colliders {
            world.add_collider(c.clone())?;
        }
        world.next_motion.clone_from(&self.next_motion);
        // Where each particle goes: `None` for those of the removed body.
        let mut moved = vec![None; self.particles.len()];
        for (b, desc) in self.descs.iter().enumerate().filter(|&(b, _)| b != gone) {
            let name = self.bodies[b].name.clone();
            let handle = match &**desc {
                BodyDesc::Rope(d) => world.add_rope(&RopeDesc { name, ..d.clone() }),
                BodyDesc::Cloth(d) => world.add_cloth(&ClothDesc { name, ..d.clone() }),
                BodyDesc::Soft(d) => world.add_soft_body(&SoftBodyDesc { name, ..d.clone() }),
            }?;
            world.set_self_collision(handle, self.particle_pairs.self_collides(b as u32));
            let (from, to) = (
                &self.bodies[b].particles,
                &world.bodies[handle.index()].particles,
            );
            for (i, j) in from.clone().zip(to.clone()) {
                moved[i] = Some(j as u32);
            }
        }
        let (old, new) = (&self.particles, &mut world.particles);
        for (i, j) in moved.iter().enumerate() {
            if let &Some(j) = j {
                let j = j as usize;
                new.x[j] = old.x[i];
                new.residual[j] = old.residual[i];
                new.v[j] = old.v[i];
                new.inv_mass[j] = old.inv_mass[i];
            }
        }
        world.collider_pins = self.collider_pins.clone();
        world.collider_pins.renumber(|i| moved[i as usize]);
        world.frame = self.frame;
        *self = world;
        Ok(())
    }

    /// The solver settings.
    pub fn params(&self) -> &SolverParams {
        &self.params
    }

    /// Replaces the solver settings (checked); takes effect at the next frame.
    pub fn set_params(&mut self, params: SolverParams) -> Result<(), BuildError> {
        params.validate()?;
        self.params = params;
        Ok(())
    }

    /// Every particle of the world, body after body.
    pub fn particles(&self) -> &ParticleSet {
        &self.particles
    }

    /// Every constraint of the world, one flat array per family.
    pub fn constraints(&self) -> &ConstraintSets {
        &self.constraints
    }

    /// The shape-matching clusters.
    pub fn clusters(&self) -> &ClusterSet {
        &self.constraints.shape_matching
    }

    /// The bodies, in the order they were added ([`BodyHandle::index`]).
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// The colliders, in the order they were added ([`ColliderHandle::index`]).
    pub fn colliders(&self) -> &[Collider] {
        &self.colliders
    }

    /// Frames simulated so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Wall time of each stage of the last [`World::step`], ms (all 0 before the first).
    pub fn stage_ms(&self) -> &StageMs {
        &self.stage_ms
    }

    /// The body of `handle`.
    pub fn body(&self, handle: BodyHandle) -> &Body {
        &self.bodies[handle.index()]
    }

    /// The body called `name`, if any.
    pub fn body_named(&self, name: &str) -> Option<BodyHandle> {
        let i = self.bodies.iter().position(|b| b.name == name)?;
        Some(BodyHandle(i as u32))
    }

    /// The handle of the first collider called `name` (see [`Collider::name`]).
    pub fn collider_named(&self, name: &str) -> Option<ColliderHandle> {
        let i = self.colliders.iter().position(|c| c.name == name)?;
        Some(ColliderHandle(i as u32))
    }

    /// The handles of every collider, in the order they were added (a scene file's
    /// `[[collider]]` tables in the file's order).
    pub fn collider_handles(&self) -> impl Iterator<Item = ColliderHandle> + use<> {
        (0..self.colliders.len() as u32).map(ColliderHandle)
    }

    /// The collider of `handle`, at its current pose.
    pub fn collider(&self, handle: ColliderHandle) -> &Collider {
        &self.colliders[handle.index()]
    }

    /// Positions of the body's vertices, m, in the order of its description ([`Body::vertices`]:
    /// a cloth's mesh vertices, welded ones at their shared particle; a rope's particles; a
    /// soft body's particles, for one with tets the lattice, whose rendered surface is
    /// [`Body::surface`]).
    pub fn positions(&self, body: BodyHandle) -> Vec<Vec3> {
        self.body(body).vertices(&self.particles.x)
    }

    /// Velocities of the body's vertices, m/s, as [`World::positions`] orders them.
    pub fn velocities(&self, body: BodyHandle) -> Vec<Vec3> {
        self.body(body).vertices(&self.particles.v)
    }

    /// Moves the body's vertices to `positions` (one per vertex, m, as [`World::positions`]
    /// orders them), keeping their velocities. Welded vertices share a particle, which takes
    /// the position given last.
    pub fn set_positions(
        &mut self,
        body: BodyHandle,
        positions: &[Vec3],
    ) -> Result<(), WorldError> {
        for i in self.particles_of(body, positions, "positions")? {
            self.particles.residual[i] = Vec3::zeros();
        }
        let ps = &mut self.particles;
        self.bodies[body.index()].scatter(positions, &mut ps.x);
        self.bodies[body.index()].scatter(positions, &mut ps.p);
        Ok(())
    }

    /// Sets the velocities of the body's vertices (one per vertex, m/s, as
    /// [`World::positions`] orders them; welded vertices share the velocity given last).
    pub fn set_velocities(
        &mut self,
        body: BodyHandle,
        velocities: &[Vec3],
    ) -> Result<(), WorldError> {
        self.particles_of(body, velocities, "velocities")?;
        self.bodies[body.index()].scatter(velocities, &mut self.particles.v);
        Ok(())
    }

    /// The body's particle range, once `values` is checked to hold one finite vector per
    /// vertex (an error at `key` otherwise).
    fn particles_of(
        &self,
        body: BodyHandle,
        values: &[Vec3],
        key: &str,
    ) -> Result<Range<usize>, WorldError> {
        let body = self.body(body);
        let n = body.vertex_count();
        validate::check(values.len() == n, key, || {
            format!(
                "has {} vectors: expected one per vertex ({n})",
                values.len()
            )
        })?;
        for (k, v) in values.iter().enumerate() {
            validate::finite(v, &format!("{key}[{k}]"))?;
        }
        Ok(body.particles.clone())
    }

    /// Turns collisions between the body's own particles on or off.
    pub fn set_self_collision(&mut self, body: BodyHandle, on: bool) {
        self.particle_pairs.set_self_collision(body.0, on);
    }

    /// Pins vertex `i` of the body (0-based, as [`World::positions`] orders them) where it is:
    /// it no longer moves until [`World::unpin`] or [`World::set_positions`] moves it.
    pub fn pin(&mut self, body: BodyHandle, i: usize) -> Result<(), WorldError> {
        let k = self.particle_of(body, i)?;
        self.particles.inv_mass[k] = 0.0;
        self.particles.v[k] = Vec3::zeros();
        Ok(())
    }

    /// Frees vertex `i` of the body (0-based, as [`World::positions`] orders them), giving back
    /// its mass; a collider no longer carries it.
    pub fn unpin(&mut self, body: BodyHandle, i: usize) -> Result<(), WorldError> {
        let k = self.particle_of(body, i)?;
        self.particles.inv_mass[k] = self.body(body).inv_mass;
        self.collider_pins
            .renumber(|id| (id as usize != k).then_some(id));
        Ok(())
    }

    /// Pins `vertices` of the body (0-based, as [`World::positions`] orders them) to `collider`
    /// where they are: from now on they move with it, as a cloth's `pin` does with its
    /// `pin_collider` (a cape on a character, a curtain on a rail). A vertex a collider already
    /// carries moves to this one. [`World::unpin`] frees a vertex.
    pub fn pin_to_collider(
        &mut self,
        body: BodyHandle,
        vertices: &[usize],
        collider: ColliderHandle,
    ) -> Result<(), WorldError> {
        let n = self.colliders.len();
        validate::check(collider.index() < n, "collider", || {
            format!(
                "= {}: expected a collider index in 0..{n}",
                collider.index()
            )
        })?;
        let mut particles = vertices
            .iter()
            .map(|&i| self.particle_of(body, i))
            .collect::<Result<Vec<_>, _>>()?;
        particles.sort_unstable();
        particles.dedup();
        self.collider_pins.renumber(|id| {
            particles
                .binary_search(&(id as usize))
                .is_err()
                .then_some(id)
        });
        for &i in &particles {
            self.particles.inv_mass[i] = 0.0;
            self.particles.v[i] = Vec3::zeros();
        }
        self.carry(collider, &particles);
        Ok(())
    }

    /// The world index of the particle of vertex `i` of `body`.
    fn particle_of(&self, body: BodyHandle, i: usize) -> Result<usize, WorldError> {
        let body = self.body(body);
        let n = body.vertex_count();
        validate::check(i < n, "particle", || {
            format!("= {i}: expected a vertex index in 0..{n}")
        })?;
        Ok(body.particles.start + body.particle_of_vertex(i))
    }

    /// Makes a collider solid (particles collide with it) or not (it only carries its pins;
    /// [`Collider::solid`]).
    pub fn set_collider_solid(&mut self, collider: ColliderHandle, solid: bool) {
        self.colliders[collider.index()].solid = solid;
    }

    /// Sets the scripted motion of a collider from now on (zero: static).
    pub fn set_collider_motion(
        &mut self,
        collider: ColliderHandle,
        motion: Motion,
    ) -> Result<(), WorldError> {
        validate::finite(&motion.velocity, "velocity")?;
        validate::finite(&motion.spin, "spin")?;
        self.colliders[collider.index()].motion = motion;
        Ok(())
    }

    /// Moves a kinematic collider during the next frame by `translation` (m) and turns it by
    /// `rotation` about its [center](Shape::center), at constant velocity, so that what it touches
    /// is pushed and dragged with the collider's velocity. After that frame the collider follows
    /// its scripted motion again (static by default): call this every frame to drive a collider
    /// from a program.
    pub fn move_collider(
        &mut self,
        collider: ColliderHandle,
        translation: Vec3,
        rotation: Quat,
    ) -> Result<(), WorldError> {
        validate::finite(&translation, "translation")?;
        let dt = self.params.dt;
        self.next_motion[collider.index()] = Some(Motion {
            velocity: translation / dt,
            spin: rotation.scaled_axis() / dt,
        });
        Ok(())
    }

    /// Advances `n` frames ([`World::step`]), stopping at the first error.
    pub fn step_frames(&mut self, n: u32) -> Result<(), SimError> {
        (0..n).try_for_each(|_| self.step())
    }

    /// Advances one frame of `params.dt` seconds in `params.substeps` substeps.
    ///
    /// With the `colored` and `jacobi` methods the frame runs with a [`Team`] of the current
    /// rayon pool's threads, kept together for the whole frame; with `gauss-seidel` on this
    /// thread alone.
    pub fn step(&mut self) -> Result<(), SimError> {
        let mut clock = StageClock::start();
        let scripted: Vec<Option<Motion>> = self
            .colliders
            .iter_mut()
            .zip(&mut self.next_motion)
            .map(|(c, next)| next.take().map(|m| std::mem::replace(&mut c.motion, m)))
            .collect();
        let h = self.params.h();
        let threads = match self.params.method {
            SolverMethod::Colored
            | SolverMethod::Jacobi
            | SolverMethod::ColoredChebyshev
            | SolverMethod::ColoredGlobal => rayon::current_num_threads(),
            SolverMethod::GaussSeidel => 1,
        };
        Team::scope(threads, |team| {
            for s in 0..self.params.substeps {
                let time = (self.frame as f64 * f64::from(self.params.dt)
                    + f64::from(s) * f64::from(h)) as f32;
                self.substep(h, time, team, &mut clock);
            }
        });
        for (c, motion) in self.colliders.iter_mut().zip(scripted) {
            if let Some(motion) = motion {
                c.motion = motion;
            }
        }
        self.frame += 1;
        self.tear();
        let checked = self.check();
        clock.lap(Stage::Check);
        self.stage_ms = clock.ms();
        checked
    }

    /// One substep of the pipeline (see the crate docs) from simulated time `time` (s), by the
    /// leader of `team`, its stages timed on `clock`.
    fn substep(&mut self, h: f32, time: f32, team: &Team, clock: &mut StageClock) {
        let p = &self.params;
        let ps = &mut self.particles;
        let cs = &mut self.constraints;
        cs.begin_substep(h, p.iterations, p.shake, team);
        let pins = &mut self.collider_pins;
        self.carries.clear();
        for (j, c) in self.colliders.iter_mut().enumerate() {
            let carry = c.advance(h);
            pins.turn(j, carry.map_or(Quat::identity(), |m| m.turn));
            self.carries.push(carry);
        }
        clock.lap(Stage::Setup);
        apply_damping(ps, &self.bodies, p.damping, h);
        clock.lap(Stage::Damping);
        let wind = Wind {
            mean: p.wind,
            gust: p.gust.as_ref(),
            time,
        };
        apply_external_forces(ps, &self.bodies, p.gravity, &wind, h, team);
        clock.lap(Stage::Forces);
        predict_positions(ps, h, p.max_displacement, team);
        self.collider_pins.place(ps, &self.colliders);
        clock.lap(Stage::Predict);
        let (groups, near) = &mut self.near_colliders;
        if !self.colliders.is_empty() || self.bodies.len() > 1 {
            groups.find(ps);
        }
        near.find(groups, &self.colliders, &self.carries);
        if sweep_colliders(ps, &self.colliders, &self.carries, (groups, near)) {
            groups.find(ps);
        }
        generate_contacts(
            ps,
            &self.colliders,
            &self.carries,
            (groups, near),
            &mut cs.contact,
        );
        let pairs = &mut self.particle_pairs;
        let groups = &self.near_colliders.0;
        generate_particle_contacts(ps, &self.bodies, groups, pairs, &mut cs.particle_contact);
        let surfaces = &mut self.body_surfaces;
        generate_surface_contacts(ps, &self.bodies, groups, surfaces, &mut cs.surface_contact);
        clock.lap(Stage::CollisionDetection);
        let (bodies, colliders, work) = (&self.bodies, &self.colliders, &mut self.projection);
        project_constraints(p, cs, work, ps, bodies, colliders, team, clock);
        let (contacts, pairs, surfaces) = (&cs.contact, &cs.particle_contact, &cs.surface_contact);
        update_velocities(
            ps,
            contacts,
            pairs,
            surfaces,
            &self.colliders,
            h,
            p.gravity,
            team,
        );
        clock.lap(Stage::Velocities);
    }

    /// Tears the tearing cloth's edges past its limit (see [`tear`](crate::bodies::tear)) and,
    /// when its mesh changed, schedules the constraint families again and rebuilds its surface.
    fn tear(&mut self) {
        let Some(t) = &mut self.tearing else {
            return;
        };
        let body = &mut self.bodies[t.body];
        if t.tear(body, &mut self.particles, &mut self.constraints) {
            self.constraints.schedule();
            self.body_surfaces
                .rebuild(&self.bodies, t.body, &self.particles.x);
        }
    }

    /// Fails with the first body that has a non-finite position, or else with the body of the
    /// most stretched constraint when its strain is past [`SolverParams::max_strain`]: its
    /// stretch `|ℓ − d|` over its rest length `d`, or over its body's [`strain_floor`] when `d`
    /// is shorter, so that a short edge stretched a little in metres (a sliver's) stops nothing.
    fn check(&self) -> Result<(), SimError> {
        self.check_finite()?;
        let (ps, stretch) = (&self.particles, &self.constraints.stretch);
        let limit = self.params.max_strain;
        let (x, body, floors) = (&ps.x, &ps.body, &self.strain_floors);
        let measure = |(&[a, b], &d): (&[u32; 2], &Real)| {
            let (a, b) = (a as usize, b as usize);
            let length = d.max(floors[body[a] as usize]);
            ((x[a] - x[b]).norm_squared(), d, length)
        };
        let constraints = || stretch.ids().iter().zip(&stretch.rest);
        // |ℓ − d| ≤ s L holds when max(d − s L, 0)² ≤ ℓ² ≤ (d + s L)²: no square root or
        // division per constraint while every strain is within the limit, the usual case.
        let within = constraints().all(|c| {
            let (l2, d, length) = measure(c);
            let (low, high) = ((d - limit * length).max(0.0), d + limit * length);
            low * low <= l2 && l2 <= high * high
        });
        let worst = (!within)
            .then(|| {
                (constraints().enumerate())
                    .map(|(c, constraint)| {
                        let (l2, d, length) = measure(constraint);
                        (c, (l2.sqrt() - d).abs() / length)
                    })
                    .max_by(|a, b| a.1.total_cmp(&b.1))
            })
            .flatten();
        match worst {
            Some((c, strain)) if strain > limit => {
                let body = ps.body[stretch.ids()[c][0] as usize] as usize;
                Err(SimError::Diverged {
                    body: self.bodies[body].name.clone(),
                    frame: self.frame,
                    strain,
                    limit,
                })
            }
            _ => Ok(()),
        }
    }

    /// Fails with the first body that has a non-finite position.
    fn check_finite(&self) -> Result<(), SimError> {
        match self.bodies.iter().find(|b| {
            self.particles.x[b.particles.clone()]
                .iter()
                .any(|x| !x.iter().all(|c| c.is_finite()))
        }) {
            Some(b) => Err(SimError::NonFinite {
                body: b.name.clone(),
                frame: self.frame,
            }),
            None => Ok(()),
        }
    }
}
