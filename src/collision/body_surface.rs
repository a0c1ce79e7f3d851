//! The surfaces of cloth and soft bodies as collision geometry: each body's triangles with their
//! corners skinned from its particles (a cloth's or `surface` body's corners are its particles), in a
//! bounding-volume hierarchy built once over the rest shape and refitted every substep around
//! the corners' start and predicted positions.
//!
//! A particle of another body touches a surface in one of two ways: it crossed a triangle
//! during the substep (its path relative to the moving triangle goes from the outside to the
//! inside through the triangle: a continuous test, whose cost does not depend on how far either
//! moved), or it ends within reach of the surface (the closest triangle, by a pruned search of
//! the hierarchy). A soft body's surface is one-sided: the outside is where the triangles'
//! normals point, turned outward when the body's rest volume is negative. A cloth is two-sided:
//! a particle is kept on the side it was on at the start of the substep.
//!
//! The particles are asked eight at a time first ([`BodySurface::may_touch_x8`]): they walk the
//! hierarchy together in SIMD lanes, and only those that reach a leaf by either test are asked
//! one by one. Most particles near a body touch none of its triangles, and leave after a few
//! box tests for eight instead of two walks each. The refit reads each leaf's corners once
//! (a leaf's triangles share most of their corners), and a cloth's corners are its particles,
//! copied rather than skinned.

use crate::bodies::{Body, BodyKind};
use crate::constraints::surface_contact::SURFACE_PARTICLES;
use crate::constraints::volume::enclosed_volume;
use crate::math::{LaneVec, Real, Vec3};
use crate::particles::ParticleSet;
use wide::f32x8;

/// Triangles per leaf of a hierarchy at most.
const LEAF_SIZE: usize = 4;

/// How far outside its triangle (in barycentric coordinates) a crossing still counts, so that
/// a path through a shared edge or corner is not missed by rounding.
const CROSSING_TOLERANCE: Real = 1e-3;

/// A node of a hierarchy: a box, and either two children (`count == 0`, at `first` and
/// `first + 1`, after the node) or `count` triangles `order[first..first + count]`.
#[derive(Clone, Debug, Default)]
struct Node {
    lo: Vec3,
    hi: Vec3,
    first: u32,
    count: u32,
}

/// One body's surface.
#[derive(Clone, Debug, Default)]
pub struct BodySurface {
    /// The body's index.
    pub body: u32,
    /// Each corner as four world particle indices and their weights.
    corners: Vec<([u32; 4], [Real; 4])>,
    /// Whether the corners are skinned; if not, corner `c` is particle `corners[0].0[0] + c`.
    skinned: bool,
    /// Triangles over the corners, wound counter-clockwise seen from outside.
    triangles: Vec<[u32; 3]>,
    /// A cloth: both sides are outside.
    two_sided: bool,
    nodes: Vec<Node>,
    order: Vec<u32>,
    /// The corners of the triangles of leaf `n`, each once: `leaf_corners[spans[n]..spans[n + 1]]`
    /// (empty for a node with children).
    spans: Vec<u32>,
    leaf_corners: Vec<u32>,
    /// Corner positions at the start of the substep and predicted, m.
    at_x: Vec<Vec3>,
    at_p: Vec<Vec3>,
    /// The box around each corner's two positions.
    corner_lo: Vec<Vec3>,
    corner_hi: Vec<Vec3>,
}

/// Where a particle touches a surface: the surface point `Σ weights[j] x[ids[j]]` and the unit
/// normal along which the particle is kept away from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceHit {
    /// The particles of the surface point (unused slots have weight 0).
    pub ids: [u32; SURFACE_PARTICLES],
    /// Their weights, summing to 1.
    pub weights: [Real; SURFACE_PARTICLES],
    /// Unit normal from the surface toward where the particle must be.
    pub normal: Vec3,
}

