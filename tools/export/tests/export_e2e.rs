//! End-to-end: a synthetic run folder → the `export` binary → VTK's own reader (Python),
//! an independent PLY parser (Python), PNG decoding; plus bad-input and determinism checks.

mod fixture;
#[allow(dead_code)]
mod support;

use support::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn export(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_export"))
        .args(args)
        .output()
        .expect("run export")
}

fn export_to(run: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<&std::ffi::OsStr> = vec![run.as_os_str(), "-o".as_ref(), out.as_os_str()];
    args.extend(extra.iter().map(|s| std::ffi::OsStr::new(*s)));
    export(&args)
}

fn run_script(script: &str, out: &Path, expected: &Path) -> (bool, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/python");
    let o = Command::new(python_with("vtk"))
        .arg(root.join(script))
        .arg(out)
        .arg(expected)
        .output()
        .expect("run python");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.success() && text.contains("OK"), text)
}

/// With `MSDEM_EXPORT_KEEP=DIR`, copies the export output to DIR for a person to look at.
fn keep_for_inspection(out: &Path) {
    let Ok(keep) = std::env::var("MSDEM_EXPORT_KEEP") else {
        return;
    };
    for f in files_under(out) {
        let to = Path::new(&keep).join(f.strip_prefix(out).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&f, &to).unwrap();
    }
}

#[test]
fn exports_every_format_and_independent_readers_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    let out = tmp.path().join("out");
    let o = export_to(&run, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    keep_for_inspection(&out);
    let expected = tmp.path().join("expected.json");
    std::fs::write(&expected, fixture::expected_json(0.0)).unwrap();
    for script in ["check_vtk.py", "check_ply.py"] {
        let (ok, text) = run_script(script, &out, &expected);
        assert!(ok, "{script} failed:\n{text}");
    }
    // The readers do catch a wrong pose (1 mm off in frame 1).
    let wrong = tmp.path().join("wrong.json");
    std::fs::write(&wrong, fixture::expected_json(1e-3)).unwrap();
    for script in ["check_vtk.py", "check_ply.py"] {
        let (ok, text) = run_script(script, &out, &wrong);
        assert!(
            !ok && text.contains("frame_000001") || text.contains("particles_000001"),
            "{script}: {text}"
        );
    }

    // The script written for ParaView is the shipped one.
    assert_eq!(
        std::fs::read_to_string(out.join("vtk/open_in_paraview.py")).unwrap(),
        msdem_export::export::PARAVIEW_SCRIPT
    );

    for stem in ["energy", "contacts", "checks_per_level", "wall_time"] {
        let (w, h, rgb) = decode_png(&out.join("plots").join(format!("{stem}.png")));
        assert_eq!((w, h), (900, 560));
        let white = rgb.chunks(3).filter(|p| *p == [255, 255, 255]).count();
        let n = (w * h) as usize;
        assert!(
            white < n - 2000 && white > n / 4,
            "{stem}: {white} of {n} white"
        );
    }
    // Preview of the last frame: background in the corners, every particle's colour shows.
    let (w, h, rgb) = decode_png(&out.join("preview.png"));
    assert_eq!((w, h), (1024, 768));
    for (x, y) in [(0, 0), (w - 1, h - 1)] {
        let i = 3 * (y * w + x) as usize;
        assert_eq!(&rgb[i..i + 3], &[255, 255, 255]);
    }
    let grey = rgb
        .chunks(3)
        .filter(|p| p[0] == p[1] && p[1] == p[2] && p[0] < 200)
        .count();
    assert!(grey > 10_000, "floor visible: {grey} grey pixels");
    for id in 0..3u32 {
        let base = msdem_export::preview::particle_color(id);
        let hue = |p: &[u8]| {
            let s: f64 = p.iter().map(|&c| f64::from(c)).sum::<f64>().max(1.0);
            p.iter().map(|&c| f64::from(c) / s).collect::<Vec<_>>()
        };
        let want = hue(&base);
        let n = rgb
            .chunks(3)
            .filter(|p| hue(p).iter().zip(&want).all(|(a, b)| (a - b).abs() < 0.02))
            .count();
        assert!(n > 200, "particle {id}: {n} pixels of its colour");
    }
}

