//! Iterative triangle–triangle distance (seed 000 §3 "Iterative distance calculation",
//! eq. (3)/(4), Alg. 4 top), written over `L` lanes of pairs in lock-step
//! (struct-of-arrays) so that one code path serves the scalar call (`L = 1`) and the
//! batched stream (`L = 8`, see [`super::batch`]).
//!
//! **Unknowns.** Each triangle point is a barycentric combination `λ₀v₀ + λ₁v₁ + λ₂v₂`
//! (`λ ≥ 0`, `Σλ = 1`; eq. (3)'s `(a, b)` are `(λ₁, λ₂)`). `J = ½|d|²`, `d = p − q`.
//!
//! **Step (eq. (4)).** A Newton step with a diagonal Hessian is taken along one barycentric
//! edge direction at a time (mass moved from `λᵢ` to `λⱼ` moves the point along the edge
//! `e = vⱼ − vᵢ`; the Hessian of `J` along it is `|e|²`, regularised by
//! [`IterativeParams::regulariser`]), alternated with the constraint step: the clamp of the
//! step to `[−λⱼ, λᵢ]`, which is where the penalty terms of eq. (3) would push the iterate
//! back. One iteration visits the three edges of `t₁`, then the three of `t₂`. Directions
//! are taken one at a time (Gauss–Seidel) rather than simultaneously (Jacobi) because the
//! simultaneous diagonal step oscillates for parallel triangles: both points then move the
//! full distance towards each other. Edge directions instead of `(a, b)` axes keep the
//! iteration from stalling on the hypotenuse `a + b = 1` (pairwise moves on a simplex).
//!
//! **Start.** The best of the 9 vertex pairs and the 6 vertex–face pairs whose foot lies
//! inside the other triangle (branch-free selects).
//!
//! **Convergence (Alg. 4 line 11).** Alg. 4 compares two successive values of `J`, a
//! squared length, with `Cε`, a length: the test depends on the unit of length, and a
//! small change of `J` does not mean `J` is near its minimum (diagonal steps crawl along
//! near-parallel edges). We use a sound length-valued test instead: for a unit axis `w`,
//! the separation `min w·t₁ − max w·t₂` of the two vertex sets is a lower bound of the
//! true distance; `lower` is its maximum over `w ∈ {d/|d|, n₁, n₂}` (both orientations;
//! the face normals keep the bound sharp when `|d|` is tiny against the triangles, e.g.
//! 1:1000 sizes in `f32`), and `upper = |d|` is an upper bound (`p`, `q` lie on their
//! triangles). The iterate is
//! converged iff `upper − max(lower, 0) ≤ C·ε` with `ε = margin / 2` the halo width and
//! `C` = [`IterativeParams::c`]; the distance is then known to within `C·ε`, so contact
//! decisions are exact outside `[margin − Cε, margin + Cε]`. Classification:
//! `lower > margin` → `⊥` (certain whatever the gap); converged ∧ `upper ≤ margin` →
//! contact; converged ∧ `upper > margin` → `⊥`; otherwise `⊙` (not converged).

// Lane loops index several parallel arrays by the same lane/axis index on purpose: that is
// the struct-of-arrays form the vectoriser needs.
#![allow(clippy::needless_range_loop)]

use crate::math::Tri;

/// Parameters of the iterative kernel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IterativeParams {
    /// Fixed number of iterations (Alg. 4 `N_iterative`; seed 000 uses 4). Each iteration
    /// takes six one-dimensional Newton steps (three per triangle).
    pub iterations: u32,
    /// Convergence constant `C`: converged iff the certified distance gap ≤ `C·ε`,
    /// `ε = margin / 2` \[dimensionless\].
    pub c: f32,
    /// Regulariser added to the diagonal Hessian (`α_regulariser` of eq. (4)) \[m²\]; only
    /// matters for zero-length edges.
    pub regulariser: f32,
}

impl Default for IterativeParams {
    fn default() -> Self {
        IterativeParams {
            iterations: 4,
            c: 0.05,
            regulariser: 1e-30,
        }
    }
}

/// Lane result codes.
pub(crate) const CONTACT: u32 = 0;
/// Certainly separated.
pub(crate) const SEPARATED: u32 = 1;
/// Not converged.
pub(crate) const NOT_CONVERGED: u32 = 2;

/// `L` triangle pairs in struct-of-arrays layout: `v1[vertex][axis][lane]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes<const L: usize> {
    pub v1: [[[f32; L]; 3]; 3],
    pub v2: [[[f32; L]; 3]; 3],
    pub margin: [f32; L],
}

