//! Triangle meshes: OBJ import ([`obj`]), cleaning ([`clean`]), edge topology ([`topology`]),
//! inside/outside ([`winding`]), tet lattices ([`tetrahedralize`]) and skinning ([`skinning`]).

pub mod clean;
pub mod generate;
pub mod obj;
pub mod prepare;
pub mod skinning;
pub mod tetrahedralize;
pub mod topology;
pub mod winding;

pub use crate::math::{Real, Vec3};

/// A triangle mesh: positions in file units, triangles as 0-based indices into positions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    /// Vertex positions, in file order.
    pub positions: Vec<Vec3>,
    /// Triangles as 0-based indices into `positions`.
    pub triangles: Vec<[u32; 3]>,
}

impl TriMesh {
    /// Reads the OBJ file at `path` ([`obj::load_obj`]) and cleans it with the default weld
    /// tolerance ([`clean::clean`]): the mesh a soft body is made from.
    pub fn load(path: &std::path::Path) -> Result<TriMesh, obj::ObjError> {
        let raw = obj::load_obj(path)?;
        Ok(clean::clean(&raw, clean::default_weld_tolerance(&raw)).0)
    }
}
