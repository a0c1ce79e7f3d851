//! The one [`Kernel`] of every scheduled family (distance, dihedral, isometric bending, tet
//! volume): a constraint alone, or a batch at once. The constraints of a batch (see
//! [`schedule`](crate::solver::schedule)) share no particle, so their particles' slots are
//! gathered into one SIMD vector per coordinate, the family's [`FamilyKind::project`] runs on all
//! [`LANES`] lanes at once, and the new positions are scattered back. The arithmetic is the
//! scalar projection's, so the bits are the same. Batches are projected with the vectors of
//! [`simd::path`]: AVX where the processor has it (x86-64), `wide::f32x8` otherwise, or what
//! `SUPPLE_SIMD` forces.
//!
//! From a stage to the formula:
//! [`Family::project_colored`](super::family::Family::project_colored) → [`drivers::project`]
//! → its build with or without damping, which hands the blocks of each color to the team →
//! [`Kernel::walk_batches`] (the match on [`simd::path`]) → the build for the path
//! (`walk_batches_avx`, compiled for AVX) → `walk_batches_as` (pairs or not) → `Batched::walk`
//! → `Batched::project_lanes` → `Batched::project_batch` → [`FamilyKind::project`] (for
//! distance [`Distance`](super::distance::Distance)'s, the formula that
//! [`solve_distance`](super::distance::solve_distance) wraps for one constraint).
//!
//! Optimized builds inline that chain into each path's build (`#[inline(always)]`), so that the
//! whole walk is compiled with the path's target features. Debug builds do not
//! (`cfg_attr(not(debug_assertions), ..)`): unoptimized, the whole walk in one function took a
//! stack frame of up to 2.7 MB, more than the 2 MiB stack of a spawned thread (a rayon worker,
//! a Bevy task), which overflowed at the first colored step.

use super::family::{FamilyData, FamilyKind, project_one};
use super::stiffness::Coeffs;
use crate::math::{LaneVec, Lanes, Real, Vec3};
use crate::solver::drivers::{self, Correction, Kernel, Walk};
use crate::solver::simd::{self, Batch, Pair, TABLE, gather_vec3};
use crate::solver::{LANES, Slot, View};
use std::ops::Range;
use wide::{f32x8, f32x16};

/// A family's kernel as the drivers see it: one constraint at a time with the scalar
/// [`FamilyKind::project`] (the serial tail, the Jacobi solver, a batch of one), or the batches of
/// a walk as SIMD vectors with the [`simd::path`] of the processor (see `Batched`).
impl<const K: usize, Kind: FamilyKind<K>> Kernel<K> for FamilyData<'_, K, Kind> {
    #[inline(always)]
    fn particles(&self, c: usize) -> [usize; K] {
        self.ids[c].map(|i| i as usize)
    }

    fn damped(&self) -> bool {
        self.coeffs.iter().any(Coeffs::reads_displacements)
    }

    #[inline(always)]
    unsafe fn correction<const DAMPED: bool>(
        &self,
        c: usize,
        lambda: Real,
        v: &View,
    ) -> Option<Correction<K>> {
        let ids = self.particles(c);
        // SAFETY: no other thread writes these particles (the caller's contract).
        let slots = ids.map(|i| unsafe { v.p.get(i) });
        let pos = slots.map(|s| s.p);
        let dx = DAMPED.then(|| std::array::from_fn(|n| pos[n] - v.x[ids[n]]));
        let k = &self.coeffs[self.mat[c] as usize];
        let w = slots.map(|s| s.w);
        let weights = match Kind::WEIGHTED {
            true => self.weights.map(|w| w[c]),
            false => [0.0; 4],
        };
        let r = project_one::<K, Kind>(pos, w, self.rest[c], weights, lambda, dx, k);
        (r.applied > 0.0).then(|| Correction {
            ids,
            dp: r.dp.map(Vec3::from),
            delta_lambda: k.kept(r.delta_lambda),
        })
    }

    /// The batches as vectors of the [`simd::path`] this process runs (see `Batched`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn walk_batches<const DAMPED: bool>(&self, walk: &mut Walk, v: &View) {
        // SAFETY (every arm): the processor has `simd::path`; the rest is forwarded.
        unsafe {
            match simd::path() {
                #[cfg(target_arch = "x86_64")]
                simd::SimdPath::Avx2 => walk_batches_avx::<K, Kind, DAMPED>(self, walk, v),
                #[cfg(target_arch = "x86_64")]
                simd::SimdPath::Avx512 => walk_batches_avx512::<K, Kind, DAMPED>(self, walk, v),
                _ => walk_batches_as::<K, Kind, f32x8, f32x16, DAMPED, false>(self, walk, v),
            }
        }
    }
}

/// The values of a batch, one per lane; the unused lanes of a partial batch repeat the last.
#[inline(always)]
fn padded<T: Copy>(a: &[T]) -> [T; LANES] {
    <[T; LANES]>::try_from(a).unwrap_or_else(|_| {
        // A loop of known length, unrolled, rather than a `memcpy` call of unknown length.
        let mut p = [a[0]; LANES];
        for (l, p) in p.iter_mut().enumerate() {
            *p = a[l.min(a.len() - 1)];
        }
        p
    })
}

/// A family's kernel with its batches projected as SIMD vectors `V` (see [`Batch`]); when
/// `PAIR`, two consecutive full batches that share no particle projected at once as [`Pair`]s
/// `P` (see [`Batched::walk`]). The particles of a full batch whose slots come in pairs
/// ([`FamilyData::paired`]) are loaded and stored a pair at a time ([`Batch::gather_paired`]).
/// When `HARD`, every material of the family is [`hard`], and the walk projects with those
/// coefficients as constants.
struct Batched<'d, 'a, const K: usize, Kind, V, P, const PAIR: bool, const HARD: bool> {
    data: &'d FamilyData<'a, K, Kind>,
    /// The coefficients of every lane when all the family's materials have the same.
    uniform: Option<Coeffs<V>>,
    /// Otherwise, when the family has at most [`TABLE`] materials, their coefficients as tables
    /// (α̃, γ, scale) for [`Batch::lookup`].
    tables: Option<[[Real; TABLE]; 3]>,
    /// Whether every material of the family is rigid, so that no multiplier is kept (see
    /// [`Coeffs::kept`]) and the batches neither read nor write them.
    rigid: bool,
    /// Whether the family's materials are projected SHAKE's way ([`Coeffs::shake`], the same
    /// for every material of a family).
    shake: bool,
    /// The type of a pair of batches, `P` (no data).
    pair: std::marker::PhantomData<fn() -> P>,
}

