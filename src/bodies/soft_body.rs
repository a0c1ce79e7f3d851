//! Soft bodies from a surface mesh, in one of four models:
//!
//! - `tets`: a lattice of particles over the inside ([`tetrahedralize`]), with a distance
//!   constraint on every tet edge and a volume constraint per tet, or, for an elastic solid
//!   (`volume = { model = "elastic", youngs, poisson }`), a Neo-Hookean element per tet; the mesh
//!   is skinned in the tets;
//! - `clusters`: the same lattice, held by overlapping shape-matching clusters of 3 × 3 × 3
//!   lattice points centred every second lattice point ([`crate::shape_matching`]);
//! - `rigid`: the same lattice as one shape-matching cluster: a rigid body;
//! - `surface`: particles at the mesh's vertices with distance constraints on its edges,
//!   dihedral bending on its triangle pairs and one enclosed-volume (pressure) constraint; only
//!   for meshes that are closed.

use super::{Body, BodyKind, VertexMap};
use crate::constraints::{ConstraintSets, Stiffness};
use crate::math::{Quat, Real, Vec3};
use crate::mesh::TriMesh;
use crate::mesh::prepare::cuthill_mckee;
use crate::mesh::tetrahedralize::{Lattice, tet_edges, tetrahedralize};
use crate::mesh::topology::{edges, is_closed, triangle_pairs};
use crate::particles::ParticleSet;
use crate::shape_matching::ClusterMaterial;
use crate::solver::schedule::order_for_batches;
use crate::validate::{self, Checked};
use std::collections::HashMap;
use std::ops::Range;

/// How a soft body holds its shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SoftModel {
    /// Tet lattice with edge and volume constraints (the default).
    #[default]
    Tets,
    /// Tet lattice with overlapping shape-matching clusters.
    Clusters,
    /// Tet lattice as one rigid shape-matching cluster.
    Rigid,
    /// Surface particles with edges, bending and an enclosed-volume (pressure) constraint.
    Surface,
}

impl SoftModel {
    /// Every model, by its name.
    pub const ALL: [SoftModel; 4] = [
        SoftModel::Tets,
        SoftModel::Clusters,
        SoftModel::Rigid,
        SoftModel::Surface,
    ];

    /// The name used in scene files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SoftModel::Tets => "tets",
            SoftModel::Clusters => "clusters",
            SoftModel::Rigid => "rigid",
            SoftModel::Surface => "surface",
        }
    }

    /// Parses a scene-file or command-line name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether the model fills the mesh with a tet lattice (the others use its vertices).
    pub fn is_volumetric(self) -> bool {
        self != SoftModel::Surface
    }
}

/// Material of a soft body. Defaults are those of a scene's `[[soft_body]]`.
#[derive(Clone, Debug, PartialEq)]
pub struct SoftMaterial {
    /// The model.
    pub model: SoftModel,
    /// Lattice cells along the mesh's longest side (volumetric models; default 12).
    pub resolution: u32,
    /// Distance constraints on tet edges (`tets`) or mesh edges (`surface`); compliance in m/N
    /// (default XPBD, compliance 1e-4).
    pub edge: Stiffness,
    /// Tet volume (`tets`, compliance in m⁵/N) or enclosed volume (`surface`, m⁵/N)
    /// (default rigid XPBD). For `tets` it may be [`Stiffness::ElasticSolid`] (Young's modulus
    /// and Poisson ratio): then each tet is a Neo-Hookean element
    /// ([`NeoHookeanSet`](crate::constraints::NeoHookeanSet)) and `edge` is not used.
    pub volume: Stiffness,
    /// Dihedral bending of a `surface` body, compliance in rad/(N·m) (default XPBD, 1).
    pub bend: Stiffness,
    /// Pressure factor `k_p` of a `surface` body: the enclosed volume kept is `k_p V₀`
    /// (default 1).
    pub pressure: Real,
    /// Shape-matching material of the clusters (`clusters`, `rigid`; stiffness 0.5 by default,
    /// 1 for `rigid`).
    pub shape: ClusterMaterial,
    /// Collision distance of the particles, m (default 0.01).
    pub thickness: Real,
    /// Müller 2007 damping in [0, 1]: the fraction of non-rigid velocity removed per
    /// [`RATE_TIME`](crate::params::RATE_TIME) (default 0).
    pub damping: Real,
}

