//! Fitting one surrogate triangle by minimising eq. (6) of seed 000 (App. A).
//!
//! For the node's real triangles `t` (outer normals `N_t`) and surrogate vertices
//! `x_1, x_2, x_3`, with all coordinates scaled as `y = (x − c) / L` (`c` the mean of the
//! node's vertices, `L` their largest distance from `c`, so every weight is scale-free):
//!
//! ```text
//! J = 1/β_size · mean_t Σ_i d(y_i, t)^β_size                      (size, ≈ minimax)
//!   + α_area / 2 · |(y_2 − y_1) × (y_3 − y_1)|^−2                  (anti-degeneration)
//!   + α_inside / β_normal · mean_t Σ_i max(0, (y_i − v_t)·N_t)^β_normal   (outer normals)
//! ```
//!
//! Deviations from the paper's plain sums, documented: the sums over triangles are means,
//! so that the weights do not depend on the node's triangle count; and the outer-normal
//! penalty uses each child triangle's own outer normal `N_t` (it penalises a surrogate
//! vertex lying outside the plane of a child triangle, keeping the surrogate nestled inside
//! the surface), which is zero for the paper's sphere examples where the coarsest surrogate
//! shrinks to the centre (Table 1). `v_t` is any vertex of `t` (all give the same value).
//!
//! Start: an equilateral triangle of circumradius `L/2` centred at `c` in the principal
//! plane of the node's vertices (the two largest-variance axes), oriented so that its
//! normal agrees with the area-weighted mean outer normal.
//!
//! Subsampling: a node with more than `fit_samples` real triangles is fitted to an even
//! stride of `fit_samples` of them (`c` and `L` still come from all vertices); eq. (6) is a
//! mean over triangles, which a stride over the depth-first ordered triangles estimates
//! well, and the fit is only the first guess of the refinement, whose final choice and
//! the offsets use every vertex.
//!
//! Optimiser: L-BFGS (`lbfgs.rs`), at most `fit_iterations` iterations, stopping early
//! below `fit_tolerance` relative progress. Everything is
//! sequential `f64`, so the result is deterministic. A second stage (`refine.rs`) may
//! replace the result by a triangle with a smaller halo.

use crate::dist::{add, closest_point, cross, dot, norm, scale, sub, V};
use crate::lbfgs::minimise;
use crate::params::BuildParams;
use msdem_geom::math::{Mat3, Tri};

/// Node data in scaled coordinates.
struct Problem<'a> {
    tris: Vec<[V; 3]>,
    normals: Vec<V>,
    p: &'a BuildParams,
}

pub(crate) use crate::lbfgs::X;

/// Vertex `i` of a packed triangle.
pub(crate) fn vert(x: &X, i: usize) -> V {
    [x[3 * i], x[3 * i + 1], x[3 * i + 2]]
}

impl Problem<'_> {
    /// Objective value and gradient (`None` gradient evaluation when only J is needed).
    fn eval(&self, x: &X, grad: Option<&mut X>) -> f64 {
        let p = self.p;
        let inv_n = 1.0 / self.tris.len() as f64;
        let bs = p.beta_size as i32;
        let bn = p.beta_normal as i32;
        let mut j = 0.0;
        let mut g = [0.0; 9];
        for i in 0..3 {
            let y = vert(x, i);
            let mut gi = [0.0; 3];
            for (t, n) in self.tris.iter().zip(&self.normals) {
                let r = sub(y, closest_point(y, t));
                let d2 = dot(r, r);
                // d^β / β, gradient d^(β−2) · r.
                let dbm2 = d2.powi(bs / 2 - 1);
                j += dbm2 * d2 / p.beta_size as f64 * inv_n;
                gi = add(gi, scale(r, dbm2 * inv_n));
                let h = dot(sub(y, t[0]), *n);
                if h > 0.0 && p.alpha_inside > 0.0 {
                    let hb1 = h.powi(bn - 1);
                    j += p.alpha_inside / p.beta_normal as f64 * hb1 * h * inv_n;
                    gi = add(gi, scale(*n, p.alpha_inside * hb1 * inv_n));
                }
            }
            g[3 * i..3 * i + 3].copy_from_slice(&gi);
        }
        let (y1, y2, y3) = (vert(x, 0), vert(x, 1), vert(x, 2));
        let e12 = sub(y2, y1);
        let e13 = sub(y3, y1);
        let w = cross(e12, e13);
        let a2 = dot(w, w);
        if a2 <= 0.0 || !a2.is_finite() {
            return f64::INFINITY;
        }
        j += 0.5 * p.alpha_area / a2;
        if let Some(out) = grad {
            // ∂/∂w of α/2·|w|^−2 is −α·w/|w|⁴; chain rule through w = e12 × e13.
            let gw = scale(w, -p.alpha_area / (a2 * a2));
            let g2 = cross(e13, gw);
            let g3 = cross(gw, e12);
            let g1 = scale(add(g2, g3), -1.0);
            for (i, gv) in [g1, g2, g3].iter().enumerate() {
                for k in 0..3 {
                    g[3 * i + k] += gv[k];
                }
            }
            *out = g;
        }
        j
    }
}