impl<
    'd,
    'a,
    const K: usize,
    Kind: FamilyKind<K>,
    V: Batch,
    P: Pair<V>,
    const PAIR: bool,
    const HARD: bool,
> Batched<'d, 'a, K, Kind, V, P, PAIR, HARD>
{
    #[inline(always)]
    fn new(data: &'d FamilyData<'a, K, Kind>) -> Self {
        assert!(
            data.rest.len() == data.ids.len() && data.offsets.len() == data.ids.len(),
            "one rest value and one set of offsets per constraint"
        );
        assert!(
            !Kind::WEIGHTED || data.weights.iter().all(|w| w.len() == data.ids.len()),
            "one set of weights per constraint of a weighted kind"
        );
        // A cloth's stretch and shear are two materials, usually alike.
        let uniform = match data.coeffs {
            [k, rest @ ..] if rest.iter().all(|r| r == k) => Some(Coeffs {
                alpha_tilde: V::splat(k.alpha_tilde),
                gamma: V::splat(k.gamma),
                scale: V::splat(k.scale),
                shake: k.shake,
            }),
            _ => None,
        };
        let tables = (uniform.is_none() && data.coeffs.len() <= TABLE).then(|| {
            let mut t = [[0.0; TABLE]; 3];
            for (m, k) in data.coeffs.iter().enumerate() {
                (t[0][m], t[1][m], t[2][m]) = (k.alpha_tilde, k.gamma, k.scale);
            }
            t
        });
        let rigid = data.coeffs.iter().all(Coeffs::is_rigid);
        Batched {
            data,
            uniform,
            tables,
            rigid,
            shake: data.coeffs.iter().any(|k| k.shake),
            pair: std::marker::PhantomData,
        }
    }

    /// The coefficients of the materials `mat` of a batch, one per lane (the unused lanes of a
    /// partial batch repeat the last): looked up in the family's tables when it has them.
    #[inline(always)]
    fn lane_coeffs(&self, mat: &[u16]) -> Coeffs<V> {
        if let Some([alpha_tilde, gamma, scale]) = self.tables {
            let mat = padded(mat);
            return Coeffs {
                alpha_tilde: V::lookup(alpha_tilde, &mat),
                gamma: V::lookup(gamma, &mat),
                scale: V::lookup(scale, &mat),
                shake: self.shake,
            };
        }
        let [mut alpha_tilde, mut gamma, mut scale] = [[0.0; LANES]; 3];
        for (l, m) in padded(mat).into_iter().enumerate() {
            let k = &self.data.coeffs[m as usize];
            (alpha_tilde[l], gamma[l], scale[l]) = (k.alpha_tilde, k.gamma, k.scale);
        }
        Coeffs {
            alpha_tilde: V::from_array(alpha_tilde),
            gamma: V::from_array(gamma),
            scale: V::from_array(scale),
            shake: self.shake,
        }
    }
}

