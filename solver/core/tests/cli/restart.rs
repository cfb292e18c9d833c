//! Checkpoint/restart (issue 16): a solver killed with SIGKILL at seeded random points
//! after a checkpoint and resumed with `--restart` writes every frame and `stats.msdem`
//! byte for byte as the uninterrupted run, for the explicit, the implicit and the local
//! time stepping integrators (with `lts.msdem`); a damaged checkpoint or one of another run is refused naming the file.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::fixture::{scenario_text, Fixture};
use msdem_solver::frames::{self, CHECKPOINT_MAGIC};
use msdem_solver::run::checkpoint::Checkpoint;

/// Two grains closing slowly (0.1 m/s): in contact for most of the run, so the kept active
/// sets and the implicit integrator's carried evaluation matter.
fn pair(integrator: &str, end: &str) -> String {
    scenario_text(
        &format!("{{ dt: 1.0e-4, end: {end}, output_every: 20 }}"),
        &format!(
            "integrator: {integrator}
particles:
  - {{ shape: grain, material: rock, position: [-0.0505, 0, 0], velocity: [0.05, 0, 0] }}
  - {{ shape: grain, material: pebble_rock, position: [0.0505, 0, 0], velocity: [-0.05, 0.01, 0], angular_velocity: [0, 0, 3] }}
"
        ),
    )
    .replace(
        "  rock: { density: 2500.0 }",
        "  rock: { density: 2500.0 }\n  pebble_rock: { density: 2500.0 }",
    )
}

/// Seed 004 with persistent contacts: a cube resting on the floor (a touching pair narrowed
/// in every interval, warm-started impulses) and a grain dropped onto the cube's top,
/// bouncing with restitution (collisions inside the intervals, so the particles' previous
/// time stamps differ from the interval starts).
fn resting(integrator: &str) -> String {
    scenario_text(
        "{ dt: 1.0e-4, end: 0.3, output_every: 20 }",
        &format!(
            "integrator: {integrator}
gravity: [0, 0, -9.81]
obstacles:
  - {{ name: floor, mesh: meshes/floor.ply, tree: trees/floor.tree, halo: {{ absolute_m: 0.002 }} }}
particles:
  - {{ shape: cube, material: rock, position: [0, 0, 0.0505] }}
  - {{ shape: grain, material: rock, position: [0.01, 0, 0.16], velocity: [0, 0, -0.5] }}
"
        ),
    )
    .replace(
        "  rock: { density: 2500.0 }",
        "  rock: { density: 2500.0, restitution: 0.5, friction: 0.3 }",
    )
}

