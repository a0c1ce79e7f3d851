//! # Supple: position-based dynamics for cloth and soft bodies
//!
//! Supple simulates particles held together by constraints, projected with position-based
//! dynamics (PBD, Müller et al. 2007) or its compliant extension (XPBD, Macklin et al. 2016).
//! A [`World`] advances one frame in substeps; every substep runs this pipeline,
//! one module per stage:
//!
//! 1. [`apply_external_forces`](stages::forces): `v += h (g + w f)` (gravity, wind);
//! 2. [`apply_damping`](stages::damping): global linear damping and Müller's rigid-mode-preserving damping;
//! 3. [`predict_positions`](stages::predict): `p = x + h v`;
//! 4. [`generate_contacts`](stages::contacts): particles near static colliders;
//! 5. [`project_constraints`](stages::project): `iterations` passes over the [constraint
//!    families](constraints) (distance, bending, volume, attachment, contact), each with its
//!    [stiffness model](constraints::stiffness);
//! 6. [`match_shapes`](shape_matching::ClusterSet::match_shapes): shape-matching clusters
//!    (Müller et al. 2005), in a fixed order;
//! 7. [`update_velocities`](stages::velocities): `v = (p − x) / h`, with friction and restitution.
//!
//! Units are metres, seconds and kilograms; y is up. Scenes are TOML files ([`scene`]).

pub mod bodies;
#[cfg(feature = "cli")]
pub mod cli;
pub mod collision;
pub mod constraints;
pub mod export;
pub mod math;
pub mod mesh;
pub mod params;
pub mod particles;
pub mod scene;
pub mod shape_matching;
pub mod solver;
pub mod stages;
pub mod stats;
pub mod validate;
#[cfg(feature = "viewer")]
pub mod viewer;
pub mod world;

pub use bodies::cloth::{BendKind, ClothDesc, Orientation};
pub use bodies::rope::RopeDesc;
pub use bodies::soft_body::{SoftBodyDesc, SoftMaterial, SoftModel};
pub use collision::{Collider, Motion, Shape};
pub use constraints::{ContactMaterial, Stiffness};
pub use math::{Quat, Real, Vec3};
pub use mesh::TriMesh;
pub use params::{SolverMethod, SolverParams};
pub use validate::BuildError;
pub use world::{BodyHandle, ColliderHandle, SimError, World};
