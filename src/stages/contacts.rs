//! Stage 4: contact generation, every substep. First the swept test that keeps a fast particle
//! from stepping through a collider thinner than its displacement ([`sweep_colliders`]), then
//! the contacts with colliders ([`generate_contacts`]) and between particles, from the kept
//! list of candidate pairs ([`generate_particle_contacts`]), and between particles and the
//! surfaces of soft bodies ([`generate_surface_contacts`]). The sweep and the collider contacts
//! skip the colliders far from each group of particles ([`NearColliders`]). The contacts are
//! projected with the other constraints (stage 5), and respond with friction and restitution in
//! the velocity update (stage 6, [`update_velocities`](super::velocities::update_velocities)).

use crate::bodies::Body;
use crate::collision::{BodySurfaces, Carry, Collider, ParticlePairs, Shape};
use crate::constraints::{ContactSet, ParticleContactSet, SurfaceContactSet};
use crate::math::{LaneVec, Real, Vec3, rotate_lanes};
use crate::particles::ParticleSet;
use crate::solver::simd::gather_vec3;
use std::ops::Range;
use wide::f32x8;

/// Shortest step along a swept path, as a fraction of the particle's radius.
const MIN_STEP: Real = 0.5;

/// Most steps along one particle's path per collider in one substep: the cost of the test is
/// bounded by the particle and collider counts, whatever the speeds.
const MAX_SWEEP_STEPS: u32 = 32;

/// Relative allowance for rounding in the bounds that let the sweep and the contact test skip
/// a particle's exact path length: the bounds are grown by this fraction.
const ROUNDING: Real = 1e-5;

/// Consecutive particles in a group of [`ParticleGroups`].
pub const GROUP: usize = 64;

/// The box around the start and predicted positions of each group of [`GROUP`] consecutive
/// particles in a substep, with the group's largest radius and travel: what the contact searches
/// test before the particles of a group ([`NearColliders`], [`generate_surface_contacts`]).
#[derive(Clone, Debug, Default)]
pub struct ParticleGroups {
    groups: Vec<Group>,
    /// Number of particles.
    len: usize,
}

/// A group of [`ParticleGroups`].
#[derive(Clone, Copy, Debug)]
struct Group {
    /// The corners of the box around the start and predicted positions, m.
    lo: Vec3,
    hi: Vec3,
    /// The largest radius, m.
    radius: Real,
    /// The largest travel `|p − x|`, m.
    travel: Real,
    /// Whether every position is finite (the box of a NaN bounds nothing).
    finite: bool,
}

impl Group {
    /// Whether the group's box, grown by the largest reach of its particles to a surface of
    /// thickness `thickness` ([`generate_surface_contacts`]), misses the box from `lo` to `hi`
    /// (never when a position is not finite).
    fn misses(&self, lo: Vec3, hi: Vec3, thickness: Real) -> bool {
        let reach = SEARCH_MARGIN * (self.radius + thickness) / 2.0;
        self.finite && (0..3).any(|a| self.lo[a] - reach > hi[a] || self.hi[a] + reach < lo[a])
    }
}

impl ParticleGroups {
    /// The groups of the particles `ps` in this substep.
    pub fn find(&mut self, ps: &ParticleSet) {
        self.len = ps.len();
        self.groups.clear();
        // Comparisons rather than `f32::min` and `max`, which take NaN apart at a cost; a NaN
        // makes the sum of the travels NaN instead.
        let below = |a: Real, b: Real| if a < b { a } else { b };
        let above = |a: Real, b: Real| if a > b { a } else { b };
        for range in self.ranges() {
            let (mut lo, mut hi) = (ps.x[range.start], ps.x[range.start]);
            let (mut travel_sq, mut sum_sq, mut radius): (Real, Real, Real) = (0.0, 0.0, 0.0);
            for i in range {
                let (x, p) = (ps.x[i], ps.p[i]);
                for k in 0..3 {
                    lo[k] = below(below(x[k], p[k]), lo[k]);
                    hi[k] = above(above(x[k], p[k]), hi[k]);
                }
                let d = (p - x).norm_squared();
                (travel_sq, sum_sq) = (above(d, travel_sq), sum_sq + d);
                radius = above(ps.radius[i], radius);
            }
            let (travel, finite) = (travel_sq.sqrt(), sum_sq.is_finite());
            self.groups.push(Group {
                lo,
                hi,
                radius,
                travel,
                finite,
            });
        }
    }

    /// The box around the start and predicted positions of the particles `range` (not empty):
    /// the boxes of the groups inside it, and the particles of the groups it cuts.
    fn bounds(&self, ps: &ParticleSet, range: Range<usize>) -> (Vec3, Vec3) {
        let (mut lo, mut hi) = (ps.x[range.start], ps.x[range.start]);
        for (group, g) in self.ranges().zip(&self.groups) {
            let (start, end) = (group.start.max(range.start), group.end.min(range.end));
            if start >= end {
                continue;
            }
            if (start, end) == (group.start, group.end) {
                (lo, hi) = (lo.inf(&g.lo), hi.sup(&g.hi));
            } else {
                for v in ps.x[start..end].iter().chain(&ps.p[start..end]) {
                    (lo, hi) = (lo.inf(v), hi.sup(v));
                }
            }
        }
        (lo, hi)
    }