impl Default for SoftMaterial {
    fn default() -> Self {
        SoftMaterial {
            model: SoftModel::Tets,
            resolution: 12,
            edge: Stiffness::Xpbd {
                compliance: 1e-4,
                damping: 0.0,
            },
            volume: Stiffness::default(),
            bend: Stiffness::Xpbd {
                compliance: 1.0,
                damping: 0.0,
            },
            pressure: 1.0,
            shape: ClusterMaterial {
                stiffness: 0.5,
                ..ClusterMaterial::default()
            },
            thickness: 0.01,
            damping: 0.0,
        }
    }
}

/// A mesh that cannot become a soft body.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SoftBodyError {
    /// The `surface` model needs a closed mesh.
    #[error(
        "the mesh is not closed after cleaning ({boundary_edges} boundary or non-manifold edges): the `surface` model needs a closed surface; use `--model tets` (or `model = \"tets\"`), which handles holes and open boundaries"
    )]
    NotClosed {
        /// Edges with one triangle, or more than two.
        boundary_edges: usize,
    },
    /// Nothing to build from.
    #[error("the mesh has no triangles with area")]
    Empty,
}

/// The scale that makes the longest side of `mesh`'s bounding box `size` metres (1 for an
/// empty or flat-to-a-point mesh).
pub fn fit_scale(mesh: &TriMesh, size: Real) -> Real {
    let Some(&first) = mesh.positions.first() else {
        return 1.0;
    };
    let (lo, hi) = mesh
        .positions
        .iter()
        .fold((first, first), |(lo, hi), p| (lo.inf(p), hi.sup(p)));
    let longest = (hi - lo).max();
    if longest > 0.0 { size / longest } else { 1.0 }
}

/// Scales `mesh` by `scale` about the origin, then rotates it about its bounding-box centre and
/// moves that centre to `center` (see [`super::cloth::place`]).
pub fn place_mesh(mesh: &mut TriMesh, scale: Real, rotation: Quat, center: Option<Vec3>) {
    mesh.positions.iter_mut().for_each(|p| *p *= scale);
    super::cloth::place(&mut mesh.positions, rotation, center);
}

/// A soft body to add to a world ([`World::add_soft_body`](crate::World::add_soft_body)): a
/// surface mesh (cleaned, in world coordinates, m) made into the `material`'s model. The
/// defaults are those of a scene's `[[soft_body]]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct SoftBodyDesc {
    /// Unique name (default empty: `soft_body<n>` for the n-th soft body of the world).
    pub name: String,
    /// The surface, in world coordinates, m (see [`TriMesh::load`], [`fit_scale`] and
    /// [`place_mesh`]).
    pub mesh: TriMesh,
    /// Total mass, kg, spread equally over the particles.
    pub mass: Real,
    /// Model and material (default: tets, see [`SoftMaterial`]).
    pub material: SoftMaterial,
}

impl SoftBodyDesc {
    /// A soft body of `mass` kg from `mesh`, with the default material.
    pub fn new(mesh: TriMesh, mass: Real) -> Self {
        SoftBodyDesc {
            name: String::new(),
            mesh,
            mass,
            material: SoftMaterial::default(),
        }
    }

    /// Checks every field (keys as in a scene's `[[soft_body]]` table); the mesh is checked
    /// when the body is built.
    pub fn validate(&self) -> Checked {
        let m = &self.material;
        validate::positive(self.mass, "mass", "a mass in kg")?;
        for (k, p) in self.mesh.positions.iter().enumerate() {
            validate::finite(p, &format!("mesh.positions[{k}]"))?;
        }
        validate::at_least(m.resolution, 1, "resolution")?;
        validate::check(m.resolution <= MAX_RESOLUTION, "resolution", || {
            format!(
                "= {}: expected at most {MAX_RESOLUTION} cells along the longest side",
                m.resolution
            )
        })?;
        let not_yet = "soft bodies take only as `volume = { model = \"elastic\", youngs, poisson }` of model \"tets\": use \"xpbd\"";
        validate::stiffness_not_elastic(&m.edge, "edge", not_yet)?;
        if m.model == SoftModel::Tets {
            validate::tet_stiffness(&m.volume, "volume")?;
        } else {
            validate::stiffness_not_elastic(&m.volume, "volume", not_yet)?;
        }
        validate::stiffness_not_elastic(&m.bend, "bend", not_yet)?;
        validate::positive(m.pressure, "pressure", "a pressure factor")?;
        m.shape.validate().map_err(|e| e.within("shape"))?;
        validate::positive(m.thickness, "thickness", "a distance in m")?;
        validate::in_unit(m.damping, "damping")?;
        Ok(())
    }