impl<const K: usize, Kind: FamilyKind<K>, V: Batch, P: Pair<V>, const PAIR: bool, const HARD: bool>
    Batched<'_, '_, K, Kind, V, P, PAIR, HARD>
{
    /// [`Kernel::walk_batches`]: projects the batches of `w` in order, each with
    /// [`Batched::project_lanes`] (a batch of one with [`drivers::project_one`], the same
    /// arithmetic), or, when `PAIR`, two consecutive full batches that share no particle with
    /// [`Batched::project_pair`]. (Walking the blocks of a color interleaved, a batch of each in
    /// turn, was 1.23x faster on W at N = 64 before a grid's constraints came in runs, and 1.19x
    /// slower since.) Always inlined, with plain loops, so that it compiles inside a caller built
    /// for a wider instruction set (see [`simd`]).
    ///
    /// # Safety
    /// The contract of [`Kernel::walk_batches`].
    ///
    /// # Panics
    /// If the walk's `lambda` does not hold one multiplier per constraint of its batches.
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn walk<const DAMPED: bool>(&self, w: &mut Walk, v: &View) {
        // With the caller's contract, this one check bounds every batch's multipliers.
        let (start, end) = (w.batches.first(), w.batches.last());
        let len = end.zip(start).map_or(0, |(e, s)| e - s);
        assert_eq!(w.lambda.len(), len, "multipliers of the batches");
        let (n, mut done) = (w.len(), 0);
        while done < n {
            let start = w.batches[0];
            // SAFETY: `b < n`, so `b + 1` is a bound of `w.batches`.
            let batch = |b: usize| unsafe {
                let (first, end) = (*w.batches.get_unchecked(b), *w.batches.get_unchecked(b + 1));
                (first, end - first)
            };
            let (first, len) = batch(done);
            // The batch after it, which `apart` tells apart from it.
            let next = done + 1;
            if PAIR && next < n {
                let (second, second_len) = batch(next);
                if len == LANES && second_len == LANES && w.apart.get(next) == Some(&true) {
                    let (head, tail) = w.lambda.split_at_mut(second - start);
                    let (a, b) = (full(&mut head[first - start..]), full(tail));
                    // SAFETY: forwarded from the caller; the two batches share no particle.
                    unsafe { self.project_pair::<DAMPED>((first, a), (second, b), v) };
                    done += 2;
                    continue;
                }
            }
            let end = first + len;
            debug_assert!(start <= first && first < end && end - start <= w.lambda.len());
            // SAFETY: the bounds increase from `start` to `start + w.lambda.len()` (the caller's
            // contract, and the length checked above).
            let part = unsafe { w.lambda.get_unchecked_mut(first - start..end - start) };
            // SAFETY: forwarded from the caller, the batch being constraints of the family; a
            // batch shares no particle.
            unsafe {
                if let [l] = part {
                    // A chain (a rope) gives batches of one: not worth a vector.
                    drivers::project_one::<K, DAMPED, _>(self.data, first, l, v);
                } else {
                    self.project_lanes::<DAMPED>(first, part, v);
                }
            }
            done += 1;
        }
    }

    /// Projects the constraints `c..c + lambda.len()` (at most [`LANES`]), which share no
    /// particle, at once, and adds their multiplier changes to `lambda`. A full batch reads its
    /// slot offsets, rest values and multipliers in place; a partial batch works on padded
    /// copies, whose unused lanes repeat its last constraint, so they compute and write the very
    /// values that lane writes.
    ///
    /// # Safety
    /// No other thread accesses the constraints' particles during the call, and
    /// `c..c + lambda.len()` are constraints of the family.
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn project_lanes<const DAMPED: bool>(&self, c: usize, lambda: &mut [Real], v: &View) {
        let data = self.data;
        let lanes = c..c + lambda.len();
        debug_assert!(lanes.end <= data.ids.len());
        // SAFETY: the lanes are constraints of the family (the caller's contract), and the family
        // holds one rest value and one set of offsets per constraint (checked in `Batched::new`).
        let (offsets, rest) = unsafe {
            (
                data.offsets.get_unchecked(lanes.clone()),
                data.rest.get_unchecked(lanes.clone()),
            )
        };
        let full = (
            <&[[u32; K]; LANES]>::try_from(offsets),
            <&[Real; LANES]>::try_from(rest),
            <&mut [Real; LANES]>::try_from(&mut *lambda),
        );
        // SAFETY (both arms): forwarded from the caller.
        match full {
            // SAFETY: the family holds one entry of `paired` per constraint.
            (Ok(offsets), Ok(rest), Ok(lambda)) => unsafe {
                match *data.paired.get_unchecked(c) != 0 {
                    true => {
                        self.project_batch::<DAMPED, true, true>(lanes, offsets, rest, lambda, v)
                    }
                    false => {
                        self.project_batch::<DAMPED, true, false>(lanes, offsets, rest, lambda, v)
                    }
                }
            },
            _ => {
                let mut padded_lambda = padded(lambda);
                unsafe {
                    self.project_batch::<DAMPED, false, false>(
                        lanes,
                        &padded(offsets),
                        &padded(rest),
                        &mut padded_lambda,
                        v,
                    )
                };
                let n = lambda.len();
                lambda.copy_from_slice(&padded_lambda[..n]);
            }
        }
    }

    /// Projects the full batches `a` and `b` (each its first constraint and its multipliers),
    /// which share no particle, as one of `2 LANES` lanes (a [`Pair`] `P`): each lane's
    /// arithmetic is the same, so the result is the bits of projecting `a`, then `b`, with
    /// [`Batched::project_lanes`].
    ///
    /// # Safety
    /// As [`Batched::project_lanes`] for each batch.
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn project_pair<const DAMPED: bool>(
        &self,
        a: (usize, &mut [Real; LANES]),
        b: (usize, &mut [Real; LANES]),
        v: &View,
    ) {
        // SAFETY: the family holds one entry of `paired` per constraint; the rest is forwarded.
        unsafe {
            let paired = |c: usize| *self.data.paired.get_unchecked(c);
            match paired(a.0) | paired(b.0) != 0 {
                true => self.project_pair_as::<DAMPED, true>(a, b, v),
                false => self.project_pair_as::<DAMPED, false>(a, b, v),
            }
        }
    }

    /// [`Batched::project_pair`], moving the paired particles of the two batches a pair of slots
    /// at a time when `PAIRED` (see [`Batched::gather`]).
    ///
    /// # Safety
    /// As [`Batched::project_pair`].
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn project_pair_as<const DAMPED: bool, const PAIRED: bool>(
        &self,
        (a, lambda_a): (usize, &mut [Real; LANES]),
        (b, lambda_b): (usize, &mut [Real; LANES]),
        v: &View,
    ) {
        let data = self.data;
        let lanes = |c: usize| c..c + LANES;
        // SAFETY: the lanes are constraints of the family (the caller's contract), and the family
        // holds one rest value and one set of offsets per constraint (checked in `Batched::new`).
        let (ga, gb) = unsafe {
            let offsets = |c: usize| &*data.offsets.as_ptr().add(c).cast::<[[u32; K]; LANES]>();
            let rest = |c: usize| &*data.rest.as_ptr().add(c).cast::<[Real; LANES]>();
            (
                self.gather::<DAMPED, PAIRED>(lanes(a), offsets(a), rest(a), lambda_a, v),
                self.gather::<DAMPED, PAIRED>(lanes(b), offsets(b), rest(b), lambda_b, v),
            )
        };
        let join = |a: V, b: V| P::join(a, b);
        let join_vec = |a: LaneVec<V>, b: LaneVec<V>| {
            LaneVec([
                join(a.0[0], b.0[0]),
                join(a.0[1], b.0[1]),
                join(a.0[2], b.0[2]),
            ])
        };
        let zero = P::splat(0.0);
        let (mut p, mut w) = ([LaneVec([zero; 3]); K], [zero; K]);
        for n in 0..K {
            (p[n], w[n]) = (join_vec(ga.p[n], gb.p[n]), join(ga.w[n], gb.w[n]));
        }
        let dx = match (ga.dx, gb.dx) {
            (Some(da), Some(db)) => {
                let mut dx = [LaneVec([zero; 3]); K];
                for n in 0..K {
                    dx[n] = join_vec(da[n], db[n]);
                }
                Some(dx)
            }
            _ => None,
        };
        let k = Coeffs {
            alpha_tilde: join(ga.k.alpha_tilde, gb.k.alpha_tilde),
            gamma: join(ga.k.gamma, gb.k.gamma),
            scale: join(ga.k.scale, gb.k.scale),
            shake: ga.k.shake,
        };
        let (rest, lambda) = (join(ga.rest, gb.rest), join(ga.lambda, gb.lambda));
        let mut weights = [zero; 4];
        for (n, w) in weights.iter_mut().enumerate() {
            *w = join(ga.weights[n], gb.weights[n]);
        }
        let r = Kind::project(p, w, rest, weights, lambda, dx, &k);
        let zero = V::splat(0.0);
        if !Kind::ADDS {
            // The moved positions added in the pair's lanes, then halved, rather than from each
            // batch's gathered halves, which would then stay alive across the projection and
            // spill.
            let (mut p_a, mut p_b) = ([LaneVec([zero; 3]); K], [LaneVec([zero; 3]); K]);
            let (mut w_a, mut w_b) = ([zero; K], [zero; K]);
            for n in 0..K {
                let moved = p[n] + r.dp[n];
                for i in 0..3 {
                    (p_a[n].0[i], p_b[n].0[i]) = moved.0[i].halves();
                }
                (w_a[n], w_b[n]) = w[n].halves();
            }
            // SAFETY: as above; the two batches share no particle.
            unsafe {
                ga.store(p_a, w_a, v);
                gb.store(p_b, w_b, v);
            }
        } else {
            // The corrections halved and added in place (see `project_batch`): `p` is not
            // needed after the projection.
            let (mut dp_a, mut dp_b) = ([LaneVec([zero; 3]); K], [LaneVec([zero; 3]); K]);
            for n in 0..K {
                for i in 0..3 {
                    (dp_a[n].0[i], dp_b[n].0[i]) = r.dp[n].0[i].halves();
                }
            }
            // SAFETY: as above; the two batches share no particle, and both are full.
            unsafe {
                ga.add(dp_a, v);
                gb.add(dp_b, v);
            }
        }
        let (dl_a, dl_b) = r.delta_lambda.halves();
        self.keep(lambda_a, ga.lambda, &ga.k, dl_a);
        self.keep(lambda_b, gb.lambda, &gb.k, dl_b);
    }

    /// [`Batched::project_lanes`] on a batch of exactly [`LANES`] lanes: the constraints `lanes`
    /// (a partial batch's unused lanes repeat its last constraint), whose particles' slots are
    /// at `offsets`, with rest values `rest` and multipliers `lambda`.
    ///
    /// `DISTINCT` when no two lanes repeat a constraint (a full batch): the corrections are then
    /// added to the slots in place ([`Batch::add_scatter`]) where [`FamilyKind::ADDS`]. `PAIRED`
    /// when some particles of the full batch are paired (see [`Batched::gather`]).
    ///
    /// # Safety
    /// As [`Batched::project_lanes`], and `offsets` are the family's offsets of `lanes`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn project_batch<const DAMPED: bool, const DISTINCT: bool, const PAIRED: bool>(
        &self,
        lanes: Range<usize>,
        offsets: &[[u32; K]; LANES],
        rest: &[Real; LANES],
        lambda: &mut [Real; LANES],
        v: &View,
    ) {
        // SAFETY: forwarded from the caller.
        let g = unsafe { self.gather::<DAMPED, PAIRED>(lanes, offsets, rest, lambda, v) };
        let r = Kind::project(g.p, g.w, g.rest, g.weights, g.lambda, g.dx, &g.k);
        // SAFETY (both arms): as above; distinct lanes share no particle.
        match Kind::ADDS && DISTINCT {
            true => unsafe { g.add(r.dp, v) },
            false => unsafe { g.scatter(r.dp, v) },
        }
        self.keep(lambda, g.lambda, &g.k, r.delta_lambda);
    }

    /// Stores the multipliers `lambda` plus the kept part of `delta_lambda` (see
    /// [`Coeffs::kept`]) into `out`; a rigid family keeps none.
    #[inline(always)]
    fn keep(&self, out: &mut [Real; LANES], lambda: V, k: &Coeffs<V>, delta_lambda: V) {
        if !(HARD || self.rigid) {
            *out = (lambda + k.kept(delta_lambda)).to_array();
        }
    }

    /// What a batch's projection reads, as vectors: its particles (gathered from their slots),
    /// rest values, multipliers (zero in a rigid family), displacements (when `DAMPED`) and
    /// coefficients. When `PAIRED`, the particles of a full batch that [`FamilyData::paired`]
    /// marks are moved a pair of slots at a time ([`Batch::gather_paired`]); otherwise none is,
    /// and the walk of a family without pairs carries no test for them.
    ///
    /// # Safety
    /// As [`Batched::project_batch`].
    #[inline(always)]
    unsafe fn gather<'o, const DAMPED: bool, const PAIRED: bool>(
        &self,
        lanes: Range<usize>,
        offsets: &'o [[u32; K]; LANES],
        rest: &[Real; LANES],
        lambda: &[Real; LANES],
        v: &View,
    ) -> Gathered<'o, V, K> {
        let data = self.data;
        // Every id is below `span`, so this one check bounds every access below.
        assert!(
            data.span <= v.p.len(),
            "constraints reach past the particles"
        );
        // Which particles of a full batch are paired (a partial batch's lanes are not its own).
        let paired = match PAIRED && lanes.len() == LANES {
            // SAFETY: the lanes are constraints of the family (the caller's contract), and the
            // family holds one entry of `paired` per constraint.
            true => unsafe { *data.paired.get_unchecked(lanes.start) },
            false => 0,
        };
        // Plain loops here and below: `array::map` is not always inlined, and this must compile
        // inside the AVX caller.
        let zero = V::splat(0.0);
        let (mut p, mut w) = ([LaneVec([zero; 3]); K], [zero; K]);
        if is_straddled::<K>(paired) {
            // SAFETY: as below; each lane's second particle is the one after its first.
            let [first, second] = unsafe { V::gather_straddled(&lane_slots(v, offsets, 0)) };
            for (n, [x, y, z, wn]) in [(0, first), (K - 1, second)] {
                (p[n], w[n]) = (LaneVec([x, y, z]), wn);
            }
        } else {
            for n in 0..K {
                // SAFETY (both arms): the offsets are 16 times ids below `span` (checked above),
                // and paired lanes' slots follow each other (`paired`). No other thread accesses
                // these particles (the caller's contract); distinct lanes share no particle
                // (repeated lanes read and write the same values).
                let [x, y, z, wn] = unsafe {
                    let slots = lane_slots(v, offsets, n);
                    match is_paired(paired, n) {
                        true => V::gather_paired(&slots),
                        false => V::gather(&slots),
                    }
                };
                (p[n], w[n]) = (LaneVec([x, y, z]), wn);
            }
        }
        // An `if`, not `bool::then`: LLVM did not inline the closure into the AVX walk.
        let dx = if DAMPED {
            // SAFETY: the lanes are constraints of the family (the caller's contract).
            let ids = padded(unsafe { data.ids.get_unchecked(lanes.clone()) });
            let mut dx = [LaneVec([zero; 3]); K];
            for n in 0..K {
                let mut particles = [0; LANES];
                for l in 0..LANES {
                    particles[l] = ids[l][n] as usize;
                }
                dx[n] = p[n] - gather_vec3::<V>(v.x, &particles);
            }
            Some(dx)
        } else {
            None
        };
        let weights = match Kind::WEIGHTED {
            // SAFETY: a weighted family holds one set of weights per constraint (checked in
            // `Batched::new`), and the lanes are its constraints.
            true => unsafe { lane_weights::<V>(data.weights, lanes.clone()) },
            false => [zero; 4],
        };
        let k = match (HARD, self.uniform) {
            (true, _) => hard(),
            (false, Some(k)) => k,
            (false, None) => self.lane_coeffs(&data.mat[lanes]),
        };
        // A rigid family's multipliers stay 0 (see `Coeffs::kept`).
        let lambda = if HARD || self.rigid {
            zero
        } else {
            V::from_array(*lambda)
        };
        Gathered {
            offsets,
            paired,
            p,
            w,
            rest: V::from_array(*rest),
            weights,
            lambda,
            dx,
            k,
        }
    }
}

