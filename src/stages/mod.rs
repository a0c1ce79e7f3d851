//! The stages of a substep, in pipeline order (see the crate docs).

pub mod contacts;
pub mod damping;
pub mod forces;
pub mod predict;
pub mod project;
pub mod velocities;

pub use contacts::{
    NearColliders, ParticleGroups, generate_contacts, generate_particle_contacts,
    generate_surface_contacts, sweep_colliders,
};
pub use damping::apply_damping;
pub use forces::{Wind, apply_external_forces};
pub use predict::predict_positions;
pub(crate) use project::project_constraints;
pub use velocities::update_velocities;