/// Fits the surrogate triangle of a node whose real triangles are `tris` (eq. (6), see the
/// module docs). Never fails: degenerate input yields a small triangle at the centroid.
pub(crate) fn fit_surrogate(tris: &[[V; 3]], params: &BuildParams) -> Tri {
    let nverts = (3 * tris.len()).max(1) as f64;
    let c = scale(
        tris.iter().flatten().fold([0.0; 3], |a, v| add(a, *v)),
        1.0 / nverts,
    );
    let l = tris
        .iter()
        .flatten()
        .map(|v| norm(sub(*v, c)))
        .fold(0.0, f64::max);
    let l = if l > 0.0 && l.is_finite() { l } else { 1.0 };
    let scaled: Vec<[V; 3]> = stride_sample(tris, params.fit_samples)
        .map(|t| t.map(|v| scale(sub(v, c), 1.0 / l)))
        .collect();
    let mut mean_normal = [0.0; 3];
    let normals: Vec<V> = scaled
        .iter()
        .map(|t| {
            let n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
            mean_normal = add(mean_normal, n);
            let len = norm(n);
            if len > 0.0 {
                scale(n, 1.0 / len)
            } else {
                [0.0; 3]
            }
        })
        .collect();
    let (e1, e2) = principal_frame(&scaled, mean_normal);
    let start: X = {
        let mut x = [0.0; 9];
        for i in 0..3 {
            let th = i as f64 * 2.0 * std::f64::consts::PI / 3.0;
            let v = add(scale(e1, 0.5 * th.cos()), scale(e2, 0.5 * th.sin()));
            x[3 * i..3 * i + 3].copy_from_slice(&v);
        }
        x
    };
    let pb = Problem {
        tris: scaled,
        normals,
        p: params,
    };
    let x = minimise(
        &|x, g| pb.eval(x, g),
        start,
        params.fit_iterations,
        params.fit_tolerance,
    );
    let back = |i: usize| {
        let v = add(c, scale(vert(&x, i), l));
        [v[0] as f32, v[1] as f32, v[2] as f32]
    };
    Tri::new(back(0), back(1), back(2))
}

/// At most `cap` items of `items` at an even stride (`cap` = 0: all of them), in order:
/// item `⌊i·n/cap⌋` for `i < cap`. The node's triangles are in depth-first leaf order, so
/// the stride visits every part of the node.
pub(crate) fn stride_sample<T: Copy>(items: &[T], cap: u32) -> impl Iterator<Item = T> + '_ {
    let n = items.len();
    let m = if cap == 0 { n } else { n.min(cap as usize) };
    (0..m).map(move |i| items[i * n / m.max(1)])
}

