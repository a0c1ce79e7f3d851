//! A spatial hash for particle neighbour queries, rebuilt from scratch at every search of
//! candidate pairs ([`ParticlePairs`](super::ParticlePairs)), whose hash is the cell's index
//! in a dense grid over the box around the points.
//!
//! Space is cut into cubic cells of side `spacing`, numbered x fastest, then y, then z, over the
//! box around the points; a point outside the box (none, as built) is counted in the nearest
//! cell on the box's boundary, which keeps two points within one cell of each other so. The
//! grid is filled by a counting sort into two flat arrays, as in Müller's "Ten Minute Physics"
//! tutorial 11 ("Finding overlaps among thousands of objects"): `cell_start[c]..cell_start[c +
//! 1]` is the range of `entries` holding the points of cell `c`. Three cells side by side along x
//! are one range, so a query reads at most 9 ranges for its 27 cells, with no hash to reduce and
//! no cell visited twice (Teschner et al. 2003's hash of the cell, "Optimized Spatial Hashing for
//! Collision Detection of Deformable Objects", needs both). Building costs O(n) and no
//! allocation once the arrays have grown; there is no list per cell.

use crate::math::{Real, Vec3};
use wide::f32x4;

/// The grid over a set of points.
#[derive(Clone, Debug, Default)]
pub struct SpatialHash {
    /// Cell side, m: at least the spacing asked for.
    spacing: Real,
    /// The lowest corner of cell `(0, 0, 0)`, m.
    origin: Vec3,
    /// Cells along x, y and z (each at least 1).
    dims: [usize; 3],
    /// Cell `c` holds `entries[cell_start[c]..cell_start[c + 1]]`; the excluded points follow
    /// in one more range, which no query reaches.
    cell_start: Vec<u32>,
    /// Point indices, grouped by cell, each cell in increasing order.
    entries: Vec<u32>,
    /// The x, y and z of the points in the order of `entries`, m, then [`CHUNK`] − 1 zeros: a
    /// query reads its candidates' coordinates from consecutive memory instead of gathering them
    /// by index (Müller, "Ten Minute Physics" 11, sorts the particles by cell for the same
    /// reason), [`CHUNK`] at a time.
    sorted: [Vec<Real>; 3],
    /// Cell of every point, from the last build.
    cell_of: Vec<u32>,
}

/// How many candidates a query tests at once, as one SIMD vector per coordinate.
const CHUNK: usize = 4;

/// Most cells per point: a box too large for that many cells of the spacing asked for (points
/// far apart) is cut into cells twice as wide, as often as needed.
const CELLS_PER_POINT: usize = 4;

impl SpatialHash {
    /// Rebuilds the grid over `points` with cells of side at least `spacing` m (> 0), skipping
    /// the points for which `include` is false.
    pub fn build(&mut self, points: &[Vec3], spacing: Real, include: impl Fn(usize) -> bool) {
        let (mut lo, mut hi) = (Vec3::repeat(Real::MAX), Vec3::repeat(Real::MIN));
        for p in (0..points.len())
            .filter(|&i| include(i))
            .map(|i| &points[i])
        {
            (lo, hi) = (lo.inf(p), hi.sup(p));
        }
        if lo.x > hi.x {
            (lo, hi) = (Vec3::zeros(), Vec3::zeros());
        }
        self.origin = lo;
        self.spacing = spacing;
        let most = CELLS_PER_POINT * points.len().max(1);
        loop {
            // Saturating casts: a box too wide for `i32` cells doubles the spacing below.
            self.dims = [0, 1, 2].map(|a| ((hi[a] - lo[a]) / self.spacing) as u32 as usize + 1);
            let cells = self.dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
            if cells.is_some_and(|n| n <= most) {
                break;
            }
            self.spacing *= 2.0;
        }
        let cells = self.dims.iter().product::<usize>();
        self.cell_start.clear();
        self.cell_start.resize(cells + 2, 0);
        self.cell_of.clear();
        for (i, p) in points.iter().enumerate() {
            let c = if include(i) {
                self.index(self.cell(p))
            } else {
                cells
            };
            self.cell_of.push(c as u32);
            self.cell_start[c] += 1;
        }
        // Inclusive prefix sum, then place every point at the end of its cell's range, walking
        // backwards so that each cell lists its points in increasing index order.
        let mut sum = 0;
        for count in &mut self.cell_start {
            sum += *count;
            *count = sum;
        }
        self.entries.clear();
        self.entries.resize(sum as usize, 0);
        for coords in &mut self.sorted {
            coords.clear();
            coords.resize(sum as usize + CHUNK - 1, 0.0);
        }
        for i in (0..points.len()).rev() {
            let c = self.cell_of[i] as usize;
            self.cell_start[c] -= 1;
            let k = self.cell_start[c] as usize;
            self.entries[k] = i as u32;
            for (coords, x) in self.sorted.iter_mut().zip(points[i].iter()) {
                coords[k] = *x;
            }
        }
    }

