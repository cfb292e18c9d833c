//! The uniform bins of seed 002 §4 against the brute-force reference and the HGrid:
//! random polydisperse sets (seeded), degenerate sets, bad input, and the Table 2 setting.

use msdem_broadphase::workload::power_law_radius;
use msdem_broadphase::{
    AllPairs, Bins, BroadPhase, BroadPhaseError, BroadPhaseKind, HGrid, HGridConfig, LinkedCells,
    Sphere,
};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn pairs(bp: &mut dyn BroadPhase, spheres: &[Sphere]) -> Vec<(u32, u32)> {
    let mut out = vec![(7, 7)];
    bp.find_pairs(spheres, &mut out).unwrap();
    out
}

fn brute(spheres: &[Sphere]) -> Vec<(u32, u32)> {
    pairs(&mut AllPairs::new(), spheres)
}

/// `count` spheres with radii in `[r_min, ratio · r_min]` (uniform, or power law `r^-3`),
/// centres uniform in a cube filled to packing fraction `nu`, shifted by `offset`.
fn random_set(
    seed: u64,
    count: usize,
    ratio: f64,
    power_law: bool,
    nu: f64,
    offset: f64,
) -> Vec<Sphere> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let r_min = 0.01;
    let radii: Vec<f64> = (0..count)
        .map(|_| {
            let u: f64 = rng.gen();
            if power_law {
                power_law_radius(u, -3.0, r_min, r_min * ratio)
            } else {
                r_min + u * (ratio - 1.0) * r_min
            }
        })
        .collect();
    let edge = msdem_broadphase::workload::box_edge(radii.iter().copied(), nu);
    radii
        .into_iter()
        .map(|r| {
            let c = [0, 1, 2].map(|_| offset + rng.gen::<f64>() * edge);
            Sphere::new(c, r)
        })
        .collect()
}

