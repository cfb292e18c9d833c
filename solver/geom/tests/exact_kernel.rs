//! The comparison-based kernel and its primitives against brute-force sampling and
//! hand-computed cases.

mod common;

use common::*;
use msdem_geom::kernel::{
    closest_point_on_triangle, closest_points_segments, contact, triangle_triangle_exact,
    KernelKind, KernelResult,
};
use msdem_geom::math::{Tri, P32};
use proptest::prelude::*;

const N: usize = 40;

fn tri(a: P32, b: P32, c: P32) -> Tri {
    Tri::new(a, b, c)
}

/// Checks the exact result against sampling: sampled ≥ exact (the sampled pairs lie on the
/// triangles), sampled ≤ exact + grid error, and the returned points lie on their triangles
/// and realise the returned distance.
fn check_against_sampling(t1: &Tri, t2: &Tri) -> Result<(), TestCaseError> {
    let c = triangle_triangle_exact(t1, t2);
    let exact = (c.dist_sq as f64).sqrt();
    let scale = max_edge(t1).max(max_edge(t2)).max(1e-3);
    let sampled = sampled_dist(t1, t2, N);
    let h = grid_spacing(t1, N) + grid_spacing(t2, N);
    let tol = 1e-5 * scale;
    prop_assert!(
        exact <= sampled + tol,
        "exact {exact} > sampled {sampled} for {t1:?} {t2:?}"
    );
    prop_assert!(
        sampled <= exact + h + tol,
        "sampled {sampled} > exact {exact} + {h} for {t1:?} {t2:?}"
    );
    let realised = d2(w(c.p), w(c.q)).sqrt();
    prop_assert!(
        (realised - exact).abs() <= tol,
        "points realise {realised} ≠ {exact}"
    );
    prop_assert!(sampled_point_dist(w(c.p), t1, N) <= grid_spacing(t1, N) + tol);
    prop_assert!(sampled_point_dist(w(c.q), t2, N) <= grid_spacing(t2, N) + tol);
    Ok(())
}

fn coord() -> impl Strategy<Value = f32> {
    -2.0f32..2.0
}

fn point() -> impl Strategy<Value = P32> {
    [coord(), coord(), coord()]
}

fn any_tri() -> impl Strategy<Value = Tri> {
    [point(), point(), point()].prop_map(|v| Tri { v })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn exact_matches_sampling_random(t1 in any_tri(), t2 in any_tri()) {
        check_against_sampling(&t1, &t2)?;
    }

    #[test]
    fn exact_matches_sampling_near_parallel(
        t1 in any_tri(),
        shift in point(),
        gap in 0.0f32..0.3,
        tilt in -0.01f32..0.01,
    ) {
        // t2 = t1 shifted in-plane, lifted along the normal by `gap`, one vertex tilted.
        let n = normal(&t1);
        let mut t2 = t1;
        for (k, v) in t2.v.iter_mut().enumerate() {
            let lift = gap + if k == 0 { tilt } else { 0.0 };
            for i in 0..3 {
                v[i] += 0.3 * shift[i] - 0.3 * n[i] * dot(shift, n) + lift * n[i];
            }
        }
        check_against_sampling(&t1, &t2)?;
    }

    #[test]
    fn exact_matches_sampling_size_ratio(
        t1 in any_tri(),
        small in any_tri(),
        offset in point(),
    ) {
        // A triangle 1000× smaller than the other, placed near it.
        let mut t2 = small;
        for v in t2.v.iter_mut() {
            for i in 0..3 {
                v[i] = v[i] * 1e-3 + 0.5 * offset[i];
            }
        }
        let t1b = Tri { v: t1.v.map(|p| p.map(|x| x * 1.0)) };
        check_against_sampling(&t1b, &t2)?;
    }

    #[test]
    fn point_triangle_matches_sampling(p in point(), t in any_tri()) {
        let (c, d) = closest_point_on_triangle(p, &t);
        let exact = (d as f64).sqrt();
        let sampled = sampled_point_dist(w(p), &t, 60);
        let tol = 1e-5 * max_edge(&t).max(1.0);
        prop_assert!(exact <= sampled + tol);
        prop_assert!(sampled <= exact + grid_spacing(&t, 60) + tol);
        prop_assert!((d2(w(c), w(p)).sqrt() - exact).abs() <= tol);
        prop_assert!(sampled_point_dist(w(c), &t, 60) <= grid_spacing(&t, 60) + tol);
    }

    #[test]
    fn segments_match_sampling(p0 in point(), p1 in point(), q0 in point(), q1 in point()) {
        let (a, b, d) = closest_points_segments(p0, p1, q0, q1);
        let exact = (d as f64).sqrt();
        let n = 400;
        let sampled = sampled_seg_dist(p0, p1, q0, q1, n);
        let h = (d2(w(p0), w(p1)).sqrt() + d2(w(q0), w(q1)).sqrt()) / n as f64;
        prop_assert!(exact <= sampled + 1e-5);
        prop_assert!(sampled <= exact + h + 1e-5);
        prop_assert!((d2(w(a), w(b)).sqrt() - exact).abs() <= 1e-5);
    }

    #[test]
    fn degenerate_triangles_never_nan(
        a in point(), b in point(), s in -1.0f32..2.0, t2 in any_tri(), p in point()
    ) {
        // Collinear (c on line ab), point-like and two-coincident-vertex triangles.
        let c = [a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1]), a[2] + s * (b[2] - a[2])];
        for t1 in [tri(a, b, c), tri(a, a, a), tri(a, a, b), tri(a, b, b)] {
            let (q, d) = closest_point_on_triangle(p, &t1);
            prop_assert!(d.is_finite() && q.iter().all(|x| x.is_finite()));
            check_against_sampling(&t1, &t2)?;
        }
    }
}

