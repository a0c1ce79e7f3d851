//! Supple from Python: the `supple` module, a thin layer over the engine's construction API
//! ([`engine::World`]). Arrays and dicts become the engine's descriptions, handles and names
//! address bodies, and the engine's errors become Python exceptions with the engine's messages;
//! there is no physics here. The stubs in `supple.pyi` document every call for editors.

// The Python API takes its options as keyword arguments, one Rust parameter each.
#![allow(clippy::too_many_arguments)]

mod convert;

use convert::{
    V3, build_error, count, non_negative, obj_error, path, points, positive, value_error,
    world_error,
};
use engine::bodies::cloth;
use engine::mesh::clean;
use engine::{
    BendKind, ClothDesc, ClusterMaterial, Collider, ContactMaterial, Diagonals, FrameRecord,
    FrameStats, MeshShape, Motion, Orientation, Quat, RopeDesc, Shape, SoftBodyDesc, SoftMaterial,
    SoftModel, SolverMethod, SolverParams, Stiffness, Tear, TriMesh, Vec3, export_frame, fit_scale,
    load_obj, load_scene, place_mesh,
};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2};
use pyo3::exceptions::{PyOSError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// Numbers the worlds of the process, so that a handle is only used with its own world.
static WORLDS: AtomicU64 = AtomicU64::new(0);

/// What a Python `World` guards: the engine's world and the duration of its last frame.
struct State {
    /// The simulation.
    world: engine::World,
    /// Wall time per frame of the last `step` call, ms, measured around the engine's step.
    step_ms: f64,
}

/// A simulation: bodies, colliders and solver settings, advanced frame by frame.
///
/// Build it with `World(...)` and the `add_*` methods, or `World.load("scene.toml")`. Every
/// method may be called from any thread; `step` runs without the GIL, and a call made while
/// another thread steps waits for that step to end.
#[pyclass(module = "supple", frozen)]
struct World {
    /// The world, locked by each call.
    state: Mutex<State>,
    /// This world's number in [`WORLDS`].
    id: u64,
}

/// A body of a world, as returned by its `add_*` methods (`index`: order of addition).
#[pyclass(module = "supple", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
struct BodyHandle {
    /// The world's number.
    world: u64,
    /// The engine's handle.
    handle: engine::BodyHandle,
    /// The body's name.
    #[pyo3(get)]
    name: String,
}

#[pymethods]
impl BodyHandle {
    /// The body's index in its world, in the order the bodies were added.
    #[getter]
    fn index(&self) -> usize {
        self.handle.index()
    }

    fn __repr__(&self) -> String {
        format!("BodyHandle({}, '{}')", self.handle.index(), self.name)
    }
}

/// A collider of a world, as returned by `add_collider` (`index`: order of addition).
#[pyclass(module = "supple", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
struct ColliderHandle {
    /// The world's number.
    world: u64,
    /// The engine's handle.
    handle: engine::ColliderHandle,
}

#[pymethods]
impl ColliderHandle {
    /// The collider's index in its world, in the order the colliders were added.
    #[getter]
    fn index(&self) -> usize {
        self.handle.index()
    }

    fn __repr__(&self) -> String {
        format!("ColliderHandle({})", self.handle.index())
    }
}

/// A body as Python names it: a handle of this world, or a name.
enum BodyRef {
    /// From a [`BodyHandle`].
    Handle(engine::BodyHandle),
    /// A body's name.
    Name(String),
}

impl BodyRef {
    /// The engine's handle of the body in `world`.
    fn resolve(&self, world: &engine::World) -> PyResult<engine::BodyHandle> {
        match self {
            BodyRef::Handle(h) => Ok(*h),
            BodyRef::Name(name) => world.body_named(name).ok_or_else(|| {
                let names: Vec<&str> = world.bodies().iter().map(|b| b.name.as_str()).collect();
                value_error(format!(
                    "no body is named '{name}' (the bodies: {})",
                    names.join(", ")
                ))
            }),
        }
    }
}

/// A mesh given as a path to an OBJ file or as a `(vertices, triangles)` pair of arrays, as it
/// is or, with `cleaned`, cleaned as a soft body's mesh is (see `TriMesh::load`).
fn mesh_arg(ob: &Bound<'_, PyAny>, cleaned: bool) -> PyResult<TriMesh> {
    let raw = mesh_arrays_or_file(ob)?;
    Ok(if cleaned {
        clean::clean(&raw, clean::default_weld_tolerance(&raw)).0
    } else {
        raw
    })
}

/// The mesh of [`mesh_arg`], as given.
fn mesh_arrays_or_file(ob: &Bound<'_, PyAny>) -> PyResult<TriMesh> {
    if let Some(p) = path(ob) {
        return load_obj(&p).map_err(obj_error);
    }
    let pair = ob
        .cast::<PyTuple>()
        .ok()
        .filter(|t| t.len() == 2)
        .ok_or_else(|| {
            value_error("`mesh` is neither a path nor a (vertices, triangles) pair of arrays")
        })?;
    let positions = points(&pair.get_item(0)?, "mesh.vertices")?;
    let triangles = convert::triangles(&pair.get_item(1)?, "mesh.triangles", positions.len())?;
    Ok(TriMesh {
        positions,
        triangles,
    })
}

/// An (n, 3) float32 array of `v`.
fn vec3_array<'py>(py: Python<'py>, v: &[Vec3]) -> Bound<'py, PyArray2<f32>> {
    let flat: Vec<f32> = v.iter().flat_map(|p| [p.x, p.y, p.z]).collect();
    Array2::from_shape_vec((v.len(), 3), flat)
        .expect("three numbers per point")
        .into_pyarray(py)
}

