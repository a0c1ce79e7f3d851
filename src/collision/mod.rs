//! Collision geometry.

pub mod body_surface;
pub mod colliders;
pub mod distance_grid;
pub mod mesh;
pub mod particle_pairs;
pub mod spatial_hash;

pub use body_surface::{BodySurface, BodySurfaces};
pub use colliders::{Carry, Collider, Motion, Shape};
pub use mesh::MeshShape;
pub use particle_pairs::ParticlePairs;
pub use spatial_hash::SpatialHash;

/// `n` pseudo-random points in the cube `[-side, side]³`, from a linear congruential generator
/// started at `seed`: the same points on every run, for the tests.
#[cfg(test)]
pub(crate) fn scattered(n: usize, side: crate::math::Real, seed: u32) -> Vec<crate::math::Vec3> {
    let mut s = seed;
    let mut next = || {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        ((s >> 8) as crate::math::Real / (1u32 << 24) as crate::math::Real * 2.0 - 1.0) * side
    };
    (0..n)
        .map(|_| crate::math::Vec3::new(next(), next(), next()))
        .collect()
}
