//! Property: on small random sets every broad phase returns exactly the brute-force pairs,
//! whatever the level configuration, skin or far-away offset.

use msdem_broadphase::{AllPairs, BroadPhase, HGrid, HGridConfig, LinkedCells, Sphere};
use proptest::prelude::*;

fn sphere() -> impl Strategy<Value = Sphere> {
    (
        prop::array::uniform3(-3.0f64..3.0),
        // Radii over two orders of magnitude, plus exact zeros.
        prop_oneof![Just(0.0), 0.01f64..0.05, 0.05f64..1.0],
    )
        .prop_map(|(c, r)| Sphere::new(c, r))
}

fn brute(spheres: &[Sphere]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    AllPairs::new().find_pairs(spheres, &mut out).unwrap();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn hgrid_equals_brute_force(
        spheres in prop::collection::vec(sphere(), 0..80),
        levels in prop::option::of(1usize..6),
        skin in prop_oneof![Just(0.0), 0.0f64..0.3],
        offset in prop_oneof![Just(0.0), Just(1.0e6), Just(-3.3e5)],
    ) {
        let spheres: Vec<Sphere> = spheres
            .into_iter()
            .map(|s| Sphere::new([s.center[0] + offset, s.center[1], s.center[2] - offset], s.radius))
            .collect();
        let want = brute(&spheres);
        let mut hg = HGrid::new(HGridConfig { levels, cell_sizes: None, skin }).unwrap();
        let mut got = Vec::new();
        hg.find_pairs(&spheres, &mut got).unwrap();
        prop_assert_eq!(&got, &want);
        let mut lc = LinkedCells::new(None, skin).unwrap();
        lc.find_pairs(&spheres, &mut got).unwrap();
        prop_assert_eq!(&got, &want);
    }

    #[test]
    fn explicit_cell_sizes_equal_brute_force(
        spheres in prop::collection::vec(sphere(), 0..80),
        mut steps in prop::collection::vec(1.05f64..4.0, 0..5),
        first in 0.02f64..0.5,
    ) {
        // Increasing sizes whose largest cell fits every sphere (diameter ≤ 2 m).
        steps.sort_by(f64::total_cmp);
        let mut sizes = vec![first];
        for s in steps {
            let next = sizes[sizes.len() - 1] * s;
            sizes.push(next);
        }
        sizes.push(sizes[sizes.len() - 1].max(2.0) * 1.01);
        let want = brute(&spheres);
        let mut hg = HGrid::new(HGridConfig { levels: None, cell_sizes: Some(sizes), skin: 0.0 }).unwrap();
        let mut got = Vec::new();
        hg.find_pairs(&spheres, &mut got).unwrap();
        prop_assert_eq!(&got, &want);
    }
}