impl BodySurface {
    /// The surface of cloth or soft body `body` (number `index`), from the world positions
    /// `x`; `None` for a rope.
    pub fn of(body: &Body, index: u32, x: &[Vec3]) -> Option<Self> {
        if body.triangles.is_empty() {
            return None;
        }
        let start = body.particles.start as u32;
        let corners: Vec<([u32; 4], [Real; 4])> = match &body.skin {
            Some(skin) => skin
                .tets
                .iter()
                .zip(&skin.weights)
                .map(|(t, w)| (t.map(|i| start + i), *w))
                .collect(),
            None => body
                .particles
                .clone()
                .map(|i| ([i as u32; 4], [1.0, 0.0, 0.0, 0.0]))
                .collect(),
        };
        let mut surface = BodySurface {
            body: index,
            corners,
            skinned: body.skin.is_some(),
            triangles: body.particle_triangles().to_vec(),
            two_sided: body.kind == BodyKind::Cloth,
            ..Default::default()
        };
        skin(&surface.corners, surface.skinned, x, &mut surface.at_x);
        if !surface.two_sided && enclosed_volume(&surface.at_x, &surface.triangles) < 0.0 {
            surface.triangles.iter_mut().for_each(|t| t.swap(1, 2));
        }
        surface.at_p = surface.at_x.clone();
        surface.corner_boxes();
        surface.build_hierarchy();
        Some(surface)
    }

    /// The boxes around each corner's start and predicted positions.
    fn corner_boxes(&mut self) {
        self.corner_lo.clear();
        self.corner_hi.clear();
        for (x, p) in self.at_x.iter().zip(&self.at_p) {
            self.corner_lo.push(x.inf(p));
            self.corner_hi.push(x.sup(p));
        }
    }

    /// Skins the corners at the particles' start and predicted positions and refits the
    /// hierarchy around both.
    pub fn update(&mut self, ps: &ParticleSet) {
        skin(&self.corners, self.skinned, &ps.x, &mut self.at_x);
        skin(&self.corners, self.skinned, &ps.p, &mut self.at_p);
        self.corner_boxes();
        for n in (0..self.nodes.len()).rev() {
            let node = &self.nodes[n];
            let first = node.first as usize;
            let (lo, hi) = if node.count == 0 {
                let (a, b) = (&self.nodes[first], &self.nodes[first + 1]);
                (a.lo.inf(&b.lo), a.hi.sup(&b.hi))
            } else {
                let span = self.spans[n] as usize..self.spans[n + 1] as usize;
                let corners = self.leaf_corners[span].iter().map(|&c| c as usize);
                corners.fold(
                    (Vec3::repeat(Real::MAX), Vec3::repeat(Real::MIN)),
                    |(lo, hi), c| (lo.inf(&self.corner_lo[c]), hi.sup(&self.corner_hi[c])),
                )
            };
            self.nodes[n].lo = lo;
            self.nodes[n].hi = hi;
        }
    }

    /// The box around triangles `tris` at both the start and predicted positions.
    fn bounds(&self, tris: &[u32]) -> (Vec3, Vec3) {
        let (mut lo, mut hi) = (Vec3::repeat(Real::MAX), Vec3::repeat(Real::MIN));
        for &t in tris {
            for c in self.triangles[t as usize] {
                lo = lo.inf(&self.corner_lo[c as usize]);
                hi = hi.sup(&self.corner_hi[c as usize]);
            }
        }
        (lo, hi)
    }

