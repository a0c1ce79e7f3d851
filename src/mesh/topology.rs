//! Edge topology of triangle meshes.

use std::collections::HashMap;

/// How many triangles use each undirected edge, keyed by the edge's indices in ascending order.
fn edge_use_counts(triangles: &[[u32; 3]]) -> HashMap<[u32; 2], u32> {
    let mut counts = HashMap::with_capacity(triangles.len() * 3 / 2);
    for &[a, b, c] in triangles {
        for (i, j) in [(a, b), (b, c), (c, a)] {
            *counts.entry([i.min(j), i.max(j)]).or_insert(0) += 1;
        }
    }
    counts
}

/// Number of edges used by exactly one triangle (the edges of the mesh's open boundaries).
pub fn boundary_edge_count(triangles: &[[u32; 3]]) -> usize {
    edge_use_counts(triangles)
        .values()
        .filter(|&&uses| uses == 1)
        .count()
}

/// Whether the triangles form a closed surface: there is at least one triangle and every edge
/// is shared by exactly two of them (no boundary and no non-manifold edge).
pub fn is_closed(triangles: &[[u32; 3]]) -> bool {
    !triangles.is_empty() && edge_use_counts(triangles).values().all(|&uses| uses == 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::obj::load_obj;
    use std::path::Path;

    const TETRAHEDRON: [[u32; 3]; 4] = [[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]];

    #[test]
    fn single_triangle_is_all_boundary() {
        assert_eq!(boundary_edge_count(&[[0, 1, 2]]), 3);
        assert!(!is_closed(&[[0, 1, 2]]));
    }

    #[test]
    fn tetrahedron_is_closed() {
        assert_eq!(boundary_edge_count(&TETRAHEDRON), 0);
        assert!(is_closed(&TETRAHEDRON));
    }

    #[test]
    fn tetrahedron_without_a_face_has_a_three_edge_hole() {
        assert_eq!(boundary_edge_count(&TETRAHEDRON[1..]), 3);
        assert!(!is_closed(&TETRAHEDRON[1..]));
    }

    #[test]
    fn non_manifold_edge_is_not_closed() {
        // Two tetrahedra glued along edge 0-1 only: that edge is used four times.
        let mut triangles = TETRAHEDRON.to_vec();
        triangles.extend([[0, 1, 5], [1, 4, 5], [4, 0, 5], [0, 4, 1]]);
        assert_eq!(boundary_edge_count(&triangles), 0);
        assert!(!is_closed(&triangles));
    }

    #[test]
    fn empty_mesh_is_not_closed() {
        assert_eq!(boundary_edge_count(&[]), 0);
        assert!(!is_closed(&[]));
    }

    #[test]
    fn shared_meshes_match_the_readme_boundary_counts() {
        // Fan-triangulating suzanne's quads adds only interior edges, so its count is unchanged.
        let meshes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes");
        for (name, boundary_edges) in [
            ("spot.obj", 0),
            ("suzanne.obj", 42),
            ("stanford-bunny.obj", 223),
            ("teapot.obj", 1_036),
        ] {
            let mesh = load_obj(&meshes.join(name)).unwrap();
            assert_eq!(
                boundary_edge_count(&mesh.triangles),
                boundary_edges,
                "{name}"
            );
            assert_eq!(is_closed(&mesh.triangles), boundary_edges == 0, "{name}");
        }
    }
}
