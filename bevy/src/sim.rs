//! The world the plugin owns, and the systems that keep it and the entities in step: bodies
//! and colliders built from components, colliders and pins following transforms, the fixed
//! step, and the meshes written back.

use crate::components::{
    ColliderShape, SuppleBody, SuppleCloth, SuppleCollider, SuppleFailed, SupplePin, SuppleSoftBody,
};
use crate::convert::{RenderLink, new_mesh, rotation_to_supple, to_bevy, to_supple, triangles_of};
use crate::error::SuppleError;
use bevy::asset::RenderAssetUsages;
use bevy::ecs::entity::Entity;
use bevy::math::{Quat, Vec3};
use bevy::mesh::{Mesh, Mesh3d};
use bevy::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use supple::{
    BodyHandle, BuildError, Collider, ColliderHandle, MeshShape, Shape, SimError, SolverParams,
    TriMesh,
};

/// The simulation's settings: the solver's (`dt`, substeps, iterations, method, gravity, wind,
/// damping; [`SolverParams`]) and its threads. Changing them takes effect at the next frame;
/// the world steps in `FixedUpdate` at `params.dt`.
#[derive(Resource, Clone, Debug, Default)]
pub struct SuppleSettings {
    /// The solver's settings (default: 1/60 s, 20 substeps of 10 iterations, gauss-seidel).
    pub params: SolverParams,
    /// Threads for the parallel methods, `colored`, `jacobi` and `colored-chebyshev` (default
    /// `None`: every core).
    pub threads: Option<usize>,
}

/// Pausing and stepping, for tools: while `paused`, the world only advances `steps` more
/// frames (one per fixed step). A simulation that blows up pauses it.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SuppleControl {
    /// No frame is simulated (default false).
    pub paused: bool,
    /// Frames still to simulate while paused.
    pub steps: u32,
}

/// The [`supple::World`] the plugin steps, and which entity is which body or collider.
#[derive(Resource, Default)]
pub struct SuppleWorld {
    world: supple::World,
    bodies: HashMap<Entity, BodyLink>,
    colliders: HashMap<Entity, ColliderLink>,
    pool: Option<rayon::ThreadPool>,
    written: Option<u64>,
}

/// An entity's body.
struct BodyLink {
    name: String,
    handle: BodyHandle,
    /// The mesh that shows it.
    render: Option<(AssetId<Mesh>, RenderLink)>,
    /// The pin applied to it.
    pin: Option<SupplePin>,
}

/// An entity's collider: its own [`SuppleCollider`], or one that carries pins for it.
struct ColliderLink {
    handle: ColliderHandle,
    /// The rotation the collider was given, to turn it to the entity's next one.
    rotation: Quat,
}

impl SuppleWorld {
    /// The world.
    pub fn world(&self) -> &supple::World {
        &self.world
    }

    /// The world, to call its API (`set_velocities`, `set_self_collision`, ...). Add and remove
    /// bodies through entities instead, so that the plugin knows them.
    pub fn world_mut(&mut self) -> &mut supple::World {
        &mut self.world
    }

    /// The body of `entity`, once built.
    pub fn body(&self, entity: Entity) -> Option<BodyHandle> {
        self.bodies.get(&entity).map(|link| link.handle)
    }

    /// The collider of `entity` (its [`SuppleCollider`], or the one that carries pins for it).
    pub fn collider(&self, entity: Entity) -> Option<ColliderHandle> {
        self.colliders.get(&entity).map(|link| link.handle)
    }

    /// Starts over with `world` (a loaded scene's), forgetting every entity.
    pub(crate) fn replace(&mut self, world: supple::World) {
        *self = SuppleWorld {
            world,
            pool: self.pool.take(),
            ..Default::default()
        };
    }

