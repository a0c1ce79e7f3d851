//! # bevy_supple: Supple's cloth and soft bodies in Bevy
//!
//! [`SupplePlugin`] owns a [`supple::World`], steps it in `FixedUpdate` at the world's `dt`,
//! and writes the bodies back into their meshes (positions and normals, in place) every frame.
//! Entities join the simulation with components:
//!
//! - [`SuppleCloth`]: a cloth from a [`ClothDesc`](supple::ClothDesc), or from the entity's
//!   own mesh, pinned by vertex indices or by a vertex color or attribute ([`PinWhere`]);
//! - [`SuppleSoftBody`]: a soft body (tets, clusters, rigid or surface) from the entity's mesh;
//! - [`SuppleCollider`]: a plane, sphere, box, capsule or mesh that follows the entity's
//!   transform;
//! - [`SupplePin`]: vertices of a body carried by another entity (a cape on a character);
//! - [`SuppleSceneRoot`]: a Supple scene file (`.toml`), spawned as entities.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_supple::prelude::*;
//!
//! fn setup(mut commands: Commands, mut meshes: ResMut<Assets<Mesh>>) {
//!     // A 1 m square of cloth, 32 × 32 quads, held by two corners.
//!     let sheet = Plane3d::default().mesh().size(1.0, 1.0).subdivisions(31);
//!     commands.spawn((
//!         Mesh3d(meshes.add(sheet)),
//!         Transform::from_xyz(0.0, 1.5, 0.0),
//!         SuppleCloth::from_mesh(0.2).pinned([0, 32]),
//!     ));
//!     commands.spawn((
//!         Transform::from_xyz(0.0, 0.8, 0.0),
//!         SuppleCollider::new(ColliderShape::Sphere { radius: 0.3 }),
//!     ));
//! }
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, SupplePlugin))
//!     .add_systems(Startup, setup)
//!     .run();
//! ```
//!
//! Errors never panic: a description that cannot be built or a simulation that blows up
//! becomes a [`SuppleError`] message naming the entity and the key or body, and the app keeps
//! running.

mod components;
mod convert;
mod error;
mod scene;
mod sim;

pub use components::{
    ColliderShape, PinWhere, SuppleBody, SuppleCloth, SuppleCollider, SuppleFailed, SupplePin,
    SuppleSoftBody,
};
pub use error::SuppleError;
pub use scene::{
    SceneLoadError, SuppleScene, SuppleSceneCollider, SuppleSceneLoader, SuppleSceneRoot,
    SuppleSceneSpawned,
};
pub use sim::{SuppleControl, SuppleSettings, SuppleWorld};

use bevy::asset::io::file::FileAssetReader;
use bevy::asset::{AssetApp, AssetPlugin};
use bevy::mesh::{Mesh, MeshPlugin};
use bevy::prelude::*;
use bevy::transform::TransformSystems;
use std::time::Duration;

/// Everything a user needs: the plugin, the components, the resources and the message.
pub mod prelude {
    pub use crate::{
        ColliderShape, PinWhere, SuppleBody, SuppleCloth, SuppleCollider, SuppleControl,
        SuppleError, SupplePin, SupplePlugin, SuppleSceneRoot, SuppleSettings, SuppleSoftBody,
        SuppleWorld,
    };
    pub use supple::{ClothDesc, SoftBodyDesc, SoftModel, SolverMethod, SolverParams};
}

/// The ordered steps of the plugin, for systems that run between them.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SuppleSystems {
    /// `PostUpdate`, after transforms propagate: settings, removed entities, new colliders,
    /// bodies and pins, spawned scenes.
    Sync,
    /// `FixedUpdate`: colliders follow their transforms, then one frame is simulated.
    Step,
    /// `Update`: the meshes take the bodies' new shape.
    WriteBack,
}

/// Steps a [`SuppleWorld`] in `FixedUpdate` at [`SuppleSettings`]' `dt`; see the crate docs.
/// Needs Bevy's `AssetPlugin` and `TransformPlugin` (both in `DefaultPlugins`; add them to
/// `MinimalPlugins` for a headless app).
#[derive(Default)]
pub struct SupplePlugin;

impl Plugin for SupplePlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<MeshPlugin>() {
            app.init_asset::<Mesh>();
        }
        let root = app
            .get_added_plugins::<AssetPlugin>()
            .first()
            .map_or_else(|| "assets".to_string(), |p| p.file_path.clone());
        let settings = app
            .world_mut()
            .get_resource_or_init::<SuppleSettings>()
            .clone();
        app.init_resource::<SuppleWorld>()
            .init_resource::<SuppleControl>()
            .insert_resource(Time::<Fixed>::from_duration(Duration::from_secs_f64(
                f64::from(settings.params.dt),
            )))
            .add_message::<SuppleError>()
            .init_asset::<SuppleScene>()
            .register_asset_loader(SuppleSceneLoader {
                root: FileAssetReader::get_base_path().join(root),
            })
            .configure_sets(
                PostUpdate,
                SuppleSystems::Sync.after(TransformSystems::Propagate),
            )
            .add_systems(
                PostUpdate,
                (
                    sim::apply_settings,
                    scene::report_failed_scenes,
                    sim::remove_despawned,
                    scene::spawn_scenes,
                    sim::add_colliders,
                    sim::add_bodies,
                    sim::apply_pins,
                )
                    .chain()
                    .in_set(SuppleSystems::Sync),
            )
            .add_systems(
                FixedUpdate,
                (sim::follow_transforms, sim::step)
                    .chain()
                    .in_set(SuppleSystems::Step),
            )
            .add_systems(
                Update,
                (sim::write_meshes, scene::place_scene_colliders).in_set(SuppleSystems::WriteBack),
            );
    }
}
