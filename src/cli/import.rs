//! `supple import MESH.obj`: a mesh becomes a soft body dropped on the ground, run like a scene.
//!
//! The import writes the scene it runs (a `[[soft_body]]` over the mesh, a ground plane and the
//! solver settings) and loads it like any scene file, so that `--out SCENE.toml` reproduces it.

use super::run::{RunOutput, run_scene, set_threads};
use crate::bodies::soft_body::{SoftMaterial, SoftModel, fit_scale};
use crate::export::write_atomic;
use crate::math::{Real, Vec3};
use crate::mesh::clean::{clean, default_weld_tolerance};
use crate::mesh::obj::load_obj;
use crate::mesh::topology::boundary_edge_count;
use crate::params::SolverParams;
use crate::scene::{Scene, SceneError, parse_scene};
use clap::Args;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Height of the lowest point of the mesh above the ground before the drop, m (the lattice of a
/// volumetric model reaches up to one cell further down).
pub const DROP_HEIGHT: Real = 0.1;

/// Arguments of `supple import`.
#[derive(Args, Debug, Clone)]
pub struct ImportArgs {
    /// The mesh (OBJ).
    pub mesh: PathBuf,
    /// Soft-body model: tets (tet lattice, volume and edge constraints), clusters (shape
    /// matching), rigid (one cluster) or surface (edges, bending and pressure; closed meshes).
    #[arg(long, default_value = "tets", value_parser = model_name)]
    pub model: SoftModel,
    /// Lattice cells along the longest side (tets, clusters, rigid).
    #[arg(long, default_value_t = SoftMaterial::default().resolution, value_parser = clap::value_parser!(u32).range(1..))]
    pub resolution: u32,
    /// Scale the mesh so that its longest side is SIZE metres.
    #[arg(long, value_name = "SIZE", default_value_t = 1.0, value_parser = positive)]
    pub fit: Real,
    /// Scale factor from file units to metres (overrides --fit).
    #[arg(long, value_parser = positive)]
    pub scale: Option<Real>,
    /// Centre of the mesh's bounding box, m (default: above the origin, dropped from 10 cm).
    #[arg(long, value_name = "X,Y,Z", value_parser = point)]
    pub at: Option<Vec3>,
    /// Mass of the body, kg.
    #[arg(long, default_value_t = 1.0, value_parser = positive)]
    pub mass: Real,
    /// Write a scene file that reproduces this import.
    #[arg(long, value_name = "SCENE.toml")]
    pub out: Option<PathBuf>,
    /// Window or headless run, export and report.
    #[command(flatten)]
    pub output: RunOutput,
}

fn model_name(s: &str) -> Result<SoftModel, String> {
    SoftModel::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = SoftModel::ALL.iter().map(|m| m.name()).collect();
        format!("expected one of {}, got '{s}'", names.join(", "))
    })
}

fn positive(s: &str) -> Result<Real, String> {
    match s.parse::<Real>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("expected a number > 0, got '{s}'")),
    }
}