    /// Links the scene body `name` to `entity`, shown by mesh `id` (the body's surface), if
    /// any.
    pub(crate) fn link_scene_body(
        &mut self,
        entity: Entity,
        name: &str,
        id: Option<AssetId<Mesh>>,
    ) {
        let Some(handle) = self.world.body_named(name) else {
            return;
        };
        let body = self.world.body(handle);
        let render = id.map(|id| {
            let surface = body.surface(&self.world.particles().x);
            (
                id,
                RenderLink::new(&surface, body.triangles.clone(), &surface),
            )
        });
        self.bodies.insert(
            entity,
            BodyLink {
                name: name.to_string(),
                handle,
                render,
                pin: None,
            },
        );
    }

    /// The entity of the body called `name`.
    fn entity_of(&self, name: &str) -> Option<Entity> {
        self.bodies
            .iter()
            .find(|(_, link)| link.name == name)
            .map(|(&e, _)| e)
    }

    /// Removes the body of `entity`, if any; the other bodies' handles are looked up again.
    fn remove(&mut self, entity: Entity) -> Result<(), SuppleError> {
        let Some(link) = self.bodies.remove(&entity) else {
            return Ok(());
        };
        self.world
            .remove_body(link.handle)
            .map_err(|e| SuppleError::at(entity, e.argument, e.message))?;
        for link in self.bodies.values_mut() {
            if let Some(handle) = self.world.body_named(&link.name) {
                link.handle = handle;
            }
        }
        Ok(())
    }

    /// Adds a collider for `entity` with `shape` where `at` puts it.
    fn add_collider(
        &mut self,
        entity: Entity,
        collider: Collider,
        at: &GlobalTransform,
    ) -> Result<ColliderHandle, BuildError> {
        let handle = self.world.add_collider(collider)?;
        let rotation = at.to_scale_rotation_translation().1;
        self.colliders
            .insert(entity, ColliderLink { handle, rotation });
        Ok(handle)
    }
}

/// Applies changed settings to the world, the fixed timestep and the thread pool.
pub(crate) fn apply_settings(
    settings: Res<SuppleSettings>,
    mut sim: ResMut<SuppleWorld>,
    mut time: ResMut<Time<Fixed>>,
    mut errors: MessageWriter<SuppleError>,
) {
    if !settings.is_changed() {
        return;
    }
    if let Err(e) = sim.world.set_params(settings.params.clone()) {
        errors.write(SuppleError {
            entity: None,
            key: Some(format!("params.{}", e.key)),
            message: e.message,
        });
        return;
    }
    time.set_timestep(Duration::from_secs_f64(f64::from(settings.params.dt)));
    sim.pool = match settings.threads {
        Some(n) => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
            Ok(pool) => Some(pool),
            Err(e) => {
                errors.write(SuppleError {
                    entity: None,
                    key: Some("threads".into()),
                    message: format!("= {n}: cannot start the threads: {e}"),
                });
                None
            }
        },
        None => None,
    };
}

/// Removes the bodies of despawned entities (or whose component was removed), frees the
/// vertices of removed pins, and makes the colliders of despawned entities touch nothing.
pub(crate) fn remove_despawned(
    mut bodies: RemovedComponents<SuppleBody>,
    mut cloths: RemovedComponents<SuppleCloth>,
    mut soft: RemovedComponents<SuppleSoftBody>,
    mut pins: RemovedComponents<SupplePin>,
    mut colliders: RemovedComponents<SuppleCollider>,
    mut sim: ResMut<SuppleWorld>,
    mut errors: MessageWriter<SuppleError>,
) {
    for entity in pins.read() {
        let sim = &mut *sim;
        if let Some(link) = sim.bodies.get_mut(&entity)
            && let Some(pin) = link.pin.take()
        {
            for &v in &pin.vertices {
                // The vertices were checked when pinned.
                let _ = sim.world.unpin(link.handle, v);
            }
        }
    }
    for entity in bodies.read().chain(cloths.read()).chain(soft.read()) {
        if let Err(e) = sim.remove(entity) {
            errors.write(e);
        }
    }
    for entity in colliders.read() {
        if let Some(link) = sim.colliders.remove(&entity) {
            sim.world.set_collider_solid(link.handle, false);
        }
    }
}

