//! Triangle-mesh colliders: signed distance by closest point on a bounding-volume hierarchy of
//! triangles, with the sign taken from angle-weighted pseudo-normals.
//!
//! The closest point `q` on the mesh to a query point `p` lies on a face, an edge or a vertex of
//! its triangle. Bærentzen and Aanæs 2005 ("Signed Distance Computation Using the Angle Weighted
//! Pseudonormal") prove that `p` is outside a closed mesh exactly when `(p − q)·N ≥ 0`, with `N`
//! the pseudo-normal of that feature: the face normal on a face, the sum of the two face normals
//! on an edge, the sum of the incident face normals weighted by their angles at a vertex. The
//! test is local, so it also gives open meshes (a bowl, a terrain patch) a sensible sign: points
//! behind the nearest surface, relative to its winding (counter-clockwise seen from outside), are
//! inside. A point whose closest feature is on the boundary of an open mesh (a rim edge or
//! vertex) is outside: nothing can be inside a surface at its edge, and this is what lets a point
//! above the opening of a bin, or below a hole in a scanned model, count as outside. The price of
//! a local test: an open mesh is one-sided, and a particle that ends up behind it far from the
//! rim is pushed through to the front.

use super::distance_grid::DistanceGrid;
use crate::math::{LaneVec, Real, Vec3};
use crate::mesh::TriMesh;
use std::collections::HashMap;
use wide::f32x8;

/// Triangles per BVH leaf at most.
const LEAF_SIZE: usize = 4;

/// Cells of the distance grid along the diagonal of the mesh's bounds.
const GRID_CELLS_PER_DIAGONAL: Real = 128.0;

/// Interpolated distances are trusted out to `band − TRUST_MARGIN_CELLS · h`: a point there has
/// all eight nodes of its cell (within `√3 h`) inside the band of exact values, with `0.27 h`
/// left for the interpolation error.
const TRUST_MARGIN_CELLS: Real = 2.0;

/// A node of the hierarchy: a box around its triangles, and either two children (`count == 0`,
/// children at `first` and `first + 1`) or `count` triangles `order[first..first + count]`.
#[derive(Clone, Debug, PartialEq)]
struct Node {
    lo: Vec3,
    hi: Vec3,
    first: u32,
    count: u32,
}

/// Which feature of a triangle the closest point lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Feature {
    /// Vertex `k` of the triangle.
    Vertex(usize),
    /// The edge from vertex `k` to vertex `(k + 1) % 3`.
    Edge(usize),
    /// The interior.
    Face,
}

/// A static triangle mesh ready for distance queries, in its own frame, m.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshShape {
    /// Vertex positions, m.
    pub vertices: Vec<Vec3>,
    /// Triangles, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
    /// Unit normal of each triangle.
    face_normals: Vec<Vec3>,
    /// Pseudo-normal of each triangle's edges `[ab, bc, ca]`; zero on the boundary (outside).
    edge_normals: Vec<[Vec3; 3]>,
    /// Angle-weighted pseudo-normal of each vertex; zero on the boundary (outside).
    vertex_normals: Vec<Vec3>,
    /// The hierarchy, root first.
    nodes: Vec<Node>,
    /// Triangle indices in leaf order.
    order: Vec<u32>,
    /// The signed distance sampled on a grid, for fast queries near the surface.
    grid: DistanceGrid,
    /// Whether every edge has a triangle on each side: no point outside the bounds is then
    /// inside (an open mesh is one-sided, see the module docs).
    closed: bool,
}

