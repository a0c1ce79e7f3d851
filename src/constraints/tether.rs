//! Long-range attachments (tethers): each free particle of a body with `long_range` keeps within
//! its rest geodesic distance of its nearest pin (Kim, Chentanez and Müller 2012, "Long Range
//! Attachments - A Method to Simulate Inextensible Clothing in Computer Games", SCA 2012).
//!
//! The rest distances are measured once, when the body is built, along the body's edges
//! (Dijkstra from every pin at once, [`nearest_pins`]). A tether is unilateral: it acts only
//! when its particle is farther from the pin than the geodesic distance, which no inextensible
//! motion of the cloth can exceed, so it never fights the stretch constraints of a cloth at rest
//! length, and it carries the pin's support to every particle in one projection.
//!
//! Each particle has at most one tether, and no pin is a tethered particle, so the tethers of a
//! pass touch pairwise distinct particles: they are all one color, projected in parallel with a
//! result that depends on neither the thread count nor the solver method. They are projected
//! once per substep, after the last iteration of the other families (so they hold at the end of
//! every substep): on W at N = 128 with 10 x 10 that costs 2.5% more instructions and leaves a
//! largest strain of 108% (332% without tethers); projecting them after every iteration left
//! 87% for 21% more instructions (see the README).

use crate::math::{Real, Vec3};
use crate::solver::{Positions, Slot, Team};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Tethers, one entry per constraint in each field, in order of their particle.
#[derive(Clone, Debug, Default)]
pub struct TetherSet {
    /// The tethered particle (each at most once).
    pub ids: Vec<u32>,
    /// The pin it is tethered to (never a tethered particle).
    pub anchor: Vec<u32>,
    /// Rest geodesic distance from the pin, m.
    pub rest: Vec<Real>,
}

/// Projects one tether: `C(p) = |p − a| − d ≤ 0`, `∇C = (p − a) / |p − a|`; when `C > 0` the
/// particle moves by `−C ∇C` onto the sphere of radius `d` about its pin `a` (the pin has no
/// inverse mass, so the whole correction is the particle's, whatever its mass). Returns `None`
/// when the constraint holds or the particle is pinned (`w = 0`).
#[inline]
pub fn solve_tether(p: Vec3, w: Real, anchor: Vec3, d: Real) -> Option<Vec3> {
    let diff = p - anchor;
    let len = diff.norm();
    let c = len - d;
    (w > 0.0 && c > 0.0).then(|| -diff * (c / len))
}

/// For every vertex of a graph of `n` vertices with `edges` of lengths `lengths`, its nearest
/// vertex of `sources` along the edges and the distance to it, by Dijkstra's algorithm from all
/// sources at once (`None` where no source is reachable). Ties go to the vertex reached first in
/// the order (distance, vertex index), so the result is deterministic.
pub fn nearest_pins(
    n: usize,
    edges: &[[u32; 2]],
    lengths: &[Real],
    sources: &[usize],
) -> Vec<Option<(u32, Real)>> {
    let mut adjacent: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
    for (&[a, b], &l) in edges.iter().zip(lengths) {
        adjacent[a as usize].push((b, f64::from(l)));
        adjacent[b as usize].push((a, f64::from(l)));
    }
    let mut best: Vec<Option<(u32, f64)>> = vec![None; n];
    let mut heap = BinaryHeap::new();
    for &s in sources {
        if best[s].is_none() {
            best[s] = Some((s as u32, 0.0));
            heap.push(Reverse((Dist(0.0), s as u32)));
        }
    }
    while let Some(Reverse((Dist(d), v))) = heap.pop() {
        let (source, known) = best[v as usize].expect("a reached vertex");
        if d > known {
            continue;
        }
        for &(u, l) in &adjacent[v as usize] {
            let through = d + l;
            if best[u as usize].is_none_or(|(_, old)| through < old) {
                best[u as usize] = Some((source, through));
                heap.push(Reverse((Dist(through), u)));
            }
        }
    }
    best.into_iter()
        .map(|b| b.map(|(s, d)| (s, d as Real)))
        .collect()
}

/// A distance ordered by `f64::total_cmp`, for the heap of [`nearest_pins`].
#[derive(Clone, Copy, PartialEq)]
struct Dist(f64);

impl Eq for Dist {}

impl PartialOrd for Dist {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Dist {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl TetherSet {
    /// Number of tethers.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when there is no tether.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Tethers every free vertex of a body, whose vertex `k` is world particle `start + k`, at
    /// rest `positions`, with `edges` (local indices), to its nearest vertex of `pins` along the
    /// edges, at the geodesic distance (see [`nearest_pins`]). Vertices that reach no pin get
    /// none.
    pub fn add_body(
        &mut self,
        start: usize,
        positions: &[Vec3],
        edges: &[[u32; 2]],
        pins: &[usize],
    ) {
        let lengths: Vec<Real> = edges
            .iter()
            .map(|&[a, b]| (positions[a as usize] - positions[b as usize]).norm())
            .collect();
        let nearest = nearest_pins(positions.len(), edges, &lengths, pins);
        for (k, found) in nearest.into_iter().enumerate() {
            if let Some((pin, d)) = found.filter(|_| !pins.contains(&k)) {
                self.ids.push((start + k) as u32);
                self.anchor.push(start as u32 + pin);
                self.rest.push(d);
            }
        }
    }

