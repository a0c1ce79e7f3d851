//! The order in which a constraint family is projected, its graph coloring into parallel
//! blocks, and the drivers that project a family serially, by color in parallel, or
//! Jacobi-style.
//!
//! Two constraints conflict when they share a particle. When a body is built, each family's
//! arrays are reordered once, from the particle ids alone (never from the thread count), into a
//! [`Schedule`]:
//!
//! - **Blocks.** The family, in build order, is cut into at most [`MAX_BLOCKS`] contiguous
//!   blocks, and the blocks are graph-colored: two blocks conflict when one of their constraints
//!   do. A cloth built row by row gives slabs of rows, where only neighbouring slabs conflict, so
//!   two colors (even and odd slabs). The colored driver projects the colors one after another
//!   and the blocks of a color in parallel over a [`Team`] of threads (box2d v3
//!   `constraint_graph.c` and rapier's `interaction_groups.rs` color single constraints; coloring
//!   blocks keeps the Gauss-Seidel sweep of each block in build order, see below).
//! - **Batches.** Inside a block the constraints are regrouped into batches of up to [`LANES`]
//!   constraints that share no particle, placing each constraint in the earliest batch after
//!   every earlier constraint it conflicts with. Conflicting constraints therefore keep their
//!   build order, so walking the reordered block gives exactly the result of walking it in build
//!   order, while consecutive constraints are independent and the processor overlaps their
//!   square roots and divisions instead of waiting on each other through memory.
//!
//! Walking the whole family block after block ([`project_serial`]) is therefore Gauss-Seidel in
//! build order: for a cloth built from its pinned edge down, the pins' support travels through the
//! whole cloth in one sweep. Coloring single constraints instead (every color spread over the
//! whole cloth) moved it one color per sweep and, on the 128 x 128 workload W, more than doubled
//! the stretch at the same iteration count (see `docs/step-bench.md`). The colored driver walks
//! the even slabs before the odd ones, so its sweep restarts at every other slab; its result does
//! not depend on the thread count.

use crate::constraints::Coeffs;
use crate::math::{Real, Vec3};
use crate::particles::Slot;
use crate::team::{Team, cut};
use std::marker::PhantomData;
use std::ops::Range;

/// Most blocks a family is cut into: four per color on a cloth, enough to keep 2 to 4 threads
/// busy; fewer blocks keep more of the build-order sweep.
pub const MAX_BLOCKS: usize = 8;

/// Fewest constraints in a block (smaller families get fewer blocks): a block of this size is a
/// few µs of work, far more than handing it to another member of a [`Team`] costs.
pub const MIN_BLOCK_LEN: usize = 256;

/// Most constraints in a batch of independent constraints.
pub const LANES: usize = 8;

/// Relaxation factor `ω` of the Jacobi solver: a constraint whose particles carry at most `n`
/// constraints applies `ω / n` of its correction (after the averaging of Macklin et al. 2014,
/// "Unified Particle Physics for Real-Time Applications", sec. 4.2, which recommends
/// `1 ≤ ω ≤ 2`; see [`project_jacobi`]).
pub const JACOBI_OMEGA: Real = 1.5;

/// The blocks of a scheduled family and their colors.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Blocks {
    /// Block `b` is `bounds[b]..bounds[b + 1]`; constraints from the last bound on (pushed after
    /// scheduling) form a tail projected serially after the colors.
    pub bounds: Vec<usize>,
    /// The blocks of each color, in increasing order.
    pub colors: Vec<Vec<usize>>,
    /// Start of every batch of independent constraints (batches tile the blocks, none crosses
    /// a block bound), then the end of the last block.
    pub batches: Vec<usize>,
}

impl Blocks {
    /// The range of block `b`.
    pub fn range(&self, b: usize) -> Range<usize> {
        self.bounds[b]..self.bounds[b + 1]
    }

    /// Start of the serial tail.
    pub fn end(&self) -> usize {
        self.bounds.last().copied().unwrap_or(0)
    }

    /// The batch bounds (starts, then the end) inside `range`, a block or the whole schedule.
    fn batches_in(&self, range: Range<usize>) -> &[usize] {
        let from = self.batches.partition_point(|&s| s < range.start);
        let to = self.batches.partition_point(|&s| s <= range.end);
        &self.batches[from..to]
    }
}

