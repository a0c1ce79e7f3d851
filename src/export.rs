//! Output files: an OBJ per body per frame, one USD file of a whole run ([`usd`]), and the JSON
//! report. Every file is written atomically: to a temporary file beside it, then renamed over
//! the target.

use crate::bodies::{Body, BodyKind};
use crate::math::{Real, Vec3};
use crate::params::SolverParams;
use crate::stats::FrameStats;
use crate::timing::StageMs;
use crate::world::World;
use serde::Serialize;
use std::fmt::Write as _;
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub mod usd;

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

/// A new file in the folder of a target file, named after it, this process and a counter, and
/// created exclusively; removed when dropped unless [persisted](TempFile::persist) over the
/// target. Errors name the target.
#[derive(Debug)]
pub struct TempFile {
    /// The temporary file's path.
    path: PathBuf,
    /// The file the temporary file may become.
    target: PathBuf,
    file: File,
    /// True once renamed over the target.
    persisted: bool,
}

impl TempFile {
    /// Creates an empty temporary file beside `target` (which need not exist).
    pub fn beside(target: &Path) -> Result<Self, ExportError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let dir = target
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = target.file_name().ok_or_else(|| {
            export_error(
                target,
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"),
            )
        })?;
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(
            ".{}.{}.{n}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| export_error(target, e))?;
        Ok(TempFile {
            path,
            target: target.to_path_buf(),
            file,
            persisted: false,
        })
    }

    /// The temporary file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The error of an I/O operation on this file: it names the target.
    pub fn error(&self, source: std::io::Error) -> ExportError {
        export_error(&self.target, source)
    }

    /// Flushes the file to disk and renames it over the target: readers see the old target or
    /// the whole new file, never a part. On failure the temporary file is removed.
    pub fn persist(mut self) -> Result<(), ExportError> {
        self.file
            .sync_all()
            .and_then(|()| std::fs::rename(&self.path, &self.target))
            .map_err(|e| self.error(e))?;
        self.persisted = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.persisted {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl std::io::Write for TempFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl std::io::Read for TempFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        std::io::Read::read(&mut self.file, buf)
    }
}

impl std::io::Seek for TempFile {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        std::io::Seek::seek(&mut self.file, pos)
    }
}

fn export_error(path: &Path, source: std::io::Error) -> ExportError {
    ExportError {
        path: path.display().to_string(),
        source,
    }
}

/// Writes `bytes` to `path` atomically: to a [`TempFile`] beside it, flushed to disk, then
/// renamed over `path`. Readers see the old file or the whole new one, never a part; on failure
/// the temporary file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    let mut tmp = TempFile::beside(path)?;
    tmp.write_all(bytes).map_err(|e| tmp.error(e))?;
    tmp.persist()
}

/// Area-weighted vertex normals of a triangle mesh (unit length; zero for isolated vertices).
pub fn vertex_normals(x: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Vec3> {
    let mut n = Vec::new();
    vertex_normals_into(x, triangles, &mut n);
    n
}

/// [`vertex_normals`] into `n` (cleared first; no allocation once it is large enough), for a
/// renderer that updates a mesh every frame.
pub fn vertex_normals_into(x: &[Vec3], triangles: &[[u32; 3]], n: &mut Vec<Vec3>) {
    n.clear();
    n.resize(x.len(), Vec3::zeros());
    for t in triangles {
        let [a, b, c] = t.map(|i| i as usize);
        let face = (x[b] - x[a]).cross(&(x[c] - x[a]));
        for i in [a, b, c] {
            n[i] += face;
        }
    }
    for v in n.iter_mut() {
        *v = v.try_normalize(Real::EPSILON).unwrap_or_default();
    }
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
    /// Wall time of each stage of that step, ms (all 0 for frame 0).
    pub stage_ms: StageMs,
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
    /// Whether distance constraints are projected along their start direction (SHAKE).
    pub shake: bool,
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
            shake: p.shake,
            threads: rayon::current_num_threads(),
        }
    }
}

/// How a body was made from its description, as reported.
#[derive(Clone, Debug, Serialize)]
pub struct BodyRecord {
    /// The body's name.
    pub name: String,
    /// Its kind: `cloth`, `rope` or `soft_body`.
    pub kind: &'static str,
    /// Its vertices, as exported (for a cloth from a mesh, the file's).
    pub vertices: usize,
    /// Its particles.
    pub particles: usize,
    /// Vertices welded into another at the same point (a mesh cloth's seams).
    pub welded_vertices: usize,
    /// Triangles left out of the simulation (a mesh cloth's slivers, needles, degenerate or
    /// repeated faces).
    pub collapsed_triangles: usize,
}

impl From<&Body> for BodyRecord {
    fn from(b: &Body) -> Self {
        BodyRecord {
            name: b.name.clone(),
            kind: b.kind.name(),
            vertices: b.vertex_count(),
            particles: b.particles.len(),
            welded_vertices: b.welded_vertices(),
            collapsed_triangles: b.collapsed_triangles(),
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
    /// The bodies as built, in the world's order.
    pub bodies: Vec<BodyRecord>,
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