/// The positions `local` (in the frame of `at`) in the world.
fn placed(local: &[Vec3], at: &GlobalTransform) -> Vec<supple::Vec3> {
    local
        .iter()
        .map(|&p| to_supple(at.transform_point(p)))
        .collect()
}

/// The vertices and triangles of a mesh, in its entity's frame.
type LocalMesh = (Vec<Vec3>, Vec<[u32; 3]>);

/// The entity's mesh and its vertices and triangles, for a description without vertices;
/// `Ok(None)` while the mesh loads.
fn entity_mesh<'a>(
    entity: Entity,
    mesh3d: Option<&Mesh3d>,
    meshes: &'a Assets<Mesh>,
) -> Result<Option<(&'a Mesh, LocalMesh)>, SuppleError> {
    let Some(mesh3d) = mesh3d else {
        return Err(SuppleError::at(
            entity,
            "mesh",
            "is empty and the entity has no Mesh3d: expected a description with vertices, or a mesh on the entity",
        ));
    };
    let Some(mesh) = meshes.get(&mesh3d.0) else {
        return Ok(None);
    };
    let local = triangles_of(mesh).map_err(|m| SuppleError::at(entity, "mesh", m))?;
    Ok(Some((mesh, local)))
}

/// Builds the bodies of new [`SuppleCloth`] and [`SuppleSoftBody`] entities, once their
/// meshes are loaded, and gives each a mesh of its own that shows it.
#[allow(clippy::type_complexity)]
pub(crate) fn add_bodies(
    mut commands: Commands,
    mut sim: ResMut<SuppleWorld>,
    mut meshes: ResMut<Assets<Mesh>>,
    cloths: Query<
        (Entity, &SuppleCloth, &GlobalTransform, Option<&Mesh3d>),
        (Without<SuppleBody>, Without<SuppleFailed>),
    >,
    soft: Query<
        (Entity, &SuppleSoftBody, &GlobalTransform, Option<&Mesh3d>),
        (Without<SuppleBody>, Without<SuppleFailed>),
    >,
    mut errors: MessageWriter<SuppleError>,
) {
    let mut failed = |commands: &mut Commands, e: SuppleError| {
        if let Some(entity) = e.entity {
            commands.entity(entity).insert(SuppleFailed);
        }
        errors.write(e);
    };
    // The bodies added, to be linked to their entities once every one is built.
    let mut built = Vec::new();
    for (entity, cloth, at, mesh3d) in &cloths {
        let mut desc = cloth.desc.clone();
        let source = if desc.positions.is_empty() {
            let found = entity_mesh(entity, mesh3d, &meshes).and_then(|found| {
                let Some((mesh, local)) = found else {
                    return Ok(None);
                };
                let pins = cloth.pin_where.as_ref().map(|w| w.select(mesh)).transpose();
                desc.pin.extend(
                    pins.map_err(|m| SuppleError::at(entity, "pin_where", m))?
                        .into_iter()
                        .flatten(),
                );
                Ok(Some(local))
            });
            match found {
                Ok(Some(local)) => Some(local),
                Ok(None) => continue,
                Err(e) => {
                    failed(&mut commands, e);
                    continue;
                }
            }
        } else {
            None
        };
        let local = match &source {
            Some((p, t)) => {
                desc.triangles.clone_from(t);
                p.clone()
            }
            None => desc.positions.iter().map(to_bevy).collect(),
        };
        desc.positions = placed(&local, at);
        if desc.name.is_empty() {
            desc.name = format!("cloth-{}", entity.to_bits());
        }
        let added = sim.world.add_cloth(&desc);
        built.push((entity, *at, mesh3d.cloned(), source, added));
    }
    for (entity, body, at, mesh3d) in &soft {
        let mut desc = body.desc.clone();
        let source = if desc.mesh.positions.is_empty() {
            match entity_mesh(entity, mesh3d, &meshes) {
                Ok(Some((_, local))) => Some(local),
                Ok(None) => continue,
                Err(e) => {
                    failed(&mut commands, e);
                    continue;
                }
            }
        } else {
            None
        };
        let (local, triangles) = source.clone().unwrap_or_else(|| {
            let TriMesh {
                positions,
                triangles,
            } = &desc.mesh;
            (positions.iter().map(to_bevy).collect(), triangles.clone())
        });
        desc.mesh = TriMesh {
            positions: placed(&local, at),
            triangles,
        };
        if desc.name.is_empty() {
            desc.name = format!("soft-{}", entity.to_bits());
        }
        let added = sim.world.add_soft_body(&desc);
        built.push((entity, *at, mesh3d.cloned(), source, added));
    }
    for (entity, at, mesh3d, source, added) in built {
        link(
            &mut commands,
            &mut sim,
            &mut meshes,
            entity,
            &at,
            mesh3d.as_ref(),
            source,
            added,
        )
        .unwrap_or_else(|e| failed(&mut commands, e));
    }
}

