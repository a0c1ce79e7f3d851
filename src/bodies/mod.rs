//! Bodies: named groups of particles with the constraints that make them cloth or rope.

pub mod cloth;
pub mod rope;

use crate::math::Real;
use std::ops::Range;

/// What a body is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// A triangle mesh with stretch, shear and bending constraints.
    Cloth,
    /// A chain of particles.
    Rope,
}

/// A body of the world.
#[derive(Clone, Debug)]
pub struct Body {
    /// Name, unique in the scene; used for export file names and reports.
    pub name: String,
    /// Cloth or rope.
    pub kind: BodyKind,
    /// The body's particles: a contiguous range of the world's particles, in the body's own order.
    pub particles: Range<usize>,
    /// Triangles of a cloth, as indices local to the body (0 is `particles.start`).
    pub triangles: Vec<[u32; 3]>,
    /// Müller et al. 2007 damping coefficient in [0, 1]: the fraction of non-rigid velocity
    /// removed every substep (0: none).
    pub damping: Real,
    /// Aerodynamic coefficient `½ ρ C_d` of a cloth, kg/m³ (0: no air).
    pub drag: Real,
}