    /// Removes the tethers of particles numbered `first` or above (those of the last body, to be
    /// built again).
    pub fn remove_from(&mut self, first: u32) {
        let kept = self.ids.partition_point(|&i| i < first);
        self.ids.truncate(kept);
        self.anchor.truncate(kept);
        self.rest.truncate(kept);
    }

    /// Projects every tether on the particles `slots`, spread over `team` (the tethers touch
    /// distinct particles, see the module docs, so the result does not depend on the cut).
    ///
    /// # Panics
    /// If a particle is tethered twice or is a pin of a tether (the invariant the parallel pass
    /// relies on; checked when tethers are added, [`TetherSet::check`]).
    pub fn project(&self, slots: &mut [Slot], team: &Team) {
        let v = Positions::new(slots);
        let parts = (&self.ids[..], &self.anchor[..], &self.rest[..]);
        team.for_each_chunk(parts, |_, (ids, anchor, rest)| {
            for ((&i, &a), &d) in ids.iter().zip(anchor).zip(rest) {
                // SAFETY: this pass writes particle `i` alone and reads pins, which no tether
                // writes (`check`, asserted whenever tethers are added).
                let (s, pin) = unsafe { (v.get(i as usize), v.get(a as usize)) };
                if let Some(dp) = solve_tether(s.p, s.w, pin.p, d) {
                    // SAFETY: as above.
                    unsafe { v.add(i as usize, dp) };
                }
            }
        });
    }

    /// Asserts what [`TetherSet::project`] relies on: no particle tethered twice, and no pin
    /// tethered.
    pub fn check(&self) {
        let mut ids = self.ids.clone();
        ids.sort_unstable();
        assert!(
            ids.windows(2).all(|w| w[0] != w[1]),
            "a particle is tethered twice"
        );
        assert!(
            self.anchor.iter().all(|a| ids.binary_search(a).is_err()),
            "a pin is tethered"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stretched_tether_moves_its_particle_onto_the_sphere_and_a_slack_one_not_at_all() {
        let (p, a) = (Vec3::new(3.0, 4.0, 0.0), Vec3::zeros());
        let dp = solve_tether(p, 2.0, a, 2.5).unwrap();
        assert!(((p + dp - a).norm() - 2.5).abs() < 1e-6);
        assert!(
            (dp.normalize() + (p - a).normalize()).norm() < 1e-6,
            "along −∇C"
        );
        assert_eq!(solve_tether(p, 2.0, a, 5.5), None, "slack: C < 0");
        assert_eq!(solve_tether(p, 0.0, a, 2.5), None, "pinned");
    }

    #[test]
    fn geodesic_distances_follow_the_edges_to_the_nearest_pin() {
        // A path 0 - 1 - 2 - 3 - 4 with unit edges, and a shortcut 0 - 4 of length 10.
        let edges = [[0, 1], [1, 2], [2, 3], [3, 4], [0, 4]];
        let lengths = [1.0, 1.0, 1.0, 1.0, 10.0];
        let found = nearest_pins(6, &edges, &lengths, &[0, 3]);
        assert_eq!(
            found,
            vec![
                Some((0, 0.0)),
                Some((0, 1.0)),
                Some((3, 1.0)),
                Some((3, 0.0)),
                Some((3, 1.0)),
                None
            ],
            "vertex 4 is 1 from pin 3 (the shortcut to pin 0 is 10 long); vertex 5 reaches none"
        );
        let tie = nearest_pins(3, &[[0, 1], [1, 2]], &[1.0, 1.0], &[2, 0]);
        assert_eq!(tie[1], Some((0, 1.0)), "a tie goes to the lower pin index");
    }

    #[test]
    fn geodesic_distance_on_a_grid_is_at_least_the_straight_line() {
        let (x, tris) = crate::bodies::cloth::grid(9, 9, [1.0, 1.0], Vec3::zeros(), false);
        let edges = crate::mesh::topology::edges(&tris);
        let mut set = TetherSet::default();
        set.add_body(0, &x, &edges, &[0, 8]);
        set.check();
        assert_eq!(set.len(), 81 - 2);
        for c in 0..set.len() {
            let (i, a) = (set.ids[c] as usize, set.anchor[c] as usize);
            let straight = (x[i] - x[a]).norm();
            assert!(
                set.rest[c] >= straight - 1e-6,
                "{c}: {} < {straight}",
                set.rest[c]
            );
            // Along grid lines and one diagonal per cell the detour is at most √2.
            assert!(set.rest[c] <= straight * Real::sqrt(2.0) + 1e-6);
        }
    }
}
