//! `supple plot REPORT.json`: a run's report as one PNG of four panels over simulated time:
//! kinetic energy, the largest and mean strain, the deepest penetration, and the wall time of
//! each frame's step.

use super::chart::{self, Area, draw_error};
use crate::export::write_atomic;
use clap::Args;
use plotters::prelude::*;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Size of the plot, pixels.
pub const PLOT_SIZE: (u32, u32) = (1000, 1100);

/// Arguments of `supple plot`.
#[derive(Args, Debug, Clone)]
pub struct PlotArgs {
    /// The report of a run (`supple run ... --report FILE.json`).
    pub report: PathBuf,
    /// The PNG to write (default: the report's path with the extension .png).
    #[arg(long, value_name = "FILE.png")]
    pub out: Option<PathBuf>,
}

/// The parts of a report that are plotted.
#[derive(Debug, Deserialize)]
pub struct ReportSeries {
    /// Scene name.
    pub scene: String,
    /// One record per frame.
    pub frames: Vec<FrameSeries>,
}

/// The plotted values of one frame of a report.
#[derive(Debug, Deserialize)]
pub struct FrameSeries {
    /// Simulated time, s.
    pub time: f64,
    /// Wall time of the step, ms (0 for frame 0).
    pub step_ms: f64,
    /// Kinetic energy, J.
    pub kinetic_energy: f64,
    /// Largest strain.
    pub max_strain: f64,
    /// Mean strain.
    pub mean_strain: f64,
    /// Deepest penetration, m.
    pub max_penetration: f64,
}

/// Runs `supple plot`.
pub fn run(args: &PlotArgs) -> anyhow::Result<()> {
    let report = read_report(&args.report)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.report.with_extension("png"));
    write_atomic(&out, &plot(&report)?)?;
    println!(
        "{}: {} frames plotted to {}",
        report.scene,
        report.frames.len(),
        out.display()
    );
    Ok(())
}

/// Reads the report at `path`.
pub fn read_report(path: &Path) -> anyhow::Result<ReportSeries> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read the report {}: {e}", path.display()))?;
    let report: ReportSeries = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{} is not a Supple report (supple run ... --report FILE.json): {e}",
            path.display()
        )
    })?;
    if report.frames.is_empty() {
        anyhow::bail!("the report {} has no frames", path.display());
    }
    Ok(report)
}

/// One panel: a y-axis label and its lines (label, colour, (time, value) points).
type Panel = (&'static str, Vec<(&'static str, RGBColor, Vec<(f64, f64)>)>);

/// The PNG of `report`'s four panels.
pub fn plot(report: &ReportSeries) -> anyhow::Result<Vec<u8>> {
    let f = &report.frames;
    let series = |value: fn(&FrameSeries) -> f64, skip: usize| -> Vec<(f64, f64)> {
        f.iter().skip(skip).map(|r| (r.time, value(r))).collect()
    };
    let panels: [Panel; 4] = [
        (
            "kinetic energy (J)",
            vec![("kinetic energy", BLUE, series(|r| r.kinetic_energy, 0))],
        ),
        (
            "strain (%)",
            vec![
                ("max", RED, series(|r| 100.0 * r.max_strain, 0)),
                ("mean", BLUE, series(|r| 100.0 * r.mean_strain, 0)),
            ],
        ),
        (
            "penetration (mm)",
            vec![("max", RED, series(|r| 1e3 * r.max_penetration, 0))],
        ),
        // Frame 0 is the initial state: no step was timed.
        (
            "step (ms per frame)",
            vec![("step", BLACK, series(|r| r.step_ms, 1))],
        ),
    ];
    let t_end = f.last().map_or(0.0, |r| r.time).max(f[0].time + 1e-3);
    let title = format!("{}: {} frames", report.scene, f.len());
    chart::png(PLOT_SIZE, |root| {
        let root = root
            .titled(&title, ("sans-serif", 26))
            .map_err(draw_error)?;
        for (area, panel) in root.split_evenly((4, 1)).iter().zip(panels) {
            draw_panel(area, panel, f[0].time..t_end)?;
        }
        Ok(())
    })
}

/// Draws one panel over `time` (s), its y range from 0 (or the lowest value, if negative) to
/// a little above the highest value.
fn draw_panel(
    area: &Area<'_>,
    (label, lines): Panel,
    time: std::ops::Range<f64>,
) -> anyhow::Result<()> {
    let values = || lines.iter().flat_map(|(_, _, p)| p.iter().map(|q| q.1));
    let lo = values().filter(|v| v.is_finite()).fold(0.0, f64::min);
    let hi = values().filter(|v| v.is_finite()).fold(0.0, f64::max);
    // A flat zero line (no penetration) gets the range 0 to 1.
    let pad = if hi > lo { 0.05 * (hi - lo) } else { 1.0 };
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(80)
        .build_cartesian_2d(time, lo..hi + pad)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc(label)
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(draw_error)?;
    let legend = lines.len() > 1;
    for (name, color, points) in lines {
        let series = chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))
            .map_err(draw_error)?;
        if legend {
            series.label(name).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        }
    }
    if legend {
        chart::legend(&mut chart, SeriesLabelPosition::UpperRight, 14)?;
    }
    Ok(())
}
