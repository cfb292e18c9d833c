//! Uniform bins (seed 002 §4) against the HGrid (seed 001) on power-law packings
//! (exponent −3, size ratios 1–100, ν = 0.3) and on the seed 002 Table 2 distribution
//! (number density 1.25e-7 per unit volume, radii U\[0, 101\]).
//!
//! `cargo run --release -p msdem-broadphase --example bins_vs_hgrid -- [N...] [--reps R]`
//! (defaults: N = 100000 and 1000000, R = 5). Each query runs on a one-thread rayon pool
//! and is timed in thread CPU time (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), so other load
//! on the machine does not count; the best of R queries after one warm-up is printed as
//! ns per sphere, with both pair counts (which must be equal).

use msdem_broadphase::workload::{random_packing, PackingSpec};
use msdem_broadphase::{Bins, BroadPhase, HGrid, HGridConfig, Sphere};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// CPU time of the calling thread \[ns\] (`CLOCK_THREAD_CPUTIME_ID`; `schedstat` only
/// advances at scheduler ticks).
fn thread_cpu_ns() -> anyhow::Result<u64> {
    Ok(msdem_benchkit::thread_cpu_ns()?)
}

/// Best thread-CPU time of `reps` queries \[ns\] and the pair count.
fn best(bp: &mut dyn BroadPhase, spheres: &[Sphere], reps: usize) -> anyhow::Result<(f64, usize)> {
    let mut out = Vec::new();
    bp.find_pairs(spheres, &mut out)?;
    let mut best = u64::MAX;
    for _ in 0..reps.max(1) {
        let t = thread_cpu_ns()?;
        bp.find_pairs(spheres, &mut out)?;
        best = best.min(thread_cpu_ns()? - t);
    }
    Ok((best as f64, out.len()))
}

fn table2(count: usize, seed: u64) -> Vec<Sphere> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let edge = (count as f64 / 1.25e-7).cbrt();
    (0..count)
        .map(|_| {
            let c = [0, 1, 2].map(|_| rng.gen::<f64>() * edge);
            Sphere::new(c, rng.gen::<f64>() * 101.0)
        })
        .collect()
}

fn main() -> anyhow::Result<()> {
    let mut counts = Vec::new();
    let mut reps = 5;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--reps" {
            reps = args.next().unwrap_or_default().parse()?;
        } else {
            counts.push(a.parse::<usize>()?);
        }
    }
    if counts.is_empty() {
        counts = vec![100_000, 1_000_000];
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    println!("one thread, thread CPU time, best of {reps} queries");
    println!(
        "{:>8} {:<22} | {:>10} {:>7} | {:>10} {:>9} | {:>9} {:>9}",
        "N", "set", "bins ns/sph", "bin [m]", "HG ns/sph", "bins/HG", "pairs B", "pairs HG"
    );
    for &n in &counts {
        let mut sets: Vec<(String, Vec<Sphere>)> = [1.0, 10.0, 100.0]
            .iter()
            .map(|&ratio| {
                let spec = PackingSpec {
                    count: n,
                    exponent: -3.0,
                    size_ratio: ratio,
                    packing_fraction: 0.3,
                    seed: 42,
                    ..PackingSpec::default()
                };
                (format!("power -3, w={ratio}"), random_packing(&spec))
            })
            .collect();
        sets.push(("table 2 (U[0,101])".into(), table2(n, 42)));
        for (name, spheres) in &sets {
            let (bins_ns, bins_pairs, bin_size, hg_ns, hg_pairs) =
                pool.install(|| -> anyhow::Result<_> {
                    let mut bins = Bins::new(None)?;
                    let (bins_ns, bins_pairs) = best(&mut bins, spheres, reps)?;
                    let mut hgrid = HGrid::new(HGridConfig::default())?;
                    let (hg_ns, hg_pairs) = best(&mut hgrid, spheres, reps)?;
                    Ok((
                        bins_ns,
                        bins_pairs,
                        bins.last_bin_size().unwrap_or(0.0),
                        hg_ns,
                        hg_pairs,
                    ))
                })?;
            let per = |ns: f64| ns / n as f64;
            println!(
                "{:>8} {:<22} | {:>10.1} {:>7.3} | {:>10.1} {:>9.2} | {:>9} {:>9}",
                n,
                name,
                per(bins_ns),
                bin_size,
                per(hg_ns),
                bins_ns / hg_ns,
                bins_pairs,
                hg_pairs
            );
            anyhow::ensure!(bins_pairs == hg_pairs, "pair counts differ");
        }
    }
    Ok(())
}