    /// The particles of each group.
    fn ranges(&self) -> impl Iterator<Item = Range<usize>> + use<> {
        let len = self.len;
        (0..len)
            .step_by(GROUP)
            .map(move |i| i..(i + GROUP).min(len))
    }
}

/// Which colliders each group of particles ([`ParticleGroups`]) may reach in a substep, so
/// that the sweeps and the contact tests skip the groups far from a collider (a cloth hanging
/// above the ground costs one box test per group instead of two queries per particle).
///
/// A static collider is left out for a group when its shape lies farther from the group's box
/// ([`Shape::box_gap`](crate::collision::Shape::box_gap)) than the group's largest reach,
/// `2 r + |p − x|` ([`generate_contacts`]), with an allowance for rounding: each particle's path
/// then stays out of the shape by more than its length, so its sweep ends at the first query,
/// and its distance exceeds its reach, so it gets no contact. A moving collider is tested
/// against the group's box grown by how far it carries any point of the box in the substep
/// ([`Carry::carries_at_most`]), which holds every particle's start relative to it, with that
/// distance added to the reach. A group with a non-finite position is always tested.
#[derive(Clone, Debug, Default)]
pub struct NearColliders {
    /// One flag per group and collider, group by group.
    near: Vec<bool>,
    /// Number of colliders.
    colliders: usize,
    /// The buffers of the collider tests, kept from substep to substep.
    scratch: LaneScratch,
}

/// The buffers of [`sweep_colliders`] and [`generate_contacts`], kept in [`NearColliders`] so
/// that a substep allocates nothing.
#[derive(Clone, Debug, Default)]
struct LaneScratch {
    /// A group's particles, allocated at the first test.
    lanes: Option<Box<GroupLanes>>,
    /// Per collider: its contacts with the group.
    hits: Vec<GroupHits>,
    /// Per collider: the particles of the group it sweeps.
    sweep: Vec<u64>,
}

impl NearColliders {
    /// Finds the colliders each of the `groups` may reach in this substep.
    pub fn find(
        &mut self,
        groups: &ParticleGroups,
        colliders: &[Collider],
        carries: &[Option<Carry>],
    ) {
        self.colliders = colliders.len();
        self.near.clear();
        for g in &groups.groups {
            let size = g.lo.abs().sup(&g.hi.abs()).max();
            let reach = (2.0 * g.radius + g.travel) * 1.01 + 1e-5 * (1.0 + size);
            for (c, carry) in colliders.iter().zip(carries) {
                let carried = carry.map_or(0.0, |m| m.carries_at_most(g.lo, g.hi));
                let grow = Vec3::repeat(carried);
                let far = !c.solid
                    || g.finite && c.shape.box_gap(g.lo - grow, g.hi + grow) > reach + carried;
                self.near.push(!far);
            }
        }
    }

    /// Calls `test` with these flags and the buffers for tests against `colliders` colliders,
    /// which it leaves for the next substep.
    fn with_scratch<R>(
        &mut self,
        colliders: usize,
        test: impl FnOnce(&Self, &mut LaneScratch) -> R,
    ) -> R {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.hits.resize_with(colliders, || GroupHits {
            touch: 0,
            d: [0.0; GROUP],
            n: [[0.0; GROUP]; 3],
        });
        scratch.sweep.resize(colliders, 0);
        let result = test(self, &mut scratch);
        self.scratch = scratch;
        result
    }

    /// The particles of each of the `groups` (those [`NearColliders::find`] was given) and one
    /// flag per collider: whether the group may reach it. Groups far from every collider are
    /// left out.
    fn groups<'a>(
        &'a self,
        groups: &ParticleGroups,
    ) -> impl Iterator<Item = (Range<usize>, &'a [bool])> + use<'a> {
        groups
            .ranges()
            .zip(self.near.chunks_exact(self.colliders.max(1)))
            .filter(|(_, near)| near.contains(&true))
    }
}

/// Keeps every free particle from stepping through a collider in this substep of `h` seconds.
///
/// The particle's path is taken relative to each collider (for a kinematic one, it starts where
/// the start position `x` is carried by the collider's motion in this substep, its
/// [`Carry`]) and walked by conservative advancement: each step is the distance to
/// the collider at the current point ([`Shape::distance_within`](crate::collision::Shape::distance_within)
/// with a reach of `r / 2`), which cannot cross its surface, and at least half the radius `r`;
/// the walk ends without a query at the end of the path when that distance covers the rest of
/// it (so a particle far from every collider costs one query per collider, and none for a
/// collider its group cannot reach, see [`NearColliders`]). If a step ends inside, or
/// `MAX_SWEEP_STEPS` steps do not reach the end of the path, the prediction `p` is pulled back to
/// the last point reached, which is outside, and the contact generated next stops the particle
/// on the side it came from. Only a feature thinner
/// than `r / 2` passing within `r / 2` of the path can be stepped over; a particle that moves
/// less than `r / 2` relative to a collider costs a bound on its path's length, found for eight
/// particles at a time. Returns whether some prediction was pulled back: it may then lie outside
/// its group's box ([`ParticleGroups`]), which must be found again.
pub fn sweep_colliders(
    ps: &mut ParticleSet,
    colliders: &[Collider],
    carries: &[Option<Carry>],
    (groups, near): (&ParticleGroups, &mut NearColliders),
) -> bool {
    near.with_scratch(colliders.len(), |near, scratch| {
        let LaneScratch { lanes, sweep, .. } = scratch;
        let lanes = lanes.get_or_insert_with(GroupLanes::empty);
        sweep_groups(ps, colliders, carries, near.groups(groups), lanes, sweep)
    })
}

