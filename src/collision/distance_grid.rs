//! A signed-distance grid: the mesh collider's signed distance sampled at the nodes of a
//! regular grid in the mesh's frame and interpolated trilinearly, so that a query costs eight
//! loads instead of a walk down the hierarchy of triangles.
//!
//! Near the surface (within the band, [`BAND_CELLS`] cells) a node holds the exact signed
//! distance to its closest triangle, signed by that triangle's pseudo-normal test as in
//! [`MeshShape`](super::MeshShape); farther out it holds `±band`, the sign found by a flood fill
//! from the grid's boundary (which is outside) through the far nodes: far nodes that the fill
//! cannot reach are enclosed by the surface, i.e. inside. The closest triangle of each band node
//! is found by closest-point propagation (Mauch 2003, "Efficient algorithms for solving static
//! Hamilton-Jacobi equations", ch. 4; as in Bridson's `makelevelset3`): exact distances to the
//! nodes around each triangle, then each node hands its closest triangle on to its six
//! neighbours, breadth first, while that brings them closer, out to the band's edge. Building
//! costs O(triangles + nodes in the band), not a hierarchy query per node.
//!
//! Interpolating the distance `φ` trilinearly errs by at most `(3/8) K h²` where `K` bounds the
//! second derivatives of `φ` over the cell: 0 beside a flat face, `1/φ` around a convex edge or
//! corner (the level sets are cylinders and spheres there). Inside a thin part, or in a concave
//! crease, the cell can straddle a kink of `φ` (the medial axis) and the error is of order `h`.

use super::mesh::closest_on_triangle;
use crate::math::{LaneVec, Lanes, Real, Vec3};
use std::collections::VecDeque;
use wide::{f32x8, i32x8};

/// Width of the band of exact node values, in cells.
pub const BAND_CELLS: Real = 5.0;

/// A trilinear grid of clamped signed distances, m.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DistanceGrid {
    /// Position of node `(0, 0, 0)`, m.
    origin: Vec3,
    /// Node spacing `h`, m.
    spacing: Real,
    /// `1 / h`, 1/m.
    inv_spacing: Real,
    /// Nodes along x, y and z.
    dims: [usize; 3],
    /// The signed distances at the eight corners of every cell (x fastest, then y, then z;
    /// cells likewise), in units of [`QUANTUM`] `· band`: one 16-byte load per query.
    cells: Vec<[i16; 8]>,
    /// Half-width of the band of exact values, m: `BAND_CELLS · h`.
    band: Real,
}

/// The step of the stored distances, as a fraction of the band: `band / 32767` (1.5 µm for a
/// 5 cm band), far below the interpolation error.
const QUANTUM: Real = 1.0 / i16::MAX as Real;

