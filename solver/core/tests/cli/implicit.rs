//! The implicit integrators through the `solver` binary: every variant runs a head-on
//! collision of two grains and writes frames and statistics (Picard iterations, converged
//! steps); the pair bounces back with its momentum conserved; flat and surrogate-within-
//! Picard agree (seed 000 Cor. 5.5) and multiscale Picard agrees with them within the
//! Picard tolerance; a step budget too small to converge is warned about (rate-limited)
//! and recorded.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::fixture::{scenario_text, Fixture};
use msdem_solver::frames::{self, Frame, StatsFile, FRAME_MAGIC};

/// Two grains (r = 0.05 m, ε = 1 mm) 4 mm apart closing at 1 m/s: contact from step ≈ 20,
/// bounced apart well before step 100.
fn pair(integrator: &str, picard: &str) -> String {
    scenario_text(
        "{ dt: 1.0e-4, end: 0.01, output_every: 25 }",
        &format!(
            "integrator: {integrator}
{picard}
particles:
  - {{ shape: grain, material: rock, position: [-0.052, 0, 0], velocity: [0.5, 0, 0] }}
  - {{ shape: grain, material: rock, position: [0.052, 0, 0], velocity: [-0.5, 0, 0] }}
"
        ),
    )
}

fn solve(f: &Fixture, name: &str, text: &str) -> (PathBuf, Output) {
    let s = f.scenario(&format!("{name}.yaml"), text);
    let out = f.path().join(name);
    let o = Command::new(env!("CARGO_BIN_EXE_solver"))
        .arg(&s)
        .arg("-o")
        .arg(&out)
        .arg("--quiet")
        .output()
        .unwrap();
    (out, o)
}

fn stats(out: &Path) -> StatsFile {
    StatsFile::read(&frames::stats_path(out)).unwrap()
}

fn last_frame(out: &Path) -> Frame {
    frames::read_record(&frames::frame_path(out, 4), &FRAME_MAGIC).unwrap()
}

/// Checks every frame's loads against its contacts: per particle the count, the summed
/// force (±, in contact order) and the torque about the written centre of mass (implicit
/// Euler evaluates the recorded forces at the accepted state, the one written). Returns
/// the number of contacts seen over all frames.
fn check_loads(out: &Path, variant: &str) -> usize {
    let mut seen = 0;
    for k in 0..=4 {
        let fr: Frame = frames::read_record(&frames::frame_path(out, k), &FRAME_MAGIC).unwrap();
        assert_eq!(fr.loads.len(), fr.bodies.len(), "{variant}");
        let n = fr.bodies.len();
        let (mut force, mut torque, mut count) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n], vec![0; n]);
        for c in &fr.contacts {
            let mut add = |i: usize, sign: f64| {
                let x = fr.bodies[i].position;
                let r: [f64; 3] = std::array::from_fn(|d| c.point[d] - x[d]);
                let f: [f64; 3] = c.force.map(|v| sign * v);
                let t = [
                    r[1] * f[2] - r[2] * f[1],
                    r[2] * f[0] - r[0] * f[2],
                    r[0] * f[1] - r[1] * f[0],
                ];
                for d in 0..3 {
                    force[i][d] += f[d];
                    torque[i][d] += t[d];
                }
                count[i] += 1;
            };
            add(c.a as usize, 1.0);
            if let frames::Other::Particle(j) = c.b {
                add(j as usize, -1.0);
            }
        }
        for (i, l) in fr.loads.iter().enumerate() {
            assert_eq!(l.contacts, count[i], "{variant} frame {k} particle {i}");
            let scale = 1e-12 * (1.0 + force[i].iter().map(|v| v.abs()).sum::<f64>());
            for d in 0..3 {
                assert!(
                    (l.force[d] - force[i][d]).abs() <= scale,
                    "{variant}: {l:?}"
                );
                assert!(
                    (l.torque[d] - torque[i][d]).abs() <= scale,
                    "{variant}: {l:?}"
                );
            }
        }
        seen += fr.contacts.len();
    }
    seen
}

