//! Collision geometry.

pub mod colliders;

pub use colliders::{Collider, Shape};