/// A family's projection order: `order[new] = old` index of each constraint, and its blocks in
/// the new order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// For each position in the scheduled order, the constraint's index before reordering.
    pub order: Vec<u32>,
    /// The blocks, in the scheduled order.
    pub blocks: Blocks,
}

/// Schedules constraints given by their particle ids in build order (see the module docs):
/// contiguous blocks, graph-colored, each regrouped into batches of independent constraints.
pub fn schedule<const K: usize>(ids: &[[u32; K]]) -> Schedule {
    let particles = ids.iter().flatten().max().map_or(0, |&m| m as usize + 1);
    let count = (ids.len() / MIN_BLOCK_LEN).clamp(1, MAX_BLOCKS);
    let bounds: Vec<usize> = (0..=count).map(|b| b * ids.len() / count).collect();
    // The blocks touching each particle, one bit each.
    let mut touching = vec![0u64; particles];
    for b in 0..count {
        for c in &ids[bounds[b]..bounds[b + 1]] {
            c.iter().for_each(|&i| touching[i as usize] |= 1 << b);
        }
    }
    let mut colors: Vec<Vec<usize>> = Vec::new();
    let mut color_of = vec![0usize; count];
    for b in 0..count {
        let neighbours = ids[bounds[b]..bounds[b + 1]]
            .iter()
            .flatten()
            .fold(0u64, |m, &i| m | touching[i as usize])
            & !(1 << b);
        let taken = (0..b)
            .filter(|&o| neighbours & (1 << o) != 0)
            .fold(0u64, |m, o| m | 1 << color_of[o]);
        let k = (!taken).trailing_zeros() as usize;
        if k == colors.len() {
            colors.push(Vec::new());
        }
        colors[k].push(b);
        color_of[b] = k;
    }
    let mut order = Vec::with_capacity(ids.len());
    let mut batches = vec![0];
    let mut last = vec![0u32; particles];
    for b in 0..count {
        batch(
            ids,
            bounds[b]..bounds[b + 1],
            &mut last,
            &mut order,
            &mut batches,
        );
    }
    Schedule {
        order,
        blocks: Blocks {
            bounds,
            colors,
            batches,
        },
    }
}

/// Appends to `order` the constraints `range` of `ids` regrouped into batches of at most
/// [`LANES`] constraints that share no particle, each constraint in the earliest batch after all
/// the batches holding an earlier constraint on one of its particles, and to `batches` the end
/// of each batch. `last` (one entry per particle, all zero on entry and on return) is scratch
/// space.
fn batch<const K: usize>(
    ids: &[[u32; K]],
    range: Range<usize>,
    last: &mut [u32],
    order: &mut Vec<u32>,
    batches: &mut Vec<usize>,
) {
    // Batch of each constraint, numbered from 1 (0 in `last`: no batch yet).
    let mut batch_of = Vec::with_capacity(range.len());
    let mut fill: Vec<usize> = vec![0];
    let mut first_open = 1;
    for c in &ids[range.clone()] {
        let after = c.iter().map(|&i| last[i as usize]).max().unwrap_or(0) as usize;
        let mut b = first_open.max(after + 1);
        while b < fill.len() && fill[b] == LANES {
            b += 1;
        }
        if b == fill.len() {
            fill.push(0);
        }
        fill[b] += 1;
        while first_open < fill.len() && fill[first_open] == LANES {
            first_open += 1;
        }
        c.iter().for_each(|&i| last[i as usize] = b as u32);
        batch_of.push(b);
    }
    // Counting sort by batch, stable in build order.
    let mut start = vec![0usize; fill.len() + 1];
    for b in 1..fill.len() {
        start[b + 1] = start[b] + fill[b];
    }
    let base = order.len();
    order.resize(base + range.len(), 0);
    for (n, &b) in batch_of.iter().enumerate() {
        order[base + start[b]] = (range.start + n) as u32;
        start[b] += 1;
    }
    batches.extend(start[1..fill.len()].iter().map(|&end| base + end));
    for c in &ids[range] {
        c.iter().for_each(|&i| last[i as usize] = 0);
    }
}

