//! Second fitting stage: shrink each surrogate's conservative halo directly.
//!
//! Eq. (6) (`fit.rs`) pulls the surrogate's *vertices* towards the children; it does not
//! see the quantity the traversal pays for, the halo `offset` = max distance from the
//! node's real vertices to the surrogate (Def. 4.3, `bounds.rs`). For an elongated node
//! the eq. (6) optimum is a small triangle near the centre whose offset is about the half
//! length (a unit-diameter sphere stretched 2.6×: offset 1.24), whereas a triangle spread
//! along the long axis reaches about the half width (seed 000 Table 1: diameter 2.36,
//! ε ≈ 0.52).
//!
//! **Objective.** With the node's distinct real vertices `v` scaled as in `fit.rs`
//! (`y = (v − c)/L`), the surrogate `T = (x₁, x₂, x₃)` minimises the volume of its
//! run-time halo region `T ⊕ B(h)`, `h = o + ε_ref` (Steiner's formula for a flat convex
//! body),
//!
//! ```text
//! J = 2·A·h + π/2·P·h² + 4π/3·h³ + α_area/2 · |(x₂ − x₁) × (x₃ − x₁)|^−2,
//! o = (mean_v d(y_v, T)^p)^(1/p)          (power mean: a smooth maximum, o → max as p → ∞)
//! ```
//!
//! `A` the area and `P` the perimeter of `T`; `ε_ref` = [`REFERENCE_HALO`] × the mesh's
//! bounding diameter stands for the mesh halo ε added at run time (docs/design.md §3 default).
//! Without it a flat patch, covered at offset 0 by any large enough triangle in its
//! plane, would have a zero objective however large the triangle (and the regulariser
//! would grow it without bound). Minimising the offset alone is not enough either:
//! the maximum distance never grows when a triangle grows, so the pure offset has flat
//! valleys in which the triangle can drift outside the shape; the volume keeps it as
//! small as the offset allows (for a sphere the optimum stays a near-point at the centre,
//! offset = radius; for the stretched sphere it is a sliver along the long axis, offset =
//! half width). The regulariser is eq. (6)'s `α_area` term, which keeps the triangle from
//! degenerating to a segment. `p` rises through `p/16`, `p/4`, `p` (continuation:
//! a low power smooths the landscape, a high one approaches the maximum), a third of
//! `refine_iterations` L-BFGS steps each. The gradient of `d(y, T)` with respect to `x_i`
//! is `−λ_i (y − q)/d` (`q = Σλ_i x_i` the closest point).
//!
//! **Subsampling.** A node with more than `fit_samples` distinct vertices runs the
//! minimisation on an even stride of `fit_samples` of them (in lexicographic order, so the
//! stride spans the node along x); the choice below still measures every vertex.
//!
//! **Starts and choice.** Three starts: the eq. (6) result; a principal-axis sliver
//! (along the largest-variance axis, ends inset by the largest distance from that axis,
//! 10 % wide), the natural start for elongated bodies; and a covering triangle in the
//! principal plane (larger than the vertices' projection), the natural start for flat
//! patches, which the other two leave in a local minimum where growing the triangle to
//! cover the last vertices costs more area than it saves offset at first. Of the eq. (6)
//! result and the three refined triangles, rounded to `f32`, the
//! one with the smallest *exact* halo volume (exact maximum distance `o`, exact `A`, `P`)
//! is kept, so the stage never makes a surrogate worse by its own measure, and ties keep
//! the eq. (6) triangle. Sequential `f64`: deterministic.

use crate::bounds::max_vertex_distance;
use crate::dist::{add, closest_point_bary, cross, dot, norm, scale, sub, tri64, V};
use crate::fit::{principal_frame, stride_sample, vert, X};
use crate::lbfgs::minimise;
use crate::params::BuildParams;
use msdem_geom::math::Tri;
use std::cell::RefCell;
use std::f64::consts::PI;

/// Reference halo width as a fraction of the mesh's bounding diameter (module docs).
pub(crate) const REFERENCE_HALO: f64 = 1e-2;