impl DistanceGrid {
    /// Samples the surface of the triangles `corners` (m) at spacing `spacing` m over their
    /// bounds `lo..hi` grown by the band and one cell. `sign(t, x)` is `−1` when `x` is behind
    /// the feature of triangle `t` closest to it (inside), `+1` otherwise.
    pub fn build(
        (lo, hi): (Vec3, Vec3),
        spacing: Real,
        corners: &[[Vec3; 3]],
        sign: impl Fn(usize, Vec3) -> Real,
    ) -> Self {
        let distance2 = |t: usize, x: Vec3| {
            let [a, b, c] = corners[t];
            (x - closest_on_triangle(x, a, b, c).0).norm_squared()
        };
        let band = BAND_CELLS * spacing;
        let origin = lo.add_scalar(-(band + spacing));
        let dims =
            [0, 1, 2].map(|a| ((hi[a] - origin[a] + band + spacing) / spacing).ceil() as usize + 1);
        let mut grid = DistanceGrid {
            origin,
            spacing,
            inv_spacing: 1.0 / spacing,
            dims,
            cells: Vec::new(),
            band,
        };
        let n = dims[0] * dims[1] * dims[2];
        let mut best = vec![Real::INFINITY; n];
        let mut closest = vec![u32::MAX; n];
        let mut queued = vec![false; n];
        let mut queue = VecDeque::new();
        // Seeds: the corners of the cells that each triangle's bounds overlap.
        for (t, [a, b, c]) in corners.iter().enumerate() {
            let first = grid.cell_of(a.inf(b).inf(c));
            let last = grid.cell_of(a.sup(b).sup(c)).map(|c| c + 1);
            for k in first[2]..=last[2].min(dims[2] - 1) {
                for j in first[1]..=last[1].min(dims[1] - 1) {
                    for i in first[0]..=last[0].min(dims[0] - 1) {
                        let node = grid.index([i, j, k]);
                        let d2 = distance2(t, grid.position([i, j, k]));
                        if d2 < best[node] {
                            best[node] = d2;
                            closest[node] = t as u32;
                            if !queued[node] {
                                queued[node] = true;
                                queue.push_back(node);
                            }
                        }
                    }
                }
            }
        }
        // Propagation: a node's closest triangle is offered to its neighbours within the band.
        let reach2 = (band + spacing).powi(2);
        while let Some(node) = queue.pop_front() {
            queued[node] = false;
            let t = closest[node] as usize;
            for next in grid.neighbours(node) {
                if closest[next] == t as u32 {
                    continue;
                }
                let d2 = distance2(t, grid.position(grid.coords(next)));
                if d2 < best[next] && d2 < reach2 {
                    best[next] = d2;
                    closest[next] = t as u32;
                    if !queued[next] {
                        queued[next] = true;
                        queue.push_back(next);
                    }
                }
            }
        }
        // Band nodes: the signed distance; far nodes: +band where the fill from the boundary
        // reaches them through far nodes, −band elsewhere.
        let mut outside = vec![false; n];
        let far = |node: usize| closest[node] == u32::MAX;
        let mut fill: Vec<usize> = (0..n).filter(|&node| grid.on_boundary(node)).collect();
        fill.iter().for_each(|&node| outside[node] = true);
        while let Some(node) = fill.pop() {
            for next in grid.neighbours(node) {
                if far(next) && !outside[next] {
                    outside[next] = true;
                    fill.push(next);
                }
            }
        }
        let values: Vec<i16> = (0..n)
            .map(|node| {
                let d = if far(node) {
                    if outside[node] { band } else { -band }
                } else {
                    let x = grid.position(grid.coords(node));
                    (sign(closest[node] as usize, x) * best[node].sqrt()).clamp(-band, band)
                };
                (d / (band * QUANTUM)).round() as i16
            })
            .collect();
        let [sx, sy, sz] = [1, dims[0], dims[0] * dims[1]];
        for k in 0..dims[2] - 1 {
            for j in 0..dims[1] - 1 {
                for i in 0..dims[0] - 1 {
                    let base = grid.index([i, j, k]);
                    grid.cells.push(
                        [0, sx, sy, sx + sy, sz, sz + sx, sz + sy, sz + sy + sx]
                            .map(|o| values[base + o]),
                    );
                }
            }
        }
        grid
    }

    /// Half-width of the band of exact node values, m.
    pub fn band(&self) -> Real {
        self.band
    }

    /// Node spacing, m.
    pub fn spacing(&self) -> Real {
        self.spacing
    }

    /// The interpolated signed distance at `p` (m, clamped to `±band`) and its gradient, or
    /// `None` when `p` is outside the grid (then it is outside the mesh, farther than the band).
    pub fn sample(&self, p: Vec3) -> Option<(Real, Vec3)> {
        let (v, f) = self.cell_at(p)?;
        let (d, grad) = self.interpolate(v, LaneVec::from(f));
        Some((d, grad.into()))
    }

    /// The distances at the eight corners of the cell holding `p` (m; x fastest, then y, then
    /// z) and where `p` lies in it (each coordinate in `[0, 1)`), or `None` outside the grid.
    #[inline(always)]
    pub fn cell_at(&self, p: Vec3) -> Option<([Real; 8], Vec3)> {
        let q = (p - self.origin) * self.inv_spacing;
        let cells = [0, 1, 2].map(|a| self.dims[a] - 1);
        // Truncation is the floor for q ≥ 0 (and NaN fails the test).
        if (0..3).any(|a| !(q[a] >= 0.0 && q[a] < cells[a] as Real)) {
            return None;
        }
        let c = [0, 1, 2].map(|a| q[a] as usize);
        let f = q - Vec3::new(c[0] as Real, c[1] as Real, c[2] as Real);
        let corners = self.cells[c[0] + cells[0] * (c[1] + cells[1] * c[2])];
        Some((corners.map(|v| v as Real * (self.band * QUANTUM)), f))
    }

