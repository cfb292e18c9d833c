//! End-to-end: the fixture run plus local time stepping records (`lts.msdem`,
//! `lts_timings.msdem`, written here with known values) → the `export` binary: the LTS
//! columns of `steps.csv` read back as written, the plain columns and charts stay exactly
//! those of the run without the records, the LTS charts are drawn and on the dashboard,
//! outputs are byte-identical at 1 and 2 threads, and a damaged `lts.msdem` is refused.

#[allow(dead_code)]
mod fixture;
#[allow(dead_code)]
mod support;

use support::*;

use std::path::Path;
use std::process::{Command, Output};

use msdem_frames::lts::*;

fn export_to(run: &Path, out: &Path, threads: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_export"))
        .arg(run)
        .arg("-o")
        .arg(out)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("run export")
}

fn png_size(path: &Path) -> (u32, u32) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let info = dec.read_info().unwrap();
    let i = info.info();
    (i.width, i.height)
}

/// The step the records leave out (its row gets zeros).
const MISSING_STEP: u64 = 7;

/// Records for the fixture's steps 1–30 but [`MISSING_STEP`]; histograms of varying widths.
fn lts_records() -> (LtsStatsFile, LtsTimingsFile) {
    let steps: Vec<u64> = (1..=30).filter(|&n| n != MISSING_STEP).collect();
    let stats = steps
        .iter()
        .map(|&n| LtsStepStats {
            step: n,
            sweeps: (n % 4 + 1) as u32,
            clusters: 10 + n,
            active_clusters: 2 + n % 3,
            collisions: n % 2,
            rollbacks: n % 5,
            narrowing_iterations: 100 * n,
            narrowing_checks: 1000 * n + 1,
            contacts: 3 * n,
            impulse_iterations: 7 * n,
            impulse_unconverged: (n == 12) as u32,
            impulse_relaxed: (n == 7) as u32,
            impulse_complementarity_m_s: 1e-4 * n as f64,
            min_step: 1e-3 / (1 << (n % 6)) as f64,
            cluster_sizes: vec![0; (n % 4) as usize]
                .into_iter()
                .chain([n, 2])
                .collect(),
            step_sizes: (0..=(n % 3)).map(|k| k + n).collect(),
            contacts_per_cluster: if n % 2 == 1 { vec![0, 1] } else { vec![] },
        })
        .collect();
    let timings = steps
        .iter()
        .map(|&n| LtsPhaseTimes {
            broad: 1e-4,
            clustering: 2e-5 * n as f64,
            step_size: 3e-4,
            narrow: 4e-5,
            collision: 5e-5 + 1e-6 * n as f64,
            roll_over: 1e-6,
        })
        .collect();
    (
        LtsStatsFile { steps: stats },
        LtsTimingsFile { steps: timings },
    )
}

fn write_lts(run: &Path) -> (LtsStatsFile, LtsTimingsFile) {
    let (stats, timings) = lts_records();
    LtsStatsFile::write(&stats, &lts_stats_path(run)).unwrap();
    LtsTimingsFile::write(&timings, &lts_timings_path(run)).unwrap();
    (stats, timings)
}

