//! The exact `f64` oracle: every triangle pair of two meshes within a distance, by a
//! sort-and-sweep over axis-aligned boxes and an exact triangle–triangle distance written
//! here from first principles (vertex–face and edge–edge closest points, plus the points
//! where an edge crosses the other triangle's plane), sharing no code with the kernels of
//! `msdem-geom` or with parry3d.

/// A point or vector in `f64` \[m\].
pub type V = [f64; 3];
/// A triangle in `f64` \[m\].
pub type T64 = [V; 3];

fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn axpy(a: V, s: f64, d: V) -> V {
    [a[0] + s * d[0], a[1] + s * d[1], a[2] + s * d[2]]
}
fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn dist2(a: V, b: V) -> f64 {
    let d = sub(a, b);
    dot(d, d)
}

/// Squared distance from `p` to the segment `[a, b]`.
fn point_segment2(p: V, a: V, b: V) -> f64 {
    let ab = sub(b, a);
    let l2 = dot(ab, ab);
    let t = if l2 > 0.0 {
        (dot(sub(p, a), ab) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    dist2(p, axpy(a, t, ab))
}

/// Squared distance from `p` to triangle `t`: the projection onto the plane when it falls
/// inside (all three edge tests agree), otherwise the nearest edge.
fn point_triangle2(p: V, t: &T64) -> f64 {
    let n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
    let n2 = dot(n, n);
    let edges = point_segment2(p, t[0], t[1])
        .min(point_segment2(p, t[1], t[2]))
        .min(point_segment2(p, t[2], t[0]));
    if n2 == 0.0 {
        return edges;
    }
    let inside = (0..3).all(|k| dot(cross(sub(t[(k + 1) % 3], t[k]), sub(p, t[k])), n) >= 0.0);
    if inside {
        let h = dot(sub(p, t[0]), n);
        (h * h / n2).min(edges)
    } else {
        edges
    }
}

/// Squared distance between segments `[p1, q1]` and `[p2, q2]` (clamped closest
/// parameters, degenerate segments handled as points).
fn segment_segment2(p1: V, q1: V, p2: V, q2: V) -> f64 {
    let d1 = sub(q1, p1);
    let d2 = sub(q2, p2);
    let r = sub(p1, p2);
    let (a, e, f) = (dot(d1, d1), dot(d2, d2), dot(d2, r));
    if a <= 0.0 {
        return point_segment2(p1, p2, q2);
    }
    if e <= 0.0 {
        return point_segment2(p2, p1, q1);
    }
    let (b, c) = (dot(d1, d2), dot(d1, r));
    let den = a * e - b * b;
    let mut s = if den > 0.0 {
        ((b * f - c * e) / den).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    // The clamped pair is optimal; the end-point distances guard rounding at the ends.
    dist2(axpy(p1, s, d1), axpy(p2, t, d2))
        .min(point_segment2(p1, p2, q2))
        .min(point_segment2(q1, p2, q2))
}

/// Squared distance of the point where segment `[a, b]` crosses the plane of `t` to `t`
/// (infinite when it does not cross): 0 exactly when the edge pierces the triangle.
fn crossing2(a: V, b: V, t: &T64) -> f64 {
    let n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
    let (da, db) = (dot(sub(a, t[0]), n), dot(sub(b, t[0]), n));
    if (da > 0.0 && db > 0.0) || (da < 0.0 && db < 0.0) || da == db {
        return f64::INFINITY;
    }
    let p = axpy(a, da / (da - db), sub(b, a));
    point_triangle2(p, t)
}

/// Exact distance \[m\] between two triangles: the minimum over the 6 vertex–triangle and
/// 9 edge–edge distances (where the minimum of two disjoint triangles lies) and over the
/// 6 edge–plane crossings (0 where the triangles intersect; otherwise distances of real
/// point pairs, so never below the minimum).
pub fn tri_tri_dist(a: &T64, b: &T64) -> f64 {
    let mut d2 = f64::INFINITY;
    for k in 0..3 {
        d2 = d2
            .min(point_triangle2(a[k], b))
            .min(point_triangle2(b[k], a));
        for l in 0..3 {
            d2 = d2.min(segment_segment2(a[k], a[(k + 1) % 3], b[l], b[(l + 1) % 3]));
        }
        d2 = d2
            .min(crossing2(a[k], a[(k + 1) % 3], b))
            .min(crossing2(b[k], b[(k + 1) % 3], a));
    }
    d2.sqrt()
}

fn bbox(t: &T64) -> (V, V) {
    let lo = [0, 1, 2].map(|k| t[0][k].min(t[1][k]).min(t[2][k]));
    let hi = [0, 1, 2].map(|k| t[0][k].max(t[1][k]).max(t[2][k]));
    (lo, hi)
}

/// Every pair `(i, j, distance)` of `a[i]`, `b[j]` (both in one frame) with distance
/// ≤ `within` \[m\], sorted by `(i, j)`: boxes grown by `within` must overlap (a necessary
/// condition, found through a uniform grid over B's boxes), then the exact distance
/// decides.
pub fn near_pairs(a: &[T64], b: &[T64], within: f64) -> Vec<(u32, u32, f64)> {
    let bb: Vec<(V, V)> = b.iter().map(bbox).collect();
    let mean = bb
        .iter()
        .map(|(l, h)| (0..3).map(|k| h[k] - l[k]).fold(0.0, f64::max))
        .sum::<f64>()
        / bb.len().max(1) as f64;
    let h = (2.0 * mean).max(within).max(1e-9);
    let cell = |x: f64| (x / h).floor() as i64;
    let mut grid: std::collections::HashMap<[i64; 3], Vec<u32>> = Default::default();
    for (j, (lo, hi)) in bb.iter().enumerate() {
        for x in cell(lo[0])..=cell(hi[0]) {
            for y in cell(lo[1])..=cell(hi[1]) {
                for z in cell(lo[2])..=cell(hi[2]) {
                    grid.entry([x, y, z]).or_default().push(j as u32);
                }
            }
        }
    }
    let mut seen = vec![u32::MAX; b.len()];
    let mut out = Vec::new();
    for (i, ta) in a.iter().enumerate() {
        let (alo, ahi) = bbox(ta);
        let (lo, hi) = (alo.map(|x| x - within), ahi.map(|x| x + within));
        for x in cell(lo[0])..=cell(hi[0]) {
            for y in cell(lo[1])..=cell(hi[1]) {
                for z in cell(lo[2])..=cell(hi[2]) {
                    let Some(js) = grid.get(&[x, y, z]) else {
                        continue;
                    };
                    for &j in js {
                        if seen[j as usize] == i as u32 {
                            continue;
                        }
                        seen[j as usize] = i as u32;
                        let (blo, bhi) = bb[j as usize];
                        if (0..3).any(|k| blo[k] > hi[k] || lo[k] > bhi[k]) {
                            continue;
                        }
                        let d = tri_tri_dist(ta, &b[j as usize]);
                        if d <= within {
                            out.push((i as u32, j, d));
                        }
                    }
                }
            }
        }
    }
    out.sort_by_key(|p| (p.0, p.1));
    out
}
