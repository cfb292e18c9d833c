//! Both storage layouts (dense and folded levels) give the brute-force pairs, and results
//! and work counters do not depend on the number of threads.

use msdem_broadphase::workload::{random_packing, PackingSpec};
use msdem_broadphase::{AllPairs, BroadPhase, BroadPhaseStats, HGrid, HGridConfig, Sphere};

fn brute(spheres: &[Sphere]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    AllPairs::new().find_pairs(spheres, &mut out).unwrap();
    out
}

fn packing(seed: u64, origin: [f64; 3]) -> Vec<Sphere> {
    random_packing(&PackingSpec {
        count: 1200,
        exponent: -3.0,
        size_ratio: 40.0,
        packing_fraction: 0.3,
        origin,
        seed,
        ..PackingSpec::default()
    })
}

#[test]
fn compact_packing_uses_dense_levels() {
    let spheres = packing(1, [0.0; 3]);
    let mut hg = HGrid::new(HGridConfig::default()).unwrap();
    let mut got = Vec::new();
    hg.find_pairs(&spheres, &mut got).unwrap();
    assert_eq!(got, brute(&spheres));
    let levels = hg.levels();
    assert!(levels.len() >= 2, "{levels:?}");
    assert!(levels.iter().all(|l| l.dense), "{levels:?}");
}

#[test]
fn two_distant_clusters_use_folded_levels_and_stay_exact() {
    // Two clusters 10 km apart (plus one between): the occupied boxes are mostly empty.
    let mut spheres = packing(2, [0.0; 3]);
    spheres.extend(packing(3, [1.0e4, -2.0e3, 5.0e3]));
    spheres.push(Sphere::new([5.0e3, 0.0, 0.0], 0.05));
    let mut hg = HGrid::new(HGridConfig::default()).unwrap();
    let mut got = Vec::new();
    hg.find_pairs(&spheres, &mut got).unwrap();
    assert_eq!(got, brute(&spheres));
    let levels = hg.levels();
    assert!(levels.iter().any(|l| !l.dense), "{levels:?}");
}

fn run_with_threads(threads: usize, spheres: &[Sphere]) -> (Vec<(u32, u32)>, BroadPhaseStats) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut hg = HGrid::new(HGridConfig::default()).unwrap();
        let mut out = Vec::new();
        hg.find_pairs(spheres, &mut out).unwrap();
        (out, hg.stats())
    })
}

#[test]
fn result_and_counters_do_not_depend_on_thread_count() {
    let compact = random_packing(&PackingSpec {
        count: 12_000,
        exponent: -2.0,
        size_ratio: 20.0,
        packing_fraction: 0.3,
        seed: 9,
        ..PackingSpec::default()
    });
    // The same with stragglers far below: folded levels on the parallel path.
    let mut scattered = compact.clone();
    for k in 0..10 {
        scattered.push(Sphere::new(
            [0.3 * k as f64, -800.0 - 97.0 * k as f64, 0.2],
            0.02,
        ));
    }
    for spheres in [compact, scattered] {
        let one = run_with_threads(1, &spheres);
        let three = run_with_threads(3, &spheres);
        assert!(!one.0.is_empty());
        assert_eq!(one, three);
        // Large enough for the parallel path: check it against brute force too.
        assert_eq!(three.0, brute(&spheres));
    }
}
