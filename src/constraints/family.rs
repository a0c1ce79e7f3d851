//! What the scheduled constraint families (distance, dihedral) share: their arrays, their
//! schedule (see [`coloring`]) and the drivers that project them serially, by colored blocks or
//! Jacobi-style. Each family adds its kernel, a [`Kernel`] on [`FamilyData`] of its `Kind`.

use super::stiffness::{Coeffs, MaterialTable};
use crate::coloring::{self, Blocks, JacobiScratch, Kernel, Sweep};
use crate::math::Real;
use crate::particles::ParticleSet;
use std::marker::PhantomData;

/// A constraint family of `K` particles per constraint, one entry per constraint in each field,
/// in scheduled order; `Kind` selects the kernel.
#[derive(Clone, Debug, Default)]
pub struct Family<const K: usize, Kind> {
    /// The particles (private: the colored driver relies on the scheduled ids not changing).
    ids: Vec<[u32; K]>,
    /// Colored blocks (see [`coloring::Blocks`]); constraints pushed after
    /// [`Family::schedule`] form a serial tail.
    blocks: Blocks,
    /// Rest value of each constraint: a length in m, or an angle in radians.
    pub rest: Vec<Real>,
    /// Lagrange multiplier accumulated in the current substep.
    pub lambda: Vec<Real>,
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
    /// Rest value of each constraint.
    pub rest: &'a [Real],
    /// Material of each constraint.
    pub mat: &'a [u16],
    /// Coefficients of each material for the current substep.
    pub coeffs: &'a [Coeffs],
    kind: PhantomData<Kind>,
}

impl<const K: usize, Kind> Family<K, Kind>
where
    for<'a> FamilyData<'a, K, Kind>: Kernel<K>,
{
    /// Number of constraints.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the family holds no constraint.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The particles of each constraint.
    pub fn ids(&self) -> &[[u32; K]] {
        &self.ids
    }

    /// The colored blocks of the scheduled order.
    pub fn blocks(&self) -> &Blocks {
        &self.blocks
    }

    /// Adds a constraint on `ids` with rest value `rest` and material `mat`, at the end of the
    /// serial tail (until the next [`Family::schedule`]).
    pub fn push_constraint(&mut self, ids: [u32; K], rest: Real, mat: u16) {
        self.ids.push(ids);
        self.rest.push(rest);
        self.lambda.push(0.0);
        self.mat.push(mat);
    }

    /// Schedules the whole family from its particle ids (see [`coloring`]): reorders it into
    /// colored blocks of batches, keeping the build order between constraints that share a
    /// particle.
    pub fn schedule(&mut self) {
        let schedule = coloring::schedule(&self.ids);
        coloring::permute(&mut self.ids, &schedule.order);
        coloring::permute(&mut self.rest, &schedule.order);
        coloring::permute(&mut self.lambda, &schedule.order);
        coloring::permute(&mut self.mat, &schedule.order);
        self.blocks = schedule.blocks;
        assert_eq!(coloring::validate(&self.ids, &self.blocks), Ok(()));
    }

    /// The kernel's data, the multipliers and the blocks, borrowed apart.
    fn split(&mut self) -> (FamilyData<'_, K, Kind>, &mut [Real], &Blocks) {
        let data = FamilyData {
            ids: &self.ids,
            rest: &self.rest,
            mat: &self.mat,
            coeffs: &self.materials.coeffs,
            kind: PhantomData,
        };
        (data, &mut self.lambda, &self.blocks)
    }

    /// Projects every constraint in the direction of `sweep`, Gauss-Seidel style (each sees the
    /// previous ones).
    pub fn project_serial(&mut self, ps: &mut ParticleSet, sweep: Sweep) {
        let (kernel, lambda, blocks) = self.split();
        coloring::project_serial(&kernel, lambda, blocks, ps, sweep);
    }

    /// Projects every constraint, the blocks of a color in parallel (the result does not
    /// depend on the thread count).
    pub fn project_colored(&mut self, ps: &mut ParticleSet, sweep: Sweep) {
        let (kernel, lambda, blocks) = self.split();
        // SAFETY: `blocks` was validated against `ids` by `schedule` (an assert), and `ids` has
        // not changed since except by `push_constraint`, which appends to the serial tail; the
        // kernels read and correct only `ids[c]`.
        unsafe { coloring::project_colored(&kernel, lambda, blocks, ps, sweep) };
    }

    /// Projects every constraint Jacobi-style (see [`coloring::project_jacobi`]).
    pub fn project_jacobi(&mut self, ps: &mut ParticleSet, scratch: &mut JacobiScratch) {
        let (kernel, lambda, _) = self.split();
        coloring::project_jacobi(&kernel, lambda, ps, scratch);
    }
}
