//! End-to-end checks of the pictures (issue 17): the animated preview read back with an
//! independent decoder (Pillow, through `tests/python/check_animation.py`), the dashboard
//! against the single plots, `--no-animation`, degenerate runs (one frame, no particles,
//! no steps), and byte-identical output at any thread count.

#[allow(dead_code)]
mod fixture;
#[allow(dead_code)]
mod support;

use support::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use msdem_frames::*;

fn export_to(run: &Path, out: &Path, extra: &[&str], threads: Option<usize>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_export"));
    cmd.arg(run).arg("-o").arg(out).args(extra);
    if let Some(n) = threads {
        cmd.env("RAYON_NUM_THREADS", n.to_string());
    }
    let o = cmd.output().expect("run export");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

/// Runs `check_animation.py` on `file`; returns its output when it says OK.
fn check_animation(file: &Path, frames: usize, max_bytes: u64, mode: &str) -> String {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/python/check_animation.py");
    let (w, h) = msdem_export::animation::ANIMATION_SIZE;
    // Rows the time label may use (the camera keeps them free of the scene).
    let band = (f64::from(msdem_export::preview::label_size(h)) * 1.3 + 2.0).ceil() as u32;
    let o = Command::new(python_with("PIL"))
        .arg(script)
        .arg(file)
        .args([
            frames.to_string(),
            w.to_string(),
            h.to_string(),
            max_bytes.to_string(),
        ])
        .args([band.to_string(), mode.to_string()])
        .output()
        .expect("run python");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.status.success() && text.starts_with("OK"),
        "{}: {text}",
        file.display()
    );
    text
}

/// Adds frames 3..n to the fixture run: particle poses of frame 2, moved along x by 2 cm
/// a frame when `moving`, 15 ms apart.
fn extend_run(run: &Path, n: u32, moving: bool) {
    let last: Frame = read_record(&frame_path(run, 2), &FRAME_MAGIC).unwrap();
    for i in 3..n {
        let mut f = last.clone();
        f.step = 15 * u64::from(i);
        f.time = 0.015 * f64::from(i);
        if moving {
            for b in &mut f.bodies {
                b.position[0] += 0.02 * f64::from(i - 2);
            }
        }
        write_record(&frame_path(run, i), &FRAME_MAGIC, &f).unwrap();
    }
}

#[test]
fn animation_has_a_bounded_number_of_frames_that_follow_the_particles() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    extend_run(&run, 150, true);
    let out = tmp.path().join("out");
    let o = export_to(&run, &out, &["--no-vtk", "--no-ply"], None);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("150 frames") && stdout.contains("animation of 100 frames"),
        "{stdout}"
    );
    let file = out.join("preview_animation.png");
    check_animation(&file, 100, 4 << 20, "moving");
}

#[test]
fn animation_of_a_still_run_changes_only_its_time_label() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    // Every frame with the poses of frame 0 (times 0, 15, 30 ms).
    let first: Frame = read_record(&frame_path(&run, 0), &FRAME_MAGIC).unwrap();
    for (i, _, time) in fixture::FRAMES {
        let f = Frame {
            time,
            ..first.clone()
        };
        write_record(&frame_path(&run, i), &FRAME_MAGIC, &f).unwrap();
    }
    let out = tmp.path().join("out");
    export_to(&run, &out, &["--no-vtk", "--no-ply", "--no-plots"], None);
    check_animation(&out.join("preview_animation.png"), 3, 1 << 20, "still");
}

#[test]
fn no_animation_flag_writes_none() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    let out = tmp.path().join("out");
    let o = export_to(&run, &out, &["--no-animation"], None);
    assert!(!out.join("preview_animation.png").exists());
    assert!(out.join("preview.png").is_file());
    assert!(!String::from_utf8_lossy(&o.stdout).contains("animation"));
}

#[test]
fn dashboard_shows_every_plot_in_a_grid() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    let out = tmp.path().join("out");
    export_to(
        &run,
        &out,
        &["--no-vtk", "--no-ply", "--no-animation"],
        None,
    );
    let (dw, dh, dash) = decode_png(&out.join("plots/dashboard.png"));
    let stems = ["energy", "contacts", "checks_per_level", "wall_time"];
    let (pw, ph) = msdem_export::plots::PLOT_SIZE;
    assert_eq!((dw, dh), (2 * pw, 2 * ph));
    for (k, stem) in stems.iter().enumerate() {
        let (w, h, rgb) = decode_png(&out.join("plots").join(format!("{stem}.png")));
        assert_eq!((w, h), (pw, ph));
        let (ox, oy) = ((k as u32 % 2) * pw, (k as u32 / 2) * ph);
        for y in 0..h {
            let row = &rgb[(3 * y * w) as usize..(3 * (y + 1) * w) as usize];
            let at = (3 * ((oy + y) * dw + ox)) as usize;
            assert!(row == &dash[at..at + row.len()], "{stem}: row {y} differs");
        }
    }
}

/// Frame 0 only; a run without particles; a run without steps: exported, no panic.
#[test]
fn degenerate_runs_export() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    for i in [1, 2] {
        std::fs::remove_file(frame_path(&run, i)).unwrap();
    }
    let o = export_to(&run, &tmp.path().join("one"), &[], None);
    assert!(String::from_utf8_lossy(&o.stdout).contains("animation of 1 frames"));
    check_animation(
        &tmp.path().join("one/preview_animation.png"),
        1,
        1 << 20,
        "moving",
    );

    let mut manifest: RunManifest = read_record(&manifest_path(&run), &MANIFEST_MAGIC).unwrap();
    manifest.particles.clear();
    write_record(&manifest_path(&run), &MANIFEST_MAGIC, &manifest).unwrap();
    let f = Frame {
        step: 0,
        time: 0.0,
        bodies: vec![],
        contacts: vec![],
        loads: vec![],
    };
    write_record(&frame_path(&run, 0), &FRAME_MAGIC, &f).unwrap();
    StatsFile::write(&StatsFile { steps: vec![] }, &stats_path(&run)).unwrap();
    let _ = std::fs::remove_file(timings_path(&run));
    let out = tmp.path().join("empty");
    export_to(&run, &out, &[], None);
    for f in [
        "preview.png",
        "preview_animation.png",
        "plots/dashboard.png",
        "plots/energy.png",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
}

#[test]
fn pictures_are_byte_identical_at_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    extend_run(&run, 40, true);
    let outs: Vec<PathBuf> = [1, 3, 8]
        .iter()
        .map(|&n| {
            let out = tmp.path().join(format!("t{n}"));
            export_to(&run, &out, &[], Some(n));
            out
        })
        .collect();
    let reference = files_under(&outs[0]);
    assert!(reference
        .iter()
        .any(|f| f.ends_with("preview_animation.png")));
    assert!(reference.iter().any(|f| f.ends_with("plots/dashboard.png")));
    for out in &outs[1..] {
        assert_same_files(&outs[0], out, &out.display().to_string());
    }
}
