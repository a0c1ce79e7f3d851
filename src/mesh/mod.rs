//! Triangle meshes: topology.

pub mod topology;
