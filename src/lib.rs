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
//! [`World::step`] advances one frame in substeps; every substep runs this pipeline, one file
//! per stage in `src/stages/` (the crate's architecture is described in `docs/architecture.md`):
//!
//! 1. damping (`damping.rs`): global linear damping and Müller's rigid-mode-preserving damping,
//!    both per second (before the forces, so that they do not scale a static load);
//! 2. external forces (`forces.rs`): `v += h (g + w f)` (gravity, [`wind`]);
//! 3. position prediction (`predict.rs`): `p = x + h v`;
//! 4. collision-constraint generation (`contacts.rs`): particles near colliders (with a swept
//!    test for fast ones) and near each other;
//! 5. constraint projection (`project.rs`): `iterations` passes over the [constraint
//!    families](constraints), listed once in `constraints/registry.rs` (distance, bending,
//!    volume, Neo-Hookean tets, tethers, strain limits, shape matching as a constraint, pressure,
//!    attachments, contacts with static friction), each with its [stiffness
//!    model](constraints::stiffness), by Gauss-Seidel, graph-colored in parallel, or Jacobi;
//! 6. velocity update (`velocities.rs`): `v = (p − x) / h`, with kinetic friction and
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
#[doc(hidden)]
#[cfg(feature = "cli")]
pub mod cli;
pub mod collision;
pub mod constraints;
pub mod export;
pub mod handles;
pub mod math;
pub mod mesh;
pub mod params;
pub mod particles;
pub mod scene;
pub mod shape_matching;
// How constraint families are projected (scheduling, drivers, SIMD): internal, public for the
// benchmarks and the tests only.
#[doc(hidden)]
pub mod solver;
pub(crate) mod stages;
pub mod stats;
pub mod timing;
pub(crate) mod validate;
#[cfg(feature = "viewer")]
pub mod viewer;
pub mod wind;
pub mod world;

#[cfg(doctest)]
mod doctests;

pub use bodies::cloth::{BendKind, ClothDesc, Diagonals, Orientation};
pub use bodies::rope::RopeDesc;
pub use bodies::soft_body::{SoftBodyDesc, SoftMaterial, SoftModel, fit_scale, place_mesh};
pub use bodies::tear::Tear;
pub use collision::{Collider, MeshShape, Motion, Shape};
pub use constraints::stiffness::StiffnessKeys;
pub use constraints::{ConstraintSets, ContactMaterial, Stiffness};
pub use export::{ExportError, FrameRecord, export_frame};
pub use handles::{BodyHandle, ColliderHandle};
pub use math::{Quat, Real, Vec3};
pub use mesh::TriMesh;
pub use mesh::obj::{ObjError, load_obj};
pub use params::{SolverMethod, SolverParams};
pub use scene::{Scene, SceneError, load_scene, parse_scene};
pub use shape_matching::ClusterMaterial;
pub use stats::{BodyStats, FrameStats};
pub use timing::StageMs;
pub use validate::{BuildError, Checked};
pub use wind::Gust;
pub use world::{SimError, World, WorldError};
