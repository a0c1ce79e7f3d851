//! Scene files: TOML in, a [`World`] out, with errors that name the file, the line and the key.
//!
//! The format is documented in the README ("Scene files"), with every default. Loading happens in
//! two passes: serde reads the document into the raw tables below (unknown keys and wrong types
//! fail there, with the line from the parser), then `build` checks every value's range and
//! builds the world, naming the line of a bad value through a second, span-keeping parse.

use crate::bodies::cloth::{self, BendKind, ClothMaterial};
use crate::bodies::rope::{self, RopeSpec};
use crate::bodies::soft_body::{
    SoftBodyError, SoftMaterial, SoftModel, add_soft_body, fit_scale, place_mesh,
};
use crate::collision::{Collider, MeshShape, Motion, Shape};
use crate::constraints::contact::DEFAULT_FRICTION;
use crate::constraints::{ContactMaterial, Stiffness};
use crate::math::{Quat, Real, Vec3};
use crate::mesh::TriMesh;
use crate::mesh::clean::{clean, default_weld_tolerance};
use crate::mesh::obj::{ObjError, load_obj};
use crate::params::{SolverMethod, SolverParams};
use crate::shape_matching::ClusterMaterial;
use crate::world::World;
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};
use toml::de::{DeTable, DeValue};

/// A scene that failed to load.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("{path}: cannot read the scene file: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// The TOML is malformed, a key is unknown or a value has the wrong type.
    #[error("{path}:{line}: {message}{context}")]
    Syntax {
        path: String,
        line: usize,
        message: String,
        context: String,
    },
    /// A value is out of range or inconsistent.
    #[error("{path}{}: `{key}` {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Invalid {
        path: String,
        line: Option<usize>,
        key: String,
        message: String,
    },
    /// A mesh named by the scene failed to load.
    #[error("{path}{}: `{key}`: {source}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Mesh {
        path: String,
        line: Option<usize>,
        key: String,
        source: Box<ObjError>,
    },
    /// A mesh cannot become the soft body asked for.
    #[error("{path}{}: `{key}`: {source}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    SoftBody {
        path: String,
        line: Option<usize>,
        key: String,
        source: SoftBodyError,
    },
}

/// A loaded scene.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The scene's name: the file stem.
    pub name: String,
    /// The world it describes, at frame 0.
    pub world: World,
}

/// Reads and builds the scene file at `path`.
pub fn load_scene(path: &Path) -> Result<Scene, SceneError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| SceneError::Io {
        path: shown.clone(),
        source,
    })?;
    let name = path
        .file_stem()
        .map_or_else(|| "scene".to_string(), |s| s.to_string_lossy().into_owned());
    let world = parse_scene(&text, path)?;
    Ok(Scene { name, world })
}

/// Builds a world from scene text; `path` names the file in messages and anchors relative mesh
/// paths.
pub fn parse_scene(text: &str, path: &Path) -> Result<World, SceneError> {
    let shown = path.display().to_string();
    let raw: RawScene = toml::from_str(text).map_err(|e| {
        let (line, col) = e.span().map_or((1, 1), |s| line_col(text, s.start));
        let source_line = text.lines().nth(line - 1).unwrap_or("").trim();
        let context = if source_line.is_empty() {
            String::new()
        } else {
            format!(" (column {col}: `{source_line}`)")
        };
        SceneError::Syntax {
            path: shown.clone(),
            line,
            message: e.message().to_string(),
            context,
        }
    })?;
    let doc = DeTable::parse(text).ok();
    let ctx = Ctx {
        path: shown,
        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        text,
        doc: doc.as_ref().map(|d| d.get_ref()),
    };
    build(&raw, &ctx)
}

/// 1-based line and column of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

