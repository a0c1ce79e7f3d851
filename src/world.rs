//! The world: particles, constraints, colliders and bodies, and the step that advances them.

use crate::bodies::Body;
use crate::collision::{Collider, ParticlePairs};
use crate::constraints::ConstraintSets;
use crate::params::{SolverMethod, SolverParams};
use crate::particles::ParticleSet;
use crate::shape_matching::ClusterSet;
use crate::solver::Team;
use crate::stages::*;

/// A simulation that cannot go on.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SimError {
    /// A position became NaN or infinite.
    #[error(
        "body '{body}' has a non-finite position at frame {frame}: the simulation blew up (try more substeps, a smaller dt or softer constraints)"
    )]
    NonFinite { body: String, frame: u64 },
}

/// Everything that is simulated.
#[derive(Clone, Debug, Default)]
pub struct World {
    /// Solver settings.
    pub params: SolverParams,
    /// All particles, body after body.
    pub particles: ParticleSet,
    /// All constraints, one flat array per family.
    pub constraints: ConstraintSets,
    /// Shape-matching clusters, matched after the constraint projection.
    pub clusters: ClusterSet,
    /// Colliders (static or kinematic).
    pub colliders: Vec<Collider>,
    /// Bodies, in scene order.
    pub bodies: Vec<Body>,
    /// Which particle pairs may collide (self-collision per body), and the spatial hash.
    pub particle_pairs: ParticlePairs,
    /// Frames simulated so far.
    pub frame: u64,
}

impl World {
    /// An empty world with `params`.
    pub fn new(params: SolverParams) -> Self {
        World {
            params,
            ..Default::default()
        }
    }

    /// Adds a collider; its contact stiffness becomes the contact material of the same index.
    pub fn add_collider(&mut self, collider: Collider) {
        self.constraints.contact.materials.add(collider.stiffness);
        self.colliders.push(collider);
    }

    /// The body called `name`, if any.
    pub fn body(&self, name: &str) -> Option<&Body> {
        self.bodies.iter().find(|b| b.name == name)
    }

    /// Advances one frame of `params.dt` seconds in `params.substeps` substeps.
    ///
    /// With the `colored` method the frame runs with a [`Team`] of the current rayon pool's
    /// threads, kept together for the whole frame; otherwise on this thread alone.
    pub fn step_frame(&mut self) -> Result<(), SimError> {
        let h = self.params.h();
        let threads = match self.params.method {
            SolverMethod::Colored => rayon::current_num_threads(),
            SolverMethod::GaussSeidel | SolverMethod::Jacobi => 1,
        };
        Team::scope(threads, |team| {
            for _ in 0..self.params.substeps {
                self.substep(h, team);
            }
        });
        self.frame += 1;
        self.check_finite()
    }

    /// One substep of the pipeline (DESIGN.md section 1), by the leader of `team`.
    pub fn substep(&mut self, h: f32, team: &Team) {
        let p = &self.params;
        let ps = &mut self.particles;
        let cs = &mut self.constraints;
        cs.begin_substep(h, p.iterations, team);
        self.colliders.iter_mut().for_each(|c| c.advance(h));
        apply_external_forces(ps, &self.bodies, p.gravity, p.wind, h, team);
        apply_damping(ps, &self.bodies, p.damping, h);
        predict_positions(ps, h, p.max_displacement, team);
        sweep_colliders(ps, &self.colliders);
        generate_contacts(ps, &self.colliders, &mut cs.contact);
        let pairs = &mut self.particle_pairs;
        generate_particle_contacts(ps, self.bodies.len(), pairs, &mut cs.particle_contact);
        project_constraints(p.method, cs, ps, &self.colliders, p.iterations, team);
        self.clusters.match_shapes(ps, h);
        let (contacts, pairs) = (&cs.contact, &cs.particle_contact);
        update_velocities(ps, contacts, pairs, &self.colliders, h, p.gravity, team);
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
