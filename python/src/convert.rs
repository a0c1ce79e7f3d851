//! Python values to the engine's types and back: NumPy arrays to `Vec3`s and triangles, the
//! stiffness and shape-matching tables (dicts, or the `Pbd`/`PbdCorrected`/`Xpbd` classes, with
//! the keys of a scene file), and the engine's errors to Python exceptions.

use engine::{
    BendKind, BuildError, ClusterMaterial, Gust, ObjError, Quat, SceneError, SimError, Stiffness,
    StiffnessKeys, Vec3, WorldError,
};
use numpy::{AllowTypeChange, PyArrayDyn, PyArrayMethods};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

pyo3::create_exception!(
    supple,
    SimulationError,
    PyRuntimeError,
    "A simulation that blew up: a body got a non-finite position, or stretched past the solver's \
     max_strain (the message names the body and the frame)."
);

/// A `ValueError` saying `message`.
pub fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// The `ValueError` of a description the engine refused, its key's first part renamed from the
/// engine's field name to the Python argument's (`renames` holds `(engine, python)` pairs).
pub fn build_error(e: BuildError, renames: &[(&str, &str)]) -> PyErr {
    let split = e.key.find(['.', '[']).unwrap_or(e.key.len());
    let (head, rest) = e.key.split_at(split);
    let head = renames
        .iter()
        .find(|(engine, _)| *engine == head)
        .map_or(head, |(_, python)| python);
    value_error(format!("`{head}{rest}` {}", e.message))
}

/// A call on a world with an argument it cannot take: `ValueError` with the engine's message.
pub fn world_error(e: WorldError) -> PyErr {
    value_error(e.to_string())
}

/// `v` as a number > 0 (finite), or a `ValueError` at `key` saying that `what` was expected.
pub fn positive(v: f32, key: &str, what: &str) -> PyResult<f32> {
    match v.is_finite() && v > 0.0 {
        true => Ok(v),
        false => Err(value_error(format!("`{key}` = {v}: expected {what} > 0"))),
    }
}

/// `v` as a number ≥ 0 (finite), or a `ValueError` at `key`.
pub fn non_negative(v: f32, key: &str) -> PyResult<f32> {
    match v.is_finite() && v >= 0.0 {
        true => Ok(v),
        false => Err(value_error(format!("`{key}` = {v}: expected a value >= 0"))),
    }
}

/// A scene that failed to load: `FileNotFoundError`/`OSError` when it cannot be read, a
/// `ValueError` with the command line's message otherwise.
pub fn scene_error(e: SceneError) -> PyErr {
    match &e {
        SceneError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(e.to_string())
        }
        SceneError::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => value_error(e.to_string()),
    }
}

/// A mesh file that failed to load: `FileNotFoundError`/`OSError` when it cannot be read, a
/// `ValueError` naming the file and line otherwise.
pub fn obj_error(e: ObjError) -> PyErr {
    match &e {
        ObjError::Unreadable { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(e.to_string())
        }
        ObjError::Unreadable { .. } => PyOSError::new_err(e.to_string()),
        _ => value_error(e.to_string()),
    }
}

/// A blow-up, as a [`SimulationError`].
pub fn sim_error(e: SimError) -> PyErr {
    SimulationError::new_err(e.to_string())
}

