//! Independent references for the kernel tests: brute-force sampling in `f64`.
#![allow(dead_code)]

pub mod pairs;

use msdem_geom::math::{Tri, P32};

/// `f64` point.
pub type D3 = [f64; 3];

/// Widens a point.
pub fn w(p: P32) -> D3 {
    [p[0] as f64, p[1] as f64, p[2] as f64]
}

/// Squared distance in `f64`.
pub fn d2(a: D3, b: D3) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)
}

/// Points of a barycentric grid with `n` subdivisions per edge (vertices included).
pub fn grid(t: &Tri, n: usize) -> Vec<D3> {
    let [a, b, c] = [w(t.v[0]), w(t.v[1]), w(t.v[2])];
    let mut out = Vec::with_capacity((n + 1) * (n + 2) / 2);
    for i in 0..=n {
        for j in 0..=(n - i) {
            let u = i as f64 / n as f64;
            let v = j as f64 / n as f64;
            out.push([
                a[0] + u * (b[0] - a[0]) + v * (c[0] - a[0]),
                a[1] + u * (b[1] - a[1]) + v * (c[1] - a[1]),
                a[2] + u * (b[2] - a[2]) + v * (c[2] - a[2]),
            ]);
        }
    }
    out
}

/// Longest edge of a triangle [m].
pub fn max_edge(t: &Tri) -> f64 {
    let v = t.v.map(w);
    (0..3)
        .map(|i| d2(v[i], v[(i + 1) % 3]).sqrt())
        .fold(0.0, f64::max)
}

/// Largest distance from a point of the triangle to the nearest grid point (upper bound):
/// a grid cell is a triangle with edges ≤ longest edge / n, so its circumradius bounds it
/// only for non-obtuse cells; the cell diameter is the safe bound used here.
pub fn grid_spacing(t: &Tri, n: usize) -> f64 {
    max_edge(t) / n as f64
}

/// Minimum sampled distance between two triangles (an upper bound on the true distance).
pub fn sampled_dist(t1: &Tri, t2: &Tri, n: usize) -> f64 {
    let g1 = grid(t1, n);
    let g2 = grid(t2, n);
    let mut best = f64::INFINITY;
    for p in &g1 {
        for q in &g2 {
            best = best.min(d2(*p, *q));
        }
    }
    best.sqrt()
}

/// Minimum sampled distance from a point to a triangle.
pub fn sampled_point_dist(p: D3, t: &Tri, n: usize) -> f64 {
    grid(t, n)
        .iter()
        .map(|q| d2(p, *q))
        .fold(f64::INFINITY, f64::min)
        .sqrt()
}

/// Minimum sampled distance between two segments (`n` samples each).
pub fn sampled_seg_dist(p0: P32, p1: P32, q0: P32, q1: P32, n: usize) -> f64 {
    let lerp = |a: D3, b: D3, s: f64| {
        [
            a[0] + s * (b[0] - a[0]),
            a[1] + s * (b[1] - a[1]),
            a[2] + s * (b[2] - a[2]),
        ]
    };
    let (p0, p1, q0, q1) = (w(p0), w(p1), w(q0), w(q1));
    let mut best = f64::INFINITY;
    for i in 0..=n {
        let p = lerp(p0, p1, i as f64 / n as f64);
        for j in 0..=n {
            let q = lerp(q0, q1, j as f64 / n as f64);
            best = best.min(d2(p, q));
        }
    }
    best.sqrt()
}