#[test]
fn every_implicit_variant_runs_a_bouncing_pair_through_the_binary() {
    let f = Fixture::new();
    let mut finals = Vec::new();
    for variant in ["implicit_flat", "implicit_surrogate", "implicit_multiscale"] {
        let (out, o) = solve(&f, variant, &pair(variant, ""));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{variant}: {stderr}");
        assert!(stderr.is_empty(), "{variant}: {stderr}");
        let s = stats(&out);
        assert_eq!(s.steps.len(), 100, "{variant}");
        assert!(s.steps.iter().all(|st| st.iterations >= 1 && st.converged));
        // Contact steps need several Picard iterations, free flight converges at once.
        let touching: Vec<_> = s.steps.iter().filter(|st| st.contacts > 0).collect();
        assert!(touching.len() >= 5, "{variant}: {} steps", touching.len());
        assert!(
            touching.iter().any(|st| st.iterations > 2),
            "{variant}: {:?}",
            touching.iter().map(|st| st.iterations).collect::<Vec<_>>()
        );
        assert_eq!(
            s.steps.last().unwrap().contacts,
            0,
            "{variant}: still touching"
        );
        assert!(
            check_loads(&out, variant) > 0,
            "{variant}: no contact in a frame"
        );
        let last = last_frame(&out);
        assert_eq!(last.step, 100);
        let (a, b) = (&last.bodies[0], &last.bodies[1]);
        // Bounced: moving apart, momentum conserved (equal masses, zero total).
        assert!(
            a.velocity[0] < -0.2 && b.velocity[0] > 0.2,
            "{variant}: {a:?} {b:?}"
        );
        assert!(a.velocity[0] >= -0.5 - 1e-9 && b.velocity[0] <= 0.5 + 1e-9);
        assert!((a.velocity[0] + b.velocity[0]).abs() < 1e-9, "{variant}");
        finals.push((a.position[0], a.velocity[0]));
    }
    let (flat, surrogate, multiscale) = (finals[0], finals[1], finals[2]);
    assert!((flat.0 - surrogate.0).abs() < 1e-9, "{finals:?}");
    assert!((flat.1 - surrogate.1).abs() < 1e-6, "{finals:?}");
    // Multiscale Picard stops at another guess within the 1 % tolerance.
    assert!(
        (flat.1 - multiscale.1).abs() < 0.02 * flat.1.abs(),
        "{finals:?}"
    );
    assert!((flat.0 - multiscale.0).abs() < 1e-4, "{finals:?}");
}

#[test]
fn a_step_out_of_picard_iterations_stops_the_run_naming_the_scenario() {
    let f = Fixture::new();
    // One iteration per step can never pass the convergence test (it compares two): with
    // `stop` the first step ends the run, with `substep` the first step is split down to
    // Δt/16 and then ends it.
    for (mode, tail) in [
        ("stop", "set picard.on_no_convergence: substep"),
        ("substep", "even at Δt/16"),
    ] {
        let name = format!("budget_{mode}");
        let (out, o) = solve(
            &f,
            &name,
            &pair(
                "implicit_multiscale",
                &format!("picard: {{ max_iterations: 1, on_no_convergence: {mode} }}"),
            ),
        );
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{mode}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{mode}: {stderr}");
        assert!(
            lines[0].starts_with("error: ")
                && lines[0].contains(&format!("{name}.yaml: step 1 (t = 0e0 s): Picard iterations did not converge within 1 iterations"))
                && lines[0].contains("largest relative update")
                && lines[0].contains(tail),
            "{mode}: {stderr}"
        );
        let _ = out;
    }

    // Explicit steps are always converged; the same picard section is ignored there.
    let (out, o) = solve(
        &f,
        "explicit",
        &pair("explicit", "picard: { max_iterations: 1 }"),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stats(&out)
        .steps
        .iter()
        .all(|st| st.converged && st.iterations == 1 && st.substeps == 0));
}

#[test]
fn steps_split_into_substeps_are_recorded_and_summarised() {
    let f = Fixture::new();
    // The bouncing pair at five times its time step, three relaxed iterations per step.
    let text = pair(
        "implicit_multiscale",
        "picard: { max_iterations: 3, acceleration: aitken }",
    )
    .replace(
        "{ dt: 1.0e-4, end: 0.01, output_every: 25 }",
        "{ dt: 5.0e-4, end: 0.01, output_every: 5 }",
    );
    let s = f.scenario("split.yaml", &text);
    let out = f.path().join("split");
    let o = Command::new(env!("CARGO_BIN_EXE_solver"))
        .arg(&s)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let st = stats(&out);
    let split: Vec<_> = st.steps.iter().filter(|s| s.substeps > 0).collect();
    assert!(
        !split.is_empty(),
        "three relaxed iterations must split some contact steps"
    );
    assert!(split.iter().all(|s| s.converged && s.substeps >= 2));
    let total: u64 = split.iter().map(|s| u64::from(s.substeps)).sum();
    assert!(
        stdout.contains(&format!(
            "{} steps did not converge at the full time step and were split into {total} substeps",
            split.len()
        )),
        "{stdout}"
    );
    // Every step, split or not, ends at its own multiple of Δt.
    for (k, s) in st.steps.iter().enumerate() {
        assert_eq!(s.step, k as u64 + 1);
    }
}

#[test]
fn the_summary_reports_picard_iterations_only_for_implicit_runs() {
    let f = Fixture::new();
    for (integrator, implicit) in [("implicit_surrogate", true), ("explicit", false)] {
        let s = f.scenario("s.yaml", &pair(integrator, ""));
        let out = f.path().join(integrator);
        let o = Command::new(env!("CARGO_BIN_EXE_solver"))
            .arg(&s)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success());
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert_eq!(
            stdout.contains("Picard iterations:"),
            implicit,
            "{integrator}: {stdout}"
        );
        if implicit {
            assert!(stdout.contains("0 steps did not converge."), "{stdout}");
        }
    }
}
