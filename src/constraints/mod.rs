//! Constraint families: one file each, with its data, its pure `solve_*` kernel and its drivers.

pub mod attachment;
pub mod batched;
pub mod bending;
pub mod contact;
pub mod distance;
pub mod family;
pub mod isometric;
pub mod neo_hookean;
pub mod particle_contact;
pub mod rope_bending;
pub mod stiffness;
pub mod surface_contact;
pub mod tether;
pub mod volume;

pub use attachment::{AttachmentSet, ColliderPinSet};
pub use bending::DihedralSet;
pub use contact::{ContactMaterial, ContactSet};
pub use distance::DistanceSet;
pub use family::Family;
pub use isometric::IsometricSet;
pub use neo_hookean::NeoHookeanSet;
pub use particle_contact::ParticleContactSet;
pub use rope_bending::RopeBendingSet;
pub use stiffness::{Coeffs, MaterialTable, Stiffness};
pub use surface_contact::SurfaceContactSet;
pub use tether::TetherSet;
pub use volume::{PressureSet, TetVolumeSet};

use crate::math::Vec3;
use crate::solver::JacobiScratch;
use crate::solver::Slot;
use crate::solver::Team;

/// Every constraint of a world, one flat array per family.
#[derive(Clone, Debug, Default)]
pub struct ConstraintSets {
    /// Stretch and shear of cloth, rope segments: the constraints whose strain is reported.
    pub stretch: DistanceSet,
    /// Cross-distance bending of cloth and bending of rope (particles two apart).
    pub bend_distance: DistanceSet,
    /// Elastic bending of ropes (bending stiffness `EI`).
    pub rope_bending: RopeBendingSet,
    /// Dihedral-angle bending of cloth.
    pub dihedral: DihedralSet,
    /// Isometric bending of flat cloth.
    pub isometric: IsometricSet,
    /// Tetrahedron volumes of soft bodies.
    pub volume: TetVolumeSet,
    /// Neo-Hookean tets of soft bodies of an elastic solid.
    pub neo_hookean: NeoHookeanSet,
    /// Enclosed volumes of surface soft bodies.
    pub pressure: PressureSet,
    /// Particles held to fixed points.
    pub attachment: AttachmentSet,
    /// Long-range attachments of free particles to their nearest pins.
    pub tether: TetherSet,
    /// Particle-collider contacts of the current substep.
    pub contact: ContactSet,
    /// The Jacobi solver's buffers and per-family state (the scheduled families numbered 0 to 4
    /// in the order of the fields above).
    pub jacobi: JacobiScratch,
    /// The projection's working copy of the predicted positions and inverse masses (see
    /// [`pack`](crate::solver::view::pack)).
    pub slots: Vec<Slot>,
    /// The substep's start positions beside `slots`, relative to the same origins, m.
    pub starts: Vec<Vec3>,
    /// What the slots' `f32` positions leave out of the exact relative positions, m (see
    /// [`pack`](crate::solver::view::pack)).
    pub lost: Vec<Vec3>,
    /// The origin of each body's slots in the current substep: the start position of its first
    /// particle, m (see [`view`](crate::solver::view)).
    pub origins: Vec<Vec3>,
    /// Particle-particle contacts of the current substep.
    pub particle_contact: ParticleContactSet,
    /// Particle-surface contacts of the current substep (stiffness: the particle contacts').
    pub surface_contact: SurfaceContactSet,
}

impl ConstraintSets {
    /// Schedules the stretch, bending, tet-volume and Neo-Hookean families from their particle
    /// ids (see [`schedule`](crate::solver::schedule)); called when a body has been built.
    pub fn schedule(&mut self) {
        self.stretch.schedule();
        self.bend_distance.schedule();
        self.dihedral.schedule();
        self.isometric.schedule();
        self.volume.schedule();
        self.neo_hookean.schedule();
    }

    /// Computes every material's coefficients for a substep of `h` seconds, and resets the
    /// multipliers (XPBD accumulates `λ` over the iterations of one substep), spread over `team`.
    pub fn begin_substep(&mut self, h: f32, iterations: u32, team: &Team) {
        for (table, lambda) in [
            (&mut self.stretch.materials, &mut self.stretch.lambda),
            (
                &mut self.bend_distance.materials,
                &mut self.bend_distance.lambda,
            ),
            (&mut self.dihedral.materials, &mut self.dihedral.lambda),
            (&mut self.isometric.materials, &mut self.isometric.lambda),
            (
                &mut self.rope_bending.materials,
                &mut self.rope_bending.lambda,
            ),
            (&mut self.volume.materials, &mut self.volume.lambda),
            (
                &mut self.neo_hookean.materials,
                &mut self.neo_hookean.lambda,
            ),
            (&mut self.pressure.materials, &mut self.pressure.lambda),
            (&mut self.attachment.materials, &mut self.attachment.lambda),
            (&mut self.contact.materials, &mut self.contact.lambda),
            (
                &mut self.particle_contact.materials,
                &mut self.particle_contact.lambda,
            ),
        ] {
            table.resolve(h, iterations);
            team.for_each_chunk(&mut lambda[..], |_, l| l.fill(0.0));
        }
    }
}

/// For the kernels' tests: asserts that `grad` (one vector per particle) is the gradient of `c`
/// at `x`, each component within `tol` of the central difference with step `h`.
#[cfg(test)]
pub(crate) fn assert_gradient<const N: usize>(
    x: [Vec3; N],
    c: impl Fn([Vec3; N]) -> crate::math::Real,
    grad: [Vec3; N],
    (h, tol): (crate::math::Real, crate::math::Real),
) {
    for i in 0..N {
        for axis in 0..3 {
            let (mut plus, mut minus) = (x, x);
            plus[i][axis] += h;
            minus[i][axis] -= h;
            let fd = (c(plus) - c(minus)) / (2.0 * h);
            assert!(
                (fd - grad[i][axis]).abs() < tol,
                "particle {i}, axis {axis}: finite difference {fd}, gradient {}",
                grad[i][axis]
            );
        }
    }
}
