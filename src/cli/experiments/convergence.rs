//! The convergence experiment behind `supple bench convergence`: how far workload W's hard
//! constraints are from their rest lengths over its first 2 s, or how far a stiff clamped
//! plate's tip is from its statics, against the iterations per substep and against the time a
//! frame takes, for each projection method and resolution.
//!
//! Every constraint of W is rigid (compliance 0), so any stretch left is the solver's: a method
//! that converges drives the mean stretch down as iterations grow, and the time axis shows what
//! each point costs. Where a curve flattens, more iterations buy nothing; the method and budget
//! to pick are the lowest curve at the time a frame may take. The plate is the stiff material
//! on a fine mesh: its bending is the longest mode there is, and the error of its tip drop
//! against the hinges' linear statics is the solver's.

use super::step::WARMUP_FRAMES;
use super::stiffness::{cloth_w, distinct};
use crate::bodies::cloth::{BendKind, ClothDesc, Orientation};
use crate::cli::chart::{self, Area, draw_error};
use crate::constraints::Stiffness;
use crate::math::{Real, Vec3};
use crate::params::{SolverMethod, SolverParams};
use crate::solver::global::linear_statics;
use crate::solver::simd::{self, SimdPath};
use crate::stats::FrameStats;
use crate::world::SimError;
use crate::world::World;
use plotters::prelude::*;
use std::fmt::Write as _;
use std::time::Instant;

/// The columns of `convergence.csv`, one per [`Point`] field (new columns go at the end).
pub const CSV_HEADER: &str = "n,method,threads,substeps,iterations,ms_per_frame,max_stretch,\
                              mean_stretch,simd,workload,tip_error";

/// What a convergence run simulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Workload W: `n` x `n` particles, every constraint rigid, pinned at two corners.
    W,
    /// A square plate 0.5 m across of `n` x `n` particles and 0.1 kg, its first two rows pinned,
    /// rigid stretch and stiff isometric bending (`elastic`, `D` = 1 N·m), with global damping
    /// 5/s so that it settles within the warm-up and timed frames.
    Plate,
}

impl Workload {
    /// The name on the command line and in the CSV.
    pub fn name(self) -> &'static str {
        match self {
            Workload::W => "w",
            Workload::Plate => "plate",
        }
    }

    /// Every workload's name, for `--workload`.
    pub const NAMES: [&'static str; 2] = ["w", "plate"];

    /// Parses a name of [`Workload::NAMES`].
    pub fn from_name(name: &str) -> Option<Self> {
        [Workload::W, Workload::Plate]
            .into_iter()
            .find(|w| w.name() == name)
    }
}

/// The warm-up frames of the plate: 2 s, in which its damping takes its swing down by a factor
/// of `e¹⁰` (at 33 and 65 across the tip is within 0.2% of where it settles by then), so that
/// the timed frames measure where the solver holds it rather than how it swings.
pub const PLATE_SETTLING_FRAMES: u32 = 120;

/// The plate of [`Workload::Plate`] at `n` x `n` particles with `params` (its damping set to
/// 5/s).
pub fn stiff_plate(n: u32, params: SolverParams) -> World {
    let params = SolverParams {
        damping: 5.0,
        ..params
    };
    let mut world = World::new(params).expect("benchmark settings are valid");
    let mut plate = ClothDesc::grid(
        [n, n],
        [0.5, 0.5],
        Vec3::new(0.0, 1.0, 0.0),
        Orientation::Horizontal,
        0.1,
    )
    .expect("the plate is valid");
    plate.pin = (0..2 * n as usize).collect();
    let stiff = Stiffness::Elastic {
        stiffness: 1.0,
        damping: 0.0,
    };
    plate.bend = Some((stiff, BendKind::Isometric));
    world.add_cloth(&plate).expect("the plate is valid");
    world
}

/// The mean drop of the last row of an `n`-across plate at `x` below `rest`, m.
fn tip_drop(x: &[Vec3], rest: &[Vec3], n: usize) -> f64 {
    let tip = x.len() - n..x.len();
    tip.map(|i| f64::from(rest[i].y - x[i].y)).sum::<f64>() / n as f64
}

