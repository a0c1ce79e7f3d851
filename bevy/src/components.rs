//! The components that put an entity in the simulation.

use bevy::color::{Color, ColorToComponents};
use bevy::ecs::entity::Entity;
use bevy::math::Vec3;
use bevy::mesh::{Mesh, MeshVertexAttribute, VertexAttributeValues};
use bevy::prelude::{Component, Transform};
use supple::{ClothDesc, ContactMaterial, SoftBodyDesc, SoftModel, TriMesh};

/// A cloth. Its description gives the materials (the keys of a scene's `[[cloth]]` table:
/// `stretch`, `shear`, `bend`, `thickness`, `damping`, `drag`, `self_collision`, ...) and,
/// when its `positions` are empty, the entity's own [`Mesh3d`](bevy::mesh::Mesh3d) gives the
/// cloth's vertices and triangles. Positions are in the entity's frame: the cloth starts where
/// the entity's [`GlobalTransform`](bevy::prelude::GlobalTransform) puts them, and then moves on
/// its own (pin it with [`SupplePin`] to make it follow something). The entity's mesh (one is
/// made when it has none) shows the cloth.
#[derive(Component, Clone, Debug)]
#[require(Transform)]
pub struct SuppleCloth {
    /// The cloth, with its pins (`pin`: vertex indices).
    pub desc: ClothDesc,
    /// More pins, chosen by a vertex attribute or color of the entity's mesh.
    pub pin_where: Option<PinWhere>,
}

impl SuppleCloth {
    /// A cloth of `mass` kg from the entity's own mesh, with the default materials of a
    /// scene's `[[cloth]]`.
    pub fn from_mesh(mass: f32) -> Self {
        SuppleCloth::new(ClothDesc::mesh(Vec::new(), Vec::new(), mass))
    }

    /// The cloth `desc` (its `positions` in the entity's frame, or empty for the entity's mesh).
    pub fn new(desc: ClothDesc) -> Self {
        SuppleCloth {
            desc,
            pin_where: None,
        }
    }

    /// Pins these vertices where they start.
    pub fn pinned(mut self, vertices: impl IntoIterator<Item = usize>) -> Self {
        self.desc.pin.extend(vertices);
        self
    }

    /// Pins the vertices of the entity's mesh that `pin_where` selects.
    pub fn pinned_where(mut self, pin_where: PinWhere) -> Self {
        self.pin_where = Some(pin_where);
        self
    }
}

/// Vertices of a mesh chosen by a vertex attribute, to pin them.
#[derive(Clone, Debug, PartialEq)]
pub enum PinWhere {
    /// Vertices whose color ([`Mesh::ATTRIBUTE_COLOR`]) is within 0.1 of this one in each of
    /// red, green and blue (painted pins).
    Color(Color),
    /// Vertices whose value of this `Float32` attribute is above 0.5 (a pin weight painted 1).
    Attribute(MeshVertexAttribute),
}

impl PinWhere {
    /// The vertices of `mesh` it selects, or why it cannot select any.
    pub fn select(&self, mesh: &Mesh) -> Result<Vec<usize>, String> {
        let (id, name) = match self {
            PinWhere::Color(_) => (Mesh::ATTRIBUTE_COLOR, "ATTRIBUTE_COLOR"),
            PinWhere::Attribute(a) => (*a, a.name),
        };
        let values = mesh
            .try_attribute(id)
            .map_err(|_| format!("has no vertex attribute {name} to choose pins by"))?;
        let chosen: Vec<usize> = match (self, values) {
            (PinWhere::Color(color), VertexAttributeValues::Float32x4(colors)) => {
                let want = color.to_linear().to_f32_array();
                colors
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| (0..3).all(|k| (c[k] - want[k]).abs() <= 0.1))
                    .map(|(i, _)| i)
                    .collect()
            }
            (PinWhere::Attribute(_), VertexAttributeValues::Float32(w)) => w
                .iter()
                .enumerate()
                .filter(|&(_, &w)| w > 0.5)
                .map(|(i, _)| i)
                .collect(),
            _ => {
                return Err(format!(
                    "has vertex attribute {name} in another format: expected Float32x4 colors or Float32 weights"
                ));
            }
        };
        Ok(chosen)
    }
}

/// A soft body. Its description gives the model (`tets`, `clusters`, `rigid`, `surface`) and
/// materials (the keys of a scene's `[[soft_body]]` table); when its mesh is empty, the
/// entity's own [`Mesh3d`](bevy::mesh::Mesh3d) gives it, in the entity's frame. The entity's
/// mesh follows the body's surface: each of its vertices follows the surface vertex at its
/// place, so that a mesh split along its creases and seams keeps them.
#[derive(Component, Clone, Debug)]
#[require(Transform)]
pub struct SuppleSoftBody {
    /// The soft body.
    pub desc: SoftBodyDesc,
}