/// Halo volume `2·A·o + π/2·P·o² + 4π/3·o³` of a triangle of area `A` and perimeter `P`
/// with halo width `o`, and its derivatives with respect to `o`, `A` and `P`.
fn halo_volume(area: f64, perimeter: f64, o: f64) -> (f64, f64, f64, f64) {
    let v = 2.0 * area * o + 0.5 * PI * perimeter * o * o + 4.0 / 3.0 * PI * o * o * o;
    let dv_do = 2.0 * area + PI * perimeter * o + 4.0 * PI * o * o;
    (v, dv_do, 2.0 * o, 0.5 * PI * o * o)
}

/// Exact halo volume of `t` over `verts` (maximum distance plus `eps_ref`, exact area and
/// perimeter).
fn exact_volume(t: &[V; 3], verts: &[V], eps_ref: f64) -> f64 {
    let o = max_vertex_distance(t, verts.iter().copied()) + eps_ref;
    let w = cross(sub(t[1], t[0]), sub(t[2], t[0]));
    let per: f64 = (0..3).map(|k| norm(sub(t[(k + 1) % 3], t[k]))).sum();
    halo_volume(0.5 * norm(w), per, o).0
}

/// `r^p` for `r ∈ [0, 1]`: `log₂ p` squarings when `p` is a power of two (the default
/// powers 16, 64, 256 are), `powi` for another whole `p`, `powf` otherwise.
fn pow(r: f64, p: f64) -> f64 {
    if p.fract() == 0.0 && (1.0..=8192.0).contains(&p) {
        let k = p as u32;
        if k.is_power_of_two() {
            (0..k.trailing_zeros()).fold(r, |x, _| x * x)
        } else {
            r.powi(k as i32)
        }
    } else {
        r.powf(p)
    }
}

/// One vertex in an evaluation: distance `d` to the triangle, barycentrics of the closest
/// point, offset vector, `(d/m)^p`.
type Near = (f64, [f64; 3], V, f64);

/// The smooth objective of the module docs (scaled coordinates) and its gradient.
struct Objective<'a> {
    ys: &'a [V],
    power: f64,
    alpha_area: f64,
    /// `ε_ref` in scaled coordinates.
    eps_ref: f64,
    /// Per-vertex distance `d`, barycentrics, offset vector and `(d/m)^p` of the last
    /// evaluation (reused: an evaluation allocates nothing).
    near: RefCell<Vec<Near>>,
}

impl Objective<'_> {
    fn eval(&self, x: &X, grad: Option<&mut X>) -> f64 {
        let t = [vert(x, 0), vert(x, 1), vert(x, 2)];
        let e12 = sub(t[1], t[0]);
        let e13 = sub(t[2], t[0]);
        let w = cross(e12, e13);
        let w2 = dot(w, w);
        if w2 <= 0.0 || !w2.is_finite() {
            return f64::INFINITY;
        }
        let wn = w2.sqrt();
        let edges = [e12, sub(t[2], t[1]), sub(t[0], t[2])];
        let lens = edges.map(norm);
        let per: f64 = lens.iter().sum();
        let mut near = self.near.borrow_mut();
        near.clear();
        near.extend(self.ys.iter().map(|&y| {
            let (q, l) = closest_point_bary(y, &t);
            let r = sub(y, q);
            (norm(r), l, r, 0.0)
        }));
        let m = near.iter().map(|n| n.0).fold(0.0, f64::max);
        let n = near.len().max(1) as f64;
        let mut s = 0.0;
        if m > 0.0 {
            for e in near.iter_mut() {
                e.3 = pow(e.0 / m, self.power);
                s += e.3;
            }
        }
        let o = if m > 0.0 {
            m * (s / n).powf(1.0 / self.power)
        } else {
            0.0
        };
        let (v, dv_do, dv_da, dv_dp) = halo_volume(0.5 * wn, per, o + self.eps_ref);
        let j = v + 0.5 * self.alpha_area / w2;
        if let Some(g) = grad {
            let mut gv = [[0.0; 3]; 3];
            if m > 0.0 && s > 0.0 {
                for (d, l, r, rp) in near.iter() {
                    if *d <= 0.0 {
                        continue;
                    }
                    // ∂o/∂d = o·(d/m)^(p−1)/(m·S) = o·(d/m)^p/(d·S); ∂d/∂x_i = −λ_i r/d.
                    let c = dv_do * o * rp / (s * d * d);
                    for i in 0..3 {
                        gv[i] = add(gv[i], scale(*r, -c * l[i]));
                    }
                }
            }
            // Area (∂A/∂w = w/(2|w|)) and regulariser (∂/∂w of α/2·|w|^−2 = −α w/|w|⁴).
            let gw = add(
                scale(w, 0.5 * dv_da / wn),
                scale(w, -self.alpha_area / (w2 * w2)),
            );
            let g2 = cross(e13, gw);
            let g3 = cross(gw, e12);
            gv[1] = add(gv[1], g2);
            gv[2] = add(gv[2], g3);
            gv[0] = sub(gv[0], add(g2, g3));
            // Perimeter: edge k runs from vertex k to vertex k + 1.
            for k in 0..3 {
                if lens[k] > 0.0 {
                    let u = scale(edges[k], dv_dp / lens[k]);
                    gv[(k + 1) % 3] = add(gv[(k + 1) % 3], u);
                    gv[k] = sub(gv[k], u);
                }
            }
            for i in 0..3 {
                g[3 * i..3 * i + 3].copy_from_slice(&gv[i]);
            }
        }
        j
    }
}