/// One run: W at one size, method, thread count and budget, measured over its timed frames.
/// The stretch is the median over those frames, since a hanging W swings and its stretch at any
/// one frame is noisy.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Particles per side.
    pub n: u32,
    /// Projection method.
    pub method: SolverMethod,
    /// Threads of the rayon pool the run ran in.
    pub threads: usize,
    /// Substeps per frame.
    pub substeps: u32,
    /// Iterations per substep.
    pub iterations: u32,
    /// Median wall time of a timed frame's step, ms.
    pub ms_per_frame: f64,
    /// Median over the timed frames of the largest `|ℓ − d| / d` over the stretch constraints.
    pub max_stretch: f64,
    /// Median over the timed frames of the mean `|ℓ − d| / d` over the stretch constraints.
    pub mean_stretch: f64,
    /// The instruction set the batched kernels ran with (see [`simd::path`]).
    pub simd: SimdPath,
    /// What was simulated.
    pub workload: Workload,
    /// The plate only: the median over the timed frames of `|t − t_s| / t_s`, `t` the tip's
    /// drop and `t_s` that of the hinges' linear statics.
    pub tip_error: Option<f64>,
}

/// Runs `workload` at `n` with `params` (method, substeps, iterations) in the current rayon
/// pool: [`WARMUP_FRAMES`] frames ([`PLATE_SETTLING_FRAMES`] for the plate), then `frames`
/// timed frames, each measured after its step.
pub fn run_point(
    workload: Workload,
    n: u32,
    params: SolverParams,
    frames: u32,
) -> Result<Point, SimError> {
    let (method, substeps, iterations) = (params.method, params.substeps, params.iterations);
    let h = params.h();
    let mut world = match workload {
        Workload::W => cloth_w(n, Stiffness::default(), params),
        Workload::Plate => stiff_plate(n, params),
    };
    let rest = world.particles().x.clone();
    world.step_frames(match workload {
        Workload::W => WARMUP_FRAMES,
        Workload::Plate => PLATE_SETTLING_FRAMES,
    })?;
    // The statics of the plate's hinges, from their materials as the steps resolved them.
    let statics = (workload == Workload::Plate)
        .then(|| {
            let (ps, hinges) = (world.particles(), &world.constraints().isometric);
            let u = linear_statics(hinges, ps, world.params().gravity, h)?;
            Some(
                -f64::from(u[u.len() - n as usize..].iter().map(|u| u.y).sum::<Real>())
                    / f64::from(n),
            )
        })
        .flatten();
    let (mut ms, mut max, mut mean, mut tip) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..frames {
        let start = Instant::now();
        world.step()?;
        ms.push(1e3 * start.elapsed().as_secs_f64());
        let stats = FrameStats::measure(&world);
        max.push(f64::from(stats.max_strain));
        mean.push(f64::from(stats.mean_strain));
        if let Some(t) = statics {
            tip.push((tip_drop(&world.particles().x, &rest, n as usize) - t).abs() / t);
        }
    }
    Ok(Point {
        n,
        method,
        threads: rayon::current_num_threads(),
        substeps,
        iterations,
        ms_per_frame: median(ms),
        max_stretch: median(max),
        mean_stretch: median(mean),
        simd: simd::path(),
        workload,
        tip_error: statics.map(|_| median(tip)),
    })
}

/// The median of `values` (the upper one of an even count; 0 when empty).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// `convergence.csv`: [`CSV_HEADER`], then one row per point.
pub fn csv(points: &[Point]) -> String {
    let mut s = format!("{CSV_HEADER}\n");
    for p in points {
        writeln!(
            s,
            "{},{},{},{},{},{:.4},{:.6},{:.6},{},{},{}",
            p.n,
            p.method.name(),
            p.threads,
            p.substeps,
            p.iterations,
            p.ms_per_frame,
            p.max_stretch,
            p.mean_stretch,
            p.simd,
            p.workload.name(),
            p.tip_error.map_or(String::new(), |e| format!("{e:.6}"))
        )
        .expect("writing to a String cannot fail");
    }
    s
}

/// The color of each method's lines, in the order of [`SolverMethod::ALL`].
const HUES: [RGBColor; SolverMethod::ALL.len()] = [RED, BLUE, GREEN, MAGENTA, CYAN];

