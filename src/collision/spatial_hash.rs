//! A dense spatial hash for particle neighbour queries, rebuilt from scratch at every search of
//! candidate pairs ([`ParticlePairs`](super::ParticlePairs)).
//!
//! Space is cut into cubic cells of side `spacing`; cell `(i, j, k)` hashes into a table of
//! `2 n` buckets with `(92837111 i) ⊕ (689287499 j) ⊕ (283923481 k) mod 2n` (Teschner et al. 2003,
//! "Optimized Spatial Hashing for Collision Detection of Deformable Objects"). The table is
//! filled by a counting sort into two flat arrays, as in Müller's "Ten Minute Physics" tutorial
//! 11 ("Finding overlaps among thousands of objects"): `cell_start[b]..cell_start[b + 1]` is the
//! range of `entries` holding the particles of bucket `b`. Building costs O(n) and no allocation
//! once the arrays have grown; there is no list per cell.

use crate::math::{Real, Vec3};
use wide::f32x4;

/// The hash grid over a set of points.
#[derive(Clone, Debug, Default)]
pub struct SpatialHash {
    /// Cell side, m.
    spacing: Real,
    /// Bucket `b` holds `entries[cell_start[b]..cell_start[b + 1]]`; one more than the buckets.
    cell_start: Vec<u32>,
    /// Point indices, grouped by bucket.
    entries: Vec<u32>,
    /// The x, y and z of the points in the order of `entries`, m, then [`CHUNK`] − 1 zeros: a
    /// query reads its candidates' coordinates from consecutive memory instead of gathering them
    /// by index (Müller, "Ten Minute Physics" 11, sorts the particles by cell for the same
    /// reason), [`CHUNK`] at a time.
    sorted: [Vec<Real>; 3],
    /// Bucket of every point, from the last build.
    bucket_of: Vec<u32>,
    /// `⌊(2⁶⁴ − 1) / buckets⌋ + 1`: `h mod buckets` by two multiplications instead of a
    /// division (Lemire, Kaser and Kurz 2019, "Faster Remainder by Direct Computation"), exact
    /// for every 32-bit `h`; a query reduces up to 27 cell hashes.
    fastmod: u64,
    /// Per bucket, the first of its entries at or above the last query's `from` (see
    /// [`for_each_near`](Self::for_each_near)): the sweep of queries only moves it forward.
    cursor: Vec<u32>,
    /// The cells (lowest and highest corner) of the last query: the next query over the same
    /// cells, often its neighbour in the grid's order, reuses their buckets in `near`.
    last_cells: Option<([i32; 3], [i32; 3])>,
    /// The buckets of `last_cells`, each once.
    near: Vec<usize>,
    /// The last query's `from`.
    last_from: u32,
}

/// How many candidates of a bucket a query tests at once, as one SIMD vector per coordinate.
const CHUNK: usize = 4;

/// The hash's primes for the x, y and z cell coordinates (Teschner et al. 2003, sec. 4.1).
const PRIMES: [i32; 3] = [92_837_111, 689_287_499, 283_923_481];