/// Two orthonormal in-plane axes `(e1, e2)` of the principal plane of the vertices, with
/// `e1 × e2` along the mean outer normal when that is well defined.
pub(crate) fn principal_frame(tris: &[[V; 3]], mean_normal: V) -> (V, V) {
    let mut cov = Mat3::zeros();
    for v in tris.iter().flatten() {
        for r in 0..3 {
            for s in 0..3 {
                cov[(r, s)] += v[r] * v[s];
            }
        }
    }
    let eig = cov.symmetric_eigen();
    let mut order = [0usize, 1, 2];
    order.sort_by(|&a, &b| {
        eig.eigenvalues[b]
            .total_cmp(&eig.eigenvalues[a])
            .then(a.cmp(&b))
    });
    let col = |k: usize| {
        let c = eig.eigenvectors.column(order[k]);
        [c[0], c[1], c[2]]
    };
    let e1 = col(0);
    let mut e3 = col(2);
    let mn = norm(mean_normal);
    if mn > 1e-9 && dot(e3, mean_normal) < 0.0 {
        e3 = scale(e3, -1.0);
    }
    let e2 = cross(e3, e1);
    let finite = e1.iter().chain(&e2).all(|v| v.is_finite()) && norm(e2) > 0.5;
    if finite {
        (e1, e2)
    } else {
        ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::{point_triangle_dist, tri64};

    /// Closed octahedron of circumradius `r` at `c` (outward orientation).
    fn octahedron(c: V, r: f64) -> Vec<[V; 3]> {
        let p = |x: f64, y: f64, z: f64| add(c, [x * r, y * r, z * r]);
        let (px, nx, py, ny, pz, nz) = (
            p(1.0, 0.0, 0.0),
            p(-1.0, 0.0, 0.0),
            p(0.0, 1.0, 0.0),
            p(0.0, -1.0, 0.0),
            p(0.0, 0.0, 1.0),
            p(0.0, 0.0, -1.0),
        );
        vec![
            [px, py, pz],
            [py, nx, pz],
            [nx, ny, pz],
            [ny, px, pz],
            [py, px, nz],
            [nx, py, nz],
            [ny, nx, nz],
            [px, ny, nz],
        ]
    }

    #[test]
    fn closed_symmetric_shape_gets_a_small_surrogate_near_the_centre() {
        let c = [3.0, -2.0, 5.0];
        let s = fit_surrogate(&octahedron(c, 2.0), &BuildParams::default());
        let t = tri64(&s);
        for v in &t {
            // Minimax of the distance to the faces is the centre (Table 1: the coarsest
            // surrogate of a sphere almost degenerates to a point).
            assert!(norm(sub(*v, c)) < 0.8, "{t:?}");
        }
        let area = 0.5 * norm(cross(sub(t[1], t[0]), sub(t[2], t[0])));
        assert!(area > 0.0);
    }

    #[test]
    fn fit_is_scale_and_translation_equivariant() {
        let p = BuildParams::default();
        let a = tri64(&fit_surrogate(&octahedron([0.0; 3], 1.0), &p));
        let b = tri64(&fit_surrogate(&octahedron([10.0, 0.0, 0.0], 100.0), &p));
        for i in 0..3 {
            let mapped = add([10.0, 0.0, 0.0], scale(a[i], 100.0));
            assert!(norm(sub(mapped, b[i])) < 1e-3 * 100.0, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn flat_patch_surrogate_lies_in_the_patch_plane() {
        // A 4×4 grid of squares in z = 1, outward normal +z.
        let mut tris = Vec::new();
        for i in 0..4 {
            for j in 0..4 {
                let p = |a: usize, b: usize| [a as f64, b as f64, 1.0];
                tris.push([p(i, j), p(i + 1, j), p(i + 1, j + 1)]);
                tris.push([p(i, j), p(i + 1, j + 1), p(i, j + 1)]);
            }
        }
        let s = tri64(&fit_surrogate(&tris, &BuildParams::default()));
        for v in &s {
            assert!((v[2] - 1.0).abs() < 0.05, "{s:?}");
        }
        // Its offset (max vertex distance) beats the half diagonal of the patch.
        let off = tris
            .iter()
            .flatten()
            .map(|v| point_triangle_dist(*v, &s))
            .fold(0.0, f64::max);
        assert!(off < 8f64.sqrt(), "offset {off}");
    }
}
