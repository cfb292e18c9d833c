//! Broad + narrow detection of 10⁶ random ellipsoids (issue 13; seed 002 §5): bounding
//! spheres through the seed's bins and through the HGrid, then ChM + OpM (*Method-2*) on
//! the candidates, on a rayon pool of `--threads` threads (default 2).
//!
//! `cargo run --release -p msdem-ellipsoid --example million -- [N] [--fractions 0.07,0.135,0.27] [--reps 5] [--threads 2]`
//!
//! Set ([`msdem_ellipsoid::random_ellipsoids`]): largest semi-axis uniform in \[0.5, 1\] m,
//! the other two that times U\[1/3, 1\] (aspect ratios up to 3:1), uniformly random
//! orientations, centres uniform in a cube sized for the solid volume fraction (0.135 is
//! that of seed 002 Table 2's spheres, ≈ 0.5 contacts per body). Per fraction: wall and
//! process-CPU time (all threads), medians of `--reps` detections, bins and HGrid
//! interleaved, split into broad and narrow phase. Checked before timing: bins and HGrid
//! give identical contact lists; on the bodies of a corner sub-cube (about 20,000) the
//! brute-force all-pairs broad phase gives the same contacts; OpM alone (*Method-1*) and
//! ChM + OpM agree on the contact count up to pairs within 1e-9 m of touching; and the
//! oracle: the narrow phase as it was before its speed-ups (ChM on every candidate, OpM
//! running every start, `OpmParams::tangent_ball_certificate` off) gives the same
//! contacts, pair for pair and bit for bit. The last column times Method-2's contact
//! decision alone (centre-line tests, then ChM) on the HGrid's candidates (without OpM's
//! contact data; its count is checked against Method-2's). Thread-CPU time per stage on
//! one thread: the `million_stages` example.

use anyhow::{ensure, Context};
use msdem_broadphase::{AllPairs, Bins, BroadPhase, HGrid, HGridConfig, Sphere};
use msdem_ellipsoid::separating_axis::{
    overlapping_along_centre_line, separated_along_centre_line,
};
use msdem_ellipsoid::{
    bounding_spheres, chm_in_contact, detect, narrow_phase, opm_with, random_ellipsoids,
    DetectionScratch, Method, OpmParams, PairContact, PosedEllipsoid, RandomSetSpec,
};
use rayon::prelude::*;
use std::time::Instant;

