//! The particles as the projection sees them: predicted positions packed beside inverse masses
//! in 16-byte [`Slot`]s, and the raw [`Positions`] view through which the threads of a colored
//! pass read and write single particles.
//!
//! Positions in the slots are relative to a per-body origin (the start position of the body's
//! first particle, chosen every substep), so that the projection keeps the precision of
//! coordinates the size of the body wherever the body is: in world coordinates a correction
//! smaller than half an ulp of `|p|` (61 µm at 1 km) is lost while the XPBD multiplier that
//! asked for it keeps growing, which made a material softer far from the origin. What `f32`
//! world coordinates cannot hold of a position is kept beside it (see
//! [`ParticleSet::rounding`] and [`ParticleSet::residual`]).

use super::team::{Split, Team};
use crate::math::{Coords, Flat4, Real, Vec3};
use crate::particles::ParticleSet;
use std::marker::PhantomData;

/// Predicted positions and inverse masses shared by the threads of a colored pass: a raw view of
/// the projection's [`Slot`]s that hands out reads and writes of single particles.
///
/// Invariant (the caller's, stated by the `unsafe` methods and by whoever dereferences a
/// [`Positions::slot`] pointer): while a thread reads or writes particle `i` through the view, no
/// other thread accesses particle `i`. The colored driver upholds it because the blocks of one
/// color share no particle ([`validate`](super::schedule::validate) asserts this whenever a family is scheduled, in release
/// builds too, and a family's ids cannot change afterwards except by appending to its serial
/// tail). Indices are bounds-checked.
pub struct Positions<'a> {
    ptr: *mut Slot,
    len: usize,
    _borrow: PhantomData<&'a mut [Slot]>,
}

// SAFETY: the view only gives access through the unsafe methods below and raw pointers, whose
// contract forbids two threads touching the same particle.
unsafe impl Send for Positions<'_> {}
// SAFETY: as above.
unsafe impl Sync for Positions<'_> {}

impl<'a> Positions<'a> {
    /// A view of `slots`, borrowed exclusively for the view's lifetime.
    pub fn new(slots: &'a mut [Slot]) -> Self {
        Positions {
            ptr: slots.as_mut_ptr(),
            len: slots.len(),
            _borrow: PhantomData,
        }
    }

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the view holds no particle.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A pointer to the slot of particle `i`, valid for the view's lifetime; panics when `i` is
    /// out of bounds.
    #[inline(always)]
    pub fn slot(&self, i: usize) -> *mut Slot {
        assert!(i < self.len, "particle {i} out of {}", self.len);
        // SAFETY: in bounds of the borrowed slice.
        unsafe { self.ptr.add(i) }
    }

    /// The slot at byte offset `offset` (16 times the particle's index), valid for the view's
    /// lifetime.
    ///
    /// # Safety
    /// `offset / 16` is less than [`Positions::len`], and `offset` a multiple of 16.
    #[inline(always)]
    pub unsafe fn slot_at(&self, offset: u32) -> *mut Slot {
        // SAFETY: in bounds by the caller's contract.
        unsafe { self.ptr.byte_add(offset as usize) }
    }

    /// The position and inverse mass of particle `i`.
    ///
    /// # Safety
    /// No other thread writes particle `i` during the call.
    #[inline(always)]
    pub unsafe fn get(&self, i: usize) -> Slot {
        // SAFETY: valid pointer; no concurrent write by the caller's contract.
        unsafe { *self.slot(i) }
    }

    /// Moves particle `i` by `d`, m.
    ///
    /// # Safety
    /// No other thread reads or writes particle `i` during the call.
    #[inline(always)]
    pub unsafe fn add(&self, i: usize, d: Vec3) {
        // SAFETY: valid pointer; exclusive access to particle `i` by the caller's contract.
        unsafe { (*self.slot(i)).p += d }
    }
}

/// What a projection reads and writes of the particles: the predicted positions with the
/// inverse masses (shared), and the substep's start positions.
pub struct View<'a> {
    /// Predicted positions `p` (m) and inverse masses (1/kg).
    pub p: Positions<'a>,
    /// Positions at the start of the substep, relative to the same origins as `p`, m.
    pub x: &'a [Vec3],
}

impl<'a> View<'a> {
    /// A view of `slots` (see [`pack`]) and
    /// the start positions `x`.
    pub fn new(slots: &'a mut [Slot], x: &'a [Vec3]) -> Self {
        View {
            p: Positions::new(slots),
            x,
        }
    }
}

/// A particle as the constraint projection sees it: its predicted position beside its inverse
/// mass in one 16-byte aligned slot, so that one vector load fetches all a constraint needs of
/// the particle (see [`pack`]).
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Slot {
    /// Predicted position, m.
    pub p: Vec3,
    /// Inverse mass, 1/kg.
    pub w: Real,
}

impl Slot {
    /// The slot of a particle at `(x, y, z)` with inverse mass `w`.
    #[inline(always)]
    pub fn new(x: Real, y: Real, z: Real, w: Real) -> Self {
        Slot {
            p: Vec3::new(x, y, z),
            w,
        }
    }
}