/// Checks the invariants of a scheduled family: the block bounds are sorted within
/// `0..=ids.len()`, every block has exactly one color, no two blocks of a color share a particle,
/// and the batches tile the blocks with at most [`LANES`] constraints that share no particle.
pub fn validate<const K: usize>(ids: &[[u32; K]], blocks: &Blocks) -> Result<(), String> {
    let b = &blocks.bounds;
    if b.first().is_some_and(|&o| o != 0)
        || b.windows(2).any(|w| w[0] > w[1])
        || b.last().is_some_and(|&o| o > ids.len())
    {
        return Err(format!(
            "bad block bounds {b:?} for {} constraints",
            ids.len()
        ));
    }
    if b.len() > MAX_BLOCKS + 1 {
        return Err(format!("{} blocks, more than {MAX_BLOCKS}", b.len() - 1));
    }
    let mut colored: Vec<usize> = blocks.colors.iter().flatten().copied().collect();
    colored.sort_unstable();
    if colored != (0..b.len().saturating_sub(1)).collect::<Vec<_>>() {
        return Err(format!(
            "blocks {:?} are not each colored once",
            blocks.colors
        ));
    }
    let t = &blocks.batches;
    if t.first() != b.first()
        || t.last() != b.last()
        || t.windows(2).any(|w| w[0] >= w[1] || w[1] - w[0] > LANES)
        || b.iter().any(|bound| t.binary_search(bound).is_err())
    {
        return Err(format!("bad batch bounds for block bounds {b:?}"));
    }
    let particles = ids.iter().flatten().max().map_or(0, |&m| m as usize + 1);
    // The batch and constraint that last touched each particle.
    let mut seen = vec![(usize::MAX, usize::MAX); particles];
    for (n, w) in t.windows(2).enumerate() {
        for (c, constraint) in ids.iter().enumerate().take(w[1]).skip(w[0]) {
            for &i in constraint {
                let (batch, other) = seen[i as usize];
                if batch == n && other != c {
                    return Err(format!(
                        "batch {w:?}: particle {i} is shared by {other} and {c}"
                    ));
                }
                seen[i as usize] = (n, c);
            }
        }
    }
    // The color and block that last touched each particle.
    let mut owner = vec![(usize::MAX, usize::MAX); particles];
    for (k, color) in blocks.colors.iter().enumerate() {
        for &block in color {
            for constraint in &ids[blocks.range(block)] {
                for &i in constraint {
                    let (c, other) = owner[i as usize];
                    if c == k && other != block {
                        return Err(format!(
                            "color {k}: particle {i} is shared by blocks {other} and {block}"
                        ));
                    }
                    owner[i as usize] = (k, block);
                }
            }
        }
    }
    Ok(())
}

/// Reorders `v` so that `v_new[n] = v_old[order[n]]`.
pub fn permute<T: Copy>(v: &mut Vec<T>, order: &[u32]) {
    *v = order.iter().map(|&i| v[i as usize]).collect();
}

/// Predicted positions and inverse masses shared by the threads of a colored pass: a raw view of
/// the projection's [`Slot`]s that hands out reads and writes of single particles.
///
/// Invariant (the caller's, stated by the `unsafe` methods and by whoever dereferences a
/// [`Positions::slot`] pointer): while a thread reads or writes particle `i` through the view, no
/// other thread accesses particle `i`. The colored driver upholds it because the blocks of one
/// color share no particle ([`validate`] asserts this whenever a family is scheduled, in release
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

    /// The correction of constraint `c`, whose multiplier is `lambda`, from the positions and
    /// inverse masses `v.p` (and `v.x`, the substep's start positions, only when `DAMPED`). It
    /// reads `v.p` only at, and corrects only, the particles of [`Kernel::particles`]`(c)`.
    ///
    /// # Safety
    /// No other thread writes the constraint's particles during the call.
    unsafe fn correction<const DAMPED: bool>(
        &self,
        c: usize,
        lambda: Real,
        v: &View,
    ) -> Option<Correction<K>>;

    /// Projects the constraints `c..c + lambda.len()` (at most [`LANES`]), which share no
    /// particle, and adds their multiplier changes to `lambda`. By default one after another; a
    /// family may project them together (SIMD), with the same result.
    ///
    /// # Safety
    /// No other thread accesses the constraints' particles during the call, and
    /// `c..c + lambda.len()` are constraints of the family.
    #[inline(always)]
    unsafe fn project_lanes<const DAMPED: bool>(&self, c: usize, lambda: &mut [Real], v: &View)
    where
        Self: Sized,
    {
        for (n, l) in lambda.iter_mut().enumerate() {
            // SAFETY: forwarded from the caller.
            unsafe { project_one::<K, DAMPED, Self>(self, c + n, l, v) };
        }
    }

    /// Projects the batches whose bounds are `batches` with [`walk_batches`]. A family whose
    /// batch kernel has a faster build for the processor it runs on dispatches to it here.
    ///
    /// # Safety
    /// As [`walk_batches`].
    #[inline(always)]
    unsafe fn walk_batches<const DAMPED: bool>(
        &self,
        lambda: &mut [Real],
        batches: &[usize],
        sweep: Sweep,
        v: &View,
    ) where
        Self: Sized,
    {
        // SAFETY: forwarded from the caller.
        unsafe { walk_batches::<K, DAMPED, Self>(self, lambda, batches, sweep, v) }
    }
}

