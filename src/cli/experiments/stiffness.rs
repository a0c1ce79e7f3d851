//! The stiffness experiment behind `supple bench stiffness`: how the static extension of a
//! hanging rope and the sag of a hanging cloth move with the stiffness model, the iteration count
//! and the substep count.
//!
//! Every run starts from rest and is settled for [`Workload::settle_frames`] frames of 1/60 s
//! without solver damping; between frames every velocity is scaled by `exp(−c · dt)` with
//! `c = `[`SETTLE_DAMPING`]. Damping between frames leaves the static equilibrium where it is
//! (there every velocity is zero at the end of a frame), and keeps the runs' settings free of
//! solver damping. Then the run is measured ([`RunResult`]).

use crate::bodies::cloth::ClothDesc;
use crate::bodies::rope::RopeDesc;
use crate::cli::chart::{self, draw_error};
use crate::constraints::Stiffness;
use crate::export::write_atomic;
use crate::math::{Real, Vec3};
use crate::params::SolverParams;
use crate::stages::apply_damping;
use crate::stats::FrameStats;
use crate::world::{SimError, World};
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Segments of the benchmark rope.
pub const ROPE_SEGMENTS: usize = 20;
/// Rest length of the benchmark rope, m.
pub const ROPE_LENGTH: Real = 1.0;
/// Mass of the benchmark rope, kg: 0.01 kg on each of its 21 particles.
pub const ROPE_MASS: Real = 0.21;
/// Velocity damping applied between frames to settle every run, 1/s.
pub const SETTLE_DAMPING: Real = 2.0;
/// Iteration counts of the full sweep.
pub const ITERATIONS: [u32; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
/// Substep counts of the full sweep.
pub const SUBSTEPS: [u32; 3] = [1, 4, 16];
/// The columns of `stiffness.csv`: those of the issue, then `settle_frames`, `kinetic_energy_j`
/// and `segment_error_m`.
pub const CSV_HEADER: &str = "workload,model,k_or_compliance,substeps,iterations,method,extension_m,analytic_extension_m,effective_stiffness,max_stretch,mean_stretch,residual,ms_per_frame,settle_frames,kinetic_energy_j,segment_error_m";

/// A benchmark scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// A vertical rope of [`ROPE_SEGMENTS`] segments pinned at the top.
    Rope,
    /// Workload W: an `n × n` cloth pinned at two corners ([`cloth_w`]).
    Cloth(u32),
}

impl Workload {
    /// The name in the CSV: `rope`, `cloth32`, `cloth64`.
    pub fn name(self) -> String {
        match self {
            Workload::Rope => "rope".to_string(),
            Workload::Cloth(n) => format!("cloth{n}"),
        }
    }

    /// Frames of 1/60 s simulated before measuring: the rope 10 s, the cloth 4 s.
    pub fn settle_frames(self) -> u64 {
        match self {
            Workload::Rope => 600,
            Workload::Cloth(_) => 240,
        }
    }

    /// The world of this workload with `stiffness` on every constraint.
    pub fn build(self, stiffness: Stiffness, params: SolverParams) -> World {
        match self {
            Workload::Rope => rope(stiffness, params),
            Workload::Cloth(n) => cloth_w(n, stiffness, params),
        }
    }
}

/// Solver settings of a benchmark run: 1/60 s frames, gravity, Gauss-Seidel, no damping.
pub fn bench_params(substeps: u32, iterations: u32) -> SolverParams {
    SolverParams {
        substeps,
        iterations,
        // No strain limit: a sweep records how far a setting stretches, even when it diverges
        // (one rope point passes 1000%).
        max_strain: Real::MAX,
        ..SolverParams::default()
    }
}

/// The benchmark rope: [`ROPE_SEGMENTS`] segments of `ROPE_LENGTH / ROPE_SEGMENTS` m hanging
/// straight down from a pin at the origin, [`ROPE_MASS`] kg spread over its particles, no bending.
pub fn rope(stiffness: Stiffness, params: SolverParams) -> World {
    let mut world = World::new(params).expect("benchmark settings are valid");
    let end = Vec3::new(0.0, -ROPE_LENGTH, 0.0);
    let desc = RopeDesc {
        name: "rope".to_string(),
        pin_start: true,
        stretch: stiffness,
        ..RopeDesc::new(Vec3::zeros(), end, ROPE_SEGMENTS as u32, ROPE_MASS)
    };
    world.add_rope(&desc).expect("the benchmark rope is valid");
    world
}

