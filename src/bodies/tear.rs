//! Tearing cloth: an edge stretched past a strain limit splits the mesh at one of its ends.
//!
//! After every frame, each edge (stretch or shear constraint) of a tearing cloth whose strain
//! `(|p_a − p_b| − d) / d` exceeds the limit `s` tears, most strained first: one of its ends `v`
//! (the first of `a`, `b` that is free and not yet split in this frame) is split by the plane
//! through `v` normal to the edge. The triangles around `v` whose centroid lies on the far side
//! of that plane (towards the other end) take a new copy `v'` of the particle; the others keep
//! `v`. This is the vertex split of NVIDIA FleX's cloth tearing (`NvFlexExtTearClothMesh`, in
//! `extensions/flexExtCloth.cpp`): the load the edge carried no longer passes through `v`, and a
//! crack grows across the pull, one vertex per edge, as the next edges take the load.
//!
//! The copy starts where `v` is, with its velocity; the particle's mass is shared between `v`
//! and `v'` in proportion to the triangles each keeps, so mass and momentum are kept. Pinned
//! particles are never split. Then the cloth's constraints (stretch, shear, bending pairs,
//! tethers) are built again from the new triangles and the rest positions of the vertices they
//! were split from, and every family is scheduled again: what a frame tears depends only on the
//! positions, so the same scene gives the same bits on any number of threads.
//!
//! A tearing cloth grows, so it must be the last body of its world (its new particles are
//! appended to the world's), and it cannot be a shape-matching cluster.

use super::Body;
use super::cloth::ClothDesc;
use crate::constraints::ConstraintSets;
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;
use crate::validate::{self, Checked};

/// The tearing of a cloth (scene key `tear = { strain = s }`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tear {
    /// The strain `(ℓ − d) / d` past which an edge tears (> 0; e.g. 0.5: at 150% of its rest
    /// length).
    pub strain: Real,
}

impl Tear {
    /// Checks the limit (key `tear.strain`), and that the cloth is no shape-matching cluster
    /// (`shape`: key `tear`).
    pub fn validate(&self, shape: bool) -> Checked {
        validate::positive(self.strain, "tear.strain", "a strain")?;
        validate::check(!shape, "tear", || {
            "cannot be combined with `shape`: a tearing cloth is no shape-matching cluster".into()
        })
    }
}

/// A tearing cloth of a world: what is needed to build its constraints again.
#[derive(Clone, Debug)]
pub(crate) struct Tearing {
    /// The cloth's body number.
    pub(crate) body: usize,
    /// Its description: rest positions, pins and materials.
    desc: ClothDesc,
    /// The strain limit.
    strain: Real,
    /// For each of the body's vertices, the vertex of `desc` it was split from (itself at first).
    origin: Vec<u32>,
    /// Edges torn so far.
    pub(crate) torn: u64,
}

impl Tearing {
    /// The tearing state of body number `body`, just built from `desc` (which has `tear`).
    pub(crate) fn new(body: usize, desc: &ClothDesc, tear: Tear) -> Self {
        Tearing {
            body,
            desc: desc.clone(),
            strain: tear.strain,
            origin: (0..desc.positions.len() as u32).collect(),
            torn: 0,
        }
    }