    /// Adds the body's particles, constraints and clusters (the description is valid); returns
    /// its body, called `name`, the world's body number `body_index`.
    pub(crate) fn build(
        &self,
        name: String,
        ps: &mut ParticleSet,
        cs: &mut ConstraintSets,
        body_index: u32,
    ) -> Result<Body, SoftBodyError> {
        let (mesh, material) = (&self.mesh, &self.material);
        if mesh.triangles.is_empty() {
            return Err(SoftBodyError::Empty);
        }
        let mut body = if material.model.is_volumetric() {
            let lattice = tetrahedralize(mesh, material.resolution);
            let start = add_particles(ps, &lattice.positions, body_index, self);
            add_lattice(ps, cs, start, &lattice, material);
            Body {
                skin: Some(lattice.skin),
                tets: lattice.tets,
                ..self.body(name, start..ps.len())
            }
        } else {
            if !is_closed(&mesh.triangles) {
                let boundary_edges = crate::mesh::topology::boundary_edge_count(&mesh.triangles);
                return Err(SoftBodyError::NotClosed { boundary_edges });
            }
            // The particles are the vertices, numbered for locality (Cuthill-McKee) whatever
            // the file's order; the body keeps each vertex's particle.
            let order = cuthill_mckee(mesh.positions.len(), &mesh.triangles);
            let mut particle = vec![0; order.len()];
            for (new, &old) in order.iter().enumerate() {
                particle[old as usize] = new as u32;
            }
            let mut numbered = TriMesh {
                positions: order.iter().map(|&v| mesh.positions[v as usize]).collect(),
                triangles: (mesh.triangles.iter())
                    .map(|t| t.map(|v| particle[v as usize]))
                    .collect(),
            };
            // The triangles in the particles' order too, so that the edges, the hinges and the
            // pressure's triangles are walked along it.
            numbered.triangles.sort_unstable_by_key(|t| {
                let mut key = *t;
                key.sort_unstable();
                key
            });
            let start = add_particles(ps, &numbered.positions, body_index, self);
            add_surface(ps, cs, start, &numbered, material);
            Body {
                vertex_map: Some(VertexMap {
                    particle,
                    triangles: numbered.triangles,
                    welded: 0,
                    collapsed: 0,
                }),
                ..self.body(name, start..ps.len())
            }
        };
        body.rest_volume = body.volume(&ps.x);
        Ok(body)
    }

    /// The body of particles `particles`, without skin or tets.
    fn body(&self, name: String, particles: Range<usize>) -> Body {
        let count = particles.len();
        Body {
            name,
            kind: BodyKind::Soft,
            particles,
            triangles: self.mesh.triangles.clone(),
            damping: self.material.damping,
            drag: 0.0,
            lift: 0.0,
            skin: None,
            tets: Vec::new(),
            rest_volume: 0.0,
            inv_mass: count as Real / self.mass,
            vertex_map: None,
        }
    }
}

/// Most lattice cells along a soft body's longest side: finer lattices are refused before
/// anything is allocated.
pub const MAX_RESOLUTION: u32 = 128;

/// Adds the particles at `positions` sharing the body's mass equally; returns the first one's
/// index.
fn add_particles(
    ps: &mut ParticleSet,
    positions: &[Vec3],
    body_index: u32,
    desc: &SoftBodyDesc,
) -> usize {
    let start = ps.len();
    let inv_mass = positions.len() as Real / desc.mass;
    for &x in positions {
        ps.push(x, inv_mass, desc.material.thickness, body_index);
    }
    start
}

