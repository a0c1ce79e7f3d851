//! The order in which a constraint family is projected, its graph coloring into parallel
//! blocks, and the drivers that project a family serially, by color in parallel, or
//! Jacobi-style.
//!
//! Two constraints conflict when they share a particle. When a body is built, each family's
//! arrays are reordered once, from the particle ids alone (never from the thread count), into a
//! [`Schedule`]:
//!
//! - **Blocks.** The family, in build order, is cut into at most [`BLOCKS`] contiguous
//!   blocks, and the blocks are graph-colored: two blocks conflict when one of their constraints
//!   do. A cloth built row by row gives slabs of rows, where only neighbouring slabs conflict, so
//!   two colors (even and odd slabs). The colored driver projects the colors one after another
//!   and the blocks of a color in parallel over a [`Team`](super::team::Team) of threads (box2d v3
//!   `constraint_graph.c` and rapier's `interaction_groups.rs` color single constraints; coloring
//!   blocks keeps the Gauss-Seidel sweep of each block in build order, see below).
//! - **Batches.** Inside a block the constraints are regrouped into batches of up to [`LANES`]
//!   constraints that share no particle, placing each constraint in the earliest batch at least
//!   [`GAP`] batches after every earlier constraint it conflicts with. Conflicting constraints
//!   therefore keep their build order, so walking the reordered block gives exactly the result of
//!   walking it in build order, while consecutive constraints, and mostly consecutive batches,
//!   are independent and the processor overlaps their square roots and divisions instead of
//!   waiting on each other through memory. A block whose build order already comes in runs of
//!   independent constraints (a grid's edges and hinges, see [`order_grid_edges`] and
//!   [`order_in_runs`]) is instead cut in build order, when that takes no more batches, so that
//!   its runs stay whole. The lanes of a full batch are then ordered in pairs of consecutive
//!   particles where they can be ([`paired`]), so that the walk moves two slots at a time; a
//!   batch of edges each between a particle and the next ([`STRADDLED`]) moves each lane's two
//!   slots at once.
//!
//! Walking the whole family block after block ([`project`](super::drivers::project) without a
//! team) is therefore Gauss-Seidel in
//! build order: for a cloth built from its pinned edge down, the pins' support travels through the
//! whole cloth in one sweep. Coloring single constraints instead (every color spread over the
//! whole cloth) moved it one color per sweep and, on the 128 x 128 workload W, more than doubled
//! the stretch at the same iteration count (see `docs/performance.md`). The colored driver walks
//! the even slabs before the odd ones, so its sweep restarts at every other slab; its result does
//! not depend on the thread count.

use std::ops::Range;

/// Most blocks a scheduled family may hold (what [`validate`] accepts), and most items of a
/// [`Team`](super::team::Team)'s job.
pub const MAX_BLOCKS: usize = 8;

/// Blocks a family is cut into when it is large enough (see [`MIN_BLOCK_LEN`]): two per color on
/// a cloth, enough to keep two threads busy. Taller slabs keep more of the build-order sweep and
/// give its batches more independent constraints: a 40 x 40 grid's stretch family in build order
/// (alternating diagonals) filled 5.7 of 8 lanes per batch in eight blocks of five rows of cells,
/// and its stage took 0.94 instead of 1.03 ms in four.
pub const BLOCKS: usize = 4;

/// Fewest constraints in a block (smaller families get fewer blocks): a block of this size is a
/// few µs of work, far more than handing it to another member of a [`Team`](super::team::Team) costs.
pub const MIN_BLOCK_LEN: usize = 256;

/// Most constraints in a batch of independent constraints.
pub const LANES: usize = 8;

/// Fewest batches between two constraints that share a particle: with 2, consecutive batches
/// share no particle either (but where the gap leaves a batch empty), so the processor
/// overlaps the projection of a batch with the next one instead of waiting for the previous
/// one's positions through memory. The order of conflicting constraints, and so every result,
/// is that of a gap of 1; on W at N = 128 a gap of 2 needs 10% more batches of the stretch
/// family and is about 1.35x faster, a gap of 3 about 1.5x more batches and slower (see
/// `docs/performance.md`).
pub const GAP: usize = 2;

/// Most batches a block may take with a gap of [`GAP`], as a multiple of those it takes with a
/// gap of 1; a block whose dependencies leave too little room for the gap is batched with a gap
/// of 1 (W's stretch family needs 1.10x and is 1.38x faster; the default scene's cloth stretch
/// 1.29x, where the gap cost 2%).
pub const MAX_GAP_COST: f64 = 1.15;

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
    /// For each batch, whether it shares no particle with the batch before it in its block
    /// (`false` for a block's first batch), so that the two may be projected at once.
    pub apart: Vec<bool>,
    /// For each bound, the indices in `batches` of its first entry at or past it and of its
    /// first entry past it: the batches of blocks `a..b` are `batches[spans[a].0..spans[b].1]`,
    /// found once here rather than searched for at every walk (W at N = 128 spent 0.8% of its
    /// time in those searches).
    spans: Vec<(usize, usize)>,
}