/// Every `--vtk-format`, and the particles drawn from states and shapes only
/// (`--no-vtk-meshes`), read back by VTK with the same values.
#[test]
fn every_vtk_format_reads_back_the_same_values() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    let cases = [
        ("raw", true),
        ("base64", true),
        ("ascii", true),
        ("compressed", false),
    ];
    for (format, meshes) in cases {
        let out = tmp.path().join(format!("{format}_{meshes}"));
        let mut args = vec!["--vtk-format", format, "--no-ply", "--no-plots"];
        if !meshes {
            args.push("--no-vtk-meshes");
        }
        let o = export_to(&run, &out, &args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let expected = tmp.path().join(format!("{format}.json"));
        std::fs::write(&expected, fixture::expected_json_for(0.0, format, meshes)).unwrap();
        let (ok, text) = run_script("check_vtk.py", &out, &expected);
        assert!(ok, "{format}: {text}");
    }
    let o = export_to(&run, &tmp.path().join("bad"), &["--vtk-format", "zip"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("expected one of compressed, raw, base64, ascii, got \"zip\""));
}

/// `--particle-csv`: one CSV per frame with units in the header and the values of the
/// frames (parsed back here), beside the unchanged other outputs.
#[test]
fn particle_csv_holds_every_particle_state() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    let out = tmp.path().join("out");
    let o = export_to(&run, &out, &["--particle-csv", "--no-plots"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(out.join("csv/particles_000002.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        header,
        [
            "step",
            "time_s",
            "id",
            "shape",
            "material",
            "mass_kg",
            "bounding_radius_m",
            "x_m",
            "y_m",
            "z_m",
            "vx_m_per_s",
            "vy_m_per_s",
            "vz_m_per_s",
            "wx_rad_per_s",
            "wy_rad_per_s",
            "wz_rad_per_s",
            "qw",
            "qx",
            "qy",
            "qz",
            "fx_n",
            "fy_n",
            "fz_n",
            "tx_n_m",
            "ty_n_m",
            "tz_n_m",
            "contact_count",
            "kinetic_energy_j"
        ]
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 3);
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for (id, row) in rows.iter().enumerate() {
        assert_eq!(row[col("step")], 30.0);
        assert_eq!(row[col("time_s")], 0.03);
        assert_eq!(row[col("id")], id as f64);
        assert_eq!(row[col("mass_kg")], fixture::mass(id));
        let ke = fixture::kinetic_energy(id, 2);
        assert!((row[col("kinetic_energy_j")] - ke).abs() <= 1e-12 * ke.max(1.0));
    }
    assert_eq!(files_under(&out.join("csv")).len(), 3);
    // Without the flag no CSV, and an earlier one is left alone (as with --no-plots).
    let o = export_to(&run, &out, &["--no-plots"]);
    assert!(o.status.success());
    assert_eq!(files_under(&out.join("csv")).len(), 3);
}

#[test]
fn output_bytes_are_identical_across_runs_and_thread_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    let export_threads = |out: &Path, threads: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_export"))
            .arg(&run)
            .arg("-o")
            .arg(out)
            .arg("--particle-csv")
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let a = tmp.path().join("a");
    export_threads(&a, "1");
    let fa = files_under(&a);
    // 3 frames × (particles, particles_state, contacts .vtp + ply + csv) + static
    // obstacles (vtp, ply) + 2 shapes + open_in_paraview.py + 4 pvd + 4 plots + dashboard
    // + steps.csv + preview + animation.
    assert_eq!(
        fa.len(),
        3 * 5 + 2 + 2 + 1 + 4 + 4 + 1 + 1 + 1 + 1,
        "{fa:?}"
    );
    for (name, threads) in [("b", "2"), ("c", "3"), ("d", "2")] {
        let b = tmp.path().join(name);
        export_threads(&b, threads);
        assert_same_files(&a, &b, &format!("{threads} threads"));
    }
}

#[test]
fn default_output_folder_is_the_run_folder_and_flags_disable_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    let o = export(&[
        run.as_os_str(),
        "--no-vtk".as_ref(),
        "--no-ply".as_ref(),
        "--no-plots".as_ref(),
        "--preview".as_ref(),
        "1".as_ref(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(run.join("preview.png").is_file());
    for d in ["vtk", "ply", "plots"] {
        assert!(!run.join(d).exists(), "{d} written despite --no-{d}");
    }
    assert!(String::from_utf8_lossy(&o.stdout).contains("preview of frame 1"));
}

/// Runs export into a fresh folder and checks: failure, one stderr line containing
/// `needle`, and no output folder created.
fn assert_refused(run: &Path, extra: &[&str], needle: &str) {
    let out = run.parent().unwrap().join("refused_out");
    let o = export_to(run, &out, extra);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success(),
        "accepted; expected error containing {needle:?}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.contains(needle), "{err:?} lacks {needle:?}");
    assert!(!out.exists(), "output written despite the error: {err}");
}

#[test]
fn bad_inputs_fail_with_one_line_naming_the_file_and_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);

    assert_refused(&tmp.path().join("nope"), &[], "nope: run folder not found");
    assert_refused(&run, &["--preview", "7"], "preview frame 7 not found");

    let frame2 = run.join("frames/frame_000002.msdem");
    let good = std::fs::read(&frame2).unwrap();
    std::fs::write(&frame2, &good[..good.len() - 5]).unwrap();
    assert_refused(&run, &[], "frame_000002.msdem: truncated frame file");
    let mut v9 = good.clone();
    v9[8] = 9;
    std::fs::write(&frame2, &v9).unwrap();
    assert_refused(&run, &[], "frame_000002.msdem: format version 9");
    std::fs::write(&frame2, &good).unwrap();

    let manifest = run.join("run.msdem");
    let good_manifest = std::fs::read(&manifest).unwrap();
    std::fs::write(&manifest, b"MSDEMFRM\x01\x00\x00\x00").unwrap();
    assert_refused(
        &run,
        &[],
        "run.msdem: not a msdem run manifest file (wrong magic)",
    );
    std::fs::remove_file(&manifest).unwrap();
    assert_refused(&run, &[], "run.msdem");
    std::fs::write(&manifest, &good_manifest).unwrap();

    let mesh = run.join("meshes/tetra.ply");
    let good_mesh = std::fs::read(&mesh).unwrap();
    let (mut other, _) = msdem_mesh::read_mesh(&mesh).unwrap();
    other.vertices[3][2] = 0.75;
    msdem_mesh::write_mesh(&mesh, &other).unwrap();
    assert_refused(&run, &[], "tetra.ply: mesh changed since the run");
    std::fs::write(&mesh, &good_mesh).unwrap();

    let stats = fixture_stats(&run);
    let good_stats = std::fs::read(&stats).unwrap();
    let mut edited = good_stats.clone();
    let last = edited.len() - 1;
    edited[last] ^= 1;
    std::fs::write(&stats, &edited).unwrap();
    assert_refused(&run, &[], "stats.msdem: checksum mismatch");
    std::fs::write(&stats, &good_stats).unwrap();
}

/// Flips one bit of a frame's body (an f64 of a pose: still decodes).
fn edit_frame(run: &Path, index: u32) -> PathBuf {
    let path = msdem_frames::frame_path(run, index);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[msdem_frames::HEADER_LEN + 20] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    path
}

/// Issue 16 defect 9: an edited frame exported with exit 0.
#[test]
fn edited_frame_is_refused_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    edit_frame(&run, 1);
    assert_refused(
        &run,
        &[],
        "run/frames/frame_000001.msdem: checksum mismatch: the frame file was altered or \
         damaged after the solver wrote it",
    );
    // The same with every output disabled but the preview of another frame.
    assert_refused(
        &run,
        &["--no-vtk", "--no-ply", "--no-plots", "--preview", "0"],
        "frame_000001.msdem: checksum mismatch",
    );
}

/// Every file under `dir` with its bytes, paths relative to `dir`.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    files_under(dir)
        .into_iter()
        .map(|f| {
            (
                f.strip_prefix(dir).unwrap().to_path_buf(),
                std::fs::read(&f).unwrap(),
            )
        })
        .collect()
}