fn point(s: &str) -> Result<Vec3, String> {
    let v: Vec<Real> = s
        .split(',')
        .map(|c| c.trim().parse::<Real>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("expected X,Y,Z in metres, got '{s}'"))?;
    match v[..] {
        [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok(Vec3::new(x, y, z)),
        _ => Err(format!("expected three finite numbers X,Y,Z, got '{s}'")),
    }
}

/// Runs `supple import`.
pub fn import(args: &ImportArgs) -> anyhow::Result<()> {
    set_threads(&args.output)?;
    let started = Instant::now();
    let scene = import_scene(args)?;
    println!(
        "imported in {:.2} s: {} particles, {} constraints, {} clusters",
        started.elapsed().as_secs_f64(),
        scene.world.particles.len(),
        constraint_count(&scene),
        scene.world.clusters().len()
    );
    run_scene(scene, &args.output)
}

fn constraint_count(scene: &Scene) -> usize {
    let cs = &scene.world.constraints;
    cs.stretch.len() + cs.dihedral.len() + cs.isometric.len() + cs.volume.len() + cs.pressure.len()
}

/// Loads and cleans the mesh (printing what was cleaned), builds the scene of the import and
/// writes it to `--out` if given (only once it has built).
pub fn import_scene(args: &ImportArgs) -> anyhow::Result<Scene> {
    let raw = load_obj(&args.mesh)?;
    let (mesh, report) = clean(&raw, default_weld_tolerance(&raw));
    println!(
        "{}: {} vertices, {} triangles; {report}; {} vertices, {} triangles, {} boundary edges left",
        args.mesh.display(),
        raw.positions.len(),
        raw.triangles.len(),
        mesh.positions.len(),
        mesh.triangles.len(),
        boundary_edge_count(&mesh.triangles)
    );
    let scale = args.scale.unwrap_or_else(|| fit_scale(&mesh, args.fit));
    let (lo, hi) = mesh.positions.iter().fold(
        (Vec3::repeat(Real::MAX), Vec3::repeat(Real::MIN)),
        |(lo, hi), p| (lo.inf(p), hi.sup(p)),
    );
    let size = (hi - lo) * scale;
    let cell = if args.model.is_volumetric() {
        size.max() / args.resolution as Real
    } else {
        0.0
    };
    let at = args
        .at
        .unwrap_or_else(|| Vec3::new(0.0, size.y / 2.0 + DROP_HEIGHT + cell, 0.0));
    let name = args
        .mesh
        .file_stem()
        .map_or_else(|| "body".to_string(), |s| sanitize(&s.to_string_lossy()));
    let mesh_abs = std::path::absolute(&args.mesh)?;
    let mut params = SolverParams::default();
    args.output.solver.apply(&mut params);
    let (scene_path, mesh_path) = match &args.out {
        Some(out) => {
            let dir = std::path::absolute(out)?
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            let rel = mesh_abs
                .strip_prefix(&dir)
                .unwrap_or(&mesh_abs)
                .to_path_buf();
            (out.clone(), rel)
        }
        None => (PathBuf::from(format!("{name}.toml")), mesh_abs),
    };
    let text = scene_text(args, &name, &mesh_path, scale, at, &params);
    let world = parse_scene(&text, &scene_path).map_err(|e| import_error(e, &args.mesh))?;
    if let Some(out) = &args.out {
        write_atomic(out, text.as_bytes())?;
        println!("wrote {}", out.display());
    }
    Ok(Scene { name, world })
}

/// An error of the generated scene, told in terms of what the user gave: the mesh file (whose
/// own errors already name it and the line) rather than a scene file that does not exist.
fn import_error(e: SceneError, mesh: &Path) -> anyhow::Error {
    match e {
        SceneError::Mesh { source, .. } => anyhow::anyhow!("{source}"),
        SceneError::Invalid { key, message, .. } if key == "soft_body[0].mesh" => {
            anyhow::anyhow!("{}: {message}", mesh.display())
        }
        SceneError::Invalid { key, message, .. } => {
            anyhow::anyhow!("{}: `{key}` {message}", mesh.display())
        }
        other => other.into(),
    }
}

/// A body name from a file stem: letters, digits, `-`, `_` and `.` kept, the rest `_`.
fn sanitize(stem: &str) -> String {
    let s: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        format!("body{s}")
    } else {
        s
    }
}

/// The scene file of an import.
fn scene_text(
    args: &ImportArgs,
    name: &str,
    mesh: &Path,
    scale: Real,
    at: Vec3,
    params: &SolverParams,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# A soft body dropped on the ground, written by `supple import`.\n\n[solver]\ndt = {}\nsubsteps = {}\niterations = {}\n",
        params.dt, params.substeps, params.iterations
    );
    let _ = writeln!(
        s,
        "[[soft_body]]\nname = {}\nmesh = {}\nmodel = \"{}\"",
        toml_string(name),
        toml_string(&mesh.to_string_lossy()),
        args.model.name()
    );
    if args.model.is_volumetric() {
        let _ = writeln!(s, "resolution = {}", args.resolution);
    }
    let _ = writeln!(
        s,
        "mass = {}\nscale = {scale}\ncenter = [{}, {}, {}]\n",
        args.mass, at.x, at.y, at.z
    );
    s.push_str(
        "[[collider]]\nshape = \"plane\"\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 1.0, 0.0]\n",
    );
    s
}

/// `value` as a TOML basic string.
fn toml_string(value: &str) -> String {
    toml::Value::String(value.to_string()).to_string()
}
