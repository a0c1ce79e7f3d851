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
    /// The particles of the vertices of a mesh cloth (see
    /// [`prepare`](crate::mesh::prepare::prepare)) or of a surface soft body, when they are not
    /// its vertices in order; `None`: vertex k is particle k.
    pub(crate) vertex_map: Option<VertexMap>,
}

/// The particles of a mesh body's vertices: welded vertices (of a cloth) share a particle, and
/// the particles are numbered for locality.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct VertexMap {
    /// The particle (0-based within the body) of each vertex.
    pub particle: Vec<u32>,
    /// The triangles over particles (0-based within the body), without those collapsed.
    pub triangles: Vec<[u32; 3]>,
    /// Vertices welded into another at the same point (seams).
    pub welded: usize,
    /// Triangles left out of the simulation (slivers, needles, degenerate or repeated faces).
    pub collapsed: usize,
}

/// The share of a body's rest size (the diagonal of the box around its rest positions) that
/// is the shortest length the divergence check measures stretch against: a stretch smaller
/// than 1/32 of the body is a detail of its shape (a sliver triangle's edge pulled to sixty
/// times its length, the few edges at the pins of a fine cloth that the iterations leave far
/// from converged), while a body blowing up stretches edges across a good part of itself.
pub const STRAIN_FLOOR: Real = 1.0 / 32.0;

/// [`STRAIN_FLOOR`] times the diagonal of the box around `rest`, m.
pub(crate) fn strain_floor(rest: &[Vec3]) -> Real {
    let Some(&first) = rest.first() else {
        return 0.0;
    };
    let (lo, hi) = rest
        .iter()
        .fold((first, first), |(lo, hi), p| (lo.inf(p), hi.sup(p)));
    STRAIN_FLOOR * (hi - lo).norm()
}

impl Body {
    /// The vertices of the body's surface at world positions `x`, m: the skinned surface of a
    /// soft body with tets, the vertices of a cloth's mesh (see [`Body::vertices`]), the body's
    /// particles otherwise.
    pub fn surface(&self, x: &[Vec3]) -> Vec<Vec3> {
        let mut out = Vec::new();
        self.surface_into(x, &mut out);
        out
    }

    /// [`Body::surface`] into `out` (cleared first; no allocation once it is large enough),
    /// for a renderer that updates a mesh every frame.
    pub fn surface_into(&self, x: &[Vec3], out: &mut Vec<Vec3>) {
        match &self.skin {
            Some(skin) => skin.skin_into(&x[self.particles.clone()], out),
            None => self.vertices_into(x, out),
        }
    }

    /// The values `x` (one per world particle) of the body's vertices, in the order of the
    /// mesh it was built from: welded vertices of a cloth give their particle's value. For a
    /// rope and a soft body, its particles' values.
    pub fn vertices<T: Copy>(&self, x: &[T]) -> Vec<T> {
        let mut out = Vec::new();
        self.vertices_into(x, &mut out);
        out
    }

    /// [`Body::vertices`] into `out` (cleared first).
    fn vertices_into<T: Copy>(&self, x: &[T], out: &mut Vec<T>) {
        let x = &x[self.particles.clone()];
        out.clear();
        match &self.vertex_map {
            Some(map) => out.extend(map.particle.iter().map(|&i| x[i as usize])),
            None => out.extend_from_slice(x),
        }
    }

    /// Writes `values` (one per vertex, [`Body::vertices`]) to the body's particles in `x` (one
    /// per world particle): a particle of welded vertices takes the value of the last.
    pub(crate) fn scatter<T: Copy>(&self, values: &[T], x: &mut [T]) {
        let x = &mut x[self.particles.clone()];
        match &self.vertex_map {
            Some(map) => {
                for (&i, &value) in map.particle.iter().zip(values) {
                    x[i as usize] = value;
                }
            }
            None => x.copy_from_slice(values),
        }
    }

    /// Vertices of a mesh cloth welded into another at the same point (its seams; 0 for other
    /// bodies).
    pub fn welded_vertices(&self) -> usize {
        self.vertex_map.as_ref().map_or(0, |map| map.welded)
    }

    /// Triangles of a mesh cloth left out of the simulation: slivers and needles collapsed,
    /// degenerate or repeated faces (0 for other bodies). They are still exported.
    pub fn collapsed_triangles(&self) -> usize {
        self.vertex_map.as_ref().map_or(0, |map| map.collapsed)
    }

    /// The number of the body's vertices ([`Body::vertices`]).
    pub fn vertex_count(&self) -> usize {
        self.vertex_map
            .as_ref()
            .map_or(self.particles.len(), |map| map.particle.len())
    }

    /// The particle (0-based within the body) of vertex `k` (< [`Body::vertex_count`]).
    pub fn particle_of_vertex(&self, k: usize) -> usize {
        self.vertex_map
            .as_ref()
            .map_or(k, |map| map.particle[k] as usize)
    }

    /// The triangles over the body's particles (0-based within the body): those of a cloth's
    /// mesh without the collapsed ones, numbered as its particles, or [`Body::triangles`].
    pub fn particle_triangles(&self) -> &[[u32; 3]] {
        self.vertex_map
            .as_ref()
            .map_or(&self.triangles, |map| &map.triangles)
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
            BodyKind::Soft => enclosed_volume(x, self.particle_triangles()),
            BodyKind::Cloth | BodyKind::Rope => 0.0,
        }
    }
}
