//! The iterative/hybrid kernels against the exact kernel on 10⁶ seeded random pairs
//! spanning the hard cases (see `common/pairs.rs`).
//!
//! Halo width `ε`, margin `2ε`. Requirements: the hybrid's contact decision equals the
//! exact one whenever the exact distance is ≤ 1.9ε or ≥ 2.1ε; for contacts, its points lie
//! within 0.1ε of the exact ones, or — where the closest points are not unique (parallel
//! faces, nearly parallel edges) — they lie on their triangles and realise the exact
//! distance to within 0.1ε. (Both pairs are then 0.1ε-optimal; the set of such pairs is
//! convex, so points more than 0.1ε apart show that it is wider than the tolerance: the
//! closest points are not unique at that resolution. These cases are counted per category.)

mod common;

use common::pairs::{pair, CATEGORIES};
use common::{d2, w};
use msdem_geom::kernel::{
    closest_point_on_triangle, triangle_triangle_exact, ClosestPair, IterativeParams, KernelKind,
    KernelResult, PairBatch, PairOutcome,
};
use msdem_geom::math::Tri;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

const EPS: f32 = 0.05;
const PAIRS: usize = 1_000_000;
const CHUNK: usize = 4096;

#[derive(Default)]
struct Tally {
    pairs: [u64; 9],
    fallbacks: [u64; 9],
    /// Contacts whose points differ from the exact ones by > 0.1ε but realise the
    /// distance, per category: [touching/intersecting (exact distance ≤ 0.1ε), separated].
    alternative_points: [[u64; 2]; 9],
    failures: Vec<String>,
}

fn dist(a: [f32; 3], b: [f32; 3]) -> f64 {
    d2(w(a), w(b)).sqrt()
}

fn check(t1: &Tri, t2: &Tri, cat: usize, got: &KernelResult, tally: &mut Tally) {
    let e = triangle_triangle_exact(t1, t2);
    let exact = (e.dist_sq as f64).sqrt();
    let eps = EPS as f64;
    let fail = |tally: &mut Tally, why: String| {
        if tally.failures.len() < 10 {
            tally
                .failures
                .push(format!("{why}: exact {exact} {t1:?} {t2:?} {got:?}"));
        } else {
            tally.failures.push(String::new());
        }
    };
    match got {
        KernelResult::NotConverged => fail(tally, "hybrid returned NotConverged".into()),
        KernelResult::Separated if exact <= 1.9 * eps => fail(tally, "missed contact".into()),
        KernelResult::Separated => {}
        KernelResult::Contact(_) if exact >= 2.1 * eps => fail(tally, "false contact".into()),
        KernelResult::Contact(c) => check_points(t1, t2, cat, c, &e, tally, fail),
    }
}

fn check_points(
    t1: &Tri,
    t2: &Tri,
    cat: usize,
    c: &ClosestPair,
    e: &ClosestPair,
    tally: &mut Tally,
    fail: impl Fn(&mut Tally, String),
) {
    let tol = 0.1 * EPS as f64;
    if dist(c.p, e.p) <= tol && dist(c.q, e.q) <= tol {
        return;
    }
    let realised = dist(c.p, c.q);
    let on1 = (closest_point_on_triangle(c.p, t1).1 as f64).sqrt();
    let on2 = (closest_point_on_triangle(c.q, t2).1 as f64).sqrt();
    let scale = 1e-6
        * (1.0
            + w(t1.v[0])
                .iter()
                .chain(&w(t2.v[0]))
                .fold(0.0f64, |m, x| m.max(x.abs())));
    if (realised - (e.dist_sq as f64).sqrt()).abs() <= tol && on1 <= scale && on2 <= scale {
        let separated = (e.dist_sq as f64).sqrt() > tol;
        tally.alternative_points[cat][separated as usize] += 1;
    } else {
        fail(
            tally,
            format!("points off: realised {realised}, on-triangle {on1} {on2}"),
        );
    }
}

#[test]
fn hybrid_agrees_with_exact_on_a_million_pairs() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5eed_2024);
    let mut batch = PairBatch::<u32>::new();
    let mut out: Vec<PairOutcome<u32>> = Vec::new();
    let mut pairs = Vec::with_capacity(CHUNK);
    let mut tally = Tally::default();
    let params = IterativeParams::default();
    let mut done = 0;
    while done < PAIRS {
        batch.clear();
        pairs.clear();
        for i in 0..CHUNK {
            let cat = (done + i) % CATEGORIES.len();
            let (t1, t2) = pair(&mut rng, cat, EPS);
            batch.push(&t1, &t2, 2.0 * EPS, cat as u32, true);
            pairs.push((t1, t2));
        }
        let stats = batch.run(KernelKind::Hybrid, &params, &mut out);
        assert_eq!(stats.not_converged, 0);
        for (o, (t1, t2)) in out.iter().zip(&pairs) {
            let cat = o.tag as usize;
            tally.pairs[cat] += 1;
            // A fallback is visible as a disagreement between iterative-only and hybrid.
            check(t1, t2, cat, &o.result, &mut tally);
        }
        let it = batch.run(KernelKind::Iterative, &params, &mut out);
        assert_eq!(it.fallbacks, 0);
        for o in &out {
            if o.result == KernelResult::NotConverged {
                tally.fallbacks[o.tag as usize] += 1;
            }
        }
        done += CHUNK;
    }
    let total: u64 = tally.pairs.iter().sum();
    let fb: u64 = tally.fallbacks.iter().sum();
    eprintln!(
        "pairs {total}, fallback rate {:.3}%",
        100.0 * fb as f64 / total as f64
    );
    for (k, name) in CATEGORIES.iter().enumerate() {
        eprintln!(
            "  {name:>20}: fallback {:.3}%, alternative points (touching, separated) {:?}",
            100.0 * tally.fallbacks[k] as f64 / tally.pairs[k] as f64,
            tally.alternative_points[k]
        );
    }
    let n = tally.failures.len();
    assert!(
        n == 0,
        "{n} failures, e.g.\n{}",
        tally.failures[..n.min(10)].join("\n")
    );
}