/// Principal-axis sliver start (scaled coordinates; module docs).
fn sliver_start(ys: &[V]) -> X {
    let pts: Vec<[V; 3]> = ys.iter().map(|&y| [y, y, y]).collect();
    let (e1, e2) = principal_frame(&pts, [0.0; 3]);
    let (mut lo, mut hi, mut perp) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for &y in ys {
        let s = dot(y, e1);
        lo = lo.min(s);
        hi = hi.max(s);
        perp = perp.max(norm(sub(y, scale(e1, s))));
    }
    let len = (hi - lo).max(1e-9);
    let (mut a, mut b) = (lo + perp, hi - perp);
    if b - a < 0.2 * len {
        let mid = 0.5 * (lo + hi);
        (a, b) = (mid - 0.1 * len, mid + 0.1 * len);
    }
    let h = 0.05 * (b - a);
    let p = |s: f64, t: f64| add(scale(e1, s), scale(e2, t));
    let (x1, x2, x3) = (p(a, -h), p(b, -h), p(0.5 * (a + b), h));
    let mut x = [0.0; 9];
    for (i, v) in [x1, x2, x3].iter().enumerate() {
        x[3 * i..3 * i + 3].copy_from_slice(v);
    }
    x
}

/// Covering start (scaled coordinates; module docs): the affine image, in the principal
/// plane, of the equilateral triangle circumscribing the disc of radius √2, scaled by the
/// extents along the two principal axes, so that it covers the vertices' projection.
fn cover_start(ys: &[V]) -> X {
    let pts: Vec<[V; 3]> = ys.iter().map(|&y| [y, y, y]).collect();
    let (e1, e2) = principal_frame(&pts, [0.0; 3]);
    let r1 = ys.iter().map(|&y| dot(y, e1).abs()).fold(1e-9, f64::max);
    let r2 = ys.iter().map(|&y| dot(y, e2).abs()).fold(1e-9, f64::max);
    let mut x = [0.0; 9];
    for i in 0..3 {
        let th = PI / 2.0 + i as f64 * 2.0 * PI / 3.0;
        let r = 2.0 * 2f64.sqrt();
        let v = add(scale(e1, r * r1 * th.cos()), scale(e2, r * r2 * th.sin()));
        x[3 * i..3 * i + 3].copy_from_slice(&v);
    }
    x
}