/// Copies the predicted positions (`p − rounding`) and the inverse masses of `ps` into `slots`,
/// one [`Slot`] per particle, and, when `with_starts` (something will read them), the substep's
/// start positions (`x + residual`) into `starts`, both relative to the origin of their body
/// (`origins[body]`); the buffers are resized to fit (they allocate only when the particle count
/// grows). Spread over `team`.
///
/// `lost` receives, per particle, what the slot's `f32` position leaves out of the exact
/// relative position (computed without rounding by [`two_sum`]); [`unpack`] adds it back.
pub fn pack(
    ps: &ParticleSet,
    origins: &[Vec3],
    slots: &mut Vec<Slot>,
    (starts, lost): (&mut Vec<Vec3>, &mut Vec<Vec3>),
    with_starts: bool,
    team: &Team,
) {
    slots.resize(ps.len(), Slot::default());
    starts.resize(ps.len(), Vec3::zeros());
    lost.resize(ps.len(), Vec3::zeros());
    let fields = (
        (&mut slots[..], &mut starts[..], &mut lost[..]),
        ((&ps.p[..], &ps.rounding[..]), (&ps.x[..], &ps.residual[..])),
        (&ps.inv_mass[..], &ps.body[..]),
    );
    team.for_each_chunk(fields, |_, (out, (p, x), (inv_mass, body))| {
        for_each_body(((out, p), (x, inv_mass)), body, |b, ((out, p), (x, w))| {
            let start = with_starts.then_some(x);
            pack_body(origins[b as usize], (p, w), start, out);
        });
    });
}

/// Calls `f(b, part)` on each run of `parts` (slices of one length, see [`Split`]) whose
/// particles all belong to one body `b`, in order; `body` holds each particle's body.
#[inline(always)]
fn for_each_body<S: Split>(mut parts: S, mut body: &[u32], mut f: impl FnMut(u32, S)) {
    while let Some(&b) = body.first() {
        let run = body.iter().position(|&c| c != b).unwrap_or(body.len());
        let (head, tail) = parts.split_at(run);
        f(b, head);
        (parts, body) = (tail, &body[run..]);
    }
}

/// [`pack`] of the particles of one body, whose origin is `o`: four at a time ([`Flat4`]), the
/// rest one by one.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn pack_body(
    o: Vec3,
    from: ((&[Vec3], &[Vec3]), &[Real]),
    start: Option<(&[Vec3], &[Vec3])>,
    (slots, starts, lost): (&mut [Slot], &mut [Vec3], &mut [Vec3]),
) {
    let len = slots.len();
    let whole = len / 4 * 4;
    for k in (0..whole).step_by(4) {
        pack_at::<Flat4>(o, k, from, start, (slots, lost, starts));
    }
    for k in whole..len {
        pack_at::<Vec3>(o, k, from, start, (slots, lost, starts));
    }
}

/// [`pack`] of the `T::N` particles from `k` of the slices, all of a body whose origin is `o`:
/// from their predicted positions and roundings `p` and inverse masses `w` into their slots and
/// `lost`, and, when given their start positions and residuals, into `starts`. The slices of
/// exactly `T::N` particles taken first leave the loads and stores no bounds to check.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn pack_at<T: Coords>(
    o: Vec3,
    k: usize,
    ((p, r), w): ((&[Vec3], &[Vec3]), &[Real]),
    start: Option<(&[Vec3], &[Vec3])>,
    (slots, lost, starts): (&mut [Slot], &mut [Vec3], &mut [Vec3]),
) {
    let at = k..k + T::N;
    let (slots, w) = (&mut slots[at.clone()], &w[at.clone()]);
    let o = T::splat(o);
    let (d, err) = two_sum(T::load(&p[at.clone()]), -o);
    let (local, left) = two_sum(d, err - T::load(&r[at.clone()]));
    let mut moved = [Vec3::zeros(); 4];
    local.store(&mut moved);
    for n in 0..T::N {
        slots[n] = Slot {
            p: moved[n],
            w: w[n],
        };
    }
    left.store(&mut lost[at.clone()]);
    if let Some((x, e)) = start {
        let (d, err) = two_sum(T::load(&x[at.clone()]), -o);
        (d + (err + T::load(&e[at.clone()]))).store(&mut starts[at]);
    }
}