impl MeshShape {
    /// Builds the collider of `mesh` with its positions multiplied by `scale`. Degenerate
    /// triangles (zero area) are dropped.
    pub fn new(mesh: &TriMesh, scale: Real) -> Self {
        let vertices: Vec<Vec3> = mesh.positions.iter().map(|p| p * scale).collect();
        let corner = |t: &[u32; 3], k: usize| vertices[t[k] as usize];
        let triangles: Vec<[u32; 3]> = mesh
            .triangles
            .iter()
            .copied()
            .filter(|t| {
                let n = (corner(t, 1) - corner(t, 0)).cross(&(corner(t, 2) - corner(t, 0)));
                n.norm() > Real::EPSILON * scale * scale
            })
            .collect();
        let face_normals: Vec<Vec3> = triangles
            .iter()
            .map(|t| {
                (corner(t, 1) - corner(t, 0))
                    .cross(&(corner(t, 2) - corner(t, 0)))
                    .normalize()
            })
            .collect();
        let mut vertex_normals = vec![Vec3::zeros(); vertices.len()];
        let mut by_edge: HashMap<[u32; 2], (Vec3, u32)> = HashMap::new();
        let key = |t: &[u32; 3], k: usize| {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            [a.min(b), a.max(b)]
        };
        for (t, n) in triangles.iter().zip(&face_normals) {
            for k in 0..3 {
                let [a, b, c] = [0, 1, 2].map(|j| vertices[t[(k + j) % 3] as usize]);
                vertex_normals[t[k] as usize] += n * (b - a).angle(&(c - a));
                let edge = by_edge.entry(key(t, k)).or_insert((Vec3::zeros(), 0));
                *edge = (edge.0 + n, edge.1 + 1);
            }
        }
        let closed = by_edge.values().all(|&(_, uses)| uses > 1);
        for (edge, _) in by_edge.iter().filter(|(_, (_, uses))| *uses == 1) {
            for &v in edge {
                vertex_normals[v as usize] = Vec3::zeros();
            }
        }
        let edge_normals = triangles
            .iter()
            .map(|t| {
                [0, 1, 2].map(|k| match by_edge[&key(t, k)] {
                    (n, 2..) => n,
                    _ => Vec3::zeros(),
                })
            })
            .collect();
        let mut shape = MeshShape {
            vertices,
            triangles,
            face_normals,
            edge_normals,
            vertex_normals,
            nodes: Vec::new(),
            order: Vec::new(),
            grid: DistanceGrid::default(),
            closed,
        };
        shape.build_hierarchy();
        shape.grid = shape.sample_grid();
        shape
    }

    /// The distance grid over the bounds, [`GRID_CELLS_PER_DIAGONAL`] cells along their diagonal.
    fn sample_grid(&self) -> DistanceGrid {
        let (lo, hi) = self.bounds();
        let spacing = (hi - lo).norm().max(Real::EPSILON) / GRID_CELLS_PER_DIAGONAL;
        let corners: Vec<[Vec3; 3]> = self
            .triangles
            .iter()
            .map(|t| t.map(|i| self.vertices[i as usize]))
            .collect();
        DistanceGrid::build((lo, hi), spacing, &corners, |t, x| {
            let [a, b, c] = corners[t];
            let (q, feature) = closest_on_triangle(x, a, b, c);
            if (x - q).dot(&self.pseudo_normal(t, feature)) < 0.0 {
                -1.0
            } else {
                1.0
            }
        })
    }

    /// Pseudo-normal of `feature` of triangle `t` (not unit; zero on an open mesh's rim).
    fn pseudo_normal(&self, t: usize, feature: Feature) -> Vec3 {
        match feature {
            Feature::Face => self.face_normals[t],
            Feature::Edge(k) => self.edge_normals[t][k],
            Feature::Vertex(k) => self.vertex_normals[self.triangles[t][k] as usize],
        }
    }

    /// Distance out to which [`MeshShape::distance`] interpolates the grid, m.
    pub fn grid_reach(&self) -> Real {
        self.grid.band() - TRUST_MARGIN_CELLS * self.grid.spacing()
    }

    /// Whether the mesh is closed: every edge has a triangle on each side.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The grid's node spacing, m.
    pub fn grid_spacing(&self) -> Real {
        self.grid.spacing()
    }

