//! Graph coloring of constraints, and the drivers that project a constraint family serially, by
//! color in parallel, or Jacobi-style.
//!
//! Two constraints conflict when they share a particle. A *coloring* splits a family into
//! colors in which no two constraints conflict, so the constraints of one color can be projected
//! in parallel without any two of them touching the same particle. The coloring is computed once,
//! when a body is built, from the particle ids alone (never from the thread count): the family's
//! arrays are reordered so that every color is a contiguous range, followed by an *overflow* range
//! of the constraints that did not fit under the color cap, which is projected serially (box2d v3
//! `constraint_graph.c`, rapier's `interaction_groups.rs`).
//!
//! The greedy first-fit coloring below is the bit-mask greedy of rapier: each particle keeps a
//! 64-bit mask of the colors already touching it; a constraint takes the lowest color free at all
//! of its particles. Pinned particles are not treated specially: every particle counts for
//! conflicts, so a parallel pass never writes (not even `+= 0`) to a particle another thread
//! reads.
//!
//! Because the constraints of a color are independent, projecting a color in parallel gives
//! exactly the result of walking it serially, whatever the number of threads: the colored solver
//! is bit-identical to the Gauss-Seidel solver walking the same (color) order.

use crate::constraints::Coeffs;
use crate::math::{Real, Vec3};
use crate::particles::ParticleSet;
use rayon::prelude::*;
use std::marker::PhantomData;
use std::ops::Range;

/// Most colors a family gets (one bit each in a particle's mask); the rest overflow.
pub const MAX_COLORS: usize = 64;

/// Constraints per rayon task in a colored pass: large enough that a task (a few µs of work)
/// costs far more than its scheduling, small enough to balance two cores on the colors of a
/// 64 x 64 cloth (about 2,000 constraints each). A smaller color is one task.
pub const PAR_CHUNK: usize = 512;

/// Relaxation factor `ω` of the Jacobi solver: a constraint whose particles carry at most `n`
/// constraints applies `ω / n` of its correction (after the averaging of Macklin et al. 2014,
/// "Unified Particle Physics for Real-Time Applications", sec. 4.2, which recommends
/// `1 ≤ ω ≤ 2`; see [`project_jacobi`]).
pub const JACOBI_OMEGA: Real = 1.5;

/// The colors of a family: `order[new] = old` index of each constraint after reordering, and
/// `offsets`, where color `c` is `offsets[c]..offsets[c + 1]` in the new order and the overflow
/// range is `offsets[last]..len`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coloring {
    /// For each position in the colored order, the constraint's index before reordering.
    pub order: Vec<u32>,
    /// Start of each color, then the start of the overflow range (`offsets[0] = 0`).
    pub offsets: Vec<usize>,
}

/// Greedy first-fit coloring of constraints given by their particle ids, visiting them in order.
/// Constraints that find none of the [`MAX_COLORS`] colors free go to the overflow range.
pub fn greedy<const K: usize>(ids: &[[u32; K]]) -> Coloring {
    let particles = ids.iter().flatten().max().map_or(0, |&m| m as usize + 1);
    let mut mask = vec![0u64; particles];
    let mut color = Vec::with_capacity(ids.len());
    let mut count = [0usize; MAX_COLORS + 1];
    for c in ids {
        let used = c.iter().fold(0, |m, &i| m | mask[i as usize]);
        let k = (!used).trailing_zeros() as usize;
        if k < MAX_COLORS {
            c.iter().for_each(|&i| mask[i as usize] |= 1 << k);
        }
        color.push(k);
        count[k] += 1;
    }
    let colors = count[..MAX_COLORS]
        .iter()
        .rposition(|&n| n > 0)
        .map_or(0, |last| last + 1);
    let mut start = vec![0usize; MAX_COLORS + 1];
    for k in 1..=MAX_COLORS {
        start[k] = start[k - 1] + count[k - 1];
    }
    let mut offsets = start[..=colors].to_vec();
    offsets[colors] = start[MAX_COLORS];
    let mut order = vec![0u32; ids.len()];
    for (old, &k) in color.iter().enumerate() {
        order[start[k]] = old as u32;
        start[k] += 1;
    }
    Coloring { order, offsets }
}