/// Links the body just `added` for `entity` (or reports why it was not), with a mesh of its
/// own: a copy of the entity's mesh when the body was built from it, else its surface.
#[allow(clippy::too_many_arguments)]
fn link(
    commands: &mut Commands,
    sim: &mut SuppleWorld,
    meshes: &mut Assets<Mesh>,
    entity: Entity,
    at: &GlobalTransform,
    mesh3d: Option<&Mesh3d>,
    source: Option<LocalMesh>,
    added: Result<BodyHandle, BuildError>,
) -> Result<(), SuppleError> {
    let handle = added.map_err(|e| SuppleError::at(entity, e.key, e.message))?;
    let body = sim.world.body(handle);
    let surface = body.surface(&sim.world.particles().x);
    let to_local = at.affine().inverse();
    let (mesh, render) = match (source, mesh3d.and_then(|m| meshes.get(&m.0))) {
        (Some((local, triangles)), Some(mesh)) => {
            let mut mesh = mesh.clone();
            mesh.asset_usage = RenderAssetUsages::default();
            let vertices = placed(&local, at);
            (mesh, RenderLink::new(&vertices, triangles, &surface))
        }
        _ => {
            let local: Vec<supple::Vec3> = surface
                .iter()
                .map(|p| to_supple(to_local.transform_point3(to_bevy(p))))
                .collect();
            let render = RenderLink::new(&surface, body.triangles.clone(), &surface);
            (new_mesh(&local, &body.triangles), render)
        }
    };
    let mesh = meshes.add(mesh);
    let name = body.name.clone();
    commands
        .entity(entity)
        .insert((Mesh3d(mesh.clone()), SuppleBody { name: name.clone() }));
    sim.bodies.insert(
        entity,
        BodyLink {
            name,
            handle,
            render: Some((mesh.id(), render)),
            pin: None,
        },
    );
    Ok(())
}

/// The collider of `shape` for an entity at `at` (with `mesh`, its own mesh, for
/// [`ColliderShape::Mesh`]).
fn world_shape(
    shape: &ColliderShape,
    at: &GlobalTransform,
    mesh: Option<&Mesh>,
) -> Result<Shape, String> {
    let (scale, rotation, translation) = at.to_scale_rotation_translation();
    let (center, turn) = (to_supple(translation), rotation_to_supple(rotation));
    let scale = scale.abs();
    Ok(match shape {
        ColliderShape::Plane => Shape::Plane {
            point: center,
            normal: to_supple(rotation * Vec3::Y),
        },
        ColliderShape::Sphere { radius } => Shape::Sphere {
            center,
            radius: radius * scale.max_element(),
        },
        ColliderShape::Cuboid { half_size } => Shape::Box {
            center,
            half_extents: to_supple(*half_size * scale),
            rotation: turn,
        },
        ColliderShape::Capsule {
            radius,
            half_length,
        } => {
            let half = to_supple(rotation * Vec3::new(0.0, half_length * scale.y, 0.0));
            Shape::Capsule {
                a: center - half,
                b: center + half,
                radius: radius * scale.x.max(scale.z),
            }
        }
        ColliderShape::Mesh => {
            let mesh = mesh.ok_or("is Mesh and the entity has no loaded Mesh3d")?;
            let (positions, triangles) = triangles_of(mesh)?;
            let mesh = TriMesh {
                positions: positions.iter().map(|&p| to_supple(p * scale)).collect(),
                triangles,
            };
            Shape::Mesh {
                mesh: Arc::new(MeshShape::new(&mesh, 1.0)),
                position: center,
                rotation: turn,
            }
        }
    })
}

