//! A cloth's particles from the vertices of a mesh as a garment tool or a scanner writes it:
//! coincident vertices welded into seams, the short edges of sliver triangles collapsed, and
//! the particles numbered for locality.
//!
//! Garment tools export each panel with its own vertices, so a seam is two rows of coincident
//! vertices; unwelded, the panels fall apart. They also leave sliver triangles at the seams,
//! with edges hundreds of times shorter than the mesh's median edge: as constraints such edges
//! are stiff beyond what the time step resolves, and a hinge on a needle of a triangle has no
//! meaningful angle. And a file's vertex order is whatever the tool chose; the solver's batches
//! fill and its gathers stay in cache only when neighbours have nearby numbers.
//!
//! [`prepare`] does all three and returns the particle of each vertex, so that everything a
//! user sees (positions, pins, exports) stays in the file's order.

use super::clean::weld;
use super::topology::edges;
use super::{Real, Vec3};
use std::collections::HashSet;

/// Edges shorter than this fraction of the mesh's median edge are collapsed: a sliver's edge
/// (the garment meshes measured have 0.04 mm edges beside a median of 13.7 mm, 0.003 of it)
/// is far below it, the shortest edge of a graded mesh (a quarter of the median at the finest)
/// far above.
pub const SLIVER: Real = 0.05;

/// The default weld tolerance as a fraction of the mesh's median edge: vertices closer than
/// this are one point to the file's precision (a garment tool writes a seam's two rows at the
/// same coordinates), while two layers of cloth a fraction of a millimetre apart stay apart.
pub const WELD: Real = 1e-3;

/// A cloth mesh's particles.
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    /// The particle of each vertex of the mesh.
    pub particle_of_vertex: Vec<u32>,
    /// Each particle's rest position: that of its first vertex in the file, m.
    pub rest: Vec<Vec3>,
    /// The triangles over particles, without those collapsed.
    pub triangles: Vec<[u32; 3]>,
    /// Vertices welded into an earlier vertex at the same point (seams).
    pub welded: usize,
    /// Triangles left out: collapsed onto an edge or a point (slivers, needles, degenerate
    /// faces) or repeating another triangle's particles.
    pub collapsed: usize,
}

/// The particles of the mesh `positions` (m), `triangles`: vertices closer than `weld` m
/// (default [`WELD`] times the median edge when `None`; no welding at 0) share a particle, so
/// do the ends of every edge shorter than [`SLIVER`] times the median edge, and triangles that
/// are then degenerate (two corners on one particle, or a height below [`SLIVER`] times the
/// median edge) or repeat another triangle are left out. With `renumber`, the particles are
/// numbered in Cuthill-McKee order (breadth first from a far corner of each connected piece,
/// neighbours of lower degree first), else in the order of their first vertex.
pub fn prepare(
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    weld_tolerance: Option<Real>,
    renumber: bool,
) -> Prepared {
    let median = median_edge(positions, triangles);
    let tolerance = weld_tolerance.unwrap_or(WELD * median);
    let mut root = weld(positions, tolerance);
    let welded = root
        .iter()
        .enumerate()
        .filter(|&(i, &r)| r as usize != i)
        .count();
    // Union-find over the welded vertices: every short edge joins its ends' sets, whose root is
    // their lowest vertex.
    let shortest = SLIVER * median;
    for [a, b] in edges(triangles) {
        if (positions[a as usize] - positions[b as usize]).norm() < shortest {
            let (ra, rb) = (find(&mut root, a), find(&mut root, b));
            root[ra.max(rb) as usize] = ra.min(rb);
        }
    }
    let roots: Vec<u32> = (0..positions.len() as u32)
        .map(|v| find(&mut root, v))
        .collect();
    let mut seen = HashSet::new();
    let kept: Vec<[u32; 3]> = triangles
        .iter()
        .map(|t| t.map(|v| roots[v as usize]))
        .filter(|&t| !is_needle(positions, t, shortest))
        .filter(|t| {
            let mut key = *t;
            key.sort_unstable();
            seen.insert(key)
        })
        .collect();
    let collapsed = triangles.len() - kept.len();

    // Number the roots, then the particles' order.
    let mut number = vec![u32::MAX; positions.len()];
    let mut firsts = Vec::new();
    for (v, &r) in roots.iter().enumerate() {
        if r as usize == v {
            number[v] = firsts.len() as u32;
            firsts.push(v as u32);
        }
    }
    let local: Vec<[u32; 3]> = kept.iter().map(|t| t.map(|v| number[v as usize])).collect();
    let order = match renumber {
        true => cuthill_mckee(firsts.len(), &local),
        false => (0..firsts.len() as u32).collect(),
    };
    let mut new_of = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_of[old as usize] = new as u32;
    }
    Prepared {
        particle_of_vertex: roots
            .iter()
            .map(|&r| new_of[number[r as usize] as usize])
            .collect(),
        rest: order
            .iter()
            .map(|&old| positions[firsts[old as usize] as usize])
            .collect(),
        triangles: local
            .iter()
            .map(|t| t.map(|p| new_of[p as usize]))
            .collect(),
        welded,
        collapsed,
    }
}