fn solver(scenario: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_solver"));
    c.arg(scenario)
        .arg("-o")
        .arg(out)
        .arg("--quiet")
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

/// Every file a run writes that must not depend on checkpoints: frames and statistics.
fn outputs(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(out.join("frames"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.push(frames::stats_path(out));
    files.push(frames::manifest_path(out));
    let lts = msdem_solver::frames::lts::lts_stats_path(out);
    if lts.exists() {
        files.push(lts);
    }
    files
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

/// Step of the latest checkpoint in `out`, if one is readable.
fn checkpoint_step(out: &Path) -> Option<u64> {
    frames::read_record::<Checkpoint>(&frames::checkpoint_path(out), &CHECKPOINT_MAGIC)
        .ok()
        .map(|c| c.step)
}

/// splitmix64: the seeded kill points.
fn next(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn kill_and_resume(integrator: &str, seed: u64) {
    let scene = match integrator.contains("time_stepping") {
        true => resting(integrator),
        false => pair(integrator, "0.3"),
    };
    let f = Fixture::new();
    let s = f.scenario("s.yaml", &scene);
    let reference = f.path().join("reference");
    let o = solver(&s, &reference, &["--checkpoint-every-wall-s", "0"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!frames::checkpoint_path(&reference).exists());
    let expected = outputs(&reference);
    let lts = usize::from(integrator.contains("time_stepping"));
    assert_eq!(expected.len(), 3000 / 20 + 1 + 2 + lts);

    let mut seed = seed;
    let mut kills = 0;
    for attempt in 0..3 {
        let out = f.path().join(format!("killed{attempt}"));
        // Killed at a seeded step past a checkpoint, then killed again after the restart
        // (a resumed run must itself be resumable), then finished.
        let mut resumed_from = Vec::new();
        for round in 0..2 {
            let target = 50 + next(&mut seed) % 2500;
            let mut args = vec!["--checkpoint-every-steps", "37"];
            if round > 0 {
                args.push("--restart");
            }
            let mut child = solver(&s, &out, &args).spawn().unwrap();
            let t0 = Instant::now();
            loop {
                if let Some(status) = child.try_wait().unwrap() {
                    panic!("{integrator}: the solver ended ({status}) before step {target}");
                }
                if let Some(k) = checkpoint_step(&out).filter(|&k| k >= target) {
                    child.kill().unwrap(); // SIGKILL
                    child.wait().unwrap();
                    kills += 1;
                    // The kill may land mid-rotation (latest renamed to previous, the new
                    // one not yet written): the restart then takes the previous one.
                    resumed_from.push(k);
                    break;
                }
                assert!(
                    t0.elapsed() < Duration::from_secs(60),
                    "{integrator}: no checkpoint"
                );
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        let o = solver(&s, &out, &["--restart", "--checkpoint-every-steps", "37"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(!frames::checkpoint_path(&out).exists());
        let got = outputs(&out);
        assert_eq!(got.len(), expected.len(), "{integrator}: {resumed_from:?}");
        for ((name, a), (_, b)) in got.iter().zip(&expected) {
            assert!(
                a == b,
                "{integrator}: {name} differs after kills at {resumed_from:?}"
            );
        }
    }
    assert!(kills >= 3);
}

#[test]
fn explicit_run_killed_at_random_points_resumes_byte_identically() {
    kill_and_resume("explicit", 16);
}

#[test]
fn implicit_run_killed_at_random_points_resumes_byte_identically() {
    kill_and_resume("implicit_multiscale", 1616);
}

#[test]
fn implicit_flat_run_killed_at_random_points_resumes_byte_identically() {
    kill_and_resume("implicit_flat", 161616);
}

/// Seed 004 ([`resting`]): the particles' previous snapshots (span memory, eq. (3)), the
/// kept contact points and the narrowing's witnesses are carried; `lts.msdem` continues
/// too.
#[test]
fn local_time_stepping_run_killed_at_random_points_resumes_byte_identically() {
    kill_and_resume("local_time_stepping", 16_1616);
}

#[test]
fn damaged_or_foreign_checkpoints_are_refused_naming_the_file() {
    let f = Fixture::new();
    let s = f.scenario("s.yaml", &pair("explicit", "0.3"));
    let out = f.path().join("run");
    let mut child = solver(&s, &out, &["--checkpoint-every-steps", "10"])
        .spawn()
        .unwrap();
    while checkpoint_step(&out).is_none_or(|k| k < 30) {
        std::thread::sleep(Duration::from_micros(200));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let ckpt = frames::checkpoint_path(&out);
    let prev = frames::previous_checkpoint_path(&out);
    // The kill may land mid-rotation (latest renamed to previous, the new one not yet
    // written): the previous one, a checkpoint of this run too, stands in for the latest.
    if !ckpt.exists() {
        std::fs::copy(&prev, &ckpt).unwrap();
    }
    // Another run (other end time) refuses this run's checkpoint.
    let other = f.scenario("other.yaml", &pair("explicit", "0.2"));
    let o = solver(&other, &out, &["--restart"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("checkpoint of another run") && err.contains("checkpoint"),
        "{err}"
    );
    // Both damaged: the latest one is named.
    for p in [&ckpt, &prev] {
        let mut bytes = std::fs::read(p).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(p, bytes).unwrap();
    }
    let o = solver(&s, &out, &["--restart"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("{}: checksum mismatch", ckpt.display())),
        "{err}"
    );
}
