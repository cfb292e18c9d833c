//! Node boxes (`node_box.rs`): they contain the geometry below every node, and the
//! traversal pruning by them finds exactly the contacts of brute force and of the plain
//! traversal on random poses (property test).

use msdem_geom::kernel::{triangle_triangle_exact, KernelKind};
use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::generate::{noise_sphere, NoiseSphere};
use msdem_tree::{
    build_tree, find_contacts, find_contacts_boxed, BuildParams, LevelStats, Mode, NodeBoxes,
    Scratch, SurrogateTree,
};
use proptest::prelude::*;
use std::sync::OnceLock;

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
            build_tree(&m(3, 1.3), [0; 32], &p).unwrap(),
            build_tree(&m(4, 1.1), [0; 32], &p).unwrap(),
        )
    })
}

/// Every real triangle lies inside the box of each node on its path to the root.
#[test]
fn every_node_box_holds_the_triangles_below() {
    let (t, _) = trees();
    let nb = NodeBoxes::of(t);
    let mut parent = vec![usize::MAX; t.nodes.len()];
    for (i, n) in t.nodes.iter().enumerate() {
        if !n.is_leaf() {
            for c in n.first..n.first + n.count {
                parent[c as usize] = i;
            }
        }
    }
    let mut checked = 0;
    for (i, n) in t.nodes.iter().enumerate().filter(|(_, n)| n.is_leaf()) {
        for tri in &t.soup[n.first as usize..(n.first + n.count) as usize] {
            let mut at = i;
            while at != usize::MAX {
                let (lo, hi) = nb.boxes[at];
                for v in &tri.v {
                    assert!((0..3).all(|k| lo[k] <= v[k] && v[k] <= hi[k]), "node {at}");
                    checked += 1;
                }
                at = parent[at];
            }
        }
    }
    assert!(checked > 320 * 3 * 2);
}

/// Sorted `(source a, source b)` pairs.
fn keys(a: &SurrogateTree, b: &SurrogateTree, c: &[msdem_tree::TriContact]) -> Vec<(u32, u32)> {
    let mut v: Vec<_> = c
        .iter()
        .map(|c| (a.source[c.tri_a as usize], b.source[c.tri_b as usize]))
        .collect();
    v.sort_unstable();
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Brute force (every real pair, exact kernel) vs the box-pruned traversal vs the plain
    /// one, on random relative poses from deep overlap to just apart.
    #[test]
    fn boxed_traversal_finds_the_brute_force_contacts(
        dir in prop::array::uniform3(-1.0f64..1.0),
        dist in 0.6f64..1.25,
        rot in prop::array::uniform3(-3.0f64..3.0),
        kernel in prop::sample::select(vec![KernelKind::Exact, KernelKind::Hybrid]),
    ) {
        let d = Vec3::from(dir);
        prop_assume!(d.norm() > 0.1);
        let iso = Iso3::new(d.normalize() * dist, Vec3::from(rot));
        let (a, b) = trees();
        let (ba, bb) = (NodeBoxes::of(a), NodeBoxes::of(b));
        let eps = 0.01f32;
        let mut s = Scratch::new();
        let (mut boxed, mut plain, mut st) = (Vec::new(), Vec::new(), LevelStats::default());
        find_contacts_boxed((a, &ba), eps, (b, &bb), eps, &iso, kernel, &mut s, &mut boxed, &mut st);
        find_contacts(a, eps, b, eps, &iso, Mode::Hierarchy, kernel, &mut s, &mut plain, &mut st);
        let real = a.real_count();
        let real_b = b.real_count();
        let tb: Vec<_> = b.soup[..real_b].iter().map(|t| t.transformed(&iso)).collect();
        let mut brute = Vec::new();
        for (i, ta) in a.soup[..real].iter().enumerate() {
            for (j, t) in tb.iter().enumerate() {
                if triangle_triangle_exact(ta, t).dist_sq <= (2.0 * eps) * (2.0 * eps) {
                    brute.push((a.source[i], b.source[j]));
                }
            }
        }
        brute.sort_unstable();
        prop_assert_eq!(&keys(a, b, &boxed), &keys(a, b, &plain));
        if kernel == KernelKind::Exact {
            prop_assert_eq!(&keys(a, b, &boxed), &brute);
        }
        // The same contacts bit for bit (points and distances), in any order.
        let mut x: Vec<_> = boxed.iter().map(|c| (c.tri_a, c.tri_b, c.p.map(f32::to_bits), c.q.map(f32::to_bits))).collect();
        let mut y: Vec<_> = plain.iter().map(|c| (c.tri_a, c.tri_b, c.p.map(f32::to_bits), c.q.map(f32::to_bits))).collect();
        x.sort_unstable();
        y.sort_unstable();
        prop_assert_eq!(x, y);
    }
}