// ---------------------------------------------------------------------------------------------
// Raw tables, as serde reads them. Defaults are the documented ones.

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawScene {
    #[serde(default)]
    solver: RawSolver,
    #[serde(default)]
    rope: Vec<RawRope>,
    #[serde(default)]
    cloth: Vec<RawCloth>,
    #[serde(default)]
    soft_body: Vec<RawSoftBody>,
    #[serde(default)]
    collider: Vec<RawCollider>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawSolver {
    dt: Real,
    substeps: i64,
    iterations: i64,
    method: String,
    gravity: [Real; 3],
    damping: Real,
    wind: [Real; 3],
    max_displacement: Real,
}

impl Default for RawSolver {
    fn default() -> Self {
        let p = SolverParams::default();
        RawSolver {
            dt: p.dt,
            substeps: p.substeps.into(),
            iterations: p.iterations.into(),
            method: p.method.name().to_string(),
            gravity: p.gravity.into(),
            damping: p.damping,
            wind: p.wind.into(),
            max_displacement: p.max_displacement,
        }
    }
}

/// A stiffness table: `{ model = "pbd" | "pbd_corrected", k = .. }` or
/// `{ model = "xpbd", compliance = .., damping = .. }`, plus `kind` for cloth bending.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RawStiffness {
    model: String,
    k: Option<Real>,
    compliance: Option<Real>,
    damping: Option<Real>,
    kind: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRope {
    name: Option<String>,
    start: [Real; 3],
    end: [Real; 3],
    segments: i64,
    mass: Real,
    #[serde(default)]
    pin: Vec<String>,
    stretch: Option<RawStiffness>,
    bend: Option<RawStiffness>,
    #[serde(default = "default_thickness")]
    thickness: Real,
    #[serde(default)]
    damping: Real,
    shape: Option<RawShape>,
}

/// A cloth pin: `[i, j]` on a grid cloth, a vertex index on a mesh cloth.
#[derive(Deserialize, Clone, Copy)]
#[serde(untagged)]
enum RawPin {
    Grid([i64; 2]),
    Vertex(i64),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCloth {
    name: Option<String>,
    resolution: Option<[i64; 2]>,
    size: Option<[Real; 2]>,
    center: Option<[Real; 3]>,
    orientation: Option<String>,
    mesh: Option<String>,
    scale: Option<Real>,
    rotation: Option<[Real; 3]>,
    mass: Real,
    #[serde(default)]
    pin: Vec<RawPin>,
    #[serde(default)]
    pin_edges: Vec<String>,
    stretch: Option<RawStiffness>,
    shear: Option<RawStiffness>,
    bend: Option<RawStiffness>,
    #[serde(default = "default_thickness")]
    thickness: Real,
    #[serde(default)]
    damping: Real,
    #[serde(default)]
    drag: Real,
    #[serde(default)]
    self_collision: bool,
    shape: Option<RawShape>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSoftBody {
    name: Option<String>,
    mesh: String,
    model: Option<String>,
    resolution: Option<i64>,
    mass: Real,
    center: Option<[Real; 3]>,
    rotation: Option<[Real; 3]>,
    fit: Option<Real>,
    scale: Option<Real>,
    edge: Option<RawStiffness>,
    volume: Option<RawStiffness>,
    bend: Option<RawStiffness>,
    pressure: Option<Real>,
    shape: Option<RawShape>,
    #[serde(default = "default_thickness")]
    thickness: Real,
    #[serde(default)]
    damping: Real,
}

/// Shape-matching material: `{ stiffness, beta, yield, creep, max }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawShape {
    stiffness: Option<Real>,
    beta: Option<Real>,
    #[serde(rename = "yield")]
    plastic_yield: Option<Real>,
    creep: Option<Real>,
    max: Option<Real>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCollider {
    shape: String,
    point: Option<[Real; 3]>,
    normal: Option<[Real; 3]>,
    center: Option<[Real; 3]>,
    radius: Option<Real>,
    half_extents: Option<[Real; 3]>,
    rotation: Option<[Real; 3]>,
    a: Option<[Real; 3]>,
    b: Option<[Real; 3]>,
    mesh: Option<String>,
    position: Option<[Real; 3]>,
    scale: Option<Real>,
    motion: Option<RawMotion>,
    friction: Option<Real>,
    static_friction: Option<Real>,
    kinetic_friction: Option<Real>,
    #[serde(default)]
    restitution: Real,
    stiffness: Option<RawStiffness>,
}

/// A kinematic collider's motion: `{ spin = [wx, wy, wz] }` rad/s and/or `{ velocity = [..] }` m/s.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMotion {
    spin: Option<[Real; 3]>,
    velocity: Option<[Real; 3]>,
}

fn default_thickness() -> Real {
    0.01
}

// ---------------------------------------------------------------------------------------------
// Validation and building.

/// One step of a key path: a table key or an array index.
#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// A key path such as `cloth[0].stretch.k`.
#[derive(Clone)]
struct KeyPath<'a>(Vec<Seg<'a>>);

impl<'a> KeyPath<'a> {
    fn item(table: &'a str, index: usize) -> Self {
        KeyPath(vec![Seg::Key(table), Seg::Index(index)])
    }

    fn key(&self, key: &'a str) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Key(key));
        p
    }

    fn index(&self, i: usize) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }
}