    /// Axis-aligned bounds of the vertices, m.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        self.nodes
            .first()
            .map_or((Vec3::zeros(), Vec3::zeros()), |n| (n.lo, n.hi))
    }

    /// Signed distance from `p` to the mesh (negative inside), m, and the outward unit normal.
    /// Within [`grid_reach`](Self::grid_reach) of the surface, the distance grid's trilinear
    /// interpolation and its normalized gradient (see the accuracy bounds in
    /// [`distance_grid`](super::distance_grid)); farther out, [`exact_distance`](Self::exact_distance).
    pub fn distance(&self, p: Vec3) -> (Real, Vec3) {
        self.distance_within(p, Real::INFINITY)
    }

    /// [`distance`](Self::distance) where it is below `reach` m; elsewhere any value at least
    /// `reach`, without the exact query when `reach` ≤ [`grid_reach`](Self::grid_reach) and `p`
    /// is not deep inside. For tests that only ask whether a point is nearer than `reach`.
    #[inline]
    pub fn distance_within(&self, p: Vec3, reach: Real) -> (Real, Vec3) {
        let trusted = self.grid_reach();
        match self.grid.sample(p) {
            Some((d, grad)) if d.abs() < trusted => {
                let len = grad.norm();
                (d, if len > 0.0 { grad / len } else { Vec3::y() })
            }
            Some((d, _)) if d > 0.0 && reach <= trusted => (d, Vec3::y()),
            None if reach <= trusted => (trusted, Vec3::y()),
            _ => self.exact_distance(p),
        }
    }

    /// [`distance_within`](Self::distance_within) at eight points `p` (the mesh's frame, m)
    /// with the reaches `reach` (m), where the distance grid answers it: one bit per lane
    /// answered (the lowest for the first), with its distance and unit normal, the bits of
    /// [`distance_within`](Self::distance_within). The lanes left need the hierarchy.
    pub fn grid_distance_x8(
        &self,
        p: LaneVec<f32x8>,
        reach: f32x8,
    ) -> (u32, [Real; 8], LaneVec<f32x8>) {
        let trusted = self.grid_reach();
        let (sampled, corners, at) = self.grid.cell_at_x8(p);
        let (d, grad) = self.grid.interpolate(corners, at);
        let (len, zero) = (grad.norm_squared().sqrt(), f32x8::ZERO);
        // Near the surface, the interpolated distance and its gradient; beyond the trusted
        // band outside, or off the grid, a distance of at least the reach, up.
        let near = sampled & d.abs().simd_lt(f32x8::splat(trusted));
        let in_reach = reach.simd_le(f32x8::splat(trusted));
        let far = sampled & !near & d.simd_gt(zero) & in_reach;
        let off = !sampled & in_reach;
        let d = off.bitselect(f32x8::splat(trusted), d);
        // The gradient's direction where the grid is trusted and it has one, else up.
        let unit = grad / len;
        let directed = near & len.simd_gt(zero);
        let up = [zero, f32x8::ONE, zero];
        let normal = LaneVec([0, 1, 2].map(|a| directed.bitselect(unit.0[a], up[a])));
        ((near | far | off).to_bitmask(), d.to_array(), normal)
    }

    /// Signed distance from `p` to the mesh (negative inside), m, and the outward unit normal:
    /// the direction from the closest point to `p` (reversed inside), or the face normal when
    /// `p` lies on the surface, from the closest point on the hierarchy of triangles. An empty
    /// mesh is infinitely far.
    pub fn exact_distance(&self, p: Vec3) -> (Real, Vec3) {
        let Some((q, pseudo, face)) = self.closest(p) else {
            return (Real::MAX, Vec3::y());
        };
        let diff = p - q;
        let d = diff.norm();
        let sign = if diff.dot(&pseudo) < 0.0 { -1.0 } else { 1.0 };
        if d <= Real::EPSILON {
            (0.0, face)
        } else {
            (sign * d, diff * (sign / d))
        }
    }

    /// The closest point on the mesh to `p`, the pseudo-normal of its feature (not unit) and
    /// the unit normal of its triangle.
    fn closest(&self, p: Vec3) -> Option<(Vec3, Vec3, Vec3)> {
        let root = self.nodes.first()?;
        let mut best: Option<(Real, Vec3, Vec3, usize)> = None;
        // Nodes still to visit, with the squared distance from `p` to their box; the tree is
        // balanced, so its depth stays far below the stack's size.
        let mut stack = [(0u32, 0.0); 64];
        stack[0] = (0, box_distance_squared(&root.lo, &root.hi, &p));
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let (n, bound) = stack[top];
            if best.is_some_and(|(d2, ..)| bound >= d2) {
                continue;
            }
            let node = &self.nodes[n as usize];
            let first = node.first as usize;
            if node.count == 0 {
                let near = |c: usize| {
                    let child = &self.nodes[c];
                    (c as u32, box_distance_squared(&child.lo, &child.hi, &p))
                };
                let (a, b) = (near(first), near(first + 1));
                // The nearer child goes on top, to be visited first.
                let (far, near) = if a.1 < b.1 { (b, a) } else { (a, b) };
                stack[top] = far;
                stack[top + 1] = near;
                top += 2;
                continue;
            }
            for &t in &self.order[first..first + node.count as usize] {
                let t = t as usize;
                let [a, b, c] = self.triangles[t].map(|i| self.vertices[i as usize]);
                let (q, feature) = closest_on_triangle(p, a, b, c);
                let d2 = (p - q).norm_squared();
                if best.is_none_or(|(best_d2, ..)| d2 < best_d2) {
                    best = Some((d2, q, self.pseudo_normal(t, feature), t));
                }
            }
        }
        best.map(|(_, q, n, t)| (q, n, self.face_normals[t]))
    }

    /// Builds the hierarchy top-down, splitting each node at the median centroid along its
    /// longest axis.
    fn build_hierarchy(&mut self) {
        self.order = (0..self.triangles.len() as u32).collect();
        self.nodes.clear();
        if self.triangles.is_empty() {
            return;
        }
        let centroid = |t: u32| {
            self.triangles[t as usize]
                .iter()
                .map(|&i| self.vertices[i as usize])
                .sum::<Vec3>()
                / 3.0
        };
        let centroids: Vec<Vec3> = (0..self.triangles.len() as u32).map(centroid).collect();
        self.nodes.push(self.node_over(0, self.triangles.len()));
        let mut todo = vec![0usize];
        while let Some(n) = todo.pop() {
            let (first, count) = (self.nodes[n].first as usize, self.nodes[n].count as usize);
            if count <= LEAF_SIZE {
                continue;
            }
            let axis = (self.nodes[n].hi - self.nodes[n].lo).imax();
            let half = count / 2;
            self.order[first..first + count].select_nth_unstable_by(half, |&a, &b| {
                centroids[a as usize][axis].total_cmp(&centroids[b as usize][axis])
            });
            let children = self.nodes.len();
            self.nodes.push(self.node_over(first, half));
            self.nodes.push(self.node_over(first + half, count - half));
            self.nodes[n].first = children as u32;
            self.nodes[n].count = 0;
            todo.extend([children, children + 1]);
        }
    }

    /// A leaf over `order[first..first + count]`.
    fn node_over(&self, first: usize, count: usize) -> Node {
        let (lo, hi) = self.order[first..first + count]
            .iter()
            .flat_map(|&t| self.triangles[t as usize])
            .map(|i| self.vertices[i as usize])
            .fold(
                (Vec3::repeat(Real::MAX), Vec3::repeat(Real::MIN)),
                |(lo, hi), v| (lo.inf(&v), hi.sup(&v)),
            );
        Node {
            lo,
            hi,
            first: first as u32,
            count: count as u32,
        }
    }
}

