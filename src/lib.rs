//! Supple.
pub mod mesh;