    /// Builds the hierarchy top-down over the corner positions `at_x`, splitting each node at
    /// the median centroid along its longest side.
    fn build_hierarchy(&mut self) {
        self.order = (0..self.triangles.len() as u32).collect();
        let centroids: Vec<Vec3> = self
            .triangles
            .iter()
            .map(|t| t.iter().map(|&c| self.at_x[c as usize]).sum::<Vec3>() / 3.0)
            .collect();
        let (lo, hi) = self.bounds(&self.order);
        self.nodes = vec![Node {
            lo,
            hi,
            first: 0,
            count: self.triangles.len() as u32,
        }];
        let mut todo = vec![0usize];
        while let Some(n) = todo.pop() {
            let (first, count) = (self.nodes[n].first as usize, self.nodes[n].count as usize);
            if count <= LEAF_SIZE {
                continue;
            }
            let range = &mut self.order[first..first + count];
            let (lo, hi) = range.iter().fold(
                (Vec3::repeat(Real::MAX), Vec3::repeat(Real::MIN)),
                |(lo, hi), &t| {
                    (
                        lo.inf(&centroids[t as usize]),
                        hi.sup(&centroids[t as usize]),
                    )
                },
            );
            let axis = (hi - lo).imax();
            let half = count / 2;
            range.select_nth_unstable_by(half, |&a, &b| {
                centroids[a as usize][axis].total_cmp(&centroids[b as usize][axis])
            });
            let children = self.nodes.len();
            for (first, count) in [(first, half), (first + half, count - half)] {
                let (lo, hi) = self.bounds(&self.order[first..first + count]);
                self.nodes.push(Node {
                    lo,
                    hi,
                    first: first as u32,
                    count: count as u32,
                });
            }
            self.nodes[n].first = children as u32;
            self.nodes[n].count = 0;
            todo.extend([children, children + 1]);
        }
        self.spans = vec![0];
        self.leaf_corners.clear();
        for node in &self.nodes {
            if node.count > 0 {
                let tris = &self.order[node.first as usize..][..node.count as usize];
                let mut corners: Vec<u32> = tris
                    .iter()
                    .flat_map(|&t| self.triangles[t as usize])
                    .collect();
                corners.sort_unstable();
                corners.dedup();
                self.leaf_corners.extend(corners);
            }
            self.spans.push(self.leaf_corners.len() as u32);
        }
    }

    /// The box around every corner at the start and predicted positions (after
    /// [`update`](Self::update)), or `None` for an empty surface.
    pub fn bounding_box(&self) -> Option<(Vec3, Vec3)> {
        self.nodes.first().map(|n| (n.lo, n.hi))
    }

    /// Calls `f(t)` for every triangle whose box overlaps `[lo, hi]`.
    fn for_each_overlap(&self, lo: Vec3, hi: Vec3, mut f: impl FnMut(usize)) {
        // The tree is balanced, so its depth stays far below the stack's size.
        let mut stack = [0u32; 64];
        let mut top = usize::from(!self.nodes.is_empty());
        while top > 0 {
            top -= 1;
            let node = &self.nodes[stack[top] as usize];
            if (0..3).any(|a| node.lo[a] > hi[a] || node.hi[a] < lo[a]) {
                continue;
            }
            let first = node.first as usize;
            if node.count == 0 {
                stack[top] = node.first + 1;
                stack[top + 1] = node.first;
                top += 2;
            } else {
                for &t in &self.order[first..first + node.count as usize] {
                    f(t as usize);
                }
            }
        }
    }

    /// Which of eight particles may touch this surface ([`touch`](Self::touch)), one bit per
    /// lane of `active`: a lane's bit is clear only when no leaf of the hierarchy overlaps the
    /// box around its path `x → p` and none is within `reach` of `p`, so that neither the
    /// crossing nor the closest-triangle search of `touch` can reach a triangle. The eight walk
    /// the hierarchy together, a node visited while some lane still may touch it; a lane that
    /// reached a leaf leaves the walk. A non-finite position may always touch.
    pub fn may_touch_x8(
        &self,
        (x, p): (LaneVec<f32x8>, LaneVec<f32x8>),
        reach: f32x8,
        active: u32,
    ) -> u32 {
        let path = [0, 1, 2].map(|a| (x.0[a].min(p.0[a]), x.0[a].max(p.0[a])));
        // The search prunes a box at `d² ≥ reach²`; the allowance only adds lanes.
        let reach_sq = reach * reach * f32x8::splat(1.0 + 1e-5);
        let sum = x.0[0] + x.0[1] + x.0[2] + p.0[0] + p.0[1] + p.0[2];
        let finite = sum.abs().simd_lt(f32x8::splat(Real::INFINITY));
        let mut may = active & !finite.to_bitmask();
        let mut stack = [(0u32, 0u32); 64];
        let mut top = 0;
        if !self.nodes.is_empty() {
            (stack[0], top) = ((0, active), 1);
        }
        while top > 0 {
            top -= 1;
            let (n, lanes) = stack[top];
            let lanes = lanes & !may;
            if lanes == 0 {
                continue;
            }
            let node = &self.nodes[n as usize];
            let (mut apart, mut d_sq) = (f32x8::ZERO, f32x8::ZERO);
            for (a, &(path_lo, path_hi)) in path.iter().enumerate() {
                let (node_lo, node_hi) = (f32x8::splat(node.lo[a]), f32x8::splat(node.hi[a]));
                apart |= node_lo.simd_gt(path_hi) | node_hi.simd_lt(path_lo);
                let gap = (node_lo - p.0[a]).max(p.0[a] - node_hi).max(f32x8::ZERO);
                d_sq += gap * gap;
            }
            let far = d_sq.simd_ge(reach_sq);
            let near = lanes & !(apart & far).to_bitmask();
            if near == 0 {
                continue;
            }
            if node.count == 0 {
                stack[top] = (node.first + 1, near);
                stack[top + 1] = (node.first, near);
                top += 2;
            } else {
                may |= near;
            }
        }
        may
    }

