//! Between Bevy and Supple: vectors and rotations (glam and nalgebra), triangle meshes, and the
//! rendered mesh of a body, updated in place every frame.

use bevy::asset::RenderAssetUsages;
use bevy::math::{Affine3A, Quat, Vec3};
use bevy::mesh::{Indices, Mesh, MeshAccessError, PrimitiveTopology, VertexAttributeValues};
use std::collections::HashMap;
use supple::bodies::Body;

/// A Bevy vector as Supple's.
pub fn to_supple(v: Vec3) -> supple::Vec3 {
    supple::Vec3::new(v.x, v.y, v.z)
}

/// A Supple vector as Bevy's.
pub fn to_bevy(v: &supple::Vec3) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

/// A Bevy rotation as Supple's.
pub fn rotation_to_supple(q: Quat) -> supple::Quat {
    supple::Quat::from_quaternion(nalgebra::Quaternion::new(q.w, q.x, q.y, q.z))
}

/// A Supple rotation as Bevy's.
pub fn rotation_to_bevy(q: &supple::Quat) -> Quat {
    Quat::from_xyzw(q.i, q.j, q.k, q.w)
}

/// The vertex positions and triangles of a triangle-list `mesh`, or what is missing.
pub fn triangles_of(mesh: &Mesh) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), String> {
    if mesh.primitive_topology() != PrimitiveTopology::TriangleList {
        return Err(format!(
            "has topology {:?}: expected a triangle list",
            mesh.primitive_topology()
        ));
    }
    let positions = match mesh.try_attribute(Mesh::ATTRIBUTE_POSITION) {
        Ok(VertexAttributeValues::Float32x3(p)) => p.iter().map(|&p| Vec3::from(p)).collect(),
        Ok(_) => return Err("has positions that are not Float32x3".into()),
        Err(MeshAccessError::ExtractedToRenderWorld) => {
            return Err("was sent to the GPU only (RenderAssetUsages::RENDER_WORLD): expected a mesh kept in the main world".into());
        }
        Err(_) => return Err("has no positions".into()),
    };
    let indices: Vec<u32> = match mesh.try_indices_option() {
        Ok(Some(Indices::U16(i))) => i.iter().map(|&i| u32::from(i)).collect(),
        Ok(Some(Indices::U32(i))) => i.clone(),
        Ok(None) => (0..u32::try_from(mesh.count_vertices()).unwrap_or(u32::MAX)).collect(),
        Err(_) => {
            return Err("was sent to the GPU only: expected a mesh kept in the main world".into());
        }
    };
    let triangles = indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    Ok((positions, triangles))
}

/// A triangle-list mesh kept in the main world (so that it can be updated) with `positions`
/// and `triangles`, and normals.
pub fn new_mesh(positions: &[supple::Vec3], triangles: &[[u32; 3]]) -> Mesh {
    let normals = supple::export::vertex_normals(positions, triangles);
    let as_arrays = |v: &[supple::Vec3]| v.iter().map(|p| [p.x, p.y, p.z]).collect::<Vec<_>>();
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, as_arrays(positions))
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, as_arrays(&normals))
    .with_inserted_indices(Indices::U32(triangles.iter().flatten().copied().collect()))
}

/// The rendered mesh of a body and how its vertices follow the body's
/// [surface](Body::surface) vertices. The buffers are kept, so that updating the mesh
/// allocates nothing.
#[derive(Debug)]
pub struct RenderLink {
    /// The surface vertex of each of the mesh's vertices; `None`: vertex k is surface vertex k.
    map: Option<Vec<u32>>,
    /// The mesh's triangles, for its normals.
    triangles: Vec<[u32; 3]>,
    surface: Vec<supple::Vec3>,
    vertices: Vec<supple::Vec3>,
    normals: Vec<supple::Vec3>,
}

impl RenderLink {
    /// The link of a mesh with `vertices` and `triangles` to a body whose surface vertices are
    /// `surface` (both in world space, at the same moment): each of the mesh's vertices follows
    /// the surface vertex at its place (a mesh's vertices split along its seams and creases
    /// follow one surface vertex).
    pub fn new(
        vertices: &[supple::Vec3],
        triangles: Vec<[u32; 3]>,
        surface: &[supple::Vec3],
    ) -> Self {
        let same = vertices.len() == surface.len()
            && vertices
                .iter()
                .zip(surface)
                .all(|(a, b)| (a - b).norm() <= 1e-5 * (1.0 + a.norm()));
        let map = (!same).then(|| nearest(vertices, surface));
        RenderLink {
            map,
            triangles,
            surface: Vec::new(),
            vertices: Vec::new(),
            normals: Vec::new(),
        }
    }