#[test]
fn surrogate_pairs_keep_not_converged_and_fine_pairs_fall_back() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut batch = PairBatch::<usize>::new();
    let params = IterativeParams::default();
    for i in 0..2000 {
        // Slivers and degenerate triangles: the category the closed-form start (issue 15)
        // still leaves undecided most often (~4 %; near-parallel edges, used before, no
        // longer fall back).
        let (t1, t2) = pair(&mut rng, 6, EPS);
        batch.push(&t1, &t2, 2.0 * EPS, i, i % 2 == 0);
    }
    let (mut it, mut hy) = (Vec::new(), Vec::new());
    batch.run(KernelKind::Iterative, &params, &mut it);
    let stats = batch.run(KernelKind::Hybrid, &params, &mut hy);
    let mut unconverged = 0;
    for (a, b) in it.iter().zip(&hy) {
        assert_eq!(a.tag, b.tag);
        if a.result == KernelResult::NotConverged {
            unconverged += 1;
            if a.tag % 2 == 0 {
                assert_ne!(b.result, KernelResult::NotConverged);
            } else {
                assert_eq!(b.result, KernelResult::NotConverged);
            }
        } else {
            assert_eq!(a.result, b.result);
        }
    }
    assert!(
        unconverged > 0,
        "the sliver/degenerate set should exercise the fallback"
    );
    assert_eq!(stats.fallbacks + stats.not_converged, unconverged);
}

#[test]
fn avx2_and_baseline_lanes_agree_bit_for_bit() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(99);
    let mut batch = PairBatch::<usize>::new();
    for i in 0..20_000 {
        let (t1, t2) = pair(&mut rng, i % CATEGORIES.len(), EPS);
        batch.push(&t1, &t2, 2.0 * EPS, i, true);
    }
    let sse = IterativeParams::default();
    let avx = IterativeParams {
        use_avx2: true,
        ..sse
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    batch.run(KernelKind::Iterative, &avx, &mut a);
    batch.run(KernelKind::Iterative, &sse, &mut b);
    assert_eq!(a, b);
}

#[test]
fn scalar_contact_matches_batched_lanes() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut batch = PairBatch::<usize>::new();
    let mut pairs = Vec::new();
    for i in 0..5000 {
        let (t1, t2) = pair(&mut rng, i % CATEGORIES.len(), EPS);
        batch.push(&t1, &t2, 2.0 * EPS, i, true);
        pairs.push((t1, t2));
    }
    let params = IterativeParams::default();
    let mut out = Vec::new();
    batch.run(KernelKind::Iterative, &params, &mut out);
    for (o, (t1, t2)) in out.iter().zip(&pairs) {
        let single = msdem_geom::kernel::contact(KernelKind::Iterative, t1, t2, 2.0 * EPS);
        assert_eq!(o.result, single);
    }
}

/// `PairOutcome::lower` is a lower bound of the exact distance for every kernel and every
/// pair kind — converged or not, screened or not — up to the `f32` rounding of both
/// computations (allowed: 2⁻¹⁶ of the largest coordinate plus the margin, the allowance
/// the solver's separation certificates add), and, where the iterative kernel converged,
/// within its certified gap `C·ε` of the distance.
#[test]
fn batch_lower_bounds_the_exact_distance() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
    let mut batch = PairBatch::<usize>::new();
    let mut pairs = Vec::new();
    for i in 0..40_000 {
        let (t1, t2) = pair(&mut rng, i % CATEGORIES.len(), EPS);
        batch.push(&t1, &t2, 2.0 * EPS, i, i % 3 == 0);
        pairs.push((t1, t2));
    }
    let c = IterativeParams::default().c;
    for kind in [KernelKind::Iterative, KernelKind::Hybrid, KernelKind::Exact] {
        for prescreen in [false, true] {
            let params = IterativeParams {
                prescreen,
                ..IterativeParams::default()
            };
            let mut out = Vec::new();
            batch.run(kind, &params, &mut out);
            let (mut positive, mut tight) = (0, 0);
            for o in &out {
                let (t1, t2) = &pairs[o.tag];
                let d = f64::from(triangle_triangle_exact(t1, t2).dist());
                let lower = f64::from(o.lower);
                let big =
                    t1.v.iter()
                        .chain(&t2.v)
                        .flatten()
                        .fold(0f32, |m, x| m.max(x.abs()));
                let rho = f64::from(big + 2.0 * EPS) / 65536.0;
                assert!(
                    lower <= d + rho,
                    "{kind:?} prescreen {prescreen}, pair {}: lower {lower} > distance {d}",
                    o.tag
                );
                positive += usize::from(lower > 0.0);
                if kind == KernelKind::Iterative && o.result != KernelResult::NotConverged {
                    // Converged (or proved separated beyond the margin).
                    if d <= f64::from(2.0 * EPS) {
                        assert!(d - lower <= f64::from(c * EPS) + rho, "{d} vs {lower}");
                        tight += 1;
                    }
                }
            }
            assert!(positive > 10_000, "{kind:?}: {positive} positive bounds");
            if kind == KernelKind::Iterative {
                assert!(tight > 1000, "{tight} tight bounds checked");
            }
        }
    }
}
