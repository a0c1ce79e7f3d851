//! What the plots of the command line share: the shipped font, drawing into an RGB bitmap and
//! encoding it as PNG (plotters without its system-font and image dependencies).

use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;
use std::sync::Once;

/// The drawing area of a plot.
pub type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// Registers the shipped DejaVu Sans as plotters' `sans-serif` font (once per process).
fn register_font() {
    static FONT: Once = Once::new();
    FONT.call_once(|| {
        // The font is the repository's own file; it always parses.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            include_bytes!("../../assets/DejaVuSans.ttf"),
        );
    });
}

/// Draws the legend of `chart`'s labelled series at `position`, in `font_size` px on a light
/// box.
pub fn legend<'b, CT: CoordTranslate>(
    chart: &mut ChartContext<'b, BitMapBackend<'b>, CT>,
    position: SeriesLabelPosition,
    font_size: u32,
) -> anyhow::Result<()> {
    chart
        .configure_series_labels()
        .label_font(("sans-serif", font_size))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(position)
        .draw()
        .map_err(draw_error)
}

/// The error of a failed drawing call.
pub fn draw_error(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("cannot draw the plot: {e}")
}

/// A PNG of `size` (width, height) pixels: a white area, drawn on by `draw` with the
/// `sans-serif` font available.
pub fn png(
    size: (u32, u32),
    draw: impl FnOnce(&Area<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<u8>> {
    register_font();
    let (w, h) = size;
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        draw(&root)?;
        root.present().map_err(draw_error)?;
    }
    let mut bytes = Vec::new();
    let mut encoder = ::png::Encoder::new(&mut bytes, w, h);
    encoder.set_color(::png::ColorType::Rgb);
    encoder.set_depth(::png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&rgb)?;
    writer.finish()?;
    Ok(bytes)
}
