//! Animations of a run, rendered offscreen: an animated GIF, and a video through `ffmpeg`.
//!
//! The GIF is kept small the usual way: the first frame is whole, and every later frame holds
//! only the rectangle that changed, with the pixels that did not change inside it transparent
//! (drawn over the previous frame, which is kept). Each frame has its own 256-colour palette
//! (NeuQuant, from the `gif` crate). Frame delays are whole hundredths of a second, the GIF's
//! unit: they are rounded so that frame `k` shows at its simulated time, and kept at two
//! hundredths or more, below which browsers slow an animation down.

use super::Offscreen;
use crate::export::{TempFile, write_atomic};
use crate::world::World;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

/// NeuQuant's sampling step for the GIF palettes, 1 (best) to 30 (fastest).
const GIF_SPEED: i32 = 10;
/// The shortest frame delay that browsers play as written, hundredths of a second.
const MIN_DELAY_CS: u64 = 2;

/// What to record and how.
#[derive(Clone, Debug)]
pub struct Recording {
    /// Frames to simulate.
    pub frames: u64,
    /// Record every `stride`-th frame (from frame 0), at least 1.
    pub stride: u64,
    /// Width and height of the pictures, pixels.
    pub size: (u32, u32),
    /// The animated GIF to write.
    pub gif: Option<PathBuf>,
    /// The video to write (MP4, H.264 when ffmpeg has it), through `ffmpeg` on the PATH.
    pub video: Option<PathBuf>,
}

impl Recording {
    /// The number of pictures: frames 0, `stride`, `2 stride`, ... up to `frames`.
    pub fn pictures(&self) -> u64 {
        self.frames / self.stride.max(1) + 1
    }
}

/// Simulates `world` as `recording` says and writes its animations (each atomically), rendering
/// offscreen (no display needed, Mesa lavapipe without a GPU).
pub fn record(world: World, title: &str, recording: &Recording) -> anyhow::Result<()> {
    // See `screenshot`: kiss3d's wgpu context is per thread, one thread per rendering.
    std::thread::scope(|scope| {
        scope
            .spawn(|| record_frames(world, title, recording))
            .join()
    })
    .map_err(super::renderer_error)?
}

fn record_frames(mut world: World, title: &str, recording: &Recording) -> anyhow::Result<()> {
    let (width, height) = recording.size;
    let stride = recording.stride.max(1);
    let dt = world.params.dt as f64 * stride as f64;
    let mut video = match &recording.video {
        Some(path) => Some(Video::start(path, recording.size, 1.0 / dt)?),
        None => None,
    };
    let mut offscreen = Offscreen::new(&world, title, recording.size);
    let mut gif = match recording.gif {
        Some(_) => Some(GifFrames::new(width, height)?),
        None => None,
    };
    for k in 0..recording.pictures() {
        if k > 0 {
            for _ in 0..stride {
                world.step()?;
            }
        }
        let image = offscreen.render(&world);
        if let Some(gif) = &mut gif {
            gif.push(&image, k, dt)?;
        }
        if let Some(video) = &mut video {
            video.push(&image)?;
        }
    }
    if let (Some(gif), Some(path)) = (gif, &recording.gif) {
        write_atomic(path, &gif.finish()?)?;
    }
    if let Some(video) = video {
        video.finish()?;
    }
    Ok(())
}

/// An animated GIF being encoded in memory.
struct GifFrames {
    encoder: gif::Encoder<Vec<u8>>,
    /// The previous picture, RGB.
    previous: Option<Vec<u8>>,
    width: u16,
    height: u16,
}

impl GifFrames {
    fn new(width: u32, height: u32) -> anyhow::Result<Self> {
        let (Ok(w), Ok(h)) = (u16::try_from(width), u16::try_from(height)) else {
            anyhow::bail!("a GIF is at most 65535 pixels on a side, not {width}x{height}");
        };
        let mut encoder = gif::Encoder::new(Vec::new(), w, h, &[])?;
        encoder.set_repeat(gif::Repeat::Infinite)?;
        Ok(GifFrames {
            encoder,
            previous: None,
            width: w,
            height: h,
        })
    }

    /// Adds picture `k` of the animation, shown from `k dt` to `(k + 1) dt` seconds.
    fn push(&mut self, image: &image::RgbImage, k: u64, dt: f64) -> anyhow::Result<()> {
        let rgb = image.as_raw();
        let (w, h) = (self.width as usize, self.height as usize);
        // The rectangle of changed pixels: everything for the first picture.
        let rect = match &self.previous {
            None => Some((0, 0, w, h)),
            Some(previous) => changed_rect(previous, rgb, w, h),
        };
        // An unchanged picture still takes its time: one transparent pixel.
        let (x0, y0, rw, rh) = rect.unwrap_or((0, 0, 1, 1));
        let mut rgba = Vec::with_capacity(rw * rh * 4);
        for y in y0..y0 + rh {
            for x in x0..x0 + rw {
                let i = 3 * (y * w + x);
                let same = self
                    .previous
                    .as_ref()
                    .is_some_and(|p| p[i..i + 3] == rgb[i..i + 3]);
                rgba.extend_from_slice(&rgb[i..i + 3]);
                rgba.push(if same { 0 } else { 255 });
            }
        }
        let mut frame = gif::Frame::from_rgba_speed(rw as u16, rh as u16, &mut rgba, GIF_SPEED);
        frame.left = x0 as u16;
        frame.top = y0 as u16;
        frame.dispose = gif::DisposalMethod::Keep;
        frame.delay = delay_cs(k, dt);
        self.encoder.write_frame(&frame)?;
        self.previous = Some(rgb.clone());
        Ok(())
    }