    /// Writes the body's surface at world positions `x` into `mesh`'s positions and normals, in
    /// the frame `to_local` takes world points to. Fails when the mesh's data is no longer in
    /// the main world.
    pub fn write(
        &mut self,
        body: &Body,
        x: &[supple::Vec3],
        to_local: &Affine3A,
        mesh: &mut Mesh,
    ) -> Result<(), MeshAccessError> {
        body.surface_into(x, &mut self.surface);
        let local = |p: &supple::Vec3| to_supple(to_local.transform_point3(to_bevy(p)));
        self.vertices.clear();
        match &self.map {
            Some(map) => self
                .vertices
                .extend(map.iter().map(|&k| local(&self.surface[k as usize]))),
            None => self.vertices.extend(self.surface.iter().map(local)),
        }
        supple::export::vertex_normals_into(&self.vertices, &self.triangles, &mut self.normals);
        copy_into(mesh, Mesh::ATTRIBUTE_POSITION, &self.vertices)?;
        copy_into(mesh, Mesh::ATTRIBUTE_NORMAL, &self.normals)
    }
}

/// Copies `values` into `mesh`'s Float32x3 attribute `id` in place (inserting it the first
/// time).
fn copy_into(
    mesh: &mut Mesh,
    id: bevy::mesh::MeshVertexAttribute,
    values: &[supple::Vec3],
) -> Result<(), MeshAccessError> {
    match mesh.try_attribute_mut_option(id)? {
        Some(VertexAttributeValues::Float32x3(out)) if out.len() == values.len() => {
            for (o, v) in out.iter_mut().zip(values) {
                *o = [v.x, v.y, v.z];
            }
        }
        _ => {
            let arrays: Vec<[f32; 3]> = values.iter().map(|v| [v.x, v.y, v.z]).collect();
            mesh.try_insert_attribute(id, arrays)?;
        }
    }
    Ok(())
}

/// For each of `points`, the index of the nearest of `targets` (not empty), through a grid of
/// cells about the size of the targets' spacing.
fn nearest(points: &[supple::Vec3], targets: &[supple::Vec3]) -> Vec<u32> {
    let (lo, hi) = targets.iter().fold(
        (
            supple::Vec3::repeat(f32::MAX),
            supple::Vec3::repeat(f32::MIN),
        ),
        |(lo, hi), p| (lo.inf(p), hi.sup(p)),
    );
    let cell = ((hi - lo).norm() / (targets.len() as f32).cbrt()).max(1e-6);
    let key = |p: &supple::Vec3| ((p - lo) / cell).map(|c| c.floor() as i32);
    let mut grid: HashMap<_, Vec<u32>> = HashMap::new();
    for (k, p) in targets.iter().enumerate() {
        grid.entry(key(p)).or_default().push(k as u32);
    }
    points
        .iter()
        .map(|p| {
            let c = key(p);
            let mut best = (f32::MAX, u32::MAX);
            // Rings of cells outwards until a target is found, then one more ring.
            for ring in 0i32.. {
                for dx in -ring..=ring {
                    for dy in -ring..=ring {
                        for dz in -ring..=ring {
                            if dx.abs().max(dy.abs()).max(dz.abs()) != ring {
                                continue;
                            }
                            let at = c + nalgebra::Vector3::new(dx, dy, dz);
                            for &k in grid.get(&at).into_iter().flatten() {
                                let d = (targets[k as usize] - p).norm_squared();
                                if d < best.0 {
                                    best = (d, k);
                                }
                            }
                        }
                    }
                }
                if best.1 != u32::MAX && ring as f32 * cell > best.0.sqrt() {
                    break;
                }
            }
            best.1
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_vertices_follow_the_surface_vertex_at_their_place() {
        let surface = [
            supple::Vec3::new(0.0, 0.0, 0.0),
            supple::Vec3::new(1.0, 0.0, 0.0),
            supple::Vec3::new(0.0, 5.0, 0.0),
        ];
        let vertices = [surface[2], surface[0], surface[0], surface[1], surface[2]];
        assert_eq!(nearest(&vertices, &surface), [2, 0, 0, 1, 2]);
        let link = RenderLink::new(&surface, vec![[0, 1, 2]], &surface);
        assert!(link.map.is_none());
    }

    #[test]
    fn rotations_go_both_ways() {
        let q = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
        let back = rotation_to_bevy(&rotation_to_supple(q));
        assert!(back.angle_between(q) < 1e-6);
        let v = Vec3::new(0.3, -1.0, 2.0);
        assert!((to_bevy(&(rotation_to_supple(q) * to_supple(v))) - q * v).length() < 1e-6);
    }
}