impl fmt::Display for KeyPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Key(k) if n == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// What validation needs to report an error: the file, its text and its span-keeping parse.
struct Ctx<'a> {
    path: String,
    dir: PathBuf,
    text: &'a str,
    doc: Option<&'a DeTable<'a>>,
}

impl Ctx<'_> {
    /// The line of the value at `key` (or of the nearest table that holds it).
    fn line(&self, key: &KeyPath) -> Option<usize> {
        let mut span = None;
        let mut table = self.doc?;
        let mut array: Option<&[toml::Spanned<DeValue>]> = None;
        for seg in &key.0 {
            let value = match (*seg, array) {
                (Seg::Index(i), Some(items)) => items.get(i),
                (Seg::Key(k), None) => table
                    .iter()
                    .find(|(name, _)| name.get_ref() == k)
                    .map(|(_, v)| v),
                _ => None,
            };
            let Some(value) = value else { break };
            span = Some(value.span());
            array = None;
            match value.get_ref() {
                DeValue::Table(t) => table = t,
                DeValue::Array(a) => array = Some(a),
                _ => {}
            }
        }
        span.map(|s| line_col(self.text, s.start).0)
    }

    fn invalid(&self, key: &KeyPath, message: impl Into<String>) -> SceneError {
        SceneError::Invalid {
            path: self.path.clone(),
            line: self.line(key),
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// Fails unless `ok`, with `key` and `message`.
    fn check(
        &self,
        ok: bool,
        key: &KeyPath,
        message: impl FnOnce() -> String,
    ) -> Result<(), SceneError> {
        if ok {
            Ok(())
        } else {
            Err(self.invalid(key, message()))
        }
    }

    fn finite(&self, v: &[Real], key: &KeyPath) -> Result<(), SceneError> {
        self.check(v.iter().all(|x| x.is_finite()), key, || {
            format!("= {v:?}: expected finite numbers")
        })
    }

    fn positive(&self, v: Real, key: &KeyPath, what: &str) -> Result<Real, SceneError> {
        self.check(v.is_finite() && v > 0.0, key, || {
            format!("= {v}: expected {what} > 0")
        })?;
        Ok(v)
    }

    fn in_unit(&self, v: Real, key: &KeyPath) -> Result<Real, SceneError> {
        self.check((0.0..=1.0).contains(&v), key, || {
            format!("= {v}: expected a value in [0, 1]")
        })?;
        Ok(v)
    }

    fn non_negative(&self, v: Real, key: &KeyPath) -> Result<Real, SceneError> {
        self.check(v.is_finite() && v >= 0.0, key, || {
            format!("= {v}: expected a value >= 0")
        })?;
        Ok(v)
    }

    /// An optional rotation given as degrees about x, y, z.
    fn rotation(&self, r: Option<[Real; 3]>, key: &KeyPath) -> Result<Option<Quat>, SceneError> {
        r.map(|r| self.finite(&r, key).map(|_| euler_degrees(r)))
            .transpose()
    }

    /// A shape-matching material table, with `default` for the keys it leaves out.
    fn cluster_material(
        &self,
        r: &RawShape,
        k: &KeyPath,
        default: ClusterMaterial,
    ) -> Result<ClusterMaterial, SceneError> {
        Ok(ClusterMaterial {
            stiffness: self.in_unit(
                r.stiffness.unwrap_or(default.stiffness),
                &k.key("stiffness"),
            )?,
            beta: self.in_unit(r.beta.unwrap_or(default.beta), &k.key("beta"))?,
            plastic_yield: r
                .plastic_yield
                .map(|y| self.non_negative(y, &k.key("yield")))
                .transpose()?
                .unwrap_or(default.plastic_yield),
            creep: self.non_negative(r.creep.unwrap_or(default.creep), &k.key("creep"))?,
            max: self.non_negative(r.max.unwrap_or(default.max), &k.key("max"))?,
        })
    }

    /// Makes the body just added one shape-matching cluster when its table has `shape`: a
    /// material that keeps the body's rest shape (rigid at stiffness 1).
    fn shape_cluster(
        &self,
        world: &mut World,
        shape: &Option<RawShape>,
        key: &KeyPath,
    ) -> Result<(), SceneError> {
        let Some(raw) = shape else { return Ok(()) };
        let material = self.cluster_material(raw, &key.key("shape"), ClusterMaterial::default())?;
        let body = world.bodies.last().expect("the body was just added");
        let members: Vec<u32> = body.particles.clone().map(|i| i as u32).collect();
        let ps = &world.particles;
        world.clusters.push(&members, &ps.x, &ps.inv_mass, material);
        Ok(())
    }

    fn vec3(&self, v: [Real; 3], key: &KeyPath) -> Result<Vec3, SceneError> {
        self.finite(&v, key)?;
        Ok(Vec3::from(v))
    }

    fn count(&self, v: i64, key: &KeyPath, min: i64) -> Result<u32, SceneError> {
        self.check(v >= min && v <= i64::from(u32::MAX), key, || {
            format!("= {v}: expected a whole number >= {min}")
        })?;
        Ok(v as u32)
    }

    /// A stiffness table; `allow_kind` for cloth bending, which also returns its kind.
    fn stiffness(
        &self,
        raw: &RawStiffness,
        key: &KeyPath,
        allow_kind: bool,
    ) -> Result<(Stiffness, BendKind), SceneError> {
        let forbid = |present: bool, name: &'static str, model: &str| {
            self.check(!present, &key.key(name), || {
                format!("does not apply to model \"{model}\"")
            })
        };
        let kind = match (&raw.kind, allow_kind) {
            (None, _) => BendKind::Dihedral,
            (Some(k), true) if k == "dihedral" => BendKind::Dihedral,
            (Some(k), true) if k == "cross-distance" => BendKind::CrossDistance,
            (Some(k), true) => {
                return Err(self.invalid(
                    &key.key("kind"),
                    format!("= \"{k}\": expected \"dihedral\" or \"cross-distance\""),
                ));
            }
            (Some(_), false) => {
                return Err(self.invalid(&key.key("kind"), "is only for cloth `bend`"));
            }
        };
        let stiffness = match raw.model.as_str() {
            m @ ("pbd" | "pbd_corrected") => {
                forbid(raw.compliance.is_some(), "compliance", m)?;
                forbid(raw.damping.is_some(), "damping", m)?;
                let k = raw.k.ok_or_else(|| {
                    self.invalid(
                        key,
                        format!("has model \"{m}\" but no `k`: expected k in [0, 1]"),
                    )
                })?;
                let k = self.in_unit(k, &key.key("k"))?;
                if m == "pbd" {
                    Stiffness::Pbd { k }
                } else {
                    Stiffness::PbdCorrected { k }
                }
            }
            "xpbd" => {
                forbid(raw.k.is_some(), "k", "xpbd")?;
                let compliance =
                    self.non_negative(raw.compliance.unwrap_or(0.0), &key.key("compliance"))?;
                let damping = self.non_negative(raw.damping.unwrap_or(0.0), &key.key("damping"))?;
                Stiffness::Xpbd {
                    compliance,
                    damping,
                }
            }
            other => {
                return Err(self.invalid(
                    &key.key("model"),
                    format!("= \"{other}\": expected \"pbd\", \"pbd_corrected\" or \"xpbd\""),
                ));
            }
        };
        Ok((stiffness, kind))
    }

    /// An optional stiffness table, rigid XPBD when absent.
    fn stiffness_or_rigid(
        &self,
        raw: &Option<RawStiffness>,
        key: &KeyPath,
    ) -> Result<Stiffness, SceneError> {
        raw.as_ref().map_or(Ok(Stiffness::default()), |r| {
            Ok(self.stiffness(r, key, false)?.0)
        })
    }

    /// The OBJ file named by `file` at `key`, relative to the scene's directory.
    fn load_mesh(&self, file: &str, key: &KeyPath) -> Result<TriMesh, SceneError> {
        load_obj(&self.dir.join(file)).map_err(|source| SceneError::Mesh {
            path: self.path.clone(),
            line: self.line(key),
            key: key.to_string(),
            source: Box::new(source),
        })
    }

    /// A body name: given, or `<table><index>`; it names export files, so it is kept to
    /// letters, digits, `-`, `_` and `.`.
    fn name(
        &self,
        given: &Option<String>,
        key: &KeyPath,
        default: String,
    ) -> Result<String, SceneError> {
        let name = given.clone().unwrap_or(default);
        let ok = !name.is_empty()
            && !name.starts_with('.')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        self.check(ok, &key.key("name"), || {
            format!("= \"{name}\": expected a name of letters, digits, '-', '_' or '.'")
        })?;
        Ok(name)
    }
}