/// Squared distance from `p` to the box `[lo, hi]`, m² (0 inside).
fn box_distance_squared(lo: &Vec3, hi: &Vec3, p: &Vec3) -> Real {
    (lo - p).sup(&(p - hi)).sup(&Vec3::zeros()).norm_squared()
}

/// The closest point to `p` on triangle `abc` and the feature it lies on, by Voronoi regions
/// (Ericson 2005, "Real-Time Collision Detection", sec. 5.1.5).
pub(super) fn closest_on_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (Vec3, Feature) {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Feature::Vertex(0));
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Feature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), Feature::Edge(0));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Feature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), Feature::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * w, Feature::Edge(1));
    }
    let denom = 1.0 / (va + vb + vc);
    (a + ab * (vb * denom) + ac * (vc * denom), Feature::Face)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::simd::{gather_vec3, lanes_vec3};
    use wide::f32x8;

    /// The cube `[-1, 1]³`, wound outwards.
    fn cube() -> TriMesh {
        let mut mesh = crate::mesh::generate::cube();
        for p in &mut mesh.positions {
            *p = *p * 2.0 - Vec3::repeat(1.0);
        }
        mesh
    }

    #[test]
    fn cube_mesh_agrees_with_the_box_distance_everywhere() {
        let mesh = MeshShape::new(&cube(), 1.0);
        let exact = crate::collision::Shape::Box {
            center: Vec3::zeros(),
            half_extents: Vec3::repeat(1.0),
            rotation: crate::math::Quat::identity(),
        };
        let mut s = 7u32;
        let mut next = || {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as Real / (1u32 << 24) as Real * 4.0 - 2.0
        };
        for _ in 0..2000 {
            let p = Vec3::new(next(), next(), next());
            let (d, n) = mesh.exact_distance(p);
            let (de, ne) = exact.distance(p);
            assert!((d - de).abs() < 1e-5, "at {p}: {d} vs {de}");
            if de.abs() > 1e-3 && de > 0.0 {
                assert!((n - ne).norm() < 1e-3, "normal at {p}: {n} vs {ne}");
            }
        }
    }

    /// Pseudo-random points in the cube `[-side, side]³`.
    fn points(n: usize, side: Real) -> Vec<Vec3> {
        crate::collision::scattered(n, side, 99)
    }

    #[test]
    fn grid_is_exact_beside_a_face_where_the_distance_is_linear() {
        let mesh = MeshShape::new(&cube(), 1.0);
        let h = mesh.grid_spacing();
        // Within 2 cells above the top face and 3 cells inside it, away from its edges: every
        // node of the cell has the top face closest, where φ = y − 1 is linear.
        let mut tested = 0;
        for p in points(4000, 1.0 + 2.0 * h) {
            if p.x.abs() > 1.0 - 5.0 * h || p.z.abs() > 1.0 - 5.0 * h || p.y < 1.0 - 3.0 * h {
                continue;
            }
            let (d, n) = mesh.distance(p);
            assert!((d - (p.y - 1.0)).abs() < 1e-5, "at {p}: {d}");
            assert!((n - Vec3::y()).norm() < 1e-4, "normal at {p}: {n}");
            tested += 1;
        }
        assert!(tested > 10, "{tested} points tested");
    }

    #[test]
    fn grid_error_is_within_the_interpolation_bound_around_convex_edges_and_corners() {
        let mesh = MeshShape::new(&cube(), 1.0);
        let h = mesh.grid_spacing();
        let mut tested = 0;
        for p in points(20000, 1.0 + mesh.grid_reach()) {
            let (exact, _) = mesh.exact_distance(p);
            // Outside, a cell away from the surface: the second derivatives of φ over the cell
            // are at most 1 / (φ − √3 h), so trilinear interpolation errs by at most
            // (3/8) h² / (φ − √3 h).
            if exact < 2.0 * h || exact > mesh.grid_reach() {
                continue;
            }
            let bound = 3.0 * h * h / (8.0 * (exact - 3f32.sqrt() * h)) + 1e-5;
            let (d, _) = mesh.distance(p);
            assert!(
                (d - exact).abs() <= bound,
                "at {p}: {d} vs {exact}, bound {bound}"
            );
            tested += 1;
        }
        assert!(tested > 1000, "{tested} points tested");
    }

    #[test]
    fn far_points_are_answered_from_the_grid_with_the_right_side() {
        let mesh = MeshShape::new(&cube(), 1.0);
        let reach = mesh.grid_reach();
        // Far outside, inside the grid and beyond it: at least the reach asked for.
        for p in [
            Vec3::new(1.0 + 1.5 * reach, 0.0, 0.0),
            Vec3::new(5.0, 0.0, 0.0),
        ] {
            assert!(mesh.distance_within(p, reach).0 >= reach);
            assert!((mesh.distance(p).0 - (p.x - 1.0)).abs() < 1e-5);
        }
        // Deep inside: always the exact (negative) distance.
        let (d, _) = mesh.distance_within(Vec3::new(0.1, 0.0, 0.0), reach);
        assert!((d + 0.9).abs() < 1e-5, "{d}");
    }

    #[test]
    fn eight_grid_lanes_give_the_bits_of_each_point_and_leave_the_rest_to_the_hierarchy() {
        // Points in and around the cube [-1, 1]³, and a box of unequal sides (a grid with as
        // many cells along no two axes), with reaches below and above the grid's trust: near
        // the surface, deep inside, beyond the band and off the grid.
        let mut long = cube();
        for p in &mut long.positions {
            *p = p.component_mul(&Vec3::new(1.0, 0.5, 1.5));
        }
        for mesh in [MeshShape::new(&cube(), 1.0), MeshShape::new(&long, 1.0)] {
            let trusted = mesh.grid_reach();
            let (mut answered, mut left) = (0, 0);
            for (n, chunk) in points(800, 1.5).chunks_exact(8).enumerate() {
                let lanes = gather_vec3(chunk, &std::array::from_fn(|k| k));
                let reach: [Real; 8] =
                    std::array::from_fn(|k| trusted * (0.5 + (n + k) as Real % 3.0));
                let (grid, d, normal) = mesh.grid_distance_x8(lanes, f32x8::new(reach));
                for (k, (p, n)) in chunk.iter().zip(lanes_vec3(normal)).enumerate() {
                    if grid >> k & 1 == 0 {
                        left += 1;
                        continue;
                    }
                    answered += 1;
                    let (d1, n1) = mesh.distance_within(*p, reach[k]);
                    assert_eq!(d[k].to_bits(), d1.to_bits(), "{p}");
                    assert_eq!(n.map(Real::to_bits), n1.map(Real::to_bits), "{p}");
                }
            }
            // The lanes left are those that the grid cannot answer: reaches beyond its trust
            // away from the surface, or deep inside.
            assert!(
                answered > 200 && left > 200,
                "{answered} answered, {left} left"
            );
        }
    }

    #[test]
    fn sign_is_right_on_edges_and_vertices_where_faces_meet() {
        let mesh = MeshShape::new(&cube(), 1.0);
        // Just inside a corner and just inside an edge: the closest feature is shared.
        assert!(mesh.exact_distance(Vec3::repeat(0.999)).0 < 0.0);
        assert!(mesh.exact_distance(Vec3::new(0.999, 0.999, 0.0)).0 < 0.0);
        assert!(mesh.exact_distance(Vec3::repeat(1.001)).0 > 0.0);
        assert!(mesh.exact_distance(Vec3::new(1.001, 1.001, 0.3)).0 > 0.0);
    }

    #[test]
    fn open_mesh_is_inside_behind_its_faces_and_outside_at_its_rim() {
        let mut half = cube();
        // Drop the top face: an open box (a bin) whose floor still points down and out.
        half.triangles
            .retain(|t| !t.iter().all(|&i| half.positions[i as usize].y > 0.0));
        let mesh = MeshShape::new(&half, 1.0);
        assert!(mesh.exact_distance(Vec3::new(0.0, -1.1, 0.0)).0 > 0.0);
        assert!(mesh.exact_distance(Vec3::new(0.0, -0.9, 0.0)).0 < 0.0);
        // Above the opening the closest point is on the rim: outside, though behind a wall.
        let (d, n) = mesh.exact_distance(Vec3::new(0.0, 3.0, 0.0));
        assert!((d - 5f32.sqrt()).abs() < 1e-5 && n.y > 0.0, "{d} {n}");
    }

    #[test]
    fn blob_is_closed_and_its_distance_matches_a_sphere() {
        let sphere = crate::mesh::generate::blob(24, 48, 0.5, |_| 1.0);
        assert!(crate::mesh::topology::is_closed(&sphere.triangles));
        let mesh = MeshShape::new(&sphere, 2.0);
        assert!((mesh.exact_distance(Vec3::new(0.0, 3.0, 0.0)).0 - 2.0).abs() < 1e-5);
        assert!(
            (mesh.exact_distance(Vec3::new(0.2, 0.1, -0.3)).0 + (1.0 - 0.1400f32.sqrt())).abs()
                < 0.01
        );
    }
}