/// Workload W ([`ClothDesc::workload_w`]) with `stiffness` on every constraint.
pub fn cloth_w(n: u32, stiffness: Stiffness, params: SolverParams) -> World {
    let mut world = World::new(params).expect("benchmark settings are valid");
    world
        .add_cloth(&ClothDesc::workload_w(n, stiffness))
        .expect("W is valid");
    world
}

/// One point of the sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunSpec {
    /// The scene.
    pub workload: Workload,
    /// Stiffness of every constraint.
    pub stiffness: Stiffness,
    /// Substeps per frame.
    pub substeps: u32,
    /// Gauss-Seidel iterations per substep.
    pub iterations: u32,
}

/// What one run measured after settling.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// The run.
    pub spec: RunSpec,
    /// Rope: total length minus rest length, m. Cloth: drop of the free edge's midpoint
    /// (particle `(n/2, n − 1)`) below the pins, minus the 1 m rest size of the cloth, m.
    pub extension_m: Real,
    /// XPBD rope only: `Σ_k α W_k`, the extension at which every segment's XPBD force
    /// `−C/α` carries the weight `W_k` below it, m.
    pub analytic_extension_m: Option<Real>,
    /// Total load over extension, N/m, when the extension is positive. Rope: `Σ_k W_k /
    /// extension`, the inverse of the uniform per-segment compliance that would give the measured
    /// extension (it equals `1/α` for XPBD at equilibrium). Cloth: the weight of the free
    /// particles over the extension.
    pub effective_stiffness: Option<Real>,
    /// Largest relative stretch `|ℓ − d| / d` over the stretch (and shear) constraints.
    pub max_stretch: Real,
    /// Mean relative stretch over the same constraints.
    pub mean_stretch: Real,
    /// RMS over the stretch constraints of `C + α̃ λ` after the last substep, m: the residual of
    /// the XPBD constraint equation (`α̃ = 0` for the PBD models, so there it is the RMS of `C`).
    pub residual: Real,
    /// Wall time of the frames' steps over their number, ms.
    pub ms_per_frame: f64,
    /// Frames simulated before measuring.
    pub settle_frames: u64,
    /// Kinetic energy left at the measurement, J (how settled the run is).
    pub kinetic_energy_j: Real,
    /// XPBD rope only: largest `|e_k − α W_k|` over the segments, m.
    pub segment_error_m: Option<Real>,
}

/// Runs `spec` for its workload's settle frames and measures it.
pub fn run_point(spec: &RunSpec) -> Result<RunResult, SimError> {
    let frames = spec.workload.settle_frames();
    let mut world = spec
        .workload
        .build(spec.stiffness, bench_params(spec.substeps, spec.iterations));
    let mut wall_s = 0.0;
    for _ in 0..frames {
        let start = Instant::now();
        world.step()?;
        wall_s += start.elapsed().as_secs_f64();
        apply_damping(&mut world.particles, &[], SETTLE_DAMPING, world.params.dt);
    }
    let ms_per_frame = 1e3 * wall_s / frames as f64;
    let stats = FrameStats::measure(&world);
    let g = -world.params.gravity.y;
    let (extension_m, load, analytic_extension_m, segment_error_m) = match spec.workload {
        Workload::Rope => {
            let x = &world.particles.x;
            let rest = ROPE_LENGTH / ROPE_SEGMENTS as Real;
            let m = ROPE_MASS / (ROPE_SEGMENTS + 1) as Real;
            // Segment k from the top carries the ROPE_SEGMENTS − k particles below it.
            let weight = |k: usize| (ROPE_SEGMENTS - k) as Real * m * g;
            let load: Real = (0..ROPE_SEGMENTS).map(weight).sum();
            let segments: Vec<Real> = (0..ROPE_SEGMENTS)
                .map(|k| (x[k + 1] - x[k]).norm() - rest)
                .collect();
            let compliance = match spec.stiffness {
                Stiffness::Xpbd { compliance, .. } => Some(compliance),
                _ => None,
            };
            let error = compliance.map(|a| {
                segments
                    .iter()
                    .enumerate()
                    .map(|(k, e)| (e - a * weight(k)).abs())
                    .fold(0.0, Real::max)
            });
            (
                segments.iter().sum(),
                load,
                compliance.map(|a| a * load),
                error,
            )
        }
        Workload::Cloth(n) => {
            let mid = ((n - 1) * n + n / 2) as usize;
            let sag = -world.particles.x[mid].y;
            let free = (n * n - 2) as Real / (n * n) as Real;
            (sag - 1.0, free * g, None, None)
        }
    };
    Ok(RunResult {
        spec: *spec,
        extension_m,
        analytic_extension_m,
        effective_stiffness: (extension_m > 0.0).then(|| load / extension_m),
        max_stretch: stats.max_strain,
        mean_stretch: stats.mean_strain,
        residual: residual(&world),
        ms_per_frame,
        settle_frames: frames,
        kinetic_energy_j: stats.kinetic_energy,
        segment_error_m,
    })
}