/// The common options of a cloth, whichever way it is made.
struct ClothOptions<'a, 'py> {
    name: Option<String>,
    stretch: Option<&'a Bound<'py, PyAny>>,
    bend: Option<&'a Bound<'py, PyAny>>,
    bend_kind: Option<&'a str>,
    thickness: f32,
    damping: f32,
    drag: f32,
    lift: f32,
    long_range: bool,
    self_collision: bool,
    shape: Option<&'a Bound<'py, PyAny>>,
    tear: Option<f32>,
    stretch_limit: Option<f32>,
    pin_collider: Option<engine::ColliderHandle>,
}

impl ClothOptions<'_, '_> {
    /// Sets these options on `desc`.
    fn apply(&self, desc: &mut ClothDesc) -> PyResult<()> {
        desc.name = self.name.clone().unwrap_or_default();
        desc.stretch = convert::stiffness_or(self.stretch, "stretch", Stiffness::default())?;
        let kind = self
            .bend_kind
            .map(|k| convert::bend_kind(k, "bend_kind"))
            .transpose()?;
        desc.bend = match self.bend {
            None => None,
            Some(b) => {
                let (s, given) = convert::stiffness(b, "bend", true)?;
                if given.is_some() && kind.is_some() {
                    return Err(value_error(
                        "`bend_kind` and `bend.kind` are both given: expected one",
                    ));
                }
                Some((s, given.or(kind).unwrap_or(BendKind::Dihedral)))
            }
        };
        desc.thickness = self.thickness;
        desc.damping = self.damping;
        desc.drag = self.drag;
        desc.lift = self.lift;
        desc.long_range = self.long_range;
        desc.tear = self.tear.map(|strain| Tear { strain });
        desc.stretch_limit = self.stretch_limit;
        desc.pin_collider = self.pin_collider;
        desc.self_collision = self.self_collision;
        desc.shape = self
            .shape
            .map(|s| convert::cluster_material(s, "shape", ClusterMaterial::default()))
            .transpose()?;
        Ok(())
    }
}

/// The Python names of the cloth description's fields where they differ.
const CLOTH_KEYS: &[(&str, &str)] = &[("positions", "vertices"), ("pin", "pins")];

impl World {
    /// A new Python world around `world`.
    fn wrap(world: engine::World) -> Self {
        World {
            state: Mutex::new(State {
                world,
                step_ms: 0.0,
            }),
            id: WORLDS.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Runs `f` on the locked state without the GIL, so that a step in another thread can end.
    fn with<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut State) -> PyResult<R> + Send,
    ) -> PyResult<R> {
        py.detach(|| f(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner)))
    }

    /// The body `ob` names: a handle of this world or a name.
    fn body_ref(&self, ob: &Bound<'_, PyAny>) -> PyResult<BodyRef> {
        if let Ok(h) = ob.cast::<BodyHandle>() {
            let h = h.get();
            if h.world != self.id {
                return Err(value_error(format!(
                    "{} belongs to another world",
                    h.__repr__()
                )));
            }
            return Ok(BodyRef::Handle(h.handle));
        }
        match ob.extract::<String>() {
            Ok(name) => Ok(BodyRef::Name(name)),
            Err(_) => Err(PyTypeError::new_err(
                "expected a body: a BodyHandle or a body's name (str)",
            )),
        }
    }

    /// The engine's handle of collider `ob`, a handle of this world.
    fn collider_ref(&self, ob: &Bound<'_, ColliderHandle>) -> PyResult<engine::ColliderHandle> {
        let h = ob.get();
        if h.world != self.id {
            return Err(value_error(format!(
                "{} belongs to another world",
                h.__repr__()
            )));
        }
        Ok(h.handle)
    }

    /// The Python handle of the engine's `handle`.
    fn handle(&self, world: &engine::World, handle: engine::BodyHandle) -> BodyHandle {
        BodyHandle {
            world: self.id,
            handle,
            name: world.body(handle).name.clone(),
        }
    }

    /// Adds `desc` with the engine's `add`, returning the body's handle; errors name the
    /// Python arguments (`renames`).
    fn add<D: Send + Sync>(
        &self,
        py: Python<'_>,
        desc: &D,
        add: fn(&mut engine::World, &D) -> Result<engine::BodyHandle, engine::BuildError>,
        renames: &[(&str, &str)],
    ) -> PyResult<BodyHandle> {
        self.with(py, |s| {
            let h = add(&mut s.world, desc).map_err(|e| build_error(e, renames))?;
            Ok(self.handle(&s.world, h))
        })
    }

    /// Pins or unpins (`change`) a particle of body `ob`.
    fn pin_or_unpin(
        &self,
        py: Python<'_>,
        ob: &Bound<'_, PyAny>,
        particle: i64,
        change: fn(&mut engine::World, engine::BodyHandle, usize) -> Result<(), engine::WorldError>,
    ) -> PyResult<()> {
        let body = self.body_ref(ob)?;
        self.with(py, |s| {
            let h = body.resolve(&s.world)?;
            let i = usize::try_from(particle).map_err(|_| {
                let n = s.world.positions(h).len();
                value_error(format!(
                    "`particle` = {particle}: expected a particle index in 0..{n}"
                ))
            })?;
            change(&mut s.world, h, i).map_err(world_error)
        })
    }

    /// Copies a per-particle array of body `ob` out of the world with `read`.
    fn read<'py>(
        &self,
        ob: &Bound<'py, PyAny>,
        read: fn(&engine::World, engine::BodyHandle) -> Vec<Vec3>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let py = ob.py();
        let body = self.body_ref(ob)?;
        let v = self.with(py, |s| Ok(read(&s.world, body.resolve(&s.world)?)))?;
        Ok(vec3_array(py, &v))
    }
}

