//! Scalar and vector types of the simulation (nalgebra; the viewer converts to glam at its boundary).

/// The simulation's scalar: `f32`, for cache-friendly particle arrays.
pub type Real = f32;
/// A 3-vector in metres (positions), m/s (velocities) or unitless (normals).
pub type Vec3 = nalgebra::Vector3<Real>;
/// A 3x3 matrix.
pub type Mat3 = nalgebra::Matrix3<Real>;
/// A rotation.
pub type Quat = nalgebra::UnitQuaternion<Real>;