/// `a + b` rounded, and its rounding error: `a + b` is exactly their sum (Knuth's TwoSum, per
/// component).
#[inline(always)]
pub fn two_sum<T>(a: T, b: T) -> (T, T)
where
    T: Copy + std::ops::Add<Output = T> + std::ops::Sub<Output = T>,
{
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// Copies the positions of `slots` (from [`pack`] with the same `origins` and `lost`) back into
/// the predicted positions of `ps`, in world coordinates, with their rounding in `ps.rounding`;
/// spread over `team`.
pub fn unpack(slots: &[Slot], origins: &[Vec3], lost: &[Vec3], ps: &mut ParticleSet, team: &Team) {
    let fields = (
        (&mut ps.p[..], &mut ps.rounding[..]),
        (slots, lost),
        &ps.body[..],
    );
    team.for_each_chunk(fields, |_, (out, from, body)| {
        for_each_body((out, from), body, |b, ((p, rounding), (slots, lost))| {
            let o = origins[b as usize];
            let whole = p.len() / 4 * 4;
            for k in (0..whole).step_by(4) {
                unpack_at::<Flat4>(o, k, (slots, lost), (p, rounding));
            }
            for k in whole..p.len() {
                unpack_at::<Vec3>(o, k, (slots, lost), (p, rounding));
            }
        });
    });
}

/// [`unpack`] of the `T::N` particles from `k` of the slices, all of a body whose origin is
/// `o`: their slots' positions and `lost` back to world positions and roundings.
#[inline(always)]
fn unpack_at<T: Coords>(
    o: Vec3,
    k: usize,
    (slots, lost): (&[Slot], &[Vec3]),
    (p, rounding): (&mut [Vec3], &mut [Vec3]),
) {
    let at = k..k + T::N;
    let slots = &slots[at.clone()];
    let local: [Vec3; 4] = std::array::from_fn(|n| slots[n.min(T::N - 1)].p);
    let (world, err) = two_sum(T::load(&local), T::splat(o));
    world.store(&mut p[at.clone()]);
    (-(err + T::load(&lost[at.clone()]))).store(&mut rounding[at]);
}

/// Adds to `slots` what was done to the predicted positions of `ps` since [`unpack`] wrote them
/// (with the same `origins`): a particle nobody moved keeps its slot, with the bits that world
/// coordinates cannot hold, and a moved one gets the move. Spread over `team`.
pub fn repack(ps: &ParticleSet, origins: &[Vec3], slots: &mut [Slot], team: &Team) {
    let fields = (slots, &ps.p[..], &ps.body[..]);
    team.for_each_chunk(fields, |_, (slots, p, body)| {
        for ((s, &p), &b) in slots.iter_mut().zip(p).zip(body) {
            let o = origins[b as usize];
            s.p += p - (s.p + o);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bodies of 1, 3, 5, 7 and 2 particles far from the origin, packed and unpacked together,
    /// give each particle the bits it gets packed and unpacked alone with its body's origin:
    /// every run of a body takes that body's origin, whether four particles at a time or one.
    #[test]
    fn each_body_is_packed_with_its_own_origin() {
        let lens = [1, 3, 5, 7, 2];
        let origins: Vec<Vec3> = (0..lens.len())
            .map(|b| Vec3::new(1000.0 + b as Real, -3.5 * b as Real, 0.25))
            .collect();
        let mut ps = ParticleSet::default();
        for (b, &n) in lens.iter().enumerate() {
            for k in 0..n {
                let f = (b * 10 + k) as Real;
                let x = Vec3::new(999.0 + f * 0.37, f * -1.3, f / 7.0);
                let i = ps.push(x, 1.0 / (f + 1.0), 0.01, b as u32);
                ps.p[i] = x + Vec3::new(0.001 * f, 0.1, -0.01);
                ps.rounding[i] = Vec3::new(3e-5, -2e-5, 1e-5) * f;
                ps.residual[i] = Vec3::new(-1e-5, 4e-5, 2e-5) * f;
            }
        }
        let round_trip = |ps: &ParticleSet, origins: &[Vec3]| {
            let (mut slots, mut starts, mut lost) = (Vec::new(), Vec::new(), Vec::new());
            let mut out = ps.clone();
            Team::scope(1, |team| {
                pack(
                    ps,
                    origins,
                    &mut slots,
                    (&mut starts, &mut lost),
                    true,
                    team,
                );
                unpack(&slots, origins, &lost, &mut out, team);
            });
            let slot_bits = slots.iter().flat_map(|s| [s.p.x, s.p.y, s.p.z, s.w]);
            let vec_bits = |v: &[Vec3]| v.iter().flat_map(|v| [v.x, v.y, v.z]).collect::<Vec<_>>();
            let all: Vec<Real> = slot_bits
                .chain(vec_bits(&starts))
                .chain(vec_bits(&lost))
                .chain(vec_bits(&out.p))
                .chain(vec_bits(&out.rounding))
                .collect();
            all.into_iter().map(Real::to_bits).collect::<Vec<_>>()
        };
        let together = round_trip(&ps, &origins);
        // Per particle: its slot (4), start, lost, position and rounding (3 each).
        let fields = [4, 3, 3, 3, 3];
        let n = ps.len();
        for i in 0..n {
            let mut alone = ParticleSet::default();
            let b = ps.body[i] as usize;
            alone.push(ps.x[i], ps.inv_mass[i], 0.01, 0);
            (alone.p[0], alone.rounding[0], alone.residual[0]) =
                (ps.p[i], ps.rounding[i], ps.residual[i]);
            let one = round_trip(&alone, &[origins[b]]);
            let (mut at, mut from) = (0, 0);
            for size in fields {
                let mine = &together[at + i * size..at + (i + 1) * size];
                assert_eq!(mine, &one[from..from + size], "particle {i}, body {b}");
                (at, from) = (at + n * size, from + size);
            }
        }
    }
}