/// Issue 16 defect 9: a killed run (no `stats.msdem`) exported without a warning. Now the
/// frames present are exported, with one warning line and no plots; stale plots of an
/// earlier export are removed.
#[test]
fn killed_run_without_stats_exports_frames_with_one_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    let out = tmp.path().join("out");
    assert!(export_to(&run, &out, &[]).status.success());
    assert!(out.join("plots/energy.png").is_file());

    std::fs::remove_file(fixture_stats(&run)).unwrap();
    let o = export_to(&run, &out, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        err,
        format!(
            "export: warning: {}: not found (the run did not finish?): no plots written, VTK, \
             PLY and preview show the 3 frames present\n",
            fixture_stats(&run).display()
        )
    );
    assert!(out.join("vtk/particles.pvd").is_file());
    assert!(out.join("ply/frame_000002.ply").is_file());
    assert!(out.join("preview.png").is_file());
    assert!(!out.join("plots").exists(), "stale plots left");

    // Without plots the statistics are not needed: no warning.
    let o = export_to(&run, &tmp.path().join("noplots"), &["--no-plots"]);
    assert!(o.status.success());
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Issue 16: statistics are streamed in chunks, so a run killed while writing one leaves a
/// cut last chunk. The complete chunks are exported (plots included) with one warning.
#[test]
fn killed_run_with_a_cut_statistics_chunk_exports_the_complete_steps() {
    use msdem_frames::stream::CHUNK_STEPS;
    use msdem_frames::{StatsFile, StepStats};
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    std::fs::remove_file(msdem_frames::timings_path(&run)).ok();
    let steps: Vec<StepStats> = (1..=CHUNK_STEPS + 10)
        .map(|n| StepStats {
            step: n,
            time: n as f64 * 1e-3,
            kinetic_energy: 1.0,
            ..StepStats::default()
        })
        .collect();
    let stats = fixture_stats(&run);
    StatsFile { steps }.write(&stats).unwrap();
    let bytes = std::fs::read(&stats).unwrap();
    std::fs::write(&stats, &bytes[..bytes.len() - 5]).unwrap();
    let out = tmp.path().join("out");
    let o = export_to(&run, &out, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        err,
        format!(
            "export: warning: {}: truncated statistics file: {} bytes, expected {} (the run \
             was killed while writing it?): plots show the {CHUNK_STEPS} complete steps\n",
            stats.display(),
            bytes.len() - 5,
            bytes.len()
        )
    );
    assert!(out.join("plots/energy.png").is_file());
    let csv = std::fs::read_to_string(out.join("plots/steps.csv")).unwrap();
    assert_eq!(
        csv.lines().count() as u64,
        CHUNK_STEPS + 1,
        "header + complete steps"
    );
}