/// Size of each plot, pixels.
const PLOT_SIZE: (u32, u32) = (1400, 650);

/// A line of [`plot`]: its legend, color, marker (the rank of its thread count) and points.
struct Line<'p> {
    label: String,
    color: RGBAColor,
    marker: usize,
    points: Vec<&'p Point>,
}

/// A plot of two panels, the mean stretch (left) and the largest (right), in % on log scales,
/// against `x` of each point (log scale, described by `x_desc`): one line per method, size and
/// thread count, its points in iteration order. A method has one color (darker for a larger
/// size), a thread count one marker.
pub fn plot(points: &[Point], x: fn(&Point) -> f64, x_desc: &str) -> anyhow::Result<Vec<u8>> {
    let key = |p: &Point| (p.method, p.n, p.threads);
    let (sizes, threads) = (distinct(points, |p| p.n), distinct(points, |p| p.threads));
    let lines: Vec<Line<'_>> = distinct(points, key)
        .into_iter()
        .map(|k| {
            let (method, n, t) = k;
            let hue = HUES[rank(&SolverMethod::ALL, method)];
            let shade = (1 + rank(&sizes, n)) as f64 / sizes.len() as f64;
            let mut line: Vec<&Point> = points.iter().filter(|p| key(p) == k).collect();
            line.sort_by_key(|p| p.iterations);
            Line {
                label: format!("{} N={n}", method.name()),
                color: hue.mix(0.3 + 0.7 * shade),
                marker: rank(&threads, t),
                points: line,
            }
        })
        .collect();
    chart::png(PLOT_SIZE, |root| {
        let (left, right) = root.split_horizontally(PLOT_SIZE.0 / 2);
        let mean = |p: &Point| 100.0 * p.mean_stretch;
        let tip = |p: &Point| 100.0 * p.tip_error.unwrap_or(0.0);
        let max = |p: &Point| 100.0 * p.max_stretch;
        match points.iter().any(|p| p.tip_error.is_some()) {
            true => panel(&left, &lines, x, x_desc, tip, "tip error (%)", &threads)?,
            false => panel(&left, &lines, x, x_desc, mean, "mean stretch (%)", &threads)?,
        }
        panel(&right, &lines, x, x_desc, max, "largest stretch (%)", &[])
    })
}