/// Projects constraint `c` and applies its correction: the body shared by the serial and colored
/// drivers.
///
/// # Safety
/// No other thread accesses the constraint's particles during the call.
#[inline(always)]
pub unsafe fn project_one<const K: usize, const DAMPED: bool, F: Kernel<K>>(
    family: &F,
    c: usize,
    lambda: &mut Real,
    v: &View,
) {
    // SAFETY: forwarded from the caller.
    if let Some(r) = unsafe { family.correction::<DAMPED>(c, *lambda, v) } {
        for (&i, &dp) in r.ids.iter().zip(&r.dp) {
            // SAFETY: forwarded from the caller.
            unsafe { v.p.add(i, dp) };
        }
        *lambda += r.delta_lambda;
    }
}

/// The direction of a sweep over a family. Gauss-Seidel favours the direction it sweeps in:
/// a forward sweep carries the pins' support through a cloth built from its pinned edge, and
/// leaves the last constraints it visits (far from the pins) the most satisfied. Alternating the
/// direction every iteration (symmetric Gauss-Seidel) removes the dependence on which way the
/// body was built (measured on W in `docs/step-bench.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sweep {
    /// In the scheduled order.
    Forward,
    /// In the reverse of the scheduled order.
    Backward,
}

impl Sweep {
    /// The sweep of solver iteration `i` (counted from 0): forward on even iterations, backward
    /// on odd ones.
    pub fn of_iteration(i: u32) -> Self {
        if i.is_multiple_of(2) {
            Sweep::Forward
        } else {
            Sweep::Backward
        }
    }
}

/// Projects the constraints `start..start + lambda.len()` one after another in the direction of
/// `sweep` (`lambda` holds their multipliers): the loop shared by the serial driver and the tasks
/// of the colored driver.
///
/// # Safety
/// No other thread accesses the particles of these constraints during the call.
unsafe fn walk<const K: usize, const DAMPED: bool, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    start: usize,
    sweep: Sweep,
    v: &View,
) {
    let one = |(n, l): (usize, &mut Real)| {
        // SAFETY: forwarded from the caller.
        unsafe { project_one::<K, DAMPED, F>(family, start + n, l, v) }
    };
    match sweep {
        Sweep::Forward => lambda.iter_mut().enumerate().for_each(one),
        Sweep::Backward => lambda.iter_mut().enumerate().rev().for_each(one),
    }
}

/// Projects the batches whose bounds (starts, then the end) are `batches`, in the direction of
/// `sweep`, each with [`Kernel::project_lanes`] (a batch of one with [`project_one`], the same
/// arithmetic); `lambda` holds the multipliers of `batches[0]..batches[last]`. The constraints
/// of a batch share no particle, so their order inside it does not matter. Always inlined, with
/// plain loops, so that it compiles inside a caller built for a wider instruction set (see
/// [`simd`](crate::simd)).
///
/// # Safety
/// No other thread accesses the particles of these constraints during the call, and `batches`
/// are bounds of the family's schedule: increasing, and within the family ([`validate`] checks
/// both when a family is scheduled).
///
/// # Panics
/// If `lambda` does not hold one multiplier per constraint of the batches.
#[inline(always)]
pub unsafe fn walk_batches<const K: usize, const DAMPED: bool, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    batches: &[usize],
    sweep: Sweep,
    v: &View,
) {
    let (Some(&start), Some(&end)) = (batches.first(), batches.last()) else {
        return;
    };
    // With the caller's contract, this one check bounds every batch's multipliers.
    assert_eq!(lambda.len(), end - start, "multipliers of the batches");
    // SAFETY (both loops): forwarded from the caller.
    match sweep {
        Sweep::Forward => {
            for w in batches.windows(2) {
                unsafe { walk_batch::<K, DAMPED, F>(family, lambda, start, w[0]..w[1], v) };
            }
        }
        Sweep::Backward => {
            for w in batches.windows(2).rev() {
                unsafe { walk_batch::<K, DAMPED, F>(family, lambda, start, w[0]..w[1], v) };
            }
        }
    }
}