/// Checks the coloring invariant of a reordered family: within each color of `offsets`, no two
/// constraints share a particle, and the offsets are sorted within `0..=ids.len()`.
pub fn validate<const K: usize>(ids: &[[u32; K]], offsets: &[usize]) -> Result<(), String> {
    if offsets.first().is_some_and(|&o| o != 0)
        || offsets.windows(2).any(|w| w[0] > w[1])
        || offsets.last().is_some_and(|&o| o > ids.len())
    {
        return Err(format!(
            "bad color offsets {offsets:?} for {} constraints",
            ids.len()
        ));
    }
    let particles = ids.iter().flatten().max().map_or(0, |&m| m as usize + 1);
    // The color and constraint that last touched each particle.
    let mut owner = vec![(usize::MAX, usize::MAX); particles];
    for (k, w) in offsets.windows(2).enumerate() {
        for (c, constraint) in ids.iter().enumerate().take(w[1]).skip(w[0]) {
            for &i in constraint {
                let (color, other) = owner[i as usize];
                if color == k && other != c {
                    return Err(format!(
                        "color {k}: particle {i} is shared by constraints {other} and {c}"
                    ));
                }
                owner[i as usize] = (k, c);
            }
        }
    }
    Ok(())
}

/// Reorders `v` so that `v_new[n] = v_old[order[n]]`.
pub fn permute<T: Copy>(v: &mut Vec<T>, order: &[u32]) {
    *v = order.iter().map(|&i| v[i as usize]).collect();
}

/// Predicted positions shared by the threads of a colored pass: a raw view of `ParticleSet::p`
/// that hands out reads and writes of single particles.
///
/// Invariant (the caller's, stated by the `unsafe` methods): while a thread reads or writes
/// particle `i` through the view, no other thread accesses particle `i`. The colored driver
/// upholds it because the constraints of one color share no particle ([`validate`] asserts this
/// whenever a family is colored, in release builds too, and a family's ids cannot change afterwards except by appending to
/// its serial overflow range). Indices are bounds-checked.
pub struct Positions<'a> {
    ptr: *mut Vec3,
    len: usize,
    _borrow: PhantomData<&'a mut [Vec3]>,
}

// SAFETY: the view only gives access through the unsafe methods below, whose contract forbids
// two threads touching the same particle.
unsafe impl Send for Positions<'_> {}
// SAFETY: as above.
unsafe impl Sync for Positions<'_> {}

impl<'a> Positions<'a> {
    /// A view of `p`, borrowed exclusively for the view's lifetime.
    pub fn new(p: &'a mut [Vec3]) -> Self {
        Positions {
            ptr: p.as_mut_ptr(),
            len: p.len(),
            _borrow: PhantomData,
        }
    }

    /// The position of particle `i`, m.
    ///
    /// # Safety
    /// No other thread writes particle `i` during the call.
    #[inline]
    pub unsafe fn get(&self, i: usize) -> Vec3 {
        assert!(i < self.len, "particle {i} out of {}", self.len);
        // SAFETY: in bounds; no concurrent write by the caller's contract.
        unsafe { *self.ptr.add(i) }
    }

    /// Moves particle `i` by `d`, m.
    ///
    /// # Safety
    /// No other thread reads or writes particle `i` during the call.
    #[inline]
    pub unsafe fn add(&self, i: usize, d: Vec3) {
        assert!(i < self.len, "particle {i} out of {}", self.len);
        // SAFETY: in bounds; exclusive access to element `i` by the caller's contract.
        unsafe { *self.ptr.add(i) += d }
    }
}

/// The position corrections of one constraint over its `K` particles, and its multiplier change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Correction<const K: usize> {
    /// The particles, as indices into the particle set.
    pub ids: [usize; K],
    /// Correction of each particle, m.
    pub dp: [Vec3; K],
    /// Change of the constraint's Lagrange multiplier.
    pub delta_lambda: Real,
}

/// A constraint family as seen by the drivers: its constraints' particles and the correction of
/// one constraint (computed by the family's pure `solve_*` kernel).
pub trait Kernel<const K: usize>: Sync {
    /// The particles of constraint `c`.
    fn particles(&self, c: usize) -> [usize; K];

    /// Whether any material of the family has XPBD damping (which reads `p − x`).
    fn damped(&self) -> bool;

    /// The correction of constraint `c`, whose multiplier is `lambda`, from the positions `p`
    /// (and `x`, the substep's start positions, only when `DAMPED`) and inverse masses `w`. It
    /// reads `p` only at, and corrects only, the particles of [`Kernel::particles`]`(c)`.
    ///
    /// # Safety
    /// No other thread writes the constraint's particles during the call.
    unsafe fn correction<const DAMPED: bool>(
        &self,
        c: usize,
        lambda: Real,
        p: &Positions,
        x: &[Vec3],
        w: &[Real],
    ) -> Option<Correction<K>>;
}

