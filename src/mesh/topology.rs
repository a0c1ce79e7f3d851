//! Edge topology of triangle meshes: edges, triangle pairs, boundaries.

use std::collections::HashMap;

/// Every edge of `triangles` once, as `[a, b]` with `a < b`, in order of first appearance.
pub fn edges(triangles: &[[u32; 3]]) -> Vec<[u32; 2]> {
    let mut seen = HashMap::new();
    let mut out = Vec::new();
    for t in triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            let key = [a.min(b), a.max(b)];
            seen.entry(key).or_insert_with(|| {
                out.push(key);
            });
        }
    }
    out
}

/// Every interior edge shared by exactly two triangles, as `[e0, e1, a, b]`: the first triangle
/// (in file order) runs `e0 → e1 → a`, and `b` is the vertex of the second triangle opposite the
/// edge. Edges on the boundary or shared by more than two triangles are left out. The order is
/// that of the edges' first appearance.
pub fn triangle_pairs(triangles: &[[u32; 3]]) -> Vec<[u32; 4]> {
    let mut by_edge: HashMap<[u32; 2], Vec<(u32, u32, u32)>> = HashMap::new();
    let mut order = Vec::new();
    for t in triangles {
        for k in 0..3 {
            let (a, b, opposite) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
            let key = [a.min(b), a.max(b)];
            let list = by_edge.entry(key).or_default();
            if list.is_empty() {
                order.push(key);
            }
            list.push((a, b, opposite));
        }
    }
    order
        .iter()
        .filter_map(|key| match by_edge[key].as_slice() {
            [(e0, e1, a), (_, _, b)] => Some([*e0, *e1, *a, *b]),
            _ => None,
        })
        .collect()
}

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

    #[test]
    fn two_triangles_share_one_edge() {
        let tris = [[0, 1, 2], [1, 3, 2]];
        assert_eq!(edges(&tris), vec![[0, 1], [1, 2], [0, 2], [1, 3], [2, 3]]);
        assert_eq!(triangle_pairs(&tris), vec![[1, 2, 0, 3]]);
    }

    #[test]
    fn grid_counts_match_the_reference_workload() {
        // The N x N grid of ../shared/bench/README.md: N = 64 has 12,033 edges, 11,781 pairs.
        let (_, tris) = crate::bodies::cloth::grid(64, 64, [1.0, 1.0], Default::default(), false);
        assert_eq!(edges(&tris).len(), 12_033);
        assert_eq!(triangle_pairs(&tris).len(), 11_781);
    }
}
