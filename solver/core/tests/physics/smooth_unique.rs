//! The single-minimum certificate of two facets' distance (`contact/smooth/unique.rs`),
//! which lets `curved_pair` skip the start search and the second descent: where it holds,
//! every stationary end of a descent, from any start, is the global minimum (no farther
//! than the lowest of 49 descents and than dense brute force), and `curved_pair` is no
//! farther than the searched reference (`searched_pair`). The seeded sample includes
//! concave bumps and lateral shifts where descents from different starts end at different
//! local minima (an always-true certificate fails this test).

use crate::smooth_closest::{brute, facet, Rng};
use msdem_geom::kernel::triangle_triangle_exact;
use msdem_geom::math::{Tri, Vec3};
use msdem_solver::contact::smooth::closest::{descend, PhongTri};
use msdem_solver::contact::smooth::unique::single_minimum;
use msdem_solver::contact::smooth::{curved_pair, searched_pair};
use msdem_solver::contact::RawContact;
use msdem_solver::model::smooth::Corners;

/// Parameters of the corners, edge midpoints and centroid of a facet.
const STARTS: [[f64; 2]; 7] = [
    [0.0, 0.0],
    [1.0, 0.0],
    [0.0, 1.0],
    [0.5, 0.0],
    [0.5, 0.5],
    [0.0, 0.5],
    [1.0 / 3.0, 1.0 / 3.0],
];

/// The fine pair of the flat facets as the narrow phase gives it (`f32` exact kernel,
/// normal from `b` towards `a`), as in `smooth_continuity`.
fn flat_pair(va: &[Vec3; 3], vb: &[Vec3; 3]) -> RawContact {
    let f = |v: &[Vec3; 3]| {
        Tri::new(
            v[0].map(|x| x as f32).into(),
            v[1].map(|x| x as f32).into(),
            v[2].map(|x| x as f32).into(),
        )
    };
    let c = triangle_triangle_exact(&f(va), &f(vb));
    let p = Vec3::new(c.p[0] as f64, c.p[1] as f64, c.p[2] as f64);
    let q = Vec3::new(c.q[0] as f64, c.q[1] as f64, c.q[2] as f64);
    let d = (p - q).norm();
    RawContact {
        p,
        q,
        dist: d,
        normal: if d > 0.0 { (p - q) / d } else { Vec3::z() },
        tri_a: 0,
        tri_b: 0,
    }
}

/// 400 seeded pairs (`smooth_closest`'s facets: `b` 0.2–3 mm above `a`, shifted up to
/// 2.5 cm sideways, `b` scaled by ½–3), corner normals tilted outward (convex) or inward
/// (concave) by up to 0.6 rad; every fourth pair has a flat `b` (an obstacle facet, 2–6×
/// larger). Where `single_minimum` holds, each of the 49 descents (corners, edge
/// midpoints, centroid on both sides) that ends at a stationary point is within 10⁻¹² m
/// of the lowest of them and at most the brute-force minimum plus 10⁻¹² m, and
/// `curved_pair` is no farther than `searched_pair` (+10⁻¹² m). The sample must hold both
/// certified and uncertified pairs, and uncertified pairs with distinct local minima.
#[test]
fn single_minimum_certificate_holds_only_where_every_descent_agrees() {
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    let margin = 0.01;
    let (mut certified, mut uncertified, mut multi) = (0, 0, 0);
    let (mut stationary_ends, mut shortcut_wins) = (0, 0);
    for case in 0..400 {
        let flat_b = case % 4 == 3;
        let tilt = |rng: &mut Rng| {
            let t = rng.range(0.0, 0.6);
            if rng.next() < 0.3 {
                -t
            } else {
                t
            }
        };
        let (tilt_a, tilt_b) = (tilt(&mut rng), tilt(&mut rng));
        let (va, na) = facet(&mut rng, Vec3::zeros(), 1.0, tilt_a);
        let shift = Vec3::new(rng.range(-0.025, 0.025), rng.range(-0.025, 0.025), 0.0);
        let gap = rng.range(2e-4, 3e-3);
        let (vb0, nb) = facet(
            &mut rng,
            shift + Vec3::new(0.0, 0.0, 6e-3 + gap),
            -1.0,
            tilt_b,
        );
        let scale = if flat_b {
            rng.range(2.0, 6.0)
        } else {
            rng.range(0.5, 3.0)
        };
        let cz = (vb0[0] + vb0[1] + vb0[2]) / 3.0;
        let vb = vb0.map(|v| cz + scale * (v - cz));
        let mut corners = |normals: [Vec3; 3]| Corners {
            normals,
            alpha: [0; 3].map(|_| rng.range(0.5, 1.0)),
        };
        let (ca, cb) = (corners(na), corners(nb));
        let pa = PhongTri {
            v: &va,
            n: Some(&ca),
        };
        let pb = PhongTri {
            v: &vb,
            n: (!flat_b).then_some(&cb),
        };
        let dist = |ua: [f64; 2], ub: [f64; 2]| (pa.eval(ua).p - pb.eval(ub).p).norm();
        let mut ends = Vec::new();
        for sa in STARTS {
            for sb in STARTS {
                let d = descend(&pa, &pb, [sa, sb]);
                if d.stationary {
                    ends.push(dist(d.ua, d.ub));
                }
            }
        }
        let lowest = ends.iter().copied().fold(f64::INFINITY, f64::min);
        let highest = ends.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !single_minimum(&pa, &pb) {
            uncertified += 1;
            if highest > lowest + 1e-9 {
                multi += 1;
            }
            continue;
        }
        certified += 1;
        stationary_ends += ends.len();
        let truth = brute(&pa, &pb, 40);
        assert!(
            highest <= lowest + 1e-12 && lowest <= truth + 1e-12,
            "case {case}: certified, but stationary ends span [{lowest:.12e}, {highest:.12e}] (brute force {truth:.12e})"
        );
        let r = flat_pair(&va, &vb);
        let (na_, nb_) = (Some(ca), (!flat_b).then_some(cb));
        let c = curved_pair(&va, na_, &vb, nb_, &r, margin);
        let s = searched_pair(&pa, &pb, &r, margin);
        let (gc, gs) = ((c.p - c.q).norm(), (s.p - s.q).norm());
        assert!(
            gc <= gs + 1e-12 && gc <= truth + 1e-12,
            "case {case}: curved_pair {gc:.12e} above searched_pair {gs:.12e} or brute force {truth:.12e}"
        );
        if gc < gs - 1e-12 {
            shortcut_wins += 1;
        }
    }
    eprintln!(
        "single minimum: {certified} certified ({stationary_ends} stationary ends, all at the minimum; shortcut below the search {shortcut_wins}×), {uncertified} not ({multi} with distinct local minima)"
    );
    assert!(
        certified >= 40 && uncertified >= 40,
        "{certified} {uncertified}"
    );
    assert!(
        multi >= 5,
        "the sample must hold pairs with distinct local minima: {multi}"
    );
}