    /// The corners of triangle `t` at the positions `at`.
    fn corners_at(&self, t: usize, at: &[Vec3]) -> [Vec3; 3] {
        self.triangles[t].map(|c| at[c as usize])
    }

    /// The first triangle that the particle's path `x → p` crosses from the outside (from
    /// either side on a two-sided surface), relative to the surface moving from its start to
    /// its predicted positions, with the barycentric coordinates of the crossing and the side it
    /// came from (1 outside, along the triangle's normal; −1 behind it).
    ///
    /// The path and each corner are taken to move linearly, and the triangle's normal is
    /// interpolated between its start and end (a linearization of the exact cubic test of
    /// Provot 1997, "Collision and Self-Collision Handling in Cloth Model Dedicated to Design
    /// Garments").
    fn first_crossing(&self, x: Vec3, p: Vec3) -> Option<(usize, [Real; 3], Real)> {
        let mut best: Option<(Real, usize, [Real; 3], Real)> = None;
        self.for_each_overlap(x.inf(&p), x.sup(&p), |t| {
            let [a0, b0, c0] = self.corners_at(t, &self.at_x);
            let [a1, b1, c1] = self.corners_at(t, &self.at_p);
            let (n0, n1) = ((b0 - a0).cross(&(c0 - a0)), (b1 - a1).cross(&(c1 - a1)));
            let (s0, s1) = (n0.dot(&(x - a0)), n1.dot(&(p - a1)));
            let side = if s0 >= 0.0 { 1.0 } else { -1.0 };
            if !(side * s1 < 0.0 && (side > 0.0 || self.two_sided)) {
                return;
            }
            let tau = s0 / (s0 - s1);
            if best.is_some_and(|(first, ..)| tau >= first) {
                return;
            }
            let lerp = |u: Vec3, v: Vec3| u + (v - u) * tau;
            let [a, b, c] = [lerp(a0, a1), lerp(b0, b1), lerp(c0, c1)];
            if let Some(bary) = barycentric(lerp(x, p), a, b, c)
                && bary.iter().all(|&l| l >= -CROSSING_TOLERANCE)
            {
                let clamped = bary.map(|l| l.max(0.0));
                let sum: Real = clamped.iter().sum();
                best = Some((tau, t, clamped.map(|l| l / sum), side));
            }
        });
        best.map(|(_, t, bary, side)| (t, bary, side))
    }

    /// The closest triangle to `p` at the predicted positions, if one is within `reach`: its
    /// index, the closest point's barycentric coordinates and its distance.
    fn closest(&self, p: Vec3, reach: Real) -> Option<(usize, [Real; 3], Real)> {
        let mut best: Option<(Real, usize, Vec3)> = None;
        let bound = |n: usize| {
            let node = &self.nodes[n];
            (node.lo - p)
                .sup(&(p - node.hi))
                .sup(&Vec3::zeros())
                .norm_squared()
        };
        // Nodes still to visit with the squared distance from `p` to their box, the nearer
        // child on top.
        let mut stack = [(0u32, 0.0); 64];
        let mut top = usize::from(!self.nodes.is_empty());
        while top > 0 {
            top -= 1;
            let (n, d2) = stack[top];
            if d2 >= best.map_or(reach * reach, |(d2, ..)| d2) {
                continue;
            }
            let node = &self.nodes[n as usize];
            let first = node.first as usize;
            if node.count == 0 {
                let (a, b) = ((first, bound(first)), (first + 1, bound(first + 1)));
                let (near, far) = if a.1 <= b.1 { (a, b) } else { (b, a) };
                stack[top] = (far.0 as u32, far.1);
                stack[top + 1] = (near.0 as u32, near.1);
                top += 2;
                continue;
            }
            for &t in &self.order[first..first + node.count as usize] {
                let [a, b, c] = self.corners_at(t as usize, &self.at_p);
                let (q, _) = super::mesh::closest_on_triangle(p, a, b, c);
                let d2 = (p - q).norm_squared();
                if d2 < best.map_or(reach * reach, |(best, ..)| best) {
                    best = Some((d2, t as usize, q));
                }
            }
        }
        let (d2, t, q) = best?;
        let [a, b, c] = self.corners_at(t, &self.at_p);
        Some((t, barycentric(q, a, b, c)?, d2.sqrt()))
    }