/// Projects the batch `batch` for [`walk_batches`] (`lambda` holds the multipliers from
/// `start` on).
///
/// # Safety
/// As [`walk_batches`].
#[inline(always)]
unsafe fn walk_batch<const K: usize, const DAMPED: bool, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    start: usize,
    batch: Range<usize>,
    v: &View,
) {
    let first = batch.start;
    debug_assert!(start <= first && first < batch.end && batch.end - start <= lambda.len());
    // SAFETY: the bounds increase from `start` to `start + lambda.len()` (the caller's contract,
    // and the length checked by `walk_batches`).
    let part = unsafe { lambda.get_unchecked_mut(first - start..batch.end - start) };
    // SAFETY: forwarded from the caller, the batch being constraints of the family; a batch
    // shares no particle.
    unsafe {
        if let [l] = part {
            // A chain (a rope) gives batches of one: not worth a vector.
            project_one::<K, DAMPED, F>(family, first, l, v);
        } else {
            family.project_lanes::<DAMPED>(first, part, v);
        }
    }
}

/// What a projection reads and writes of the particles: the predicted positions with the
/// inverse masses (shared), and the substep's start positions.
pub struct View<'a> {
    /// Predicted positions `p` (m) and inverse masses (1/kg).
    pub p: Positions<'a>,
    /// Positions at the start of the substep, m.
    pub x: &'a [Vec3],
}

impl<'a> View<'a> {
    /// A view of `slots` (see [`ParticleSet::pack`](crate::particles::ParticleSet::pack)) and
    /// the start positions `x`.
    pub fn new(slots: &'a mut [Slot], x: &'a [Vec3]) -> Self {
        View {
            p: Positions::new(slots),
            x,
        }
    }
}

/// Projects every constraint of `family` one after another, Gauss-Seidel style, in the
/// direction of `sweep`: the scheduled constraints batch after batch (see [`Blocks`]), then the
/// serial tail (backward: the other way round).
pub fn project_serial<const K: usize, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    blocks: &Blocks,
    v: &View,
    sweep: Sweep,
) {
    // SAFETY: serially, one constraint after another.
    unsafe { project(family, lambda, blocks, v, sweep, None) }
}

/// Projects every constraint of `family` by colored blocks: in a forward `sweep`, the colors
/// of `blocks` one after another, the blocks of a color in parallel over `team` (each walked in
/// the direction of the sweep), then the serial tail; a backward sweep does the same in reverse.
/// The result does not depend on the number of threads. Called by the team's leader.
///
/// # Safety
/// `blocks` is valid for the family ([`validate`] passes on the ids of [`Kernel::particles`]),
/// and each constraint's [`Kernel::correction`] reads and writes only the particles of
/// [`Kernel::particles`].
pub unsafe fn project_colored<const K: usize, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    blocks: &Blocks,
    v: &View,
    sweep: Sweep,
    team: &Team,
) {
    // SAFETY: forwarded from the caller.
    unsafe { project(family, lambda, blocks, v, sweep, Some(team)) }
}

/// The driver behind [`project_serial`] and (with a `team`) [`project_colored`].
///
/// # Safety
/// With a `team`, the contract of [`project_colored`].
unsafe fn project<const K: usize, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    blocks: &Blocks,
    v: &View,
    sweep: Sweep,
    team: Option<&Team>,
) {
    // SAFETY: forwarded from the caller.
    unsafe {
        if family.damped() {
            project_with::<K, true, F>(family, lambda, blocks, sweep, team, v);
        } else {
            project_with::<K, false, F>(family, lambda, blocks, sweep, team, v);
        }
    }
}