impl Blocks {
    /// The blocks cut at `bounds` with their `colors`, `batches` and [`Blocks::apart`] flags.
    pub fn new(
        bounds: Vec<usize>,
        colors: Vec<Vec<usize>>,
        batches: Vec<usize>,
        apart: Vec<bool>,
    ) -> Self {
        let spans = (bounds.iter())
            .map(|&b| {
                let at = |up_to: bool| batches.partition_point(|&s| s < b || up_to && s == b);
                (at(false), at(true))
            })
            .collect();
        Blocks {
            bounds,
            colors,
            batches,
            apart,
            spans,
        }
    }

    /// The range of block `b`.
    pub fn range(&self, b: usize) -> Range<usize> {
        self.bounds[b]..self.bounds[b + 1]
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }

    /// True when there is no block.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Start of the serial tail.
    pub fn end(&self) -> usize {
        self.bounds.last().copied().unwrap_or(0)
    }

    /// The batch bounds (starts, then the end) of the blocks `blocks` (a range of block indices).
    pub fn batches_of(&self, blocks: Range<usize>) -> &[usize] {
        &self.batches[self.batch_span(blocks)]
    }

    /// [`Blocks::apart`] of the batches of the blocks `blocks` (one entry per batch of
    /// [`Blocks::batches_of`]; fewer when `apart` is not filled in).
    pub fn apart_of(&self, blocks: Range<usize>) -> &[bool] {
        let span = self.batch_span(blocks);
        let to = (span.end.saturating_sub(1)).min(self.apart.len());
        &self.apart[span.start.min(to)..to]
    }