/// Checks every value of `raw` and builds the world.
fn build(raw: &RawScene, ctx: &Ctx) -> Result<World, SceneError> {
    let mut world = World::new(solver(&raw.solver, ctx)?);
    let mut names: Vec<(String, KeyPath)> = Vec::new();
    for (n, r) in raw.rope.iter().enumerate() {
        let key = KeyPath::item("rope", n);
        let spec = rope_spec(r, &key, ctx)?;
        names.push((spec.name.clone(), key));
        let index = world.bodies.len() as u32;
        let body = rope::add_rope(&mut world.particles, &mut world.constraints, index, &spec);
        world.bodies.push(body);
        ctx.shape_cluster(&mut world, &r.shape, &KeyPath::item("rope", n))?;
    }
    for (n, c) in raw.cloth.iter().enumerate() {
        let key = KeyPath::item("cloth", n);
        names.push((ctx.name(&c.name, &key, format!("cloth{n}"))?, key.clone()));
        add_cloth(
            &mut world,
            c,
            &key,
            names.last().map(|(n, _)| n.as_str()).unwrap_or_default(),
            ctx,
        )?;
        ctx.shape_cluster(&mut world, &c.shape, &key)?;
    }
    for (n, s) in raw.soft_body.iter().enumerate() {
        let key = KeyPath::item("soft_body", n);
        let name = ctx.name(&s.name, &key, format!("soft_body{n}"))?;
        add_soft(&mut world, s, &key, &name, ctx)?;
        names.push((name, key));
    }
    for (i, (name, key)) in names.iter().enumerate() {
        if names[..i].iter().any(|(other, _)| other == name) {
            return Err(ctx.invalid(
                &key.key("name"),
                format!("= \"{name}\": another body already has this name"),
            ));
        }
    }
    for (n, c) in raw.collider.iter().enumerate() {
        world.add_collider(collider(c, &KeyPath::item("collider", n), ctx)?);
    }
    Ok(world)
}

