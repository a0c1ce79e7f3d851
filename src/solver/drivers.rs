//! The drivers that project a constraint family: serially (Gauss-Seidel in the scheduled
//! order), by colored blocks in parallel over a [`Team`], or Jacobi-style with averaging. A
//! family plugs in through the [`Kernel`] trait: its particles, the correction of one
//! constraint (computed by its pure `solve_*` kernel) and the walk of its batches.

use super::schedule::{Blocks, MAX_BLOCKS};
use super::team::{Team, cut};
use super::view::{Positions, Slot, View};
use crate::math::{Real, Vec3};
use std::ops::Range;

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

    /// Projects the batches of `walk` in order (see [`Walk`]), each batch's constraints at once
    /// as SIMD vectors where the family has a batched kernel, with the bits of projecting them
    /// one after another with [`Kernel::correction`]. The constraints of a batch share no
    /// particle, so their order inside it does not matter.
    ///
    /// # Safety
    /// No other thread accesses the particles of these constraints during the call, and the
    /// walk's `batches` are bounds of the family's schedule: increasing, and within the family,
    /// with `apart` true only where a batch shares no particle with the one before
    /// ([`validate`](super::schedule::validate) checks all three when a family is scheduled).
    unsafe fn walk_batches<const DAMPED: bool>(&self, walk: &mut Walk, v: &View);
}

/// Projects constraint `c` and applies its correction: the body shared by the serial and colored
/// drivers.
///
/// # Safety
/// No other thread accesses the constraint's particles during the call.
#[cfg_attr(not(debug_assertions), inline(always))]
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

/// Projects the constraints `start..start + lambda.len()` one after another (`lambda` holds
/// their multipliers): the serial tail of a family.
///
/// # Safety
/// No other thread accesses the particles of these constraints during the call.
unsafe fn walk<const K: usize, const DAMPED: bool, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    start: usize,
    v: &View,
) {
    for (n, l) in lambda.iter_mut().enumerate() {
        // SAFETY: forwarded from the caller.
        unsafe { project_one::<K, DAMPED, F>(family, start + n, l, v) }
    }
}

/// A run of batches for [`Kernel::walk_batches`]: the batch bounds (starts, then the end) of a block of a
/// family's schedule, or of the whole schedule, and the multipliers of their constraints.
#[derive(Debug, Default)]
pub struct Walk<'a> {
    /// The multipliers of the constraints `batches[0]..batches[last]`.
    pub lambda: &'a mut [Real],
    /// The batch bounds: increasing, and within the family.
    pub batches: &'a [usize],
    /// For each batch, whether it shares no particle with the batch before it (see
    /// [`Blocks::apart`](super::schedule::Blocks::apart)); missing entries count as `false`.
    pub apart: &'a [bool],
}

impl Walk<'_> {
    /// Number of batches.
    pub fn len(&self) -> usize {
        self.batches.len().saturating_sub(1)
    }

    /// True when the walk has no batch.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Projects every constraint of `family`: the scheduled constraints (see [`Blocks`]), then the
