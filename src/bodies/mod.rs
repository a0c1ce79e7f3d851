//! Bodies: named groups of particles with the constraints that make them cloth, rope or soft
//! bodies.

pub mod cloth;
pub mod rope;
pub mod soft_body;
pub mod tear;

use crate::constraints::volume::enclosed_volume;
use crate::math::{Real, Vec3};
use crate::mesh::skinning::Skin;
use crate::mesh::tetrahedralize::tet_volume;
use crate::shape_matching::ClusterMaterial;
use crate::validate::{self, Checked};
use std::ops::Range;

/// Checks the keys a rope and a cloth share: `thickness` (m, > 0), `damping` (in [0, 1]) and
/// the optional shape-matching material `shape`.
pub(crate) fn validate_common(
    thickness: Real,
    damping: Real,
    shape: Option<&ClusterMaterial>,
) -> Checked {
    validate::positive(thickness, "thickness", "a distance in m")?;
    validate::in_unit(damping, "damping")?;
    match shape {
        Some(shape) => shape.validate().map_err(|e| e.within("shape")),
        None => Ok(()),
    }
}

/// Most particles of one body (1,048,576): a description asking for more is refused before
/// anything is allocated.
pub const MAX_PARTICLES: u64 = 1 << 20;

/// What a body is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// A triangle mesh with stretch, shear and bending constraints.
    Cloth,
    /// A chain of particles.
    Rope,
    /// A closed or open surface filled by tets, shape-matching clusters or pressure
    /// ([`soft_body`]).
    Soft,
}

impl BodyKind {
    /// The kind's name, as in a scene file's tables: `cloth`, `rope` or `soft_body`.
    pub fn name(self) -> &'static str {
        match self {
            BodyKind::Cloth => "cloth",
            BodyKind::Rope => "rope",
            BodyKind::Soft => "soft_body",
        }
    }
}

/// A body of the world.
#[derive(Clone, Debug)]
pub struct Body {
    /// Name, unique in the scene; used for export file names and reports.
    pub name: String,
    /// Cloth, rope or soft body.
    pub kind: BodyKind,
    /// The body's particles: a contiguous range of the world's particles, in the body's own order.
    pub particles: Range<usize>,
    /// Triangles of the rendered surface of a cloth or soft body: indices of the body's
    /// [`surface`](Body::surface) vertices (its particles, or its skinned vertices).
    pub triangles: Vec<[u32; 3]>,
    /// Müller et al. 2007 damping coefficient in [0, 1]: the fraction of non-rigid velocity
    /// removed per [`RATE_TIME`](crate::params::RATE_TIME), whatever the substep count (0: none).
    pub damping: Real,
    /// Aerodynamic coefficient `½ ρ C_d` of a cloth, kg/m³ (0: no air).
    pub drag: Real,
    /// Aerodynamic lift coefficient `½ ρ C_l` of a cloth, kg/m³ (0: no lift).
    pub lift: Real,
    /// The surface of a soft body embedded in its tets: the vertices that are rendered and
    /// exported are skinned from the particles. `None` when the particles are the vertices.
    pub skin: Option<Skin>,
    /// Tets of a volumetric soft body (indices local to the body), whose total volume is the
    /// body's volume.
    pub tets: Vec<[u32; 4]>,
    /// Rest volume of a soft body, m³ (0 for cloth and rope).
    pub rest_volume: Real,
    /// Inverse mass of each of the body's particles when it is not pinned, 1/kg (a body's mass
    /// is spread equally over its particles).
    pub inv_mass: Real,
}

impl Body {
    /// The vertices of the body's surface at world positions `x`, m: the skinned surface of a
    /// soft body with tets, the body's particles otherwise.
    pub fn surface(&self, x: &[Vec3]) -> Vec<Vec3> {
        let x = &x[self.particles.clone()];
        match &self.skin {
            Some(skin) => skin.skin(x),
            None => x.to_vec(),
        }
    }

    /// Volume at world positions `x`, m³: the total tet volume of a body with tets, the
    /// enclosed volume of a surface soft body, 0 for cloth and rope.
    pub fn volume(&self, x: &[Vec3]) -> Real {
        let x = &x[self.particles.clone()];
        match self.kind {
            BodyKind::Soft if !self.tets.is_empty() => self
                .tets
                .iter()
                .map(|t| tet_volume(t.map(|i| x[i as usize])))
                .sum(),
            BodyKind::Soft => enclosed_volume(x, &self.triangles),
            BodyKind::Cloth | BodyKind::Rope => 0.0,
        }
    }
}
