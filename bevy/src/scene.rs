//! Supple's scene files (`.toml`) as Bevy assets, spawned as entities.

use crate::components::SuppleBody;
use crate::convert::{new_mesh, rotation_to_bevy, to_bevy};
use crate::error::SuppleError;
use crate::sim::{SuppleSettings, SuppleWorld};
use bevy::asset::io::Reader;
use bevy::asset::{AssetLoadFailedEvent, AssetLoader, LoadContext};
use bevy::math::primitives::{Capsule3d, Cuboid, Plane3d, Sphere};
use bevy::math::{Quat, Vec2, Vec3};
use bevy::mesh::{Mesh, Mesh3d};
use bevy::prelude::*;
use std::path::PathBuf;
use supple::bodies::BodyKind;
use supple::{ColliderHandle, Shape};

/// A scene file, loaded: the world it describes, at frame 0.
#[derive(Asset, TypePath, Clone, Debug)]
pub struct SuppleScene {
    /// The world.
    pub world: supple::World,
}

/// Loads `.toml` scene files. Paths in a scene (its meshes) are relative to the scene file,
/// found under `root` (the asset folder).
#[derive(TypePath)]
pub struct SuppleSceneLoader {
    /// The folder asset paths are relative to.
    pub root: PathBuf,
}

/// A scene file that could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SceneLoadError {
    /// The file could not be read.
    #[error("cannot read the scene file: {0}")]
    Io(#[from] std::io::Error),
    /// The file is not UTF-8 text.
    #[error("the scene file is not UTF-8 text: {0}")]
    Text(#[from] std::string::FromUtf8Error),
    /// The scene is wrong: the error names the file, the line and the key.
    #[error(transparent)]
    Scene(#[from] supple::SceneError),
}

impl AssetLoader for SuppleSceneLoader {
    type Asset = SuppleScene;
    type Settings = ();
    type Error = SceneLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<SuppleScene, SceneLoadError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        let text = String::from_utf8(bytes)?;
        let path = self.root.join(load_context.path().path());
        let world = supple::parse_scene(&text, &path)?;
        Ok(SuppleScene { world })
    }

    fn extensions(&self) -> &[&str] {
        &["toml"]
    }
}

/// Spawns a loaded [`SuppleScene`] as entities: it replaces the plugin's world (and its
/// [`SuppleSettings`] take the scene's `[solver]`), and each body and collider becomes a child
/// of this entity with a mesh (and, with the `render` feature, a material). Keep this entity
/// at the origin: a scene is in world coordinates. A scene that fails to load becomes a
/// [`SuppleError`] naming this entity, with the file, line and key.
#[derive(Component, Clone, Debug)]
#[require(Transform)]
pub struct SuppleSceneRoot(pub Handle<SuppleScene>);

/// Marks a [`SuppleSceneRoot`] whose scene was spawned.
#[derive(Component, Clone, Copy, Debug)]
pub struct SuppleSceneSpawned;

/// A collider of a spawned scene: its entity's transform follows the collider (a scene's
/// kinematic colliders move by their scripted motion).
#[derive(Component, Clone, Copy, Debug)]
pub struct SuppleSceneCollider(pub ColliderHandle);

/// Colours of what a scene spawns.
#[cfg(feature = "render")]
mod colors {
    use bevy::color::Color;
    pub const CLOTH: Color = Color::srgb(0.85, 0.3, 0.25);
    pub const SOFT: Color = Color::srgb(0.3, 0.6, 0.85);
    pub const COLLIDER: Color = Color::srgb(0.6, 0.6, 0.58);
}

/// Spawns the scenes that have loaded.
pub(crate) fn spawn_scenes(
    mut commands: Commands,
    roots: Query<(Entity, &SuppleSceneRoot), Without<SuppleSceneSpawned>>,
    scenes: Res<Assets<SuppleScene>>,
    mut sim: ResMut<SuppleWorld>,
    mut settings: ResMut<SuppleSettings>,
    mut meshes: ResMut<Assets<Mesh>>,
    #[cfg(feature = "render")] mut materials: ResMut<Assets<StandardMaterial>>,
) {
    for (root, scene) in &roots {
        let Some(scene) = scenes.get(&scene.0) else {
            continue;
        };
        commands.entity(root).insert(SuppleSceneSpawned);
        let world = scene.world.clone();
        settings.params = world.params().clone();
        let mut linked = Vec::new();
        for body in world.bodies() {
            let mut entity = commands.spawn((
                Name::new(body.name.clone()),
                SuppleBody {
                    name: body.name.clone(),
                },
                Transform::default(),
                ChildOf(root),
            ));
            if body.kind == BodyKind::Rope {
                linked.push((entity.id(), &body.name, None));
                continue;
            }
            let surface = body.surface(&world.particles().x);
            let mesh = meshes.add(new_mesh(&surface, &body.triangles));
            linked.push((entity.id(), &body.name, Some(mesh.id())));
            entity.insert(Mesh3d(mesh));
            #[cfg(feature = "render")]
            entity.insert(MeshMaterial3d(materials.add(StandardMaterial {
                base_color: match body.kind {
                    BodyKind::Cloth => colors::CLOTH,
                    _ => colors::SOFT,
                },
                double_sided: true,
                cull_mode: None,
                perceptual_roughness: 0.8,
                ..default()
            })));
        }
        for handle in world.collider_handles() {
            let c = world.collider(handle);
            let (translation, rotation) = pose(&c.shape);
            let mut entity = commands.spawn((
                SuppleSceneCollider(handle),
                Transform::from_translation(translation).with_rotation(rotation),
                ChildOf(root),
            ));
            if !c.solid {
                continue;
            }
            entity.insert(Mesh3d(meshes.add(collider_mesh(&c.shape))));
            #[cfg(feature = "render")]
            entity.insert(MeshMaterial3d(materials.add(StandardMaterial {
                base_color: colors::COLLIDER,
                perceptual_roughness: 0.9,
                ..default()
            })));
        }
        let linked: Vec<_> = linked
            .into_iter()
            .map(|(entity, name, mesh)| (entity, name.clone(), mesh))
            .collect();
        sim.replace(world);
        for (entity, name, mesh) in linked {
            sim.link_scene_body(entity, &name, mesh);
        }
    }
}

/// The position and rotation of a collider's frame (its centre).
fn pose(shape: &Shape) -> (Vec3, Quat) {
    let center = to_bevy(&shape.center());
    let rotation = match shape {
        Shape::Plane { normal, .. } => Quat::from_rotation_arc(Vec3::Y, to_bevy(normal)),
        Shape::Sphere { .. } => Quat::IDENTITY,
        Shape::Box { rotation, .. } | Shape::Mesh { rotation, .. } => rotation_to_bevy(rotation),
        Shape::Capsule { a, b, .. } => {
            Quat::from_rotation_arc(Vec3::Y, to_bevy(&(b - a)).normalize_or(Vec3::Y))
        }
    };
    (center, rotation)
}

/// A mesh of a collider's shape in its frame ([`pose`]); a plane is linked as a 20 m square.
fn collider_mesh(shape: &Shape) -> Mesh {
    match shape {
        Shape::Plane { .. } => Mesh::from(Plane3d::new(Vec3::Y, Vec2::splat(10.0))),
        Shape::Sphere { radius, .. } => Mesh::from(Sphere::new(*radius)),
        Shape::Box { half_extents, .. } => {
            Mesh::from(Cuboid::from_size(2.0 * to_bevy(half_extents)))
        }
        Shape::Capsule { a, b, radius } => Mesh::from(Capsule3d::new(*radius, (b - a).norm())),
        Shape::Mesh { mesh, .. } => new_mesh(&mesh.vertices, &mesh.triangles),
    }
}

/// Moves the entities of a scene's colliders to where the colliders are.
pub(crate) fn place_scene_colliders(
    sim: Res<SuppleWorld>,
    mut colliders: Query<(&SuppleSceneCollider, &mut Transform)>,
) {
    for (c, mut transform) in &mut colliders {
        if c.0.index() >= sim.world().colliders().len() {
            continue;
        }
        let (translation, rotation) = pose(&sim.world().collider(c.0).shape);
        if transform.translation != translation || transform.rotation != rotation {
            transform.translation = translation;
            transform.rotation = rotation;
        }
    }
}

/// Reports the scenes that failed to load, naming the entity that asked for them.
pub(crate) fn report_failed_scenes(
    mut failed: MessageReader<AssetLoadFailedEvent<SuppleScene>>,
    roots: Query<(Entity, &SuppleSceneRoot)>,
    mut errors: MessageWriter<SuppleError>,
) {
    for f in failed.read() {
        for (entity, _) in roots.iter().filter(|(_, r)| r.0.id() == f.id) {
            errors.write(SuppleError {
                entity: Some(entity),
                key: None,
                message: f.error.to_string(),
            });
        }
    }
}