    /// Calls `f(j, x_j)` once for every point `j ≥ from` within `reach` m of `p`, at `x_j` as
    /// given to [`build`](Self::build): `|x_j − p|² < reach²`, the square summed as
    /// `(dx² + dy²) + dz²` (as nalgebra's `norm_squared`). The candidates are the points of the
    /// cells that overlap the cube of half side `reach` around `p`, at most 3 × 3 × 3 as `reach`
    /// must not exceed the spacing asked for, tested four at a time, row by row along x, each
    /// cell in increasing order of `j`.
    pub fn for_each_near(&self, p: &Vec3, reach: Real, from: u32, mut f: impl FnMut(u32, &Vec3)) {
        debug_assert!(
            reach <= self.spacing,
            "reach {reach} > spacing {}",
            self.spacing
        );
        // Within one cell of `p`'s own: rounding could otherwise widen the range to 4 cells.
        let c = self.cell(p);
        let lo = self.cell(&p.add_scalar(-reach));
        let hi = self.cell(&p.add_scalar(reach));
        let lo = [0, 1, 2].map(|a| lo[a].max(c[a].saturating_sub(1)));
        let hi = [0, 1, 2].map(|a| hi[a].min(c[a] + 1));
        let [xs, ys, zs] = &self.sorted;
        let (px, py, pz) = (f32x4::splat(p.x), f32x4::splat(p.y), f32x4::splat(p.z));
        let reach2 = f32x4::splat(reach * reach);
        let chunk = |v: &[Real], i: usize| f32x4::new(v[i..i + CHUNK].try_into().unwrap());
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                let start = self.cell_start[self.index([lo[0], y, z])] as usize;
                let end = self.cell_start[self.index([hi[0], y, z]) + 1] as usize;
                for i in (start..end).step_by(CHUNK) {
                    let (dx, dy, dz) = (chunk(xs, i) - px, chunk(ys, i) - py, chunk(zs, i) - pz);
                    let d2 = dx * dx + dy * dy + dz * dz;
                    // The lanes past the row's end (the next cells' points, or padding) are off.
                    let mut near =
                        d2.simd_lt(reach2).to_bitmask() & ((1 << (end - i).min(CHUNK)) - 1);
                    while near != 0 {
                        let k = i + near.trailing_zeros() as usize;
                        if self.entries[k] >= from {
                            f(self.entries[k], &Vec3::new(xs[k], ys[k], zs[k]));
                        }
                        near &= near - 1;
                    }
                }
            }
        }
    }

    /// The cell holding `p`, or the nearest cell of the grid to it.
    fn cell(&self, p: &Vec3) -> [usize; 3] {
        // Saturating casts: below the origin (or NaN) is 0.
        [0, 1, 2].map(|a| (((p[a] - self.origin[a]) / self.spacing) as usize).min(self.dims[a] - 1))
    }

    /// The index of cell `c`: x fastest, then y, then z.
    fn index(&self, c: [usize; 3]) -> usize {
        c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random points in a cube of side `side`.
    fn points(n: usize, side: Real) -> Vec<Vec3> {
        let mut s = 12345u32;
        let mut next = || {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as Real / (1u32 << 24) as Real * side
        };
        (0..n).map(|_| Vec3::new(next(), next(), next())).collect()
    }

    /// Builds the grid over `xs` and queries each point `i` in turn with `from(i)`: every point
    /// `j >= from(i)` within reach is found once, at its position, and no other, as brute force
    /// finds them.
    fn check_queries(xs: &[Vec3], reach: Real, from: impl Fn(usize) -> u32) {
        let mut hash = SpatialHash::default();
        hash.build(xs, reach, |_| true);
        for (i, p) in xs.iter().enumerate() {
            let mut found = Vec::new();
            hash.for_each_near(p, reach, from(i), |j, x| {
                assert_eq!(*x, xs[j as usize]);
                found.push(j as usize);
            });
            let mut sorted = found.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(
                sorted.len(),
                found.len(),
                "point {i} visited a neighbour twice"
            );
            let brute: Vec<usize> = (from(i) as usize..xs.len())
                .filter(|&j| (xs[j] - p).norm_squared() < reach * reach)
                .collect();
            assert_eq!(sorted, brute, "neighbours of point {i}");
        }
    }

    #[test]
    fn finds_exactly_the_neighbours_brute_force_finds_each_once() {
        check_queries(&points(500, 1.0), 0.08, |_| 0);
    }

    #[test]
    fn queries_from_a_point_on_find_each_later_neighbour_once() {
        check_queries(&points(500, 1.0), 0.08, |i| i as u32 + 1);
    }

    #[test]
    fn points_far_apart_widen_the_cells_and_are_still_found() {
        // A cluster, and a few points 1 km away: the box would need 10¹⁵ cells of 8 cm.
        let mut xs = points(300, 0.5);
        xs.extend([1e3, -1e3].map(|x| Vec3::new(x, 0.2, x)));
        xs.push(Vec3::new(1e3, 0.21, 1e3));
        check_queries(&xs, 0.08, |i| i as u32 + 1);
        let mut hash = SpatialHash::default();
        hash.build(&xs, 0.08, |_| true);
        assert!(hash.dims.iter().product::<usize>() <= CELLS_PER_POINT * xs.len());
    }

    #[test]
    fn excluded_points_are_never_returned() {
        let xs = points(100, 0.1);
        let mut hash = SpatialHash::default();
        hash.build(&xs, 0.5, |i| i % 2 == 0);
        let mut found = Vec::new();
        hash.for_each_near(&xs[0], 0.5, 0, |j, _| found.push(j));
        found.sort_unstable();
        assert_eq!(found, (0..100).step_by(2).collect::<Vec<u32>>());
    }
}
