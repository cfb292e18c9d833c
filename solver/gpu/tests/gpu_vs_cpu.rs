//! The GPU detector against the CPU reference path (the independent truth): the same pair
//! set, depths/normals/points within [`Tolerances::default`], on seed 002 Table 2's sphere
//! sets and on random ellipsoids, plus the edge cases that exercise the workspace growth
//! and the per-body sorts. Without a CUDA device each GPU test prints
//! `SKIPPED: no CUDA device` and passes (CI has none).

use msdem_gpu::compare::{compare, Agreement, Tolerances};
use msdem_gpu::cpu::detect_cpu;
use msdem_gpu::workload::{random_ellipsoids, table2_spheres};
use msdem_gpu::{EllipsoidBody, GpuEllipsoidDetector, GpuError};

/// Written past the test harness's output capture, so a skip shows in every run.
fn loud_skip(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: no CUDA device ({why})");
}

fn detector() -> Option<GpuEllipsoidDetector> {
    match GpuEllipsoidDetector::new() {
        Ok(d) => Some(d),
        Err(GpuError::Unavailable(why)) => {
            loud_skip(&why);
            None
        }
        Err(e) => panic!("a CUDA device is present but the detector failed: {e}"),
    }
}

fn check(gpu: &mut GpuEllipsoidDetector, bodies: &[EllipsoidBody]) -> Agreement {
    let want = detect_cpu(bodies).unwrap();
    let got = gpu.detect(bodies).unwrap();
    let agreement = compare(bodies, &want, &got, &Tolerances::default())
        .unwrap_or_else(|e| panic!("{} bodies: {e}", bodies.len()));
    eprintln!(
        "{} bodies: {:?} / gpu {:?}; {agreement:?}",
        bodies.len(),
        want.stats,
        got.stats
    );
    assert!(
        want.stats.chm_survivors.abs_diff(got.stats.chm_survivors)
            <= agreement.knife_edge as u64 + 2,
        "ChM survivors {} against {}",
        want.stats.chm_survivors,
        got.stats.chm_survivors
    );
    agreement
}

#[test]
fn no_device_is_a_clear_error_not_a_panic() {
    match GpuEllipsoidDetector::new() {
        Ok(d) => eprintln!("device present: {}", d.device().name()),
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.starts_with("GpuUnavailable: "), "{msg}");
            loud_skip(&msg);
        }
    }
}

#[test]
fn table2_sphere_sets_match_the_cpu_and_the_sphere_count() {
    let Some(mut gpu) = detector() else { return };
    for (n, seed) in [(128, 1), (1024, 2), (8192, 3), (32768, 4), (131072, 5)] {
        let bodies = table2_spheres(n, seed);
        let a = check(&mut gpu, &bodies);
        if n <= 8192 {
            let mut brute = 0;
            for i in 0..n {
                for j in i + 1..n {
                    let (p, q) = (&bodies[i], &bodies[j]);
                    let d2: f64 = (0..3)
                        .map(|k| (p.center_m[k] - q.center_m[k]).powi(2))
                        .sum();
                    let r = p.semi_axes_m[0] + q.semi_axes_m[0];
                    brute += usize::from(d2 <= r * r);
                }
            }
            assert_eq!(a.matched + a.knife_edge, brute, "n = {n}");
        }
    }
}

#[test]
fn random_ellipsoid_sets_match_the_cpu() {
    let Some(mut gpu) = detector() else { return };
    for seed in 0..3 {
        let a = check(&mut gpu, &random_ellipsoids(40_000, seed));
        assert!(a.matched > 1000, "{a:?}");
    }
}

#[test]
fn repeated_calls_on_the_persistent_workspace_are_byte_identical() {
    let Some(mut gpu) = detector() else { return };
    let big = random_ellipsoids(30_000, 7);
    let small = table2_spheres(3_000, 8);
    let first = gpu.detect(&big).unwrap();
    let other = gpu.detect(&small).unwrap();
    let again = gpu.detect(&big).unwrap();
    assert_eq!(first, again);
    assert_eq!(other, gpu.detect(&small).unwrap());
    let mut reused = msdem_gpu::Detection::default();
    for (set, want) in [(&big, &first), (&small, &other), (&big, &first)] {
        gpu.detect_into(set, &mut reused).unwrap();
        assert_eq!(&reused, want);
    }
    let mut bad = small.clone();
    bad[2].semi_axes_m[0] = -1.0;
    assert!(gpu.detect_into(&bad, &mut reused).is_err());
    assert!(reused.contacts.is_empty() && reused.stats.contacts == 0);
    let t = gpu.last_timings();
    assert!(t.kernels_ms > 0.0 && t.wall_ms >= t.kernels_ms, "{t:?}");
}

#[test]
fn coincident_centres_overflow_the_survivor_list_and_still_match() {
    let Some(mut gpu) = detector() else { return };
    // 400 ellipsoids about one point: 79,800 pairs in one bin, far above the first
    // survivor capacity (1,024), so the pair stage grows its list and reruns.
    let mut bodies = random_ellipsoids(400, 3);
    for (k, b) in bodies.iter_mut().enumerate() {
        b.center_m = [
            1000.0 + (k % 7) as f64 * 0.5,
            1000.0,
            1000.0 - (k % 5) as f64,
        ];
    }
    let a = check(&mut gpu, &bodies);
    assert_eq!(a.matched + a.knife_edge, 400 * 399 / 2);
}

#[test]
fn one_big_body_among_many_small_sorts_its_long_contact_run() {
    let Some(mut gpu) = detector() else { return };
    // Body 0 touches about all 600 others: its run (> 32) takes the heap sort.
    let mut bodies = table2_spheres(601, 9);
    bodies[0].center_m = [0.0; 3];
    bodies[0].semi_axes_m = [150.0, 120.0, 90.0];
    for (k, b) in bodies.iter_mut().enumerate().skip(1) {
        let t = k as f64 * 0.7;
        b.center_m = [
            140.0 * t.cos() * (t * 0.3).sin(),
            110.0 * t.sin(),
            80.0 * (t * 0.3).cos(),
        ];
        b.semi_axes_m = [2.0 + (k % 5) as f64; 3];
    }
    let a = check(&mut gpu, &bodies);
    let got = gpu.detect(&bodies).unwrap();
    let with_zero = got.contacts.iter().filter(|c| c.i == 0).count();
    assert!(with_zero > 32, "{with_zero}; {a:?}");
}

#[test]
fn empty_single_and_invalid_sets() {
    let Some(mut gpu) = detector() else { return };
    assert!(gpu.detect(&[]).unwrap().contacts.is_empty());
    let one = table2_spheres(1, 1);
    assert_eq!(gpu.detect(&one).unwrap().stats.bounding_pairs, 0);
    let mut bad = table2_spheres(10, 1);
    bad[6].halo_m = f64::NAN;
    let err = gpu.detect(&bad).unwrap_err().to_string();
    assert!(err.starts_with("body 6: halo"), "{err}");
    // The detector is still usable after a refused call.
    check(&mut gpu, &table2_spheres(5000, 2));
}