/// The median length of the edges of `triangles` at `positions` (0 without edges).
fn median_edge(positions: &[Vec3], triangles: &[[u32; 3]]) -> Real {
    let mut lengths: Vec<Real> = edges(triangles)
        .iter()
        .map(|&[a, b]| (positions[a as usize] - positions[b as usize]).norm())
        .collect();
    if lengths.is_empty() {
        return 0.0;
    }
    let middle = lengths.len() / 2;
    *lengths.select_nth_unstable_by(middle, Real::total_cmp).1
}

/// The root of `v`'s set, halving the path on the way.
fn find(root: &mut [u32], mut v: u32) -> u32 {
    while root[v as usize] != v {
        let up = root[root[v as usize] as usize];
        root[v as usize] = up;
        v = up;
    }
    v
}

/// Whether the triangle `t` (vertices of `positions`) has two corners on one point, or a height
/// over its longest edge below `shortest`.
fn is_needle(positions: &[Vec3], t: [u32; 3], shortest: Real) -> bool {
    if t[0] == t[1] || t[1] == t[2] || t[2] == t[0] {
        return true;
    }
    let [a, b, c] = t.map(|v| positions[v as usize]);
    let twice_area = (b - a).cross(&(c - a)).norm();
    let longest = [(b - a).norm(), (c - b).norm(), (a - c).norm()]
        .into_iter()
        .fold(0.0, Real::max);
    twice_area <= shortest * longest
}

/// The Cuthill-McKee order of the `n` particles of `triangles`: each connected piece breadth
/// first from a pseudo-peripheral particle (the last reached from the piece's lowest particle,
/// of lowest degree), each particle's unvisited neighbours by increasing degree. Neighbours get
/// nearby numbers, and on a grid the order runs along its diagonals, each of which goes the
/// same way. Returns the old number of each new one.
pub(crate) fn cuthill_mckee(n: usize, triangles: &[[u32; 3]]) -> Vec<u32> {
    let mut neighbours = vec![Vec::new(); n];
    for [a, b] in edges(triangles) {
        neighbours[a as usize].push(b);
        neighbours[b as usize].push(a);
    }
    let degree: Vec<usize> = neighbours.iter().map(Vec::len).collect();
    for list in &mut neighbours {
        list.sort_by_key(|&v| (degree[v as usize], v));
    }
    let mut order = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    let mut scratch = vec![false; n];
    for seed in 0..n {
        if visited[seed] {
            continue;
        }
        let (piece, last_layer) = breadth_first(seed as u32, &neighbours, &mut scratch);
        piece.iter().for_each(|&v| scratch[v as usize] = false);
        let far = piece[last_layer..]
            .iter()
            .copied()
            .min_by_key(|&v| (degree[v as usize], v))
            .expect("a piece holds its seed");
        order.extend(breadth_first(far, &neighbours, &mut visited).0);
    }
    order
}