    /// Tears the edges of `body` (the world's last) past the limit at the positions `ps.x`, adds
    /// the new particles and builds the body's constraints again; returns true when the mesh
    /// changed (every family then needs scheduling).
    pub(crate) fn tear(
        &mut self,
        body: &mut Body,
        ps: &mut ParticleSet,
        cs: &mut ConstraintSets,
    ) -> bool {
        let start = body.particles.start;
        let first = start as u32;
        let mut over: Vec<(Real, u32, u32)> = (0..cs.stretch.len())
            .filter(|&c| cs.stretch.ids()[c][0] >= first)
            .map(|c| (cs.stretch.strain(&ps.x, c), cs.stretch.ids()[c]))
            .filter(|&(s, _)| s > self.strain)
            .map(|(s, [a, b])| (s, a - first, b - first))
            .collect();
        if over.is_empty() {
            return false;
        }
        over.sort_by(|p, q| q.0.total_cmp(&p.0).then((p.1, p.2).cmp(&(q.1, q.2))));
        let mut split = vec![false; body.particles.len()];
        let before = self.torn;
        for (_, a, b) in over {
            for (v, other) in [(a, b), (b, a)] {
                let i = start + v as usize;
                let x = &ps.x[start..];
                let joined = body
                    .triangles
                    .iter()
                    .any(|t| t.contains(&v) && t.contains(&other));
                if split[v as usize] || ps.inv_mass[i] == 0.0 || !joined {
                    continue;
                }
                let normal = x[other as usize] - x[v as usize];
                let copy = split.len() as u32;
                let (moved, fan) = split_vertex(&mut body.triangles, x, v, normal, copy);
                if moved == 0 {
                    continue;
                }
                self.divide(ps, start, v, &[fan - moved, moved]);
                split[v as usize] = true;
                split.push(true);
                // Where the split leaves a vertex's triangles meeting at the vertex alone,
                // each group gets its own copy, as FleX's `SeparateVertex`.
                let mut around: Vec<u32> = body
                    .triangles
                    .iter()
                    .filter(|t| t.contains(&v) || t.contains(&copy))
                    .flatten()
                    .copied()
                    .collect();
                around.sort_unstable();
                around.dedup();
                for u in around {
                    let groups = fan_groups(&body.triangles, u);
                    if groups.len() > 1 && ps.inv_mass[start + u as usize] > 0.0 {
                        for (k, group) in groups.iter().enumerate().skip(1) {
                            let c = (split.len() + k - 1) as u32;
                            for &t in group {
                                let tri = &mut body.triangles[t];
                                tri.iter_mut().filter(|i| **i == u).for_each(|i| *i = c);
                            }
                        }
                        let sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
                        self.divide(ps, start, u, &sizes);
                        split.resize(split.len() + groups.len() - 1, true);
                    }
                }
                self.torn += 1;
                break;
            }
        }
        if self.torn == before {
            return false;
        }
        body.particles.end = ps.len();
        cs.remove_from(first);
        let rest: Vec<Vec3> = self
            .origin
            .iter()
            .map(|&o| self.desc.positions[o as usize])
            .collect();
        let triangles = &body.triangles;
        self.desc.add_constraints(
            start,
            &rest,
            triangles,
            Some(&self.origin),
            &self.desc.pin,
            cs,
        );
        true
    }
}

impl Tearing {
    /// Gives vertex `v` of the body (whose particles start at `start`) a new particle for each of
    /// `shares` but the first (the triangles each keeps, the first being `v`'s own), appended in
    /// order at the same place with the same velocity, and divides its mass in proportion.
    fn divide(&mut self, ps: &mut ParticleSet, start: usize, v: u32, shares: &[usize]) {
        let i = start + v as usize;
        let (w, total) = (ps.inv_mass[i], shares.iter().sum::<usize>() as Real);
        ps.inv_mass[i] = w * total / shares[0] as Real;
        for &share in &shares[1..] {
            let j = ps.push(ps.x[i], w * total / share as Real, ps.radius[i], ps.body[i]);
            ps.p[j] = ps.p[i];
            ps.v[j] = ps.v[i];
            ps.residual[j] = ps.residual[i];
            ps.rounding[j] = ps.rounding[i];
            ps.force[j] = ps.force[i];
            self.origin.push(self.origin[v as usize]);
        }
    }
}