    /// Where the particle moving from `x` to `p` touches this surface: the first triangle its
    /// path crosses, or else the closest triangle within `reach` of `p`. The normal is the
    /// triangle's at the predicted positions, turned to the side the particle came from (on a
    /// two-sided surface, the side of the triangle's plane it was on at the start), or, for a
    /// particle on that side and off the triangle's face, the direction from the closest point
    /// to the particle.
    pub fn touch(&self, x: Vec3, p: Vec3, reach: Real) -> Option<SurfaceHit> {
        let (t, bary, normal) = match self.first_crossing(x, p) {
            Some((t, bary, side)) => (t, bary, self.normal(t)? * side),
            None => {
                let (t, bary, dist) = self.closest(p, reach)?;
                let [a, b, c] = self.corners_at(t, &self.at_x);
                let start = a * bary[0] + b * bary[1] + c * bary[2];
                let behind = (b - a).cross(&(c - a)).dot(&(x - start)) < 0.0;
                let n = self.normal(t)? * if self.two_sided && behind { -1.0 } else { 1.0 };
                let q = self.point(t, bary);
                let outside = n.dot(&(p - q)) > 0.0 && dist > Real::EPSILON;
                (t, bary, if outside { (p - q) / dist } else { n })
            }
        };
        let mut ids = [self.corners[self.triangles[t][0] as usize].0[0]; SURFACE_PARTICLES];
        let mut weights = [0.0; SURFACE_PARTICLES];
        let mut used = 0;
        for (k, &corner) in self.triangles[t].iter().enumerate() {
            let (cids, cw) = &self.corners[corner as usize];
            for m in 0..4 {
                let wt = bary[k] * cw[m];
                if wt == 0.0 {
                    continue;
                }
                match ids[..used].iter().position(|&j| j == cids[m]) {
                    Some(j) => weights[j] += wt,
                    None => {
                        ids[used] = cids[m];
                        weights[used] = wt;
                        used += 1;
                    }
                }
            }
        }
        Some(SurfaceHit {
            ids,
            weights,
            normal,
        })
    }

    /// The outward unit normal of triangle `t` at the predicted positions, `None` when it is
    /// degenerate.
    fn normal(&self, t: usize) -> Option<Vec3> {
        let [a, b, c] = self.corners_at(t, &self.at_p);
        (b - a).cross(&(c - a)).try_normalize(Real::EPSILON)
    }

    /// The point of barycentric coordinates `bary` in triangle `t` at the predicted positions.
    fn point(&self, t: usize, bary: [Real; 3]) -> Vec3 {
        let [a, b, c] = self.corners_at(t, &self.at_p);
        a * bary[0] + b * bary[1] + c * bary[2]
    }
}

/// Fills `out` with the corners at the world positions `x`, m: skinned, or the particles
/// themselves when not `skinned`.
fn skin(corners: &[([u32; 4], [Real; 4])], skinned: bool, x: &[Vec3], out: &mut Vec<Vec3>) {
    out.clear();
    if !skinned {
        let start = corners.first().map_or(0, |c| c.0[0] as usize);
        out.extend_from_slice(&x[start..start + corners.len()]);
        return;
    }
    out.extend(corners.iter().map(|(ids, w)| {
        x[ids[0] as usize] * w[0]
            + x[ids[1] as usize] * w[1]
            + x[ids[2] as usize] * w[2]
            + x[ids[3] as usize] * w[3]
    }));
}

