//! From raw tables to a world: each table becomes a description of the construction API, which
//! the world checks and builds; the scene-only keys (model names, pins by grid coordinates,
//! mesh files, placement) are read here.

use super::SceneError;
use super::keys::{Ctx, KeyPath};
use super::raw::{
    RawCloth, RawCollider, RawPin, RawPins, RawRope, RawRopePins, RawScene, RawShape, RawSoftBody,
    RawSolver, RawStiffness, RawWind,
};
use crate::bodies::cloth::{self, BendKind, ClothDesc, Diagonals, Orientation};
use crate::bodies::rope::RopeDesc;
use crate::bodies::soft_body::{SoftBodyDesc, SoftMaterial, SoftModel, fit_scale, place_mesh};
use crate::bodies::tear::Tear;
use crate::collision::{Collider, MeshShape, Motion, Shape};
use crate::constraints::contact::DEFAULT_FRICTION;
use crate::constraints::{ContactMaterial, Stiffness};
use crate::handles::ColliderHandle;
use crate::math::{Quat, Real, Vec3};
use crate::params::{SolverMethod, SolverParams};
use crate::shape_matching::ClusterMaterial;
use crate::wind::Gust;
use crate::world::World;

/// Checks every value of `raw` and builds the world: colliders (which cloth pins may name), then
/// ropes, cloths and soft bodies.
pub(super) fn build(raw: &RawScene, ctx: &Ctx) -> Result<World, SceneError> {
    let mut world =
        World::new(solver(&raw.solver, ctx)?).map_err(|e| ctx.at(&KeyPath::table("solver"), e))?;
    let mut named: Vec<(&str, ColliderHandle)> = Vec::new();
    for (n, c) in raw.collider.iter().enumerate() {
        let key = KeyPath::item("collider", n);
        let desc = collider(c, &key, ctx)?;
        let handle = world.add_collider(desc).map_err(|e| ctx.at(&key, e))?;
        if let Some(name) = &c.name {
            ctx.check(
                named.iter().all(|(m, _)| m != name),
                &key.key("name"),
                || format!("= \"{name}\": another collider already has this name"),
            )?;
            named.push((name, handle));
        }
    }
    for (n, r) in raw.rope.iter().enumerate() {
        let key = KeyPath::item("rope", n);
        let desc = rope(r, &key, &named, ctx)?;
        world.add_rope(&desc).map_err(|e| ctx.at(&key, e))?;
    }
    for (n, c) in raw.cloth.iter().enumerate() {
        let key = KeyPath::item("cloth", n);
        let desc = cloth(c, &key, &named, ctx)?;
        world.add_cloth(&desc).map_err(|e| ctx.at(&key, e))?;
    }
    for (n, s) in raw.soft_body.iter().enumerate() {
        let key = KeyPath::item("soft_body", n);
        let desc = soft_body(s, &key, ctx)?;
        world.add_soft_body(&desc).map_err(|e| ctx.at(&key, e))?;
    }
    Ok(world)
}

fn solver(raw: &RawSolver, ctx: &Ctx) -> Result<SolverParams, SceneError> {
    let key = KeyPath::table("solver");
    let method = SolverMethod::from_name(&raw.method).ok_or_else(|| {
        ctx.invalid(
            &key.key("method"),
            format!(
                "= \"{}\": expected one of {}",
                raw.method,
                SolverMethod::NAMES.join(", ")
            ),
        )
    })?;
    Ok(SolverParams {
        dt: raw.dt,
        substeps: ctx.count(raw.substeps, &key.key("substeps"), 1)?,
        iterations: ctx.count(raw.iterations, &key.key("iterations"), 1)?,
        method,
        gravity: raw.gravity.into(),
        damping: raw.damping,
        wind: match &raw.wind {
            RawWind::Steady(w) => (*w).into(),
            RawWind::Gusty(g) => g.mean.into(),
        },
        gust: match &raw.wind {
            RawWind::Steady(_) => None,
            RawWind::Gusty(g) => Some(Gust {
                amplitude: g.amplitude,
                period: g.period,
                wavelength: g.wavelength,
                seed: g.seed,
            }),
        },
        max_displacement: raw.max_displacement,
        max_strain: raw.max_strain,
        shake: raw.shake,
    })
}