/// Builds the colliders of new [`SuppleCollider`] entities.
#[allow(clippy::type_complexity)]
pub(crate) fn add_colliders(
    mut commands: Commands,
    mut sim: ResMut<SuppleWorld>,
    meshes: Res<Assets<Mesh>>,
    colliders: Query<
        (Entity, &SuppleCollider, &GlobalTransform, Option<&Mesh3d>),
        Without<SuppleFailed>,
    >,
    mut errors: MessageWriter<SuppleError>,
) {
    for (entity, c, at, mesh3d) in &colliders {
        if sim.colliders.contains_key(&entity) {
            continue;
        }
        let mesh = mesh3d.and_then(|m| meshes.get(&m.0));
        if c.shape == ColliderShape::Mesh && mesh3d.is_some() && mesh.is_none() {
            continue;
        }
        let built = world_shape(&c.shape, at, mesh)
            .map_err(|m| SuppleError::at(entity, "shape", m))
            .and_then(|shape| {
                let collider = Collider {
                    material: c.material,
                    solid: c.solid,
                    ..Collider::new(shape)
                };
                sim.add_collider(entity, collider, at)
                    .map_err(|e| SuppleError::at(entity, e.key, e.message))
            });
        if let Err(e) = built {
            commands.entity(entity).insert(SuppleFailed);
            errors.write(e);
        }
    }
}

/// Applies new or changed [`SupplePin`]s: their vertices move to their offsets, if given, and
/// are carried by the target's collider (one that touches nothing is made for a target without
/// a [`SuppleCollider`]).
pub(crate) fn apply_pins(
    pins: Query<(Entity, &SupplePin), With<SuppleBody>>,
    transforms: Query<&GlobalTransform>,
    mut sim: ResMut<SuppleWorld>,
    mut errors: MessageWriter<SuppleError>,
) {
    for (entity, pin) in &pins {
        let Some(link) = sim.bodies.get_mut(&entity) else {
            continue;
        };
        if link.pin.as_ref() == Some(pin) {
            continue;
        }
        let (handle, old) = (link.handle, link.pin.replace(pin.clone()));
        if let Err(e) = pin_body(&mut sim, entity, handle, old, pin, &transforms) {
            errors.write(e);
        }
    }
}

/// Moves `pin`'s vertices of `body` (of `entity`) to their offsets and has its target carry
/// them, after freeing those of the `old` pin.
fn pin_body(
    sim: &mut SuppleWorld,
    entity: Entity,
    body: BodyHandle,
    old: Option<SupplePin>,
    pin: &SupplePin,
    transforms: &Query<&GlobalTransform>,
) -> Result<(), SuppleError> {
    let world_error = |e: supple::WorldError| SuppleError::at(entity, e.argument, e.message);
    for v in old.iter().flat_map(|p| &p.vertices) {
        sim.world.unpin(body, *v).map_err(world_error)?;
    }
    let at = transforms.get(pin.target).map_err(|_| {
        SuppleError::at(
            entity,
            "target",
            format!("= {}: expected an entity with a transform", pin.target),
        )
    })?;
    if !pin.offsets.is_empty() {
        if pin.offsets.len() != pin.vertices.len() {
            return Err(SuppleError::at(
                entity,
                "offsets",
                format!(
                    "has {} offsets: expected one per vertex ({})",
                    pin.offsets.len(),
                    pin.vertices.len()
                ),
            ));
        }
        let mut x = sim.world.positions(body);
        let n = x.len();
        for (&v, &offset) in pin.vertices.iter().zip(&pin.offsets) {
            let slot = x.get_mut(v).ok_or_else(|| {
                SuppleError::at(
                    entity,
                    "vertices",
                    format!("has vertex {v}: expected a vertex index in 0..{n}"),
                )
            })?;
            *slot = to_supple(at.transform_point(offset));
        }
        sim.world.set_positions(body, &x).map_err(world_error)?;
    }
    let carrier = match sim.collider(pin.target) {
        Some(c) => c,
        None => {
            let shape = Shape::Sphere {
                center: to_supple(at.translation()),
                radius: 0.01,
            };
            let carrier = Collider {
                solid: false,
                ..Collider::new(shape)
            };
            sim.add_collider(pin.target, carrier, at)
                .map_err(|e| SuppleError::at(entity, e.key, e.message))?
        }
    };
    sim.world
        .pin_to_collider(body, &pin.vertices, carrier)
        .map_err(world_error)
}

