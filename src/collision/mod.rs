//! Collision geometry.

pub mod colliders;
pub mod particle_pairs;
pub mod spatial_hash;

pub use colliders::{Collider, Shape};
pub use particle_pairs::ParticlePairs;
pub use spatial_hash::SpatialHash;
