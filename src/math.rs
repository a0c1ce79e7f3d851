//! Scalar and vector types of the simulation (nalgebra; the viewer converts to glam at its boundary).

/// The simulation's scalar: `f32`, for cache-friendly particle arrays.
pub type Real = f32;
/// A 3-vector in metres (positions), m/s (velocities) or unitless (normals).
pub type Vec3 = nalgebra::Vector3<Real>;
/// A 3x3 matrix.
pub type Mat3 = nalgebra::Matrix3<Real>;
/// A rotation.
pub type Quat = nalgebra::UnitQuaternion<Real>;

/// What the projection kernels compute with: one [`Real`], or a SIMD vector of
/// [`LANES`](crate::solver::LANES) of them (`wide::f32x8`), one constraint per lane. Writing a
/// kernel's arithmetic once over `Lanes` gives the scalar and the batched projections the same
/// operations in the same order, so the same bits.
pub trait Lanes:
    Copy
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    /// Every lane `x`.
    fn splat(x: Real) -> Self;
    /// Square root, lane by lane.
    fn sqrt(self) -> Self;
    /// `if self > bound { then } else { otherwise }`, lane by lane (`otherwise` for NaN).
    fn select_gt(self, bound: Self, then: Self, otherwise: Self) -> Self;
}

impl Lanes for Real {
    #[inline(always)]
    fn splat(x: Real) -> Self {
        x
    }

    #[inline(always)]
    fn sqrt(self) -> Self {
        Real::sqrt(self)
    }

    #[inline(always)]
    fn select_gt(self, bound: Self, then: Self, otherwise: Self) -> Self {
        if self > bound { then } else { otherwise }
    }
}

impl Lanes for wide::f32x8 {
    #[inline(always)]
    fn splat(x: Real) -> Self {
        wide::f32x8::splat(x)
    }

    #[inline(always)]
    fn sqrt(self) -> Self {
        wide::f32x8::sqrt(self)
    }

    #[inline(always)]
    fn select_gt(self, bound: Self, then: Self, otherwise: Self) -> Self {
        self.simd_gt(bound).select(then, otherwise)
    }
}