impl<const L: usize> Lanes<L> {
    /// All lanes zero (degenerate point triangles at the origin, margin 0).
    pub fn zeroed() -> Self {
        Lanes {
            v1: [[[0.0; L]; 3]; 3],
            v2: [[[0.0; L]; 3]; 3],
            margin: [0.0; L],
        }
    }

    /// Writes pair `(t1, t2, margin)` into lane `l`.
    #[inline]
    pub fn set(&mut self, l: usize, t1: &Tri, t2: &Tri, margin: f32) {
        for k in 0..3 {
            for a in 0..3 {
                self.v1[k][a][l] = t1.v[k][a];
                self.v2[k][a][l] = t2.v[k][a];
            }
        }
        self.margin[l] = margin;
    }

    /// The two triangles of lane `l`.
    #[inline]
    pub fn get(&self, l: usize) -> (Tri, Tri) {
        let t = |v: &[[[f32; L]; 3]; 3]| Tri {
            v: [0, 1, 2].map(|k| [v[k][0][l], v[k][1][l], v[k][2][l]]),
        };
        (t(&self.v1), t(&self.v2))
    }
}

/// Per-lane output of [`solve_lanes`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaneOut<const L: usize> {
    pub p: [[f32; L]; 3],
    pub q: [[f32; L]; 3],
    pub dist_sq: [f32; L],
    pub class: [u32; L],
}

#[inline(always)]
fn sel(c: bool, a: f32, b: f32) -> f32 {
    if c {
        a
    } else {
        b
    }
}

#[inline(always)]
fn fmin(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}

#[inline(always)]
fn fmax(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// One triangle's side of the lane state.
struct Side<'a, const L: usize> {
    /// Vertices `v[vertex][axis][lane]` \[m\].
    v: &'a [[[f32; L]; 3]; 3],
    /// Edge `k` from vertex `k` to vertex `k + 1`.
    e: [[[f32; L]; 3]; 3],
    /// `1 / (|e_k|² + α_regulariser)`: inverse diagonal Hessian along edge `k`.
    inv: [[f32; L]; 3],
    /// Regularised Gram matrix of (e₀, −e₂) = (v₁ − v₀, v₂ − v₀): `ee, ef, ff`, `1/det`.
    gram: [[f32; L]; 4],
    /// Unit normal (zero for degenerate triangles).
    n: [[f32; L]; 3],
    /// Barycentric coordinates of the iterate.
    lam: [[f32; L]; 3],
    /// The iterate `Σ λₖ vₖ` \[m\].
    pt: [[f32; L]; 3],
}

impl<'a, const L: usize> Side<'a, L> {
    fn new(v: &'a [[[f32; L]; 3]; 3], reg: f32) -> Self {
        let mut s = Side {
            v,
            e: [[[0.0; L]; 3]; 3],
            inv: [[0.0; L]; 3],
            gram: [[0.0; L]; 4],
            n: [[0.0; L]; 3],
            lam: [[0.0; L]; 3],
            pt: [[0.0; L]; 3],
        };
        for k in 0..3 {
            let j = (k + 1) % 3;
            for l in 0..L {
                let mut n = reg;
                for a in 0..3 {
                    s.e[k][a][l] = v[j][a][l] - v[k][a][l];
                    n += s.e[k][a][l] * s.e[k][a][l];
                }
                s.inv[k][l] = 1.0 / n;
            }
        }
        for l in 0..L {
            let e = [s.e[0][0][l], s.e[0][1][l], s.e[0][2][l]];
            let f = [-s.e[2][0][l], -s.e[2][1][l], -s.e[2][2][l]];
            let ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
            let ef = e[0] * f[0] + e[1] * f[1] + e[2] * f[2];
            let ff = f[0] * f[0] + f[1] * f[1] + f[2] * f[2];
            // Regularised (α_regulariser of eq. (4), relative here) so that degenerate
            // triangles give a finite step, which the constraint step then clamps.
            let (eer, ffr) = (ee * (1.0 + 1e-6) + reg, ff * (1.0 + 1e-6) + reg);
            s.gram[0][l] = eer;
            s.gram[1][l] = ef;
            s.gram[2][l] = ffr;
            s.gram[3][l] = 1.0 / (eer * ffr - ef * ef);
            let c = [
                e[1] * f[2] - e[2] * f[1],
                e[2] * f[0] - e[0] * f[2],
                e[0] * f[1] - e[1] * f[0],
            ];
            let len = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt();
            let inv = sel(len > 0.0, 1.0 / len, 0.0);
            for a in 0..3 {
                s.n[a][l] = c[a] * inv;
            }
        }
        s
    }