/// One panel of [`plot`]: `y` against `x` of every line's points, both on log scales (points
/// where either is not positive are left out). With `threads` (the thread counts, in the order
/// of the markers), the panel has the legend: one entry per method and size, and the markers in
/// the caption.
fn panel(
    area: &Area<'_>,
    lines: &[Line<'_>],
    x: fn(&Point) -> f64,
    x_desc: &str,
    y: fn(&Point) -> f64,
    y_desc: &str,
    threads: &[usize],
) -> anyhow::Result<()> {
    let series: Vec<(&Line<'_>, Vec<(f64, f64)>)> = lines
        .iter()
        .map(|line| {
            let xy = line
                .points
                .iter()
                .map(|p| (x(p), y(p)))
                .filter(|&(x, y)| x > 0.0 && y > 0.0)
                .collect();
            (line, xy)
        })
        .collect();
    let all = || series.iter().flat_map(|(_, xy)| xy.iter().copied());
    // Room above the lines for the legend.
    let bounds = |f: fn((f64, f64)) -> f64, above: f64| {
        let lo = all().map(f).reduce(f64::min).unwrap_or(1.0);
        let hi = all().map(f).reduce(f64::max).unwrap_or(1.0);
        (lo / 1.5)..(hi * above)
    };
    let markers = ["●", "▲", "✕"];
    let key: Vec<String> = (threads.iter().zip(markers))
        .map(|(t, m)| format!("{m} {t} thread(s)"))
        .collect();
    let workload = match lines.first().map(|l| l.points[0].workload) {
        Some(Workload::Plate) => "Plate",
        _ => "W",
    };
    let caption = match key.is_empty() {
        true => format!("{workload}: {y_desc} vs {x_desc}"),
        false => format!("{workload}: {y_desc} vs {x_desc} ({})", key.join(", ")),
    };
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(
            bounds(|p| p.0, 1.5).log_scale(),
            bounds(|p| p.1, 8.0).log_scale(),
        )
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .label_style(("sans-serif", 14))
        .x_label_formatter(&short)
        .y_label_formatter(&short)
        .draw()
        .map_err(draw_error)?;
    for (line, xy) in series {
        let (color, marker) = (line.color, line.marker);
        let drawn = chart
            .draw_series(LineSeries::new(xy.iter().copied(), color.stroke_width(2)))
            .map_err(draw_error)?;
        if !threads.is_empty() && marker == 0 {
            drawn.label(line.label.as_str()).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        }
        chart
            .draw_series(
                xy.iter()
                    .map(|&p| EmptyElement::at(p) + mark(marker, color)),
            )
            .map_err(draw_error)?;
    }
    if !threads.is_empty() {
        chart::legend(&mut chart, SeriesLabelPosition::UpperRight, 13)?;
    }
    Ok(())
}

/// The marker of a line's points: a circle for the first thread count, then a triangle, a
/// cross (the captions' `●`, `▲`, `✕`).
fn mark<'b>(marker: usize, color: RGBAColor) -> DynElement<'static, BitMapBackend<'b>, (i32, i32)> {
    match marker {
        0 => Circle::new((0, 0), 4, color.filled()).into_dyn(),
        1 => TriangleMarker::new((0, 0), 6, color.filled()).into_dyn(),
        _ => Cross::new((0, 0), 5, color.stroke_width(2)).into_dyn(),
    }
}

/// The position of `x` in `values` (0 if absent).
fn rank<T: PartialEq>(values: &[T], x: T) -> usize {
    values.iter().position(|y| *y == x).unwrap_or(0)
}

/// An axis label: `v` to three decimals, without trailing zeros (`0.05`, `1`, `20`).
fn short(v: &f64) -> String {
    format!("{}", (v * 1e3).round() / 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_iterations_leave_w_less_stretched() {
        let point = |iterations| {
            let params = SolverParams {
                method: SolverMethod::GaussSeidel,
                iterations,
                ..SolverParams::default()
            };
            run_point(Workload::W, 16, params, 20).unwrap()
        };
        let (few, many) = (point(1), point(16));
        assert_eq!((few.substeps, few.iterations, many.iterations), (10, 1, 16));
        // Rigid constraints: the stretch left is the solver's, and Gauss-Seidel's falls with
        // every iteration.
        assert!(
            many.mean_stretch < 0.5 * few.mean_stretch,
            "{} vs {}",
            many.mean_stretch,
            few.mean_stretch
        );
        let text = csv(&[few, many]);
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows[0], CSV_HEADER);
        assert_eq!(rows.len(), 3);
        for row in &rows[1..] {
            assert_eq!(row.split(',').count(), CSV_HEADER.split(',').count());
        }
        assert!(rows[1].starts_with("16,gauss-seidel,"));
        assert!(rows[1].ends_with(",w,"), "W has no tip error: {}", rows[1]);
    }

    #[test]
    fn the_global_step_holds_the_plate_at_its_statics_where_gauss_seidel_cannot() {
        // 17 across, 10 x 10: measured 0.26% from the linear statics with `colored-global` (the
        // drop, 5% of the span, is past linear statics by that much), 390% with Gauss-Seidel.
        let point = |method| {
            let params = SolverParams {
                method,
                ..SolverParams::default()
            };
            run_point(Workload::Plate, 17, params, 10).unwrap()
        };
        let global = point(SolverMethod::ColoredGlobal);
        let gauss_seidel = point(SolverMethod::GaussSeidel);
        let error = |p: &Point| p.tip_error.expect("the plate has a tip error");
        assert!(error(&global) < 0.01, "colored-global: {}", error(&global));
        assert!(
            error(&gauss_seidel) > 1.0,
            "gauss-seidel: {}",
            error(&gauss_seidel)
        );
        let text = csv(&[global]);
        let row = text.lines().nth(1).unwrap();
        assert!(
            row.starts_with("17,colored-global,") && row.contains(",plate,0.00"),
            "{row}"
        );
    }
}