/// Whether particle `n` of a batch whose [`FamilyData::paired`] entry is `paired` is paired.
#[inline(always)]
fn is_paired(paired: u8, n: usize) -> bool {
    paired & 1 << n != 0
}

/// Whether the lanes of a batch of `K`-particle constraints whose [`FamilyData::paired`] entry
/// is `paired` are straddled (see [`STRADDLED`](crate::solver::schedule::STRADDLED)).
#[inline(always)]
fn is_straddled<const K: usize>(paired: u8) -> bool {
    K == 2 && paired == crate::solver::schedule::STRADDLED
}

/// The slots of particle `n` of each lane of a batch whose slot offsets are `offsets`.
///
/// # Safety
/// The offsets are those of the view's particles (16 times ids below its length).
#[inline(always)]
// A plain loop, as in `Batched::gather`: this must compile inside the AVX caller.
#[allow(clippy::needless_range_loop)]
unsafe fn lane_slots<const K: usize>(
    v: &View,
    offsets: &[[u32; K]; LANES],
    n: usize,
) -> [*mut Slot; LANES] {
    let mut slots = [std::ptr::null_mut(); LANES];
    for l in 0..LANES {
        // SAFETY: the caller's contract.
        slots[l] = unsafe { v.p.slot_at(offsets[l][n]) };
    }
    slots
}