fn solver(raw: &RawSolver, ctx: &Ctx) -> Result<SolverParams, SceneError> {
    let key = KeyPath(vec![Seg::Key("solver")]);
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
        dt: ctx.positive(raw.dt, &key.key("dt"), "a time step in seconds")?,
        substeps: ctx.count(raw.substeps, &key.key("substeps"), 1)?,
        iterations: ctx.count(raw.iterations, &key.key("iterations"), 1)?,
        method,
        gravity: ctx.vec3(raw.gravity, &key.key("gravity"))?,
        damping: ctx.non_negative(raw.damping, &key.key("damping"))?,
        wind: ctx.vec3(raw.wind, &key.key("wind"))?,
        max_displacement: ctx.non_negative(raw.max_displacement, &key.key("max_displacement"))?,
    })
}

fn rope_spec(r: &RawRope, key: &KeyPath, ctx: &Ctx) -> Result<RopeSpec, SceneError> {
    let name = ctx.name(&r.name, key, format!("rope{}", key_index(key)))?;
    let start = ctx.vec3(r.start, &key.key("start"))?;
    let end = ctx.vec3(r.end, &key.key("end"))?;
    ctx.check(start != end, &key.key("end"), || {
        "is the same point as `start`: expected a rope of non-zero length".into()
    })?;
    for (n, p) in r.pin.iter().enumerate() {
        ctx.check(p == "start" || p == "end", &key.key("pin").index(n), || {
            format!("= \"{p}\": expected \"start\" or \"end\"")
        })?;
    }
    Ok(RopeSpec {
        name,
        start,
        end,
        segments: ctx.count(r.segments, &key.key("segments"), 1)?,
        mass: ctx.positive(r.mass, &key.key("mass"), "a mass in kg")?,
        pin_start: r.pin.iter().any(|p| p == "start"),
        pin_end: r.pin.iter().any(|p| p == "end"),
        stretch: ctx.stiffness_or_rigid(&r.stretch, &key.key("stretch"))?,
        bend: r
            .bend
            .as_ref()
            .map(|b| ctx.stiffness(b, &key.key("bend"), false).map(|s| s.0))
            .transpose()?,
        thickness: ctx.positive(r.thickness, &key.key("thickness"), "a distance in m")?,
        damping: ctx.in_unit(r.damping, &key.key("damping"))?,
    })
}