    /// `pt = Σ λₖ vₖ`.
    #[inline(always)]
    fn update_point(&mut self) {
        for a in 0..3 {
            for l in 0..L {
                self.pt[a][l] = self.lam[0][l] * self.v[0][a][l]
                    + self.lam[1][l] * self.v[1][a][l]
                    + self.lam[2][l] * self.v[2][a][l];
            }
        }
    }

    /// Barycentric coordinates of the projection of `y` onto this triangle's plane (the
    /// exact minimiser of the quadratic over the plane: a Newton step with this triangle's
    /// 2×2 block of the Hessian), unclamped.
    #[inline(always)]
    fn plane_coords(&self, l: usize, y: [f32; 3]) -> [f32; 3] {
        let r = [
            y[0] - self.v[0][0][l],
            y[1] - self.v[0][1][l],
            y[2] - self.v[0][2][l],
        ];
        let re = r[0] * self.e[0][0][l] + r[1] * self.e[0][1][l] + r[2] * self.e[0][2][l];
        let rf = -(r[0] * self.e[2][0][l] + r[1] * self.e[2][1][l] + r[2] * self.e[2][2][l]);
        let [ee, ef, ff, idet] = [0, 1, 2, 3].map(|i| self.gram[i][l]);
        let a = (ff * re - ef * rf) * idet;
        let b = (ee * rf - ef * re) * idet;
        [1.0 - a - b, a, b]
    }

    /// Quadratic step with this triangle's 2×2 Hessian block towards `y`, followed by the
    /// constraint step (negative coordinates cut, the rest renormalised onto the simplex);
    /// kept only where it brings the iterate closer to `y`, so the iteration is monotone.
    #[inline(always)]
    fn block_step(&mut self, y: &[[f32; L]; 3]) {
        for l in 0..L {
            let yl = [y[0][l], y[1][l], y[2][l]];
            let c = self.plane_coords(l, yl).map(|x| fmax(x, 0.0));
            let inv = 1.0 / (c[0] + c[1] + c[2]);
            let c = c.map(|x| x * inv);
            let mut new = [0.0f32; 3];
            let (mut d_new, mut d_old) = (0.0, 0.0);
            for a in 0..3 {
                new[a] = c[0] * self.v[0][a][l] + c[1] * self.v[1][a][l] + c[2] * self.v[2][a][l];
                d_new += (new[a] - yl[a]) * (new[a] - yl[a]);
                d_old += (self.pt[a][l] - yl[a]) * (self.pt[a][l] - yl[a]);
            }
            let take = d_new < d_old;
            for k in 0..3 {
                self.lam[k][l] = sel(take, c[k], self.lam[k][l]);
            }
            for a in 0..3 {
                self.pt[a][l] = sel(take, new[a], self.pt[a][l]);
            }
        }
    }

    /// Three one-dimensional Newton steps along the edges towards `y` (diagonal Hessian
    /// `|e|²`), each clamped to the simplex (the constraint step).
    #[inline(always)]
    fn edge_steps(&mut self, y: &[[f32; L]; 3]) {
        for k in 0..3 {
            let j = (k + 1) % 3;
            for l in 0..L {
                let mut de = 0.0;
                for a in 0..3 {
                    de += (self.pt[a][l] - y[a][l]) * self.e[k][a][l];
                }
                let t = fmax(fmin(-de * self.inv[k][l], self.lam[k][l]), -self.lam[j][l]);
                self.lam[k][l] -= t;
                self.lam[j][l] += t;
                for a in 0..3 {
                    self.pt[a][l] += t * self.e[k][a][l];
                }
            }
        }
    }
}

/// Start candidates "vertex of `a` above the face of `b`": taken where the foot lies inside
/// `b` and the distance beats `best` (squared, updated).
#[inline(always)]
fn vertex_face_start<const L: usize>(a: &mut Side<L>, b: &mut Side<L>, best: &mut [f32; L]) {
    for i in 0..3 {
        for l in 0..L {
            let y = [a.v[i][0][l], a.v[i][1][l], a.v[i][2][l]];
            let c = b.plane_coords(l, y);
            let inside = c[0] >= 0.0 && c[1] >= 0.0 && c[2] >= 0.0;
            let mut s = 0.0;
            for ax in 0..3 {
                let foot = c[0] * b.v[0][ax][l] + c[1] * b.v[1][ax][l] + c[2] * b.v[2][ax][l];
                s += (y[ax] - foot) * (y[ax] - foot);
            }
            let better = inside && s < best[l];
            best[l] = sel(better, s, best[l]);
            for k in 0..3 {
                a.lam[k][l] = sel(better, sel(k == i, 1.0, 0.0), a.lam[k][l]);
                b.lam[k][l] = sel(better, c[k], b.lam[k][l]);
            }
        }
    }
}