/// CPU time of the whole process (every thread) \[s\].
fn process_cpu_s() -> anyhow::Result<f64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    ensure!(rc == 0, "clock_gettime failed");
    Ok(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Wall time \[s\] of Method-2's contact decision alone over the candidates (centre-line
/// tests, then ChM; without OpM's contact data), and the pairs it keeps.
fn decision_only(bodies: &[PosedEllipsoid], candidates: &[(u32, u32)]) -> (f64, usize) {
    let t = Instant::now();
    let kept = candidates
        .par_iter()
        .filter(|&&(i, j)| {
            let (a, b) = (&bodies[i as usize], &bodies[j as usize]);
            !separated_along_centre_line(&a.shape, &a.pose, &b.shape, &b.pose)
                && (overlapping_along_centre_line(&a.shape, &a.pose, &b.shape, &b.pose)
                    || chm_in_contact(&a.shape, &a.pose, &b.shape, &b.pose))
        })
        .count();
    (t.elapsed().as_secs_f64(), kept)
}

/// The oracle: the narrow phase as it was before the speed-ups (ChM on every candidate,
/// OpM running every start) on the same candidates; every contact of `fast` must be the
/// same pair with the same numbers bit for bit (the iteration count aside).
fn check_against_reference(
    bodies: &[PosedEllipsoid],
    candidates: &[(u32, u32)],
    fast: &[PairContact],
) -> anyhow::Result<()> {
    let every_start = OpmParams {
        tangent_ball_certificate: false,
        ..OpmParams::default()
    };
    let reference: Vec<PairContact> = candidates
        .par_iter()
        .filter_map(|&(i, j)| {
            let (a, b) = (&bodies[i as usize], &bodies[j as usize]);
            chm_in_contact(&a.shape, &a.pose, &b.shape, &b.pose).then(|| PairContact {
                a: i,
                b: j,
                contact: opm_with(&a.shape, &a.pose, &b.shape, &b.pose, &every_start),
            })
        })
        .collect();
    ensure!(
        reference.len() == fast.len(),
        "reference path: {} contacts, fast path {}",
        reference.len(),
        fast.len()
    );
    let same = |x: &PairContact, y: &PairContact| {
        let (p, q) = (&x.contact, &y.contact);
        (x.a, x.b) == (y.a, y.b) && p.bits() == q.bits() && p.status == q.status
    };
    if let Some(k) = (0..fast.len()).find(|&k| !same(&reference[k], &fast[k])) {
        anyhow::bail!("pair {k}: reference {:?}, fast {:?}", reference[k], fast[k]);
    }
    Ok(())
}

/// Timings of one detection \[s\]: broad wall, narrow wall, total wall, total CPU.
fn timed(
    bodies: &[PosedEllipsoid],
    broad: &mut dyn BroadPhase,
    spheres: &mut Vec<Sphere>,
    candidates: &mut Vec<(u32, u32)>,
    out: &mut Vec<PairContact>,
) -> anyhow::Result<[f64; 4]> {
    let (cpu0, t0) = (process_cpu_s()?, Instant::now());
    bounding_spheres(bodies, spheres);
    broad.find_pairs(spheres, candidates)?;
    let t1 = Instant::now();
    narrow_phase(bodies, candidates, Method::ChmThenOpm, out)?;
    let t2 = Instant::now();
    let cpu = process_cpu_s()? - cpu0;
    Ok([
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64(),
        (t2 - t0).as_secs_f64(),
        cpu,
    ])
}

/// Contacts among the bodies of the corner sub-cube `[0, side]³`, by brute force,
/// against the same pairs of the full detection.
fn check_subset(
    bodies: &[PosedEllipsoid],
    full: &[PairContact],
    side: f64,
) -> anyhow::Result<usize> {
    let inside = |b: &PosedEllipsoid| b.pose.translation.vector.iter().all(|&x| x < side);
    let index: Vec<u32> = (0..bodies.len() as u32)
        .filter(|&i| inside(&bodies[i as usize]))
        .collect();
    let sub: Vec<PosedEllipsoid> = index.iter().map(|&i| bodies[i as usize]).collect();
    let mut brute = Vec::new();
    detect(
        &sub,
        &mut AllPairs::new(),
        Method::ChmThenOpm,
        &mut DetectionScratch::default(),
        &mut brute,
    )?;
    let mapped: Vec<PairContact> = brute
        .iter()
        .map(|c| PairContact {
            a: index[c.a as usize],
            b: index[c.b as usize],
            contact: c.contact,
        })
        .collect();
    let expected: Vec<PairContact> = full
        .iter()
        .filter(|c| inside(&bodies[c.a as usize]) && inside(&bodies[c.b as usize]))
        .copied()
        .collect();
    ensure!(
        mapped == expected,
        "brute force on {} bodies: {} contacts, fast path {}",
        sub.len(),
        mapped.len(),
        expected.len()
    );
    Ok(sub.len())
}

fn main() -> anyhow::Result<()> {
    let mut count = 1_000_000usize;
    let mut fractions = vec![0.07, 0.135, 0.27];
    let mut reps = 5usize;
    let mut threads = 2usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().context("missing value");
        match a.as_str() {
            "--fractions" => {
                fractions = value()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?
            }
            "--reps" => reps = value()?.parse()?,
            "--threads" => threads = value()?.parse()?,
            n => count = n.parse().with_context(|| format!("bad argument {n}"))?,
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    println!(
        "{count} ellipsoids, aspect ≤ 3, {threads} threads, medians of {reps} (wall; CPU = all threads)"
    );
    println!(
        "{:>6} | {:>9} {:>9} {:>8} | {:>10} | {:>9} {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} | {:>11} | {:>9}",
        "φ",
        "cands",
        "contacts",
        "per body",
        "brute sub",
        "bins brd",
        "narrow",
        "total",
        "CPU",
        "HG brd",
        "HG total",
        "HG CPU",
        "narrow/ctc",
        "decision"
    );
    for &fraction in &fractions {
        let (bodies, edge) = random_ellipsoids(&RandomSetSpec {
            count,
            radius_min_m: 0.5,
            radius_max_m: 1.0,
            max_aspect: 3.0,
            volume_fraction: fraction,
            seed: 2002,
        })?;
        pool.install(|| -> anyhow::Result<()> {
            let mut bins = Bins::new(None)?;
            let mut hgrid = HGrid::new(HGridConfig::default())?;
            let (mut spheres, mut cands) = (Vec::new(), Vec::new());
            let (mut out_bins, mut out_hg) = (Vec::new(), Vec::new());
            timed(&bodies, &mut bins, &mut spheres, &mut cands, &mut out_bins)?;
            let candidates = cands.len();
            timed(&bodies, &mut hgrid, &mut spheres, &mut cands, &mut out_hg)?;
            ensure!(out_bins == out_hg, "bins and HGrid contact lists differ");
            let mut opm_only = Vec::new();
            narrow_phase(&bodies, &cands, Method::OpmOnly, &mut opm_only)?;
            let band = out_bins
                .iter()
                .filter(|c| c.contact.signed_distance.abs() <= 1e-9)
                .count();
            ensure!(
                opm_only.len().abs_diff(out_bins.len()) <= band,
                "Method-1 {} vs Method-2 {} contacts",
                opm_only.len(),
                out_bins.len()
            );
            check_against_reference(&bodies, &cands, &out_bins)?;
            let side = edge * (20_000.0 / count as f64).cbrt().min(1.0);
            let sub = check_subset(&bodies, &out_bins, side)?;
            let (mut b, mut h, mut c) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..reps.max(1) {
                b.push(timed(&bodies, &mut bins, &mut spheres, &mut cands, &mut out_bins)?);
                h.push(timed(&bodies, &mut hgrid, &mut spheres, &mut cands, &mut out_hg)?);
                let (t, kept) = decision_only(&bodies, &cands);
                ensure!(kept == out_hg.len(), "the decision alone keeps {kept}, Method-2 {}", out_hg.len());
                c.push(t);
            }
            let col = |v: &[[f64; 4]], k: usize| median(&mut v.iter().map(|t| t[k]).collect::<Vec<_>>());
            let contacts = out_bins.len();
            println!(
                "{:>6.3} | {:>9} {:>9} {:>8.3} | {:>10} | {:>8.3}s {:>8.3}s {:>8.3}s {:>8.3}s | {:>8.3}s {:>8.3}s {:>8.3}s | {:>8.2} µs | {:>8.3}s",
                fraction,
                candidates,
                contacts,
                contacts as f64 / count as f64,
                sub,
                col(&b, 0),
                col(&b, 1),
                col(&b, 2),
                col(&b, 3),
                col(&h, 0),
                col(&h, 2),
                col(&h, 3),
                col(&b, 1) * 1e6 / contacts.max(1) as f64,
                median(&mut c),
            );
            Ok(())
        })?;
    }
    Ok(())
}