/// serial tail one after another.
///
/// Without a `team`, Gauss-Seidel style: the scheduled constraints batch after batch, each seeing
/// the previous ones. Every iteration sweeps the same way: alternating the direction (symmetric
/// Gauss-Seidel) let W's cloth stretch twice as far at its worst edge over a run.
///
/// With a `team`, by colored blocks: the colors of `blocks` one after another, the blocks of a
/// color in parallel over the team (each walked in order). The result does not depend on the
/// number of threads. Called by the team's leader.
///
/// # Safety
/// With a `team`: `blocks` is valid for the family ([`validate`](super::schedule::validate)
/// passes on the ids of [`Kernel::particles`]), and each constraint's [`Kernel::correction`]
/// reads and writes only the particles of [`Kernel::particles`]. Without one, none.
pub unsafe fn project<const K: usize, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    blocks: &Blocks,
    v: &View,
    team: Option<&Team>,
) {
    // SAFETY: forwarded from the caller.
    unsafe {
        if family.damped() {
            project_with::<K, true, F>(family, lambda, blocks, team, v);
        } else {
            project_with::<K, false, F>(family, lambda, blocks, team, v);
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
    team: Option<&Team>,
    v: &View,
) {
    let end = blocks.end();
    let (scheduled, tail) = lambda.split_at_mut(end);
    if let Some(team) = team {
        // Color after color, the blocks of a color in parallel: the multipliers of each block,
        // borrowed apart.
        let mut parts = cut(scheduled, blocks.bounds.get(1..).unwrap_or_default());
        let all: [usize; MAX_BLOCKS] = std::array::from_fn(|g| g);
        for color in &blocks.colors {
            // One walk per block, claimed by the members as they come free.
            let mut walks: [Walk; MAX_BLOCKS] = Default::default();
            for (w, &b) in walks.iter_mut().zip(color) {
                *w = Walk {
                    lambda: std::mem::take(&mut parts[b]),
                    batches: blocks.batches_of(b..b + 1),
                    apart: blocks.apart_of(b..b + 1),
                };
            }
            let n = color.len();
            team.for_each_at(&mut walks[..n], &all[..n], |_, w| {
                // SAFETY: the blocks of one color share no particle (the caller's contract), so
                // no two members touch the same particle.
                unsafe { family.walk_batches::<DAMPED>(w, v) }
            });
        }
    } else {
        let mut whole = Walk {
            lambda: scheduled,
            batches: blocks.batches_of(0..blocks.len()),
            apart: blocks.apart_of(0..blocks.len()),
        };
        // SAFETY: this thread alone walks the constraints, one after another.
        unsafe { family.walk_batches::<DAMPED>(&mut whole, v) }
    }
    // SAFETY: no parallel pass is running; this thread alone walks the tail.
    unsafe { walk::<K, DAMPED, F>(family, tail, end, v) };
}

/// Relaxation factor `ω` of the Jacobi solver: a constraint whose particles carry at most `n`
/// constraints of its family applies `ω / n` of its correction (after the averaging of Macklin
/// et al. 2014, "Unified Particle Physics for Real-Time Applications", sec. 4.2, which recommends
/// `1 ≤ ω ≤ 2`; see [`project_jacobi`]). A substep of one iteration is not over-relaxed (see
/// [`jacobi_relaxation`]).
pub const JACOBI_OMEGA: Real = 1.5;

/// The Jacobi relaxation `ω` for substeps of `iterations` iterations: [`JACOBI_OMEGA`], or 1
/// when a substep has a single iteration.
///
/// In a linear model, one relaxed Jacobi iteration scales a mode of the constraint error by
/// `μ = 1 − (ω / n) σ`, with `σ` an eigenvalue of `J M⁻¹ Jᵀ` over its diagonal; for equal
/// masses `σ ≤ n` (Gershgorin: a constraint's own row gives 1, and each of the at most
/// `2 (n − 1)` constraints it shares a particle with at most ½), so `μ ≥ 1 − ω`. What one
/// substep's iterations leave, the velocity update carries into the next prediction, so the
/// error follows `e⁺ = μᵏ (2e − e⁻)` over substeps of `k` iterations, as Verlet's does, and that
/// recurrence grows unless `μᵏ ≥ −⅓`. With `k = 1` and `ω` = 1.5 a chain's zig-zag mode has
/// `μ` = −½: an undamped 20-link chain at 200 x 1 gained energy a thousandfold within 10 s.
/// `ω = 1` keeps `μ ≥ 0`; from two iterations on, `μᵏ ≥ −⅛` with `ω` = 1.5.
pub fn jacobi_relaxation(iterations: u32) -> Real {
    match iterations {
        1 => 1.0,
        _ => JACOBI_OMEGA,
    }
}

/// Estimated spectral radius `ρ` of one Jacobi iteration, which sets the weights of the
/// Chebyshev acceleration (see [`JacobiScratch::end_iteration`]): larger values extrapolate
/// further, and diverge once above the true radius. On W, 0.8 to 0.96 give about the same
/// stretch and 0.99 diverges; at 0.85 and above the hanging rope misses Hooke's law by more
/// than 1.5% (see `docs/performance.md`).
pub const JACOBI_RHO: Real = 0.8;

/// Estimated spectral radius `ρ` of one iteration of `colored` Gauss-Seidel, for the Chebyshev
/// acceleration of `colored-chebyshev`. Measured on W (10 substeps): at N = 128 and 10
/// iterations the largest stretch falls from 154% without acceleration to 72% at 0.9 and 54% at
/// 0.95, and 0.98 diverges; at N = 64 and 4 iterations 0.95 already left 8 times the mean
/// stretch of 0.9 (see `docs/performance.md`).
pub const COLORED_RHO: Real = 0.9;

/// The first iteration of a substep (counted from 0) that the Chebyshev acceleration
/// extrapolates (Wang 2015's `S`). The first iterations carry the large correction from the
/// predicted positions; extrapolating it from the second iteration on diverged on a cloth of 2
/// and 3 iterations per substep (`scenes/default.toml`), so substeps of 2 iterations are not
/// accelerated.
pub const CHEBYSHEV_START: u32 = 2;

/// Whether the start of iteration `i` of a substep of `iterations` is `x⁽ᵏ⁻¹⁾` of an
/// extrapolated iteration `k = i + 1` (from [`CHEBYSHEV_START`] on), and so must be recorded.
fn extrapolated_from(i: u32, iterations: u32) -> bool {
    i + 1 >= CHEBYSHEV_START && i + 1 < iterations
}

/// What moves the particles between an iteration's Chebyshev extrapolation and the next
/// iteration (see [`JacobiScratch::end_iteration`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Nothing: the next iteration starts from the extrapolated positions.
    Here,
    /// The contacts alone, whose pushes the next extrapolation keeps.
    Contacts,
    /// Families whose moves the next extrapolation leaves out (serial families, shape matching,
    /// pressure, attachments), maybe contacts too.
    Families,
}

/// What the Jacobi solver keeps between its passes and between steps (so that a step does not
/// allocate): per particle, the sum of a pass's corrections and the iterates of the Chebyshev
/// acceleration; per family (numbered by the caller), its relaxations and multiplier iterates.
#[derive(Clone, Debug, Default)]
pub struct JacobiScratch {
    /// Sum of the relaxed corrections of the current pass on each particle (in `p`; `w` unused),
    /// m; zero between passes.
    sum: Vec<Slot>,
    /// Number of constraints of one family on each particle, while relaxations are computed.
    count: Vec<u32>,
    /// Positions at the start of the current iteration `k`, `x⁽ᵏ⁾`, m.
    start: Vec<Vec3>,
    /// Positions at the start of the previous iteration, `x⁽ᵏ⁻¹⁾`, m, plus what the families
    /// left out of the extrapolation moved them by since (see [`JacobiScratch::end_iteration`]).
    before: Vec<Vec3>,
    /// The particles' positions before the particle families of the current iteration, m (see
    /// [`JacobiScratch::mark_particles`]).
    marked: Vec<Vec3>,
    /// Chebyshev weight `ω_k` of the current iteration.
    omega: Real,
    /// The current iteration and the substep's iterations (see
    /// [`JacobiScratch::begin_iteration`]).
    iteration: (u32, u32),
    /// Relaxation `ω` of this substep's Jacobi passes ([`jacobi_relaxation`]).
    relaxation: Real,
    /// Whether the last [`JacobiScratch::end_iteration`] left the next iteration's start
    /// positions in `start`.
    started: bool,
    /// Per family, in the caller's numbering.
    families: Vec<JacobiFamily>,
}

/// The Jacobi solver's state for one family.
#[derive(Clone, Debug, Default)]
struct JacobiFamily {
    /// Relaxation `ω / n` of each constraint (see [`project_jacobi`]), set at a substep's first
    /// iteration.
    relax: Vec<Real>,
    /// Multiplier of each constraint at the start of the current iteration.
    start: Vec<Real>,
    /// Multiplier of each constraint at the start of the previous iteration.
    before: Vec<Real>,
}

impl JacobiScratch {
    /// Begins iteration `i` (counted from 0 in each substep of `iterations`) over the particles
    /// `slots`: records their positions for the Chebyshev acceleration and sets its weight for
    /// the spectral radius `rho` ([`JACOBI_RHO`] or [`COLORED_RHO`]), and the relaxation of the
    /// Jacobi passes.
    pub fn begin_iteration(
        &mut self,
        (i, iterations): (u32, u32),
        rho: Real,
        slots: &[Slot],
        team: &Team,
    ) {
        self.relaxation = jacobi_relaxation(iterations);
        self.omega = if i < CHEBYSHEV_START {
            1.0
        } else if i == CHEBYSHEV_START {
            2.0 / (2.0 - rho * rho)
        } else {
            4.0 / (4.0 - rho * rho * self.omega)
        };
        if i == 0 {
            for buffer in [&mut self.start, &mut self.before] {
                buffer.resize(slots.len(), Vec3::zeros());
            }
            self.started = false;
        }
        self.iteration = (i, iterations);
        if !self.started && extrapolated_from(i, iterations) {
            team.for_each_chunk((&mut self.start[..], slots), |_, (start, slots)| {
                for (x, s) in start.iter_mut().zip(slots) {
                    *x = s.p;
                }
            });
        }
    }

    /// Records the multipliers `lambdas` (family `f` at index `f`) at the start of a substep's
    /// first iteration for a method whose passes project in place (`colored-chebyshev`), for
    /// [`JacobiScratch::end_iteration`], which records them for the next iterations; the Jacobi
    /// passes record their own.
    pub fn record_multipliers(&mut self, lambdas: &[&mut [Real]], team: &Team) {
        if self.families.len() < lambdas.len() {
            self.families.resize_with(lambdas.len(), Default::default);
        }
        for (family, lambda) in self.families.iter_mut().zip(lambdas) {
            if lambda.is_empty() {
                continue;
            }
            for buffer in [&mut family.start, &mut family.before] {
                buffer.resize(lambda.len(), 0.0);
            }
            if extrapolated_from(0, self.iteration.1) {
                team.for_each_chunk(
                    (&mut family.start[..], &lambda[..]),
                    |_, (start, lambda)| start.copy_from_slice(lambda),
                );
            }
        }
    }

    /// Ends an iteration begun by [`JacobiScratch::begin_iteration`] with the Chebyshev
    /// semi-iterative acceleration of Wang 2015 ("A Chebyshev Semi-Iterative Approach for
    /// Accelerating Projective and Position-Based Dynamics", with its under-relaxation `γ = 1`):
    /// from the positions `x̂` after the iteration's Jacobi passes,
    /// `x⁽ᵏ⁺¹⁾ = ω_k (x̂ − x⁽ᵏ⁻¹⁾) + x⁽ᵏ⁻¹⁾`, with `ω_k = 1` before iteration
    /// `S` = [`CHEBYSHEV_START`], `ω_S = 2 / (2 − ρ²)`, `ω_k = 4 / (4 − ρ² ω_{k−1})` after it,
    /// and `ρ` the radius given to `begin_iteration`. The multipliers `lambdas` (family `f` at index `f`) move with the
    /// same weights, whose sum is 1, so that each stays the impulse its constraint has applied
    /// and XPBD keeps its compliance.
    ///
    /// The same pass writes the new iterate over `x⁽ᵏ⁻¹⁾`, which it no longer needs, as the
    /// start of the next iteration when `next` is [`Next::Here`] (no other phase moves the
    /// particles before the next iteration), so that an iteration then makes one pass over the
    /// particles for the acceleration; otherwise `begin_iteration` records the start. The
    /// multipliers, which only the scheduled families change, are recorded here whenever an
    /// extrapolation will read them.
    ///
    /// With [`Next::Families`] the corrections of the families outside the scheduled phase are
    /// left out of the next extrapolation, but the contacts': this pass keeps `x⁽ᵏ⁾` minus the
    /// extrapolated positions, [`JacobiScratch::serial_moved`], after the serial families, adds the
    /// positions they leave, and [`JacobiScratch::particles_moved`] what the particle families
    /// did, so that their moves cancel in `x̂ − x⁽ᵏ⁾`. Their multipliers are not extrapolated,
    /// and moving their particles by `ω` times their correction would apply an impulse the
    /// multipliers do not hold: a clamped rope's bending hinges (a serial family) held 8% too
    /// stiff at rest, and a rigid body (shape matching) resting on the ground kept moving. The
    /// contacts' pushes stay in it: left out too, they fought the extrapolated stretch, and a
    /// cloth draped on a mesh stretched 11% more.
    pub fn end_iteration(
        &mut self,
        slots: &mut [Slot],
        lambdas: &mut [&mut [Real]],
        next: Next,
        team: &Team,
    ) {
        let omega = self.omega;
        let next_starts_here = next == Next::Here;
        if next == Next::Families {
            let parts = (&mut slots[..], &mut self.before[..], &self.start[..]);
            team.for_each_chunk(parts, |_, (slots, before, start)| {
                for ((s, b), x) in slots.iter_mut().zip(before).zip(start) {
                    if omega != 1.0 {
                        s.p = *b + (s.p - *b) * omega;
                    }
                    *b = *x - s.p;
                }
            });
        } else if omega != 1.0 || next_starts_here {
            let parts = (&mut slots[..], &mut self.before[..]);
            team.for_each_chunk(parts, |_, (slots, before)| {
                for (s, b) in slots.iter_mut().zip(before) {
                    if omega != 1.0 {
                        s.p = *b + (s.p - *b) * omega;
                    }
                    if next_starts_here {
                        *b = s.p;
                    }
                }
            });
        }
        self.started = next_starts_here;
        if next != Next::Families {
            std::mem::swap(&mut self.start, &mut self.before);
        }
        let (i, iterations) = self.iteration;
        let record = extrapolated_from(i + 1, iterations);
        for (family, lambda) in self.families.iter_mut().zip(lambdas.iter_mut()) {
            if lambda.is_empty() {
                continue;
            }
            if omega == 1.0 && !record {
                std::mem::swap(&mut family.start, &mut family.before);
                continue;
            }
            let parts = (&mut lambda[..], &mut family.before[..]);
            team.for_each_chunk(parts, |_, (lambda, before)| {
                for (l, b) in lambda.iter_mut().zip(before) {
                    if omega != 1.0 {
                        *l = *b + (*l - *b) * omega;
                    }
                    *b = *l;
                }
            });
            std::mem::swap(&mut family.start, &mut family.before);
        }
    }

    /// Adds the positions `slots` that the serial families left to `x⁽ᵏ⁻¹⁾` of the next
    /// iteration, after an [`JacobiScratch::end_iteration`] with [`Next::Families`].
    pub fn serial_moved(&mut self, slots: &[Slot], team: &Team) {
        team.for_each_chunk((&mut self.before[..], slots), |_, (before, slots)| {
            for (b, s) in before.iter_mut().zip(slots) {
                *b += s.p;
            }
        });
    }

    /// Records the particles' positions `p` before the particle families of an iteration
    /// ended with [`Next::Families`], for [`JacobiScratch::particles_moved`].
    pub fn mark_particles(&mut self, p: &[Vec3], team: &Team) {
        self.marked.resize(p.len(), Vec3::zeros());
        team.for_each_chunk((&mut self.marked[..], p), |_, (marked, p)| {
            marked.copy_from_slice(p)
        });
    }

    /// Adds what the particle families moved the particles by, from the positions of
    /// [`JacobiScratch::mark_particles`] to `p`, to `x⁽ᵏ⁻¹⁾` of the next iteration.
    pub fn particles_moved(&mut self, p: &[Vec3], team: &Team) {
        let parts = (&mut self.before[..], &self.marked[..], p);
        team.for_each_chunk(parts, |_, (before, marked, p)| {
            for ((b, m), p) in before.iter_mut().zip(marked).zip(p) {
                *b += p - m;
            }
        });
    }
}

/// Projects every constraint of `family` Jacobi-style: all corrections are computed from the
/// same positions and then applied together, each scaled by the relaxation `ω / n`, with `ω`
/// from [`jacobi_relaxation`] and `n` the largest number of the family's constraints on any of
/// its particles. Where every particle has `n` constraints this is the averaging of Macklin et al.
/// 2014 (`Δxᵢ = ω/nᵢ Σ Δxᵢ`); scaling per constraint rather than per particle keeps each
/// multiplier equal to the impulse actually applied, so XPBD keeps its compliance (per-particle
/// averaging makes a rope `n / ω` times too soft), and no particle moves by more than `ω` times
/// the mean of its corrections.
///
/// The corrections are computed in parallel over `team`, color after color of the family's
/// `blocks` (the blocks of a color share no particle, so each sums into its particles' entries
/// alone), then the serial tail: every particle receives its corrections in the same order
/// whatever the number of threads, so the result does not depend on it. `index` numbers the
/// family in `scratch`; `i` is the iteration, counted from 0 in each substep (the relaxations
/// are set at 0). Called by the team's leader, between [`JacobiScratch::begin_iteration`] and
/// [`JacobiScratch::end_iteration`].
///
/// # Safety
/// `blocks` is valid for the family (as for [`project`] with a team).
#[allow(clippy::too_many_arguments)]
pub unsafe fn project_jacobi<const K: usize, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    blocks: &Blocks,
    slots: &mut [Slot],
    x: &[Vec3],
    scratch: &mut JacobiScratch,
    index: usize,
    i: u32,
    team: &Team,
) {
    if scratch.families.len() <= index {
        scratch.families.resize_with(index + 1, Default::default);
    }
    if lambda.is_empty() {
        return;
    }
    let JacobiScratch {
        sum,
        count,
        families,
        relaxation,
        ..
    } = scratch;
    let state = &mut families[index];
    if i == 0 {
        relaxations(family, lambda.len(), slots.len(), *relaxation, count, state);
        sum.resize(slots.len(), Slot::default());
    }
    // SAFETY: forwarded from the caller.
    unsafe {
        if family.damped() {
            jacobi::<K, true, F>(family, lambda, blocks, slots, x, sum, state, team);
        } else {
            jacobi::<K, false, F>(family, lambda, blocks, slots, x, sum, state, team);
        }
    }
    team.for_each_chunk((slots, &mut sum[..]), |_, (slots, sum)| {
        for (s, d) in slots.iter_mut().zip(sum) {
            s.p += d.p;
            d.p = Vec3::zeros();
        }
    });
}