/// [`sweep_colliders`] of the `groups` that are near some collider, with the buffers `lanes` and
/// `sweep` (one entry per collider).
fn sweep_groups<'a>(
    ps: &mut ParticleSet,
    colliders: &[Collider],
    carries: &[Option<Carry>],
    groups: impl Iterator<Item = (Range<usize>, &'a [bool])>,
    lanes: &mut GroupLanes,
    sweep: &mut [u64],
) -> bool {
    let mut pulled = false;
    for (group, near) in groups {
        lanes.load(ps, group.clone());
        // Most particles move less than `min_step` relative to a collider: told from a bound on
        // the path's length first, without carrying the start, eight at a time.
        let mut any = 0;
        for ((sweep, carry), &near) in sweep.iter_mut().zip(carries).zip(near) {
            *sweep = if near {
                lanes.may_sweep(carry.as_ref())
            } else {
                0
            };
            any |= *sweep;
        }
        while any != 0 {
            let k = any.trailing_zeros() as usize;
            any &= any - 1;
            let i = group.start + k;
            let min_step = MIN_STEP * ps.radius[i];
            let colliders = colliders.iter().zip(carries).zip(sweep.iter());
            for ((collider, carry), _) in colliders.filter(|c| c.1 >> k & 1 == 1) {
                let (x, p) = (ps.x[i], ps.p[i]);
                let start = carry.map_or(x, |m| m.apply(x));
                let path = p - start;
                let len = path.norm();
                if len <= min_step {
                    continue;
                }
                let distance =
                    |t: Real| collider.shape.distance_within(start + path * t, min_step).0;
                let (mut t, mut d) = (0.0, distance(0.0));
                if d < 0.0 {
                    continue;
                }
                for _ in 0..MAX_SWEEP_STEPS {
                    if t + d / len >= 1.0 {
                        // The rest of the path is within the distance to the collider.
                        t = 1.0;
                        break;
                    }
                    let next = (t + d.max(min_step) / len).min(1.0);
                    let d_next = distance(next);
                    if d_next < 0.0 {
                        break;
                    }
                    (t, d) = (next, d_next);
                    if t >= 1.0 {
                        break;
                    }
                }
                if t < 1.0 {
                    ps.p[i] = start + path * t;
                    pulled = true;
                }
            }
        }
    }
    pulled
}

/// SIMD lanes of the collider tests: eight particles at a time.
type Lane = f32x8;
const LANE: usize = 8;

/// A group's particles ([`ParticleGroups`]) coordinate by coordinate, as the collider tests
/// ([`sweep_colliders`], [`generate_contacts`]) read them eight at a time. The lanes past the
/// group's end hold NaN, which is within reach of nothing.
#[derive(Clone, Debug)]
struct GroupLanes {
    /// Start positions, m.
    x: [[Real; GROUP]; 3],
    /// Predicted positions, m.
    p: [[Real; GROUP]; 3],
    /// `2 r`, m.
    diameter: [Real; GROUP],
    /// `|p − x|₁`, m.
    travel: [Real; GROUP],
    /// One bit per free particle (inverse mass above zero), the lowest for the group's first.
    free: u64,
    /// Number of particles loaded.
    len: usize,
}

/// A collider's contacts with the particles of a group ([`GroupLanes::touch`]): one bit per
/// particle it touches, and the distance and normal at each.
#[derive(Clone, Debug)]
struct GroupHits {
    touch: u64,
    d: [Real; GROUP],
    n: [[Real; GROUP]; 3],
}

impl GroupLanes {
    /// Lanes to [`load`](Self::load).
    fn empty() -> Box<Self> {
        Box::new(GroupLanes {
            x: [[Real::NAN; GROUP]; 3],
            p: [[Real::NAN; GROUP]; 3],
            diameter: [Real::NAN; GROUP],
            travel: [Real::NAN; GROUP],
            free: 0,
            len: 0,
        })
    }

    /// Loads the particles `group` (at most [`GROUP`]).
    fn load(&mut self, ps: &ParticleSet, group: Range<usize>) {
        let end = group.len();
        self.len = end;
        for (k, i) in group.clone().enumerate() {
            let (x, p) = (ps.x[i], ps.p[i]);
            for a in 0..3 {
                (self.x[a][k], self.p[a][k]) = (x[a], p[a]);
            }
            self.diameter[k] = 2.0 * ps.radius[i];
            self.travel[k] = (p - x).abs().sum();
        }
        for a in 0..3 {
            self.p[a][end..].fill(Real::NAN);
        }
        let free = ps.inv_mass[group].iter().enumerate();
        self.free = free.fold(0, |bits, (k, &w)| bits | u64::from(w > 0.0) << k);
    }

    /// The lanes `k..k + LANE` of `v`.
    #[inline(always)]
    fn lane(v: &[Real; GROUP], k: usize) -> Lane {
        Lane::new(v[k..k + LANE].try_into().unwrap())
    }