/// [`project`] for a family with (`DAMPED`) or without XPBD damping.
///
/// # Safety
/// As [`project`].
unsafe fn project_with<const K: usize, const DAMPED: bool, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    blocks: &Blocks,
    sweep: Sweep,
    team: Option<&Team>,
    v: &View,
) {
    let end = blocks.end();
    let (scheduled, tail) = lambda.split_at_mut(end);
    let scheduled_pass = |scheduled: &mut [Real]| {
        if let Some(team) = team {
            // SAFETY: forwarded from the caller.
            unsafe { colored::<K, DAMPED, F>(family, scheduled, blocks, sweep, v, team) }
        } else {
            let batches = blocks.batches_in(0..end);
            // SAFETY: this thread alone walks the constraints, one after another.
            unsafe { family.walk_batches::<DAMPED>(scheduled, batches, sweep, v) }
        }
    };
    // SAFETY (the tail): no parallel pass is running; this thread alone walks it.
    match sweep {
        Sweep::Forward => {
            scheduled_pass(scheduled);
            unsafe { walk::<K, DAMPED, F>(family, tail, end, sweep, v) };
        }
        Sweep::Backward => {
            unsafe { walk::<K, DAMPED, F>(family, tail, end, sweep, v) };
            scheduled_pass(scheduled);
        }
    }
}