/// The weights of the constraints `lanes` (at most [`LANES`]; a partial batch's unused lanes
/// repeat its last), one vector per weight.
///
/// # Safety
/// `lanes` are indices of every array of `weights`.
#[inline(always)]
unsafe fn lane_weights<V: Batch>(weights: [&[Real]; 4], lanes: Range<usize>) -> [V; 4] {
    let zero = V::splat(0.0);
    let mut out = [zero; 4];
    for (out, w) in out.iter_mut().zip(weights) {
        // SAFETY: the caller's contract.
        *out = V::from_array(padded(unsafe { w.get_unchecked(lanes.clone()) }));
    }
    out
}

/// A batch as [`Batched::gather`] reads it, one lane per constraint.
struct Gathered<'o, V, const K: usize> {
    /// The slot offsets of the lanes' particles, from which the scatter finds their slots again
    /// (kept as the family's offsets rather than as pointers, which the walk would spill to the
    /// stack and reload).
    offsets: &'o [[u32; K]; LANES],
    /// The paired particles of the batch (see [`FamilyData::paired`]).
    paired: u8,
    /// Positions, m.
    p: [LaneVec<V>; K],
    /// Inverse masses, 1/kg.
    w: [V; K],
    /// Rest values.
    rest: V,
    /// Weights (zero unless the kind is [`FamilyKind::WEIGHTED`]).
    weights: [V; 4],
    /// Multipliers.
    lambda: V,
    /// Displacements in this substep (only for a damped family), m.
    dx: Option<[LaneVec<V>; K]>,
    /// Coefficients.
    k: Coeffs<V>,
}