    /// The lanes `k..k + LANE` of a coordinate array.
    #[inline(always)]
    fn lane_vec(v: &[[Real; GROUP]; 3], k: usize) -> LaneVec<Lane> {
        LaneVec([
            Self::lane(&v[0], k),
            Self::lane(&v[1], k),
            Self::lane(&v[2], k),
        ])
    }

    /// The free particles whose path relative to the collider moving by `carry` may be longer
    /// than the sweep's shortest step, half the radius ([`sweep_colliders`]' first bound):
    /// those the sweep walks.
    fn may_sweep(&self, carry: Option<&Carry>) -> u64 {
        let mut sweep = 0;
        for k in (0..self.len).step_by(LANE) {
            let x = Self::lane_vec(&self.x, k);
            let carried = carry.map_or(Lane::ZERO, |m| m.carries_at_most_lanes(x, x));
            let most = (Self::lane(&self.travel, k) + carried) * Lane::splat(1.0 + ROUNDING);
            let min_step = Lane::splat(MIN_STEP / 2.0) * Self::lane(&self.diameter, k);
            sweep |= u64::from((!most.simd_le(min_step)).to_bitmask()) << k;
        }
        sweep & self.free
    }

    /// The free particles that touch the collider of `shape` moving by `carry` (see
    /// [`generate_contacts`]), with their distances and normals: from
    /// [`Shape::distance_lanes`], or for a mesh from its distance grid
    /// ([`MeshShape::grid_distance_x8`](crate::collision::MeshShape::grid_distance_x8)) and,
    /// for the lanes the grid leaves, its hierarchy; the
    /// bits of [`Shape::distance_within`] either way.
    fn touch(&self, shape: &Shape, carry: Option<&Carry>, hits: &mut GroupHits) {
        hits.touch = 0;
        for k in (0..self.len).step_by(LANE) {
            let (x, p) = (Self::lane_vec(&self.x, k), Self::lane_vec(&self.p, k));
            let (carried, start) = match carry {
                Some(m) => (m.carries_at_most_lanes(x, x), m.apply_lanes(x)),
                None => (Lane::ZERO, x),
            };
            let reach = Self::lane(&self.diameter, k) + (p - start).norm_squared().sqrt();
            let (d, n, touch) = match shape {
                // How a mesh answers depends on the reach.
                Shape::Mesh {
                    mesh,
                    position,
                    rotation,
                } => {
                    let local = rotate_lanes(&rotation.inverse(), p - LaneVec::splat(*position));
                    let (answered, mut d, n) = mesh.grid_distance_x8(local, reach);
                    let mut n = rotate_lanes(rotation, n).0.map(|c| c.to_array());
                    let free = (self.free >> k) as u32;
                    for l in (0..LANE).filter(|l| (free & !answered) >> l & 1 == 1) {
                        let at = Vec3::new(self.p[0][k + l], self.p[1][k + l], self.p[2][k + l]);
                        let (dl, nl) = shape.distance_within(at, reach.to_array()[l]);
                        d[l] = dl;
                        (0..3).for_each(|a| n[a][l] = nl[a]);
                    }
                    let d = Lane::new(d);
                    (d, LaneVec(n.map(Lane::new)), d.simd_lt(reach))
                }
                // Another shape's does not; a first bound, without a square root, is tested too.
                _ => {
                    let (d, n) = shape.distance_lanes(p).expect("a shape other than a mesh");
                    let bound = Self::lane(&self.diameter, k) + Self::lane(&self.travel, k);
                    let most = (bound + carried) * Lane::splat(1.0 + ROUNDING);
                    (d, n, d.simd_lt(most) & d.simd_lt(reach))
                }
            };
            hits.touch |= u64::from(touch.to_bitmask()) << k;
            hits.d[k..k + LANE].copy_from_slice(d.as_array());
            for (out, n) in hits.n.iter_mut().zip(n.0) {
                out[k..k + LANE].copy_from_slice(n.as_array());
            }
        }
        hits.touch &= self.free;
    }
}