fn key_index(key: &KeyPath) -> usize {
    match key.0.get(1) {
        Some(Seg::Index(i)) => *i,
        _ => 0,
    }
}

/// Rotation from XYZ Euler angles in degrees (about x, then y, then z, fixed axes).
fn euler_degrees(r: [Real; 3]) -> Quat {
    let [x, y, z] = r.map(Real::to_radians);
    Quat::from_euler_angles(x, y, z)
}

fn add_cloth(
    world: &mut World,
    c: &RawCloth,
    key: &KeyPath,
    name: &str,
    ctx: &Ctx,
) -> Result<(), SceneError> {
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
    let (bend, kind) = match &c.bend {
        Some(b) => {
            let (s, kind) = ctx.stiffness(b, &key.key("bend"), true)?;
            (Some(s), kind)
        }
        None => (None, BendKind::Dihedral),
    };
    let material = ClothMaterial {
        stretch: ctx.stiffness_or_rigid(&c.stretch, &key.key("stretch"))?,
        shear: ctx.stiffness_or_rigid(&c.shear, &key.key("shear"))?,
        bend: bend.map(|s| (s, kind)),
        thickness: ctx.positive(c.thickness, &key.key("thickness"), "a distance in m")?,
        damping: ctx.in_unit(c.damping, &key.key("damping"))?,
        drag: ctx.non_negative(c.drag, &key.key("drag"))?,
    };
    let mass = ctx.positive(c.mass, &key.key("mass"), "a mass in kg")?;
    let center = c
        .center
        .map(|v| ctx.vec3(v, &key.key("center")))
        .transpose()?;
    let rotation = ctx.rotation(c.rotation, &key.key("rotation"))?;
    let index = world.bodies.len() as u32;
    let (positions, triangles, pinned, grid_nx) = match (&c.resolution, &c.mesh) {
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
            let nx = ctx.count(res[0], &key.key("resolution"), 2)?;
            let nz = ctx.count(res[1], &key.key("resolution"), 2)?;
            let size = c.size.unwrap_or([1.0, 1.0]);
            for s in size {
                ctx.positive(s, &key.key("size"), "a size in m")?;
            }
            let vertical = match c.orientation.as_deref().unwrap_or("horizontal") {
                "horizontal" => false,
                "vertical" => true,
                o => {
                    return Err(ctx.invalid(
                        &key.key("orientation"),
                        format!("= \"{o}\": expected \"horizontal\" or \"vertical\""),
                    ));
                }
            };
            let (mut x, tris) = cloth::grid(nx, nz, size, center.unwrap_or_default(), vertical);
            if let Some(r) = rotation {
                cloth::place(&mut x, r, center);
            }
            let pinned = grid_pins(c, key, nx, nz, ctx)?;
            (x, tris, pinned, Some(nx))
        }
        (None, Some(file)) => {
            grid_only(c.size.is_some(), "size")?;
            grid_only(c.orientation.is_some(), "orientation")?;
            grid_only(!c.pin_edges.is_empty(), "pin_edges")?;
            grid_only(c.shear.is_some(), "shear")?;
            let mesh = ctx.load_mesh(file, &key.key("mesh"))?;
            let scale =
                ctx.positive(c.scale.unwrap_or(1.0), &key.key("scale"), "a scale factor")?;
            let mut x: Vec<Vec3> = mesh.positions.iter().map(|p| p * scale).collect();
            if center.is_some() || rotation.is_some() {
                cloth::place(&mut x, rotation.unwrap_or_else(Quat::identity), center);
            }
            let mut pinned = Vec::new();
            for (n, p) in c.pin.iter().enumerate() {
                let pk = key.key("pin").index(n);
                match *p {
                    RawPin::Vertex(v) if v >= 0 && (v as usize) < x.len() => pinned.push(v as usize),
                    RawPin::Vertex(v) => return Err(ctx.invalid(&pk, format!("= {v}: expected a vertex index in 0..{} (the mesh's vertices, 0-based)", x.len()))),
                    RawPin::Grid(_) => return Err(ctx.invalid(&pk, "is an [i, j] pair: a mesh cloth is pinned by vertex index (0-based)")),
                }
            }
            (x, mesh.triangles, pinned, None)
        }
    };
    let body = cloth::add_cloth(
        &mut world.particles,
        &mut world.constraints,
        index,
        name,
        &positions,
        triangles,
        &pinned,
        mass,
        &material,
        |a, b| grid_nx.is_some_and(|nx| cloth::is_grid_diagonal(nx, a, b)),
    );
    world.bodies.push(body);
    world
        .particle_pairs
        .set_self_collision(index, c.self_collision);
    Ok(())
}