/// On 1,280-triangle noisy spheres (deep enough trees for both sides of a pair to be
/// unfolded many times) at poses from overlap to just beyond the margin, the boxed
/// traversal (both sides unfolded, children gated against the other side's node) returns
/// exactly the contacts of the plain traversal (larger side unfolded, no boxes), bit for
/// bit, and the pair-set query the same pairs.
#[test]
fn boxed_traversal_equals_the_plain_one_near_touching_poses() {
    let m = |seed, eta| {
        noise_sphere(&NoiseSphere {
            radius: 0.5,
            subdivisions: 3,
            eta,
            seed,
            ..Default::default()
        })
        .unwrap()
    };
    let p = BuildParams::default();
    let (a, b) = (
        build_tree(&m(5, 1.2), [0; 32], &p).unwrap(),
        build_tree(&m(6, 1.25), [0; 32], &p).unwrap(),
    );
    let (ba, bb) = (NodeBoxes::of(&a), NodeBoxes::of(&b));
    let eps = 0.01f32;
    let mut s = Scratch::new();
    let (mut touching, mut total) = (0, 0);
    for k in 0..40 {
        let dir = Vec3::new(
            1.0,
            0.4 * ((k % 5) as f64 - 2.0),
            0.3 * ((k % 3) as f64 - 1.0),
        );
        let dist = 0.95 + 0.01 * k as f64;
        let iso = Iso3::new(dir.normalize() * dist, Vec3::new(0.7 * k as f64, 0.3, -0.2));
        let (mut boxed, mut plain, mut st) = (Vec::new(), Vec::new(), LevelStats::default());
        find_contacts_boxed(
            (&a, &ba),
            eps,
            (&b, &bb),
            eps,
            &iso,
            KernelKind::Hybrid,
            &mut s,
            &mut boxed,
            &mut st,
        );
        find_contacts(
            &a,
            eps,
            &b,
            eps,
            &iso,
            Mode::Hierarchy,
            KernelKind::Hybrid,
            &mut s,
            &mut plain,
            &mut st,
        );
        let bits = |c: &[msdem_tree::TriContact]| {
            let mut v: Vec<_> = c
                .iter()
                .map(|c| {
                    (
                        c.tri_a,
                        c.tri_b,
                        c.p.map(f32::to_bits),
                        c.q.map(f32::to_bits),
                    )
                })
                .collect();
            v.sort_unstable();
            v
        };
        let (x, y) = (bits(&boxed), bits(&plain));
        assert!(
            x == y,
            "pose {k}: boxed {} contacts, plain {} ({} differ)",
            x.len(),
            y.len(),
            x.iter().filter(|c| y.binary_search(c).is_err()).count()
                + y.iter().filter(|c| x.binary_search(c).is_err()).count()
        );
        let mut pairs = Vec::new();
        msdem_tree::find_pairs_boxed(
            (&a, &ba),
            eps,
            (&b, &bb),
            eps,
            &iso,
            &mut s,
            &mut pairs,
            &mut st,
        );
        let mut pk: Vec<_> = pairs.iter().map(|p| (p.tri_a, p.tri_b)).collect();
        pk.sort_unstable();
        let mut ck: Vec<_> = plain.iter().map(|c| (c.tri_a, c.tri_b)).collect();
        ck.sort_unstable();
        // The decision kernel answers "in" only just inside the margin (`pairs.rs`): the
        // sets may differ only by pairs within 10⁻⁵ m of it.
        let extra = pk.iter().find(|x| ck.binary_search(x).is_err());
        assert!(
            extra.is_none(),
            "pose {k}: pair {extra:?} not among the contacts"
        );
        for c in plain
            .iter()
            .filter(|c| pk.binary_search(&(c.tri_a, c.tri_b)).is_err())
        {
            assert!(
                (c.dist - 2.0 * eps).abs() < 1e-5,
                "pose {k}: contact {:?} at {} missing from the pairs",
                (c.tri_a, c.tri_b),
                c.dist
            );
        }
        touching += usize::from(!plain.is_empty());
        total += plain.len();
    }
    assert!(
        touching > 15 && touching < 40,
        "{touching} touching poses, {total} contacts"
    );
    assert!(total > 1000, "{total} contacts");
}