/// Moves every collider over the next frame to where its entity's transform now puts it.
pub(crate) fn follow_transforms(
    transforms: Query<&GlobalTransform>,
    mut sim: ResMut<SuppleWorld>,
    mut errors: MessageWriter<SuppleError>,
) {
    let SuppleWorld {
        world, colliders, ..
    } = &mut *sim;
    for (&entity, link) in colliders.iter_mut() {
        let Ok(at) = transforms.get(entity) else {
            continue;
        };
        let (_, rotation, translation) = at.to_scale_rotation_translation();
        let shift = to_supple(translation) - world.collider(link.handle).shape.center();
        let turn = rotation * link.rotation.inverse();
        if shift == supple::Vec3::zeros() && turn == Quat::IDENTITY {
            continue;
        }
        link.rotation = rotation;
        if let Err(e) = world.move_collider(link.handle, shift, rotation_to_supple(turn)) {
            errors.write(SuppleError::at(entity, e.argument, e.message));
        }
    }
}

/// Simulates one frame, unless paused; a simulation that blows up pauses the world and says
/// which body and frame.
pub(crate) fn step(
    mut sim: ResMut<SuppleWorld>,
    mut control: ResMut<SuppleControl>,
    mut errors: MessageWriter<SuppleError>,
) {
    if control.paused {
        if control.steps == 0 {
            return;
        }
        control.steps -= 1;
    }
    let SuppleWorld { world, pool, .. } = &mut *sim;
    let stepped = match pool {
        Some(pool) => pool.install(|| world.step()),
        None => world.step(),
    };
    if let Err(e) = stepped {
        control.paused = true;
        let body = match &e {
            SimError::NonFinite { body, .. } | SimError::Diverged { body, .. } => body,
        };
        errors.write(SuppleError {
            entity: sim.entity_of(body),
            key: None,
            message: e.to_string(),
        });
    }
}

/// Writes each body's surface into its mesh (positions and normals, in place), once per
/// simulated frame.
pub(crate) fn write_meshes(
    mut sim: ResMut<SuppleWorld>,
    mut meshes: ResMut<Assets<Mesh>>,
    transforms: Query<&GlobalTransform>,
    mut errors: MessageWriter<SuppleError>,
) {
    let frame = sim.world.frame();
    if sim.written == Some(frame) {
        return;
    }
    sim.written = Some(frame);
    let SuppleWorld { world, bodies, .. } = &mut *sim;
    let x = &world.particles().x;
    for (&entity, link) in bodies.iter_mut() {
        let Some((id, render)) = &mut link.render else {
            continue;
        };
        let (Ok(at), Some(mut mesh)) = (transforms.get(entity), meshes.get_mut(*id)) else {
            continue;
        };
        if let Err(e) = render.write(
            world.body(link.handle),
            x,
            &at.affine().inverse(),
            &mut mesh,
        ) {
            errors.write(SuppleError::at(entity, "mesh", e.to_string()));
            link.render = None;
        }
    }
}
