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

/// How far a particle may move, relative to the mean displacement of all particles, before the
/// candidate pairs are searched again, as a fraction of its radius (its "skin", as in the
/// neighbour lists of molecular dynamics, Verlet 1967). A thicker skin keeps the list for more
/// substeps and makes it longer.
const SKIN: Real = 0.5;

/// Settings and scratch space of particle-particle collision detection.
#[derive(Clone, Debug, Default)]
pub struct ParticlePairs {
    /// Self-collision per body index (missing: off).
    self_collision: Vec<bool>,
    /// Rest position of every particle: its position at the first search that saw it, m.
    rest: Vec<Vec3>,
    /// The grid of the last search.
    hash: SpatialHash,
    /// The pairs that can come within their margin while no particle leaves its skin, in
    /// increasing order of `a`, then of `b`.
    candidates: Vec<Candidate>,
    /// Predicted positions at the last search, m (empty: search at the next call).
    anchor: Vec<Vec3>,
    /// The margin of the last search.
    margin: Real,
}

/// A pair that may collide: particles `a < b`, contact distance `d` (m), and the square of the
/// distance under which it is a contact (m²): `margin · d` of the search, and no more than the
/// pair's rest distance when it belongs to one body.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Candidate {
    a: u32,
    b: u32,
    d: Real,
    under2: Real,
}

impl ParticlePairs {
    /// Turns self-collision of body `body` on or off.
    pub fn set_self_collision(&mut self, body: u32, on: bool) {
        let b = body as usize;
        if self.self_collision.len() <= b {
            self.self_collision.resize(b + 1, false);
        }
        self.self_collision[b] = on;
        self.anchor.clear();
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
        bodies >= 2 || self.any_self_collision()
    }

    /// Calls `f(a, b, d)` once for every pair `a < b` that may collide, is not pinned on both
    /// sides, and whose predicted positions `p` are closer than `margin · d` (and, in one body,
    /// closer than at rest), with `d = (r_a + r_b) / 2` the pair's contact distance (m) and
    /// `margin ≥ 1`, in increasing order of `a`, then of `b`.
    ///
    /// The pairs are taken from a candidate list, which is searched again only when a particle
    /// has moved farther than its skin `SKIN · r` from where it was at the last search, relative
    /// to the mean displacement of all particles (a common translation, such as a fall, changes
    /// no distance), or when the particles or the margin changed. The list holds every pair
    /// within `margin · d + s_a + s_b` at the search, so it holds every pair within `margin · d`
    /// while each particle stays within its skin `s`: the pairs found are those a search from
    /// scratch would find.
    pub fn for_each_pair(
        &mut self,
        ps: &ParticleSet,
        margin: Real,
        mut f: impl FnMut(usize, usize, Real),
    ) {
        self.note_rest(ps);
        if !self.still_valid(ps, margin) {
            self.search(ps, margin);
        }
        for c in &self.candidates {
            let (a, b) = (c.a as usize, c.b as usize);
            let dist2 = (ps.p[b] - ps.p[a]).norm_squared();
            if dist2 < c.under2 && (ps.inv_mass[a] != 0.0 || ps.inv_mass[b] != 0.0) {
                f(a, b, c.d);
            }
        }
    }

    /// Drops the candidate list, so that the next [`for_each_pair`](Self::for_each_pair)
    /// searches from scratch: for the substeps in which no pair can come near (bodies apart,
    /// none colliding with itself), where keeping the list valid would cost a pass over the
    /// particles for nothing.
    pub fn forget(&mut self, ps: &ParticleSet) {
        self.note_rest(ps);
        self.anchor.clear();
        self.candidates.clear();
    }

    /// True when some body collides with itself.
    pub fn any_self_collision(&self) -> bool {
        self.self_collision.contains(&true)
    }

    /// Takes the rest position of the particles added since the last call: their start
    /// positions now.
    fn note_rest(&mut self, ps: &ParticleSet) {
        if self.rest.len() < ps.len() {
            self.rest.extend_from_slice(&ps.x[self.rest.len()..]);
        }
    }

    /// True when the candidate list was searched with `margin` for these particles and no
    /// particle has left its skin since.
    fn still_valid(&self, ps: &ParticleSet, margin: Real) -> bool {
        if self.anchor.len() != ps.len() || self.margin != margin || ps.is_empty() {
            return false;
        }
        let moved = |i: usize| ps.p[i] - self.anchor[i];
        let mean = (0..ps.len()).map(moved).sum::<Vec3>() / ps.len() as Real;
        (0..ps.len()).all(|i| (moved(i) - mean).norm_squared() <= (SKIN * ps.radius[i]).powi(2))
    }

    /// Finds every pair that may collide within `margin · d + s_a + s_b` of each other at the
    /// predicted positions, through the spatial hash over the particles that can be in such a
    /// pair ([`Self::pairable`]).
    fn search(&mut self, ps: &ParticleSet, margin: Real) {
        self.anchor.clear();
        self.anchor.extend_from_slice(&ps.p);
        self.margin = margin;
        self.candidates.clear();
        let r_max = ps.radius.iter().copied().fold(0.0, Real::max);
        let reach = (margin + 2.0 * SKIN) * r_max;
        if reach <= 0.0 {
            return;
        }
        let pairable = self.pairable(ps, reach);
        let mut hash = std::mem::take(&mut self.hash);
        hash.build(&ps.p, reach, |i| pairable[i]);
        let mut candidates = std::mem::take(&mut self.candidates);
        for a in (0..ps.len()).filter(|&a| pairable[a]) {
            let (pa, ra, body) = (ps.p[a], ps.radius[a], ps.body[a]);
            let first = candidates.len();
            hash.for_each_near(&pa, reach, a as u32 + 1, |b, pb| {
                let b = b as usize;
                // Below `reach²`, as the hash tested.
                let dist2 = (pb - pa).norm_squared();
                let d = (ra + ps.radius[b]) / 2.0;
                let within = margin * d + SKIN * (ra + ps.radius[b]);
                if dist2 >= within * within {
                    return;
                }
                let rest2 = if ps.body[b] == body {
                    let rest2 = (self.rest[a] - self.rest[b]).norm_squared();
                    if !self.self_collides(body) || rest2 < d * d {
                        return;
                    }
                    rest2
                } else {
                    Real::INFINITY
                };
                candidates.push(Candidate {
                    a: a as u32,
                    b: b as u32,
                    d,
                    under2: (margin * d).powi(2).min(rest2),
                });
            });
            // The grid lists them cell by cell: the contacts follow `b`, whatever the cells.
            candidates[first..].sort_unstable_by_key(|c| c.b);
        }
        self.candidates = candidates;
        self.hash = hash;
    }