/// Barycentric coordinates of the projection of `q` on the plane of triangle `abc`, or `None`
/// for a degenerate triangle.
fn barycentric(q: Vec3, a: Vec3, b: Vec3, c: Vec3) -> Option<[Real; 3]> {
    let (ab, ac, aq) = (b - a, c - a, q - a);
    let (d00, d01, d11) = (ab.dot(&ab), ab.dot(&ac), ac.dot(&ac));
    let (d20, d21) = (aq.dot(&ab), aq.dot(&ac));
    let denom = d00 * d11 - d01 * d01;
    if denom <= Real::EPSILON * d00 * d11 {
        return None;
    }
    let v = (d11 * d20 - d01 * d21) / denom;
    let w = (d00 * d21 - d01 * d20) / denom;
    Some([1.0 - v - w, v, w])
}

/// The surfaces of a world's cloths and soft bodies, added as the bodies are.
#[derive(Clone, Debug, Default)]
pub struct BodySurfaces {
    /// One per cloth or soft body with triangles.
    pub surfaces: Vec<BodySurface>,
    /// Bodies looked at so far.
    bodies_seen: usize,
}

impl BodySurfaces {
    /// Adds the surfaces of the bodies added since the last call, at the positions `x`.
    pub fn add_new(&mut self, bodies: &[Body], x: &[Vec3]) {
        for (i, body) in bodies.iter().enumerate().skip(self.bodies_seen) {
            self.surfaces.extend(BodySurface::of(body, i as u32, x));
        }
        self.bodies_seen = bodies.len();
    }

