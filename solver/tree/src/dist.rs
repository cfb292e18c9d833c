//! Double-precision point–triangle distance used by the builder and the validator
//! (the traversal uses the `f32` kernels of `msdem-geom`).

/// A 3-vector in `f64`.
pub(crate) type V = [f64; 3];

#[inline(always)]
pub(crate) fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
#[inline(always)]
pub(crate) fn add(a: V, b: V) -> V {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
#[inline(always)]
pub(crate) fn scale(a: V, s: f64) -> V {
    [a[0] * s, a[1] * s, a[2] * s]
}
#[inline(always)]
pub(crate) fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
#[inline(always)]
pub(crate) fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
#[inline(always)]
pub(crate) fn norm(a: V) -> f64 {
    dot(a, a).sqrt()
}
#[inline(always)]
pub(crate) fn widen(p: [f32; 3]) -> V {
    [p[0] as f64, p[1] as f64, p[2] as f64]
}

/// Closest point of the segment `[a, b]` to `p` and its parameter `t` (point `a + t·(b − a)`).
fn closest_on_segment(p: V, a: V, b: V) -> (V, f64) {
    let ab = sub(b, a);
    let l2 = dot(ab, ab);
    if l2 <= 0.0 {
        return (a, 0.0);
    }
    let t = (dot(sub(p, a), ab) / l2).clamp(0.0, 1.0);
    (add(a, scale(ab, t)), t)
}

/// Closest point of triangle `t` to `p` (Voronoi-region walk; degenerate triangles fall
/// back to their three edges, so the result is finite for finite input).
pub(crate) fn closest_point(p: V, t: &[V; 3]) -> V {
    closest_point_bary(p, t).0
}

/// [`closest_point`] with the barycentric coordinates `λ` of the closest point
/// (`Σλ = 1`, `λ ≥ 0`; the point is `Σ λ_i t_i` up to rounding): the derivative of the
/// distance with respect to vertex `t_i` is `−λ_i (p − q)/|p − q|` (envelope theorem).
pub(crate) fn closest_point_bary(p: V, t: &[V; 3]) -> (V, [f64; 3]) {
    let [a, b, c] = *t;
    let ab = sub(b, a);
    let ac = sub(c, a);
    let n = cross(ab, ac);
    let n2 = dot(n, n);
    if n2 <= 1e-24 * dot(ab, ab) * dot(ac, ac) || n2 == 0.0 {
        let (q0, s0) = closest_on_segment(p, a, b);
        let (q1, s1) = closest_on_segment(p, b, c);
        let (q2, s2) = closest_on_segment(p, c, a);
        let cands = [
            (q0, [1.0 - s0, s0, 0.0]),
            (q1, [0.0, 1.0 - s1, s1]),
            (q2, [s2, 0.0, 1.0 - s2]),
        ];
        let d = |q: V| dot(sub(p, q), sub(p, q));
        let mut best = cands[0];
        for q in &cands[1..] {
            if d(q.0) < d(best.0) {
                best = *q;
            }
        }
        return best;
    }
    let ap = sub(p, a);
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, [1.0, 0.0, 0.0]);
    }
    let bp = sub(p, b);
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, [0.0, 1.0, 0.0]);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (add(a, scale(ab, v)), [1.0 - v, v, 0.0]);
    }
    let cp = sub(p, c);
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, [0.0, 0.0, 1.0]);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return (add(a, scale(ac, w)), [1.0 - w, 0.0, w]);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (add(b, scale(sub(c, b), w)), [0.0, 1.0 - w, w]);
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    (add(a, add(scale(ab, v), scale(ac, w))), [1.0 - v - w, v, w])
}

/// Distance \[m\] from `p` to triangle `t`.
pub(crate) fn point_triangle_dist(p: V, t: &[V; 3]) -> f64 {
    norm(sub(p, closest_point(p, t)))
}

/// Widens an `f32` triangle.
pub(crate) fn tri64(t: &msdem_geom::math::Tri) -> [V; 3] {
    [widen(t.v[0]), widen(t.v[1]), widen(t.v[2])]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Brute force: minimum over a fine barycentric grid (an upper bound converging to the
    /// true distance).
    fn sampled(p: V, t: &[V; 3], m: usize) -> f64 {
        let mut best = f64::INFINITY;
        for i in 0..=m {
            for j in 0..=(m - i) {
                let (u, v) = (i as f64 / m as f64, j as f64 / m as f64);
                let q = add(
                    t[0],
                    add(scale(sub(t[1], t[0]), u), scale(sub(t[2], t[0]), v)),
                );
                best = best.min(norm(sub(p, q)));
            }
        }
        best
    }

    #[test]
    fn closest_point_matches_dense_sampling_on_random_input() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let mut r = || -> V {
            [
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
            ]
        };
        for _ in 0..300 {
            let t = [r(), r(), r()];
            let p = scale(r(), 2.0);
            let d = point_triangle_dist(p, &t);
            let s = sampled(p, &t, 200);
            // The sampled minimum is ≥ d and within the grid spacing (edge/200 ≤ 0.02) of it.
            assert!(d <= s + 1e-12 && s - d < 0.02, "d {d} sampled {s}");
        }
    }

    #[test]
    fn barycentrics_reproduce_the_closest_point() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(8);
        let mut r = || -> V { std::array::from_fn(|_| rng.gen_range(-1.0..1.0)) };
        let mut tris: Vec<[V; 3]> = (0..200).map(|_| [r(), r(), r()]).collect();
        tris.push([[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]);
        for t in &tris {
            let p = scale(r(), 2.0);
            let (q, l) = closest_point_bary(p, t);
            assert!(
                l.iter().all(|&x| (-1e-12..=1.0 + 1e-12).contains(&x)),
                "{l:?}"
            );
            assert!((l.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            let from_l = add(scale(t[0], l[0]), add(scale(t[1], l[1]), scale(t[2], l[2])));
            assert!(norm(sub(from_l, q)) < 1e-12, "{q:?} vs {from_l:?}");
        }
    }

    #[test]
    fn degenerate_triangles_give_edge_distance() {
        let t = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
        assert!((point_triangle_dist([1.0, 1.0, 0.0], &t) - 1.0).abs() < 1e-15);
        let p = [[1.0, 2.0, 3.0]; 3];
        assert!((point_triangle_dist([1.0, 2.0, 4.0], &p) - 1.0).abs() < 1e-15);
    }
}
