//! Whole-set detection (`msdem_ellipsoid::detection`): bins and HGrid against brute force
//! over all pairs, and the same contact list, bit for bit, at 1 and 2 rayon threads.

use msdem_broadphase::{AllPairs, Bins, BroadPhase, HGrid, HGridConfig};
use msdem_ellipsoid::{
    detect, opm, random_ellipsoids, DetectionScratch, Method, PairContact, PosedEllipsoid,
    RandomSetSpec,
};

fn set(count: usize, volume_fraction: f64) -> Vec<PosedEllipsoid> {
    random_ellipsoids(&RandomSetSpec {
        count,
        radius_min_m: 0.5,
        radius_max_m: 1.0,
        max_aspect: 3.0,
        volume_fraction,
        seed: 17,
    })
    .unwrap()
    .0
}

fn run(bodies: &[PosedEllipsoid], broad: &mut dyn BroadPhase, method: Method) -> Vec<PairContact> {
    let mut out = Vec::new();
    detect(
        bodies,
        broad,
        method,
        &mut DetectionScratch::default(),
        &mut out,
    )
    .unwrap();
    out
}

fn bits(c: &[PairContact]) -> Vec<(u32, u32, u64, [u64; 3])> {
    c.iter()
        .map(|p| {
            let n = p.contact.normal;
            (
                p.a,
                p.b,
                p.contact.signed_distance.to_bits(),
                [n.x.to_bits(), n.y.to_bits(), n.z.to_bits()],
            )
        })
        .collect()
}

#[test]
fn fast_broad_phases_find_the_contacts_of_brute_force() {
    let bodies = set(2_000, 0.2);
    let brute = run(&bodies, &mut AllPairs::new(), Method::ChmThenOpm);
    assert!(brute.len() > 500, "{} contacts", brute.len());
    // Every contact is a real one: OpM's depth on the pair, computed afresh.
    for c in &brute {
        let (a, b) = (&bodies[c.a as usize], &bodies[c.b as usize]);
        assert!(c.a < c.b);
        assert!(opm(&a.shape, &a.pose, &b.shape, &b.pose).signed_distance <= 1e-9);
    }
    let bins = run(&bodies, &mut Bins::new(None).unwrap(), Method::ChmThenOpm);
    let hgrid = run(
        &bodies,
        &mut HGrid::new(HGridConfig::default()).unwrap(),
        Method::ChmThenOpm,
    );
    assert_eq!(bits(&bins), bits(&brute));
    assert_eq!(bits(&hgrid), bits(&brute));
    // Method-1 (OpM alone) keeps the same pairs.
    let opm_only = run(&bodies, &mut AllPairs::new(), Method::OpmOnly);
    let pairs = |v: &[PairContact]| v.iter().map(|c| (c.a, c.b)).collect::<Vec<_>>();
    assert_eq!(pairs(&opm_only), pairs(&brute));
}

#[test]
fn contact_lists_are_bit_identical_at_one_and_two_threads() {
    let bodies = set(30_000, 0.15);
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                bits(&run(
                    &bodies,
                    &mut Bins::new(None).unwrap(),
                    Method::ChmThenOpm,
                ))
            })
    };
    let one = on(1);
    assert!(one.len() > 5_000, "{} contacts", one.len());
    assert_eq!(one, on(2));
}