impl SpatialHash {
    /// Rebuilds the grid over `points` with cells of side `spacing` m (> 0), skipping the points
    /// for which `include` is false.
    pub fn build(&mut self, points: &[Vec3], spacing: Real, include: impl Fn(usize) -> bool) {
        self.spacing = spacing;
        let buckets = 2 * points.len().max(1);
        self.fastmod = u64::MAX / buckets as u64 + 1;
        self.cell_start.clear();
        self.cell_start.resize(buckets + 1, 0);
        self.bucket_of.clear();
        for (i, p) in points.iter().enumerate() {
            let b = if include(i) {
                self.bucket(self.cell(p))
            } else {
                buckets
            };
            self.bucket_of.push(b as u32);
            self.cell_start[b] += 1;
        }
        // Exclusive prefix sum, then place every point at the end of its bucket's range, walking
        // backwards so that each bucket lists its points in increasing index order.
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
            let b = self.bucket_of[i] as usize;
            self.cell_start[b] -= 1;
            self.entries[self.cell_start[b] as usize] = i as u32;
            for (coords, x) in self.sorted.iter_mut().zip(points[i].iter()) {
                coords[self.cell_start[b] as usize] = *x;
            }
        }
        // The excluded points sit in the extra last bucket, which no query reaches.
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.cell_start[..buckets]);
        self.last_cells = None;
        self.last_from = 0;
    }

    /// Calls `f(j, x_j)` once for every point `j ≥ from` within `reach` m of `p`, at `x_j` as
    /// given to [`build`](Self::build): `|x_j − p|² < reach²`, the square summed as
    /// `(dx² + dy²) + dz²` (as nalgebra's `norm_squared`). The candidates are the points of the
    /// cells that overlap the cube of half side `reach` around `p`, tested four at a time;
    /// buckets that several of those cells share are visited once, each in increasing order of
    /// `j`. `reach` must not exceed the spacing, so that the cube overlaps at most 3 × 3 × 3
    /// cells.
    ///
    /// The queries after a build are a sweep: `from` never decreases from one to the next (a
    /// search of pairs `i < j` asks for `j ≥ i + 1` in increasing `i`). Each bucket keeps a cursor
    /// at its first entry at or above the last `from`, so a query skips the entries below by
    /// moving the cursor forward instead of searching for them, and the sweep passes each entry
    /// once.
    pub fn for_each_near(
        &mut self,
        p: &Vec3,
        reach: Real,
        from: u32,
        mut f: impl FnMut(u32, &Vec3),
    ) {
        debug_assert!(
            reach <= self.spacing,
            "reach {reach} > spacing {}",
            self.spacing
        );
        assert!(
            from >= self.last_from,
            "the queries after a build sweep upward: from {from} after {}",
            self.last_from
        );
        self.last_from = from;
        // Within one cell of `p`'s own: rounding could otherwise widen the range to 4 cells.
        let c = self.cell(p);
        let lo = self.cell(&p.add_scalar(-reach));
        let hi = self.cell(&p.add_scalar(reach));
        let lo = [0, 1, 2].map(|a| lo[a].max(c[a] - 1));
        let hi = [0, 1, 2].map(|a| hi[a].min(c[a] + 1));
        if self.last_cells != Some((lo, hi)) {
            self.last_cells = Some((lo, hi));
            let mut near = std::mem::take(&mut self.near);
            near.clear();
            for i in lo[0]..=hi[0] {
                let h_i = i.wrapping_mul(PRIMES[0]);
                for j in lo[1]..=hi[1] {
                    let h_ij = h_i ^ j.wrapping_mul(PRIMES[1]);
                    for k in lo[2]..=hi[2] {
                        let b = self.reduce(h_ij ^ k.wrapping_mul(PRIMES[2]));
                        if !near.contains(&b) {
                            near.push(b);
                        }
                    }
                }
            }
            self.near = near;
        }
        let [xs, ys, zs] = &self.sorted;
        let (px, py, pz) = (f32x4::splat(p.x), f32x4::splat(p.y), f32x4::splat(p.z));
        let reach2 = f32x4::splat(reach * reach);
        let chunk = |v: &[Real], i: usize| f32x4::new(v[i..i + CHUNK].try_into().unwrap());
        for &b in &self.near {
            let end = self.cell_start[b + 1] as usize;
            let mut first = self.cursor[b] as usize;
            while first < end && self.entries[first] < from {
                first += 1;
            }
            self.cursor[b] = first as u32;
            for i in (first..end).step_by(CHUNK) {
                let (dx, dy, dz) = (chunk(xs, i) - px, chunk(ys, i) - py, chunk(zs, i) - pz);
                let d2 = dx * dx + dy * dy + dz * dz;
                // The lanes past the bucket's end (the next bucket's points, or padding) are off.
                let mut near = d2.simd_lt(reach2).to_bitmask() & ((1 << (end - i).min(CHUNK)) - 1);
                while near != 0 {
                    let k = i + near.trailing_zeros() as usize;
                    f(self.entries[k], &Vec3::new(xs[k], ys[k], zs[k]));
                    near &= near - 1;
                }
            }
        }
    }

    /// Integer coordinates of the cell holding `p`.
    fn cell(&self, p: &Vec3) -> [i32; 3] {
        [0, 1, 2].map(|a| (p[a] / self.spacing).floor() as i32)
    }

    /// Bucket of cell `c` (Teschner et al. 2003, sec. 4.1).
    fn bucket(&self, c: [i32; 3]) -> usize {
        self.reduce(
            c[0].wrapping_mul(PRIMES[0])
                ^ c[1].wrapping_mul(PRIMES[1])
                ^ c[2].wrapping_mul(PRIMES[2]),
        )
    }

    /// `|h| mod buckets`, the bucket of a cell of hash `h`.
    fn reduce(&self, h: i32) -> usize {
        let buckets = (self.cell_start.len() - 1) as u128;
        let low = self.fastmod.wrapping_mul(h.unsigned_abs() as u64);
        ((low as u128 * buckets) >> 64) as usize
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

    /// Builds the hash over 500 random points and queries each point `i` in turn with
    /// `from(i)`: every point `j >= from(i)` within reach is found once, at its position, and
    /// no other, as brute force finds them.
    fn check_sweep(from: impl Fn(usize) -> u32) {
        let xs = points(500, 1.0);
        let reach = 0.08;
        let mut hash = SpatialHash::default();
        hash.build(&xs, reach, |_| true);
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
        check_sweep(|_| 0);
    }

    #[test]
    fn a_sweep_of_queries_finds_each_later_neighbour_once() {
        check_sweep(|i| i as u32 + 1);
    }

    #[test]
    fn the_remainder_by_multiplication_is_the_remainder() {
        let mut hash = SpatialHash::default();
        for n in [1, 2, 3, 500, 1024, 4097, 100_000] {
            hash.build(&points(n, 1.0), 0.1, |_| true);
            for h in [
                0,
                1,
                -1,
                7,
                -12_345,
                2 * n as i32 - 1,
                2 * n as i32,
                i32::MAX,
                i32::MIN,
            ] {
                let expected = h.unsigned_abs() as usize % (2 * n);
                assert_eq!(hash.reduce(h), expected, "{h} mod {}", 2 * n);
            }
        }
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
