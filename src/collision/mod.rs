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