/// The shape-matching cluster of a rope or cloth table with `shape`: a material that keeps the
/// body's rest shape (rigid at stiffness 1).
fn shape_cluster(raw: &Option<RawShape>) -> Option<ClusterMaterial> {
    raw.as_ref()
        .map(|r| Ctx::cluster_material(r, ClusterMaterial::default()))
}

fn rope(
    r: &RawRope,
    key: &KeyPath,
    colliders: &[(&str, ColliderHandle)],
    ctx: &Ctx,
) -> Result<RopeDesc, SceneError> {
    let (pin, pin_key, collider) = match &r.pin {
        RawRopePins::List(at) => (at, key.key("pin"), None),
        RawRopePins::Carried(t) => (&t.at, key.key("pin").key("at"), Some(&t.collider)),
    };
    for (n, p) in pin.iter().enumerate() {
        ctx.check(p == "start" || p == "end", &pin_key.index(n), || {
            format!("= \"{p}\": expected \"start\" or \"end\"")
        })?;
    }
    let pin_collider = collider
        .map(|name| named_collider(name, colliders, key, ctx))
        .transpose()?;
    Ok(RopeDesc {
        name: r.name.clone().unwrap_or_default(),
        pin_start: pin.iter().any(|p| p == "start"),
        pin_end: pin.iter().any(|p| p == "end"),
        pin_collider,
        stretch: ctx.stiffness_or_rigid(&r.stretch, &key.key("stretch"))?,
        bend: r
            .bend
            .as_ref()
            .map(|b| ctx.stiffness(b, &key.key("bend"), false).map(|s| s.0))
            .transpose()?,
        thickness: r.thickness,
        damping: r.damping,
        shape: shape_cluster(&r.shape),
        long_range: r.long_range,
        stretch_limit: r.stretch_limit,
        ..RopeDesc::new(
            r.start.into(),
            r.end.into(),
            ctx.count(r.segments, &key.key("segments"), 1)?,
            r.mass,
        )
    })
}

