//! Rope: a chain of particles.

use super::{Body, BodyKind};
use crate::constraints::{ConstraintSets, Stiffness};
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;

/// A rope's description.
#[derive(Clone, Debug, PartialEq)]
pub struct RopeSpec {
    /// Unique name.
    pub name: String,
    /// First particle, m.
    pub start: Vec3,
    /// Last particle, m.
    pub end: Vec3,
    /// Number of segments; the rope has `segments + 1` particles.
    pub segments: u32,
    /// Total mass, kg, spread equally over the particles.
    pub mass: Real,
    /// Pin the first particle.
    pub pin_start: bool,
    /// Pin the last particle.
    pub pin_end: bool,
    /// Stiffness of the segments.
    pub stretch: Stiffness,
    /// Bending: distance constraints between particles two apart, if any.
    pub bend: Option<Stiffness>,
    /// Collision distance, m.
    pub thickness: Real,
    /// Müller 2007 damping in [0, 1].
    pub damping: Real,
}

/// Adds a rope to the world and returns its body.
pub fn add_rope(
    ps: &mut ParticleSet,
    cs: &mut ConstraintSets,
    body_index: u32,
    spec: &RopeSpec,
) -> Body {
    let start = ps.len();
    let n = spec.segments as usize + 1;
    let inv_mass = n as Real / spec.mass;
    for k in 0..n {
        let x = spec
            .start
            .lerp(&spec.end, k as Real / spec.segments as Real);
        let pinned = (k == 0 && spec.pin_start) || (k == n - 1 && spec.pin_end);
        ps.push(
            x,
            if pinned { 0.0 } else { inv_mass },
            spec.thickness,
            body_index,
        );
    }
    let segment = cs.stretch.materials.add(spec.stretch);
    for k in start..start + n - 1 {
        let rest = (ps.x[k + 1] - ps.x[k]).norm();
        cs.stretch.push(k as u32, k as u32 + 1, rest, segment);
    }
    if let Some(bend) = spec.bend {
        let mat = cs.bend_distance.materials.add(bend);
        for k in start..(start + n).saturating_sub(2) {
            let rest = (ps.x[k + 2] - ps.x[k]).norm();
            cs.bend_distance.push(k as u32, k as u32 + 2, rest, mat);
        }
    }
    cs.schedule();
    Body {
        name: spec.name.clone(),
        kind: BodyKind::Rope,
        particles: start..ps.len(),
        triangles: Vec::new(),
        damping: spec.damping,
        drag: 0.0,
        skin: None,
        tets: Vec::new(),
        rest_volume: 0.0,
    }
}