/// The rows of `ob`, an array-like of shape `(n, 3)` named `key` in messages, as `T`
/// (`integer` asks for integer values: a float array is refused rather than truncated).
fn rows<T: numpy::Element + Copy>(
    ob: &Bound<'_, PyAny>,
    key: &str,
    integer: bool,
) -> PyResult<Vec<[T; 3]>> {
    let np = ob.py().import("numpy")?;
    let array = np.call_method1("asarray", (ob,))?;
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    if shape.len() != 2 || shape[1] != 3 {
        let shown: Vec<String> = shape.iter().map(usize::to_string).collect();
        let comma = if shape.len() == 1 { "," } else { "" };
        return Err(value_error(format!(
            "`{key}` has shape ({}{comma}): expected an (n, 3) array",
            shown.join(", ")
        )));
    }
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    let allowed = if integer { "iu" } else { "iuf" };
    if shape[0] > 0 && !allowed.contains(kind.as_str()) {
        let what = if integer { "integers" } else { "numbers" };
        return Err(value_error(format!(
            "`{key}` has dtype kind '{kind}': expected {what}"
        )));
    }
    let converted = array
        .call_method1("astype", (T::get_dtype(ob.py()),))?
        .cast_into::<PyArrayDyn<T>>()?;
    let readonly = converted.readonly();
    let view = readonly.as_array();
    Ok(view
        .rows()
        .into_iter()
        .map(|r| [r[0], r[1], r[2]])
        .collect())
}

/// Points from a float array-like of shape `(n, 3)`, m.
pub fn points(ob: &Bound<'_, PyAny>, key: &str) -> PyResult<Vec<Vec3>> {
    Ok(rows::<f32>(ob, key, false)?
        .into_iter()
        .map(Vec3::from)
        .collect())
}

/// Triangles from an integer array-like of shape `(m, 3)`; a negative or too large index is a
/// `ValueError` in the engine's words (the range check against the vertex count is the
/// engine's).
pub fn triangles(ob: &Bound<'_, PyAny>, key: &str, vertices: usize) -> PyResult<Vec<[u32; 3]>> {
    rows::<i64>(ob, key, true)?
        .into_iter()
        .enumerate()
        .map(|(k, t)| {
            t.iter()
                .all(|&v| (0..=i64::from(u32::MAX)).contains(&v))
                .then(|| t.map(|v| v as u32))
                .ok_or_else(|| {
                    value_error(format!(
                        "`{key}[{k}]` = {t:?}: expected vertex indices in 0..{vertices}"
                    ))
                })
        })
        .collect()
}

/// A vertex index from Python (a negative one is refused with the engine's message).
pub fn vertex_index(i: i64, vertices: usize, key: &str) -> PyResult<usize> {
    usize::try_from(i).map_err(|_| {
        value_error(format!(
            "`{key}` = {i}: expected a vertex index in 0..{vertices} (the mesh's vertices, 0-based)"
        ))
    })
}

/// A point or vector: any sequence or array of 3 numbers.
#[derive(Clone, Copy, Debug)]
pub struct V3(pub Vec3);

impl<'a, 'py> FromPyObject<'a, 'py> for V3 {
    type Error = PyErr;

    fn extract(ob: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let v: numpy::PyArrayLike1<'py, f32, AllowTypeChange> = ob.extract()?;
        let v = v.as_array();
        match v.len() {
            3 => Ok(V3(Vec3::new(v[0], v[1], v[2]))),
            n => Err(value_error(format!(
                "has {n} numbers: expected 3 (x, y, z)"
            ))),
        }
    }
}

/// A rotation given as degrees about x, y and z (fixed axes, in that order), as in scene files.
pub fn rotation(degrees: Option<V3>) -> Option<Quat> {
    degrees.map(|V3(r)| {
        let r = r.map(f32::to_radians);
        Quat::from_euler_angles(r.x, r.y, r.z)
    })
}

/// PBD stiffness `k` in [0, 1]: `{"model": "pbd", "k": k}` as a class.
#[pyclass(module = "supple", frozen, get_all)]
pub struct Pbd {
    /// Stiffness in [0, 1].
    k: f32,
}

#[pymethods]
impl Pbd {
    #[new]
    fn new(k: f32) -> Self {
        Pbd { k }
    }

    fn __repr__(&self) -> String {
        format!("Pbd(k={})", self.k)
    }
}

/// Iteration-corrected PBD stiffness: `{"model": "pbd_corrected", "k": k}` as a class.
#[pyclass(module = "supple", frozen, get_all)]
pub struct PbdCorrected {
    /// Stiffness in [0, 1], as if the solver ran one iteration.
    k: f32,
}