/// Sets `state` for a family of `len` constraints over `particles` particles: the relaxation
/// `ω / n` of each constraint (`n` the most constraints of the family on one of its particles,
/// counted in `count`), and room for its multiplier iterates.
fn relaxations<const K: usize, F: Kernel<K>>(
    family: &F,
    len: usize,
    particles: usize,
    omega: Real,
    count: &mut Vec<u32>,
    state: &mut JacobiFamily,
) {
    count.clear();
    count.resize(particles, 0);
    for c in 0..len {
        for i in family.particles(c) {
            count[i] += 1;
        }
    }
    state.relax.clear();
    state.relax.extend((0..len).map(|c| {
        let most = family.particles(c).map(|i| count[i]).into_iter().max();
        omega / most.unwrap_or(1) as Real
    }));
    for buffer in [&mut state.start, &mut state.before] {
        buffer.resize(len, 0.0);
    }
}

/// The correction pass of [`project_jacobi`] for a family with (`DAMPED`) or without XPBD
/// damping: sums every constraint's relaxed correction into `sum`, records the multipliers in
/// `state.start` and adds their relaxed changes.
///
/// # Safety
/// As [`project_jacobi`].
#[allow(clippy::too_many_arguments)]
unsafe fn jacobi<const K: usize, const DAMPED: bool, F: Kernel<K>>(
    family: &F,
    lambda: &mut [Real],
    blocks: &Blocks,
    slots: &mut [Slot],
    x: &[Vec3],
    sum: &mut [Slot],
    state: &mut JacobiFamily,
    team: &Team,
) {
    let v = View::new(slots, x);
    let sum = Positions::new(sum);
    let relax = &state.relax;
    let end = blocks.end();
    let pass = |range: Range<usize>, lambda: &mut [Real], start: &mut [Real]| {
        for ((c, l), s) in range.zip(lambda).zip(start) {
            *s = *l;
            // SAFETY: no thread writes the positions during the pass.
            if let Some(r) = unsafe { family.correction::<DAMPED>(c, *l, &v) } {
                for (&i, dp) in r.ids.iter().zip(r.dp) {
                    // SAFETY: the blocks of one color share no particle (the caller's contract),
                    // and the tail is walked alone.
                    unsafe { sum.add(i, dp * relax[c]) };
                }
                *l += r.delta_lambda * relax[c];
            }
        }
    };
    let (scheduled, tail) = lambda.split_at_mut(end);
    let (start, start_tail) = state.start.split_at_mut(end);
    let bounds = blocks.bounds.get(1..).unwrap_or_default();
    let count = bounds.len();
    let mut parts = cut((scheduled, start), bounds);
    for color in &blocks.colors {
        team.for_each_at(&mut parts[..count], color, |b, (lambda, start)| {
            pass(blocks.range(b), lambda, start)
        });
    }
    pass(end..end + tail.len(), tail, start_tail);
}