/// The constraints or clusters of a volumetric model over its lattice, whose particles start
/// at `start`.
fn add_lattice(
    ps: &ParticleSet,
    cs: &mut ConstraintSets,
    start: usize,
    lattice: &Lattice,
    material: &SoftMaterial,
) {
    let at = |i: u32| start as u32 + i;
    match material.model {
        SoftModel::Tets => {
            if let Stiffness::ElasticSolid {
                youngs,
                poisson,
                damping,
            } = material.volume
            {
                for t in order_for_batches(lattice.tets.clone()) {
                    cs.neo_hookean
                        .push(t.map(at), &ps.x, youngs, poisson, damping);
                }
                return;
            }
            let edge = cs.stretch.materials.add(material.edge);
            for [a, b] in order_for_batches(tet_edges(&lattice.tets)) {
                let rest = (ps.x[at(a) as usize] - ps.x[at(b) as usize]).norm();
                cs.stretch.push(at(a), at(b), rest, edge);
            }
            let volume = cs.volume.materials.add(material.volume);
            for t in order_for_batches(lattice.tets.clone()) {
                cs.volume.push(t.map(at), &ps.x, volume);
            }
        }
        SoftModel::Clusters => {
            for members in lattice_clusters(&lattice.coords) {
                let members: Vec<u32> = members.into_iter().map(at).collect();
                cs.shape_matching
                    .push(&members, &ps.x, &ps.inv_mass, material.shape);
            }
        }
        SoftModel::Rigid => {
            let members: Vec<u32> = (0..lattice.positions.len() as u32).map(at).collect();
            cs.shape_matching
                .push(&members, &ps.x, &ps.inv_mass, material.shape);
        }
        SoftModel::Surface => unreachable!("the surface model has no lattice"),
    }
}

/// Overlapping clusters over lattice coordinates: the lattice points within one step of every
/// point whose coordinates are all even, kept when they are at least two. Every point is within
/// one step of such a point, so every particle is in a cluster.
fn lattice_clusters(coords: &[[i32; 3]]) -> Vec<Vec<u32>> {
    let index: HashMap<[i32; 3], u32> = coords
        .iter()
        .enumerate()
        .map(|(i, &c)| (c, i as u32))
        .collect();
    let mut centres: Vec<[i32; 3]> = coords
        .iter()
        .map(|c| c.map(|x| x.div_euclid(2) * 2))
        .collect();
    centres.sort_unstable();
    centres.dedup();
    centres
        .iter()
        .map(|c| {
            let mut members = Vec::new();
            for dz in -1..=1 {
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        if let Some(&i) = index.get(&[c[0] + dx, c[1] + dy, c[2] + dz]) {
                            members.push(i);
                        }
                    }
                }
            }
            members
        })
        .filter(|m| m.len() >= 2)
        .collect()
}

/// The edges, bending and enclosed volume of a `surface` body, whose particles (the mesh's
/// vertices) start at `start`.
fn add_surface(
    ps: &ParticleSet,
    cs: &mut ConstraintSets,
    start: usize,
    mesh: &TriMesh,
    material: &SoftMaterial,
) {
    let at = |i: u32| start as u32 + i;
    let edge = cs.stretch.materials.add(material.edge);
    for [a, b] in order_for_batches(edges(&mesh.triangles)) {
        let rest = (mesh.positions[a as usize] - mesh.positions[b as usize]).norm();
        cs.stretch.push(at(a), at(b), rest, edge);
    }
    let bend = cs.dihedral.materials.add(material.bend);
    for q in order_for_batches(triangle_pairs(&mesh.triangles)) {
        cs.dihedral.push(q.map(at), &ps.x, bend);
    }
    let volume = cs.pressure.materials.add(material.volume);
    let range = start..ps.len();
    let world_tris = mesh.triangles.iter().map(|t| t.map(at)).collect();
    cs.pressure
        .push(range, world_tris, &ps.x, material.pressure, volume);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lattice_point_is_in_a_cluster() {
        let coords: Vec<[i32; 3]> = (0..4)
            .flat_map(|k| (0..3).flat_map(move |j| (0..5).map(move |i| [i, j, k])))
            .collect();
        let clusters = lattice_clusters(&coords);
        let mut covered = vec![false; coords.len()];
        for c in &clusters {
            c.iter().for_each(|&i| covered[i as usize] = true);
        }
        assert!(covered.iter().all(|&c| c));
    }

    #[test]
    fn models_round_trip_their_names() {
        for m in SoftModel::ALL {
            assert_eq!(SoftModel::from_name(m.name()), Some(m));
        }
    }
}