fn exported(run: &Path, out: &Path, threads: &str) {
    let o = export_to(run, out, threads);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn lts_columns_read_back_and_plain_outputs_stay_those_of_the_run_without_them() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    let plain = tmp.path().join("plain");
    exported(&run, &plain, "2");
    let (stats, timings) = write_lts(&run);
    let lts = tmp.path().join("lts");
    exported(&run, &lts, "2");

    let csv_plain = std::fs::read_to_string(plain.join("plots/steps.csv")).unwrap();
    let csv_lts = std::fs::read_to_string(lts.join("plots/steps.csv")).unwrap();
    let (plain_lines, lts_lines): (Vec<&str>, Vec<&str>) =
        (csv_plain.lines().collect(), csv_lts.lines().collect());
    assert_eq!(plain_lines.len(), 31, "header + 30 steps");
    assert_eq!(lts_lines.len(), plain_lines.len());
    // The plain columns are exactly those of the run without LTS records.
    for (p, l) in plain_lines.iter().zip(&lts_lines) {
        assert!(l.starts_with(&format!("{p},")), "{l} does not extend {p}");
    }
    let header: Vec<&str> = lts_lines[0].split(',').collect();
    let first = plain_lines[0].split(',').count();
    // Widths: cluster sizes up to 3 + 2 bins (n % 4 = 3), step sizes 3, contacts 2.
    let expected: Vec<&str> = [
        "lts_sweeps",
        "lts_clusters",
        "lts_active_clusters",
        "lts_colliding_clusters",
        "lts_rollbacks",
        "lts_narrowing_iterations",
        "lts_narrowing_checks",
        "lts_contact_points",
        "lts_impulse_iterations",
        "lts_impulse_unconverged",
        "lts_impulse_relaxed",
        "lts_impulse_complementarity_m_s",
        "lts_min_step_s",
        "lts_wall_broad_s",
        "lts_wall_clustering_s",
        "lts_wall_step_size_s",
        "lts_wall_narrow_s",
        "lts_wall_collision_s",
        "lts_wall_roll_over_s",
        "lts_cluster_size_0",
        "lts_cluster_size_1",
        "lts_cluster_size_2_3",
        "lts_cluster_size_4_7",
        "lts_cluster_size_8_15",
        "lts_step_ratio_1e-1_1e0",
        "lts_step_ratio_1e-2_1e-1",
        "lts_step_ratio_1e-3_1e-2",
        "lts_cluster_contacts_0",
        "lts_cluster_contacts_1",
    ]
    .into();
    assert_eq!(&header[first..], &expected[..]);
    let mut seen = 0;
    for line in &lts_lines[1..] {
        let row: Vec<&str> = line.split(',').collect();
        assert_eq!(row.len(), header.len());
        let col = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
        let step: u64 = col("step").parse().unwrap();
        let lts_part = &row[first..];
        let Some(i) = stats.steps.iter().position(|s| s.step == step) else {
            assert_eq!(step, MISSING_STEP);
            assert!(lts_part.iter().all(|v| v.parse::<f64>().unwrap() == 0.0));
            continue;
        };
        seen += 1;
        let (s, t) = (&stats.steps[i], &timings.steps[i]);
        let u = |name: &str| col(name).parse::<u64>().unwrap();
        let f = |name: &str| col(name).parse::<f64>().unwrap().to_bits();
        assert_eq!(u("lts_sweeps"), u64::from(s.sweeps));
        assert_eq!(u("lts_clusters"), s.clusters);
        assert_eq!(u("lts_active_clusters"), s.active_clusters);
        assert_eq!(u("lts_colliding_clusters"), s.collisions);
        assert_eq!(u("lts_rollbacks"), s.rollbacks);
        assert_eq!(u("lts_narrowing_iterations"), s.narrowing_iterations);
        assert_eq!(u("lts_narrowing_checks"), s.narrowing_checks);
        assert_eq!(u("lts_contact_points"), s.contacts);
        assert_eq!(u("lts_impulse_iterations"), s.impulse_iterations);
        assert_eq!(
            u("lts_impulse_unconverged"),
            u64::from(s.impulse_unconverged)
        );
        assert_eq!(u("lts_impulse_relaxed"), u64::from(s.impulse_relaxed));
        assert_eq!(
            f("lts_impulse_complementarity_m_s"),
            s.impulse_complementarity_m_s.to_bits()
        );
        assert_eq!(f("lts_min_step_s"), s.min_step.to_bits());
        assert_eq!(f("lts_wall_broad_s"), t.broad.to_bits());
        assert_eq!(f("lts_wall_clustering_s"), t.clustering.to_bits());
        assert_eq!(f("lts_wall_step_size_s"), t.step_size.to_bits());
        assert_eq!(f("lts_wall_narrow_s"), t.narrow.to_bits());
        assert_eq!(f("lts_wall_collision_s"), t.collision.to_bits());
        assert_eq!(f("lts_wall_roll_over_s"), t.roll_over.to_bits());
        let hist = |prefix: &str| -> Vec<u64> {
            header
                .iter()
                .zip(&row)
                .filter(|(h, _)| h.starts_with(prefix))
                .map(|(_, v)| v.parse().unwrap())
                .collect()
        };
        let padded = |h: &[u64], n: usize| -> Vec<u64> {
            (0..n).map(|k| h.get(k).copied().unwrap_or(0)).collect()
        };
        assert_eq!(hist("lts_cluster_size_"), padded(&s.cluster_sizes, 5));
        assert_eq!(hist("lts_step_ratio_"), padded(&s.step_sizes, 3));
        assert_eq!(
            hist("lts_cluster_contacts_"),
            padded(&s.contacts_per_cluster, 2)
        );
    }
    assert_eq!(seen, 29);

    // Every plain plot is unchanged; the LTS charts come on top, and on the dashboard.
    let names = |dir: &Path| -> Vec<String> {
        files_under(&dir.join("plots"))
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    let (np, nl) = (names(&plain), names(&lts));
    for n in &np {
        assert!(nl.contains(n), "{n} missing with LTS records");
        if n.ends_with(".png") && n != "dashboard.png" {
            assert!(
                std::fs::read(plain.join("plots").join(n)).unwrap()
                    == std::fs::read(lts.join("plots").join(n)).unwrap(),
                "{n} changed"
            );
        }
    }
    let added: Vec<&String> = nl.iter().filter(|n| !np.contains(n)).collect();
    assert_eq!(
        added,
        [
            "lts_cluster_sizes.png",
            "lts_clusters.png",
            "lts_min_step.png",
            "lts_narrowing.png",
            "lts_phases.png",
            "lts_rollbacks.png",
            "lts_step_sizes.png",
        ]
    );
    for n in added {
        assert_eq!(png_size(&lts.join("plots").join(n)), (900, 560), "{n}");
    }
    let (dw, dh) = png_size(&plain.join("plots/dashboard.png"));
    let (lw, lh) = png_size(&lts.join("plots/dashboard.png"));
    assert!(
        lw * lh > dw * dh,
        "dashboard {lw}×{lh} not larger than {dw}×{dh}"
    );

    // Without the timings file: no phase chart, zeros in the wall columns.
    std::fs::remove_file(lts_timings_path(&run)).unwrap();
    let no_t = tmp.path().join("no_timings");
    exported(&run, &no_t, "1");
    assert!(!no_t.join("plots/lts_phases.png").exists());
    assert!(no_t.join("plots/lts_clusters.png").exists());
    let csv = std::fs::read_to_string(no_t.join("plots/steps.csv")).unwrap();
    let row: Vec<&str> = csv.lines().nth(3).unwrap().split(',').collect();
    let broad = header
        .iter()
        .position(|h| *h == "lts_wall_broad_s")
        .unwrap();
    assert_eq!(row[broad], "0.0");
    assert_eq!(row[first], "4", "step 3: sweeps 3 % 4 + 1");
}

#[test]
fn lts_export_is_byte_identical_at_one_and_two_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    write_lts(&run);
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    exported(&run, &a, "1");
    exported(&run, &b, "2");
    assert_same_files(&a, &b, "1 and 2 threads");
}

#[test]
fn damaged_lts_records_are_refused_naming_the_file_and_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fixture::write_run(&run);
    write_lts(&run);
    let path = lts_stats_path(&run);
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let out = tmp.path().join("out");
    let o = export_to(&run, &out, "2");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "accepted a damaged lts.msdem");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.contains("lts.msdem"), "{err:?} does not name the file");
    assert!(!out.exists(), "output written despite the error");
}