/// The collider called `name`, which carries the pins of the body at `key` (an error at its
/// `pin.collider` listing the named colliders otherwise).
fn named_collider(
    name: &str,
    colliders: &[(&str, ColliderHandle)],
    key: &KeyPath,
    ctx: &Ctx,
) -> Result<ColliderHandle, SceneError> {
    colliders
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, h)| h)
        .ok_or_else(|| {
            let names: Vec<&str> = colliders.iter().map(|(n, _)| *n).collect();
            ctx.invalid(
                &key.key("pin").key("collider"),
                format!(
                    "= \"{name}\": no collider has this name (named colliders: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            )
        })
}

/// A cloth's pins as its `pin` key gives them: the list, its key, the edges of a carried `pin`
/// table with their key, and the collider that carries them.
struct Pins<'r, 'k> {
    at: &'r [RawPin],
    at_key: KeyPath<'k>,
    edges: Vec<(&'r [String], KeyPath<'k>)>,
    collider: Option<&'r str>,
}

fn pins<'r, 'k>(c: &'r RawCloth, key: &KeyPath<'k>) -> Pins<'r, 'k> {
    let pin_edges = (c.pin_edges.as_slice(), key.key("pin_edges"));
    match &c.pin {
        RawPins::List(at) => Pins {
            at,
            at_key: key.key("pin"),
            edges: vec![pin_edges],
            collider: None,
        },
        RawPins::Carried(t) => Pins {
            at: &t.at,
            at_key: key.key("pin").key("at"),
            edges: vec![(t.edges.as_slice(), key.key("pin").key("edges")), pin_edges],
            collider: Some(&t.collider),
        },
    }
}

fn cloth(
    c: &RawCloth,
    key: &KeyPath,
    colliders: &[(&str, ColliderHandle)],
    ctx: &Ctx,
) -> Result<ClothDesc, SceneError> {
    let pins = pins(c, key);
    let pin_collider = pins
        .collider
        .map(|name| named_collider(name, colliders, key, ctx))
        .transpose()?;
    let grid_only = |present: bool, k: &'static str| {
        ctx.check(!present, &key.key(k), || {
            "applies only to a grid cloth (`resolution`), not to a mesh cloth".into()
        })
    };
    let mesh_only = |present: bool, k: &'static str| {
        ctx.check(!present, &key.key(k), || {
            "applies only to a mesh cloth (`mesh`), not to a grid cloth".into()
        })
    };
    let center = c
        .center
        .map(|v| ctx.vec3(v, &key.key("center")))
        .transpose()?;
    let rotation = ctx.rotation(c.rotation, &key.key("rotation"))?;
    let mut desc = match (&c.resolution, &c.mesh) {
        (Some(_), Some(_)) => {
            return Err(ctx.invalid(
                &key.key("mesh"),
                "and `resolution` are both given: expected one (a mesh cloth or a grid cloth)",
            ));
        }
        (None, None) => {
            return Err(ctx.invalid(
                key,
                "has neither `resolution` nor `mesh`: expected one (a grid cloth or a mesh cloth)",
            ));
        }
        (Some(res), None) => {
            mesh_only(c.scale.is_some(), "scale")?;
            mesh_only(c.weld.is_some(), "weld")?;
            let nx = ctx.count(res[0], &key.key("resolution"), 2)?;
            let nz = ctx.count(res[1], &key.key("resolution"), 2)?;
            let orientation = match c.orientation.as_deref().unwrap_or("horizontal") {
                "horizontal" => Orientation::Horizontal,
                "vertical" => Orientation::Vertical,
                o => {
                    return Err(ctx.invalid(
                        &key.key("orientation"),
                        format!("= \"{o}\": expected \"horizontal\" or \"vertical\""),
                    ));
                }
            };
            let size = c.size.unwrap_or([1.0, 1.0]);
            let at = center.unwrap_or_default();
            let diagonals = c
                .diagonals
                .as_deref()
                .map_or(Ok(Diagonals::Alternating), Diagonals::from_name)
                .map_err(|e| ctx.at(key, e))?;
            let mut desc = ClothDesc::grid_with([nx, nz], size, at, orientation, diagonals, c.mass)
                .map_err(|e| ctx.at(key, e))?;
            if let Some(r) = rotation {
                cloth::place(&mut desc.positions, r, center);
            }
            desc.pin = grid_pins(&pins, nx, nz, ctx)?;
            desc.shear = ctx.stiffness_or_rigid(&c.shear, &key.key("shear"))?;
            desc
        }
        (None, Some(file)) => {
            grid_only(c.size.is_some(), "size")?;
            grid_only(c.orientation.is_some(), "orientation")?;
            for (edges, k) in &pins.edges {
                ctx.check(edges.is_empty(), k, || {
                    "applies only to a grid cloth (`resolution`), not to a mesh cloth".into()
                })?;
            }
            grid_only(c.diagonals.is_some(), "diagonals")?;
            grid_only(c.shear.is_some(), "shear")?;
            let mesh = ctx.load_mesh(file, &key.key("mesh"), false)?;
            let scale =
                ctx.positive(c.scale.unwrap_or(1.0), &key.key("scale"), "a scale factor")?;
            let mut x: Vec<Vec3> = mesh.positions.iter().map(|p| p * scale).collect();
            if center.is_some() || rotation.is_some() {
                cloth::place(&mut x, rotation.unwrap_or_else(Quat::identity), center);
            }
            let mut pin = Vec::new();
            for (n, p) in pins.at.iter().enumerate() {
                match *p {
                    RawPin::Vertex(v) if v >= 0 => pin.push(v as usize),
                    RawPin::Vertex(v) => {
                        return Err(ctx.invalid(
                            &pins.at_key.index(n),
                            format!(
                                "= {v}: expected a vertex index in 0..{} (the mesh's vertices, 0-based)",
                                x.len()
                            ),
                        ));
                    }
                    RawPin::Grid(_) => {
                        return Err(ctx.invalid(
                            &pins.at_key.index(n),
                            "is an [i, j] pair: a mesh cloth is pinned by vertex index (0-based)",
                        ));
                    }
                }
            }
            ClothDesc {
                pin,
                weld: c.weld,
                ..ClothDesc::mesh(x, mesh.triangles, c.mass)
            }
        }
    };
    let (bend, kind) = match &c.bend {
        Some(b) => {
            let (s, kind) = ctx.stiffness(b, &key.key("bend"), true)?;
            (Some(s), kind)
        }
        None => (None, BendKind::Dihedral),
    };
    desc.name = c.name.clone().unwrap_or_default();
    desc.stretch = ctx.stiffness_or_rigid(&c.stretch, &key.key("stretch"))?;
    desc.bend = bend.map(|s| (s, kind));
    desc.thickness = c.thickness;
    desc.damping = c.damping;
    desc.drag = c.drag;
    desc.lift = c.lift;
    desc.self_collision = c.self_collision;
    desc.shape = shape_cluster(&c.shape);
    desc.long_range = c.long_range;
    desc.stretch_limit = c.stretch_limit;
    desc.tear = c.tear.as_ref().map(|t| Tear { strain: t.strain });
    desc.pin_collider = pin_collider;
    Ok(desc)
}