/// Projects constraint `c` and applies its correction: the body shared by the serial and colored
/// drivers.
///
/// # Safety
/// No other thread accesses the constraint's particles during the call.
#[inline(always)]
unsafe fn project_one<const K: usize, const DAMPED: bool, F: Kernel<K>>(
    family: &F,
    c: usize,
    lambda: &mut Real,
    p: &Positions,
    x: &[Vec3],
    w: &[Real],
) {
    // SAFETY: forwarded from the caller.
    if let Some(r) = unsafe { family.correction::<DAMPED>(c, *lambda, p, x, w) } {
        for (&i, &dp) in r.ids.iter().zip(&r.dp) {
            // SAFETY: forwarded from the caller.
            unsafe { p.add(i, dp) };
        }
        *lambda += r.delta_lambda;
    }
}

/// Projects the constraints `start..start + lambda.len()` in order (`lambda` holds their
/// multipliers): the loop shared by the serial driver and the tasks of the colored driver.
///
/// # Safety
/// No other thread accesses the particles of these constraints during the call.
unsafe fn walk<const K: usize, const DAMPED: bool, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    start: usize,
    p: &Positions,
    x: &[Vec3],
    w: &[Real],
) {
    for (n, l) in lambda.iter_mut().enumerate() {
        // SAFETY: forwarded from the caller.
        unsafe { project_one::<K, DAMPED, F>(family, start + n, l, p, x, w) };
    }
}

/// Projects constraints `range` of `family` in order, Gauss-Seidel style.
pub fn project_serial<const K: usize, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    ps: &mut ParticleSet,
    range: Range<usize>,
) {
    let p = Positions::new(&mut ps.p);
    let (x, w) = (&ps.x, &ps.inv_mass);
    let (start, lambda) = (range.start, &mut lambda[range]);
    // SAFETY: one thread walks the constraints one after another.
    unsafe {
        if family.damped() {
            walk::<K, true, F>(family, lambda, start, &p, x, w);
        } else {
            walk::<K, false, F>(family, lambda, start, &p, x, w);
        }
    }
}

fn colored<const K: usize, const DAMPED: bool, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    offsets: &[usize],
    p: &Positions,
    x: &[Vec3],
    w: &[Real],
) {
    for color in offsets.windows(2) {
        let (start, end) = (color[0], color[1]);
        lambda[start..end]
            .par_chunks_mut(PAR_CHUNK)
            .enumerate()
            .for_each(|(n, chunk)| {
                // SAFETY: the constraints of one color share no particle (the caller's
                // contract), so no two tasks touch the same particle.
                unsafe { walk::<K, DAMPED, F>(family, chunk, start + n * PAR_CHUNK, p, x, w) }
            });
    }
    let overflow = offsets.last().copied().unwrap_or(0);
    // SAFETY: the parallel passes are over; this thread alone walks the overflow range.
    unsafe { walk::<K, DAMPED, F>(family, &mut lambda[overflow..], overflow, p, x, w) };
}

/// Projects every constraint of `family`: each color of `offsets` in parallel, one color after
/// another, then the overflow range serially. The result is bit-identical to
/// [`project_serial`] over the whole family, for any number of threads.
///
/// # Safety
/// `offsets` is a valid coloring of the family ([`validate`] passes on the ids of
/// [`Kernel::particles`]), and each constraint's [`Kernel::correction`] reads and writes only
/// the particles of [`Kernel::particles`].
pub unsafe fn project_colored<const K: usize, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    offsets: &[usize],
    ps: &mut ParticleSet,
) {
    let p = Positions::new(&mut ps.p);
    let (x, w) = (&ps.x, &ps.inv_mass);
    if family.damped() {
        colored::<K, true, F>(family, lambda, offsets, &p, x, w);
    } else {
        colored::<K, false, F>(family, lambda, offsets, &p, x, w);
    }
}

/// Scratch buffers of the Jacobi solver, kept between steps so that a step does not allocate.
#[derive(Clone, Debug, Default)]
pub struct JacobiScratch {
    /// Sum of the relaxed corrections each particle received in the current pass, m.
    sum: Vec<Vec3>,
    /// Number of the family's constraints on each particle.
    count: Vec<u32>,
}