impl<V: Batch, const K: usize> Gathered<'_, V, K> {
    /// Writes the positions moved by `dp` back to their slots.
    ///
    /// # Safety
    /// As [`Batched::project_batch`], whose batch [`Batched::gather`] read.
    #[inline(always)]
    // A plain loop, as in `Batched::gather`: this must compile inside the AVX caller.
    #[allow(clippy::needless_range_loop)]
    unsafe fn scatter(&self, dp: [LaneVec<V>; K], v: &View) {
        let mut p = self.p;
        for n in 0..K {
            p[n] = p[n] + dp[n];
        }
        // SAFETY: the caller's contract.
        unsafe { self.store(p, self.w, v) }
    }

    /// Adds `dp` to the positions in the lanes' slots, in place (see [`Batch::add_scatter`]).
    ///
    /// # Safety
    /// As [`Gathered::scatter`], and no two lanes repeat a constraint.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    unsafe fn add(&self, dp: [LaneVec<V>; K], v: &View) {
        if is_straddled::<K>(self.paired) {
            // SAFETY: the caller's contract; each lane's second particle is the one after its
            // first.
            unsafe {
                let slots = lane_slots(v, self.offsets, 0);
                V::add_scatter_straddled([dp[0].0, dp[K - 1].0], &slots);
            }
            return;
        }
        for n in 0..K {
            // SAFETY: the caller's contract; paired lanes' slots follow each other.
            unsafe {
                let slots = lane_slots(v, self.offsets, n);
                match is_paired(self.paired, n) {
                    true => V::add_scatter_paired(dp[n].0, &slots),
                    false => V::add_scatter(dp[n].0, &slots),
                }
            }
        }
    }

    /// Writes the positions `p` and inverse masses `w` of the lanes' particles to their slots.
    ///
    /// # Safety
    /// As [`Gathered::scatter`].
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    unsafe fn store(&self, p: [LaneVec<V>; K], w: [V; K], v: &View) {
        if is_straddled::<K>(self.paired) {
            let [[x0, y0, z0], [x1, y1, z1]] = [p[0].0, p[K - 1].0];
            let xyzw = [[x0, y0, z0, w[0]], [x1, y1, z1, w[K - 1]]];
            // SAFETY: as below; each lane's second particle is the one after its first.
            unsafe { V::scatter_straddled(xyzw, &lane_slots(v, self.offsets, 0)) };
            return;
        }
        for n in 0..K {
            let [x, y, z] = p[n].0;
            let xyzw = [x, y, z, w[n]];
            // SAFETY: no other thread accesses these particles (the caller's contract); distinct
            // lanes share no particle (repeated lanes write the same values).
            unsafe {
                let slots = lane_slots(v, self.offsets, n);
                match is_paired(self.paired, n) {
                    true => V::scatter_paired(xyzw, &slots),
                    false => V::scatter(xyzw, &slots),
                }
            }
        }
    }
}

/// The multipliers of the full batch at the start of `lambda`.
#[inline(always)]
fn full(lambda: &mut [Real]) -> &mut [Real; LANES] {
    <&mut [Real; LANES]>::try_from(&mut lambda[..LANES]).expect("a full batch")
}

/// [`Kernel::walk_batches`] with the family's batches projected as vectors `V`, two at once as
/// `P` when `PAIR` and the kind's [`FamilyKind::pairs`] says so for `P` and the family, with
/// [`hard`] coefficients as constants when every material of the family [`is_hard`]. Both
/// choices are made once for the walk, between four builds of it, so that a walk carries no test
/// for them per batch.
///
/// # Safety
/// The contract of [`Kernel::walk_batches`].
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn walk_batches_as<
    const K: usize,
    Kind: FamilyKind<K>,
    V: Batch,
    P: Pair<V>,
    const DAMPED: bool,
    const PAIR: bool,
>(
    data: &FamilyData<'_, K, Kind>,
    walk: &mut Walk,
    v: &View,
) {
    let pair = PAIR && Kind::pairs(P::SPLIT, data.any_paired);
    let hard = !DAMPED && data.coeffs.iter().all(is_hard);
    // SAFETY (every arm): forwarded from the caller.
    unsafe {
        match (pair, hard) {
            (true, true) => Batched::<K, Kind, V, P, true, true>::new(data).walk::<DAMPED>(walk, v),
            (true, false) => {
                Batched::<K, Kind, V, P, true, false>::new(data).walk::<DAMPED>(walk, v)
            }
            (false, true) => {
                Batched::<K, Kind, V, P, false, true>::new(data).walk::<DAMPED>(walk, v)
            }
            (false, false) => {
                Batched::<K, Kind, V, P, false, false>::new(data).walk::<DAMPED>(walk, v)
            }
        }
    }
}

/// The coefficients of a hard material: XPBD of compliance 0 without damping, or PBD with
/// `k = 1` (`α̃ = 0`, `γ = 0`, `scale = 1`).
#[inline(always)]
fn hard<T: Lanes>() -> Coeffs<T> {
    Coeffs {
        alpha_tilde: T::splat(0.0),
        gamma: T::splat(0.0),
        scale: T::splat(1.0),
        shake: false,
    }
}

/// Whether `k` holds the very bits of [`hard`]'s coefficients, so that a walk that takes them as
/// constants ([`Batched`] when `HARD`) computes what it would from `k`, to the bit: with them
/// known, the compiler drops the multiplications by 1 and the multipliers (a hard material keeps
/// none, see [`Coeffs::kept`]), and the walk holds three vectors fewer in its registers.
fn is_hard(k: &Coeffs) -> bool {
    let bits = |k: &Coeffs| [k.alpha_tilde, k.gamma, k.scale].map(Real::to_bits);
    bits(k) == bits(&hard()) && !k.shake
}

/// Defines `$name`, [`walk_batches_as`] with AVX vectors compiled for the target features
/// `$features`, pairing batches as `$pair` (see [`Batched::walk`]).
macro_rules! walk_batches_for {
    ($name:ident, $features:literal, $pair:ty) => {
        #[doc = concat!("[`walk_batches_as`] with AVX vectors, compiled for `", $features, "`.")]
        ///
        /// # Safety
        /// The processor has these features, and the contract of [`Kernel::walk_batches`].
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        unsafe fn $name<const K: usize, Kind: FamilyKind<K>, const DAMPED: bool>(
            data: &FamilyData<'_, K, Kind>,
            walk: &mut Walk,
            v: &View,
        ) {
            use crate::solver::simd::avx::F32x8;
            // SAFETY: forwarded from the caller.
            unsafe { walk_batches_as::<K, Kind, F32x8, $pair, DAMPED, true>(data, walk, v) }
        }
    };
}
// AVX pairs batches in two registers (`Two`, for the kinds that pair split). AVX-512 compiles the
// same vectors and arithmetic with 32 registers, so that a dihedral batch's four particles fit
// without spilling (W at N = 64 with dihedral bending: the dihedral stage 1.19x faster).
walk_batches_for!(walk_batches_avx, "avx", crate::solver::simd::Two<F32x8>);
walk_batches_for!(
    walk_batches_avx512,
    "avx512f,avx512vl",
    crate::solver::simd::avx512::F32x16
);

