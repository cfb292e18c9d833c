//! Thread-CPU time per stage of the `million` detection (issue 13; seed 002 §4–§5), on one
//! thread, with the path before the speed-ups interleaved as the reference.
//!
//! `cargo run --release -p msdem-ellipsoid --example million_stages -- [N] [--fraction 0.135] [--reps 3]`
//!
//! Same set as `million` (seed 2002). Stages, each timed alone on the calling thread
//! (`CLOCK_THREAD_CPUTIME_ID`), medians of `--reps`, all stages interleaved in every
//! repetition: bounding spheres; broad phase by the seed's bins and by the HGrid; the
//! contact decision of Method-2 as now (centre-line tests, then ChM:
//! `separating_axis.rs`) and as before (ChM on every candidate); OpM on the pairs kept,
//! as now (tangent-ball certificate: `depth_bound.rs`) and as before (every start run);
//! the output (chunks concatenated in order). Checked in every repetition: both decisions
//! keep the same pairs and both OpM give the same contacts bit for bit.

use anyhow::{ensure, Context};
use msdem_broadphase::{Bins, BroadPhase, HGrid, HGridConfig, Sphere};
use msdem_ellipsoid::separating_axis::{
    overlapping_along_centre_line, separated_along_centre_line,
};
use msdem_ellipsoid::{
    bounding_spheres, chm_in_contact, opm, opm_with, random_ellipsoids, Contact, OpmParams,
    PosedEllipsoid, RandomSetSpec,
};

fn thread_cpu_s() -> anyhow::Result<f64> {
    Ok(msdem_benchkit::thread_cpu_s()?)
}

/// Runs `f`, returning its value and its thread-CPU time \[s\].
fn timed<T>(f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<(T, f64)> {
    let t0 = thread_cpu_s()?;
    let value = f()?;
    Ok((value, thread_cpu_s()? - t0))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn pair(bodies: &[PosedEllipsoid], (i, j): (u32, u32)) -> (&PosedEllipsoid, &PosedEllipsoid) {
    (&bodies[i as usize], &bodies[j as usize])
}

fn main() -> anyhow::Result<()> {
    let mut count = 1_000_000usize;
    let mut fraction = 0.135;
    let mut reps = 3usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().context("missing value");
        match a.as_str() {
            "--fraction" => fraction = value()?.parse()?,
            "--reps" => reps = value()?.parse()?,
            n => count = n.parse().with_context(|| format!("bad argument {n}"))?,
        }
    }
    let (bodies, _) = random_ellipsoids(&RandomSetSpec {
        count,
        radius_min_m: 0.5,
        radius_max_m: 1.0,
        max_aspect: 3.0,
        volume_fraction: fraction,
        seed: 2002,
    })?;
    let reference = OpmParams {
        tangent_ball_certificate: false,
        ..OpmParams::default()
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let names = [
        "spheres",
        "bins",
        "HGrid",
        "decision",
        "ChM (before)",
        "OpM",
        "OpM (before)",
        "output",
    ];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    let (mut candidates, mut kept_count, mut iterations) = (0, 0, [0u64; 2]);
    pool.install(|| -> anyhow::Result<()> {
        for _ in 0..reps.max(1) {
            let mut spheres: Vec<Sphere> = Vec::new();
            let ((), t) = timed(|| {
                bounding_spheres(&bodies, &mut spheres);
                Ok(())
            })?;
            times[0].push(t);
            let mut cands = Vec::new();
            let ((), t) = timed(|| Ok(Bins::new(None)?.find_pairs(&spheres, &mut cands)?))?;
            times[1].push(t);
            let mut hg = Vec::new();
            let ((), t) =
                timed(|| Ok(HGrid::new(HGridConfig::default())?.find_pairs(&spheres, &mut hg)?))?;
            times[2].push(t);
            ensure!(cands == hg, "bins and HGrid candidates differ");
            let (kept, t) = timed(|| {
                Ok(cands
                    .iter()
                    .copied()
                    .filter(|&p| {
                        let (a, b) = pair(&bodies, p);
                        !separated_along_centre_line(&a.shape, &a.pose, &b.shape, &b.pose)
                            && (overlapping_along_centre_line(&a.shape, &a.pose, &b.shape, &b.pose)
                                || chm_in_contact(&a.shape, &a.pose, &b.shape, &b.pose))
                    })
                    .collect::<Vec<_>>())
            })?;
            times[3].push(t);
            let (kept_before, t) = timed(|| {
                Ok(cands
                    .iter()
                    .copied()
                    .filter(|&p| {
                        let (a, b) = pair(&bodies, p);
                        chm_in_contact(&a.shape, &a.pose, &b.shape, &b.pose)
                    })
                    .collect::<Vec<_>>())
            })?;
            times[4].push(t);
            ensure!(kept == kept_before, "the contact decisions differ");
            let (now, t) = timed(|| {
                Ok(kept
                    .iter()
                    .map(|&p| {
                        let (a, b) = pair(&bodies, p);
                        opm(&a.shape, &a.pose, &b.shape, &b.pose)
                    })
                    .collect::<Vec<_>>())
            })?;
            times[5].push(t);
            let (before, t) = timed(|| {
                Ok(kept
                    .iter()
                    .map(|&p| {
                        let (a, b) = pair(&bodies, p);
                        opm_with(&a.shape, &a.pose, &b.shape, &b.pose, &reference)
                    })
                    .collect::<Vec<_>>())
            })?;
            times[6].push(t);
            if let Some(k) = (0..kept.len()).find(|&k| now[k].bits() != before[k].bits()) {
                anyhow::bail!(
                    "pair {:?}: {:?} against {:?} before",
                    kept[k],
                    now[k],
                    before[k]
                );
            }
            // The output stage of `narrow_phase`: per-chunk lists concatenated in order.
            let (out, t) = timed(|| {
                let parts: Vec<Vec<(u32, u32, Contact)>> = kept
                    .chunks(2048)
                    .zip(now.chunks(2048))
                    .map(|(p, c)| p.iter().zip(c).map(|(&(i, j), &c)| (i, j, c)).collect())
                    .collect();
                let mut out = Vec::with_capacity(parts.iter().map(Vec::len).sum());
                for part in parts {
                    out.extend_from_slice(&part);
                }
                Ok(out)
            })?;
            times[7].push(t);
            candidates = cands.len();
            kept_count = out.len();
            iterations = [
                now.iter().map(|c| u64::from(c.iterations)).sum(),
                before.iter().map(|c| u64::from(c.iterations)).sum(),
            ];
        }
        Ok(())
    })?;
    println!(
        "{count} ellipsoids, φ {fraction}: {candidates} candidates, {kept_count} contacts \
         ({:.3} per body); OpM Newton iterations {} now, {} before; one thread, \
         thread-CPU s, medians of {reps}",
        kept_count as f64 / count as f64,
        iterations[0],
        iterations[1]
    );
    for (name, t) in names.iter().zip(times) {
        println!("  {name:>13}: {:.3} s", median(t));
    }
    Ok(())
}