/// The particles pinned by `pin = [[i, j], ..]` and `pin_edges = ["i=0", ..]` (or a carried
/// `pin` table's `at` and `edges`) on an `nx × nz` grid.
fn grid_pins(pins: &Pins, nx: u32, nz: u32, ctx: &Ctx) -> Result<Vec<usize>, SceneError> {
    let resolve = |v: i64, n: u32| {
        let v = if v < 0 { v + i64::from(n) } else { v };
        (0..i64::from(n)).contains(&v).then_some(v as u32)
    };
    let mut pinned = Vec::new();
    for (n, p) in pins.at.iter().enumerate() {
        let pk = pins.at_key.index(n);
        match *p {
            RawPin::Grid([i, j]) => match (resolve(i, nx), resolve(j, nz)) {
                (Some(i), Some(j)) => pinned.push(ClothDesc::grid_index(nx, i, j)),
                _ => return Err(ctx.invalid(&pk, format!("= [{i}, {j}]: expected i in -{nx}..{nx} and j in -{nz}..{nz} (negative counts from the end)"))),
            },
            RawPin::Vertex(_) => return Err(ctx.invalid(&pk, "is a single index: a grid cloth is pinned by [i, j] pairs")),
        }
    }
    let edges = pins
        .edges
        .iter()
        .flat_map(|(list, k)| list.iter().enumerate().map(move |(n, e)| (e, k.index(n))));
    for (edge, edge_key) in edges {
        let at = |i: u32, j: u32| ClothDesc::grid_index(nx, i, j);
        let cells: Vec<usize> = match edge.as_str() {
            "i=0" => (0..nz).map(|j| at(0, j)).collect(),
            "i=-1" => (0..nz).map(|j| at(nx - 1, j)).collect(),
            "j=0" => (0..nx).map(|i| at(i, 0)).collect(),
            "j=-1" => (0..nx).map(|i| at(i, nz - 1)).collect(),
            other => {
                return Err(ctx.invalid(
                    &edge_key,
                    format!("= \"{other}\": expected \"i=0\", \"i=-1\", \"j=0\" or \"j=-1\""),
                ));
            }
        };
        pinned.extend(cells);
    }
    Ok(pinned)
}

