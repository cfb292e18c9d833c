//! The pair-set query (`find_pairs_boxed`) against brute force with the exact kernel and
//! against the contact query (`find_contacts_boxed`) on random relative poses from deep
//! overlap to just apart: no pair within the margin is missed, none beyond it is reported
//! (pairs within 10⁻⁶ m of the margin, where `f32` rounding decides, are held against
//! neither side), no pair twice, and the answer is deterministic.

use msdem_geom::kernel::{triangle_triangle_exact, KernelKind};
use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::generate::{noise_sphere, NoiseSphere};
use msdem_tree::{
    build_tree, find_contacts_boxed, find_pairs_boxed, BuildParams, LevelStats, NodeBoxes, Scratch,
    SurrogateTree,
};
use proptest::prelude::*;
use std::sync::OnceLock;

const EPS: f32 = 0.01;
const BAND: f64 = 1e-6;

fn trees() -> &'static (SurrogateTree, SurrogateTree) {
    static T: OnceLock<(SurrogateTree, SurrogateTree)> = OnceLock::new();
    T.get_or_init(|| {
        let m = |seed, eta| {
            noise_sphere(&NoiseSphere {
                radius: 0.5,
                subdivisions: 2,
                eta,
                seed,
                ..Default::default()
            })
            .unwrap()
        };
        let p = BuildParams::default();
        (
            build_tree(&m(5, 1.2), [0; 32], &p).unwrap(),
            build_tree(&m(6, 1.25), [0; 32], &p).unwrap(),
        )
    })
}

/// Every real pair's exact distance \[m\], as `(source a, source b, distance)`.
fn brute(a: &SurrogateTree, b: &SurrogateTree, iso: &Iso3) -> Vec<(u32, u32, f64)> {
    let tb: Vec<_> = b.soup[..b.real_count()]
        .iter()
        .map(|t| t.transformed(iso))
        .collect();
    let mut v = Vec::new();
    for (i, ta) in a.soup[..a.real_count()].iter().enumerate() {
        for (j, t) in tb.iter().enumerate() {
            let d = f64::from(triangle_triangle_exact(ta, t).dist_sq).sqrt();
            v.push((a.source[i], b.source[j], d));
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn pair_set_query_gives_the_pairs_within_the_margin(
        dir in prop::array::uniform3(-1.0f64..1.0),
        dist in 0.6f64..1.1,
        rot in prop::array::uniform3(-3.0f64..3.0),
    ) {
        let d = Vec3::from(dir);
        prop_assume!(d.norm() > 0.1);
        let iso = Iso3::new(d.normalize() * dist, Vec3::from(rot));
        let (a, b) = trees();
        let (ba, bb) = (NodeBoxes::of(a), NodeBoxes::of(b));
        let mut s = Scratch::new();
        let (mut pairs, mut again, mut contacts) = (Vec::new(), Vec::new(), Vec::new());
        let mut st = LevelStats::default();
        find_pairs_boxed((a, &ba), EPS, (b, &bb), EPS, &iso, &mut s, &mut pairs, &mut st);
        find_pairs_boxed((a, &ba), EPS, (b, &bb), EPS, &iso, &mut s, &mut again, &mut st);
        prop_assert_eq!(&pairs, &again, "not deterministic");
        find_contacts_boxed((a, &ba), EPS, (b, &bb), EPS, &iso, KernelKind::Hybrid, &mut s, &mut contacts, &mut st);
        let key = |ta: u32, tb: u32| (a.source[ta as usize], b.source[tb as usize]);
        let mut got: Vec<_> = pairs.iter().map(|p| key(p.tri_a, p.tri_b)).collect();
        got.sort_unstable();
        let n = got.len();
        got.dedup();
        prop_assert_eq!(n, got.len(), "a pair reported twice");
        let margin = 2.0 * f64::from(EPS);
        let all = brute(a, b, &iso);
        let mut sure = 0;
        for &(x, y, dd) in &all {
            let found = got.binary_search(&(x, y)).is_ok();
            if dd <= margin - BAND {
                sure += 1;
                prop_assert!(found, "missed ({x}, {y}) at {dd}");
            } else if dd > margin + BAND {
                prop_assert!(!found, "reported ({x}, {y}) at {dd}");
            }
        }
        prop_assert_eq!(sure + all.iter().filter(|p| (p.2 - margin).abs() < BAND && got.binary_search(&(p.0, p.1)).is_ok()).count(), got.len());
        // The contact query's set, up to the same band.
        let mut want: Vec<_> = contacts.iter().map(|c| key(c.tri_a, c.tri_b)).collect();
        want.sort_unstable();
        for p in got.iter().filter(|p| want.binary_search(p).is_err()).chain(want.iter().filter(|p| got.binary_search(p).is_err())) {
            let dd = all.iter().find(|q| (q.0, q.1) == *p).map_or(f64::NAN, |q| q.2);
            prop_assert!((dd - margin).abs() < BAND, "pair {p:?} at {dd} differs from the contact query");
        }
    }
}

/// Boxes of another tree (a node-count mismatch) are ignored, not trusted: the same pairs.
#[test]
fn boxes_of_another_tree_are_ignored() {
    let (a, b) = trees();
    let iso = Iso3::new(Vec3::new(0.95, 0.1, 0.0), Vec3::new(0.3, 0.2, 0.1));
    let (ba, bb) = (NodeBoxes::of(a), NodeBoxes::of(b));
    let mut s = Scratch::new();
    let (mut with, mut without, mut st) = (Vec::new(), Vec::new(), LevelStats::default());
    find_pairs_boxed(
        (a, &ba),
        EPS,
        (b, &bb),
        EPS,
        &iso,
        &mut s,
        &mut with,
        &mut st,
    );
    find_pairs_boxed(
        (a, &NodeBoxes::default()),
        EPS,
        (b, &bb),
        EPS,
        &iso,
        &mut s,
        &mut without,
        &mut st,
    );
    with.sort_unstable();
    without.sort_unstable();
    assert!(!with.is_empty(), "the pose touches");
    assert_eq!(with, without);
}