fn add_soft(
    world: &mut World,
    s: &RawSoftBody,
    key: &KeyPath,
    name: &str,
    ctx: &Ctx,
) -> Result<(), SceneError> {
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
    let stiffness = |raw: &Option<RawStiffness>, k: &'static str, default: Stiffness| {
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
    let shape = s.shape.as_ref().map_or(Ok(shape_default), |r| {
        ctx.cluster_material(r, &key.key("shape"), shape_default)
    })?;
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
        pressure: ctx.positive(
            s.pressure.unwrap_or(defaults.pressure),
            &key.key("pressure"),
            "a pressure factor",
        )?,
        shape,
        thickness: ctx.positive(s.thickness, &key.key("thickness"), "a distance in m")?,
        damping: ctx.in_unit(s.damping, &key.key("damping"))?,
    };
    let mass = ctx.positive(s.mass, &key.key("mass"), "a mass in kg")?;
    let center = s
        .center
        .map(|v| ctx.vec3(v, &key.key("center")))
        .transpose()?;
    let rotation = ctx.rotation(s.rotation, &key.key("rotation"))?;
    let mesh_key = key.key("mesh");
    let raw_mesh = load_obj(&ctx.dir.join(&s.mesh)).map_err(|source| SceneError::Mesh {
        path: ctx.path.clone(),
        line: ctx.line(&mesh_key),
        key: mesh_key.to_string(),
        source: Box::new(source),
    })?;
    let (mut mesh, _) = clean(&raw_mesh, default_weld_tolerance(&raw_mesh));
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
    add_soft_body(world, name, &mesh, mass, &material).map_err(|source| SceneError::SoftBody {
        path: ctx.path.clone(),
        line: ctx.line(&mesh_key),
        key: mesh_key.to_string(),
        source,
    })
}

/// The particles pinned by `pin = [[i, j], ..]` and `pin_edges = ["i=0", ..]` on an `nx × nz` grid.
fn grid_pins(
    c: &RawCloth,
    key: &KeyPath,
    nx: u32,
    nz: u32,
    ctx: &Ctx,
) -> Result<Vec<usize>, SceneError> {
    let resolve = |v: i64, n: u32| {
        let v = if v < 0 { v + i64::from(n) } else { v };
        (0..i64::from(n)).contains(&v).then_some(v as usize)
    };
    let mut pinned = Vec::new();
    for (n, p) in c.pin.iter().enumerate() {
        let pk = key.key("pin").index(n);
        match *p {
            RawPin::Grid([i, j]) => match (resolve(i, nx), resolve(j, nz)) {
                (Some(i), Some(j)) => pinned.push(j * nx as usize + i),
                _ => return Err(ctx.invalid(&pk, format!("= [{i}, {j}]: expected i in -{nx}..{nx} and j in -{nz}..{nz} (negative counts from the end)"))),
            },
            RawPin::Vertex(_) => return Err(ctx.invalid(&pk, "is a single index: a grid cloth is pinned by [i, j] pairs")),
        }
    }
    for (n, edge) in c.pin_edges.iter().enumerate() {
        let (nx, nz) = (nx as usize, nz as usize);
        let cells: Vec<usize> = match edge.as_str() {
            "i=0" => (0..nz).map(|j| j * nx).collect(),
            "i=-1" => (0..nz).map(|j| j * nx + nx - 1).collect(),
            "j=0" => (0..nx).collect(),
            "j=-1" => (0..nx).map(|i| (nz - 1) * nx + i).collect(),
            other => {
                return Err(ctx.invalid(
                    &key.key("pin_edges").index(n),
                    format!("= \"{other}\": expected \"i=0\", \"i=-1\", \"j=0\" or \"j=-1\""),
                ));
            }
        };
        pinned.extend(cells);
    }
    Ok(pinned)
}

