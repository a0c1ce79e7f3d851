//! `--gif` and `--video`: an offscreen recording has the asked number of pictures, and they move.
#![cfg(feature = "viewer")]

use crate::viewer_helper;

use std::path::Path;
use supple::viewer::ViewerError;
use supple::viewer::record::{Recording, record};
use viewer_helper::default_world as world;

/// The pictures of a GIF as shown: each frame drawn over the previous picture (every frame of
/// Supple's GIFs keeps what it does not cover), and each frame's delay in hundredths of a second.
fn pictures(path: &Path) -> (Vec<Vec<u8>>, Vec<u16>, (u16, u16)) {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options
        .read_info(std::fs::File::open(path).unwrap())
        .unwrap();
    let (w, h) = (decoder.width(), decoder.height());
    let mut canvas = vec![0u8; w as usize * h as usize * 4];
    let (mut shown, mut delays) = (Vec::new(), Vec::new());
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        assert_eq!(frame.dispose, gif::DisposalMethod::Keep);
        for y in 0..frame.height as usize {
            for x in 0..frame.width as usize {
                let src = 4 * (y * frame.width as usize + x);
                if frame.buffer[src + 3] == 0 {
                    continue;
                }
                let dst = 4 * ((y + frame.top as usize) * w as usize + x + frame.left as usize);
                canvas[dst..dst + 4].copy_from_slice(&frame.buffer[src..src + 4]);
            }
        }
        shown.push(canvas.clone());
        delays.push(frame.delay);
    }
    (shown, delays, (w, h))
}

#[test]
fn a_gif_has_one_picture_per_stride_and_they_move() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.gif");
    // Frames 0, 3, ..., 15: six pictures, 5 hundredths of a second apart at 60 Hz.
    let recording = Recording {
        frames: 15,
        stride: 3,
        size: (160, 100),
        gif: Some(path.clone()),
        video: None,
    };
    assert_eq!(recording.pictures(), 6);
    match record(world(), "default", &recording) {
        Err(e) if matches!(e.downcast_ref(), Some(ViewerError::NoAdapter(_))) => {
            return viewer_helper::no_vulkan(&e.to_string());
        }
        result => result.unwrap(),
    }
    let (shown, delays, size) = pictures(&path);
    assert_eq!(size, (160, 100));
    assert_eq!(shown.len(), 6);
    assert_eq!(delays, [5; 6]);
    // Every pixel is opaque once the first picture is drawn.
    assert!(shown[0].chunks(4).all(|p| p[3] == 255));
    for (k, pair) in shown.windows(2).enumerate() {
        let changed = pair[0]
            .chunks(4)
            .zip(pair[1].chunks(4))
            .filter(|(a, b)| a != b)
            .count();
        assert!(
            changed > 100,
            "pictures {k} and {} differ in {changed} pixels only",
            k + 1
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_video_is_written_by_ffmpeg_or_refused_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.mp4");
    let recording = Recording {
        frames: 4,
        stride: 1,
        size: (160, 100),
        gif: None,
        video: Some(path.clone()),
    };
    let ffmpeg = std::process::Command::new("ffmpeg")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    match record(world(), "default", &recording) {
        Err(e) if matches!(e.downcast_ref(), Some(ViewerError::NoAdapter(_))) => {
            viewer_helper::no_vulkan(&e.to_string());
        }
        Err(e) if !ffmpeg => {
            assert!(e.to_string().contains("needs ffmpeg on the PATH"), "{e}");
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        }
        result => {
            result.unwrap();
            assert!(ffmpeg);
            let mp4 = std::fs::read(&path).unwrap();
            // An MP4 file opens with its `ftyp` box.
            assert_eq!(&mp4[4..8], b"ftyp");
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        }
    }
}