/// A check for the families' tests: for each family `build(damping, two_materials)` returns
/// (scheduled, its materials resolved, without and with XPBD damping, with one material or two),
/// projecting it over its particles batch by batch, with `wide::f32x8` and (where the processor
/// has it) AVX, and with the serial driver, gives the bits of the scalar kernel walking the
/// constraints one after another in the scheduled order: the same positions and multipliers.
/// One material has its coefficients splatted once, two are looked up per batch
/// ([`Batch::lookup`]).
#[cfg(test)]
pub(crate) fn assert_batched_matches_scalar<const K: usize, Kind: FamilyKind<K> + Clone + Send>(
    build: impl Fn(
        Real,
        bool,
    ) -> (
        super::family::Family<K, Kind>,
        crate::particles::ParticleSet,
    ),
) {
    for damping in [0.0, 0.01] {
        for two_materials in [false, true] {
            let (set, ps) = build(damping, two_materials);
            batched_matches_scalar(&set, &ps);
        }
    }
    // More materials than `TABLE`: each lane's coefficients gathered one by one (the extra
    // materials are unused, so the results are those of two).
    let (mut set, ps) = build(0.01, true);
    let first = set.materials.coeffs[0];
    set.materials.coeffs.extend([first; TABLE]);
    batched_matches_scalar(&set, &ps);
    // Every material rigid: no multiplier is kept (see `Coeffs::kept`).
    let (mut set, ps) = build(0.0, true);
    set.materials.coeffs.fill(super::stiffness::Coeffs::rigid());
    let lambda = batched_matches_scalar(&set, &ps);
    assert!(lambda.iter().all(|&l| l == 0.0), "rigid multipliers stay 0");
    // Projected SHAKE's way (distance constraints; the other kinds ignore it), which reads the
    // displacements with or without damping.
    for damping in [0.0, 0.01] {
        let (mut set, ps) = build(damping, true);
        set.materials.coeffs.iter_mut().for_each(|k| k.shake = true);
        batched_matches_scalar(&set, &ps);
    }
}

/// Particles at `x` for the families' tests: inverse masses 1 to 3 (1/kg), every 97th pinned.
#[cfg(test)]
pub(crate) fn test_particles(
    x: impl IntoIterator<Item = crate::math::Vec3>,
) -> crate::particles::ParticleSet {
    let mut ps = crate::particles::ParticleSet::default();
    for (i, x) in (0u32..).zip(x) {
        let w = if i % 97 == 0 {
            0.0
        } else {
            1.0 + (i % 3) as Real
        };
        ps.push(x, w, 0.01, 0);
    }
    ps
}

/// The materials of the families' tests, added to `table`: XPBD compliance `compliance` with
/// `damping` (s), then rigid when `two`, else the first again.
#[cfg(test)]
pub(crate) fn test_materials(
    table: &mut super::MaterialTable,
    compliance: Real,
    damping: Real,
    two: bool,
) -> [u16; 2] {
    use super::Stiffness;
    let first = table.add(Stiffness::Xpbd {
        compliance,
        damping,
    });
    [
        first,
        if two {
            table.add(Stiffness::default())
        } else {
            first
        },
    ]
}

/// A family of hinges for the bending families' tests: those of a 24 x 24 grid cloth (1 m)
/// whose rest positions are the grid's moved by `shape`, ordered for batches as a cloth's
/// are, each added by `push` (with the particles' positions) with the material of
/// [`test_materials`] (the second on every fifth), scheduled and resolved; the particles'
/// predicted positions are then crumpled, and their start positions are 0.99 of them.
#[cfg(test)]
pub(crate) fn test_hinges<Kind: FamilyKind<4> + Default>(
    damping: Real,
    two_materials: bool,
    shape: impl Fn(crate::math::Vec3) -> crate::math::Vec3,
    push: impl Fn(&mut super::family::Family<4, Kind>, [u32; 4], &[crate::math::Vec3], u16),
) -> (
    super::family::Family<4, Kind>,
    crate::particles::ParticleSet,
) {
    let n = 24u32;
    let zero = crate::math::Vec3::zeros();
    let (x, tris) = crate::bodies::cloth::grid(n, n, [1.0, 1.0], zero, false);
    let mut ps = test_particles(x.into_iter().map(shape));
    let mut set = super::family::Family::<4, Kind>::default();
    let [first, second] = test_materials(&mut set.materials, 1e-2, damping, two_materials);
    let pairs = crate::mesh::topology::triangle_pairs(&tris);
    for (c, q) in crate::solver::schedule::order_for_batches(pairs)
        .into_iter()
        .enumerate()
    {
        push(&mut set, q, &ps.x, if c % 5 == 0 { second } else { first });
    }
    set.schedule();
    set.materials.resolve(0.01, 4);
    for (i, p) in (0u32..).zip(&mut ps.p) {
        let h = (i * 7 % 11) as Real * 0.01 - 0.05;
        *p += crate::math::Vec3::new(0.3 * h, h, (i * 5 % 13) as Real * 0.004);
    }
    ps.x = ps.p.iter().map(|p| p * 0.99).collect();
    (set, ps)
}