#[pymethods]
impl World {
    /// An empty world with these solver settings (the keys of a scene's `[solver]` table;
    /// `None` takes the scene file's default).
    #[new]
    #[pyo3(signature = (*, dt=None, substeps=None, iterations=None, method=None, gravity=None, damping=None, wind=None, max_displacement=None, max_strain=None, shake=None))]
    fn new(
        dt: Option<f32>,
        substeps: Option<i64>,
        iterations: Option<i64>,
        method: Option<&str>,
        gravity: Option<V3>,
        damping: Option<f32>,
        wind: Option<&Bound<'_, PyAny>>,
        max_displacement: Option<f32>,
        max_strain: Option<f32>,
        shake: Option<bool>,
    ) -> PyResult<Self> {
        let d = SolverParams::default();
        let method = match method {
            None => d.method,
            Some(m) => SolverMethod::from_name(m).ok_or_else(|| {
                value_error(format!(
                    "`method` = \"{m}\": expected one of {}",
                    SolverMethod::NAMES.join(", ")
                ))
            })?,
        };
        let (wind, gust) = wind.map_or(Ok((d.wind, None)), convert::wind)?;
        let params = SolverParams {
            dt: dt.unwrap_or(d.dt),
            substeps: substeps.map_or(Ok(d.substeps), |n| count(n, "substeps", 1))?,
            iterations: iterations.map_or(Ok(d.iterations), |n| count(n, "iterations", 1))?,
            method,
            gravity: gravity.map_or(d.gravity, |g| g.0),
            damping: damping.unwrap_or(d.damping),
            wind,
            gust,
            max_displacement: max_displacement.unwrap_or(d.max_displacement),
            max_strain: max_strain.unwrap_or(d.max_strain),
            shake: shake.unwrap_or(d.shake),
        };
        let world = engine::World::new(params).map_err(|e| build_error(e, &[]))?;
        Ok(World::wrap(world))
    }

    /// The world of the scene file at `path` (TOML; see the README's "Scene files").
    #[staticmethod]
    fn load(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Self> {
        let scene = py
            .detach(|| load_scene(&path))
            .map_err(convert::scene_error)?;
        Ok(World::wrap(scene.world))
    }

    /// Adds a cloth made of `triangles` (int, (m, 3)) over `vertices` (float, (n, 3), m).
    #[pyo3(signature = (vertices, triangles, mass, *, name=None, pins=None, stretch=None, bend=None, bend_kind=None, thickness=0.01, damping=0.0, drag=0.0, lift=0.0, long_range=false, self_collision=false, shape=None, tear=None, stretch_limit=None, pin_collider=None, weld=None))]
    fn add_cloth(
        &self,
        py: Python<'_>,
        vertices: &Bound<'_, PyAny>,
        triangles: &Bound<'_, PyAny>,
        mass: f32,
        name: Option<String>,
        pins: Option<Vec<i64>>,
        stretch: Option<&Bound<'_, PyAny>>,
        bend: Option<&Bound<'_, PyAny>>,
        bend_kind: Option<&str>,
        thickness: f32,
        damping: f32,
        drag: f32,
        lift: f32,
        long_range: bool,
        self_collision: bool,
        shape: Option<&Bound<'_, PyAny>>,
        tear: Option<f32>,
        stretch_limit: Option<f32>,
        pin_collider: Option<&Bound<'_, ColliderHandle>>,
        weld: Option<f32>,
    ) -> PyResult<BodyHandle> {
        let positions = points(vertices, "vertices")?;
        let n = positions.len();
        let triangles = convert::triangles(triangles, "triangles", n)?;
        let mut desc = ClothDesc::mesh(positions, triangles, mass);
        desc.weld = weld;
        desc.pin = pins
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(k, v)| convert::vertex_index(v, n, &format!("pins[{k}]")))
            .collect::<PyResult<_>>()?;
        let options = ClothOptions {
            name,
            stretch,
            bend,
            bend_kind,
            thickness,
            damping,
            drag,
            lift,
            long_range,
            self_collision,
            shape,
            tear,
            stretch_limit,
            pin_collider: pin_collider.map(|c| self.collider_ref(c)).transpose()?,
        };
        options.apply(&mut desc)?;
        self.add(py, &desc, engine::World::add_cloth, CLOTH_KEYS)
    }

