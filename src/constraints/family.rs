//! What the scheduled constraint families (distance, dihedral, isometric bending, tet volume)
//! share: their arrays, their schedule (see [`schedule`]), and the drivers that project them
//! serially, by colored blocks or Jacobi-style through their one
//! [`Kernel`](crate::solver::Kernel) (see [`batched`](super::batched)). Each family adds a
//! [`FamilyKind`].

use super::stiffness::{Coeffs, MaterialTable};
use crate::math::{LaneVec, Lanes, Real, Vec3};
use crate::solver::Slot;
use crate::solver::Team;
use crate::solver::View;
use crate::solver::drivers::{self, JacobiScratch};
use crate::solver::schedule::{self, Blocks};
use std::marker::PhantomData;

/// What makes a family of `K`-particle constraints: the projection of one constraint, written
/// once over [`Lanes`] so that it also projects a batch of them, one per lane of a SIMD vector,
/// with the same bits (see [`batched`](super::batched)).
pub trait FamilyKind<const K: usize>: Sized + Sync {
    /// Whether two consecutive full batches that share no particle are worth projecting at once
    /// (see [`batched`](super::batched)), as one wide vector or, when `split`, as two registers
    /// ([`Two`](crate::solver::simd::Two): AVX without AVX-512); `paired` when some full batch
    /// of the family moves particles a pair of slots at a time ([`FamilyData::any_paired`]).
    /// Pairing pays for a kernel whose arithmetic, rather than its gathers and scatters, takes
    /// the time, and (split) whose chains are long enough for the two halves to overlap. By
    /// default never.
    #[inline(always)]
    fn pairs(_split: bool, _paired: bool) -> bool {
        false
    }

    /// Whether a full batch adds its corrections to the slots in place
    /// ([`Batch::add_scatter`](crate::solver::simd::Batch::add_scatter)) rather than writing the
    /// moved positions, which keeps the gathered positions alive across the projection: for a
    /// kernel long enough that they spill.
    const ADDS: bool = false;

    /// Whether each constraint carries four weights besides its rest value (pushed with
    /// [`Family::push_weighted`]); the kernels of the other kinds get zeros.
    const WEIGHTED: bool = false;

    /// The corrections of the constraint's particles and its multiplier change, from their
    /// positions `p`, inverse masses `w`, displacements `dx = p − x` in this substep (`None`
    /// unless the family is damped), its rest value, its weights (see [`FamilyKind::WEIGHTED`])
    /// and its multiplier `lambda`. A degenerate constraint gets zero corrections and multiplier
    /// change, and `applied` 0.
    fn project<T: Lanes>(
        p: [LaneVec<T>; K],
        w: [T; K],
        rest: T,
        weights: [T; 4],
        lambda: T,
        dx: Option<[LaneVec<T>; K]>,
        k: &Coeffs<T>,
    ) -> Projection<T, K>;
}

/// What [`FamilyKind::project`] computes for one constraint, or for one per lane.
#[derive(Clone, Copy, Debug)]
pub struct Projection<T, const K: usize> {
    /// The correction of each particle, m.
    pub dp: [LaneVec<T>; K],
    /// The change of the multiplier.
    pub delta_lambda: T,
    /// 1 where the constraint was projected, 0 where it is degenerate (zero corrections, which
    /// the scalar drivers skip rather than add).
    pub applied: T,
}

/// [`FamilyKind::project`] of one constraint, on plain vectors: the scalar kernel of a family
/// and of its `solve_*` function.
#[inline(always)]
pub fn project_one<const K: usize, Kind: FamilyKind<K>>(
    p: [Vec3; K],
    w: [Real; K],
    rest: Real,
    weights: [Real; 4],
    lambda: Real,
    dx: Option<[Vec3; K]>,
    k: &Coeffs,
) -> Projection<Real, K> {
    let dx = dx.map(|dx| dx.map(LaneVec::from));
    Kind::project(p.map(LaneVec::from), w, rest, weights, lambda, dx, k)
}

