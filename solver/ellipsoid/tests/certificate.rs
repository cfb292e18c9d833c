//! The tangent-ball certificate (`depth_bound.rs`) only skips OpM's extra starts where they
//! could not change the answer: on seeded random overlapping pairs, OpM with the
//! certificate and OpM without it (the reference, every start run) give the same contact
//! bit for bit — distance, normal, witness points, status — while the certificate saves
//! iterations on most pairs.
//!
//! Pairs: semi-axes in [0.2, 1] m (aspect ratios up to 5) and in [0.5, 0.6] m (nearly
//! spherical), random rotations, centres in cubes of half-width 0.3, 0.6 and 1.2 m, so
//! that depths range from grazing to deeper than the bodies' curvature radii.

mod common;

use common::{random_ellipsoid, random_pose, rng};
use msdem_ellipsoid::math::{Iso3, Vec3};
use msdem_ellipsoid::{opm, opm_with, OpmParams};

const PAIRS: usize = 100_000;

#[test]
fn certified_opm_is_bit_identical_to_running_every_start() {
    let reference = OpmParams {
        tangent_ball_certificate: false,
        ..OpmParams::default()
    };
    let mut r = rng(0x13_ce47);
    let (mut overlapping, mut saved, mut iterations, mut reference_iterations) = (0, 0, 0u64, 0u64);
    for i in 0..PAIRS {
        let (lo, hi) = if i % 4 == 3 { (0.5, 0.6) } else { (0.2, 1.0) };
        let half = [0.3, 0.6, 1.2][i % 3];
        let a = random_ellipsoid(&mut r, lo, hi);
        let b = random_ellipsoid(&mut r, lo, hi);
        let (pa, pb) = (random_pose(&mut r, half), random_pose(&mut r, half));
        let fast = opm(&a, &pa, &b, &pb);
        let full = opm_with(&a, &pa, &b, &pb, &reference);
        assert_eq!(fast.bits(), full.bits(), "pair {i}: {fast:?} vs {full:?}");
        assert_eq!(fast.status, full.status, "pair {i}");
        assert!(fast.iterations <= full.iterations, "pair {i}");
        if full.signed_distance < 0.0 {
            overlapping += 1;
            saved += usize::from(fast.iterations < full.iterations);
            iterations += u64::from(fast.iterations);
            reference_iterations += u64::from(full.iterations);
        }
    }
    println!(
        "{PAIRS} pairs, {overlapping} overlapping: certificate skipped the extra starts on \
         {saved}; iterations {iterations} vs {reference_iterations} running every start"
    );
    assert!(overlapping > PAIRS / 3, "{overlapping}");
    // The certificate must actually fire (most overlaps here are shallower than the
    // tangent balls) and pay: otherwise this test would compare a path with itself.
    assert!(saved > overlapping / 2, "{saved} of {overlapping}");
    assert!(2 * iterations < reference_iterations);
}

/// Large bodies far from the origin (the GPU comparison's sets: semi-axes 20–100 m, cube
/// edges of kilometres), where the centres' coordinates are much larger than the depths:
/// the certificate's rounding allowance must still keep the answers identical.
#[test]
fn certified_opm_is_bit_identical_far_from_the_origin() {
    let reference = OpmParams {
        tangent_ball_certificate: false,
        ..OpmParams::default()
    };
    let mut r = rng(0x13_fa4);
    let far = Vec3::new(4.0e3, -7.5e3, 2.5e3);
    let (mut overlapping, mut saved) = (0, 0);
    for i in 0..20_000 {
        let a = random_ellipsoid(&mut r, 20.0, 100.0);
        let b = random_ellipsoid(&mut r, 20.0, 100.0);
        let shift = |p: Iso3| Iso3::from_parts((p.translation.vector + far).into(), p.rotation);
        let (pa, pb) = (
            shift(random_pose(&mut r, 90.0)),
            shift(random_pose(&mut r, 90.0)),
        );
        let fast = opm(&a, &pa, &b, &pb);
        let full = opm_with(&a, &pa, &b, &pb, &reference);
        assert_eq!(fast.bits(), full.bits(), "pair {i}: {fast:?} vs {full:?}");
        assert_eq!(fast.status, full.status, "pair {i}");
        if full.signed_distance < 0.0 {
            overlapping += 1;
            saved += usize::from(fast.iterations < full.iterations);
        }
    }
    assert!(
        overlapping > 5_000 && saved > overlapping / 2,
        "{saved} of {overlapping}"
    );
}