fn soft_body(s: &RawSoftBody, key: &KeyPath, ctx: &Ctx) -> Result<SoftBodyDesc, SceneError> {
    let defaults = SoftMaterial::default();
    let model = match &s.model {
        None => defaults.model,
        Some(m) => SoftModel::from_name(m).ok_or_else(|| {
            let names: Vec<&str> = SoftModel::ALL.iter().map(|m| m.name()).collect();
            ctx.invalid(
                &key.key("model"),
                format!("= \"{m}\": expected one of {}", names.join(", ")),
            )
        })?,
    };
    let applies = |present: bool, k: &'static str, ok: &[SoftModel]| {
        ctx.check(!present || ok.contains(&model), &key.key(k), || {
            let names: Vec<&str> = ok.iter().map(|m| m.name()).collect();
            format!(
                "does not apply to model \"{}\" (only to {})",
                model.name(),
                names.join(", ")
            )
        })
    };
    use SoftModel::{Clusters, Rigid, Surface, Tets};
    applies(
        s.resolution.is_some(),
        "resolution",
        &[Tets, Clusters, Rigid],
    )?;
    applies(s.edge.is_some(), "edge", &[Tets, Surface])?;
    applies(s.volume.is_some(), "volume", &[Tets, Surface])?;
    applies(s.bend.is_some(), "bend", &[Surface])?;
    applies(s.pressure.is_some(), "pressure", &[Surface])?;
    applies(s.shape.is_some(), "shape", &[Clusters, Rigid])?;
    let stiffness = |raw: &Option<RawStiffness>, k: &'static str, default| {
        raw.as_ref()
            .map_or(Ok(default), |r| Ok(ctx.stiffness(r, &key.key(k), false)?.0))
    };
    let shape_default = ClusterMaterial {
        stiffness: if model == Rigid {
            1.0
        } else {
            defaults.shape.stiffness
        },
        ..defaults.shape
    };
    let material = SoftMaterial {
        model,
        resolution: s
            .resolution
            .map(|r| ctx.count(r, &key.key("resolution"), 1))
            .transpose()?
            .unwrap_or(defaults.resolution),
        edge: stiffness(&s.edge, "edge", defaults.edge)?,
        volume: stiffness(&s.volume, "volume", defaults.volume)?,
        bend: stiffness(&s.bend, "bend", defaults.bend)?,
        pressure: s.pressure.unwrap_or(defaults.pressure),
        shape: s
            .shape
            .as_ref()
            .map_or(shape_default, |r| Ctx::cluster_material(r, shape_default)),
        thickness: s.thickness,
        damping: s.damping,
    };
    let solid = matches!(material.volume, Stiffness::ElasticSolid { .. });
    ctx.check(!(solid && s.edge.is_some()), &key.key("edge"), || {
        "does not apply when `volume` is an elastic solid (its Neo-Hookean tets hold the shape)"
            .into()
    })?;
    let center = s
        .center
        .map(|v| ctx.vec3(v, &key.key("center")))
        .transpose()?;
    let rotation = ctx.rotation(s.rotation, &key.key("rotation"))?;
    let mut mesh = ctx.load_mesh(&s.mesh, &key.key("mesh"), true)?;
    let scale = match (s.fit, s.scale) {
        (Some(_), Some(_)) => {
            return Err(ctx.invalid(
                &key.key("scale"),
                "and `fit` are both given: expected one (a scale factor or a size in m)",
            ));
        }
        (Some(fit), None) => fit_scale(&mesh, ctx.positive(fit, &key.key("fit"), "a size in m")?),
        (None, scale) => ctx.positive(scale.unwrap_or(1.0), &key.key("scale"), "a scale factor")?,
    };
    place_mesh(
        &mut mesh,
        scale,
        rotation.unwrap_or_else(Quat::identity),
        center,
    );
    Ok(SoftBodyDesc {
        name: s.name.clone().unwrap_or_default(),
        material,
        ..SoftBodyDesc::new(mesh, s.mass)
    })
}