/// A constraint family of `K` particles per constraint, one entry per constraint in each field,
/// in scheduled order; `Kind` selects the kernel.
#[derive(Clone, Debug, Default)]
pub struct Family<const K: usize, Kind> {
    /// The particles (private: the colored driver relies on the scheduled ids not changing).
    ids: Vec<[u32; K]>,
    /// One more than the largest particle id in `ids` (0 when empty).
    span: usize,
    /// The byte offsets of the [`Slot`]s of `ids` (each id times 16): what the batch kernel reads
    /// instead of `ids`, so that a particle's address is one addition (one shift fewer, and fewer
    /// registers).
    offsets: Vec<[u32; K]>,
    /// The paired particles of each full batch, or [`schedule::STRADDLED`] (see
    /// [`schedule::paired`]).
    paired: Vec<u8>,
    /// Whether some full batch has paired particles (an entry of `paired` neither 0 nor
    /// [`schedule::STRADDLED`]).
    any_paired: bool,
    /// Colored blocks (see [`Blocks`]); constraints pushed after
    /// [`Family::schedule`] form a serial tail.
    blocks: Blocks,
    /// Rest value of each constraint: a length in m, or an angle in radians.
    pub rest: Vec<Real>,
    /// The weights of the constraints of a [`FamilyKind::WEIGHTED`] kind, one array per weight
    /// so that a batch loads each as one vector, like the rest values (empty for the others).
    weights: [Vec<Real>; 4],
    /// Lagrange multiplier accumulated in the current substep.
    pub lambda: Vec<Real>,
    /// Whether every multiplier is 0 and stays 0 through the substep: every material was rigid
    /// when the multipliers were last reset, and a rigid material keeps none ([`Coeffs::kept`]),
    /// so the next substep need not zero them again. Kept by the registry's `begin_substep`.
    pub(crate) lambda_zero: bool,
    /// Index into `materials`.
    pub mat: Vec<u16>,
    /// Stiffness of the constraints, per material.
    pub materials: MaterialTable,
    kind: PhantomData<Kind>,
}

/// The read-only data of a [`Family`] that its kernel needs.
pub struct FamilyData<'a, const K: usize, Kind> {
    /// The particles of each constraint.
    pub ids: &'a [[u32; K]],
    /// One more than the largest particle id in `ids`.
    pub span: usize,
    /// The byte offsets of the slots of `ids` (see
    /// [`Positions::slot_at`](crate::solver::Positions::slot_at)).
    pub offsets: &'a [[u32; K]],
    /// The paired particles of each full batch, or [`schedule::STRADDLED`] (see
    /// [`schedule::paired`]): one entry per constraint.
    pub paired: &'a [u8],
    /// Whether some full batch has paired particles (not only straddled ones).
    pub any_paired: bool,
    /// Rest value of each constraint.
    pub rest: &'a [Real],
    /// Weights of the constraints, one array per weight ([`FamilyKind::WEIGHTED`] kinds only).
    pub weights: [&'a [Real]; 4],
    /// Material of each constraint.
    pub mat: &'a [u16],
    /// Coefficients of each material for the current substep.
    pub coeffs: &'a [Coeffs],
    kind: PhantomData<Kind>,
}

impl<const K: usize, Kind: FamilyKind<K>> Family<K, Kind> {
    /// Number of constraints.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the family holds no constraint.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Whether a material of the family has XPBD damping or SHAKE's direction this substep, so
    /// that its projection reads the substep's start positions.
    pub fn damped(&self) -> bool {
        self.materials
            .coeffs
            .iter()
            .any(Coeffs::reads_displacements)
    }

    /// The particles of each constraint.
    pub fn ids(&self) -> &[[u32; K]] {
        &self.ids
    }

    /// The weights of the constraints, one array per weight, in the order of
    /// [`Family::ids`] (empty for a kind that is not [`FamilyKind::WEIGHTED`]).
    pub fn weights(&self) -> [&[Real]; 4] {
        self.weights.each_ref().map(Vec::as_slice)
    }

    /// The colored blocks of the scheduled order.
    pub fn blocks(&self) -> &Blocks {
        &self.blocks
    }

    /// Adds a constraint on `ids` with rest value `rest` and material `mat`, at the end of the
    /// serial tail (until the next [`Family::schedule`]).
    ///
    /// # Panics
    /// If the kind is [`FamilyKind::WEIGHTED`] (see [`Family::push_weighted`]).
    pub fn push_constraint(&mut self, ids: [u32; K], rest: Real, mat: u16) {
        assert!(
            !Kind::WEIGHTED,
            "a weighted kind's constraints take their weights"
        );
        self.push_unchecked(ids, rest, mat);
    }

