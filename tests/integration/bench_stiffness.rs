//! `supple bench stiffness --quick` writes a CSV whose numbers show the physics: XPBD reaches
//! Hooke's law, plain PBD stiffens with iterations.
#![cfg(feature = "cli")]

use std::collections::HashMap;
use std::process::Command;

const COLUMNS: &str = "workload,model,k_or_compliance,substeps,iterations,method,extension_m,analytic_extension_m,effective_stiffness,max_stretch,mean_stretch,residual,ms_per_frame";

/// The CSV's rows as column-name -> value maps.
fn rows(csv: &str) -> Vec<HashMap<String, String>> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            header
                .iter()
                .zip(l.split(','))
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn num(row: &HashMap<String, String>, column: &str) -> f64 {
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{column} = '{}' in {row:?}", row[column]))
}

#[test]
fn quick_stiffness_bench_writes_physical_results() {
    let out = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_supple"))
        .args(["bench", "stiffness", "--quick", "--out"])
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success());
    for file in ["stiffness.csv", "stiffness.md", "stiffness-rope-s4.png"] {
        assert!(out.path().join(file).is_file(), "{file} missing");
    }
    let csv = std::fs::read_to_string(out.path().join("stiffness.csv")).unwrap();
    assert!(
        csv.starts_with(COLUMNS),
        "header: {}",
        csv.lines().next().unwrap()
    );
    let rows = rows(&csv);
    let rope = |model: &str| -> Vec<&HashMap<String, String>> {
        rows.iter()
            .filter(|r| r["workload"] == "rope" && r["model"] == model)
            .collect()
    };
    assert!(rows.iter().all(|r| r["method"] == "gauss-seidel"));

    // XPBD reaches Hooke's law at the largest iteration count. The analytic extension, from the
    // rope's own numbers (20 segments, 0.21 kg on 21 particles, g = 9.81): segment k from the top
    // carries the 20 − k particles below it, so the rope stretches by α m g Σ_{k=1}^{20} k.
    let (segments, m, g) = (20.0, 0.21 / 21.0, 9.81);
    let hooke = |alpha: f64| alpha * m * g * segments * (segments + 1.0) / 2.0;
    let xpbd = rope("xpbd");
    let max_iterations = xpbd
        .iter()
        .map(|r| num(r, "iterations"))
        .fold(0.0, f64::max);
    let mut checked = 0;
    for r in xpbd
        .iter()
        .filter(|r| num(r, "iterations") == max_iterations)
    {
        let analytic = hooke(num(r, "k_or_compliance"));
        assert!(
            (num(r, "analytic_extension_m") - analytic).abs() <= 1e-6 * analytic.max(1e-9),
            "the CSV's analytic extension {} m, Hooke's law {analytic} m",
            r["analytic_extension_m"]
        );
        if analytic > 0.0 {
            let e = num(r, "extension_m");
            assert!(
                ((e - analytic) / analytic).abs() < 0.02,
                "compliance {}: extension {e} m, analytic {analytic} m",
                r["k_or_compliance"]
            );
            checked += 1;
        }
    }
    assert!(checked >= 3, "only {checked} compliances checked");

    // PBD projects the fraction k of the remaining error per iteration, so more iterations leave
    // less stretch: a stiffer rope.
    let pbd = |iterations: f64| {
        rope("pbd")
            .into_iter()
            .find(|r| r["k_or_compliance"] == "0.5" && num(r, "iterations") == iterations)
            .map(|r| num(r, "effective_stiffness"))
            .unwrap()
    };
    let (few, many) = (pbd(1.0), pbd(64.0));
    assert!(
        many > 2.0 * few,
        "pbd k=0.5: {few} N/m at 1 iteration, {many} N/m at 64"
    );
}