/// RMS of `C + α̃ λ` over the stretch constraints, m (see [`RunResult::residual`]).
fn residual(world: &World) -> Real {
    let s = &world.constraints.stretch;
    if s.is_empty() {
        return 0.0;
    }
    let sum: f64 = (0..s.len())
        .map(|c| {
            let alpha_tilde = s.materials.coeffs[s.mat[c] as usize].alpha_tilde;
            let r = s.strain(&world.particles.x, c) * s.rest[c] + alpha_tilde * s.lambda[c];
            (r as f64).powi(2)
        })
        .sum();
    (sum / s.len() as f64).sqrt() as Real
}

/// The stiffness value in the CSV: `k` for the PBD models, the compliance for XPBD, the modulus
/// for elastic.
fn stiffness_value(s: Stiffness) -> Real {
    match s {
        Stiffness::Pbd { k } | Stiffness::PbdCorrected { k } => k,
        Stiffness::Xpbd { compliance, .. } => compliance,
        Stiffness::Elastic { stiffness, .. } => stiffness,
        Stiffness::ElasticSolid { youngs, .. } => youngs,
    }
}

/// A short label such as `pbd k=0.5` or `xpbd α=1e-4`.
fn stiffness_label(s: Stiffness) -> String {
    match s {
        Stiffness::Pbd { k } | Stiffness::PbdCorrected { k } => {
            format!("{} k={k}", s.model_name())
        }
        Stiffness::Xpbd {
            compliance: 0.0, ..
        } => "xpbd α=0".to_string(),
        Stiffness::Xpbd { compliance, .. } => format!("xpbd α={compliance:e}"),
        Stiffness::Elastic { stiffness, .. } => format!("elastic {stiffness:e}"),
        Stiffness::ElasticSolid {
            youngs, poisson, ..
        } => format!("elastic E={youngs:e} ν={poisson}"),
    }
}

fn xpbd(compliance: Real) -> Stiffness {
    Stiffness::Xpbd {
        compliance,
        damping: 0.0,
    }
}

/// The runs of `supple bench stiffness` (`quick`: the reduced sweep of `--quick`).
///
/// Full: the rope at every stiffness (`pbd` and `pbd_corrected` with k in {0.1, 0.5, 0.9, 1.0},
/// `xpbd` with compliance 1e-2 … 1e-8 m/N and 0) × [`SUBSTEPS`] × [`ITERATIONS`]; cloth32 at
/// `pbd` k = 0.5 and 1, `pbd_corrected` k = 0.5 and `xpbd` 1e-4 and 0 × {1, 4} substeps ×
/// [`ITERATIONS`]; cloth64 at `pbd` and `pbd_corrected` k = 0.5 and `xpbd` 0 with 4 substeps ×
/// [`ITERATIONS`] (a cloth32 run costs about 15 rope runs, a cloth64 run about 60).
/// Quick: the rope at `pbd` and `pbd_corrected` k = 0.5 and `xpbd` 1e-2, 1e-3, 1e-4 and 0, with
/// 4 substeps × {1, 8, 64, 128} iterations, and one cloth32 run.
pub fn sweep(quick: bool) -> Vec<RunSpec> {
    let grid = |workload, stiffness: &[Stiffness], substeps: &[u32], iterations: &[u32]| {
        let mut runs = Vec::new();
        for &s in stiffness {
            for &substeps in substeps {
                for &iterations in iterations {
                    runs.push(RunSpec {
                        workload,
                        stiffness: s,
                        substeps,
                        iterations,
                    });
                }
            }
        }
        runs
    };
    let pbd = |k| Stiffness::Pbd { k };
    let corrected = |k| Stiffness::PbdCorrected { k };
    if quick {
        let rope = [
            pbd(0.5),
            corrected(0.5),
            xpbd(1e-2),
            xpbd(1e-3),
            xpbd(1e-4),
            xpbd(0.0),
        ];
        let mut runs = grid(Workload::Rope, &rope, &[4], &[1, 8, 64, 128]);
        runs.extend(grid(Workload::Cloth(32), &[xpbd(0.0)], &[4], &[8]));
        return runs;
    }
    let ks = [0.1, 0.5, 0.9, 1.0];
    let mut rope: Vec<Stiffness> = ks.iter().map(|&k| pbd(k)).collect();
    rope.extend(ks.iter().map(|&k| corrected(k)));
    rope.extend(
        [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 0.0]
            .into_iter()
            .map(xpbd),
    );
    let cloth = [pbd(0.5), pbd(1.0), corrected(0.5), xpbd(1e-4), xpbd(0.0)];
    let mut runs = grid(Workload::Rope, &rope, &SUBSTEPS, &ITERATIONS);
    runs.extend(grid(Workload::Cloth(32), &cloth, &[1, 4], &ITERATIONS));
    runs.extend(grid(
        Workload::Cloth(64),
        &[pbd(0.5), corrected(0.5), xpbd(0.0)],
        &[4],
        &ITERATIONS,
    ));
    runs
}