fn collider(c: &RawCollider, key: &KeyPath, ctx: &Ctx) -> Result<Collider, SceneError> {
    let need = |v: Option<[Real; 3]>, k: &'static str| -> Result<Vec3, SceneError> {
        let v = v.ok_or_else(|| ctx.invalid(key, format!("is a {} and needs `{k}`", c.shape)))?;
        ctx.vec3(v, &key.key(k))
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
    let allowed: &[&str] = match c.shape.as_str() {
        "plane" => &["point", "normal"],
        "sphere" => &["center", "radius"],
        "box" => &["center", "half_extents", "rotation"],
        "capsule" => &["a", "b", "radius"],
        "mesh" => &["mesh", "position", "scale", "rotation"],
        other => {
            return Err(ctx.invalid(
                &key.key("shape"),
                format!(
                    "= \"{other}\": expected \"plane\", \"sphere\", \"box\", \"capsule\" or \"mesh\""
                ),
            ));
        }
    };
    for (k, present) in given {
        ctx.check(!present || allowed.contains(&k), &key.key(k), || {
            format!("does not apply to a {}", c.shape)
        })?;
    }
    let radius = || {
        ctx.positive(
            c.radius
                .ok_or_else(|| ctx.invalid(key, format!("is a {} and needs `radius`", c.shape)))?,
            &key.key("radius"),
            "a radius in m",
        )
    };
    let shape = match c.shape.as_str() {
        "plane" => {
            let normal = need(c.normal.or(Some([0.0, 1.0, 0.0])), "normal")?;
            ctx.check(normal.norm() > 0.0, &key.key("normal"), || {
                "is zero: expected a direction".into()
            })?;
            Shape::Plane {
                point: need(c.point.or(Some([0.0; 3])), "point")?,
                normal: normal.normalize(),
            }
        }
        "sphere" => Shape::Sphere {
            center: need(c.center, "center")?,
            radius: radius()?,
        },
        "box" => {
            let half_extents = need(c.half_extents, "half_extents")?;
            for h in half_extents.iter() {
                ctx.positive(*h, &key.key("half_extents"), "a half extent in m")?;
            }
            let rotation = ctx.rotation(c.rotation, &key.key("rotation"))?;
            Shape::Box {
                center: need(c.center, "center")?,
                half_extents,
                rotation: rotation.unwrap_or_else(Quat::identity),
            }
        }
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
            let mesh = ctx.load_mesh(file, &key.key("mesh"))?;
            let scale =
                ctx.positive(c.scale.unwrap_or(1.0), &key.key("scale"), "a scale factor")?;
            Shape::Mesh {
                mesh: std::sync::Arc::new(MeshShape::new(&mesh, scale)),
                position: need(c.position.or(Some([0.0; 3])), "position")?,
                rotation: ctx
                    .rotation(c.rotation, &key.key("rotation"))?
                    .unwrap_or_else(Quat::identity),
            }
        }
    };
    let friction = c
        .friction
        .map(|f| ctx.non_negative(f, &key.key("friction")))
        .transpose()?
        .unwrap_or(DEFAULT_FRICTION);
    let static_friction = c
        .static_friction
        .map(|f| ctx.non_negative(f, &key.key("static_friction")))
        .transpose()?
        .unwrap_or(friction);
    let kinetic_friction = c
        .kinetic_friction
        .map(|f| ctx.non_negative(f, &key.key("kinetic_friction")))
        .transpose()?
        .unwrap_or(friction);
    Ok(Collider {
        shape,
        material: ContactMaterial {
            static_friction,
            kinetic_friction,
            restitution: ctx.in_unit(c.restitution, &key.key("restitution"))?,
        },
        stiffness: ctx.stiffness_or_rigid(&c.stiffness, &key.key("stiffness"))?,
        motion: c.motion.as_ref().map_or(Ok(Motion::default()), |m| {
            let key = key.key("motion");
            Ok(Motion {
                velocity: ctx.vec3(m.velocity.unwrap_or_default(), &key.key("velocity"))?,
                spin: ctx.vec3(m.spin.unwrap_or_default(), &key.key("spin"))?,
            })
        })?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solver_method_parses() {
        for (name, method) in [
            ("colored", SolverMethod::Colored),
            ("gauss-seidel", SolverMethod::GaussSeidel),
            ("jacobi", SolverMethod::Jacobi),
        ] {
            let text = format!("[solver]\nmethod = \"{name}\"\n");
            let world = parse_scene(&text, Path::new("s.toml")).unwrap();
            assert_eq!(world.params.method, method);
        }
    }
}
