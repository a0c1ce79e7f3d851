//! The raw tables of a scene file, as serde reads them: unknown keys and wrong types fail here,
//! with the line from the parser. Defaults are the documented ones (README, "Scene files").

use crate::math::Real;
use crate::params::SolverParams;
use serde::Deserialize;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScene {
    #[serde(default)]
    pub(super) solver: RawSolver,
    #[serde(default)]
    pub(super) rope: Vec<RawRope>,
    #[serde(default)]
    pub(super) cloth: Vec<RawCloth>,
    #[serde(default)]
    pub(super) soft_body: Vec<RawSoftBody>,
    #[serde(default)]
    pub(super) collider: Vec<RawCollider>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(super) struct RawSolver {
    pub(super) dt: Real,
    pub(super) substeps: i64,
    pub(super) iterations: i64,
    pub(super) method: String,
    pub(super) gravity: [Real; 3],
    pub(super) damping: Real,
    pub(super) wind: RawWind,
    pub(super) max_displacement: Real,
    pub(super) max_strain: Real,
    pub(super) shake: bool,
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
            wind: RawWind::Steady(p.wind.into()),
            max_displacement: p.max_displacement,
            max_strain: p.max_strain,
            shake: p.shake,
        }
    }
}

/// `[solver] wind`: a velocity, or `{ mean, amplitude, period, wavelength, seed }` (gusts).
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum RawWind {
    Steady([Real; 3]),
    Gusty(RawGust),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGust {
    #[serde(default)]
    pub(super) mean: [Real; 3],
    pub(super) amplitude: Real,
    pub(super) period: Real,
    pub(super) wavelength: Real,
    #[serde(default)]
    pub(super) seed: u64,
}

/// A stiffness table: `{ model = "pbd" | "pbd_corrected", k = .. }`,
/// `{ model = "xpbd", compliance = .., damping = .. }` or
/// `{ model = "elastic", stiffness = .., damping = .. }` or, for a soft body's tets,
/// `{ model = "elastic", youngs = .., poisson = .., damping = .. }`, plus `kind` for cloth bending.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawStiffness {
    pub(super) model: String,
    pub(super) k: Option<Real>,
    pub(super) compliance: Option<Real>,
    pub(super) stiffness: Option<Real>,
    pub(super) damping: Option<Real>,
    pub(super) youngs: Option<Real>,
    pub(super) poisson: Option<Real>,
    pub(super) kind: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRope {
    pub(super) name: Option<String>,
    pub(super) start: [Real; 3],
    pub(super) end: [Real; 3],
    pub(super) segments: i64,
    pub(super) mass: Real,
    #[serde(default)]
    pub(super) pin: RawRopePins,
    pub(super) stretch: Option<RawStiffness>,
    pub(super) bend: Option<RawStiffness>,
    #[serde(default = "default_thickness")]
    pub(super) thickness: Real,
    #[serde(default)]
    pub(super) damping: Real,
    pub(super) shape: Option<RawShape>,
    #[serde(default)]
    pub(super) long_range: bool,
    pub(super) stretch_limit: Option<Real>,
}

/// A rope's `pin`: a list of `"start"` and `"end"`, or `{ collider = "name", at = [..] }`, those
/// ends carried by the named collider.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum RawRopePins {
    List(Vec<String>),
    Carried(RawCarriedEnds),
}

impl Default for RawRopePins {
    fn default() -> Self {
        RawRopePins::List(Vec::new())
    }
}

/// A rope's carried ends: `{ collider = "name", at = ["start", "end"] }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCarriedEnds {
    pub(super) collider: String,
    #[serde(default)]
    pub(super) at: Vec<String>,
}

/// A cloth pin: `[i, j]` on a grid cloth, a vertex index on a mesh cloth.
#[derive(Deserialize, Clone, Copy)]
#[serde(untagged)]
pub(super) enum RawPin {
    Grid([i64; 2]),
    Vertex(i64),
}

/// A cloth's `pin`: a list of pins, or `{ collider = "name", at = [..], edges = [..] }`, pins
/// (`at` as the list, `edges` as `pin_edges`) carried by the named collider.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum RawPins {
    List(Vec<RawPin>),
    Carried(RawCarriedPins),
}

