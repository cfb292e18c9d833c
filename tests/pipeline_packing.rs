//! `report.packing_box` (issue 13): the run log's packing fractions of a known arrangement
//! (`tests/pipelines/packing.yaml`: eight spheres of radius r = 0.05 m at rest on a
//! 2 × 2 × 2 lattice, centres at z = 0.06 and 0.18 m, in a 0.24 m × 0.24 m box on z = 0,
//! one more particle outside the box) against the geometry by hand.

use std::fs;

use msdem_e2e::{pipeline_binary, run_in, test_pipelines_dir, texts};

/// The two fractions of the run log's `packing` line.
fn fractions(log: &str) -> (f64, f64) {
    let line = log
        .lines()
        .find(|l| l.starts_with("packing "))
        .unwrap_or_else(|| panic!("no packing line in\n{log}"));
    let numbers: Vec<f64> = line
        .split([' ', ','])
        .filter_map(|w| w.parse().ok())
        .collect();
    (numbers[0], numbers[1])
}

#[test]
fn packing_fractions_of_a_lattice_match_the_geometry() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(
        test_pipelines_dir().join("packing.yaml"),
        dir.path().join("packing.yaml"),
    )
    .unwrap();
    let o = run_in(&pipeline_binary(), ["packing.yaml"], dir.path());
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    let log = fs::read_to_string(dir.path().join("out/packing/run.log")).unwrap();
    let (bed, core) = fractions(&log);
    let pi = std::f64::consts::PI;
    let (r, area) = (0.05f64, 0.24f64 * 0.24);
    let ball = 4.0 / 3.0 * pi * r.powi(3);
    // Bed height: the top of the upper layer, 0.18 + r = 0.23 m; the egg is outside.
    let h = 0.23;
    let expected_bed = 8.0 * ball / (area * h);
    // Lower half: below z = 0.115 m lie the lower layer whole (centre 0.06, top 0.11) and
    // caps of height 0.115 − (0.18 − r) = −0.015 … none of the upper layer.
    let cut = h / 2.0;
    let cap = |depth: f64| pi * depth * depth * (3.0 * r - depth) / 3.0;
    let upper_depth = (cut - (0.18 - r)).max(0.0);
    let lower_depth = (cut - (0.06 - r)).min(2.0 * r);
    let expected_core = 4.0 * (cap(lower_depth) + cap(upper_depth)) / (area * cut);
    // The run log prints four decimals; the bodies do not move (no gravity, no contacts).
    assert!(
        (bed - expected_bed).abs() < 6e-5,
        "bed {bed} vs {expected_bed}\n{log}"
    );
    assert!(
        (core - expected_core).abs() < 6e-5,
        "core {core} vs {expected_core}\n{log}"
    );
    assert!(log.contains(" 8 particles,"), "{log}");
}
