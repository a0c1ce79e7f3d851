//! # Supple: position-based dynamics for cloth and soft bodies
//!
//! Supple simulates particles held together by constraints, projected with position-based
//! dynamics (PBD, Müller et al. 2007) or its compliant extension (XPBD, Macklin et al. 2016).
//!
//! ## Quick start
//!
//! Build a [`World`] from descriptions ([`ClothDesc`], [`RopeDesc`], [`SoftBodyDesc`],
//! [`Collider`]), each `add_*` returning a handle, then step it and read the positions:
//!
//! ```
//! use supple::{ClothDesc, Collider, Orientation, Shape, SolverParams, Vec3, World};
//!
//! let mut world = World::new(SolverParams::default())?;
//! let mut sheet = ClothDesc::grid(
//!     [20, 20],
//!     [1.0, 1.0],
//!     Vec3::new(0.0, 1.0, 0.0),
//!     Orientation::Horizontal,
//!     0.2,
//! )?;
//! sheet.pin = vec![0, 19]; // two corners of the first row
//! let cloth = world.add_cloth(&sheet)?;
//! world.add_collider(Collider::new(Shape::Plane {
//!     point: Vec3::zeros(),
//!     normal: Vec3::y(),
//! }))?;
//! world.step_frames(30)?;
//! let lowest = world.positions(cloth).iter().map(|p| p.y).fold(f32::MAX, f32::min);
//! assert!(lowest < 1.0 && lowest > 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Scene files (TOML, [`scene`]) describe the same worlds; the loader is a client of this API.
//! Every description checks its values and returns a [`BuildError`] naming the key and what
//! was expected; a simulation that blows up stops with a [`SimError`] naming the body and frame.
//!
//! ## The step
//!
//! [`World::step`] advances one frame in substeps; every substep runs this pipeline, one module
//! per stage ([`stages`]):
//!
//! 1. [`apply_damping`](stages::damping): global linear damping and Müller's
//!    rigid-mode-preserving damping, both per second (before the forces, so that they do not
//!    scale a static load);
//! 2. [`apply_external_forces`](stages::forces): `v += h (g + w f)` (gravity, wind);
//! 3. [`predict_positions`](stages::predict): `p = x + h v`;
//! 4. [`generate_contacts`](stages::contacts): particles near colliders (with a swept test for
//!    fast ones) and near each other;
//! 5. [`project_constraints`](stages::project): `iterations` passes over the [constraint
//!    families](constraints) (distance, bending, volume, attachment, contact with static
//!    friction) and the shape-matching clusters
//!    ([`match_shapes`](shape_matching::ClusterSet::match_shapes), Müller et al. 2005, as a
//!    constraint), each with its [stiffness model](constraints::stiffness), scheduled and driven
//!    by the [`solver`] (Gauss-Seidel, graph-colored in parallel, or Jacobi);
//! 6. [`update_velocities`](stages::velocities): `v = (p − x) / h`, with kinetic friction and
//!    restitution.
//!
//! Units are metres, seconds and kilograms; y is up.
//!
//! ## Features
//!
//! `cli` (the `supple` program and its experiments) and `viewer` (the kiss3d window) are on by
//! default; `default-features = false` gives the engine alone.

#![warn(missing_docs)]

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
pub mod timing;
pub mod validate;
#[cfg(feature = "viewer")]
pub mod viewer;
pub mod wind;
pub mod world;

#[cfg(doctest)]
mod doctests;

pub use bodies::cloth::{BendKind, ClothDesc, Diagonals, Orientation};
pub use bodies::rope::RopeDesc;
pub use bodies::soft_body::{SoftBodyDesc, SoftMaterial, SoftModel};
pub use bodies::tear::Tear;
pub use collision::{Collider, Motion, Shape};
pub use constraints::{ContactMaterial, Stiffness};
pub use math::{Quat, Real, Vec3};
pub use mesh::TriMesh;
pub use params::{SolverMethod, SolverParams};
pub use validate::BuildError;
pub use world::{BodyHandle, ColliderHandle, SimError, World};