    /// [`cell_at`](Self::cell_at) at eight points `p` (m), lane by lane with the same bits:
    /// the lanes inside the grid (all bits set), the corner distances and where each point lies
    /// in its cell (zeros in a lane outside).
    #[inline(always)]
    pub fn cell_at_x8(&self, p: LaneVec<f32x8>) -> (f32x8, [f32x8; 8], LaneVec<f32x8>) {
        let q = (p - LaneVec::splat(self.origin)) * f32x8::splat(self.inv_spacing);
        let cells = [0, 1, 2].map(|a| self.dims[a] - 1);
        let within =
            |a: usize| q.0[a].simd_ge(f32x8::ZERO) & q.0[a].simd_lt(f32x8::splat(cells[a] as Real));
        let inside = within(0) & within(1) & within(2);
        let c = q.0.map(|q| (q & inside).trunc_int());
        let f = LaneVec([0, 1, 2].map(|a| (q.0[a] - c[a].round_float()) & inside));
        let index =
            c[0] + i32x8::splat(cells[0] as i32) * (c[1] + i32x8::splat(cells[1] as i32) * c[2]);
        let (bits, index) = (inside.to_bitmask(), index.to_array());
        let rows: [[i16; 8]; 8] = std::array::from_fn(|k| match bits >> k & 1 {
            1 => self.cells[index[k] as usize],
            _ => [0; 8],
        });
        let unit = f32x8::splat(self.band * QUANTUM);
        let corners = std::array::from_fn(|c| f32x8::new(rows.map(|r| r[c] as Real)) * unit);
        (inside, corners, f)
    }

    /// The trilinear interpolation of the corner distances `v` ([`cell_at`](Self::cell_at)) at
    /// `f` in the cell, and its gradient: at one point, or lane by lane with the same bits.
    #[inline(always)]
    pub fn interpolate<T: Lanes>(&self, v: [T; 8], f: LaneVec<T>) -> (T, LaneVec<T>) {
        let [fx, fy, fz] = f.0;
        // Along x first, then y, then z.
        let x00 = (v[0], v[1]);
        let x10 = (v[2], v[3]);
        let x01 = (v[4], v[5]);
        let x11 = (v[6], v[7]);
        let lerp = |(a, b): (T, T), t: T| a + (b - a) * t;
        let (y0, y1) = (
            (lerp(x00, fx), lerp(x10, fx)),
            (lerp(x01, fx), lerp(x11, fx)),
        );
        let value = lerp((lerp(y0, fy), lerp(y1, fy)), fz);
        let dx = lerp(
            (
                lerp((x00.1 - x00.0, x10.1 - x10.0), fy),
                lerp((x01.1 - x01.0, x11.1 - x11.0), fy),
            ),
            fz,
        );
        let dy = lerp((y0.1 - y0.0, y1.1 - y1.0), fz);
        let dz = lerp(y1, fy) - lerp(y0, fy);
        (value, LaneVec([dx, dy, dz]) * T::splat(self.inv_spacing))
    }

    /// Integer coordinates of the cell holding `p`, clamped to the grid.
    fn cell_of(&self, p: Vec3) -> [usize; 3] {
        [0, 1, 2].map(|a| {
            (((p[a] - self.origin[a]) / self.spacing).floor().max(0.0) as usize)
                .min(self.dims[a] - 1)
        })
    }

    /// Position of node `c`, m.
    fn position(&self, c: [usize; 3]) -> Vec3 {
        self.origin + Vec3::new(c[0] as Real, c[1] as Real, c[2] as Real) * self.spacing
    }

    /// Index of node `c`, x fastest then y.
    fn index(&self, c: [usize; 3]) -> usize {
        c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])
    }

    /// Coordinates of node `node`.
    fn coords(&self, node: usize) -> [usize; 3] {
        let (nx, ny) = (self.dims[0], self.dims[1]);
        [node % nx, (node / nx) % ny, node / (nx * ny)]
    }

    /// True when `node` lies on a face of the grid.
    fn on_boundary(&self, node: usize) -> bool {
        let c = self.coords(node);
        (0..3).any(|a| c[a] == 0 || c[a] + 1 == self.dims[a])
    }

    /// The (up to six) nodes next to `node` along the axes.
    fn neighbours(&self, node: usize) -> impl Iterator<Item = usize> + use<> {
        let c = self.coords(node);
        let dims = self.dims;
        let strides = [1, dims[0], dims[0] * dims[1]];
        (0..3).flat_map(move |a| {
            let down = (c[a] > 0).then(|| node - strides[a]);
            let up = (c[a] + 1 < dims[a]).then(|| node + strides[a]);
            down.into_iter().chain(up)
        })
    }
}