/// Runs the iterative kernel on all `L` lanes in lock-step. Every inner loop runs over the
/// lanes with a branch-free body (selects, min/max), so that for `L = 8` the compiler emits
/// packed SSE (`mulps`, `minps`, `cmpltps` + blends) on the x86-64 baseline; checked with
/// `cargo rustc --release -p msdem-geom -- --emit asm`.
#[inline(never)]
pub(crate) fn solve_lanes<const L: usize>(x: &Lanes<L>, prm: &IterativeParams) -> LaneOut<L> {
    let (v1, v2) = (&x.v1, &x.v2);
    let mut s1 = Side::new(v1, prm.regulariser);
    let mut s2 = Side::new(v2, prm.regulariser);

    // Start: the best of the 9 vertex pairs and the 6 vertex–face pairs whose foot on the
    // other triangle's plane lies inside that triangle (exact for vertex–face optima).
    let mut best = [f32::INFINITY; L];
    for i in 0..3 {
        for j in 0..3 {
            for l in 0..L {
                let mut s = 0.0;
                for a in 0..3 {
                    let t = v1[i][a][l] - v2[j][a][l];
                    s += t * t;
                }
                let better = s < best[l];
                best[l] = sel(better, s, best[l]);
                for k in 0..3 {
                    s1.lam[k][l] = sel(better, sel(k == i, 1.0, 0.0), s1.lam[k][l]);
                    s2.lam[k][l] = sel(better, sel(k == j, 1.0, 0.0), s2.lam[k][l]);
                }
            }
        }
    }
    vertex_face_start(&mut s1, &mut s2, &mut best);
    vertex_face_start(&mut s2, &mut s1, &mut best);
    s1.update_point();
    s2.update_point();

    for _ in 0..prm.iterations {
        s1.block_step(&s2.pt);
        s1.edge_steps(&s2.pt);
        s2.block_step(&s1.pt);
        s2.edge_steps(&s1.pt);
    }

    let mut out = LaneOut {
        p: s1.pt,
        q: s2.pt,
        dist_sq: [0.0; L],
        class: [NOT_CONVERGED; L],
    };
    for l in 0..L {
        let dx = out.p[0][l] - out.q[0][l];
        let dy = out.p[1][l] - out.q[1][l];
        let dz = out.p[2][l] - out.q[2][l];
        let dsq = dx * dx + dy * dy + dz * dz;
        let upper = dsq.sqrt();
        let inv = sel(upper > 0.0, 1.0 / upper, 0.0);
        let r = [out.q[0][l], out.q[1][l], out.q[2][l]];
        // Separation of the two vertex sets along axis w (either orientation), measured
        // from r to limit cancellation: a lower bound of the distance for unit w.
        let sep = |w: [f32; 3]| {
            let pr = |v: &[[[f32; L]; 3]; 3], k: usize| {
                w[0] * (v[k][0][l] - r[0]) + w[1] * (v[k][1][l] - r[1]) + w[2] * (v[k][2][l] - r[2])
            };
            let (a0, a1, a2) = (pr(v1, 0), pr(v1, 1), pr(v1, 2));
            let (b0, b1, b2) = (pr(v2, 0), pr(v2, 1), pr(v2, 2));
            let (amin, amax) = (fmin(fmin(a0, a1), a2), fmax(fmax(a0, a1), a2));
            let (bmin, bmax) = (fmin(fmin(b0, b1), b2), fmax(fmax(b0, b1), b2));
            fmax(amin - bmax, bmin - amax)
        };
        let n1 = [s1.n[0][l], s1.n[1][l], s1.n[2][l]];
        let n2 = [s2.n[0][l], s2.n[1][l], s2.n[2][l]];
        let lower = fmax(
            fmax(sep([dx * inv, dy * inv, dz * inv]), 0.0),
            fmax(sep(n1), sep(n2)),
        );
        let margin = x.margin[l];
        let tol = prm.c * 0.5 * margin;
        let converged = upper - lower <= tol;
        let separated = lower > margin || (converged && upper > margin);
        let contact = converged && upper <= margin;
        out.dist_sq[l] = dsq;
        out.class[l] = if separated {
            SEPARATED
        } else if contact {
            CONTACT
        } else {
            NOT_CONVERGED
        };
    }
    out
}
