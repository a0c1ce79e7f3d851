//! `supple plot`: a run's report becomes one PNG; what is not a report is refused, naming it.
#![cfg(feature = "cli")]

use crate::cli_helper::supple;
use std::path::Path;
use supple::cli::plot::PLOT_SIZE;

#[test]
fn a_report_plots_to_a_png_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/rope.toml");
    let run = [
        "run",
        scene.to_str().unwrap(),
        "--headless",
        "--frames",
        "30",
        "--report",
        "run.json",
    ];
    let (ok, _, stderr) = supple(&run, dir.path());
    assert!(ok, "{stderr}");
    let (ok, _, stderr) = supple(&["plot", "run.json"], dir.path());
    assert!(ok, "{stderr}");
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(dir.path().join("run.png")).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut rgb = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut rgb).unwrap();
    assert_eq!((frame.width, frame.height), PLOT_SIZE);
    assert_eq!(frame.color_type, png::ColorType::Rgb);
    // White paper, black text and axes, and the red and blue lines.
    let colors: std::collections::HashSet<&[u8]> = rgb.chunks(3).collect();
    for color in [[255, 255, 255], [0, 0, 0], [255, 0, 0], [0, 0, 255]] {
        assert!(colors.contains(&color[..]), "no pixel of colour {color:?}");
    }
}

#[test]
fn a_file_that_is_not_a_report_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("other.json"), r#"{"frames": 3}"#).unwrap();
    let (ok, _, stderr) = supple(&["plot", "other.json", "--out", "p.png"], dir.path());
    assert!(!ok);
    assert!(
        stderr.contains("other.json is not a Supple report"),
        "{stderr}"
    );
    let (ok, _, stderr) = supple(&["plot", "missing.json"], dir.path());
    assert!(!ok);
    assert!(
        stderr.contains("cannot read the report missing.json"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