    /// [`Family::push_constraint`] for a [`FamilyKind::WEIGHTED`] kind, with the constraint's
    /// `weights`.
    ///
    /// # Panics
    /// If the kind is not weighted.
    pub fn push_weighted(&mut self, ids: [u32; K], rest: Real, weights: [Real; 4], mat: u16) {
        assert!(
            Kind::WEIGHTED,
            "only a weighted kind's constraints take weights"
        );
        for (all, w) in self.weights.iter_mut().zip(weights) {
            all.push(w);
        }
        self.push_unchecked(ids, rest, mat);
    }

    /// Appends the constraint's entries but its weights.
    fn push_unchecked(&mut self, ids: [u32; K], rest: Real, mat: u16) {
        self.ids.push(ids);
        self.offsets.push(ids.map(slot_offset));
        self.paired.push(0);
        self.span = ids.iter().fold(self.span, |s, &i| s.max(i as usize + 1));
        self.rest.push(rest);
        self.lambda.push(0.0);
        self.mat.push(mat);
    }

    /// Removes every constraint on a particle numbered `first` or above (those of the last body,
    /// to be built again), keeping the others in their order as the serial tail (until the next
    /// [`Family::schedule`]).
    pub fn remove_from(&mut self, first: u32) {
        let keep: Vec<bool> = self
            .ids
            .iter()
            .map(|c| c.iter().all(|&i| i < first))
            .collect();
        retain_marked(&mut self.ids, &keep);
        retain_marked(&mut self.rest, &keep);
        if Kind::WEIGHTED {
            for w in &mut self.weights {
                retain_marked(w, &keep);
            }
        }
        retain_marked(&mut self.lambda, &keep);
        retain_marked(&mut self.mat, &keep);
        self.offsets = self.ids.iter().map(|c| c.map(slot_offset)).collect();
        self.paired = vec![0; self.ids.len()];
        self.any_paired = false;
        self.span = self
            .ids
            .iter()
            .flatten()
            .map(|&i| i as usize + 1)
            .max()
            .unwrap_or(0);
        self.blocks = Blocks::default();
    }

    /// Schedules the whole family from its particle ids (see [`schedule`]): reorders it into
    /// colored blocks of batches, keeping the build order between constraints that share a
    /// particle.
    pub fn schedule(&mut self) {
        let schedule = schedule::schedule(&self.ids);
        schedule::permute(&mut self.ids, &schedule.order);
        schedule::permute(&mut self.offsets, &schedule.order);
        schedule::permute(&mut self.rest, &schedule.order);
        if Kind::WEIGHTED {
            for w in &mut self.weights {
                schedule::permute(w, &schedule.order);
            }
        }
        schedule::permute(&mut self.lambda, &schedule.order);
        schedule::permute(&mut self.mat, &schedule.order);
        self.blocks = schedule.blocks;
        assert_eq!(schedule::validate(&self.ids, &self.blocks), Ok(()));
        self.paired = schedule::paired(&self.ids, &self.blocks.batches);
        self.any_paired = self
            .paired
            .iter()
            .any(|&p| p != 0 && p != schedule::STRADDLED);
    }

    /// The kernel's data, the multipliers and the blocks, borrowed apart.
    pub(crate) fn split(&mut self) -> (FamilyData<'_, K, Kind>, &mut [Real], &Blocks) {
        let data = FamilyData {
            ids: &self.ids,
            span: self.span,
            offsets: &self.offsets,
            paired: &self.paired,
            any_paired: self.any_paired,
            rest: &self.rest,
            weights: self.weights.each_ref().map(Vec::as_slice),
            mat: &self.mat,
            coeffs: &self.materials.coeffs,
            kind: PhantomData,
        };
        (data, &mut self.lambda, &self.blocks)
    }

    /// Projects every constraint of the particles `v` in the scheduled order, Gauss-Seidel
    /// style (each sees the previous ones).
    pub fn project_serial(&mut self, v: &View) {
        let (kernel, lambda, blocks) = self.split();
        // SAFETY: one thread, one constraint after another.
        unsafe { drivers::project(&kernel, lambda, blocks, v, None) };
    }

