//! Particle state, one `Vec` per field (structure of arrays).

use crate::math::{Real, Vec3};

/// All particles of a world. Index `i` addresses the same particle in every field.
#[derive(Clone, Debug, Default)]
pub struct ParticleSet {
    /// Positions at the start of the current substep, m.
    pub x: Vec<Vec3>,
    /// Predicted positions, projected by the constraints, m.
    pub p: Vec<Vec3>,
    /// Velocities, m/s.
    pub v: Vec<Vec3>,
    /// What `f32` world coordinates leave out of the start positions: the position is
    /// `x + residual` (`|residual|` at most half an ulp of `|x|`), m.
    pub residual: Vec<Vec3>,
    /// The rounding of the predicted positions: the predicted position is `p − rounding`, m (set
    /// by the position prediction (`src/stages/predict.rs`) and by the
    /// projection, which works in coordinates relative to a body origin that hold these bits;
    /// the velocity update uses it so that rounding eats neither velocity nor displacement).
    pub rounding: Vec<Vec3>,
    /// External force accumulated for the current substep (wind), N.
    pub force: Vec<Vec3>,
    /// Inverse mass, 1/kg. `0` pins the particle.
    pub inv_mass: Vec<Real>,
    /// Collision distance against colliders (the body's `thickness`), m.
    pub radius: Vec<Real>,
    /// Index of the body the particle belongs to.
    pub body: Vec<u32>,
}

impl ParticleSet {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// True when there are no particles.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Appends a particle at rest at `position`; returns its index.
    pub fn push(&mut self, position: Vec3, inv_mass: Real, radius: Real, body: u32) -> usize {
        self.x.push(position);
        self.p.push(position);
        self.v.push(Vec3::zeros());
        self.residual.push(Vec3::zeros());
        self.rounding.push(Vec3::zeros());
        self.force.push(Vec3::zeros());
        self.inv_mass.push(inv_mass);
        self.radius.push(radius);
        self.body.push(body);
        self.x.len() - 1
    }

    /// Mass of particle `i` in kg (infinite for a pinned particle).
    pub fn mass(&self, i: usize) -> Real {
        1.0 / self.inv_mass[i]
    }
}