fn dot(a: P32, b: P32) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn normal(t: &Tri) -> P32 {
    let [a, b, c] = t.v;
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let l = dot(n, n).sqrt().max(1e-20);
    n.map(|x| x / l)
}

fn assert_close(a: P32, b: P32, tol: f32) {
    for i in 0..3 {
        assert!((a[i] - b[i]).abs() <= tol, "{a:?} vs {b:?}");
    }
}

#[test]
fn parallel_faces_distance_is_gap() {
    let t1 = tri([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let t2 = tri([0.1, 0.1, 0.25], [0.6, 0.1, 0.25], [0.1, 0.6, 0.25]);
    let c = triangle_triangle_exact(&t1, &t2);
    assert!((c.dist() - 0.25).abs() < 1e-6);
    assert!((c.q[2] - 0.25).abs() < 1e-6 && c.p[2].abs() < 1e-6);
    assert!((c.p[0] - c.q[0]).abs() < 1e-6 && (c.p[1] - c.q[1]).abs() < 1e-6);
}

#[test]
fn coplanar_overlapping_is_zero() {
    let t1 = tri([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let t2 = tri([0.2, 0.2, 0.0], [1.2, 0.2, 0.0], [0.2, 1.2, 0.0]);
    let c = triangle_triangle_exact(&t1, &t2);
    assert_eq!(c.dist_sq, 0.0);
    // One triangle strictly inside the other (no edge crossings).
    let t3 = tri([0.1, 0.1, 0.0], [0.2, 0.1, 0.0], [0.1, 0.2, 0.0]);
    assert_eq!(triangle_triangle_exact(&t1, &t3).dist_sq, 0.0);
}

#[test]
fn touching_at_a_vertex_is_zero() {
    let t1 = tri([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let t2 = tri([1.0, 0.0, 0.0], [2.0, 0.0, 1.0], [2.0, 1.0, 1.0]);
    let c = triangle_triangle_exact(&t1, &t2);
    assert_eq!(c.dist_sq, 0.0);
    assert_close(c.p, [1.0, 0.0, 0.0], 1e-7);
    assert_close(c.q, [1.0, 0.0, 0.0], 1e-7);
}

#[test]
fn edge_edge_crossing_at_height() {
    // t1 edge along x at z = 0 (body below), t2 edge along y at z = 0.3 (body above).
    let t1 = tri([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]);
    let t2 = tri([0.2, -1.0, 0.3], [0.2, 1.0, 0.3], [0.2, 0.0, 1.3]);
    let c = triangle_triangle_exact(&t1, &t2);
    assert!((c.dist() - 0.3).abs() < 1e-6);
    assert_close(c.p, [0.2, 0.0, 0.0], 1e-6);
    assert_close(c.q, [0.2, 0.0, 0.3], 1e-6);
}

#[test]
fn intersecting_triangles_give_common_point() {
    let t1 = tri([0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]);
    // Pierces t1's interior; none of t2's vertices is close to t1, no edge–edge contact.
    let t2 = tri([0.5, 0.5, -1.0], [0.6, 0.5, 1.0], [0.5, 0.6, 1.0]);
    let c = triangle_triangle_exact(&t1, &t2);
    assert_eq!(c.dist_sq, 0.0);
    assert_eq!(c.p, c.q);
    assert!(closest_point_on_triangle(c.p, &t1).1 < 1e-12);
    assert!(closest_point_on_triangle(c.p, &t2).1 < 1e-12);
    assert!(matches!(
        contact(KernelKind::Exact, &t1, &t2, 0.0),
        KernelResult::Contact(_)
    ));
}

#[test]
fn degenerate_and_sliver_cases() {
    let t1 = tri([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    // A point-triangle 0.5 above the face.
    let pt = tri([0.2, 0.2, 0.5], [0.2, 0.2, 0.5], [0.2, 0.2, 0.5]);
    assert!((triangle_triangle_exact(&t1, &pt).dist() - 0.5).abs() < 1e-6);
    // A segment-triangle lying above the face at height 0.1.
    let seg = tri([0.1, 0.1, 0.1], [0.3, 0.3, 0.1], [0.2, 0.2, 0.1]);
    assert!((triangle_triangle_exact(&t1, &seg).dist() - 0.1).abs() < 1e-6);
    // A sliver (height 1e-6) standing 0.2 above the face, vertical.
    let sliver = tri([0.1, 0.1, 0.2], [0.1, 0.1, 1.2], [0.1 + 1e-6, 0.1, 0.7]);
    assert!((triangle_triangle_exact(&t1, &sliver).dist() - 0.2).abs() < 1e-6);
    // Point queries against a degenerate triangle.
    let (q, d) = closest_point_on_triangle(
        [0.5, 1.0, 0.0],
        &tri([0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]),
    );
    assert!((d - 1.0).abs() < 1e-6);
    assert_close(q, [0.5, 0.0, 0.0], 1e-6);
}

#[test]
fn size_ratio_one_to_thousand() {
    let big = tri(
        [-1000.0, -1000.0, 0.0],
        [1000.0, -1000.0, 0.0],
        [0.0, 1000.0, 0.0],
    );
    let small = tri([0.0, 0.0, 0.5], [1.0, 0.0, 0.5], [0.0, 1.0, 1.5]);
    let c = triangle_triangle_exact(&big, &small);
    assert!((c.dist() - 0.5).abs() < 1e-4);
    assert_close(c.q, [0.0, 0.0, 0.5], 1e-4);
    assert_close(c.p, [0.0, 0.0, 0.0], 1e-4);
    let c = triangle_triangle_exact(&small, &big);
    assert!((c.dist() - 0.5).abs() < 1e-4);
}

#[test]
fn parallel_and_zero_length_segments() {
    let (a, b, d) =
        closest_points_segments([0.0; 3], [1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [2.0, 1.0, 0.0]);
    assert!((d - 1.0).abs() < 1e-6);
    assert!((a[0] - b[0]).abs() < 1e-6 && a[0] >= 0.5 - 1e-6 && a[0] <= 1.0 + 1e-6);
    let (a, b, d) =
        closest_points_segments([0.0; 3], [1.0, 0.0, 0.0], [3.0, 1.0, 0.0], [2.0, 1.0, 0.0]);
    assert!((d - 2.0).abs() < 1e-6);
    assert_close(a, [1.0, 0.0, 0.0], 1e-6);
    assert_close(b, [2.0, 1.0, 0.0], 1e-6);
    let (a, b, d) =
        closest_points_segments([0.5, 2.0, 0.0], [0.5, 2.0, 0.0], [0.0; 3], [1.0, 0.0, 0.0]);
    assert!((d - 4.0).abs() < 1e-6);
    assert_close(a, [0.5, 2.0, 0.0], 0.0);
    assert_close(b, [0.5, 0.0, 0.0], 1e-6);
    let (_, _, d) = closest_points_segments([1.0; 3], [1.0; 3], [1.0; 3], [1.0; 3]);
    assert_eq!(d, 0.0);
}

#[test]
fn contact_decision_uses_margin() {
    let t1 = tri([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let t2 = tri([0.1, 0.1, 0.02], [0.6, 0.1, 0.02], [0.1, 0.6, 0.02]);
    for kind in [KernelKind::Exact, KernelKind::Hybrid] {
        assert!(matches!(
            contact(kind, &t1, &t2, 0.021),
            KernelResult::Contact(_)
        ));
        assert_eq!(contact(kind, &t1, &t2, 0.019), KernelResult::Separated);
    }
}
