//! Which particle pairs may touch: particles of different bodies always, particles of one body
//! when that body has self-collision on, except pairs already closer than their contact distance
//! in the rest state (mesh neighbours, which would otherwise push the body apart).
//!
//! A pair of one body is also skipped while it is not closer than at rest (Müller, "Ten Minute
//! Physics" tutorial 15, self-collision): to touch, it must come closer than `d`, which is less
//! than its rest distance, so it is caught by the next substep's search at the latest. This
//! drops the near mesh neighbours of a smooth cloth, which are within the search margin but
//! held at their rest distance by the stretch constraints, and would otherwise be most of the
//! contacts.

use super::spatial_hash::SpatialHash;
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;

/// Settings and scratch space of particle-particle collision detection.
#[derive(Clone, Debug, Default)]
pub struct ParticlePairs {
    /// Self-collision per body index (missing: off).
    self_collision: Vec<bool>,
    /// Rest position of every particle: its position at the first search that saw it, m.
    rest: Vec<Vec3>,
    /// The grid, rebuilt at every search.
    hash: SpatialHash,
}

impl ParticlePairs {
    /// Turns self-collision of body `body` on or off.
    pub fn set_self_collision(&mut self, body: u32, on: bool) {
        let b = body as usize;
        if self.self_collision.len() <= b {
            self.self_collision.resize(b + 1, false);
        }
        self.self_collision[b] = on;
    }

    /// True when particles of body `body` collide with each other.
    pub fn self_collides(&self, body: u32) -> bool {
        self.self_collision
            .get(body as usize)
            .copied()
            .unwrap_or(false)
    }

    /// True when some pair may collide in a world of `bodies` bodies: there are two bodies, or
    /// one with self-collision.
    pub fn active(&self, bodies: usize) -> bool {
        bodies >= 2 || self.self_collision.iter().any(|&on| on)
    }

    /// Calls `f(a, b, d)` once for every pair `a < b` that may collide, is not pinned on both
    /// sides, and whose predicted positions `p` are closer than `margin · d` (and, in one body,
    /// closer than at rest), with
    /// `d = (r_a + r_b) / 2` the pair's contact distance (m) and `margin ≥ 1`. Pairs are found
    /// through the spatial hash with cells of side `margin · max r`, in increasing order of `a`.
    pub fn for_each_pair(
        &mut self,
        ps: &ParticleSet,
        margin: Real,
        mut f: impl FnMut(usize, usize, Real),
    ) {
        if self.rest.len() < ps.len() {
            self.rest.extend_from_slice(&ps.x[self.rest.len()..]);
        }
        let reach = margin * ps.radius.iter().copied().fold(0.0, Real::max);
        if reach <= 0.0 {
            return;
        }
        self.hash.build(&ps.p, reach, |_| true);
        for a in 0..ps.len() {
            let (pa, ra, body) = (ps.p[a], ps.radius[a], ps.body[a]);
            let free_a = ps.inv_mass[a] > 0.0;
            self.hash.for_each_near(&pa, reach, |b| {
                let b = b as usize;
                if b <= a || !(free_a || ps.inv_mass[b] > 0.0) {
                    return;
                }
                let d = (ra + ps.radius[b]) / 2.0;
                let dist2 = (ps.p[b] - pa).norm_squared();
                if dist2 >= (margin * d).powi(2) {
                    return;
                }
                if ps.body[b] == body {
                    let rest = (self.rest[a] - self.rest[b]).norm_squared();
                    if !self.self_collides(body) || rest < d * d || dist2 >= rest {
                        return;
                    }
                }
                f(a, b, d);
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of particles 1 cm apart in body 0, and one of body 1 just above the middle.
    fn row() -> ParticleSet {
        let mut ps = ParticleSet::default();
        for k in 0..5 {
            ps.push(Vec3::new(k as Real * 0.01, 0.0, 0.0), 1.0, 0.015, 0);
        }
        ps.push(Vec3::new(0.02, 0.008, 0.0), 1.0, 0.015, 1);
        ps
    }

    fn pairs(found: &mut ParticlePairs, ps: &ParticleSet) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        found.for_each_pair(ps, 1.0, |a, b, _| out.push((a, b)));
        out.sort_unstable();
        out
    }

    #[test]
    fn rest_neighbours_are_excluded_and_other_bodies_always_collide() {
        let mut ps = row();
        let mut found = ParticlePairs::default();
        found.set_self_collision(0, true);
        // Rest state: the only same-body pairs closer than 1.5 cm are neighbours, all excluded.
        assert_eq!(pairs(&mut found, &ps), vec![(1, 5), (2, 5), (3, 5)]);
        // Fold particle 4 back onto particle 0: 2 cm apart at rest... now 5 mm.
        ps.p[4] = Vec3::new(0.005, 0.0, 0.0);
        assert!(pairs(&mut found, &ps).contains(&(0, 4)));
        found.set_self_collision(0, false);
        assert!(!pairs(&mut found, &ps).contains(&(0, 4)));
    }

    #[test]
    fn pinned_pairs_are_skipped() {
        let mut ps = row();
        ps.inv_mass[2] = 0.0;
        ps.inv_mass[5] = 0.0;
        let mut found = ParticlePairs::default();
        assert_eq!(pairs(&mut found, &ps), vec![(1, 5), (3, 5)]);
    }
}