    /// The indices in `batches` of the bounds of the blocks `blocks`.
    fn batch_span(&self, blocks: Range<usize>) -> Range<usize> {
        match blocks.is_empty() {
            true => 0..0,
            false => self.spans[blocks.start].0..self.spans[blocks.end].1,
        }
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
    let count = (ids.len() / MIN_BLOCK_LEN).clamp(1, BLOCKS);
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
    pair_lanes(ids, &mut order, &batches);
    let apart = apart(ids, &order, &bounds, &batches, particles);
    Schedule {
        order,
        blocks: Blocks::new(bounds, colors, batches, apart),
    }
}

/// [`Blocks::apart`] of the batches `batches` (starts, then the end) of the constraints `ids`
/// taken in the scheduled `order`, cut into blocks at `bounds`, over `particles` particles.
fn apart<const K: usize>(
    ids: &[[u32; K]],
    order: &[u32],
    bounds: &[usize],
    batches: &[usize],
    particles: usize,
) -> Vec<bool> {
    // The batch (numbered from 1) that last touched each particle.
    let mut last = vec![0usize; particles];
    let ids_of = |c: usize| &ids[order[c] as usize];
    (1..batches.len())
        .map(|n| {
            let range = batches[n - 1]..batches[n];
            let first = bounds.contains(&range.start);
            let shares = range
                .clone()
                .flat_map(ids_of)
                .any(|&i| last[i as usize] == n - 1 && n > 1);
            range.flat_map(ids_of).for_each(|&i| last[i as usize] = n);
            !first && !shares
        })
        .collect()
}

/// The share of the lanes of its batches that [`schedule`] fills with the constraints `ids` in
/// their build order (1 for a family whose batches are all full, 0 for none).
pub fn batch_fill<const K: usize>(ids: &[[u32; K]]) -> f64 {
    let batches = schedule(ids).blocks.batches.len().saturating_sub(1);
    ids.len() as f64 / (batches * LANES).max(1) as f64
}

/// The constraints `ids` (particle ids, in build order) reordered so that [`schedule`] packs
/// them into full batches, for families whose build order means nothing (the hinges, edges and
/// tets of a mesh): cut into the blocks `schedule` will cut (equal contiguous pieces, so each
/// block keeps its particles and the blocks their colors), and each block stably sorted by a
/// first-fit coloring of its constraints in build order (two conflict when they share a
/// particle). The constraints of a color share no particle, so they fill batches of [`LANES`],
/// where in build order chains of neighbours leave most batches with one constraint.
/// Gauss-Seidel then sweeps each block color by color. A rope or a grid keeps its build order.
pub fn order_for_batches<const K: usize>(mut ids: Vec<[u32; K]>) -> Vec<[u32; K]> {
    let count = (ids.len() / MIN_BLOCK_LEN).clamp(1, BLOCKS);
    let particles = ids.iter().flatten().max().map_or(0, |&m| m as usize + 1);
    // The colors taken at each particle, one bit each; a constraint past the 64th color takes
    // the last.
    let mut taken = vec![0u64; particles];
    let bounds: Vec<usize> = (0..=count).map(|b| b * ids.len() / count).collect();
    for w in bounds.windows(2) {
        let block = &mut ids[w[0]..w[1]];
        let mut color = Vec::with_capacity(block.len());
        for q in block.iter() {
            let used = q.iter().fold(0u64, |m, &i| m | taken[i as usize]);
            let c = (!used).trailing_zeros().min(63);
            q.iter().for_each(|&i| taken[i as usize] |= 1 << c);
            color.push(c);
        }
        block.iter().flatten().for_each(|&i| taken[i as usize] = 0);
        let mut by_color: Vec<_> = color.into_iter().zip(block.iter().copied()).collect();
        by_color.sort_by_key(|&(c, _)| c);
        block
            .iter_mut()
            .zip(by_color)
            .for_each(|(q, (_, sorted))| *q = sorted);
    }
    ids
}

/// Appends to `order` the constraints `range` of `ids` regrouped into batches of at most
/// [`LANES`] constraints that share no particle, each constraint in the earliest batch at least
/// [`GAP`] batches after all the batches holding an earlier constraint on one of its particles
/// (empty batches dropped), and to `batches` the end of each batch. `last` (one entry per particle, all zero on entry and on return) is scratch
/// space.
fn batch<const K: usize>(
    ids: &[[u32; K]],
    range: Range<usize>,
    last: &mut [u32],
    order: &mut Vec<u32>,
    batches: &mut Vec<usize>,
) {
    let (mut batch_of, mut fill) = place(ids, range.clone(), last, GAP);
    let used = |fill: &[usize]| fill.iter().filter(|&&f| f > 0).count();
    let (tight_of, tight) = place(ids, range.clone(), last, 1);
    if used(&fill) as f64 > MAX_GAP_COST * used(&tight) as f64 {
        (batch_of, fill) = (tight_of, tight);
    }
    let (cut_of, cut) = cut_in_order(ids, range.clone(), last);
    if used(&cut) <= used(&fill) {
        (batch_of, fill) = (cut_of, cut);
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
    // The gap can leave a batch empty: it is dropped.
    let ends = (1..fill.len()).filter(|&b| fill[b] > 0);
    batches.extend(ends.map(|b| base + start[b]));
}

/// The batch of each constraint of `range` (numbered from 1) and the number of constraints in
/// each batch (entry 0 unused) when each constraint goes in the earliest batch with room at
/// least `gap` batches after those of its earlier conflicts, for [`batch`]. `last` (one entry
/// per particle) is zero on entry and on return.
fn place<const K: usize>(
    ids: &[[u32; K]],
    range: Range<usize>,
    last: &mut [u32],
    gap: usize,
) -> (Vec<usize>, Vec<usize>) {
    let mut batch_of = Vec::with_capacity(range.len());
    let mut fill: Vec<usize> = vec![0];
    let mut first_open = 1;
    for c in &ids[range.clone()] {
        let after = c.iter().map(|&i| last[i as usize]).max().unwrap_or(0) as usize;
        // A constraint with no earlier conflict may go in the first batch.
        let mut b = first_open.max(if after == 0 { 1 } else { after + gap });
        while b < fill.len() && fill[b] == LANES {
            b += 1;
        }
        if b >= fill.len() {
            fill.resize(b + 1, 0);
        }
        fill[b] += 1;
        while first_open < fill.len() && fill[first_open] == LANES {
            first_open += 1;
        }
        c.iter().for_each(|&i| last[i as usize] = b as u32);
        batch_of.push(b);
    }
    for c in &ids[range] {
        c.iter().for_each(|&i| last[i as usize] = 0);
    }
    (batch_of, fill)
}

/// The batch of each constraint of `range` and the fill of each batch, as [`place`] gives
/// them, when the constraints are cut into batches in build order: each batch takes the next
/// constraints until one shares a particle with it or it holds [`LANES`]. A family built in runs
/// of independent constraints (see [`order_in_runs`]) keeps its runs whole this way, where
/// [`place`] would mix each constraint into the earliest batch with room. `last` is as for
/// [`place`].
fn cut_in_order<const K: usize>(
    ids: &[[u32; K]],
    range: Range<usize>,
    last: &mut [u32],
) -> (Vec<usize>, Vec<usize>) {
    let mut batch_of = Vec::with_capacity(range.len());
    let mut fill: Vec<usize> = vec![0];
    for c in &ids[range.clone()] {
        let b = fill.len() - 1;
        let shares = c.iter().any(|&i| last[i as usize] == b as u32);
        let b = if b == 0 || shares || fill[b] == LANES {
            fill.push(0);
            b + 1
        } else {
            b
        };
        fill[b] += 1;
        c.iter().for_each(|&i| last[i as usize] = b as u32);
        batch_of.push(b);
    }
    for c in &ids[range] {
        c.iter().for_each(|&i| last[i as usize] = 0);
    }
    (batch_of, fill)
}

/// The pairs `ids` of a grid of `columns` particles per row (particle `i + j columns`) that
/// span rows, such as its cross-distance hinges, each written lowest id first and sorted row by
/// row (the row of the lowest id), in a row by the step `δ` between the two ids, then by the
/// lowest id. Pairs of one step `δ >= LANES` on consecutive ids share no particle, so
/// [`schedule`] cuts them into full batches whose particles lie side by side (and pairs their
/// lanes, see [`paired`]), and Gauss-Seidel still sweeps the grid from its first row to its last. A grid's edges go in
/// [`order_grid_edges`] instead.
pub fn order_in_runs(ids: Vec<[u32; 2]>, columns: u32) -> Vec<[u32; 2]> {
    let columns = columns.max(1);
    sorted_lowest_first(ids, |lo, hi| (lo / columns, hi - lo, lo))
}

/// The pairs `ids` of a mesh whose particles are numbered for locality (see
/// [`prepare`](crate::mesh::prepare::prepare)) in runs for [`schedule`], as [`order_in_runs`]
/// puts a grid's: each written lowest id first, sorted by block of `columns` consecutive lowest
/// ids, in a block by the step `δ` between the two ids, then for `δ < LANES` by the parity of
/// `lowest / δ` (so that the pairs of a run share no particle), then by the lowest id. Where the
/// numbering runs along rows (as Cuthill-McKee does along a grid's diagonals), the pairs of a
/// row with one step make a run, and [`schedule`] cuts it into full batches whose particles lie
/// side by side.
pub fn order_mesh_in_runs(ids: Vec<[u32; 2]>, columns: u32) -> Vec<[u32; 2]> {
    let columns = columns.max(1);
    sorted_lowest_first(ids, |lo, hi| {
        let step = hi - lo;
        let parity = if (step as usize) < LANES {
            (lo / step.max(1)) % 2
        } else {
            0
        };
        (lo / columns, step, parity, lo)
    })
}

/// The edges `ids` of a grid of `columns` particles per row (particle `i + j columns`), each
/// written lowest id first, in runs for [`schedule`] (see [`order_in_runs`]), row of cells by
/// row of cells as the grid's build order takes them: the cells' diagonals, then the edges
/// across the rows, then the edges along the next row of particles, every second one first
/// (two runs of step 2, whose edges share no particle). The first row of particles goes first,
/// every second edge first.
///
/// The order matters for one iteration per substep. Grouping the edges across (and the
/// diagonals) before the row below them is the grid's build order, cell by cell; taking the
/// edges along a row one after the other, where they chain, made an undamped swinging cloth
/// gain up to 70% of its energy at one iteration. This order gains less than the build order
/// summed over the 48 grids and substep counts measured (191% against 1,205%), though more on
/// the smallest uniform grids. From two iterations on the gains nearly
/// vanish (at most 0.27%, `tests/integration/energy.rs`).
pub fn order_grid_edges(ids: Vec<[u32; 2]>, columns: u32) -> Vec<[u32; 2]> {
    let columns = columns.max(1);
    sorted_lowest_first(ids, |lo, hi| {
        let (row, column) = (lo / columns, lo % columns);
        let (along, parity) = (hi - lo == 1, column % 2);
        match (along, row) {
            (true, 0) => (0, parity, column),
            (true, _) => (row - 1, 4 + parity, column),
            // The edge across from `lo` to the particle below it.
            (false, _) if hi - lo == columns => (row, 3, column),
            // A cell's diagonal: `lo` is its cell's top right corner when it runs down to the
            // left, top left when down to the right.
            (false, _) => (row, 2, column - u32::from(hi - lo + 1 == columns)),
        }
    })
}

/// The pairs `ids`, each written lowest id first, stably sorted by `key(lowest, highest)`.
fn sorted_lowest_first<K: Ord>(
    mut ids: Vec<[u32; 2]>,
    key: impl Fn(u32, u32) -> K,
) -> Vec<[u32; 2]> {
    for q in &mut ids {
        *q = [q[0].min(q[1]), q[0].max(q[1])];
    }
    ids.sort_by_key(|&[lo, hi]| key(lo, hi));
    ids
}

/// Reorders the constraints of each full batch in `order` (the scheduled order of `ids`, cut
/// into batches at `batches`, starts then the end) so that as many of their particles as can be
/// are paired (see [`paired`]); the lanes of a batch share no particle, so their order changes
/// no result.
fn pair_lanes<const K: usize>(ids: &[[u32; K]], order: &mut [u32], batches: &[usize]) {
    for w in batches.windows(2) {
        if let Ok(lanes) = <&mut [u32; LANES]>::try_from(&mut order[w[0]..w[1]])
            && let Some(paired) = paired_lanes(ids, lanes)
        {
            *lanes = paired;
        }
    }
}

/// The constraints `lanes` reordered into pairs (see [`pair_lanes`]) for the largest set of
/// particles that pairs every lane, found greedily (lowest first, each with the first that
/// follows it); `None` when no particle pairs.
fn paired_lanes<const K: usize>(ids: &[[u32; K]], lanes: &[u32; LANES]) -> Option<[u32; LANES]> {
    let mut sets: Vec<u32> = (1..1u32 << K).collect();
    sets.sort_by_key(|s| std::cmp::Reverse(s.count_ones()));
    sets.into_iter().find_map(|set| {
        let first = set.trailing_zeros() as usize;
        let mut sorted = *lanes;
        sorted.sort_unstable_by_key(|&c| ids[c as usize][first]);
        let follows = |lo: u32, hi: u32| {
            let (lo, hi) = (ids[lo as usize], ids[hi as usize]);
            (0..K).all(|n| set & 1 << n == 0 || hi[n] == lo[n].wrapping_add(1))
        };
        let mut taken = [false; LANES];
        let mut out = [0; LANES];
        let mut r = 0;
        for i in 0..LANES {
            if taken[i] {
                continue;
            }
            let j = (i + 1..LANES).find(|&j| !taken[j] && follows(sorted[i], sorted[j]))?;
            (taken[i], taken[j]) = (true, true);
            (out[r], out[r + LANES / 2]) = (sorted[i], sorted[j]);
            r += 1;
        }
        Some(out)
    })
}

/// Which particles of each full batch are paired: for the constraints `ids` in their scheduled
/// order, cut into batches at `batches` (starts, then the end), the entry of a full batch's first
/// constraint has bit `n` set when particle `n` of lane `r + LANES / 2` is the particle after
/// that of lane `r`, for every `r`; every other entry is 0. The two slots of each such pair lie
/// side by side, and [`Batch::gather_paired`] moves them at once. [`schedule`] orders the lanes
/// of each full batch in pairs where it can: a grid's runs of independent constraints (see
/// [`order_in_runs`]) pair up, lanes `0, 2, 4, 6` against `1, 3, 5, 7` of a run, and so do the
/// hinges along a row of its cross-distance bending (from particles `0, 1, 4, 5, ...` to `2, 3,
/// 6, 7, ...`).
///
/// A full batch of two-particle constraints none of whose particles pair may instead be
/// [`STRADDLED`].
///
/// [`Batch::gather_paired`]: super::simd::Batch::gather_paired
pub fn paired<const K: usize>(ids: &[[u32; K]], batches: &[usize]) -> Vec<u8> {
    assert!(
        K < 8,
        "one bit per particle of a constraint, and one for STRADDLED"
    );
    let mut paired = vec![0; ids.len()];
    for w in batches.windows(2) {
        if let Ok(lanes) = <&[[u32; K]; LANES]>::try_from(&ids[w[0]..w[1]]) {
            let half = LANES / 2;
            let pairs =
                |&n: &usize| (0..half).all(|r| lanes[r + half][n] == lanes[r][n].wrapping_add(1));
            let bits = (0..K).filter(pairs).fold(0, |bits, n| bits | 1 << n);
            let straddled = K == 2 && lanes.iter().all(|c| c[K - 1] == c[0].wrapping_add(1));
            paired[w[0]] = if straddled { STRADDLED } else { bits };
        }
    }
    paired
}

/// The entry of [`paired`] for a full batch of two-particle constraints each of which joins a
/// particle and the one after it (a grid's edges along its rows): each lane's two slots lie
/// side by side, and [`Batch::gather_straddled`] moves them at once. No particle of such a batch
/// can pair (a pair would share a particle with its neighbour lane), so the bit never meets
/// another.
///
/// [`Batch::gather_straddled`]: super::simd::Batch::gather_straddled
pub const STRADDLED: u8 = 1 << 7;

/// Checks the invariants of a scheduled family: the block bounds are sorted within
/// `0..=ids.len()`, every block has exactly one color, no two blocks of a color share a particle,
/// the batches tile the blocks with at most [`LANES`] constraints that share no particle, and a
/// batch marked [`apart`](Blocks::apart) neither starts a block nor shares a particle with the
/// batch before it.
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
    if !blocks.apart.is_empty() && blocks.apart.len() + 1 != t.len() {
        return Err(format!(
            "{} apart flags for {} batches",
            blocks.apart.len(),
            t.len().saturating_sub(1)
        ));
    }
    // The batch that last touched each particle, for the apart flags.
    let mut last = vec![usize::MAX; particles];
    for (n, (w, &apart)) in t.windows(2).zip(&blocks.apart).enumerate() {
        let constraints = || ids[w[0]..w[1]].iter().flatten();
        let shares = n > 0 && constraints().any(|&i| last[i as usize] == n - 1);
        if apart && (shares || b.contains(&w[0])) {
            return Err(format!(
                "batch {w:?} is marked apart, but it starts a block or shares a particle with \
                 the batch before"
            ));
        }
        constraints().for_each(|&i| last[i as usize] = n);
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
    fn a_grid_in_runs_is_cut_into_full_batches_of_particles_side_by_side() {
        // The pairs across the rows of a 40 x 10 grid, quad by quad: each cell's diagonal from
        // (i + 1, j) to (i, j + 1), and its edge from (i, j) to (i, j + 1).
        let n = 40u32;
        let mut pairs = Vec::new();
        for j in 0..9 {
            for i in 0..n {
                let a = j * n + i;
                if i + 1 < n {
                    pairs.push([a + n, a + 1]);
                }
                pairs.push([a, a + n]);
            }
        }
        let ids = order_in_runs(pairs.clone(), n);
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        let mut lowest_first: Vec<[u32; 2]> =
            pairs.iter().map(|&[a, b]| [a.min(b), a.max(b)]).collect();
        lowest_first.sort_unstable();
        assert_eq!(sorted, lowest_first, "the same pairs, lowest id first");
        // Row 0: the diagonals, then the edges across; then row 1.
        assert_eq!(ids[..2], [[1, 40], [2, 41]]);
        assert_eq!(ids[39..41], [[0, 40], [1, 41]]);
        assert_eq!(ids[79], [41, 80]);
        let (v, s) = reorder(&ids);
        assert!(cut_in_their_order(&ids, &v, &s.blocks.batches));
        let batches = s.blocks.batches.len() - 1;
        assert!(batches * LANES < ids.len() * 21 / 20, "{batches} batches");
        let paired = paired(&v, &s.blocks.batches);
        // 79 pairs a row, about 10 batches: runs, but where a batch straddles the two kinds of
        // pair, two rows or two blocks; every run's lanes are paired.
        let both = paired.iter().filter(|&&r| r == 0b11).count();
        assert!(both >= 9 * 7, "{both} batches of paired lanes");
        for w in s.blocks.batches.windows(2) {
            if paired[w[0]] != 0 {
                assert_eq!(w[1] - w[0], LANES, "paired lanes make a full batch");
                let lane = |l: usize| v[w[0] + l];
                for n in (0..2).filter(|n| paired[w[0]] & 1 << n != 0) {
                    assert!((0..LANES / 2).all(|r| lane(r + LANES / 2)[n] == lane(r)[n] + 1));
                }
            }
        }
        assert!(
            paired
                .iter()
                .enumerate()
                .all(|(c, &r)| r == 0 || s.blocks.batches.contains(&c))
        );
    }

    /// Whether `v` holds the constraints `ids` in their order up to the order of the lanes in
    /// each batch (`batches`: starts, then the end), which [`pair_lanes`] may change.
    fn cut_in_their_order<const K: usize>(
        ids: &[[u32; K]],
        v: &[[u32; K]],
        batches: &[usize],
    ) -> bool {
        batches.windows(2).all(|w| {
            let (mut a, mut b) = (ids[w[0]..w[1]].to_vec(), v[w[0]..w[1]].to_vec());
            a.sort_unstable();
            b.sort_unstable();
            a == b
        })
    }

    #[test]
    fn hinges_along_a_row_pair_up() {
        // Hinges from (i, j) to (i + 2, j) of a row of 16: `i` = 0, 1, 4, 5, 8, 9, 12, 13 share
        // no particle; paired, lane `r + 4` is lane `r` one particle on.
        let ids: Vec<[u32; 2]> = [0, 1, 4, 5, 8, 9, 12, 13].map(|i| [i, i + 2]).to_vec();
        let (v, s) = reorder(&ids);
        assert_eq!(s.blocks.batches, vec![0, 8]);
        assert_eq!(v, [0, 4, 8, 12, 1, 5, 9, 13].map(|i| [i, i + 2]));
        assert_eq!(paired(&v, &s.blocks.batches)[0], 0b11);
        // Only the first particles pair when the second ones do not follow each other.
        let ids: Vec<[u32; 2]> = (0..8).map(|i| [i, 100 + 3 * i]).collect();
        let (v, s) = reorder(&ids);
        assert_eq!(paired(&v, &s.blocks.batches)[0], 0b01);
        // Nothing pairs in links of every second particle: the order stays, and each lane's
        // two particles straddle.
        let ids: Vec<[u32; 2]> = (0..8).map(|i| [2 * i, 2 * i + 1]).collect();
        let (v, s) = reorder(&ids);
        assert_eq!(v, ids);
        assert_eq!(paired(&v, &s.blocks.batches)[0], STRADDLED);
        // One lane whose particles are two apart: neither.
        let mut ids = ids;
        ids[5] = [10, 12];
        let (v, s) = reorder(&ids);
        assert_eq!(paired(&v, &s.blocks.batches)[0], 0);
        // Straddled only in a batch of two-particle constraints.
        let hinges: Vec<[u32; 4]> = (0..8)
            .map(|i| [4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3])
            .collect();
        assert_eq!(paired(&hinges, &[0, 8])[0], 0);
    }

    #[test]
    fn a_grids_edges_go_row_by_row_in_runs() {
        use crate::bodies::cloth::grid;
        use crate::math::Vec3;
        use crate::mesh::topology::edges;
        let n = 40u32;
        let (_, tris) = grid(n, 12, [1.0, 1.0], Vec3::zeros(), false);
        let built = edges(&tris);
        let ids = order_grid_edges(built.clone(), n);
        let (mut a, mut b) = (ids.clone(), built.clone());
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "the same edges, lowest id first");
        // Row 0 along, every second edge first; then the first row of cells: its diagonals,
        // the edges across, then row 1 along.
        assert_eq!(ids[..2], [[0, 1], [2, 3]]);
        assert_eq!(ids[20..22], [[1, 2], [3, 4]]);
        assert_eq!(ids[39..41], [[1, 40], [2, 41]]);
        assert_eq!(ids[78..80], [[0, 40], [1, 41]]);
        assert_eq!(ids[118..120], [[40, 41], [42, 43]]);
        let (v, s) = reorder(&ids);
        assert!(cut_in_their_order(&ids, &v, &s.blocks.batches));
        let batches = s.blocks.batches.len() - 1;
        assert!(batches * LANES < ids.len() * 21 / 20, "{batches} batches");
        // Most diagonals and edges across are in runs: all but where a batch straddles two kinds
        // of edge, two rows or two blocks (82% here).
        let paired = paired(&v, &s.blocks.batches);
        let in_runs = paired.iter().filter(|&&r| r == 0b11).count() * LANES;
        let across = ids.iter().filter(|&&[a, b]| b - a > 1).count();
        assert!(in_runs * 4 >= across * 3, "{in_runs} of {across} in runs");
        // And the edges along the rows straddle, one load for both particles of a lane.
        let straddled = paired.iter().filter(|&&r| r == STRADDLED).count() * LANES;
        let along = ids.len() - across;
        assert!(
            straddled * 4 >= along * 3,
            "{straddled} of {along} straddled"
        );
        for w in s.blocks.batches.windows(2) {
            if paired[w[0]] == STRADDLED {
                assert!(v[w[0]..w[1]].iter().all(|&[a, b]| b == a + 1));
            }
        }
    }

    #[test]
    fn a_mesh_ordered_for_batches_fills_them_in_the_same_blocks() {
        use crate::mesh::{TriMesh, topology};
        let torus = TriMesh::load(std::path::Path::new("meshes/torus.obj")).unwrap();
        let fewest = |s: &Schedule| -> usize {
            (s.blocks.bounds.windows(2))
                .map(|w| (w[1] - w[0]).div_ceil(LANES))
                .sum()
        };
        let batches = |s: &Schedule| s.blocks.batches.len() - 1;
        fn check<const K: usize>(
            built: Vec<[u32; K]>,
            fewest: impl Fn(&Schedule) -> usize,
            batches: impl Fn(&Schedule) -> usize,
        ) {
            let ordered = order_for_batches(built.clone());
            let (before, after) = (schedule(&built), schedule(&ordered));
            assert_eq!(before.blocks.bounds, after.blocks.bounds);
            assert_eq!(before.blocks.colors, after.blocks.colors);
            for w in after.blocks.bounds.windows(2) {
                let sorted = |q: &[[u32; K]]| {
                    let mut q = q.to_vec();
                    q.sort_unstable();
                    q
                };
                assert_eq!(sorted(&built[w[0]..w[1]]), sorted(&ordered[w[0]..w[1]]));
            }
            // In the mesh's order nearly every batch holds one constraint.
            assert!(
                batches(&before) > 4 * fewest(&before),
                "{}",
                batches(&before)
            );
            assert!(
                batches(&after) <= fewest(&after) * 21 / 20,
                "{}",
                batches(&after)
            );
        }
        check(topology::edges(&torus.triangles), fewest, batches);
        check(topology::triangle_pairs(&torus.triangles), fewest, batches);
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
        // (their particles were last touched in the first, `GAP` batches before), then batches
        // of 8.
        assert_eq!(s.blocks.batches, vec![0, 8, 16, 24, 32, 40]);
        // Placed in the earliest batch, `[1, 2]` would wait in a second batch for `[0, 1]`; cut
        // in build order, the batches are as few, and the order is kept.
        let mixed: Vec<[u32; 2]> = vec![[0, 1], [1, 2], [3, 4], [5, 6]];
        let (v, s) = reorder(&mixed);
        assert_eq!(v, mixed);
        assert_eq!(s.blocks.batches, vec![0, 1, 4]);
        // With eight independent links after `[1, 2]`, the earliest batches are fewer.
        let free: Vec<[u32; 2]> = (0..8).map(|i| [10 + 2 * i, 11 + 2 * i]).collect();
        let mixed = [vec![[0, 1], [1, 2]], free.clone()].concat();
        let (v, s) = reorder(&mixed);
        let expected = [vec![[0, 1]], free[..7].to_vec(), vec![[1, 2], free[7]]].concat();
        assert_eq!(v, expected);
        assert_eq!(s.blocks.batches, vec![0, 8, 10]);
    }

    #[test]
    fn consecutive_batches_are_independent_when_there_is_room() {
        // 16 chains of 10 links, built chain after chain: with a gap of 1 the second 8 chains
        // would fill the batches right after the links of the first 8 that they follow.
        let ids: Vec<[u32; 2]> = (0..16u32)
            .flat_map(|c| (0..10).map(move |i| [c * 100 + i, c * 100 + i + 1]))
            .collect();
        let (v, s) = reorder(&ids);
        assert!(keeps_conflict_order(&ids, &s.order));
        let b = &s.blocks.batches;
        assert_eq!(b.len(), 21, "20 batches");
        assert!(b.windows(2).all(|w| w[1] - w[0] == LANES), "all full");
        for w in b.windows(3) {
            let first: Vec<u32> = v[w[0]..w[1]].iter().flatten().copied().collect();
            let next = &v[w[1]..w[2]];
            assert!(next.iter().flatten().all(|i| !first.contains(i)));
        }
    }

    /// The batches and `apart` flags each block hands out are its own: from its first bound to
    /// its last, and those of every block together are the whole arrays.
    #[test]
    fn each_block_hands_out_its_own_batches() {
        let ids: Vec<[u32; 2]> = (0..4000).map(|i| [i, i + 1]).collect();
        let (_, s) = reorder(&ids);
        let b = &s.blocks;
        assert_eq!(b.len(), BLOCKS);
        for k in 0..b.len() {
            let (batches, apart) = (b.batches_of(k..k + 1), b.apart_of(k..k + 1));
            assert_eq!(batches.first(), Some(&b.bounds[k]));
            assert_eq!(batches.last(), Some(&b.bounds[k + 1]));
            assert_eq!(apart.len(), batches.len() - 1);
            assert!(!apart[0], "a block's first batch is not apart");
        }
        assert_eq!(b.batches_of(0..b.len()), &b.batches[..]);
        assert_eq!(b.apart_of(0..b.len()), &b.apart[..]);
        assert!(Blocks::default().batches_of(0..0).is_empty());
    }

    #[test]
    fn rows_of_a_long_chain_make_two_colors_of_blocks() {
        let ids: Vec<[u32; 2]> = (0..4000).map(|i| [i, i + 1]).collect();
        let (v, s) = reorder(&ids);
        assert_eq!(s.blocks.bounds.len(), BLOCKS + 1);
        assert_eq!(s.blocks.colors, vec![vec![0, 2], vec![1, 3]]);
        validate(&v, &s.blocks).unwrap();
    }

    #[test]
    fn validator_rejects_a_shared_particle() {
        let two = || vec![0, 1, 2];
        let blocks = |colors| Blocks::new(two(), colors, two(), vec![false, false]);
        assert!(validate(&[[0, 1], [1, 2]], &blocks(vec![vec![0, 1]])).is_err());
        assert!(validate(&[[0, 1], [1, 2]], &blocks(vec![vec![0], vec![1]])).is_ok());
        assert!(validate(&[[0, 1], [1, 2]], &blocks(vec![vec![0]])).is_err());
        let colors = || vec![vec![0], vec![1]];
        let one_batch = Blocks::new(two(), colors(), vec![0, 2], vec![false]);
        assert!(validate(&[[0, 1], [1, 2]], &one_batch).is_err());
        // A block's first batch, or a batch sharing a particle with the one before, is not apart.
        let across_blocks = Blocks::new(two(), colors(), two(), vec![false, true]);
        assert!(validate(&[[0, 1], [2, 3]], &across_blocks).is_err());
        let one_block = |apart| Blocks::new(vec![0, 2], vec![vec![0]], two(), apart);
        assert!(validate(&[[0, 1], [1, 2]], &one_block(vec![false, true])).is_err());
        assert!(validate(&[[0, 1], [2, 3]], &one_block(vec![false, true])).is_ok());
        assert!(validate(&[[0, 1], [2, 3]], &one_block(vec![false])).is_err());
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