#[pymethods]
impl PbdCorrected {
    #[new]
    fn new(k: f32) -> Self {
        PbdCorrected { k }
    }

    fn __repr__(&self) -> String {
        format!("PbdCorrected(k={})", self.k)
    }
}

/// XPBD compliance (m/N, 0 is rigid) and damping (s): `{"model": "xpbd", ...}` as a class.
#[pyclass(module = "supple", frozen, get_all)]
pub struct Xpbd {
    /// Compliance α ≥ 0, the inverse stiffness.
    compliance: f32,
    /// Constraint damping β ≥ 0, s.
    damping: f32,
}

#[pymethods]
impl Xpbd {
    #[new]
    #[pyo3(signature = (compliance = 0.0, damping = 0.0))]
    fn new(compliance: f32, damping: f32) -> Self {
        Xpbd {
            compliance,
            damping,
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Xpbd(compliance={}, damping={})",
            self.compliance, self.damping
        )
    }
}

/// The string keys and values of a dict given at `key`, refusing keys not in `allowed`.
fn table<'py>(
    dict: &Bound<'py, PyDict>,
    key: &str,
    allowed: &[&str],
) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
    dict.iter()
        .map(|(k, v)| {
            let k: String = k.extract()?;
            if allowed.contains(&k.as_str()) {
                Ok((k, v))
            } else {
                Err(value_error(format!(
                    "`{key}` has unknown key `{k}`: expected {}",
                    allowed.join(", ")
                )))
            }
        })
        .collect()
}

/// A stiffness given at `key` as a dict with the scene keys (`model`, `k`, `compliance`,
/// `stiffness`, `damping`, and `kind` when `allow_kind`, for cloth bending) or as a `Pbd`, `PbdCorrected` or
/// `Xpbd`; returns it with the bending kind the dict names (`None` when it names none).
pub fn stiffness(
    ob: &Bound<'_, PyAny>,
    key: &str,
    allow_kind: bool,
) -> PyResult<(Stiffness, Option<BendKind>)> {
    if let Ok(s) = ob.cast::<Pbd>() {
        return Ok((Stiffness::Pbd { k: s.get().k }, None));
    }
    if let Ok(s) = ob.cast::<PbdCorrected>() {
        return Ok((Stiffness::PbdCorrected { k: s.get().k }, None));
    }
    if let Ok(s) = ob.cast::<Xpbd>() {
        let s = s.get();
        let (compliance, damping) = (s.compliance, s.damping);
        return Ok((
            Stiffness::Xpbd {
                compliance,
                damping,
            },
            None,
        ));
    }
    let dict = ob.cast::<PyDict>().map_err(|_| {
        value_error(format!(
            "`{key}` is a {}: expected a dict such as {{\"model\": \"xpbd\", \"compliance\": 1e-6}} or supple.Pbd/PbdCorrected/Xpbd",
            ob.get_type().name().map_or("?".into(), |n| n.to_string())
        ))
    })?;
    let keys = [
        "model",
        "k",
        "compliance",
        "stiffness",
        "damping",
        "youngs",
        "poisson",
        "kind",
    ];
    let entries = table(dict, key, &keys[..if allow_kind { 8 } else { 7 }])?;
    let get = |name: &str| entries.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    let number =
        |name: &str| -> PyResult<Option<f32>> { get(name).map(|v| v.extract::<f32>()).transpose() };
    let model: String = get("model")
        .ok_or_else(|| {
            value_error(format!(
                "`{key}` has no `model`: expected \"pbd\", \"pbd_corrected\", \"xpbd\" or \"elastic\""
            ))
        })?
        .extract()?;
    let keys = StiffnessKeys {
        k: number("k")?,
        compliance: number("compliance")?,
        stiffness: number("stiffness")?,
        damping: number("damping")?,
        youngs: number("youngs")?,
        poisson: number("poisson")?,
    };
    let stiffness =
        Stiffness::from_keys(&model, keys).map_err(|e| build_error(e.within(key), &[]))?;
    let kind = get("kind")
        .map(|k| bend_kind(&k.extract::<String>()?, &format!("{key}.kind")))
        .transpose()?;
    Ok((stiffness, kind))
}

