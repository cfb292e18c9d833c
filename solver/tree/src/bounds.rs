//! Conservative outer offsets and inner distances of a surrogate (Def. 4.3; poster §4).
//!
//! **Outer offset.** A node's `offset` is the largest exact distance from any *real* mesh
//! vertex in its subtree to its surrogate triangle. The distance to a triangle is convex, so
//! every point of every real triangle below lies within `offset` of the surrogate, hence
//! `real^ε ⊆ surrogate^(offset+ε)` for every ε: the surrogate is conservative (Def. 4.3),
//! which is all the traversal's correctness argument (Lemma 5.1) needs. This is tighter
//! than the recursive rule `ε_s = d + ε_child` of docs/design.md §5 (which adds up the
//! approximation errors of every level between the node and the leaves); the recursive
//! variant is computed for comparison in [`crate::stats`].
//!
//! **Inner distance.** `inner` = h, an upper bound of the one-sided distance from the
//! surrogate triangle to the real triangles below it: `max over surrogate points s of
//! min over real triangles t of d(s, t)`. It is evaluated on a barycentric grid of `m`
//! subdivisions and the grid's covering radius is added: every point of the surrogate lies
//! in a grid sub-triangle whose longest edge is `ℓ/m` (`ℓ` the surrogate's longest edge),
//! hence within `ℓ/m` of a sample, and the distance to the real geometry is 1-Lipschitz.
//! At run time `E = ε − h`: a point within `E` of the surrogate is within ε of the real
//! geometry (when `E > 0`).
//!
//! Both values are computed in `f64` and rounded *up* to `f32`.

use crate::dist::{add, dot, norm, point_triangle_dist, scale, sub, V};

/// Smallest `f32` that is ≥ `x` (for finite, non-negative `x`).
pub(crate) fn round_up(x: f64) -> f32 {
    let f = x as f32;
    if (f as f64) < x {
        f32::from_bits(f.to_bits() + 1)
    } else {
        f
    }
}

/// Exact outer offset \[m\]: max distance from `verts` to the surrogate `s` (exact `f64`
/// value, before rounding).
pub(crate) fn max_vertex_distance(s: &[V; 3], verts: impl Iterator<Item = V>) -> f64 {
    verts.map(|v| point_triangle_dist(v, s)).fold(0.0, f64::max)
}

/// Longest edge of a triangle \[m\].
pub(crate) fn longest_edge(t: &[V; 3]) -> f64 {
    (0..3)
        .map(|i| norm(sub(t[(i + 1) % 3], t[i])))
        .fold(0.0, f64::max)
}

/// Inner distance h \[m\] of surrogate `s` over the real triangles `reals`, sampled with `m`
/// barycentric subdivisions plus the covering-radius bound (module docs).
///
/// Each sample's nearest real triangle is found by a scan that starts at the previous
/// sample's nearest one and skips a triangle whose bounding sphere (centroid, largest
/// vertex distance) lies farther than the best distance so far; the minimum is exact.
pub(crate) fn inner_distance(s: &[V; 3], reals: &[[V; 3]], m: u32) -> f64 {
    let m = m.max(1);
    let e1 = sub(s[1], s[0]);
    let e2 = sub(s[2], s[0]);
    let spheres: Vec<(V, f64)> = reals
        .iter()
        .map(|t| {
            let c = scale(add(add(t[0], t[1]), t[2]), 1.0 / 3.0);
            let r = t.iter().map(|v| norm(sub(*v, c))).fold(0.0, f64::max);
            (c, r)
        })
        .collect();
    let n = reals.len();
    let mut worst: f64 = 0.0;
    let mut start = 0;
    for i in 0..=m {
        for j in 0..=(m - i) {
            let p = add(
                s[0],
                add(
                    scale(e1, i as f64 / m as f64),
                    scale(e2, j as f64 / m as f64),
                ),
            );
            let mut best = f64::INFINITY;
            let mut best_at = start;
            for k in 0..n {
                let t = (start + k) % n;
                let (c, r) = spheres[t];
                let d = sub(p, c);
                let reach = best + r;
                if dot(d, d) > reach * reach {
                    continue;
                }
                let dt = point_triangle_dist(p, &reals[t]);
                if dt < best {
                    best = dt;
                    best_at = t;
                }
                if best <= worst {
                    // This sample cannot raise the maximum any more.
                    break;
                }
            }
            start = best_at;
            worst = worst.max(best);
        }
    }
    worst + longest_edge(s) / m as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_up_never_rounds_down() {
        for x in [0.1f64, 1.0 / 3.0, 1e-30, 12345.678901234, 0.0, 2.0] {
            let f = round_up(x);
            assert!(f as f64 >= x);
            assert!(((f as f64) - x) <= (x * f32::EPSILON as f64));
        }
    }

    #[test]
    fn inner_distance_bounds_the_dense_truth() {
        // Surrogate hovering 0.25 above a unit square made of two triangles.
        let reals = [
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
            [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
        ];
        let s = [[0.2, 0.2, 0.25], [1.5, 0.2, 0.25], [0.2, 0.9, 0.25]];
        let h = inner_distance(&s, &reals, 8);
        // Dense truth: vertex (1.5, 0.2) is 0.5 outside the square horizontally.
        let truth = (0.5f64 * 0.5 + 0.25 * 0.25).sqrt();
        assert!(h >= truth, "h {h} truth {truth}");
        assert!(h <= truth + longest_edge(&s) / 8.0 + 1e-12);
        let fine = inner_distance(&s, &reals, 256);
        assert!(fine >= truth && fine < truth + 0.01);
    }

    #[test]
    fn pruned_scan_equals_the_brute_force_maximum_of_minima() {
        // Many small random triangles around a random surrogate: the pruned, rotated scan
        // must return exactly the brute-force max-min over the same samples.
        let mut state = 12345u64;
        let mut rnd = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let reals: Vec<[V; 3]> = (0..300)
            .map(|_| {
                let c = [rnd() * 4.0, rnd() * 4.0, rnd()];
                [0, 1, 2].map(|_| add(c, [rnd() * 0.3, rnd() * 0.3, rnd() * 0.3]))
            })
            .collect();
        let s = [[-1.5, -1.0, 0.2], [1.8, -0.5, -0.1], [0.1, 1.7, 0.3]];
        let m = 12;
        let mut brute: f64 = 0.0;
        for i in 0..=m {
            for j in 0..=(m - i) {
                let p = add(
                    s[0],
                    add(
                        scale(sub(s[1], s[0]), i as f64 / m as f64),
                        scale(sub(s[2], s[0]), j as f64 / m as f64),
                    ),
                );
                let best = reals
                    .iter()
                    .map(|t| point_triangle_dist(p, t))
                    .fold(f64::INFINITY, f64::min);
                brute = brute.max(best);
            }
        }
        let h = inner_distance(&s, &reals, m);
        assert_eq!(h, brute + longest_edge(&s) / m as f64);
    }
}