/// Issue 16 defect 10: a failed export had already replaced or deleted part of the
/// previous good one. Now the previous export is byte-identical after a failure, whether
/// it is found before writing (an edited frame) or after (something in the way of an
/// output), and no staging folder is left.
#[test]
fn failed_export_leaves_the_previous_export_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    let out = tmp.path().join("out");
    assert!(export_to(&run, &out, &[]).status.success());
    let before = snapshot(&out);

    let frame1 = msdem_frames::frame_path(&run, 1);
    let good = std::fs::read(&frame1).unwrap();
    edit_frame(&run, 1);
    let o = export_to(&run, &out, &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("frame_000001.msdem: checksum mismatch"));
    assert!(snapshot(&out) == before, "previous export changed");
    std::fs::write(&frame1, &good).unwrap();

    // A valid but different run (particle 0 moved in frame 1), and a folder where the
    // preview goes: found only when the new outputs are swapped in.
    let mut frame: msdem_frames::Frame =
        msdem_frames::read_record(&frame1, &msdem_frames::FRAME_MAGIC).unwrap();
    frame.bodies[0].position[2] += 0.25;
    msdem_frames::write_record(&frame1, &msdem_frames::FRAME_MAGIC, &frame).unwrap();
    std::fs::remove_file(out.join("preview.png")).unwrap();
    std::fs::create_dir(out.join("preview.png")).unwrap();
    std::fs::write(out.join("preview.png/notes.txt"), "mine").unwrap();
    let before = snapshot(&out);
    let o = export_to(&run, &out, &[]);
    assert!(snapshot(&out) == before, "previous export changed");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert_eq!(
        err,
        format!(
            "export: error: {}: exists and is not a file; move it away to export here\n",
            out.join("preview.png").display()
        )
    );
    let mut names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "plots",
            "ply",
            "preview.png",
            "preview_animation.png",
            "vtk"
        ],
        "staging left"
    );

    // Once out of the way, the new run replaces the old export.
    std::fs::remove_dir_all(out.join("preview.png")).unwrap();
    assert!(export_to(&run, &out, &[]).status.success());
    let after = snapshot(&out);
    assert_eq!(after.len(), before.len());
    let changed = |name: &str| {
        let find = |s: &[(PathBuf, Vec<u8>)]| s.iter().find(|f| f.0 == Path::new(name)).cloned();
        find(&after) != find(&before)
    };
    assert!(changed("vtk/particles_000001.vtp"));
    assert!(!changed("vtk/particles_000000.vtp"));
}