/// Replaces `contacts` by one contact per free particle whose predicted position is within
/// reach of a collider: twice its collision distance `r`, plus its travel relative to the
/// collider in this substep (`|p − m(x)|` for its motion `m`, [`Carry`]). The
/// margin lets a contact catch a particle that other constraints push toward the surface during
/// projection; they move it by about as much as its neighbours travel, which is its own travel
/// where the body moves as one (a curtain swept by a paddle at 25 m/s: every particle travels
/// 4 cm per substep relative to it, and one beyond `2 r` of the rim is dragged inside by the
/// neighbours it pushes). A resting particle keeps the reach `2 r`, within the distance grid's
/// fast path of a mesh; an inactive contact costs one distance query per iteration and applies
/// nothing.
///
/// The test runs on eight particles at a time, SIMD lane by lane ([`Shape::distance_lanes`],
/// [`Carry::apply_lanes`]; a mesh from its distance grid, and particle by particle from its
/// hierarchy where the grid does not answer), with the bits it has for each particle alone.
/// The contacts are listed particle by particle, then collider by collider.
pub fn generate_contacts(
    ps: &ParticleSet,
    colliders: &[Collider],
    carries: &[Option<Carry>],
    (groups, near): (&ParticleGroups, &mut NearColliders),
    contacts: &mut ContactSet,
) {
    contacts.clear();
    if colliders.is_empty() {
        return;
    }
    near.with_scratch(colliders.len(), |near, scratch| {
        let LaneScratch { lanes, hits, .. } = scratch;
        let lanes = lanes.get_or_insert_with(GroupLanes::empty);
        for (group, near) in near.groups(groups) {
            lanes.load(ps, group.clone());
            let mut any = 0;
            for (((collider, carry), &near), hits) in
                colliders.iter().zip(carries).zip(near).zip(hits.iter_mut())
            {
                hits.touch = 0;
                if near {
                    lanes.touch(&collider.shape, carry.as_ref(), hits);
                    any |= hits.touch;
                }
            }
            while any != 0 {
                let k = any.trailing_zeros() as usize;
                any &= any - 1;
                let i = group.start + k;
                for (j, (collider, hits)) in colliders.iter().zip(hits.iter()).enumerate() {
                    if hits.touch >> k & 1 == 1 {
                        let (d, n) = (
                            hits.d[k],
                            Vec3::new(hits.n[0][k], hits.n[1][k], hits.n[2][k]),
                        );
                        let (x, p) = (ps.x[i], ps.p[i]);
                        let v = ps.v[i] - collider.surface_velocity(x);
                        contacts.push(i as u32, j as u32, n.dot(&v), (n, n.dot(&p) - d));
                    }
                }
            }
        }
    });
}

/// Pairs closer than this multiple of their contact distance get a contact.
const SEARCH_MARGIN: Real = 1.5;

/// Replaces `contacts` by one contact per pair of particles that may collide (see
/// [`ParticlePairs`]) and whose predicted positions are within `SEARCH_MARGIN` times their
/// contact distance `d` (a pair that the other constraints push together during projection is
/// caught; an inactive contact costs one distance per iteration; a wider margin than 1.5 made
/// the search and the projection dearer with no pair closer in the tests). Does nothing unless
/// the world has two bodies or one that self-collides. Generated every substep, like the
/// collider contacts, from candidate pairs that are searched again only when a particle has
/// moved more than half its radius since the last search (relative to the mean motion). While
/// no body collides with itself and the boxes of the bodies' particles ([`ParticleGroups`]) are
/// farther apart than any pair's margin, there is no pair to find and nothing is searched.
pub fn generate_particle_contacts(
    ps: &ParticleSet,
    bodies: &[Body],
    groups: &ParticleGroups,
    pairs: &mut ParticlePairs,
    contacts: &mut ParticleContactSet,
) {
    contacts.clear();
    if !pairs.active(bodies.len()) {
        return;
    }
    if !pairs.any_self_collision() && bodies_apart(ps, bodies, groups) {
        pairs.forget(ps);
        return;
    }
    pairs.for_each_pair(ps, SEARCH_MARGIN, |a, b, d| {
        let diff = ps.p[a] - ps.p[b];
        let len = diff.norm();
        let vn = if len > 0.0 {
            diff.dot(&(ps.v[a] - ps.v[b])) / len
        } else {
            0.0
        };
        contacts.push(a as u32, b as u32, d, vn);
    });
}

/// True when the boxes around the start and predicted positions of each body's particles
/// ([`ParticleGroups`]) are farther apart, along some axis, than `SEARCH_MARGIN` times the
/// largest radius, with an allowance for rounding: no two particles of different bodies are
/// then within `SEARCH_MARGIN` times their contact distance.
fn bodies_apart(ps: &ParticleSet, bodies: &[Body], groups: &ParticleGroups) -> bool {
    if !groups.groups.iter().all(|g| g.finite) {
        return false;
    }
    let (radius, size) = groups
        .groups
        .iter()
        .fold((0.0, 0.0), |(r, s): (Real, Real), g| {
            (
                r.max(g.radius),
                s.max(g.lo.abs().max()).max(g.hi.abs().max()),
            )
        });
    let reach = SEARCH_MARGIN * radius * (1.0 + ROUNDING) + ROUNDING * (1.0 + size);
    let apart = |(lo, hi): (Vec3, Vec3), (lo2, hi2): (Vec3, Vec3)| {
        (0..3).any(|a| lo2[a] - hi[a] > reach || lo[a] - hi2[a] > reach)
    };
    // Each body's box, found again for each pair rather than kept: a few group boxes each.
    let boxes = || {
        let bodies = bodies.iter().filter(|b| !b.particles.is_empty());
        bodies.map(|b| groups.bounds(ps, b.particles.clone()))
    };
    boxes()
        .enumerate()
        .all(|(k, a)| boxes().skip(k + 1).all(|b| apart(a, b)))
}