impl Default for RawPins {
    fn default() -> Self {
        RawPins::List(Vec::new())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCarriedPins {
    pub(super) collider: String,
    #[serde(default)]
    pub(super) at: Vec<RawPin>,
    #[serde(default)]
    pub(super) edges: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCloth {
    pub(super) name: Option<String>,
    pub(super) resolution: Option<[i64; 2]>,
    pub(super) size: Option<[Real; 2]>,
    pub(super) center: Option<[Real; 3]>,
    pub(super) orientation: Option<String>,
    pub(super) diagonals: Option<String>,
    pub(super) mesh: Option<String>,
    pub(super) scale: Option<Real>,
    pub(super) rotation: Option<[Real; 3]>,
    pub(super) mass: Real,
    #[serde(default)]
    pub(super) pin: RawPins,
    #[serde(default)]
    pub(super) pin_edges: Vec<String>,
    pub(super) stretch: Option<RawStiffness>,
    pub(super) shear: Option<RawStiffness>,
    pub(super) bend: Option<RawStiffness>,
    #[serde(default = "default_thickness")]
    pub(super) thickness: Real,
    #[serde(default)]
    pub(super) damping: Real,
    #[serde(default)]
    pub(super) drag: Real,
    #[serde(default)]
    pub(super) lift: Real,
    #[serde(default)]
    pub(super) self_collision: bool,
    pub(super) shape: Option<RawShape>,
    #[serde(default)]
    pub(super) long_range: bool,
    pub(super) tear: Option<RawTear>,
    pub(super) stretch_limit: Option<Real>,
    pub(super) weld: Option<Real>,
}

/// Tearing of a cloth: `{ strain }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTear {
    pub(super) strain: Real,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSoftBody {
    pub(super) name: Option<String>,
    pub(super) mesh: String,
    pub(super) model: Option<String>,
    pub(super) resolution: Option<i64>,
    pub(super) mass: Real,
    pub(super) center: Option<[Real; 3]>,
    pub(super) rotation: Option<[Real; 3]>,
    pub(super) fit: Option<Real>,
    pub(super) scale: Option<Real>,
    pub(super) edge: Option<RawStiffness>,
    pub(super) volume: Option<RawStiffness>,
    pub(super) bend: Option<RawStiffness>,
    pub(super) pressure: Option<Real>,
    pub(super) shape: Option<RawShape>,
    #[serde(default = "default_thickness")]
    pub(super) thickness: Real,
    #[serde(default)]
    pub(super) damping: Real,
}

/// Shape-matching material: `{ stiffness, beta, yield, creep, max }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawShape {
    pub(super) stiffness: Option<Real>,
    pub(super) beta: Option<Real>,
    #[serde(rename = "yield")]
    pub(super) plastic_yield: Option<Real>,
    pub(super) creep: Option<Real>,
    pub(super) max: Option<Real>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCollider {
    pub(super) name: Option<String>,
    pub(super) shape: String,
    pub(super) point: Option<[Real; 3]>,
    pub(super) normal: Option<[Real; 3]>,
    pub(super) center: Option<[Real; 3]>,
    pub(super) radius: Option<Real>,
    pub(super) half_extents: Option<[Real; 3]>,
    pub(super) rotation: Option<[Real; 3]>,
    pub(super) a: Option<[Real; 3]>,
    pub(super) b: Option<[Real; 3]>,
    pub(super) mesh: Option<String>,
    pub(super) position: Option<[Real; 3]>,
    pub(super) scale: Option<Real>,
    pub(super) motion: Option<RawMotion>,
    pub(super) friction: Option<Real>,
    pub(super) static_friction: Option<Real>,
    pub(super) kinetic_friction: Option<Real>,
    #[serde(default)]
    pub(super) restitution: Real,
    pub(super) stiffness: Option<RawStiffness>,
}

/// A kinematic collider's motion: `{ spin = [wx, wy, wz] }` rad/s and/or `{ velocity = [..] }` m/s.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMotion {
    pub(super) spin: Option<[Real; 3]>,
    pub(super) velocity: Option<[Real; 3]>,
}

fn default_thickness() -> Real {
    0.01
}