/// [`assert_batched_matches_scalar`] for one family `set` over the particles `ps`; returns the
/// multipliers after the projection.
#[cfg(test)]
fn batched_matches_scalar<const K: usize, Kind: FamilyKind<K> + Clone + Send>(
    set: &super::family::Family<K, Kind>,
    ps: &crate::particles::ParticleSet,
) -> Vec<Real> {
    use crate::solver::Team;
    use crate::solver::simd::SimdPath;
    use crate::solver::view::{pack, unpack};
    // Projects a copy of `set` over `ps` with `project`, given a team of `threads`.
    let run_on =
        |threads: usize,
         project: &(dyn Fn(&mut super::family::Family<K, Kind>, &View, &Team) + Sync)| {
            let mut set = set.clone();
            let (mut slots, mut starts, mut lost) = (Vec::new(), Vec::new(), Vec::new());
            let origins = [crate::math::Vec3::zeros()];
            let buffers = (&mut starts, &mut lost);
            Team::scope(1, |team| {
                pack(ps, &origins, &mut slots, buffers, true, team)
            });
            let set_ref = &mut set;
            let (slots_ref, starts_ref) = (&mut slots, &starts);
            Team::scope(threads, |team| {
                project(set_ref, &View::new(slots_ref, starts_ref), team)
            });
            let mut out = ps.clone();
            Team::scope(1, |team| unpack(&slots, &origins, &lost, &mut out, team));
            (out.p, set.lambda)
        };
    let run = |project: &(dyn Fn(&mut super::family::Family<K, Kind>, &View) + Sync)| {
        run_on(1, &|set, v, _| project(set, v))
    };
    // One constraint after another in the scheduled order.
    let scalar = run(&|set, v| {
        let (data, lambda, _) = set.split();
        for (c, l) in lambda.iter_mut().enumerate() {
            // SAFETY: one thread.
            unsafe {
                match data.damped() {
                    true => drivers::project_one::<K, true, _>(&data, c, l, v),
                    false => drivers::project_one::<K, false, _>(&data, c, l, v),
                }
            }
        }
    });
    /// [`Kernel::walk_batches`] with the build for `path`.
    ///
    /// # Safety
    /// The processor has `path`, and the contract of [`Kernel::walk_batches`].
    unsafe fn walk_on<const K: usize, Kind: FamilyKind<K>, const DAMPED: bool>(
        path: SimdPath,
        data: &FamilyData<'_, K, Kind>,
        walk: &mut Walk,
        v: &View,
    ) {
        // SAFETY (every arm): forwarded from the caller.
        unsafe {
            match path {
                #[cfg(target_arch = "x86_64")]
                SimdPath::Avx2 => walk_batches_avx::<K, Kind, DAMPED>(data, walk, v),
                #[cfg(target_arch = "x86_64")]
                SimdPath::Avx512 => walk_batches_avx512::<K, Kind, DAMPED>(data, walk, v),
                _ => walk_batches_as::<K, Kind, f32x8, f32x16, DAMPED, false>(data, walk, v),
            }
        }
    }
    /// `wide::f32x8` batches paired as `P`, for the kinds that pair as `P` (see
    /// [`FamilyKind::pairs`]), on any processor.
    ///
    /// # Safety
    /// As [`walk_batches_as`].
    unsafe fn walk_wide<const K: usize, Kind: FamilyKind<K>, P: Pair<wide::f32x8>>(
        data: &FamilyData<'_, K, Kind>,
        walk: &mut Walk,
        v: &View,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe {
            match data.damped() {
                true => walk_batches_as::<K, Kind, wide::f32x8, P, true, true>(data, walk, v),
                false => walk_batches_as::<K, Kind, wide::f32x8, P, false, true>(data, walk, v),
            }
        }
    }
    // The whole schedule as one walk with `isa`, or with `wide::f32x8` pairing batches in one
    // vector (`None`, `false`) or in two (`None`, `true`): the pairs of every kind, in one or
    // the other, whatever the processor has.
    let walk_all = |isa: Option<SimdPath>, split: bool| {
        move |set: &mut super::family::Family<K, Kind>, v: &View| {
            let (data, lambda, blocks) = set.split();
            let walk = &mut Walk {
                lambda,
                batches: &blocks.batches[..],
                apart: &blocks.apart[..],
            };
            // SAFETY: one thread; only the instruction sets the processor has (checked below).
            unsafe {
                match (isa, data.damped(), split) {
                    (Some(isa), true, _) => walk_on::<K, Kind, true>(isa, &data, walk, v),
                    (Some(isa), false, _) => walk_on::<K, Kind, false>(isa, &data, walk, v),
                    (None, _, false) => walk_wide::<K, Kind, wide::f32x16>(&data, walk, v),
                    (None, _, true) => {
                        walk_wide::<K, Kind, crate::solver::simd::Two<wide::f32x8>>(&data, walk, v)
                    }
                }
            }
        }
    };
    assert!(
        scalar.0.iter().zip(&ps.p).any(|(a, b)| a != b),
        "the projection moved some particle"
    );
    let check = |path: &str, (p, lambda): (Vec<crate::math::Vec3>, Vec<Real>)| {
        assert!(scalar.0 == p, "{path}: positions differ");
        assert!(scalar.1 == lambda, "{path}: multipliers differ");
    };
    check("the serial driver", run(&|set, v| set.project_serial(v)));
    // The colored driver's order: color after color, each color's blocks one after another.
    let by_colors = run(&|set, v| {
        let (data, lambda, blocks) = set.split();
        for b in blocks.colors.iter().flatten() {
            for c in blocks.range(*b) {
                // SAFETY: one thread.
                unsafe {
                    match data.damped() {
                        true => drivers::project_one::<K, true, _>(&data, c, &mut lambda[c], v),
                        false => drivers::project_one::<K, false, _>(&data, c, &mut lambda[c], v),
                    }
                }
            }
        }
    });
    let blocks = set.blocks();
    assert!(
        blocks.colors.iter().any(|color| color.len() > 1) && blocks.end() == set.len(),
        "colors of several blocks, and no serial tail"
    );
    for threads in [1, 2] {
        let colored = run_on(threads, &|set, v, team| set.project_colored(v, team));
        assert!(
            colored == by_colors,
            "the colored driver on {threads} threads gives the bits of walking the blocks of a \
             color one after another"
        );
    }
    assert!(
        !(Kind::pairs(false, true) || Kind::pairs(true, true)) || blocks.apart.iter().any(|&a| a),
        "consecutive batches that share no particle, for the families that pair them"
    );
    for path in SimdPath::ALL.into_iter().filter(|&p| p <= simd::detected()) {
        check(path.name(), run(&walk_all(Some(path), false)));
    }
    check("wide::f32x8 paired", run(&walk_all(None, false)));
    check("wide::f32x8 paired in two", run(&walk_all(None, true)));
    scalar.1
}