fn jacobi<const K: usize, const DAMPED: bool, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    ps: &mut ParticleSet,
    scratch: &mut JacobiScratch,
) {
    for c in 0..lambda.len() {
        for i in family.particles(c) {
            scratch.count[i] += 1;
        }
    }
    let p = Positions::new(&mut ps.p);
    for (c, l) in lambda.iter_mut().enumerate() {
        // SAFETY: single thread; the view is only read during the sweep.
        if let Some(r) = unsafe { family.correction::<DAMPED>(c, *l, &p, &ps.x, &ps.inv_mass) } {
            let most = r.ids.iter().map(|&i| scratch.count[i]).max().unwrap_or(1);
            let relax = JACOBI_OMEGA / most as Real;
            for (&i, dp) in r.ids.iter().zip(r.dp) {
                scratch.sum[i] += dp * relax;
            }
            *l += r.delta_lambda * relax;
        }
    }
    for ((p, sum), count) in
        ps.p.iter_mut()
            .zip(&mut scratch.sum)
            .zip(&mut scratch.count)
    {
        *p += *sum;
        *sum = Vec3::zeros();
        *count = 0;
    }
}

/// Projects every constraint of `family` Jacobi-style: all corrections are computed from the
/// same positions and then applied together, each scaled by the relaxation `ω / n`, with `ω`
/// [`JACOBI_OMEGA`] and `n` the largest number of the family's constraints on any of its
/// particles. Where every particle has `n` constraints this is the averaging of Macklin et al.
/// 2014 (`Δxᵢ = ω/nᵢ Σ Δxᵢ`); scaling per constraint rather than per particle keeps each
/// multiplier equal to the impulse actually applied, so XPBD keeps its compliance (per-particle
/// averaging makes a rope `n / ω` times too soft), and no particle moves by more than `ω` times
/// the mean of its corrections.
pub fn project_jacobi<const K: usize, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    ps: &mut ParticleSet,
    scratch: &mut JacobiScratch,
) {
    scratch.sum.resize(ps.len(), Vec3::zeros());
    scratch.count.resize(ps.len(), 0);
    if family.damped() {
        jacobi::<K, true, F>(family, lambda, ps, scratch);
    } else {
        jacobi::<K, false, F>(family, lambda, ps, scratch);
    }
}

/// Whether any of `coeffs` has XPBD damping.
pub fn any_damped(coeffs: &[Coeffs]) -> bool {
    coeffs.iter().any(|k| k.gamma != 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reorder<const K: usize>(ids: &[[u32; K]]) -> (Vec<[u32; K]>, Coloring) {
        let coloring = greedy(ids);
        let mut v = ids.to_vec();
        permute(&mut v, &coloring.order);
        (v, coloring)
    }

    #[test]
    fn a_chain_takes_two_colors() {
        let ids: Vec<[u32; 2]> = (0..10).map(|i| [i, i + 1]).collect();
        let (v, coloring) = reorder(&ids);
        assert_eq!(coloring.offsets, vec![0, 5, 10]);
        assert_eq!(v[..5], [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]);
        validate(&v, &coloring.offsets).unwrap();
    }

    #[test]
    fn a_star_overflows_past_the_cap() {
        let ids: Vec<[u32; 2]> = (1..=MAX_COLORS as u32 + 5).map(|i| [0, i]).collect();
        let (v, coloring) = reorder(&ids);
        assert_eq!(coloring.offsets.len(), MAX_COLORS + 1);
        assert_eq!(*coloring.offsets.last().unwrap(), MAX_COLORS);
        validate(&v, &coloring.offsets).unwrap();
    }

    #[test]
    fn validator_rejects_a_shared_particle() {
        assert!(validate(&[[0, 1], [1, 2]], &[0, 2]).is_err());
        assert!(validate(&[[0, 1], [1, 2]], &[0, 1, 2]).is_ok());
    }

    proptest! {
        #[test]
        fn greedy_coloring_is_valid_on_random_meshes(
            tris in prop::collection::vec([0u32..60, 0u32..60, 0u32..60], 0..200),
        ) {
            let tris: Vec<[u32; 3]> = tris.into_iter().filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2]).collect();
            let edges = crate::mesh::topology::edges(&tris);
            let (v, coloring) = reorder(&edges);
            prop_assert!(validate(&v, &coloring.offsets).is_ok());
            let mut sorted = coloring.order.clone();
            sorted.sort_unstable();
            prop_assert_eq!(sorted, (0..edges.len() as u32).collect::<Vec<_>>());
            let quads = crate::mesh::topology::triangle_pairs(&tris);
            let (q, qc) = reorder(&quads);
            prop_assert!(validate(&q, &qc.offsets).is_ok());
        }
    }
}