impl SuppleSoftBody {
    /// A soft body of `mass` kg and `model` from the entity's own mesh, with the default
    /// materials of a scene's `[[soft_body]]`.
    pub fn from_mesh(mass: f32, model: SoftModel) -> Self {
        let mut desc = SoftBodyDesc::new(TriMesh::default(), mass);
        desc.material.model = model;
        SuppleSoftBody { desc }
    }
}

/// A collider that follows the entity's [`GlobalTransform`](bevy::prelude::GlobalTransform):
/// moving the entity moves the collider over the next simulated frame at the velocity that
/// takes it there, so that the cloth it pushes is dragged by its friction. The shape is in
/// the entity's frame, centred at its origin and scaled by its scale.
#[derive(Component, Clone, Debug)]
#[require(Transform)]
pub struct SuppleCollider {
    /// The shape.
    pub shape: ColliderShape,
    /// Friction and restitution (default: friction 0.3, no bounce).
    pub material: ContactMaterial,
    /// Whether particles collide with it (default true); one that is not solid only carries
    /// the pins attached to it.
    pub solid: bool,
}

impl SuppleCollider {
    /// A solid collider of `shape` with the default material.
    pub fn new(shape: ColliderShape) -> Self {
        SuppleCollider {
            shape,
            material: ContactMaterial::default(),
            solid: true,
        }
    }

    /// Its friction, static and kinetic.
    pub fn with_friction(mut self, friction: f32) -> Self {
        self.material.static_friction = friction;
        self.material.kinetic_friction = friction;
        self
    }
}

/// The shape of a [`SuppleCollider`], in its entity's frame.
#[derive(Clone, Debug, PartialEq)]
pub enum ColliderShape {
    /// The plane y = 0 of the entity, solid below (an infinite ground).
    Plane,
    /// A ball of `radius` m about the origin.
    Sphere {
        /// Radius, m.
        radius: f32,
    },
    /// A box of half sides `half_size` m about the origin.
    Cuboid {
        /// Half the side along x, y and z, m.
        half_size: Vec3,
    },
    /// A capsule along y, as Bevy's `Capsule3d`: `radius` m about the segment from
    /// y = −`half_length` to `half_length`.
    Capsule {
        /// Radius, m.
        radius: f32,
        /// Half the length of its axis, m.
        half_length: f32,
    },
    /// The entity's own [`Mesh3d`](bevy::mesh::Mesh3d), as a triangle mesh.
    Mesh,
}

/// Attaches vertices of the entity's body (a [`SuppleCloth`] or [`SuppleSoftBody`]) to
/// another entity, which carries them with its
/// [`GlobalTransform`](bevy::prelude::GlobalTransform): a cape held by a character's
/// shoulders, a flag on a moving pole. A target with a [`SuppleCollider`] carries them as its
/// collider; any other entity through a collider that touches nothing. Removing the component
/// frees the vertices.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct SupplePin {
    /// The entity that carries the vertices.
    pub target: Entity,
    /// The body's vertices (indices into its mesh).
    pub vertices: Vec<usize>,
    /// Where each vertex is held, in the target's frame; empty: where they are when pinned.
    pub offsets: Vec<Vec3>,
}

impl SupplePin {
    /// Attaches `vertices` to `target` where they are.
    pub fn new(target: Entity, vertices: impl IntoIterator<Item = usize>) -> Self {
        SupplePin {
            target,
            vertices: vertices.into_iter().collect(),
            offsets: Vec::new(),
        }
    }

    /// Holds vertex `vertices[k]` at `offsets[k]` in the target's frame.
    pub fn at(mut self, offsets: Vec<Vec3>) -> Self {
        self.offsets = offsets;
        self
    }
}

/// The body of an entity in the [`SuppleWorld`](crate::SuppleWorld): added by the plugin to
/// the entity of a [`SuppleCloth`] or [`SuppleSoftBody`] once it is built, and by a scene to
/// the entities it spawns. Despawning the entity (or removing this) removes the body.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct SuppleBody {
    /// The body's name in the world ([`supple::World::body_named`]).
    pub name: String,
}

/// Marks an entity whose description could not be built (a [`SuppleError`](crate::SuppleError)
/// said why): the plugin leaves it alone until this is removed.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct SuppleFailed;
