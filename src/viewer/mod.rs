//! The 3-D viewer: an interactive kiss3d window ([`run_window`]), offscreen screenshots
//! ([`screenshot`]) and animations ([`record`]: GIF and video) of a [`World`].
//!
//! Cloth is drawn as a smooth-shaded mesh, orange on the front and blue on the back, with its
//! normals recomputed every frame; soft bodies likewise (green outside, purple inside), as their
//! skinned surface; ropes as lines; planes as a ground square with a grid; the
//! other colliders as solids. The window runs the simulation at real time in fixed frames of
//! `world.params.dt` seconds (see [`pacing`]) and lets the user grab particles ([`picking`]).

mod interactive;
pub mod pacing;
pub mod picking;
pub mod record;
mod scene_view;

use crate::world::World;
use kiss3d::pollster::block_on;
use kiss3d::prelude::{Font, OffscreenSurface, OrbitCamera3d, Vec2, Window};
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

/// Size of screenshots, pixels.
const SCREENSHOT_SIZE: (u32, u32) = (1280, 800);
/// Size of the window when it opens, logical pixels.
const WINDOW_SIZE: (u32, u32) = (1280, 800);
/// Height of the overlay text, pixels.
const TEXT_SIZE_PX: f32 = 22.0;

/// Why the viewer cannot render.
#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    /// Neither `DISPLAY` nor `WAYLAND_DISPLAY` is set.
    #[error("no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set)")]
    NoDisplay,
    /// The display is set but no window can be opened on it.
    #[error("cannot open a window on the display: {0}")]
    DisplayUnavailable(String),
    /// wgpu found no GPU adapter.
    #[error(
        "no GPU adapter for rendering (without a GPU, install Mesa's software Vulkan driver: mesa-vulkan-drivers): {0}"
    )]
    NoAdapter(String),
    /// The renderer failed to start for another reason.
    #[error("the renderer failed to start: {0}")]
    Renderer(String),
}

/// True when a window can be opened (an X11 or Wayland display is set).
pub fn display_available() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty()))
}

/// Opens a window titled `title` and runs `world` interactively until closed.
pub fn run_window(world: World, title: &str) -> anyhow::Result<()> {
    if !display_available() {
        return Err(ViewerError::NoDisplay.into());
    }
    let window =
        start_renderer(|| block_on(Window::new_with_size(title, WINDOW_SIZE.0, WINDOW_SIZE.1)))?;
    block_on(interactive::run(window, world, title));
    Ok(())
}

/// Renders `world` offscreen (no display needed, Mesa lavapipe), simulating `frames` frames, and
/// saves a PNG of the last one to `path` (written atomically: temp file + rename).
pub fn screenshot(world: World, title: &str, frames: u64, path: &Path) -> anyhow::Result<()> {
    // kiss3d keeps its wgpu context in thread-local storage and cannot build a second one on a
    // thread that dropped the first: each screenshot renders on a thread of its own.
    std::thread::scope(|scope| {
        scope
            .spawn(|| render_still(world, title, frames, path))
            .join()
    })
    .map_err(renderer_error)?
}

/// Simulates `frames` frames of `world`, renders the last one with a caption and saves it to
/// `path`. The camera is framed on the initial state, so that all frames share one view.
fn render_still(mut world: World, title: &str, frames: u64, path: &Path) -> anyhow::Result<()> {
    let mut offscreen = Offscreen::new(&world, title, SCREENSHOT_SIZE);
    for _ in 0..frames {
        world.step()?;
    }
    let image = offscreen.render(&world);
    let mut png = std::io::Cursor::new(Vec::new());
    image.write_to(&mut png, image::ImageFormat::Png)?;
    Ok(crate::export::write_atomic(path, png.get_ref())?)
}

/// Offscreen rendering of one world, frame after frame: the camera is framed on the world's
/// state when this is created, so that all frames share one view.
struct Offscreen {
    surface: OffscreenSurface,
    camera: OrbitCamera3d,
    view: scene_view::SceneView,
    font: std::sync::Arc<Font>,
    title: String,
    /// Height of the caption, pixels.
    text_px: f32,
}

impl Offscreen {
    /// An offscreen surface of `size` (width, height) pixels showing `world`, captioned `title`.
    fn new(world: &World, title: &str, size: (u32, u32)) -> Self {
        let camera = scene_view::framing_camera(scene_view::scene_bounds(world));
        let mut surface = block_on(OffscreenSurface::new(size.0, size.1));
        surface.set_background_color(scene_view::BACKGROUND);
        Offscreen {
            surface,
            camera,
            view: scene_view::SceneView::new(world),
            font: Font::default(),
            title: title.to_string(),
            text_px: TEXT_SIZE_PX * (size.1 as f32 / SCREENSHOT_SIZE.1 as f32).max(0.5),
        }
    }

    /// Renders the current frame of `world` with a caption (title, frame and time).
    fn render(&mut self, world: &World) -> image::RgbImage {
        self.view.sync(world);
        let window = self.surface.window_mut();
        self.view.draw_lines(window, world, false);
        let caption = format!(
            "{}   frame {} ({:.2} s)",
            self.title,
            world.frame,
            world.frame as f32 * world.params.dt
        );
        let position = Vec2::splat(self.text_px / 2.0);
        window.draw_text(
            &caption,
            position,
            self.text_px,
            &self.font,
            interactive::TEXT,
        );
        block_on(
            self.surface
                .render_image_3d(&mut self.view.root, &mut self.camera),
        )
    }
}

/// Creates the window, turning kiss3d's panics (when the display cannot be opened or there is no
/// adapter) into errors; the panic hook is silenced meanwhile, since the error says it all.
fn start_renderer<T>(start: impl FnOnce() -> T) -> Result<T, ViewerError> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = catch_unwind(AssertUnwindSafe(start));
    std::panic::set_hook(hook);
    result.map_err(renderer_error)
}

/// The error for a panic of the renderer, from its message.
fn renderer_error(payload: Box<dyn Any + Send>) -> ViewerError {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown error".to_string());
    if message.contains("adapter") {
        ViewerError::NoAdapter(message)
    } else if message.contains("event loop") {
        ViewerError::DisplayUnavailable(message)
    } else {
        ViewerError::Renderer(message)
    }
}
