//! The `supple` command line: one file per subcommand.

pub mod bench;
pub mod bench_convergence;
pub mod bench_scenes;
pub mod bench_step;
pub mod chart;
pub mod experiments;
pub mod import;
pub mod plot;
pub mod pools;
pub mod run;

use crate::params::{SolverMethod, SolverParams};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};

/// Supple: position-based dynamics (PBD/XPBD) for cloth and soft bodies.
#[derive(Parser, Debug)]
#[command(name = "supple", version, about, long_about = None)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a scene file: in a window, or headless with export and a report.
    Run(run::RunArgs),
    /// Import an OBJ mesh as a soft body dropped on the ground, and run it like a scene.
    Import(import::ImportArgs),
    /// Plot a run's report: kinetic energy, strain, penetration and ms per frame over time.
    Plot(plot::PlotArgs),
    /// Benchmarks: stiffness vs iterations, the step on workload W, the shipped scenes, and
    /// convergence (stretch vs iterations and time) on W.
    Bench {
        /// Which benchmark.
        #[command(subcommand)]
        command: bench::BenchCommand,
    },
}

/// Flags that override a scene's `[solver]` settings.
#[derive(Args, Debug, Clone, Default)]
pub struct SolverOverrides {
    /// Substeps per frame (overrides `[solver] substeps`).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub substeps: Option<u32>,
    /// Constraint iterations per substep (overrides `[solver] iterations`).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub iterations: Option<u32>,
    /// Frame time step in seconds (overrides `[solver] dt`).
    #[arg(long, value_parser = positive_seconds)]
    pub dt: Option<f32>,
    /// Projection method (overrides `[solver] method`).
    #[arg(long, value_parser = method_parser())]
    pub method: Option<SolverMethod>,
    /// Project distance constraints along their direction at the substep's start (sets
    /// `[solver] shake = true`): a swinging rope keeps its energy.
    #[arg(long)]
    pub shake: bool,
}

impl SolverOverrides {
    /// Applies the given flags to `params`.
    pub fn apply(&self, params: &mut SolverParams) {
        if let Some(s) = self.substeps {
            params.substeps = s;
        }
        if let Some(i) = self.iterations {
            params.iterations = i;
        }
        if let Some(dt) = self.dt {
            params.dt = dt;
        }
        if let Some(m) = self.method {
            params.method = m;
        }
        params.shake |= self.shake;
    }
}

fn positive_seconds(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("expected a time step in seconds > 0, got '{s}'")),
    }
}

/// The methods a benchmark runs: those of `--method`, or every method when none is given.
pub fn methods_or_all(methods: &[SolverMethod]) -> Vec<SolverMethod> {
    match methods.is_empty() {
        true => SolverMethod::ALL.to_vec(),
        false => methods.to_vec(),
    }
}

/// The parser of `--method`: every method's name, which `--help` lists as clap's possible
/// values.
pub fn method_parser() -> impl TypedValueParser<Value = SolverMethod> {
    PossibleValuesParser::new(SolverMethod::NAMES)
        .map(|name| SolverMethod::from_name(&name).expect("clap passes only the listed names"))
}

/// Runs the parsed command line; first refuses a `SUPPLE_SIMD` that names no path, or one this
/// processor cannot run (see [`crate::solver::simd::requested`]).
pub fn execute(cli: Cli) -> anyhow::Result<()> {
    crate::solver::simd::requested()?;
    match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Import(args) => import::import(&args),
        Command::Plot(args) => plot::run(&args),
        Command::Bench { command } => bench::run(&command),
    }
}
