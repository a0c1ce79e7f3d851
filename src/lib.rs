//! Supple.