fn opt(v: Option<Real>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// `stiffness.csv`: [`CSV_HEADER`], then one row per run.
pub fn csv(results: &[RunResult]) -> String {
    let mut s = format!("{CSV_HEADER}\n");
    for r in results {
        let _ = writeln!(
            s,
            "{},{},{},{},{},gauss-seidel,{},{},{},{},{},{},{:.4},{},{},{}",
            r.spec.workload.name(),
            r.spec.stiffness.model_name(),
            stiffness_value(r.spec.stiffness),
            r.spec.substeps,
            r.spec.iterations,
            r.extension_m,
            opt(r.analytic_extension_m),
            opt(r.effective_stiffness),
            r.max_stretch,
            r.mean_stretch,
            r.residual,
            r.ms_per_frame,
            r.settle_frames,
            r.kinetic_energy_j,
            opt(r.segment_error_m),
        );
    }
    s
}

/// The distinct values of `key` over `items`, in order of first appearance.
pub(crate) fn distinct<T, K: PartialEq>(items: &[T], key: impl Fn(&T) -> K) -> Vec<K> {
    let mut out: Vec<K> = Vec::new();
    for item in items {
        let k = key(item);
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// `stiffness.md`: for each substep count, the rope's extension (mm) against iterations, one row
/// per stiffness, with the analytic XPBD extension beside it.
pub fn markdown(results: &[RunResult]) -> String {
    let rope: Vec<&RunResult> = results
        .iter()
        .filter(|r| r.spec.workload == Workload::Rope)
        .collect();
    let iterations = distinct(&rope, |r| r.spec.iterations);
    let mut s = String::from(
        "# Hanging rope: extension (mm) after settling, Gauss-Seidel\n\n20 segments, 1 m, 0.21 kg, pinned at the top; 1/60 s frames.\n",
    );
    for substeps in distinct(&rope, |r| r.spec.substeps) {
        let _ = write!(
            s,
            "\n## {substeps} substep{}\n\n| model | k or compliance (m/N) | analytic |",
            if substeps == 1 { "" } else { "s" }
        );
        for i in &iterations {
            let _ = write!(s, " {i} it |");
        }
        s.push_str("\n|---|---|---|");
        s.push_str(&"---:|".repeat(iterations.len()));
        s.push('\n');
        let rows: Vec<&&RunResult> = rope
            .iter()
            .filter(|r| r.spec.substeps == substeps)
            .collect();
        for stiffness in distinct(&rows, |r| r.spec.stiffness) {
            let of: Vec<&&&RunResult> = rows
                .iter()
                .filter(|r| r.spec.stiffness == stiffness)
                .collect();
            let analytic = of[0]
                .analytic_extension_m
                .map(|a| format!("{:.4}", 1e3 * a))
                .unwrap_or_default();
            let _ = write!(
                s,
                "| {} | {} | {analytic} |",
                stiffness.model_name(),
                stiffness_value(stiffness)
            );
            for i in &iterations {
                match of.iter().find(|r| r.spec.iterations == *i) {
                    Some(r) => {
                        let _ = write!(s, " {:.4} |", 1e3 * r.extension_m);
                    }
                    None => s.push_str(" |"),
                }
            }
            s.push('\n');
        }
    }
    s
}

const PLOT_SIZE: (u32, u32) = (1000, 700);

/// A PNG of effective stiffness against iterations (log-log) for `workload` at `substeps`, one
/// line per stiffness; `None` when no run has a positive extension.
pub fn plot(
    results: &[RunResult],
    workload: Workload,
    substeps: u32,
) -> anyhow::Result<Option<Vec<u8>>> {
    let runs: Vec<&RunResult> = results
        .iter()
        .filter(|r| r.spec.workload == workload && r.spec.substeps == substeps)
        .collect();
    let lines: Vec<(Stiffness, Vec<(f64, f64)>)> = distinct(&runs, |r| r.spec.stiffness)
        .into_iter()
        .map(|s| {
            let points = runs
                .iter()
                .filter(|r| r.spec.stiffness == s)
                .filter_map(|r| {
                    r.effective_stiffness
                        .map(|k| (r.spec.iterations as f64, k as f64))
                })
                .collect();
            (s, points)
        })
        .collect();
    let all = || lines.iter().flat_map(|(_, p)| p.iter());
    let (Some(x_max), Some(y_min), Some(y_max)) = (
        all().map(|p| p.0).reduce(f64::max),
        all().map(|p| p.1).reduce(f64::min),
        all().map(|p| p.1).reduce(f64::max),
    ) else {
        return Ok(None);
    };
    let png = chart::png(PLOT_SIZE, |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(
                format!(
                    "{}: effective stiffness vs iterations, {substeps} substep(s)",
                    workload.name()
                ),
                ("sans-serif", 24),
            )
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(
                (1.0..x_max.max(2.0)).log_scale(),
                (y_min / 2.0..y_max * 2.0).log_scale(),
            )
            .map_err(draw_error)?;
        chart
            .configure_mesh()
            .x_desc("Gauss-Seidel iterations per substep")
            .y_desc("effective stiffness (N/m)")
            .label_style(("sans-serif", 15))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()
            .map_err(draw_error)?;
        for (n, (stiffness, points)) in lines.into_iter().enumerate() {
            let color = Palette99::pick(n).to_rgba();
            chart
                .draw_series(LineSeries::new(points, color.stroke_width(2)))
                .map_err(draw_error)?
                .label(stiffness_label(stiffness))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart::legend(&mut chart, SeriesLabelPosition::UpperLeft, 14)
    })?;
    Ok(Some(png))
}

/// Writes `stiffness.csv`, `stiffness.md` and one `stiffness-<workload>-s<substeps>.png` per
/// workload and substep count into `dir` (created if needed), each atomically; returns the paths.
pub fn write_outputs(dir: &Path, results: &[RunResult]) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create the output folder {}: {e}", dir.display()))?;
    let mut written = Vec::new();
    for (name, bytes) in [
        ("stiffness.csv", csv(results).into_bytes()),
        ("stiffness.md", markdown(results).into_bytes()),
    ] {
        let path = dir.join(name);
        write_atomic(&path, &bytes)?;
        written.push(path);
    }
    for (workload, substeps) in distinct(results, |r| (r.spec.workload, r.spec.substeps)) {
        if let Some(bytes) = plot(results, workload, substeps)? {
            let path = dir.join(format!("stiffness-{}-s{substeps}.png", workload.name()));
            write_atomic(&path, &bytes)?;
            written.push(path);
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cloth64_has_the_particles_and_constraints_of_workload_w() {
        let world = cloth_w(64, Stiffness::default(), bench_params(1, 1));
        let ps = &world.particles;
        assert_eq!(ps.len(), 4096);
        assert_eq!(world.constraints.stretch.len(), 12_033);
        assert_eq!(world.constraints.bend_distance.len(), 11_781);
        let pinned: Vec<usize> = (0..ps.len()).filter(|&i| ps.inv_mass[i] == 0.0).collect();
        assert_eq!(pinned, [0, 63]);
        assert!(
            (ps.inv_mass[1] - 4096.0).abs() < 1e-3,
            "1/64² kg per particle"
        );
        assert!(ps.x.iter().all(|x| x.y == 0.0));
    }

    #[test]
    fn xpbd_rope_analytic_extension_is_compliance_times_load() {
        let spec = RunSpec {
            workload: Workload::Rope,
            stiffness: xpbd(1e-3),
            substeps: 4,
            iterations: 32,
        };
        let r = run_point(&spec).unwrap();
        // Σ_k (20 − k) · 0.01 kg · 9.81 m/s² = 210 · 0.0981 N.
        let load = 210.0 * 0.01 * 9.81;
        assert!((r.analytic_extension_m.unwrap() - 1e-3 * load).abs() < 1e-6);
        assert!(r.kinetic_energy_j < 1e-6, "settled: {}", r.kinetic_energy_j);
    }

    #[test]
    fn csv_rows_have_every_column() {
        let spec = RunSpec {
            workload: Workload::Rope,
            stiffness: Stiffness::Pbd { k: 0.5 },
            substeps: 1,
            iterations: 1,
        };
        let text = csv(&[run_point(&spec).unwrap()]);
        let columns = CSV_HEADER.split(',').count();
        assert!(text.lines().all(|l| l.split(',').count() == columns));
    }
}
