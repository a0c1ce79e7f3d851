//! `supple bench step`: the step benchmark on workload W (see [`step`](super::experiments::step)).

use super::pools::{in_pool, pools};
use crate::cli::experiments::step::{StepResult, TIMED_FRAMES, bench_w};
use crate::export::write_atomic;
use crate::params::SolverMethod;
use clap::Args;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `supple bench step`.
#[derive(Args, Debug, Clone)]
pub struct StepArgs {
    /// Particles per side of the cloth, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [32u32, 64, 128, 256],
          value_parser = clap::value_parser!(u32).range(2..))]
    pub n: Vec<u32>,
    /// Projection methods, comma-separated (default: all).
    #[arg(long, value_delimiter = ',', value_parser = super::method_parser())]
    pub method: Vec<SolverMethod>,
    /// Thread counts, comma-separated (default: RAYON_NUM_THREADS, else one per core).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Vec<u32>,
    /// Also write the table to this CSV file.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Timed frames per run, after 10 warm-up frames (default 110: 2 s simulated in all).
    #[arg(long, default_value_t = TIMED_FRAMES, value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: u32,
}

/// The CSV header, one column per [`StepResult`] field (new columns go at the end).
pub const CSV_HEADER: &str =
    "n,method,threads,ms_per_frame,ns_per_projection,max_stretch,mean_stretch,simd";

/// Runs `supple bench step`: every size x method x thread count, a table on stdout and the CSV.
pub fn run(args: &StepArgs) -> anyhow::Result<()> {
    let methods = super::methods_or_all(&args.method);
    // Which build of the batched kernels runs (`SUPPLE_SIMD` forces one).
    println!("simd: {}", crate::solver::simd::path());
    println!(
        "{:>5} {:>17} {:>7} {:>12} {:>17} {:>12} {:>17}",
        "n", "method", "threads", "ms/frame", "ns/projection", "max stretch", "mean stretch"
    );
    let mut csv = format!("{CSV_HEADER}\n");
    for &n in &args.n {
        for &method in &methods {
            for threads in pools(&args.threads) {
                let r = in_pool(threads, || Ok(bench_w(n, method, args.frames)?))?;
                println!(
                    "{:>5} {:>17} {:>7} {:>12.3} {:>17.3} {:>11.3}% {:>12.4}%",
                    r.n,
                    r.method.name(),
                    r.threads,
                    r.ms_per_frame,
                    r.ns_per_projection,
                    100.0 * r.max_stretch,
                    100.0 * r.mean_stretch
                );
                csv_row(&mut csv, &r);
            }
        }
    }
    if let Some(path) = &args.csv {
        write_atomic(path, csv.as_bytes())?;
    }
    Ok(())
}

fn csv_row(csv: &mut String, r: &StepResult) {
    writeln!(
        csv,
        "{},{},{},{:.4},{:.4},{:.6},{:.6},{}",
        r.n,
        r.method.name(),
        r.threads,
        r.ms_per_frame,
        r.ns_per_projection,
        r.max_stretch,
        r.mean_stretch,
        r.simd
    )
    .expect("writing to a String cannot fail");
}