fn small_sphere() -> impl Strategy<Value = Sphere> {
    (
        prop::array::uniform3(-3.0f64..3.0),
        prop_oneof![Just(0.0), 0.01f64..0.05, 0.05f64..1.0],
    )
        .prop_map(|(c, r)| Sphere::new(c, r))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        rng_seed: RngSeed::Fixed(0x002b_1a5e),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// A few thousand spheres, radius ratios up to 100, dense to dilute.
    #[test]
    fn bins_equal_brute_force_on_polydisperse_sets(
        seed in any::<u64>(),
        count in 500usize..3000,
        ratio in prop_oneof![Just(1.0), 1.0f64..100.0, Just(100.0)],
        power_law in any::<bool>(),
        nu in prop_oneof![Just(0.6), 0.01f64..0.6],
        offset in prop_oneof![Just(0.0), Just(-1.0e4), Just(3.3e5)],
        bin_size in prop_oneof![Just(None), (0.05f64..2.0).prop_map(Some)],
    ) {
        let spheres = random_set(seed, count, ratio, power_law, nu, offset);
        let want = brute(&spheres);
        let mut bins = Bins::new(bin_size).unwrap();
        prop_assert_eq!(pairs(&mut bins, &spheres), want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        rng_seed: RngSeed::Fixed(0x5eed_0002),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Small shrinkable sets, with automatic and tiny given bins (spheres over many bins).
    #[test]
    fn bins_equal_brute_force_on_small_sets(
        spheres in prop::collection::vec(small_sphere(), 0..80),
        bin_size in prop_oneof![Just(None), Just(Some(1.0)), (0.07f64..3.0).prop_map(Some)],
        offset in prop_oneof![Just(0.0), Just(1.0e6), Just(-3.3e5)],
    ) {
        let spheres: Vec<Sphere> = spheres
            .into_iter()
            .map(|s| Sphere::new([s.center[0] + offset, s.center[1], s.center[2] - offset], s.radius))
            .collect();
        let want = brute(&spheres);
        let mut bins = Bins::new(bin_size).unwrap();
        prop_assert_eq!(pairs(&mut bins, &spheres), want);
    }
}

#[test]
fn empty_single_and_point_sets() {
    for bin_size in [None, Some(0.5)] {
        let mut bins = Bins::new(bin_size).unwrap();
        assert!(pairs(&mut bins, &[]).is_empty());
        assert!(pairs(&mut bins, &[Sphere::new([1.0, 2.0, 3.0], 0.4)]).is_empty());
        let points = [
            Sphere::new([1.0, 1.0, 1.0], 0.0),
            Sphere::new([1.0, 1.0, 1.0], 0.0),
            Sphere::new([2.0, 1.0, 1.0], 0.0),
        ];
        assert_eq!(pairs(&mut bins, &points), vec![(0, 1)]);
    }
}

#[test]
fn coincident_spheres_pair_with_all_others_once() {
    for radius in [0.0, 1.0, 3.7] {
        let spheres = vec![Sphere::new([0.25, -4.0, 1e3], radius); 60];
        let want: Vec<(u32, u32)> = (0..60u32)
            .flat_map(|i| (i + 1..60).map(move |j| (i, j)))
            .collect();
        for bin_size in [None, Some(0.3), Some(1.0)] {
            assert_eq!(pairs(&mut Bins::new(bin_size).unwrap(), &spheres), want);
        }
    }
}

#[test]
fn exactly_touching_spheres_on_bin_faces_are_found_once() {
    // Unit spheres touching on the planes x, y, z = integer: the contact point lies exactly
    // on bin faces (bin size 1 and 2) or corners.
    let mut spheres = Vec::new();
    for i in 0..4 {
        for j in 0..4 {
            for k in 0..4 {
                spheres.push(Sphere::new(
                    [2.0 * i as f64, 2.0 * j as f64, 2.0 * k as f64],
                    1.0,
                ));
            }
        }
    }
    let want = brute(&spheres);
    assert_eq!(want.len(), 3 * 3 * 16);
    for bin_size in [None, Some(1.0), Some(2.0), Some(0.25)] {
        assert_eq!(pairs(&mut Bins::new(bin_size).unwrap(), &spheres), want);
    }
}

#[test]
fn result_does_not_depend_on_thread_count() {
    let spheres = random_set(9, 60_000, 30.0, true, 0.4, 0.0);
    let mut bins = Bins::new(None).unwrap();
    let many = pairs(&mut bins, &spheres);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| pairs(&mut Bins::new(None).unwrap(), &spheres));
    assert_eq!(many, one);
    let mut hgrid = HGrid::new(HGridConfig::default()).unwrap();
    assert_eq!(many, pairs(&mut hgrid, &spheres));
}

fn good() -> Vec<Sphere> {
    (0..20)
        .map(|i| Sphere::new([i as f64 * 0.5, 0.0, 0.0], 0.3 + 0.01 * i as f64))
        .collect()
}

fn others() -> Vec<Box<dyn BroadPhase>> {
    vec![
        Box::new(AllPairs::new()),
        Box::new(LinkedCells::new(None, 0.0).unwrap()),
        Box::new(HGrid::new(HGridConfig::default()).unwrap()),
    ]
}

/// Every invalid set gives the error of the other broad phases, leaves `out` empty, and
/// the broad phase works afterwards.
#[test]
fn errors_are_those_of_the_other_broad_phases() {
    let mut cases = Vec::new();
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut s = good();
        s[7].center[1] = bad;
        s[12].radius = bad;
        cases.push(s);
        let mut s = good();
        s[4].radius = bad;
        cases.push(s);
    }
    let mut s = good();
    s[3].radius = -1.0;
    s[9].center[0] = f64::NAN;
    cases.push(s);
    let mut s = good();
    s[4].center = [1e300, 0.0, 0.0];
    s[6].center = [0.0, -1e300, 0.0];
    cases.push(s);
    // Compared through Debug: a NaN field makes `==` false.
    let key = |e: &BroadPhaseError| match e {
        // The cell size in the message is each broad phase's own.
        BroadPhaseError::OutOfRange { index, center, .. } => {
            format!("OutOfRange {index} {center:?}")
        }
        e => format!("{e:?}"),
    };
    for spheres in &cases {
        let mut expected = None;
        for bp in others().iter_mut() {
            // All-pairs has no grid, hence no range limit: it accepts far spheres.
            let Err(err) = bp.find_pairs(spheres, &mut Vec::new()) else {
                continue;
            };
            let err = key(&err);
            assert!(
                expected.is_none() || expected.as_ref() == Some(&err),
                "{err}"
            );
            expected = Some(err);
        }
        for bin_size in [None, Some(1.0)] {
            let mut bins = Bins::new(bin_size).unwrap();
            let mut out = vec![(1, 2)];
            let err = bins.find_pairs(spheres, &mut out).unwrap_err();
            assert_eq!(Some(key(&err)), expected);
            assert!(out.is_empty());
            assert_eq!(pairs(&mut bins, &good()).len(), 19);
        }
    }
}