fn fixture_stats(run: &Path) -> PathBuf {
    msdem_frames::stats_path(run)
}

#[test]
fn missing_frames_folder_or_empty_run_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    for (index, _, _) in fixture::FRAMES {
        std::fs::remove_file(msdem_frames::frame_path(&run, index)).unwrap();
    }
    assert_refused(&run, &[], "no frame files");
}

/// How to run ParaView's `pvbatch`: `$MSDEM_PVBATCH` or `pvbatch` on the PATH, under
/// `xvfb-run` when there is no display and it is installed (Debian's ParaView renders
/// through X). `None` when pvbatch is missing: then the test is skipped with a message,
/// unless `MSDEM_REQUIRE_PVBATCH=1` (set by `.ci/run`), where it fails.
fn pvbatch() -> Option<Vec<String>> {
    let exe = std::env::var("MSDEM_PVBATCH").unwrap_or_else(|_| "pvbatch".to_owned());
    let found = Command::new(&exe)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !found {
        let required = std::env::var("MSDEM_REQUIRE_PVBATCH").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "`{exe} --version` failed and MSDEM_REQUIRE_PVBATCH=1: install ParaView \
             (apt-get install paraview python3-paraview xvfb xauth) or set MSDEM_PVBATCH"
        );
        eprintln!("skipped: `{exe}` not found (set MSDEM_PVBATCH or install ParaView)");
        return None;
    }
    let xvfb = std::env::var_os("DISPLAY").is_none()
        && Command::new("xvfb-run").arg("--help").output().is_ok();
    let mut cmd = Vec::new();
    if xvfb {
        cmd.extend(["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24"].map(String::from));
    }
    cmd.push(exe);
    Some(cmd)
}

