//! `supple bench convergence`: stretch (or a stiff plate's tip error) against iterations and
//! against time on workload W or the plate, for each method and size (see
//! [`convergence`](super::experiments::convergence)).

use super::pools::{in_pool, pools};
use crate::cli::experiments::convergence::{Point, Workload, csv, plot, run_point};
use crate::cli::experiments::step::TIMED_FRAMES;
use crate::export::write_atomic;
use crate::params::{SolverMethod, SolverParams};
use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use std::path::PathBuf;

/// Arguments of `supple bench convergence`.
#[derive(Args, Debug, Clone)]
pub struct ConvergenceArgs {
    /// What to simulate: workload W (every constraint rigid; the stretch left is the error) or
    /// a stiff clamped plate (isometric `elastic` bending of 1 N·m, 0.5 m, 0.1 kg, damped; the
    /// error of its tip drop against the hinges' linear statics).
    #[arg(long, default_value = "w", value_parser = workload_parser())]
    pub workload: Workload,
    /// Particles per side of the cloth, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [16u32, 32, 64],
          value_parser = clap::value_parser!(u32).range(2..))]
    pub n: Vec<u32>,
    /// Projection methods, comma-separated (default: all).
    #[arg(long, value_delimiter = ',', value_parser = super::method_parser())]
    pub method: Vec<SolverMethod>,
    /// Iterations per substep, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1u32, 2, 4, 8, 16, 32],
          value_parser = clap::value_parser!(u32).range(1..))]
    pub iterations: Vec<u32>,
    /// Substeps per frame.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub substeps: u32,
    /// Thread counts, comma-separated (default: RAYON_NUM_THREADS, else one per core).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Vec<u32>,
    /// Timed frames per run, after 10 warm-up frames (default 110: 2 s simulated in all).
    #[arg(long, default_value_t = TIMED_FRAMES, value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: u32,
    /// Folder for convergence.csv, convergence-iterations.png and convergence-time.png.
    #[arg(long, value_name = "DIR", default_value = "bench-out")]
    pub out: PathBuf,
}

/// The parser of `--workload`, which `--help` lists as clap's possible values.
fn workload_parser() -> impl TypedValueParser<Value = Workload> {
    PossibleValuesParser::new(Workload::NAMES)
        .map(|name| Workload::from_name(&name).expect("clap passes only the listed names"))
}

/// Runs `supple bench convergence`: every size x method x thread count x iteration count, a
/// table on stdout, then the CSV and the two plots.
pub fn run(args: &ConvergenceArgs) -> anyhow::Result<()> {
    let methods = super::methods_or_all(&args.method);
    println!("simd: {}", crate::solver::simd::path());
    println!(
        "{:>5} {:>17} {:>7} {:>8} {:>10} {:>12} {:>12} {:>17} {:>10}",
        "n",
        "method",
        "threads",
        "substeps",
        "iterations",
        "ms/frame",
        "max stretch",
        "mean stretch",
        "tip error"
    );
    let mut points: Vec<Point> = Vec::new();
    for &n in &args.n {
        for &method in &methods {
            for threads in pools(&args.threads) {
                for &iterations in &args.iterations {
                    let params = SolverParams {
                        method,
                        substeps: args.substeps,
                        iterations,
                        ..SolverParams::default()
                    };
                    let workload = args.workload;
                    let p = in_pool(threads, || Ok(run_point(workload, n, params, args.frames)?))?;
                    let tip = p
                        .tip_error
                        .map_or(String::new(), |e| format!("{:.3}%", 100.0 * e));
                    println!(
                        "{:>5} {:>17} {:>7} {:>8} {:>10} {:>12.3} {:>11.3}% {:>16.4}% {:>10}",
                        p.n,
                        p.method.name(),
                        p.threads,
                        p.substeps,
                        p.iterations,
                        p.ms_per_frame,
                        100.0 * p.max_stretch,
                        100.0 * p.mean_stretch,
                        tip
                    );
                    points.push(p);
                }
            }
        }
    }
    let dir = &args.out;
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create the output folder {}: {e}", dir.display()))?;
    let iterations = |p: &Point| f64::from(p.iterations);
    let time = |p: &Point| p.ms_per_frame;
    let files = [
        ("convergence.csv", csv(&points).into_bytes()),
        (
            "convergence-iterations.png",
            plot(&points, iterations, "iterations per substep")?,
        ),
        ("convergence-time.png", plot(&points, time, "ms per frame")?),
    ];
    let mut written = Vec::new();
    for (name, bytes) in files {
        let path = dir.join(name);
        write_atomic(&path, &bytes)?;
        written.push(path.display().to_string());
    }
    println!("wrote {}", written.join(", "));
    Ok(())
}