/// The triangles around vertex `v` (indices into `triangles`) in groups joined through the
/// edges at `v` (two triangles are joined when they share an edge `v`–`u`), each group in
/// increasing order, the groups in order of their first triangle.
pub fn fan_groups(triangles: &[[u32; 3]], v: u32) -> Vec<Vec<usize>> {
    let fan: Vec<usize> = (0..triangles.len())
        .filter(|&t| triangles[t].contains(&v))
        .collect();
    let mut group: Vec<usize> = (0..fan.len()).collect();
    let root = |group: &[usize], mut k: usize| {
        while group[k] != k {
            k = group[k];
        }
        k
    };
    for a in 0..fan.len() {
        for b in a + 1..fan.len() {
            let shared = triangles[fan[a]]
                .iter()
                .filter(|&&u| u != v && triangles[fan[b]].contains(&u))
                .count();
            if shared > 0 {
                let (ra, rb) = (root(&group, a), root(&group, b));
                group[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut first: Vec<Option<usize>> = vec![None; fan.len()];
    for (k, &t) in fan.iter().enumerate() {
        let r = root(&group, k);
        match first[r] {
            Some(g) => groups[g].push(t),
            None => {
                first[r] = Some(groups.len());
                groups.push(vec![t]);
            }
        }
    }
    groups
}

/// Splits vertex `v` of `triangles` by the plane through `x[v]` normal to `normal`: the
/// triangles around `v` whose centroid (at positions `x`) lies on the side `normal` points to
/// take vertex `copy` instead. Returns how many moved and how many held `v`; none move (and
/// nothing changes) unless both sides keep at least one.
pub fn split_vertex(
    triangles: &mut [[u32; 3]],
    x: &[Vec3],
    v: u32,
    normal: Vec3,
    copy: u32,
) -> (usize, usize) {
    let ahead = |t: &[u32; 3]| {
        let centroid = t.iter().map(|&i| x[i as usize]).sum::<Vec3>() / 3.0;
        (centroid - x[v as usize]).dot(&normal) > 0.0
    };
    let fan = triangles.iter().filter(|t| t.contains(&v)).count();
    let moved = triangles
        .iter()
        .filter(|t| t.contains(&v) && ahead(t))
        .count();
    if moved == 0 || moved == fan {
        return (0, fan);
    }
    for t in triangles.iter_mut() {
        if t.contains(&v) && ahead(t) {
            t.iter_mut().filter(|i| **i == v).for_each(|i| *i = copy);
        }
    }
    (moved, fan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bodies::cloth::grid;

    #[test]
    fn a_vertex_splits_between_the_triangles_on_either_side_of_the_plane() {
        // A 3 x 3 grid: the middle vertex 4 is held by six triangles, three on either side of
        // the plane x = 0 (the two cells' diagonals run b–c).
        let (x, mut tris) = grid(3, 3, [2.0, 2.0], Vec3::zeros(), false);
        let before = tris.clone();
        let (moved, fan) = split_vertex(&mut tris, &x, 4, Vec3::x(), 9);
        assert_eq!((moved, fan), (3, 6));
        for (t, old) in tris.iter().zip(&before) {
            let right =
                old.contains(&4) && old.iter().map(|&i| x[i as usize].x).sum::<Real>() > 0.0;
            assert_eq!(t.contains(&9), right, "{old:?} -> {t:?}");
            assert_eq!(t.contains(&4), old.contains(&4) && !right);
        }
        let corner = split_vertex(&mut tris, &x, 0, Vec3::x(), 10);
        assert_eq!(corner, (0, 1), "a vertex of one triangle cannot split");
        assert!(!tris.iter().flatten().any(|&i| i == 10));
    }

    #[test]
    fn triangles_meeting_at_a_vertex_alone_are_separate_groups() {
        let bowtie = [[0, 1, 2], [5, 6, 7], [0, 3, 4]];
        assert_eq!(fan_groups(&bowtie, 0), vec![vec![0], vec![2]]);
        let joined = [[0, 1, 2], [0, 3, 4], [0, 2, 3]];
        assert_eq!(fan_groups(&joined, 0), vec![vec![0, 1, 2]]);
        assert!(fan_groups(&joined, 9).is_empty());
    }
}