/// The control-point hulls' separation (`unique::separation`), the lower bound that lets
/// `smooth_raw` skip fine pairs beyond the margin: on 400 seeded pairs (convex and concave
/// bumps, shifts up to 2.5 cm, every fourth `b` flat), along the flat fine pair's normal
/// and along a random unit vector, it is never above the lowest of 49 descents nor the
/// brute-force minimum (+10⁻¹² m); along the flat normal it is within the pair's gap plus
/// both facets' displacement bounds of the flat distance for facing pairs (it bounds the
/// bulges, which the flat facets' hull alone would not: that variant fails here).
#[test]
fn control_point_separation_never_exceeds_the_curved_gap() {
    use msdem_solver::contact::smooth::unique::separation;
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let mut tighter = 0;
    for case in 0..400 {
        let flat_b = case % 4 == 3;
        let sign = |rng: &mut Rng| if rng.next() < 0.3 { -1.0 } else { 1.0 };
        let tilt_a = sign(&mut rng) * rng.range(0.0, 0.6);
        let tilt_b = sign(&mut rng) * rng.range(0.0, 0.6);
        let (va, na) = facet(&mut rng, Vec3::zeros(), 1.0, tilt_a);
        let shift = Vec3::new(rng.range(-0.025, 0.025), rng.range(-0.025, 0.025), 0.0);
        let gap = rng.range(2e-4, 3e-3);
        let (vb, nb) = facet(
            &mut rng,
            shift + Vec3::new(0.0, 0.0, 6e-3 + gap),
            -1.0,
            tilt_b,
        );
        let mut corners = |normals: [Vec3; 3]| Corners {
            normals,
            alpha: [0; 3].map(|_| rng.range(0.5, 1.0)),
        };
        let (ca, cb) = (corners(na), corners(nb));
        let pa = PhongTri {
            v: &va,
            n: Some(&ca),
        };
        let pb = PhongTri {
            v: &vb,
            n: (!flat_b).then_some(&cb),
        };
        let mut lowest = brute(&pa, &pb, 40);
        for sa in STARTS {
            for sb in STARTS {
                let d = descend(&pa, &pb, [sa, sb]);
                lowest = lowest.min((pa.eval(d.ua).p - pb.eval(d.ub).p).norm());
            }
        }
        let r = flat_pair(&va, &vb);
        let random = Vec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        )
        .normalize();
        for n in [r.normal, random] {
            let s = separation(&pa, &pb, &n);
            assert!(
                s <= lowest + 1e-12,
                "case {case}: separation {s:.12e} along {n:?} above the curved gap {lowest:.12e}"
            );
        }
        let sag = msdem_solver::model::smooth::displacement_bound(&va, &ca)
            + if flat_b {
                0.0
            } else {
                msdem_solver::model::smooth::displacement_bound(&vb, &cb)
            };
        if separation(&pa, &pb, &r.normal) > r.dist - sag {
            tighter += 1;
        }
    }
    eprintln!("control-point separation: tighter than the flat distance less both displacement bounds in {tighter} of 400 pairs");
    assert!(tighter > 0);
}