    /// Adds a grid cloth of `resolution = (nx, nz)` particles spanning `size` m around
    /// `center`, lying `orientation` ("horizontal": XZ plane, "vertical": XY plane), turned by
    /// `rotation` (degrees about x, y, z), pinned at the `(i, j)` pairs of `pins` (negative
    /// counts from the end); particle `(i, j)` has index `j * nx + i`. Its cells are split
    /// as `diagonals` says ("alternating", or "uniform": W's triangulation).
    #[pyo3(signature = (resolution, mass, *, size=(1.0, 1.0), center=None, orientation="horizontal", diagonals="alternating", rotation=None, pins=None, name=None, stretch=None, shear=None, bend=None, bend_kind=None, thickness=0.01, damping=0.0, drag=0.0, lift=0.0, long_range=false, self_collision=false, shape=None, tear=None, stretch_limit=None, pin_collider=None))]
    fn add_cloth_grid(
        &self,
        py: Python<'_>,
        resolution: (i64, i64),
        mass: f32,
        size: (f32, f32),
        center: Option<V3>,
        orientation: &str,
        diagonals: &str,
        rotation: Option<V3>,
        pins: Option<Vec<(i64, i64)>>,
        name: Option<String>,
        stretch: Option<&Bound<'_, PyAny>>,
        shear: Option<&Bound<'_, PyAny>>,
        bend: Option<&Bound<'_, PyAny>>,
        bend_kind: Option<&str>,
        thickness: f32,
        damping: f32,
        drag: f32,
        lift: f32,
        long_range: bool,
        self_collision: bool,
        shape: Option<&Bound<'_, PyAny>>,
        tear: Option<f32>,
        stretch_limit: Option<f32>,
        pin_collider: Option<&Bound<'_, ColliderHandle>>,
    ) -> PyResult<BodyHandle> {
        let nx = count(resolution.0, "resolution", 2)?;
        let nz = count(resolution.1, "resolution", 2)?;
        let orientation = match orientation {
            "horizontal" => Orientation::Horizontal,
            "vertical" => Orientation::Vertical,
            o => {
                return Err(value_error(format!(
                    "`orientation` = \"{o}\": expected \"horizontal\" or \"vertical\""
                )));
            }
        };
        let at = center.map(|c| c.0);
        let diagonals = Diagonals::from_name(diagonals).map_err(|e| build_error(e, &[]))?;
        let mut desc = ClothDesc::grid_with(
            [nx, nz],
            [size.0, size.1],
            at.unwrap_or_default(),
            orientation,
            diagonals,
            mass,
        )
        .map_err(|e| build_error(e, &[]))?;
        if let Some(r) = convert::rotation(rotation) {
            cloth::place(&mut desc.positions, r, at);
        }
        let from_end = |v: i64, n: u32| {
            let v = if v < 0 { v + i64::from(n) } else { v };
            (0..i64::from(n)).contains(&v).then_some(v as u32)
        };
        desc.pin = pins
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(k, (i, j))| match (from_end(i, nx), from_end(j, nz)) {
                (Some(i), Some(j)) => Ok(ClothDesc::grid_index(nx, i, j)),
                _ => Err(value_error(format!(
                    "`pins[{k}]` = ({i}, {j}): expected i in -{nx}..{nx} and j in -{nz}..{nz} (negative counts from the end)"
                ))),
            })
            .collect::<PyResult<_>>()?;
        desc.shear = convert::stiffness_or(shear, "shear", Stiffness::default())?;
        let options = ClothOptions {
            name,
            stretch,
            bend,
            bend_kind,
            thickness,
            damping,
            drag,
            lift,
            long_range,
            self_collision,
            shape,
            tear,
            stretch_limit,
            pin_collider: pin_collider.map(|c| self.collider_ref(c)).transpose()?,
        };
        options.apply(&mut desc)?;
        self.add(py, &desc, engine::World::add_cloth, CLOTH_KEYS)
    }

    /// Adds a rope of `segments` segments and `mass` kg from `start` to `end` (m); `pins` holds
    /// "start" and/or "end"; `long_range` tethers every free particle to its nearest pinned end.
    #[pyo3(signature = (start, end, segments, mass, *, name=None, pins=None, stretch=None, bend=None, thickness=0.01, damping=0.0, long_range=false, shape=None, stretch_limit=None, pin_collider=None))]
    fn add_rope(
        &self,
        py: Python<'_>,
        start: V3,
        end: V3,
        segments: i64,
        mass: f32,
        name: Option<String>,
        pins: Option<Vec<String>>,
        stretch: Option<&Bound<'_, PyAny>>,
        bend: Option<&Bound<'_, PyAny>>,
        thickness: f32,
        damping: f32,
        long_range: bool,
        shape: Option<&Bound<'_, PyAny>>,
        stretch_limit: Option<f32>,
        pin_collider: Option<&Bound<'_, ColliderHandle>>,
    ) -> PyResult<BodyHandle> {
        let pins = pins.unwrap_or_default();
        for (k, p) in pins.iter().enumerate() {
            if p != "start" && p != "end" {
                return Err(value_error(format!(
                    "`pins[{k}]` = \"{p}\": expected \"start\" or \"end\""
                )));
            }
        }
        let desc = RopeDesc {
            name: name.unwrap_or_default(),
            pin_start: pins.iter().any(|p| p == "start"),
            pin_end: pins.iter().any(|p| p == "end"),
            stretch: convert::stiffness_or(stretch, "stretch", Stiffness::default())?,
            bend: bend
                .map(|b| convert::stiffness(b, "bend", false).map(|s| s.0))
                .transpose()?,
            thickness,
            damping,
            long_range,
            shape: shape
                .map(|s| convert::cluster_material(s, "shape", ClusterMaterial::default()))
                .transpose()?,
            pin_collider: pin_collider.map(|c| self.collider_ref(c)).transpose()?,
            stretch_limit,
            ..RopeDesc::new(start.0, end.0, count(segments, "segments", 1)?, mass)
        };
        self.add(py, &desc, engine::World::add_rope, &[])
    }

    /// Adds a soft body made from `mesh` (a path to an OBJ file, or a `(vertices, triangles)`
    /// pair of arrays), cleaned, scaled by `scale` (or to `fit` m along its longest side),
    /// turned by `rotation` (degrees about x, y, z) and centred on `center` (m).
    #[pyo3(signature = (mesh, mass=1.0, *, model="tets", name=None, resolution=None, edge=None, volume=None, bend=None, pressure=None, shape=None, thickness=0.01, damping=0.0, center=None, rotation=None, fit=None, scale=None))]
    fn add_soft_body(
        &self,
        py: Python<'_>,
        mesh: &Bound<'_, PyAny>,
        mass: f32,
        model: &str,
        name: Option<String>,
        resolution: Option<i64>,
        edge: Option<&Bound<'_, PyAny>>,
        volume: Option<&Bound<'_, PyAny>>,
        bend: Option<&Bound<'_, PyAny>>,
        pressure: Option<f32>,
        shape: Option<&Bound<'_, PyAny>>,
        thickness: f32,
        damping: f32,
        center: Option<V3>,
        rotation: Option<V3>,
        fit: Option<f32>,
        scale: Option<f32>,
    ) -> PyResult<BodyHandle> {
        let d = SoftMaterial::default();
        let model = SoftModel::from_name(model).ok_or_else(|| {
            let names: Vec<&str> = SoftModel::ALL.iter().map(|m| m.name()).collect();
            value_error(format!(
                "`model` = \"{model}\": expected one of {}",
                names.join(", ")
            ))
        })?;
        let stiffness = convert::stiffness_or;
        let shape_default = ClusterMaterial {
            stiffness: if model == SoftModel::Rigid {
                1.0
            } else {
                d.shape.stiffness
            },
            ..d.shape
        };
        let material = SoftMaterial {
            model,
            resolution: resolution.map_or(Ok(d.resolution), |r| count(r, "resolution", 1))?,
            edge: stiffness(edge, "edge", d.edge)?,
            volume: stiffness(volume, "volume", d.volume)?,
            bend: stiffness(bend, "bend", d.bend)?,
            pressure: pressure.unwrap_or(d.pressure),
            shape: shape.map_or(Ok(shape_default), |s| {
                convert::cluster_material(s, "shape", shape_default)
            })?,
            thickness,
            damping,
        };
        let mut mesh = mesh_arg(mesh, true)?;
        let scale = match (fit, scale) {
            (Some(_), Some(_)) => {
                return Err(value_error(
                    "`scale` and `fit` are both given: expected one (a scale factor or a size in m)",
                ));
            }
            (Some(fit), None) => {
                positive(fit, "fit", "a size in m")?;
                fit_scale(&mesh, fit)
            }
            (None, scale) => positive(scale.unwrap_or(1.0), "scale", "a scale factor")?,
        };
        place_mesh(
            &mut mesh,
            scale,
            convert::rotation(rotation).unwrap_or_else(Quat::identity),
            center.map(|c| c.0),
        );
        let desc = SoftBodyDesc {
            name: name.unwrap_or_default(),
            material,
            ..SoftBodyDesc::new(mesh, mass)
        };
        self.add(py, &desc, engine::World::add_soft_body, &[])
    }

    /// Adds a collider of `shape` ("plane", "sphere", "box", "capsule" or "mesh") with the keys
    /// of a scene's `[[collider]]` table that apply to it (`name` to find it with `collider`);
    /// `velocity` and `spin` give it a scripted motion (m/s, rad/s).
    #[pyo3(signature = (shape, *, name=None, point=None, normal=None, center=None, radius=None, half_extents=None, rotation=None, a=None, b=None, mesh=None, position=None, scale=None, friction=None, static_friction=None, kinetic_friction=None, restitution=0.0, stiffness=None, velocity=None, spin=None))]
    fn add_collider(
        &self,
        py: Python<'_>,
        shape: &str,
        name: Option<String>,
        point: Option<V3>,
        normal: Option<V3>,
        center: Option<V3>,
        radius: Option<f32>,
        half_extents: Option<V3>,
        rotation: Option<V3>,
        a: Option<V3>,
        b: Option<V3>,
        mesh: Option<&Bound<'_, PyAny>>,
        position: Option<V3>,
        scale: Option<f32>,
        friction: Option<f32>,
        static_friction: Option<f32>,
        kinetic_friction: Option<f32>,
        restitution: f32,
        stiffness: Option<&Bound<'_, PyAny>>,
        velocity: Option<V3>,
        spin: Option<V3>,
    ) -> PyResult<ColliderHandle> {
        let given = [
            ("point", point.is_some()),
            ("normal", normal.is_some()),
            ("center", center.is_some()),
            ("radius", radius.is_some()),
            ("half_extents", half_extents.is_some()),
            ("rotation", rotation.is_some()),
            ("a", a.is_some()),
            ("b", b.is_some()),
            ("mesh", mesh.is_some()),
            ("position", position.is_some()),
            ("scale", scale.is_some()),
        ];
        let allowed = Shape::keys(shape).map_err(|e| build_error(e, &[]))?;
        if let Some((k, _)) = given.iter().find(|(k, g)| *g && !allowed.contains(k)) {
            return Err(value_error(format!("`{k}` does not apply to a {shape}")));
        }
        let need = |v: Option<V3>, k: &str| {
            v.map(|v| v.0)
                .ok_or_else(|| value_error(format!("a {shape} needs `{k}`")))
        };
        let radius = || radius.ok_or_else(|| value_error(format!("a {shape} needs `radius`")));
        let rotation = convert::rotation(rotation).unwrap_or_else(Quat::identity);
        let shape = match shape {
            "plane" => Shape::Plane {
                point: point.map_or(Vec3::zeros(), |p| p.0),
                normal: normal.map_or(Vec3::y(), |n| n.0),
            },
            "sphere" => Shape::Sphere {
                center: need(center, "center")?,
                radius: radius()?,
            },
            "box" => Shape::Box {
                center: need(center, "center")?,
                half_extents: need(half_extents, "half_extents")?,
                rotation,
            },
            "capsule" => Shape::Capsule {
                a: need(a, "a")?,
                b: need(b, "b")?,
                radius: radius()?,
            },
            _ => {
                let mesh = mesh.ok_or_else(|| {
                    value_error("a mesh needs `mesh` (an OBJ file or (vertices, triangles))")
                })?;
                let scale = positive(scale.unwrap_or(1.0), "scale", "a scale factor")?;
                Shape::Mesh {
                    mesh: Arc::new(MeshShape::new(&mesh_arg(mesh, false)?, scale)),
                    position: position.map_or(Vec3::zeros(), |p| p.0),
                    rotation,
                }
            }
        };
        let friction = friction.unwrap_or(ContactMaterial::default().static_friction);
        non_negative(friction, "friction")?;
        let collider = Collider {
            name: name.unwrap_or_default(),
            shape,
            material: ContactMaterial {
                static_friction: static_friction.unwrap_or(friction),
                kinetic_friction: kinetic_friction.unwrap_or(friction),
                restitution,
            },
            stiffness: convert::stiffness_or(stiffness, "stiffness", Stiffness::default())?,
            motion: Motion {
                velocity: velocity.map_or(Vec3::zeros(), |v| v.0),
                spin: spin.map_or(Vec3::zeros(), |v| v.0),
            },
            solid: true,
        };
        let renames = [("motion", "")];
        self.with(py, |s| {
            let handle = s
                .world
                .add_collider(collider)
                .map_err(|e| build_error(e, &renames))?;
            Ok(ColliderHandle {
                world: self.id,
                handle,
            })
        })
    }

    /// Advances `frames` frames (each `dt` seconds in `substeps` substeps) without holding the
    /// GIL. Raises `SimulationError` if a body blows up.
    #[pyo3(signature = (frames=1))]
    fn step(&self, py: Python<'_>, frames: u32) -> PyResult<()> {
        self.with(py, |s| {
            let start = Instant::now();
            let result = s.world.step_frames(frames);
            if frames > 0 {
                s.step_ms = start.elapsed().as_secs_f64() * 1e3 / f64::from(frames);
            }
            result.map_err(convert::sim_error)
        })
    }

    /// Positions of the body's vertices (a mesh cloth's in the given order), m: a new float32 array of shape (n, 3).
    fn positions<'py>(&self, body: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        self.read(body, |w, h| w.positions(h).to_vec())
    }

    /// Velocities of the body's vertices, m/s: a new float32 array of shape (n, 3).
    fn velocities<'py>(&self, body: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        self.read(body, |w, h| w.velocities(h).to_vec())
    }

    /// The vertices of the body's rendered surface, m (a soft body's skinned surface, the
    /// particles otherwise): a float32 array of shape (k, 3), indexed by `triangles(body)`.
    fn surface<'py>(&self, body: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        self.read(body, |w, h| w.body(h).surface(&w.particles().x))
    }

    /// The triangles of the body's surface (indices into `surface(body)`): a uint32 array of
    /// shape (m, 3), empty for a rope.
    fn triangles<'py>(&self, body: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let py = body.py();
        let body = self.body_ref(body)?;
        let t = self.with(py, |s| {
            Ok(s.world.body(body.resolve(&s.world)?).triangles.clone())
        })?;
        let flat: Vec<u32> = t.iter().flatten().copied().collect();
        Ok(Array2::from_shape_vec((t.len(), 3), flat)
            .expect("three indices per triangle")
            .into_pyarray(py))
    }

    /// Moves the body's vertices to `positions` (float, (n, 3), m), keeping their velocities.
    fn set_positions(
        &self,
        py: Python<'_>,
        body: &Bound<'_, PyAny>,
        positions: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let x = points(positions, "positions")?;
        let body = self.body_ref(body)?;
        self.with(py, |s| {
            let h = body.resolve(&s.world)?;
            s.world.set_positions(h, &x).map_err(world_error)
        })
    }

    /// Sets the velocities of the body's vertices (float, (n, 3), m/s).
    fn set_velocities(
        &self,
        py: Python<'_>,
        body: &Bound<'_, PyAny>,
        velocities: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let v = points(velocities, "velocities")?;
        let body = self.body_ref(body)?;
        self.with(py, |s| {
            let h = body.resolve(&s.world)?;
            s.world.set_velocities(h, &v).map_err(world_error)
        })
    }

    /// Pins vertex `particle` of the body (0-based, as `positions` orders them) where it is: it no
    /// longer moves until `unpin` or `set_positions` moves it.
    fn pin(&self, py: Python<'_>, body: &Bound<'_, PyAny>, particle: i64) -> PyResult<()> {
        self.pin_or_unpin(py, body, particle, engine::World::pin)
    }

    /// Frees vertex `particle` of the body (0-based), giving back its mass.
    fn unpin(&self, py: Python<'_>, body: &Bound<'_, PyAny>, particle: i64) -> PyResult<()> {
        self.pin_or_unpin(py, body, particle, engine::World::unpin)
    }

    /// Moves a collider during the next frame by `translation` (m) and turns it by `rotation`
    /// (degrees about x, y, z) about its centre, at constant velocity, so that what it touches
    /// is pushed and dragged; call it every frame to drive a collider.
    #[pyo3(signature = (collider, translation, rotation=None))]
    fn move_collider(
        &self,
        py: Python<'_>,
        collider: &Bound<'_, ColliderHandle>,
        translation: V3,
        rotation: Option<V3>,
    ) -> PyResult<()> {
        let c = self.collider_ref(collider)?;
        let r = convert::rotation(rotation).unwrap_or_else(Quat::identity);
        self.with(py, |s| {
            s.world
                .move_collider(c, translation.0, r)
                .map_err(world_error)
        })
    }

    /// Sets the scripted motion of a collider from now on: `velocity` m/s and `spin` rad/s
    /// (axis times rate) about its centre; both zero (the default) make it static.
    #[pyo3(signature = (collider, velocity=None, spin=None))]
    fn set_collider_motion(
        &self,
        py: Python<'_>,
        collider: &Bound<'_, ColliderHandle>,
        velocity: Option<V3>,
        spin: Option<V3>,
    ) -> PyResult<()> {
        let c = self.collider_ref(collider)?;
        let motion = Motion {
            velocity: velocity.map_or(Vec3::zeros(), |v| v.0),
            spin: spin.map_or(Vec3::zeros(), |v| v.0),
        };
        self.with(py, |s| {
            s.world.set_collider_motion(c, motion).map_err(world_error)
        })
    }

    /// The centre of a collider now, m (a plane's point, a mesh's position).
    fn collider_center(
        &self,
        py: Python<'_>,
        collider: &Bound<'_, ColliderHandle>,
    ) -> PyResult<(f32, f32, f32)> {
        let c = self.collider_ref(collider)?;
        let p = self.with(py, |s| Ok(s.world.collider(c).shape.center()))?;
        Ok((p.x, p.y, p.z))
    }

    /// The handle of the body called `name`.
    fn body(&self, py: Python<'_>, name: String) -> PyResult<BodyHandle> {
        let body = BodyRef::Name(name);
        self.with(py, |s| Ok(self.handle(&s.world, body.resolve(&s.world)?)))
    }

    /// The handle of the collider called `name` (a scene's `name` key, or `add_collider`'s).
    fn collider(&self, py: Python<'_>, name: String) -> PyResult<ColliderHandle> {
        self.with(py, |s| {
            let handle = s
                .world
                .collider_named(&name)
                .ok_or_else(|| value_error(format!("no collider is called '{name}'")))?;
            Ok(ColliderHandle {
                world: self.id,
                handle,
            })
        })
    }

    /// Handles of every collider, in the order they were added (a scene file's order).
    fn colliders(&self, py: Python<'_>) -> PyResult<Vec<ColliderHandle>> {
        self.with(py, |s| {
            Ok(s.world
                .collider_handles()
                .map(|handle| ColliderHandle {
                    world: self.id,
                    handle,
                })
                .collect())
        })
    }

    /// Handles of every body, in the order they were added.
    fn bodies(&self, py: Python<'_>) -> PyResult<Vec<BodyHandle>> {
        self.with(py, |s| {
            let w = &s.world;
            Ok(w.bodies()
                .iter()
                .filter_map(|b| w.body_named(&b.name))
                .map(|h| self.handle(w, h))
                .collect())
        })
    }

    /// Statistics of the world now, with the fields of a frame of the JSON report (`frame`,
    /// `time`, `step_ms`: the engine's wall time per frame in the last `step` call, `stage_ms`:
    /// the wall time of each stage of its last frame, `kinetic_energy`, `max_strain`, `mean_strain`, `max_penetration`, `torn_edges` and per body `name`,
    /// `volume`, `rest_volume`, `center_of_mass`).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = self.with(py, |s| {
            let w = &s.world;
            let record = FrameRecord {
                frame: w.frame(),
                time: w.frame() as f64 * f64::from(w.params().dt),
                step_ms: s.step_ms,
                stage_ms: *w.stage_ms(),
                stats: FrameStats::measure(w),
            };
            Ok(serde_json::to_string(&record).expect("a report frame serializes"))
        })?;
        py.import("json")?.call_method1("loads", (json,))
    }

    /// Writes every body at the current frame as `DIR/<body>_<frame:05>.obj` (the command
    /// line's `--export` files), creating the folder.
    fn export_obj(&self, py: Python<'_>, dir: std::path::PathBuf) -> PyResult<()> {
        self.with(py, |s| {
            std::fs::create_dir_all(&dir).map_err(|e| {
                PyOSError::new_err(format!(
                    "cannot create the export folder {}: {e}",
                    dir.display()
                ))
            })?;
            export_frame(&s.world, &dir).map_err(|e| PyOSError::new_err(e.to_string()))
        })
    }

    /// Frames simulated so far.
    #[getter]
    fn frame(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(py, |s| Ok(s.world.frame()))
    }

    /// The solver settings, as keyword arguments of `World(...)`.
    #[getter]
    fn settings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = self.with(py, |s| Ok(s.world.params().clone()))?;
        let d = PyDict::new(py);
        d.set_item("dt", p.dt)?;
        d.set_item("substeps", p.substeps)?;
        d.set_item("iterations", p.iterations)?;
        d.set_item("method", p.method.name())?;
        d.set_item("gravity", <[f32; 3]>::from(p.gravity))?;
        d.set_item("damping", p.damping)?;
        d.set_item("wind", <[f32; 3]>::from(p.wind))?;
        d.set_item("max_displacement", p.max_displacement)?;
        d.set_item("shake", p.shake)?;
        Ok(d)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        self.with(py, |s| {
            let names: Vec<&str> = s.world.bodies().iter().map(|b| b.name.as_str()).collect();
            Ok(format!(
                "World(frame={}, bodies=[{}], colliders={})",
                s.world.frame(),
                names.join(", "),
                s.world.colliders().len()
            ))
        })
    }
}

#[pymodule]
fn supple(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<World>()?;
    m.add_class::<BodyHandle>()?;
    m.add_class::<ColliderHandle>()?;
    m.add_class::<convert::Pbd>()?;
    m.add_class::<convert::PbdCorrected>()?;
    m.add_class::<convert::Xpbd>()?;
    m.add(
        "SimulationError",
        m.py().get_type::<convert::SimulationError>(),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