/// Replaces `contacts` by one contact per particle and cloth or soft-body surface of another body that
/// the particle touches (see [`BodySurface::touch`](crate::collision::BodySurface::touch)): its
/// path crossed the surface in this substep, or it ends within `SEARCH_MARGIN` times the
/// contact distance `d` of it, `d` the mean of the two bodies' thicknesses. A surface is
/// skinned and refitted only when some particle of another body comes within reach of the box
/// around its body's particles, so a body alone, or far from the others, costs one box test
/// per group of particles ([`ParticleGroups`]). The particles near the box are tested against
/// the surface's hierarchy eight at a time
/// ([`BodySurface::may_touch_x8`](crate::collision::BodySurface::may_touch_x8)), and only those
/// that may touch it are asked where, in increasing order.
pub fn generate_surface_contacts(
    ps: &ParticleSet,
    bodies: &[Body],
    groups: &ParticleGroups,
    surfaces: &mut BodySurfaces,
    contacts: &mut SurfaceContactSet,
) {
    contacts.clear();
    if bodies.len() < 2 {
        return;
    }
    surfaces.add_new(bodies, &ps.x);
    for surface in &mut surfaces.surfaces {
        let own = bodies[surface.body as usize].particles.clone();
        let (lo, hi) = groups.bounds(ps, own.clone());
        let thickness = ps.radius[own.start];
        let pinned = ps.inv_mass[own.clone()].iter().all(|&w| w == 0.0);
        // Particle `i`'s contact distance to the surface and its reach.
        let d = |i: usize| (ps.radius[i] + thickness) / 2.0;
        let reach = |i: usize| SEARCH_MARGIN * d(i);
        let near = |i: usize| {
            let (x, p, reach) = (ps.x[i], ps.p[i], reach(i));
            let fixed = pinned && ps.inv_mass[i] == 0.0;
            !own.contains(&i)
                && !fixed
                && (0..3)
                    .all(|a| x[a].min(p[a]) - reach <= hi[a] && x[a].max(p[a]) + reach >= lo[a])
        };
        let mut updated = false;
        for (range, g) in groups.ranges().zip(&groups.groups) {
            // A group of the body's own particles, or one that misses the body's box, holds no
            // particle `near` takes.
            let inside = own.start <= range.start && range.end <= own.end;
            if inside || g.misses(lo, hi, thickness) {
                continue;
            }
            let (mut ids, mut count) = ([0; GROUP], 0);
            for i in range.filter(|&i| near(i)) {
                (ids[count], count) = (i, count + 1);
            }
            if count > 0 && !updated {
                surface.update(ps);
                updated = true;
            }
            for chunk in ids[..count].chunks(LANE) {
                let lanes: [usize; LANE] = std::array::from_fn(|l| chunk[l.min(chunk.len() - 1)]);
                let path = (gather_vec3(&ps.x, &lanes), gather_vec3(&ps.p, &lanes));
                let active = (1 << chunk.len()) - 1;
                let mut may = surface.may_touch_x8(path, Lane::new(lanes.map(reach)), active);
                while may != 0 {
                    let i = chunk[may.trailing_zeros() as usize];
                    may &= may - 1;
                    if let Some(hit) = surface.touch(ps.x[i], ps.p[i], reach(i)) {
                        contacts.push(i as u32, hit.ids, hit.weights, hit.normal, d(i));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::Motion;
    use crate::constraints::SurfaceContactSet;
    use crate::math::Quat;

    /// Fifteen rows of twenty particles from 0.1 m below the plane `y = 0` to 0.1 m below the
    /// bottom of a sphere, each falling by 1 to 13 cm in the substep; every 37th is pinned.
    fn falling_rows() -> ParticleSet {
        let mut ps = ParticleSet::default();
        for i in 0..300u16 {
            let (column, row) = (Real::from(i % 20), Real::from(i / 20));
            let x = Vec3::new(column * 0.05, row * 0.08 - 0.1, 0.0);
            let pinned = i % 37 == 0;
            let k = ps.push(x, if pinned { 0.0 } else { 1.0 }, 0.01, 0);
            ps.p[k] = x + Vec3::new(0.003, -0.01 - Real::from(i % 7) * 0.02, 0.0);
            ps.v[k] = (ps.p[k] - x) * 60.0;
        }
        ps
    }

    fn colliders() -> Vec<Collider> {
        let plane = Shape::Plane {
            point: Vec3::zeros(),
            normal: Vec3::y(),
        };
        let sphere = Shape::Sphere {
            center: Vec3::new(0.5, 1.1, 0.0),
            radius: 0.2,
        };
        vec![Collider::new(plane), Collider::new(sphere)]
    }

    /// The swept predictions and the contacts of `ps` with `colliders`, testing the colliders
    /// `near` marks.
    fn sweep_and_contacts(
        ps: &ParticleSet,
        colliders: &[Collider],
        carries: &[Option<Carry>],
        near: &NearColliders,
    ) -> (Vec<Vec3>, ContactSet) {
        let (mut ps, mut contacts, mut near) = (ps.clone(), ContactSet::default(), near.clone());
        let groups = groups(&ps);
        sweep_colliders(&mut ps, colliders, carries, (&groups, &mut near));
        generate_contacts(&ps, colliders, carries, (&groups, &mut near), &mut contacts);
        (ps.p, contacts)
    }

    fn groups(ps: &ParticleSet) -> ParticleGroups {
        let mut groups = ParticleGroups::default();
        groups.find(ps);
        groups
    }

    /// The predicted positions and contacts with the colliders `near` each group, asserted
    /// equal to those found with every collider near every group.
    fn sweep_and_contacts_as_without_skipping(
        ps: &ParticleSet,
        colliders: &[Collider],
        carries: &[Option<Carry>],
        near: &NearColliders,
    ) -> (Vec<Vec3>, ContactSet) {
        let every = NearColliders {
            near: vec![true; near.near.len()],
            colliders: colliders.len(),
            ..Default::default()
        };
        let (p, contacts) = sweep_and_contacts(ps, colliders, carries, near);
        let (p_all, all) = sweep_and_contacts(ps, colliders, carries, &every);
        assert_eq!(p, p_all);
        assert_eq!(contacts.particle, all.particle);
        assert_eq!(contacts.collider, all.collider);
        assert_eq!(contacts.plane, all.plane);
        assert_eq!(contacts.normal_velocity, all.normal_velocity);
        (p, contacts)
    }

    #[test]
    fn colliders_far_from_a_group_are_skipped_and_no_sweep_or_contact_changes() {
        let (ps, colliders, carries) = (falling_rows(), colliders(), [None, None]);
        let mut near = NearColliders::default();
        near.find(&groups(&ps), &colliders, &carries);
        // Five groups, a flag for the plane then one for the sphere: the first two reach the
        // plane, the last two the sphere, the middle one neither.
        let expected = [1, 0, 1, 0, 0, 0, 0, 1, 0, 1].map(|n| n == 1);
        assert_eq!(near.near, expected);
        let (p, contacts) =
            sweep_and_contacts_as_without_skipping(&ps, &colliders, &carries, &near);
        // Not vacuous: the sweep stopped particles at the plane, and both colliders have
        // contacts.
        assert!(p.iter().zip(&ps.p).any(|(a, b)| a != b), "no sweep");
        assert!(contacts.collider.contains(&0) && contacts.collider.contains(&1));
    }

    /// The contacts of `ps` with `colliders`, particle by particle and collider by collider, as
    /// [`generate_contacts`] defines them.
    fn contacts_one_by_one(
        ps: &ParticleSet,
        colliders: &[Collider],
        carries: &[Option<Carry>],
    ) -> ContactSet {
        let mut contacts = ContactSet::default();
        for i in (0..ps.len()).filter(|&i| ps.inv_mass[i] > 0.0) {
            let (x, p, r) = (ps.x[i], ps.p[i], ps.radius[i]);
            for (j, (c, carry)) in colliders.iter().zip(carries).enumerate() {
                let reach = 2.0 * r + (p - carry.map_or(x, |m| m.apply(x))).norm();
                let (d, n) = c.shape.distance_within(p, reach);
                let carried = carry.map_or(0.0, |m| m.carries_at_most(x, x));
                let most = (2.0 * r + (p - x).abs().sum() + carried) * (1.0 + ROUNDING);
                let mesh = matches!(c.shape, Shape::Mesh { .. });
                if c.solid && d < reach && (mesh || d < most) {
                    let v = ps.v[i] - c.surface_velocity(x);
                    contacts.push(i as u32, j as u32, n.dot(&v), (n, n.dot(&p) - d));
                }
            }
        }
        contacts
    }

    #[test]
    fn contacts_tested_eight_at_a_time_are_those_of_each_particle_alone() {
        let mut ps = falling_rows();
        // A particle that is not finite gets no contact; its group is tested all the same.
        ps.p[201] = Vec3::new(Real::NAN, 0.5, 0.0);
        let cube = crate::mesh::generate::cube();
        let mut colliders = colliders();
        colliders.extend([
            Collider::new(Shape::Box {
                center: Vec3::new(0.3, 0.5, 0.0),
                half_extents: Vec3::new(0.2, 0.1, 0.3),
                rotation: Quat::from_axis_angle(&Vec3::z_axis(), 0.3),
            }),
            Collider::new(Shape::Capsule {
                a: Vec3::new(0.6, 0.3, -0.1),
                b: Vec3::new(0.9, 0.4, 0.1),
                radius: 0.05,
            }),
            Collider::new(Shape::Mesh {
                mesh: std::sync::Arc::new(crate::collision::MeshShape::new(&cube, 1.0)),
                position: Vec3::new(0.1, 0.75, -0.5),
                rotation: Quat::identity(),
            }),
        ]);
        colliders[4].motion = Motion {
            velocity: Vec3::new(0.0, 2.0, 0.0),
            spin: Vec3::new(0.0, 0.0, 3.0),
        };
        let carries: Vec<_> = colliders.iter_mut().map(|c| c.advance(0.01)).collect();
        let mut near = NearColliders::default();
        near.find(&groups(&ps), &colliders, &carries);
        let (p, contacts) = sweep_and_contacts(&ps, &colliders, &carries, &near);
        ps.p = p;
        let expected = contacts_one_by_one(&ps, &colliders, &carries);
        assert_eq!(contacts.particle, expected.particle);
        assert_eq!(contacts.collider, expected.collider);
        let bits = |c: &ContactSet| {
            let planes = c
                .plane
                .iter()
                .map(|(n, o)| (n.map(Real::to_bits), o.to_bits()));
            let speeds = c.normal_velocity.iter().map(|v| v.to_bits());
            (planes.collect::<Vec<_>>(), speeds.collect::<Vec<_>>())
        };
        assert_eq!(bits(&contacts), bits(&expected));
        // Not vacuous: every collider touches some particle.
        for j in 0..colliders.len() as u32 {
            assert!(
                contacts.collider.contains(&j),
                "no contact with collider {j}"
            );
        }
    }

    #[test]
    fn bodies_apart_search_no_pair_and_miss_none_when_they_near() {
        // Two ropes of 100 particles (two groups and a straddled one), the second lowered onto
        // the first in steps of 1 cm; the pairs found against those of a list searched afresh.
        let rope = |x: Real, y: Real| {
            let (start, end) = ([x, y, 0.0], [x + 1.0, y, 0.0]);
            format!(
                "[[rope]]\nstart = {start:?}\nend = {end:?}\nsegments = 99\nmass = 0.1\nthickness = 0.02\n"
            )
        };
        let scene = rope(0.0, 1.0) + &rope(0.005, 1.3);
        let world = crate::scene::parse_scene(&scene, std::path::Path::new("ropes.toml")).unwrap();
        let (mut ps, bodies) = (world.particles.clone(), world.bodies.clone());
        let (mut pairs, mut skipped, mut found) = (ParticlePairs::default(), 0, 0);
        for step in 0..40 {
            for i in bodies[1].particles.clone() {
                ps.p[i] = ps.x[i] - Vec3::new(0.0, 0.01 * step as Real, 0.0);
            }
            let groups = groups(&ps);
            skipped += usize::from(bodies_apart(&ps, &bodies, &groups));
            let mut contacts = ParticleContactSet::default();
            generate_particle_contacts(&ps, &bodies, &groups, &mut pairs, &mut contacts);
            let mut fresh = Vec::new();
            ParticlePairs::default().for_each_pair(&ps, SEARCH_MARGIN, |a, b, _| {
                fresh.push([a as u32, b as u32])
            });
            assert_eq!(contacts.ids, fresh, "step {step}");
            found += fresh.len();
        }
        // Not vacuous: the search was skipped while the ropes were apart, and pairs were found
        // once they met.
        assert!(
            skipped > 10 && found > 100,
            "{skipped} skipped, {found} pairs"
        );
    }

    #[test]
    fn surface_contacts_skip_far_groups_and_find_the_same_contacts() {
        // The soft bodies resting in the hammock, one substep's prediction ahead.
        let path = std::path::Path::new("scenes/soft-hammock.toml");
        let mut world = crate::scene::load_scene(path).unwrap().world;
        for _ in 0..30 {
            world.step().unwrap();
        }
        let mut ps = world.particles.clone();
        for i in 0..ps.len() {
            ps.p[i] = ps.x[i] + ps.v[i] * 0.002;
        }
        let mut groups = groups(&ps);
        let contacts = |groups: &ParticleGroups| {
            let (mut surfaces, mut contacts) = (world.body_surfaces.clone(), Default::default());
            generate_surface_contacts(&ps, &world.bodies, groups, &mut surfaces, &mut contacts);
            contacts
        };
        let skipping: SurfaceContactSet = contacts(&groups);
        // Not vacuous: contacts, and groups that miss a body's box by more than their reach.
        assert!(
            skipping.particle.len() > 20,
            "{} contacts",
            skipping.particle.len()
        );
        let skipped: usize = world
            .bodies
            .iter()
            .map(|b| {
                let (lo, hi) = groups.bounds(&ps, b.particles.clone());
                let thickness = ps.radius[b.particles.start];
                groups
                    .groups
                    .iter()
                    .filter(|g| g.misses(lo, hi, thickness))
                    .count()
            })
            .sum();
        assert!(skipped > 0, "no group skipped");
        // A group that is not finite is never skipped.
        groups.groups.iter_mut().for_each(|g| g.finite = false);
        let every = contacts(&groups);
        assert_eq!(skipping.particle, every.particle);
        assert_eq!(skipping.ids, every.ids);
        assert_eq!(skipping.weights, every.weights);
        assert_eq!(skipping.normal, every.normal);
        assert_eq!(skipping.distance, every.distance);
    }

    #[test]
    fn a_moving_collider_is_skipped_beyond_its_motion_and_a_non_finite_position_never() {
        let (mut ps, mut colliders) = (falling_rows(), colliders());
        colliders[1].motion = Motion {
            velocity: Vec3::new(0.0, -1.0, 0.0),
            spin: Vec3::new(0.0, 0.0, 2.0),
        };
        let carries: Vec<_> = colliders.iter_mut().map(|c| c.advance(0.01)).collect();
        assert!(carries[1].is_some());
        let mut near = NearColliders::default();
        near.find(&groups(&ps), &colliders, &carries);
        // The moving sphere in the last two groups, as the still one; no sweep or contact
        // changes from skipping the others.
        let expected = [1, 0, 1, 0, 0, 0, 0, 1, 0, 1].map(|n| n == 1);
        assert_eq!(near.near, expected);
        let (_, contacts) =
            sweep_and_contacts_as_without_skipping(&ps, &colliders, &carries, &near);
        assert!(contacts.collider.contains(&1), "no contact with the sphere");
        // The plane and the sphere in the group of a non-finite particle (the third).
        ps.p[150] = Vec3::new(Real::NAN, 0.5, 0.0);
        near.find(&groups(&ps), &colliders, &carries);
        let expected = [1, 0, 1, 0, 1, 1, 0, 1, 0, 1].map(|n| n == 1);
        assert_eq!(near.near, expected);
    }
}