#[test]
fn sphere_wider_than_the_span_limit_is_too_large() {
    let mut s = good();
    s[5].radius = 20.0; // diameter 40 > 32 bins of 1 m
    s[8].radius = 30.0;
    let mut bins = Bins::new(Some(1.0)).unwrap();
    let err = bins.find_pairs(&s, &mut Vec::new()).unwrap_err();
    assert_eq!(
        err,
        BroadPhaseError::TooLarge {
            index: 5,
            diameter: 40.0,
            cell_size: 32.0
        }
    );
    // Also alone (no pair to look for), as the grids check placement.
    let err = bins.find_pairs(&s[8..9], &mut Vec::new()).unwrap_err();
    assert!(
        matches!(err, BroadPhaseError::TooLarge { index: 0, .. }),
        "{err}"
    );
    // Automatic bins take any size.
    assert_eq!(pairs(&mut Bins::new(None).unwrap(), &s), brute(&s));
}

#[test]
fn invalid_bin_sizes_are_config_errors() {
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            Bins::new(Some(bad)),
            Err(BroadPhaseError::Config(_))
        ));
        assert!(matches!(
            BroadPhaseKind::Bins {
                bin_size: Some(bad)
            }
            .build(),
            Err(BroadPhaseError::Config(_))
        ));
    }
    assert!(BroadPhaseKind::Bins { bin_size: None }.build().is_ok());
}

/// Seed 002 Table 2 setting: number density 1.25e-7 per unit volume, radii U[0, 101].
fn table2_set(count: usize, seed: u64) -> Vec<Sphere> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let edge = (count as f64 / 1.25e-7).cbrt();
    (0..count)
        .map(|_| {
            let c = [0, 1, 2].map(|_| rng.gen::<f64>() * edge);
            Sphere::new(c, rng.gen::<f64>() * 101.0)
        })
        .collect()
}

#[test]
fn table2_setting_small_equals_brute_force() {
    let spheres = table2_set(20_000, 2);
    let want = brute(&spheres);
    assert!(want.len() > 1000, "{}", want.len());
    assert_eq!(pairs(&mut Bins::new(None).unwrap(), &spheres), want);
    let mut hgrid = HGrid::new(HGridConfig::default()).unwrap();
    assert_eq!(pairs(&mut hgrid, &spheres), want);
}

#[test]
fn table2_setting_equals_hgrid() {
    let spheres = table2_set(100_000, 3);
    let mut hgrid = HGrid::new(HGridConfig::default()).unwrap();
    let want = pairs(&mut hgrid, &spheres);
    assert!(want.len() > 10_000, "{}", want.len());
    assert_eq!(pairs(&mut Bins::new(None).unwrap(), &spheres), want);
    assert_eq!(pairs(&mut Bins::new(Some(150.0)).unwrap(), &spheres), want);
}

#[test]
fn far_apart_clusters_fold_bins_and_stay_exact() {
    // Two clusters 10⁶ bins apart: the occupied box is far too large for one bucket per
    // bin, so bins share folded buckets.
    let mut spheres = random_set(5, 3000, 10.0, true, 0.3, 0.0);
    spheres.extend(random_set(6, 3000, 10.0, false, 0.5, 2.0e4));
    spheres.extend(random_set(7, 500, 1.0, false, 0.5, -3.0e4));
    let want = brute(&spheres);
    for bin_size in [None, Some(0.02), Some(0.3)] {
        assert_eq!(pairs(&mut Bins::new(bin_size).unwrap(), &spheres), want);
    }
}
