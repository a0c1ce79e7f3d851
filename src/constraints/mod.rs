//! Constraint families: one file each, with its data and its pure `solve_*` kernel; the
//! [`registry`] lists them once, for the projection, the timings and tearing.

pub mod attachment;
pub mod batched;
pub mod bending;
pub mod contact;
pub mod distance;
pub mod family;
pub mod isometric;
pub mod neo_hookean;
pub mod particle_contact;
pub mod registry;
pub mod rope_bending;
pub mod stiffness;
pub mod strain_limit;
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
pub use registry::ConstraintSets;
pub use rope_bending::RopeBendingSet;
pub use stiffness::{Coeffs, MaterialTable, Stiffness};
pub use strain_limit::StrainLimitSet;
pub use surface_contact::SurfaceContactSet;
pub use tether::TetherSet;
pub use volume::{PressureSet, TetVolumeSet};

/// For the kernels' tests: asserts that `grad` (one vector per particle) is the gradient of `c`
/// at `x`, each component within `tol` of the central difference with step `h`.
#[cfg(test)]
pub(crate) fn assert_gradient<const N: usize>(
    x: [crate::math::Vec3; N],
    c: impl Fn([crate::math::Vec3; N]) -> crate::math::Real,
    grad: [crate::math::Vec3; N],
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