fn collider(c: &RawCollider, key: &KeyPath, ctx: &Ctx) -> Result<Collider, SceneError> {
    let need = |v: Option<[Real; 3]>, k: &'static str| -> Result<Vec3, SceneError> {
        let v = v.ok_or_else(|| ctx.invalid(key, format!("is a {} and needs `{k}`", c.shape)))?;
        Ok(Vec3::from(v))
    };
    let given = [
        ("point", c.point.is_some()),
        ("normal", c.normal.is_some()),
        ("center", c.center.is_some()),
        ("radius", c.radius.is_some()),
        ("half_extents", c.half_extents.is_some()),
        ("rotation", c.rotation.is_some()),
        ("a", c.a.is_some()),
        ("b", c.b.is_some()),
        ("mesh", c.mesh.is_some()),
        ("position", c.position.is_some()),
        ("scale", c.scale.is_some()),
    ];
    let allowed = Shape::keys(&c.shape).map_err(|e| ctx.at(key, e))?;
    for (k, present) in given {
        ctx.check(!present || allowed.contains(&k), &key.key(k), || {
            format!("does not apply to a {}", c.shape)
        })?;
    }
    let radius = || {
        c.radius
            .ok_or_else(|| ctx.invalid(key, format!("is a {} and needs `radius`", c.shape)))
    };
    let rotation = || {
        Ok::<_, SceneError>(
            ctx.rotation(c.rotation, &key.key("rotation"))?
                .unwrap_or_else(Quat::identity),
        )
    };
    let shape = match c.shape.as_str() {
        "plane" => Shape::Plane {
            point: need(c.point.or(Some([0.0; 3])), "point")?,
            normal: need(c.normal.or(Some([0.0, 1.0, 0.0])), "normal")?,
        },
        "sphere" => Shape::Sphere {
            center: need(c.center, "center")?,
            radius: radius()?,
        },
        "box" => Shape::Box {
            center: need(c.center, "center")?,
            half_extents: need(c.half_extents, "half_extents")?,
            rotation: rotation()?,
        },
        "capsule" => Shape::Capsule {
            a: need(c.a, "a")?,
            b: need(c.b, "b")?,
            radius: radius()?,
        },
        _ => {
            let file = c
                .mesh
                .as_ref()
                .ok_or_else(|| ctx.invalid(key, "is a mesh and needs `mesh` (an OBJ file)"))?;
            let mesh = ctx.load_mesh(file, &key.key("mesh"), false)?;
            let scale =
                ctx.positive(c.scale.unwrap_or(1.0), &key.key("scale"), "a scale factor")?;
            Shape::Mesh {
                mesh: std::sync::Arc::new(MeshShape::new(&mesh, scale)),
                position: need(c.position.or(Some([0.0; 3])), "position")?,
                rotation: rotation()?,
            }
        }
    };
    let friction = c.friction.unwrap_or(DEFAULT_FRICTION);
    crate::validate::non_negative(friction, "friction").map_err(|e| ctx.at(key, e))?;
    let motion = c.motion.as_ref().map_or(Motion::default(), |m| Motion {
        velocity: m.velocity.unwrap_or_default().into(),
        spin: m.spin.unwrap_or_default().into(),
    });
    Ok(Collider {
        name: c.name.clone().unwrap_or_default(),
        shape,
        material: ContactMaterial {
            static_friction: c.static_friction.unwrap_or(friction),
            kinetic_friction: c.kinetic_friction.unwrap_or(friction),
            restitution: c.restitution,
        },
        stiffness: ctx.stiffness_or_rigid(&c.stiffness, &key.key("stiffness"))?,
        motion,
        solid: true,
    })
}