/// `pvbatch OUT/vtk/open_in_paraview.py --screenshot PNG --size 640 480`: the decoded
/// RGB pixels. One retry (a virtual X server that fails to start is not the script's
/// fault).
fn screenshot(cmd: &[String], out: &Path, png: &Path) -> Vec<u8> {
    let mut text = String::new();
    for _ in 0..2 {
        let o = Command::new(&cmd[0])
            .args(&cmd[1..])
            .arg(out.join("vtk/open_in_paraview.py"))
            .arg("--screenshot")
            .arg(png)
            .args(["--size", "640", "480"])
            .output()
            .expect("run pvbatch");
        text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        if o.status.success() && png.is_file() {
            let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
            let mut r = dec.read_info().unwrap();
            let mut buf = vec![0; r.output_buffer_size()];
            let info = r.next_frame(&mut buf).unwrap();
            assert_eq!((info.width, info.height), (640, 480), "{}", png.display());
            let channels = match info.color_type {
                png::ColorType::Rgb => 3,
                png::ColorType::Rgba => 4,
                other => panic!("{}: colour type {other:?}", png.display()),
            };
            buf.truncate(info.buffer_size());
            return buf
                .chunks(channels)
                .flat_map(|p| [p[0], p[1], p[2]])
                .collect();
        }
    }
    panic!("pvbatch failed twice:\n{text}");
}

/// The shipped ParaView script under `pvbatch` (issue 17): it opens the export of the
/// fixture run, and the screenshot shows the scene — not blank, particles in colour. The
/// particles drawn from their states and shape meshes (`--no-vtk-meshes`, 3D glyphs
/// turned by the orientation quaternions) give the same picture as the posed meshes.
#[test]
fn paraview_script_renders_the_export_with_meshes_and_with_glyphs() {
    let Some(cmd) = pvbatch() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    let meshes = tmp.path().join("meshes");
    let glyphs = tmp.path().join("glyphs");
    let o = export_to(&run, &meshes, &["--no-ply", "--no-plots"]);
    assert!(o.status.success());
    let o = export_to(
        &run,
        &glyphs,
        &["--no-ply", "--no-plots", "--no-vtk-meshes"],
    );
    assert!(o.status.success());
    assert!(!glyphs.join("vtk/particles.pvd").exists());
    let a = screenshot(&cmd, &meshes, &tmp.path().join("meshes.png"));
    let b = screenshot(&cmd, &glyphs, &tmp.path().join("glyphs.png"));
    keep_for_inspection(tmp.path());
    for (name, img) in [("meshes", &a), ("glyphs", &b)] {
        let n = img.len() / 3;
        let background = &img[..3];
        let scene = img.chunks(3).filter(|p| *p != background).count();
        assert!(
            scene > n / 10,
            "{name}: only {scene} of {n} pixels show the scene"
        );
        // Particles coloured by speed: saturated red (fast) and blue (slow) pixels.
        let rgb = |p: &[u8]| (u32::from(p[0]), u32::from(p[1]), u32::from(p[2]));
        let red = img
            .chunks(3)
            .map(rgb)
            .filter(|&(r, g, b)| r > 80 && r > 2 * g && r > 2 * b)
            .count();
        let blue = img
            .chunks(3)
            .map(rgb)
            .filter(|&(r, g, b)| b > 120 && 5 * b > 8 * r && 5 * b > 8 * g)
            .count();
        assert!(
            red > 300 && blue > 300,
            "{name}: {red} red, {blue} blue pixels"
        );
    }
    let differ = a
        .chunks(3)
        .zip(b.chunks(3))
        .filter(|(p, q)| p.iter().zip(*q).any(|(x, y)| x.abs_diff(*y) > 40))
        .count();
    assert!(
        // Measured: 0; with the quaternion read as Euler angles instead, 4,084.
        differ < a.len() / 3 / 1000,
        "{differ} pixels differ between meshes and glyphs"
    );
}