/// The particles reached from `seed` through `neighbours` breadth first, each marked in
/// `visited` (not yet marked on entry), and where the last layer starts among them.
fn breadth_first(seed: u32, neighbours: &[Vec<u32>], visited: &mut [bool]) -> (Vec<u32>, usize) {
    let mut reached = vec![seed];
    visited[seed as usize] = true;
    let (mut layer, mut next) = (0, 0);
    while next < reached.len() {
        let end = reached.len();
        layer = next;
        for k in next..end {
            for &u in &neighbours[reached[k] as usize] {
                if !visited[u as usize] {
                    visited[u as usize] = true;
                    reached.push(u);
                }
            }
        }
        next = end;
    }
    (reached, layer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bodies::cloth::grid;

    /// Two unit squares side by side, each with its own four vertices: the middle edge is a seam.
    fn two_panels() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let x = [
            [0., 0., 0.],
            [1., 0., 0.],
            [1., 0., 1.],
            [0., 0., 1.],
            [1., 0., 0.],
            [2., 0., 0.],
            [2., 0., 1.],
            [1., 0., 1.],
        ];
        let t = vec![[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]];
        (x.iter().map(|&p| Vec3::from(p)).collect(), t)
    }

    #[test]
    fn a_seam_of_coincident_vertices_is_welded_and_the_vertices_keep_their_particles() {
        let (x, t) = two_panels();
        let p = prepare(&x, &t, None, false);
        assert_eq!((p.welded, p.collapsed, p.rest.len()), (2, 0, 6));
        assert_eq!(p.particle_of_vertex, vec![0, 1, 2, 3, 1, 4, 5, 2]);
        for (v, &i) in p.particle_of_vertex.iter().enumerate() {
            assert_eq!(p.rest[i as usize], x[v]);
        }
        // The seam's edge is one edge of both panels' triangles.
        let seam = [1, 2];
        let holding = |t: &&[u32; 3]| seam.iter().all(|i| t.contains(i));
        assert_eq!(p.triangles.iter().filter(holding).count(), 2);
        let apart = prepare(&x, &t, Some(0.0), false);
        assert_eq!((apart.welded, apart.rest.len()), (0, 8));
    }

    #[test]
    fn a_sliver_strip_collapses_onto_its_seam() {
        // A unit square with a strip 0.004 wide along its right side (wider than the weld
        // tolerance, narrower than a sliver).
        let x: Vec<Vec3> = [
            [0., 0., 0.],
            [0.996, 0., 0.],
            [1., 0., 0.],
            [0., 0., 1.],
            [0.996, 0., 1.],
            [1., 0., 1.],
        ]
        .iter()
        .map(|&p| Vec3::from(p))
        .collect();
        let t = [[0, 4, 1], [0, 3, 4], [1, 4, 5], [1, 5, 2]];
        let p = prepare(&x, &t, None, false);
        assert_eq!((p.welded, p.collapsed, p.rest.len()), (0, 2, 4));
        assert_eq!(p.particle_of_vertex[1], p.particle_of_vertex[2]);
        assert_eq!(p.particle_of_vertex[4], p.particle_of_vertex[5]);
        // A needle: a triangle whose third corner lies 0.001 off its longest edge.
        let needle = [x[0], x[3], Vec3::new(0.001, 0.0, 0.5)];
        assert!(is_needle(&needle, [0, 1, 2], SLIVER * 1.0));
        assert!(!is_needle(&needle, [0, 1, 2], 0.0005));
    }

    #[test]
    fn a_shuffled_grid_is_numbered_with_neighbours_close() {
        let n = 20u32;
        let (x, t) = grid(n, n, [1.0, 1.0], Vec3::zeros(), false);
        // Shuffle the vertices with a fixed permutation.
        let perm: Vec<u32> = (0..n * n).map(|i| (i * 137 + 11) % (n * n)).collect();
        let mut shuffled = vec![Vec3::zeros(); x.len()];
        for (old, &new) in perm.iter().enumerate() {
            shuffled[new as usize] = x[old];
        }
        let tris: Vec<[u32; 3]> = t.iter().map(|t| t.map(|v| perm[v as usize])).collect();
        let bandwidth = |tris: &[[u32; 3]]| {
            edges(tris)
                .iter()
                .map(|&[a, b]| a.abs_diff(b))
                .max()
                .unwrap()
        };
        assert!(bandwidth(&tris) > n * n / 2);
        let p = prepare(&shuffled, &tris, None, true);
        assert_eq!((p.welded, p.collapsed), (0, 0));
        // Cuthill-McKee along the diagonals of a grid: neighbours at most a diagonal apart.
        assert!(
            bandwidth(&p.triangles) <= n + 1,
            "{}",
            bandwidth(&p.triangles)
        );
        let mut seen = p.particle_of_vertex.clone();
        seen.sort_unstable();
        assert_eq!(
            seen,
            (0..n * n).collect::<Vec<_>>(),
            "one particle per vertex"
        );
        for (v, &i) in p.particle_of_vertex.iter().enumerate() {
            assert_eq!(p.rest[i as usize], shuffled[v]);
        }
    }
}
