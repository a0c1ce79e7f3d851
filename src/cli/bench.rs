//! `supple bench`: the stiffness-vs-iterations experiment of [`stiffness`](super::experiments::stiffness) here, the step
//! benchmark in [`super::bench_step`], the scene benchmark in [`super::bench_scenes`] and the
//! convergence benchmark in [`super::bench_convergence`].

use crate::cli::experiments::stiffness::{run_point, sweep, write_outputs};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Instant;

/// The benchmarks.
#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Sweep iterations x substeps x stiffness model on a hanging rope and cloth; write
    /// stiffness.csv, stiffness.md and PNG plots.
    Stiffness(StiffnessArgs),
    /// Time the step on the standard hanging-cloth workload W for each size, method and thread
    /// count.
    Step(super::bench_step::StepArgs),
    /// Time every shipped scene headless: ms per frame, real-time factor and the time of each
    /// stage of the step.
    Scenes(super::bench_scenes::ScenesArgs),
    /// Stretch of workload W's hard constraints against iterations and against time, for each
    /// method and size; write convergence.csv and two PNG plots.
    Convergence(super::bench_convergence::ConvergenceArgs),
}

/// Arguments of `supple bench stiffness`.
#[derive(Args, Debug, Clone)]
pub struct StiffnessArgs {
    /// Run the reduced sweep (under a minute), for CI.
    #[arg(long)]
    pub quick: bool,
    /// Folder for stiffness.csv, stiffness.md and the plots.
    #[arg(long, value_name = "DIR", default_value = "bench-out")]
    pub out: PathBuf,
}

/// Runs `supple bench ...`.
pub fn run(command: &BenchCommand) -> anyhow::Result<()> {
    match command {
        BenchCommand::Stiffness(args) => stiffness(args),
        BenchCommand::Step(args) => super::bench_step::run(args),
        BenchCommand::Scenes(args) => super::bench_scenes::run(args),
        BenchCommand::Convergence(args) => super::bench_convergence::run(args),
    }
}

fn stiffness(args: &StiffnessArgs) -> anyhow::Result<()> {
    let runs = sweep(args.quick);
    let bar = ProgressBar::new(runs.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs, eta {eta} {msg}")
            .expect("valid template"),
    );
    let start = Instant::now();
    let mut results = Vec::with_capacity(runs.len());
    for spec in &runs {
        bar.set_message(format!(
            "{} {:?} {}x{}",
            spec.workload.name(),
            spec.stiffness,
            spec.substeps,
            spec.iterations
        ));
        results.push(run_point(spec)?);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let files = write_outputs(&args.out, &results)?;
    println!(
        "{} runs in {:.1} s; wrote {}",
        results.len(),
        start.elapsed().as_secs_f64(),
        files
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}