/// Projects the scheduled constraints (`lambda` holds their multipliers) color after color in
/// the direction of `sweep`, the blocks of a color in parallel over `team`.
///
/// # Safety
/// The contract of [`project_colored`].
unsafe fn colored<const K: usize, const DAMPED: bool, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    blocks: &Blocks,
    sweep: Sweep,
    v: &View,
    team: &Team,
) {
    // The multipliers of each block, borrowed apart.
    let count = blocks.bounds.len().saturating_sub(1);
    let mut parts = cut(lambda, blocks.bounds.get(1..).unwrap_or_default());
    let mut pass = |color: &Vec<usize>| {
        team.for_each_at(&mut parts[..count], color, |b, part| {
            let batches = blocks.batches_in(blocks.range(b));
            // SAFETY: the blocks of one color share no particle (the caller's contract), so no
            // two members touch the same particle.
            unsafe { family.walk_batches::<DAMPED>(part, batches, sweep, v) }
        });
    };
    match sweep {
        Sweep::Forward => blocks.colors.iter().for_each(&mut pass),
        Sweep::Backward => blocks.colors.iter().rev().for_each(&mut pass),
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
    slots: &mut [Slot],
    x: &[Vec3],
    scratch: &mut JacobiScratch,
) {
    for c in 0..lambda.len() {
        for i in family.particles(c) {
            scratch.count[i] += 1;
        }
    }
    let v = View::new(slots, x);
    for (c, l) in lambda.iter_mut().enumerate() {
        // SAFETY: single thread; the view is only read during the sweep.
        if let Some(r) = unsafe { family.correction::<DAMPED>(c, *l, &v) } {
            let most = r.ids.iter().map(|&i| scratch.count[i]).max().unwrap_or(1);
            let relax = JACOBI_OMEGA / most as Real;
            for (&i, dp) in r.ids.iter().zip(r.dp) {
                scratch.sum[i] += dp * relax;
            }
            *l += r.delta_lambda * relax;
        }
    }
    for ((s, sum), count) in slots
        .iter_mut()
        .zip(&mut scratch.sum)
        .zip(&mut scratch.count)
    {
        s.p += *sum;
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
    slots: &mut [Slot],
    x: &[Vec3],
    scratch: &mut JacobiScratch,
) {
    scratch.sum.resize(slots.len(), Vec3::zeros());
    scratch.count.resize(slots.len(), 0);
    if family.damped() {
        jacobi::<K, true, F>(family, lambda, slots, x, scratch);
    } else {
        jacobi::<K, false, F>(family, lambda, slots, x, scratch);
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

    fn reorder<const K: usize>(ids: &[[u32; K]]) -> (Vec<[u32; K]>, Schedule) {
        let schedule = schedule(ids);
        let mut v = ids.to_vec();
        permute(&mut v, &schedule.order);
        (v, schedule)
    }

    /// Whether every two constraints that share a particle are in the same relative order in
    /// `v` as in `ids` (then walking `v` gives the result of walking `ids`).
    fn keeps_conflict_order<const K: usize>(ids: &[[u32; K]], order: &[u32]) -> bool {
        let particles = ids.iter().flatten().max().map_or(0, |&m| m as usize + 1);
        let mut last = vec![None::<u32>; particles];
        order.iter().all(|&c| {
            ids[c as usize].iter().all(|&i| {
                let ok = last[i as usize].is_none_or(|l| l <= c);
                last[i as usize] = Some(c);
                ok
            })
        })
    }

    #[test]
    fn a_chain_keeps_its_order_and_batches_alternate_links() {
        let ids: Vec<[u32; 2]> = (0..10).map(|i| [i, i + 1]).collect();
        let (v, s) = reorder(&ids);
        assert_eq!(s.blocks.bounds, vec![0, 10]);
        assert_eq!(s.blocks.colors, vec![vec![0]]);
        // Each link waits for the one before it: one link per batch, in order.
        assert_eq!(v, ids);
    }

    #[test]
    fn independent_constraints_fill_batches_of_lanes() {
        // Links 0-1, 2-3, ... share nothing, then the same links again.
        let once: Vec<[u32; 2]> = (0..20).map(|i| [2 * i, 2 * i + 1]).collect();
        let ids = [once.clone(), once].concat();
        let (v, s) = reorder(&ids);
        assert_eq!(
            v, ids,
            "the second pass waits for the first on every particle"
        );
        // 8 + 8 + 4 of the first pass; the first 4 of the second pass top up the third batch
        // (their particles were last touched in the first), then batches of 8.
        assert_eq!(s.blocks.batches, vec![0, 8, 16, 24, 32, 40]);
        let mixed: Vec<[u32; 2]> = vec![[0, 1], [1, 2], [3, 4], [5, 6]];
        let (v, s) = reorder(&mixed);
        assert_eq!(v, vec![[0, 1], [3, 4], [5, 6], [1, 2]]);
        assert_eq!(s.blocks.batches, vec![0, 3, 4]);
    }

    #[test]
    fn rows_of_a_long_chain_make_two_colors_of_blocks() {
        let ids: Vec<[u32; 2]> = (0..4000).map(|i| [i, i + 1]).collect();
        let (v, s) = reorder(&ids);
        assert_eq!(s.blocks.bounds.len(), MAX_BLOCKS + 1);
        assert_eq!(s.blocks.colors, vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]]);
        validate(&v, &s.blocks).unwrap();
    }

    #[test]
    fn validator_rejects_a_shared_particle() {
        let blocks = |colors| Blocks {
            bounds: vec![0, 1, 2],
            colors,
            batches: vec![0, 1, 2],
        };
        assert!(validate(&[[0, 1], [1, 2]], &blocks(vec![vec![0, 1]])).is_err());
        assert!(validate(&[[0, 1], [1, 2]], &blocks(vec![vec![0], vec![1]])).is_ok());
        assert!(validate(&[[0, 1], [1, 2]], &blocks(vec![vec![0]])).is_err());
        let one_batch = Blocks {
            batches: vec![0, 2],
            ..blocks(vec![vec![0], vec![1]])
        };
        assert!(validate(&[[0, 1], [1, 2]], &one_batch).is_err());
    }

    proptest! {
        #[test]
        fn schedule_is_valid_and_keeps_conflict_order_on_random_meshes(
            tris in prop::collection::vec([0u32..300, 0u32..300, 0u32..300], 0..1500),
        ) {
            let tris: Vec<[u32; 3]> = tris.into_iter().filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2]).collect();
            let edges = crate::mesh::topology::edges(&tris);
            let (v, s) = reorder(&edges);
            prop_assert!(validate(&v, &s.blocks).is_ok());
            let mut sorted = s.order.clone();
            sorted.sort_unstable();
            prop_assert_eq!(sorted, (0..edges.len() as u32).collect::<Vec<_>>());
            prop_assert!(keeps_conflict_order(&edges, &s.order));
            let quads = crate::mesh::topology::triangle_pairs(&tris);
            let (q, qs) = reorder(&quads);
            prop_assert!(validate(&q, &qs.blocks).is_ok());
            prop_assert!(keeps_conflict_order(&quads, &qs.order));
        }
    }
}