/// A cloth's bending kind by its scene name, `dihedral`, `cross-distance` or `isometric`.
pub fn bend_kind(name: &str, key: &str) -> PyResult<BendKind> {
    BendKind::from_name(name).map_err(|e| build_error(BuildError::new(key, e.message), &[]))
}

/// An optional stiffness that is not cloth bending, `default` when `None`.
pub fn stiffness_or(
    ob: Option<&Bound<'_, PyAny>>,
    key: &str,
    default: Stiffness,
) -> PyResult<Stiffness> {
    ob.map_or(Ok(default), |s| Ok(stiffness(s, key, false)?.0))
}

/// A shape-matching material given at `key` as a dict with the keys of a scene's `shape` table
/// (`stiffness`, `beta`, `yield`, `creep`, `max`), `default` for those left out.
pub fn cluster_material(
    ob: &Bound<'_, PyAny>,
    key: &str,
    default: ClusterMaterial,
) -> PyResult<ClusterMaterial> {
    let dict = ob.cast::<PyDict>().map_err(|_| {
        value_error(format!(
            "`{key}` is not a dict: expected {{\"stiffness\": 1.0, \"beta\": 0.0, ...}}"
        ))
    })?;
    let mut m = default;
    for (k, v) in table(dict, key, &["stiffness", "beta", "yield", "creep", "max"])? {
        let v: f32 = v.extract()?;
        match k.as_str() {
            "stiffness" => m.stiffness = v,
            "beta" => m.beta = v,
            "yield" => m.plastic_yield = v,
            "creep" => m.creep = v,
            _ => m.max = v,
        }
    }
    Ok(m)
}

/// The `wind` of a world: a vector (m/s), or a dict of the scene's gust keys (`mean`,
/// `amplitude`, `period`, `wavelength`, `seed`): the mean wind and the gusts on it.
pub fn wind(ob: &Bound<'_, PyAny>) -> PyResult<(Vec3, Option<Gust>)> {
    let Ok(dict) = ob.cast::<PyDict>() else {
        let v: V3 = ob
            .extract()
            .map_err(|e| value_error(format!("`wind` {e}")))?;
        return Ok((v.0, None));
    };
    let keys = ["mean", "amplitude", "period", "wavelength", "seed"];
    let (mut mean, mut seed) = (Vec3::zeros(), 0);
    let mut wave: [Option<f32>; 3] = [None; 3];
    for (k, v) in table(dict, "wind", &keys)? {
        match k.as_str() {
            "mean" => mean = v.extract::<V3>()?.0,
            "seed" => seed = v.extract()?,
            "amplitude" => wave[0] = Some(v.extract()?),
            "period" => wave[1] = Some(v.extract()?),
            _ => wave[2] = Some(v.extract()?),
        }
    }
    let [amplitude, period, wavelength] = [0, 1, 2]
        .map(|i| wave[i].ok_or_else(|| value_error(format!("`wind` has no `{}`", keys[i + 1]))));
    let gust = Gust {
        amplitude: amplitude?,
        period: period?,
        wavelength: wavelength?,
        seed,
    };
    Ok((mean, Some(gust)))
}

/// A path, given as `str` or `os.PathLike`, if `ob` is one.
pub fn path(ob: &Bound<'_, PyAny>) -> Option<std::path::PathBuf> {
    if ob.is_instance_of::<PyString>() || ob.hasattr("__fspath__").unwrap_or(false) {
        ob.extract().ok()
    } else {
        None
    }
}

/// A whole number of at least `min` (a count of substeps, segments, ...), as `u32`.
pub fn count(v: i64, key: &str, min: u32) -> PyResult<u32> {
    u32::try_from(v)
        .ok()
        .filter(|&v| v >= min)
        .ok_or_else(|| value_error(format!("`{key}` = {v}: expected a whole number >= {min}")))
}