/// Second stage (module docs): returns `fitted` or a triangle with a smaller exact halo
/// volume over the real triangles `tris`; `eps_ref` \[m\] is the reference halo width.
pub(crate) fn refine_surrogate(
    tris: &[[V; 3]],
    fitted: Tri,
    params: &BuildParams,
    eps_ref: f64,
) -> Tri {
    if params.refine_iterations == 0 || tris.is_empty() {
        return fitted;
    }
    let mut verts: Vec<V> = tris.iter().flatten().copied().collect();
    verts.sort_by(|a, b| {
        a[0].total_cmp(&b[0])
            .then(a[1].total_cmp(&b[1]))
            .then(a[2].total_cmp(&b[2]))
    });
    verts.dedup();
    let c = scale(
        verts.iter().fold([0.0; 3], |s, v| add(s, *v)),
        1.0 / verts.len() as f64,
    );
    let l = verts.iter().map(|v| norm(sub(*v, c))).fold(0.0, f64::max);
    if !(l > 0.0 && l.is_finite()) {
        return fitted;
    }
    let ys: Vec<V> = stride_sample(&verts, params.fit_samples)
        .map(|v| scale(sub(v, c), 1.0 / l))
        .collect();
    let to_x = |t: &Tri| -> X {
        let t = tri64(t);
        std::array::from_fn(|k| (t[k / 3][k % 3] - c[k % 3]) / l)
    };
    let to_tri = |x: &X| {
        let back = |i: usize| {
            let v = add(c, scale(vert(x, i), l));
            [v[0] as f32, v[1] as f32, v[2] as f32]
        };
        Tri::new(back(0), back(1), back(2))
    };
    let p_final = params.refine_power as f64;
    let stages = [p_final / 16.0, p_final / 4.0, p_final].map(|p| p.max(2.0));
    let per_stage = params.refine_iterations.div_ceil(3);
    let mut best = (exact_volume(&tri64(&fitted), &verts, eps_ref), fitted);
    for start in [to_x(&fitted), sliver_start(&ys), cover_start(&ys)] {
        let mut x = start;
        for &power in &stages {
            let ob = Objective {
                ys: &ys,
                power,
                alpha_area: params.alpha_area,
                eps_ref: eps_ref / l,
                near: RefCell::new(Vec::with_capacity(ys.len())),
            };
            x = minimise(&|x, g| ob.eval(x, g), x, per_stage, params.fit_tolerance);
        }
        let cand = to_tri(&x);
        let t = tri64(&cand);
        let area2 = norm(cross(sub(t[1], t[0]), sub(t[2], t[0])));
        if area2.is_nan() || area2 <= 0.0 || !t.iter().flatten().all(|v| v.is_finite()) {
            continue;
        }
        let vol = exact_volume(&t, &verts, eps_ref);
        if vol < best.0 {
            best = (vol, cand);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradient_matches_finite_differences() {
        let ys: Vec<V> = (0..40)
            .map(|i| {
                let a = i as f64 * 0.7;
                [a.cos() * 0.9, (1.3 * a).sin() * 0.4, (0.3 * a).cos() * 0.3]
            })
            .collect();
        let ob = Objective {
            ys: &ys,
            power: 8.0,
            alpha_area: 1e-3,
            eps_ref: 0.02,
            near: RefCell::default(),
        };
        let x: X = [0.1, -0.2, 0.05, 0.6, 0.1, -0.1, -0.3, 0.4, 0.2];
        let mut g = [0.0; 9];
        ob.eval(&x, Some(&mut g));
        for k in 0..9 {
            let h = 1e-6;
            let (mut xp, mut xm) = (x, x);
            xp[k] += h;
            xm[k] -= h;
            let fd = (ob.eval(&xp, None) - ob.eval(&xm, None)) / (2.0 * h);
            assert!(
                (fd - g[k]).abs() <= 1e-5 * (1.0 + fd.abs()),
                "coordinate {k}: analytic {} vs finite difference {fd}",
                g[k]
            );
        }
    }

    #[test]
    fn halo_volume_of_a_point_is_a_ball_and_of_a_disc_like_triangle_matches_steiner() {
        let (v, ..) = halo_volume(0.0, 0.0, 2.0);
        assert!((v - 4.0 / 3.0 * PI * 8.0).abs() < 1e-12);
        // Unit right triangle thickened by o: slab 2·A·o, rim π/2·P·o², corners 4π/3·o³.
        let t = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let o = 0.1;
        let p = 2.0 + 2f64.sqrt();
        let (v, ..) = halo_volume(0.5, p, o);
        assert!((v - (o + 0.5 * PI * p * o * o + 4.0 / 3.0 * PI * o.powi(3))).abs() < 1e-12);
        // The exact variant uses the true maximum distance: a vertex 0.1 above the plane.
        let verts = [[0.2, 0.2, 0.1], [0.0, 0.0, 0.0]];
        assert!((exact_volume(&t, &verts, 0.0) - v).abs() < 1e-12);
    }
}