    /// Builds the surface of body number `index` again, after its triangles changed.
    pub fn rebuild(&mut self, bodies: &[Body], index: usize, x: &[Vec3]) {
        if let Some(s) = self.surfaces.iter_mut().find(|s| s.body as usize == index) {
            *s = BodySurface::of(&bodies[index], index as u32, x).expect("a cloth surface");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate::cube;
    use crate::solver::{LANES as LANE, simd::gather_vec3};
    use crate::world::World;
    use crate::{SoftBodyDesc, params::SolverParams};

    /// A surface soft body: the unit cube's particles are its corners.
    fn cube_surface() -> (World, BodySurface) {
        let mut world = World::new(SolverParams::default()).unwrap();
        let mut desc = SoftBodyDesc::new(cube(), 1.0);
        desc.material.model = crate::bodies::soft_body::SoftModel::Surface;
        world.add_soft_body(&desc).unwrap();
        let mut s = BodySurface::of(&world.bodies[0], 0, &world.particles.x).unwrap();
        s.update(&world.particles);
        (world, s)
    }

    #[test]
    fn a_particle_above_a_face_gets_that_face_and_its_normal() {
        let (world, s) = cube_surface();
        let (lo, hi) = s.bounding_box().unwrap();
        let top = Vec3::new(0.5 * (lo.x + hi.x) + 0.1, hi.y + 0.01, 0.5 * (lo.z + hi.z));
        let hit = s.touch(top, top, 0.05).unwrap();
        assert!((hit.normal - Vec3::y()).norm() < 1e-5, "{}", hit.normal);
        let point: Vec3 = (0..SURFACE_PARTICLES)
            .map(|j| world.particles.x[hit.ids[j] as usize] * hit.weights[j])
            .sum();
        assert!(
            (point - Vec3::new(top.x, hi.y, top.z)).norm() < 1e-5,
            "{point}"
        );
        assert!((hit.weights.iter().sum::<Real>() - 1.0).abs() < 1e-6);
        // Too far: no touch.
        assert_eq!(s.touch(top + Vec3::y(), top + Vec3::y(), 0.05), None);
    }

    #[test]
    fn a_refit_boxes_every_triangle_at_its_start_and_predicted_corners() {
        let (mut world, mut s) = cube_surface();
        let ps = &mut world.particles;
        let shifts = crate::collision::scattered(ps.len(), 0.3, 11);
        ps.p = ps.x.iter().zip(&shifts).map(|(x, d)| x + d).collect();
        s.update(ps);
        let inside = |v: &Vec3, n: &Node| (0..3).all(|a| n.lo[a] <= v[a] && v[a] <= n.hi[a]);
        let mut leaves = 0;
        for n in &s.nodes {
            let first = n.first as usize;
            if n.count == 0 {
                let (a, b) = (&s.nodes[first], &s.nodes[first + 1]);
                assert!([a.lo, a.hi, b.lo, b.hi].iter().all(|v| inside(v, n)));
                continue;
            }
            leaves += 1;
            for &t in &s.order[first..first + n.count as usize] {
                for c in s.triangles[t as usize] {
                    let c = s.corners[c as usize].0[0] as usize;
                    assert!(inside(&ps.x[c], n) && inside(&ps.p[c], n), "corner {c}");
                }
            }
        }
        assert!(leaves >= 3, "{leaves} leaves");
    }

    #[test]
    fn the_eight_lane_walk_leaves_out_only_particles_that_touch_nothing() {
        let mut world = World::new(SolverParams::default()).unwrap();
        let mut desc = SoftBodyDesc::new(crate::mesh::generate::lumpy(), 1.0);
        desc.material.model = crate::bodies::soft_body::SoftModel::Surface;
        world.add_soft_body(&desc).unwrap();
        let mut s = BodySurface::of(&world.bodies[0], 0, &world.particles.x).unwrap();
        s.update(&world.particles);
        // Points around the blob (0.9 m tall, 1.3 m long), moving by up to 20 cm.
        let starts: Vec<Vec3> = crate::collision::scattered(4096, 0.8, 3)
            .iter()
            .map(|x| x + Vec3::new(0.0, 0.45, 0.0))
            .collect();
        let steps = crate::collision::scattered(4096, 0.2, 5);
        let (mut left_out, mut touching) = (0, 0);
        for (k, (x, dp)) in starts.chunks(LANE).zip(steps.chunks(LANE)).enumerate() {
            let p: Vec<Vec3> = x.iter().zip(dp).map(|(x, dp)| x + dp).collect();
            let reach = 0.02 * (k % 8) as Real;
            let lanes = |v: &[Vec3]| gather_vec3(v, &std::array::from_fn(|l| l));
            let may = s.may_touch_x8((lanes(x), lanes(&p)), f32x8::splat(reach), 0xff);
            for l in 0..LANE {
                let touch = s.touch(x[l], p[l], reach);
                touching += usize::from(touch.is_some());
                if may >> l & 1 == 0 {
                    assert_eq!(touch, None, "{} -> {}", x[l], p[l]);
                    left_out += 1;
                }
            }
        }
        // Not vacuous: many lanes touch, and most of those that do not are left out.
        assert!(touching > 200, "{touching} touch");
        assert!(left_out > (4096 - touching) / 2, "{left_out} left out");
        // A lane that is not finite, or not active, is never left out, or always.
        let mut x = starts[..LANE].to_vec();
        x[3].y = Real::NAN;
        let lanes = |v: &[Vec3]| gather_vec3(v, &std::array::from_fn(|l| l));
        let far = x.iter().map(|x| x + Vec3::repeat(10.0)).collect::<Vec<_>>();
        let may = s.may_touch_x8((lanes(&far), lanes(&x)), f32x8::splat(0.01), 0b0111_1111);
        assert_eq!(may & 0b1000, 0b1000);
        assert_eq!(may & 0x80, 0);
    }

    #[test]
    fn a_path_through_the_body_is_caught_at_the_face_it_entered() {
        let (_, s) = cube_surface();
        let (lo, hi) = s.bounding_box().unwrap();
        let mid = (lo + hi) * 0.5;
        // From 10 cm above the top to 10 cm below the bottom in one substep: it ends far from
        // every face, but it crossed the top first.
        let x = Vec3::new(mid.x, hi.y + 0.1, mid.z);
        let p = Vec3::new(mid.x, lo.y - 0.1, mid.z);
        let hit = s.touch(x, p, 0.01).unwrap();
        assert!((hit.normal - Vec3::y()).norm() < 1e-5, "{}", hit.normal);
        // And the other way round: the bottom face.
        let hit = s.touch(p, x, 0.01).unwrap();
        assert!((hit.normal + Vec3::y()).norm() < 1e-5, "{}", hit.normal);
    }
}
