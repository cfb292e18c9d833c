//! Fast broad phases against the all-pairs reference on seeded random sets.

use msdem_broadphase::workload::{jiggle, random_packing, PackingSpec};
use msdem_broadphase::{
    AllPairs, BroadPhase, BroadPhaseKind, HGrid, HGridConfig, LinkedCells, Sphere,
};

fn reference(spheres: &[Sphere]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    AllPairs::new().find_pairs(spheres, &mut out).unwrap();
    out
}

fn check(bp: &mut dyn BroadPhase, spheres: &[Sphere], what: &str) {
    let want = reference(spheres);
    let mut got = Vec::new();
    bp.find_pairs(spheres, &mut got).unwrap();
    assert!(
        got.windows(2).all(|w| w[0] < w[1]),
        "{what}: not strictly sorted"
    );
    assert_eq!(got.len(), want.len(), "{what}: pair count differs");
    assert_eq!(got, want, "{what}: pairs differ");
}

fn specs() -> Vec<PackingSpec> {
    let mut v = Vec::new();
    let mut seed = 1;
    for exponent in [0.0, -2.0, -3.0] {
        for size_ratio in [1.0, 3.0, 20.0, 100.0] {
            for packing_fraction in [0.1, 0.3] {
                v.push(PackingSpec {
                    count: 1500,
                    exponent,
                    size_ratio,
                    packing_fraction,
                    min_radius: 0.01,
                    origin: [-1.0, 2.0, 0.5],
                    seed,
                });
                seed += 1;
            }
        }
    }
    v
}

#[test]
fn linked_cells_matches_brute_force_on_polydisperse_packings() {
    for spec in specs() {
        let spheres = random_packing(&spec);
        let mut lc = LinkedCells::new(None, 0.0).unwrap();
        check(&mut lc, &spheres, &format!("linked cells {spec:?}"));
        assert!(lc.stats().sphere_tests > 0);
    }
}

#[test]
fn hgrid_matches_brute_force_on_polydisperse_packings() {
    for spec in specs() {
        let spheres = random_packing(&spec);
        let mut hg = HGrid::new(HGridConfig::default()).unwrap();
        check(&mut hg, &spheres, &format!("hgrid {spec:?}"));
    }
}

#[test]
fn kinds_build_and_agree() {
    let spheres = random_packing(&PackingSpec::default());
    for kind in [
        BroadPhaseKind::AllPairs,
        BroadPhaseKind::LinkedCells {
            cell_size: Some(1.0),
            skin: 0.0,
        },
        BroadPhaseKind::default(),
    ] {
        let mut bp = kind.build().unwrap();
        check(bp.as_mut(), &spheres, &format!("{kind:?}"));
    }
}

#[test]
fn moving_spheres_stay_exact_over_update_rounds_with_and_without_skin() {
    let spec = PackingSpec {
        count: 2000,
        exponent: -2.0,
        size_ratio: 30.0,
        packing_fraction: 0.2,
        seed: 77,
        ..PackingSpec::default()
    };
    let mut spheres = random_packing(&spec);
    let mut plain = HGrid::new(HGridConfig::default()).unwrap();
    let mut skinned = HGrid::new(HGridConfig {
        skin: 0.004,
        ..HGridConfig::default()
    })
    .unwrap();
    let mut lc = LinkedCells::new(None, 0.003).unwrap();
    let mut reused = 0;
    for round in 0..12 {
        check(&mut plain, &spheres, &format!("plain round {round}"));
        check(&mut skinned, &spheres, &format!("skinned round {round}"));
        check(&mut lc, &spheres, &format!("linked cells round {round}"));
        if !skinned.stats().rebuilt {
            reused += 1;
        }
        jiggle(&mut spheres, 0.0008, round);
    }
    // Small moves must let the skinned grid reuse its candidates sometimes, and larger
    // accumulated moves must force rebuilds (checked by exactness above).
    assert!(reused > 0, "the Verlet list was never reused");
    assert!(reused < 11, "the Verlet list was never rebuilt");
}

#[test]
fn far_away_spheres_are_found() {
    for (k, origin) in [[1e6, -1e6, 3e5], [-2.5e6, 1e6, -1e6]]
        .into_iter()
        .enumerate()
    {
        let spec = PackingSpec {
            count: 1500,
            exponent: -3.0,
            size_ratio: 50.0,
            packing_fraction: 0.3,
            origin,
            seed: 5 + k as u64,
            ..PackingSpec::default()
        };
        let mut spheres = random_packing(&spec);
        // A few stragglers far from the cloud (fell off the staircase).
        spheres.push(Sphere::new([origin[0], origin[1] - 5e5, origin[2]], 0.3));
        spheres.push(Sphere::new(
            [origin[0], origin[1] - 5e5, origin[2] + 0.5],
            0.3,
        ));
        let mut hg = HGrid::new(HGridConfig::default()).unwrap();
        check(&mut hg, &spheres, "hgrid far away");
        let mut lc = LinkedCells::new(None, 0.0).unwrap();
        check(&mut lc, &spheres, "linked cells far away");
    }
}
