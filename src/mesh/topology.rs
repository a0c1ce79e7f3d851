//! Edges and triangle pairs of a triangle mesh.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_triangles_share_one_edge() {
        let tris = [[0, 1, 2], [1, 3, 2]];
        assert_eq!(edges(&tris), vec![[0, 1], [1, 2], [0, 2], [1, 3], [2, 3]]);
        assert_eq!(triangle_pairs(&tris), vec![[1, 2, 0, 3]]);
    }

    #[test]
    fn grid_counts_match_the_reference_workload() {
        // The N x N grid of ../shared/bench/README.md: N = 64 has 12,033 edges, 11,781 pairs.
        let n = 64u32;
        let mut tris = Vec::new();
        for j in 0..n - 1 {
            for i in 0..n - 1 {
                let (a, b, c, d) = (
                    j * n + i,
                    j * n + i + 1,
                    (j + 1) * n + i,
                    (j + 1) * n + i + 1,
                );
                tris.push([a, b, c]);
                tris.push([b, d, c]);
            }
        }
        assert_eq!(edges(&tris).len(), 12_033);
        assert_eq!(triangle_pairs(&tris).len(), 11_781);
    }
}