    /// Projects every constraint of the particles `v`, the blocks of a color in parallel over
    /// `team` (the result does not depend on the thread count). Called by the team's leader.
    pub fn project_colored(&mut self, v: &View, team: &Team) {
        let (kernel, lambda, blocks) = self.split();
        // SAFETY: `blocks` was validated against `ids` by `schedule` (an assert), and `ids` has
        // not changed since except by `push_constraint`, which appends to the serial tail; the
        // kernels read and correct only `ids[c]`.
        unsafe { drivers::project(&kernel, lambda, blocks, v, Some(team)) };
    }

    /// Projects every constraint of the particles `slots` (start positions `x`) Jacobi-style in
    /// iteration `i` of a substep, its corrections computed in parallel over `team` (see
    /// [`drivers::project_jacobi`]); `index` numbers the family in `scratch`. Called by the
    /// team's leader.
    pub fn project_jacobi(
        &mut self,
        slots: &mut [Slot],
        x: &[Vec3],
        scratch: &mut JacobiScratch,
        index: usize,
        i: u32,
        team: &Team,
    ) {
        let (kernel, lambda, blocks) = self.split();
        // SAFETY: `blocks` was validated against `ids` by `schedule` (see `project_colored`).
        unsafe {
            drivers::project_jacobi(&kernel, lambda, blocks, slots, x, scratch, index, i, team)
        };
    }
}

/// Keeps the entries of `v` whose mark in `keep` is true.
fn retain_marked<T>(v: &mut Vec<T>, keep: &[bool]) {
    let mut marks = keep.iter();
    v.retain(|_| *marks.next().expect("one mark per entry"));
}

/// The byte offset of particle `i`'s [`Slot`].
///
/// # Panics
/// If the offset does not fit in a `u32` (2^28 particles or more).
fn slot_offset(i: u32) -> u32 {
    i.checked_mul(std::mem::size_of::<Slot>() as u32)
        .expect("fewer than 2^28 particles")
}

#[cfg(test)]
mod tests {
    use crate::constraints::distance::DistanceSet;

    #[test]
    fn slot_offsets_follow_the_ids_through_scheduling_and_the_tail() {
        let mut set = DistanceSet::default();
        // Four chains of 50 links, one after the other: scheduling interleaves their links.
        for chain in [0, 100, 200, 300] {
            for i in chain..chain + 50 {
                set.push_constraint([i, i + 1], 1.0, 0);
            }
        }
        let built = set.ids().to_vec();
        set.schedule();
        assert!(set.ids() != built, "scheduling reordered the family");
        set.push_constraint([299, 0], 1.0, 0);
        let (data, _, _) = set.split();
        let expected: Vec<[u32; 2]> = data.ids.iter().map(|c| c.map(|i| i * 16)).collect();
        assert_eq!(data.offsets, expected);
    }

    #[test]
    fn every_substep_starts_from_zero_multipliers_as_materials_turn_rigid_and_back() {
        use crate::constraints::registry::ConstraintFamily;
        use crate::constraints::stiffness::Stiffness;
        use crate::solver::Team;
        let mut set = DistanceSet::default();
        let compliant = Stiffness::Xpbd {
            compliance: 1e-3,
            damping: 0.0,
        };
        let rigid = Stiffness::default();
        let m = set.materials.add(compliant);
        set.push_constraint([0, 1], 1.0, m);
        set.push_constraint([1, 2], 1.0, m);
        Team::scope(1, |team| {
            for stiffness in [compliant, rigid, rigid, compliant, compliant, rigid] {
                set.materials.stiffness[m as usize] = stiffness;
                set.begin_substep(0.01, 4, team);
                assert_eq!(set.lambda, [0.0; 2], "{stiffness:?}");
                // What a projection leaves: what the material keeps of a multiplier change.
                let kept = set.materials.coeffs[m as usize].kept(0.5);
                set.lambda.fill(kept);
                assert_eq!(kept == 0.0, stiffness == rigid);
            }
        });
    }

    #[test]
    #[should_panic(expected = "fewer than 2^28 particles")]
    fn a_particle_index_past_the_offsets_range_is_refused() {
        DistanceSet::default().push_constraint([0, 1 << 28], 1.0, 0);
    }
}
