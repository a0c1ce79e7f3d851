//! Output files: an OBJ per body per frame, and the JSON report. Every file is written
//! atomically: to a temporary file beside it, then renamed over the target.

use crate::bodies::{Body, BodyKind};
use crate::math::{Real, Vec3};
use crate::params::SolverParams;
use crate::stats::FrameStats;
use crate::world::World;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A file that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {path}: {source}")]
pub struct ExportError {
    /// The file or folder.
    pub path: String,
    /// The OS error.
    #[source]
    pub source: std::io::Error,
}

/// Writes `bytes` to `path` atomically: to a new temporary file in the same folder (named after
/// the file, this process and a counter, created exclusively), flushed to disk, then renamed over
/// `path`. Readers see the old file or the whole new one, never a part; on failure the temporary
/// file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let err = |source| ExportError {
        path: path.display().to_string(),
        source,
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| {
        err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a file name",
        ))
    })?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(
        ".{}.{}.{n}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(bytes)?;
            f.sync_all()
        })
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map_err(err)
}

/// Area-weighted vertex normals of a triangle mesh (unit length; zero for isolated vertices).
pub fn vertex_normals(x: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Vec3> {
    let mut n = vec![Vec3::zeros(); x.len()];
    for t in triangles {
        let [a, b, c] = t.map(|i| i as usize);
        let face = (x[b] - x[a]).cross(&(x[c] - x[a]));
        for i in [a, b, c] {
            n[i] += face;
        }
    }
    n.iter()
        .map(|v| v.try_normalize(Real::EPSILON).unwrap_or_default())
        .collect()
}

/// The OBJ text of `body` at positions `x` (the world's): its [surface](Body::surface)
/// vertices in order; a cloth or soft body with per-vertex normals and faces
/// `f a//a b//b c//c`, a rope as one polyline `l`.
pub fn body_obj(body: &Body, x: &[Vec3]) -> String {
    let x = &body.surface(x);
    let mut s = format!("# Supple body '{}'\no {}\n", body.name, body.name);
    for p in x {
        let _ = writeln!(s, "v {} {} {}", p.x, p.y, p.z);
    }
    match body.kind {
        BodyKind::Cloth | BodyKind::Soft => {
            for n in vertex_normals(x, &body.triangles) {
                let _ = writeln!(s, "vn {} {} {}", n.x, n.y, n.z);
            }
            for t in &body.triangles {
                let [a, b, c] = t.map(|i| i + 1);
                let _ = writeln!(s, "f {a}//{a} {b}//{b} {c}//{c}");
            }
        }
        BodyKind::Rope => {
            s.push('l');
            for i in 1..=x.len() {
                let _ = write!(s, " {i}");
            }
            s.push('\n');
        }
    }
    s
}

/// The file of `body` at `frame` in `dir`: `DIR/<body>_<frame:05>.obj`.
pub fn frame_path(dir: &Path, body: &str, frame: u64) -> PathBuf {
    dir.join(format!("{body}_{frame:05}.obj"))
}

/// Writes every body of `world` at its current frame into `dir`.
pub fn export_frame(world: &World, dir: &Path) -> Result<(), ExportError> {
    for body in &world.bodies {
        write_atomic(
            &frame_path(dir, &body.name, world.frame),
            body_obj(body, &world.particles.x).as_bytes(),
        )?;
    }
    Ok(())
}

/// One frame of the report.
#[derive(Clone, Debug, Serialize)]
pub struct FrameRecord {
    /// Frame number (0 is the initial state).
    pub frame: u64,
    /// Simulated time, s.
    pub time: f64,
    /// Wall time of the step that produced this frame, ms (0 for frame 0).
    pub step_ms: f64,
    /// Statistics at the end of the frame.
    #[serde(flatten)]
    pub stats: FrameStats,
}

/// The solver settings as reported.
#[derive(Clone, Debug, Serialize)]
pub struct Settings {
    /// Frame time step, s.
    pub dt: Real,
    /// Substeps per frame.
    pub substeps: u32,
    /// Constraint iterations per substep.
    pub iterations: u32,
    /// Projection method's name.
    pub method: &'static str,
    /// Gravity, m/s².
    pub gravity: [Real; 3],
    /// Global linear damping, 1/s.
    pub damping: Real,
    /// Wind velocity, m/s.
    pub wind: [Real; 3],
    /// Strain past which the run stops as diverging.
    pub max_strain: Real,
    /// Rayon worker threads available to the solver.
    pub threads: usize,
}

impl From<&SolverParams> for Settings {
    fn from(p: &SolverParams) -> Self {
        Settings {
            dt: p.dt,
            substeps: p.substeps,
            iterations: p.iterations,
            method: p.method.name(),
            gravity: p.gravity.into(),
            damping: p.damping,
            wind: p.wind.into(),
            max_strain: p.max_strain,
            threads: rayon::current_num_threads(),
        }
    }
}

/// The JSON report of a run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Scene name.
    pub scene: String,
    /// Solver settings.
    pub settings: Settings,
    /// One record per frame, from frame 0.
    pub frames: Vec<FrameRecord>,
}

impl Report {
    /// Writes the report to `path` atomically, as pretty-printed JSON.
    pub fn write(&self, path: &Path) -> Result<(), ExportError> {
        let json = serde_json::to_vec_pretty(self).expect("the report serializes");
        write_atomic(path, &json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normals_of_a_flat_square_point_along_its_face() {
        let x = [
            Vec3::zeros(),
            Vec3::x(),
            Vec3::z(),
            Vec3::new(1.0, 0.0, 1.0),
        ];
        let n = vertex_normals(&x, &[[0, 2, 1], [1, 2, 3]]);
        for v in n {
            assert!((v - Vec3::y()).norm() < 1e-6);
        }
    }

    #[test]
    fn atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn atomic_write_into_a_missing_folder_fails_and_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing/a.txt");
        let e = write_atomic(&path, b"one").unwrap_err();
        assert!(e.to_string().contains("missing/a.txt"), "{e}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