    fn finish(self) -> anyhow::Result<Vec<u8>> {
        Ok(self.encoder.into_inner()?)
    }
}

/// The delay of picture `k` of an animation of one picture every `dt` seconds, hundredths of a
/// second: the rounded time of picture `k + 1` minus that of picture `k`, at least
/// [`MIN_DELAY_CS`].
fn delay_cs(k: u64, dt: f64) -> u16 {
    let at = |k: u64| (k as f64 * dt * 100.0).round() as u64;
    (at(k + 1) - at(k)).max(MIN_DELAY_CS).min(u16::MAX as u64) as u16
}

/// The smallest rectangle `(x, y, width, height)` holding every pixel where two RGB pictures of
/// `w x h` pixels differ; `None` when they are the same.
fn changed_rect(a: &[u8], b: &[u8], w: usize, h: usize) -> Option<(usize, usize, usize, usize)> {
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
    for y in 0..h {
        for x in 0..w {
            let i = 3 * (y * w + x);
            if a[i..i + 3] != b[i..i + 3] {
                (x0, y0) = (x0.min(x), y0.min(y));
                (x1, y1) = (x1.max(x + 1), y1.max(y + 1));
            }
        }
    }
    (x1 > x0).then(|| (x0, y0, x1 - x0, y1 - y0))
}

/// A video being encoded by an `ffmpeg` process, into a temporary file renamed at the end.
struct Video {
    child: Child,
    stdin: Option<ChildStdin>,
    /// The video, until it is persisted.
    file: Option<TempFile>,
}

impl Video {
    /// Starts `ffmpeg`, reading raw RGB pictures of `size` at `fps` pictures per second.
    fn start(path: &Path, size: (u32, u32), fps: f64) -> anyhow::Result<Self> {
        if !size.0.is_multiple_of(2) || !size.1.is_multiple_of(2) {
            anyhow::bail!(
                "a video needs an even width and height (yuv420p), not {}x{}",
                size.0,
                size.1
            );
        }
        let file = TempFile::beside(path)?;
        let mut child = Command::new("ffmpeg")
            .args(["-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo"])
            .args(["-pix_fmt", "rgb24", "-s", &format!("{}x{}", size.0, size.1)])
            .args(["-framerate", &format!("{fps:.6}"), "-i", "-"])
            .args(["-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", "mp4"])
            .arg(file.path())
            .stdin(Stdio::piped())
            .spawn()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => anyhow::anyhow!(
                    "--video needs ffmpeg on the PATH (e.g. apt-get install ffmpeg); --gif needs nothing"
                ),
                _ => anyhow::anyhow!("cannot start ffmpeg: {e}"),
            })?;
        let stdin = child.stdin.take();
        Ok(Video {
            child,
            stdin,
            file: Some(file),
        })
    }

    fn push(&mut self, image: &image::RgbImage) -> anyhow::Result<()> {
        let stdin = self.stdin.as_mut().expect("open until finish");
        stdin
            .write_all(image.as_raw())
            .map_err(|e| anyhow::anyhow!("ffmpeg stopped reading pictures: {e}"))
    }

    fn finish(mut self) -> anyhow::Result<()> {
        drop(self.stdin.take());
        let status = self.child.wait()?;
        if !status.success() {
            anyhow::bail!("ffmpeg failed ({status}) writing the video");
        }
        let file = self.file.take().expect("persisted once");
        Ok(file.persist()?)
    }
}

impl Drop for Video {
    fn drop(&mut self) {
        // A failed run: stop ffmpeg (its input ends) before the temporary file goes.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_keep_pictures_at_their_time_in_hundredths() {
        // Every second frame at 60 Hz: 3.33 cs per picture.
        let d: Vec<u16> = (0..6).map(|k| delay_cs(k, 2.0 / 60.0)).collect();
        assert_eq!(d, [3, 4, 3, 3, 4, 3]);
        assert_eq!(d.iter().map(|&c| c as u64).sum::<u64>(), 20);
        // Every frame at 60 Hz would need delays of 1 cs, which browsers stretch: 2 cs.
        assert!((0..6).all(|k| delay_cs(k, 1.0 / 60.0) == 2));
    }

    #[test]
    fn the_changed_rectangle_bounds_every_changed_pixel() {
        let (w, h) = (5, 4);
        let a = vec![7u8; w * h * 3];
        let mut b = a.clone();
        assert_eq!(changed_rect(&a, &b, w, h), None);
        b[3 * (w + 3) + 1] = 0; // (3, 1)
        b[3 * (2 * w + 1)] = 0; // (1, 2)
        assert_eq!(changed_rect(&a, &b, w, h), Some((1, 1, 3, 2)));
    }
}
