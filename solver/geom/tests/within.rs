//! The pair-set decision kernel (`within_margin`, `PairBatch::decide`) against the exact
//! kernel's `f64` distance on 2·10⁵ seeded pairs spanning the hard cases of
//! `common/pairs.rs` (near-parallel faces and edges, touching, intersecting, slivers,
//! 1:1000 sizes), plus pairs whose margin is set to their own exact distance, just above
//! and just below it: "in" must never be answered beyond the margin, "out" never within
//! it, and most clear contacts must be decided without a kernel.

mod common;

use common::pairs::{pair, CATEGORIES};
use msdem_geom::kernel::{triangle_triangle_exact, within_margin, PairBatch, Within};
use msdem_geom::math::Tri;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const EPS: f32 = 0.05;

fn mag(t1: &Tri, t2: &Tri) -> f64 {
    t1.v.iter()
        .chain(&t2.v)
        .flatten()
        .fold(0.0f32, |m, x| m.max(x.abs())) as f64
}

/// The decision must agree with the exact distance `d` up to the `f32` rounding of the
/// coordinates (a few 10⁻⁷ of their magnitude).
fn agrees(w: Within, d: f64, margin: f32, m: f64) -> bool {
    let tol = 1e-6 * (m + margin as f64);
    match w {
        Within::In => d <= margin as f64 + tol,
        Within::Out => d > margin as f64 - tol,
        Within::Unknown => true,
    }
}

#[test]
fn decisions_match_the_exact_distance_on_random_and_adversarial_pairs() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x15_2026);
    let margin = 2.0 * EPS;
    let mut batch = PairBatch::<u32>::new();
    let mut pairs = Vec::new();
    let mut decided = Vec::new();
    let (mut clear_in, mut clear_in_decided, mut out_decided) = (0u64, 0u64, 0u64);
    let mut failures = Vec::new();
    for i in 0..200_000u32 {
        let cat = (i as usize) % CATEGORIES.len();
        let (t1, t2) = pair(&mut rng, cat, EPS);
        let d = triangle_triangle_exact(&t1, &t2).dist() as f64;
        let m = mag(&t1, &t2);
        // Every fourth pair: the margin at the pair's own distance, just below or above.
        let mg = match i % 8 {
            3 => (d * (1.0 - 3e-6)) as f32,
            7 => (d * (1.0 + 3e-6)) as f32,
            _ => margin,
        };
        let w = within_margin(&t1, &t2, mg);
        if !agrees(w, d, mg, m) {
            failures.push(format!(
                "{} pair {i}: {w:?} at distance {d}, margin {mg}: {t1:?} {t2:?}",
                CATEGORIES[cat]
            ));
        }
        if mg == margin && d <= 0.5 * margin as f64 {
            clear_in += 1;
            clear_in_decided += u64::from(w == Within::In);
        }
        out_decided += u64::from(w == Within::Out);
        batch.push(&t1, &t2, mg, i, true);
        pairs.push(w);
    }
    assert!(
        failures.is_empty(),
        "{} wrong decisions, first: {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    // The batched kernel is the same computation, lane by lane.
    batch.decide(&mut decided);
    let differ: Vec<_> = (0..pairs.len())
        .filter(|&i| decided.get(i) != Some(&pairs[i]))
        .map(|i| (i, decided.get(i).copied(), pairs[i]))
        .take(5)
        .collect();
    assert_eq!(decided.len(), pairs.len());
    assert!(
        differ.is_empty(),
        "batched decisions differ from single ones: {differ:?}"
    );
    // Not a kernel that only says "unknown": most clear contacts are decided.
    assert!(
        clear_in_decided * 10 >= clear_in * 8,
        "only {clear_in_decided} of {clear_in} clear contacts decided"
    );
    assert!(out_decided > 20_000, "only {out_decided} pairs proven out");

    // The prefiltered variant (centroid axis only): right against the exact distance, "in"
    // wherever the full decision is, "out" only where it is.
    let mut pre = Vec::new();
    batch.decide_prefiltered(&mut pre);
    assert_eq!(pre.len(), pairs.len());
    let mut pre_out = 0u64;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x15_2026);
    for (i, (&p, &f)) in pre.iter().zip(&pairs).enumerate() {
        let cat = i % CATEGORIES.len();
        let (t1, t2) = pair(&mut rng, cat, EPS);
        let d = triangle_triangle_exact(&t1, &t2).dist() as f64;
        let mg = match i % 8 {
            3 => (d * (1.0 - 3e-6)) as f32,
            7 => (d * (1.0 + 3e-6)) as f32,
            _ => margin,
        };
        assert!(
            agrees(p, d, mg, mag(&t1, &t2)),
            "prefiltered pair {i}: {p:?} at distance {d}, margin {mg}: {t1:?} {t2:?}"
        );
        assert!(
            (f != Within::In || p == Within::In) && (p != Within::Out || f == Within::Out),
            "prefiltered pair {i}: {p:?} where the full decision is {f:?}"
        );
        pre_out += u64::from(p == Within::Out);
    }
    eprintln!("prefiltered: {pre_out} of {out_decided} \"out\" pairs proven by the centroid axis");
    assert!(
        pre_out > 10_000,
        "only {pre_out} pairs proven out by the centroid axis"
    );
}

#[test]
fn intersecting_and_face_contacts_are_in_and_a_gap_beyond_the_margin_is_never_in() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    for _ in 0..20_000 {
        // A vertex of B hovering over A's interior at height h (the vertex–face case),
        // B's other vertices above it.
        let a = Tri::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        let (u, v) = (rng.gen_range(0.1f32..0.4), rng.gen_range(0.1f32..0.4));
        let h = rng.gen_range(-0.05f32..0.3);
        let b = Tri::new(
            [u, v, h],
            [
                u + rng.gen_range(-0.5f32..0.5),
                v + rng.gen_range(-0.5f32..0.5),
                h + 0.4,
            ],
            [
                u + rng.gen_range(-0.5f32..0.5),
                v + rng.gen_range(-0.5f32..0.5),
                h + 0.5,
            ],
        );
        let d = triangle_triangle_exact(&a, &b).dist();
        let w = within_margin(&a, &b, 0.1);
        if h <= 0.0 {
            assert_eq!(d, 0.0, "piercing vertex must intersect");
            assert_eq!(w, Within::In, "intersecting pair h={h}: {b:?}");
        } else if h < 0.099 {
            assert_eq!(w, Within::In, "vertex–face contact at {h}: {b:?}");
        } else if d > 0.1 {
            assert_ne!(w, Within::In, "pair at {d} > margin answered in");
        }
    }
}
