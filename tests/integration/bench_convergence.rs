//! `supple bench convergence` writes its CSV and plots, and its numbers show what the plots are
//! for: on W's hard constraints, more Gauss-Seidel iterations leave less stretch; on the stiff
//! plate, the global step holds the tip where Gauss-Seidel cannot.
#![cfg(feature = "cli")]

use std::process::Command;

const COLUMNS: &str = "n,method,threads,substeps,iterations,ms_per_frame,max_stretch,\
                       mean_stretch,simd,workload,tip_error";

#[test]
fn convergence_bench_writes_stretch_against_iterations() {
    let out = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_supple"))
        .args(["bench", "convergence", "--n", "12", "--method"])
        .args([
            "gauss-seidel,jacobi",
            "--iterations",
            "1,16",
            "--threads",
            "1",
        ])
        .args(["--frames", "10", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for file in ["convergence-iterations.png", "convergence-time.png"] {
        let png = std::fs::read(out.path().join(file)).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "{file} is not a PNG");
    }
    let csv = std::fs::read_to_string(out.path().join("convergence.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(COLUMNS));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let keys: Vec<(&str, &str, &str)> = rows.iter().map(|r| (r[1], r[3], r[4])).collect();
    assert_eq!(
        keys,
        [
            ("gauss-seidel", "10", "1"),
            ("gauss-seidel", "10", "16"),
            ("jacobi", "10", "1"),
            ("jacobi", "10", "16")
        ]
    );
    let mean = |row: usize| -> f64 { rows[row][7].parse().unwrap() };
    // Hard constraints: what stretch is left is the solver's.
    assert!(mean(1) < 0.5 * mean(0), "{} vs {}", mean(1), mean(0));
    assert!(mean(3) < 0.5 * mean(2), "{} vs {}", mean(3), mean(2));
}

#[test]
fn convergence_bench_refuses_an_unknown_method() {
    let out = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_supple"))
        .args(["bench", "convergence", "--method", "newton", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("invalid value 'newton'"), "{stderr}");
    assert!(
        stderr.contains(
            "[possible values: gauss-seidel, colored, jacobi, colored-chebyshev, colored-global]"
        ),
        "{stderr}"
    );
    assert!(!out.path().join("convergence.csv").exists());
}

#[test]
fn convergence_bench_measures_the_plates_tip_error() {
    let out = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_supple"))
        .args(["bench", "convergence", "--workload", "plate", "--n", "9"])
        .args([
            "--method",
            "gauss-seidel,colored-global",
            "--iterations",
            "4",
        ])
        .args(["--threads", "1", "--frames", "5", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let csv = std::fs::read_to_string(out.path().join("convergence.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let error = |row: usize| -> f64 { rows[row][10].parse().unwrap() };
    assert_eq!((rows[0][1], rows[0][9]), ("gauss-seidel", "plate"));
    assert_eq!((rows[1][1], rows[1][9]), ("colored-global", "plate"));
    assert!(error(1) < 0.01 && error(0) > 10.0 * error(1), "{csv}");
}

#[test]
fn convergence_bench_refuses_an_unknown_workload() {
    let output = Command::new(env!("CARGO_BIN_EXE_supple"))
        .args(["bench", "convergence", "--workload", "cube"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("[possible values: w, plate]"), "{stderr}");
}