    /// Whether each particle can be in a pair within `reach` (m): its body collides with
    /// itself, or it lies within `reach` of another body's bounding box. A pair of two bodies
    /// within `reach` has each particle within `reach` of the other's body, so the particles
    /// left out have no candidate, and the hash without them lists the others in the same order.
    fn pairable(&self, ps: &ParticleSet, reach: Real) -> Vec<bool> {
        let bodies = ps.body.iter().max().map_or(0, |&b| b as usize + 1);
        let mut boxes = vec![(Vec3::repeat(Real::MAX), Vec3::repeat(Real::MIN)); bodies];
        for (p, &b) in ps.p.iter().zip(&ps.body) {
            let (lo, hi) = &mut boxes[b as usize];
            *lo = lo.inf(p);
            *hi = hi.sup(p);
        }
        (0..ps.len())
            .map(|i| {
                let (p, body) = (ps.p[i], ps.body[i]);
                self.self_collides(body)
                    || boxes.iter().enumerate().any(|(b, (lo, hi))| {
                        b != body as usize
                            && (0..3).all(|k| p[k] >= lo[k] - reach && p[k] <= hi[k] + reach)
                    })
            })
            .collect()
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
    fn kept_list_finds_what_a_search_from_scratch_finds_while_particles_wander() {
        // Two bodies of 150 particles in a 10 cm box, radii 1 and 1.5 cm, self-collision on for
        // body 0; every call moves each particle by up to 0.3 r, in a common drift plus its own
        // jitter, so some calls keep the list and some search again.
        let mut s = 3u32;
        let mut next = || {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as Real / (1u32 << 24) as Real * 2.0 - 1.0
        };
        let mut ps = ParticleSet::default();
        for i in 0..300 {
            let x = Vec3::new(next(), next(), next()) * 0.05;
            let body = (i % 2) as u32;
            ps.push(x, 1.0, 0.01 + 0.005 * body as Real, body);
        }
        ps.inv_mass[7] = 0.0;
        ps.inv_mass[9] = 0.0;
        let mut kept = ParticlePairs::default();
        kept.set_self_collision(0, true);
        let margin = 1.5;
        let (mut reused, mut searched) = (0, 0);
        for _ in 0..60 {
            let drift = Vec3::new(0.004, -0.003, 0.0);
            for i in 0..ps.len() {
                let jitter = Vec3::new(next(), next(), next()) * (0.15 * ps.radius[i]);
                ps.p[i] += drift + jitter;
            }
            let before = kept.anchor.clone();
            let mut found = Vec::new();
            kept.for_each_pair(&ps, margin, |a, b, d| found.push((a, b, d)));
            if kept.anchor == before {
                reused += 1;
            } else {
                searched += 1;
            }
            let mut scratch = Vec::new();
            for a in 0..ps.len() {
                for b in a + 1..ps.len() {
                    let d = (ps.radius[a] + ps.radius[b]) / 2.0;
                    let dist2 = (ps.p[a] - ps.p[b]).norm_squared();
                    let rest2 = (kept.rest[a] - kept.rest[b]).norm_squared();
                    let same = ps.body[a] == ps.body[b];
                    let pinned = ps.inv_mass[a] == 0.0 && ps.inv_mass[b] == 0.0;
                    if dist2 < (margin * d).powi(2)
                        && !pinned
                        && !(same && (ps.body[a] != 0 || rest2 < d * d || dist2 >= rest2))
                    {
                        scratch.push((a, b, d));
                    }
                }
            }
            found.sort_by_key(|&(a, b, _)| (a, b));
            assert_eq!(found, scratch);
        }
        assert!(
            reused > 10 && searched > 2,
            "reused {reused}, searched {searched}"
        );
    }

    #[test]
    fn only_particles_near_another_body_or_in_a_self_colliding_one_are_searched() {
        // The row of body 0, and body 1's particle 10 cm above its middle: far from the row.
        let mut ps = row();
        ps.p[5] = Vec3::new(0.02, 0.1, 0.0);
        let mut found = ParticlePairs::default();
        let reach = 0.018;
        assert_eq!(found.pairable(&ps, reach), vec![false; 6]);
        // Within reach of the row's box (x in 0..4 cm, y = z = 0), 1 cm past its end: the
        // particle, and of the row only the last particle, within reach of it.
        ps.p[5] = Vec3::new(0.05, 0.005, 0.0);
        let near = found.pairable(&ps, reach);
        assert_eq!(near, vec![false, false, false, false, true, true]);
        assert_eq!(pairs(&mut found, &ps), vec![(4, 5)]);
        found.set_self_collision(0, true);
        assert_eq!(found.pairable(&ps, reach), vec![true; 6]);
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
