//! Closest points of two curved facets (`docs/design.md` §3, *Smooth surfaces*): the
//! minimum of `½|P_a(s_a, t_a) − P_b(s_b, t_b)|²` over both triangles, `P` the Phong map
//! of [`crate::model::smooth`] (quadratic in `(s, t)`, so its Hessian is exact).
//!
//! Newton's method with active sets: a parameter pair on a facet's edge whose descent
//! leaves the triangle keeps to that edge (a corner to the corner), the step solves the
//! Hessian reduced to the free directions — damped (Levenberg–Marquardt) where it is not
//! positive definite, as for two parallel flat facets whose closest points form a family —
//! and is halved until the distance decreases. Minima on a facet's edge (the curved surface
//! is only continuous across edges) converge as fast as interior ones.

use crate::model::smooth::Corners;
use msdem_geom::math::Vec3;
use nalgebra::{Matrix4, Vector4};

/// A facet with its corner normals and shape factors where curved (`None`: flat).
pub struct PhongTri<'t> {
    /// Corners \[m\].
    pub v: &'t [Vec3; 3],
    /// Unit corner normals (same frame as `v`) and shape factors where curved.
    pub n: Option<&'t Corners>,
}

/// The curved point at `(s, t)` and its first and second derivatives.
pub struct Jet {
    /// The curved point \[m\].
    pub p: Vec3,
    ds: Vec3,
    dt: Vec3,
    pub(crate) dss: Vec3,
    pub(crate) dst: Vec3,
    pub(crate) dtt: Vec3,
}

impl PhongTri<'_> {
    /// The curved point `P(s, t) = X + Σ αᵢ·bᵢ·(πᵢ(X) − X)` over `X = v₀ + s·e₁ + t·e₂`
    /// (`b = (1 − s − t, s, t)`) with its derivatives (`P` is quadratic in `(s, t)`).
    pub fn eval(&self, st: [f64; 2]) -> Jet {
        let [s, t] = st;
        let v = self.v;
        let (e1, e2) = (v[1] - v[0], v[2] - v[0]);
        let x = v[0] + s * e1 + t * e2;
        let mut jet = Jet {
            p: x,
            ds: e1,
            dt: e2,
            dss: Vec3::zeros(),
            dst: Vec3::zeros(),
            dtt: Vec3::zeros(),
        };
        let Some(corners) = self.n else {
            return jet;
        };
        let n = &corners.normals;
        let b = [1.0 - s - t, s, t];
        let (bs, bt) = ([-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]);
        for i in 0..3 {
            let a = -corners.alpha[i];
            let c = (x - v[i]).dot(&n[i]);
            let (c1, c2) = (e1.dot(&n[i]), e2.dot(&n[i]));
            jet.p += (a * b[i] * c) * n[i];
            jet.ds += (a * (bs[i] * c + b[i] * c1)) * n[i];
            jet.dt += (a * (bt[i] * c + b[i] * c2)) * n[i];
            jet.dss += (a * 2.0 * bs[i] * c1) * n[i];
            jet.dtt += (a * 2.0 * bt[i] * c2) * n[i];
            jet.dst += (a * (bs[i] * c2 + bt[i] * c1)) * n[i];
        }
        jet
    }
}

/// A facet's map `P(s, t)` as its quadratic polynomial
/// `P₀ + s·P_s + t·P_t + ½s²·P_ss + s·t·P_st + ½t²·P_tt` (the Taylor expansion at
/// `(0, 0)`, exact: `P` is quadratic), built once per descent so that each evaluation costs
/// six vector updates instead of [`PhongTri::eval`]'s per-corner projections.
#[derive(Clone, Copy, Debug)]
pub struct Quadratic {
    c: [Vec3; 6],
}

impl Quadratic {
    /// The polynomial of `p` (equal to [`PhongTri::eval`] up to rounding).
    pub fn of(p: &PhongTri) -> Self {
        let j = p.eval([0.0, 0.0]);
        Quadratic {
            c: [j.p, j.ds, j.dt, 0.5 * j.dss, j.dst, 0.5 * j.dtt],
        }
    }

    /// The point `P(s, t)`.
    pub fn at(&self, st: [f64; 2]) -> Vec3 {
        let [s, t] = st;
        let c = &self.c;
        c[0] + s * (c[1] + s * c[3] + t * c[4]) + t * (c[2] + t * c[5])
    }

    /// The point and its derivatives at `(s, t)`.
    pub fn jet(&self, st: [f64; 2]) -> Jet {
        let [s, t] = st;
        let c = &self.c;
        Jet {
            p: self.at(st),
            ds: c[1] + 2.0 * s * c[3] + t * c[4],
            dt: c[2] + s * c[4] + 2.0 * t * c[5],
            dss: 2.0 * c[3],
            dst: c[4],
            dtt: 2.0 * c[5],
        }
    }
}

/// Most Newton iterations.
const STEPS: usize = 400;

/// A Newton step (in the facets' parameters, each in `[0, 1]`) below this ends the
/// descent: Newton's method converges quadratically there, so the step taken leaves an
/// error of about its square.
const TINY_STEP: f64 = 1e-10;

/// Most halvings of a step that does not lower the distance.
const HALVINGS: usize = 30;

/// Clamps `(s, t)` into the triangle `s, t ≥ 0, s + t ≤ 1`.
pub fn clamp_st(st: [f64; 2]) -> [f64; 2] {
    let (s, t) = (st[0].max(0.0), st[1].max(0.0));
    let sum = s + t;
    if sum > 1.0 {
        [s / sum, t / sum]
    } else {
        [s, t]
    }
}

/// Parameters this close to a facet's edge are on it.
const ON_EDGE: f64 = 1e-14;

/// Directions in which `(s, t)` may move with gradient `g` (descent `−g`): both where the
/// descent stays in the triangle (inside it, or pointing inward from its boundary);
/// otherwise the edge through `(s, t)` along which the descent is steepest (the
/// projection on the tangent cone); none at a minimum on the boundary.
fn free_directions(u: [f64; 2], g: [f64; 2]) -> ([[f64; 2]; 2], usize) {
    let at = [
        u[0] <= ON_EDGE,
        u[1] <= ON_EDGE,
        u[0] + u[1] >= 1.0 - ON_EDGE,
    ];
    // Whether direction `d` stays in the triangle from `u`.
    let feasible = |d: [f64; 2]| {
        (!at[0] || d[0] >= 0.0) && (!at[1] || d[1] >= 0.0) && (!at[2] || d[0] + d[1] <= 0.0)
    };
    if feasible([-g[0], -g[1]]) {
        return ([[1.0, 0.0], [0.0, 1.0]], 2);
    }
    let edges = [[0.0, 1.0], [1.0, 0.0], [1.0, -1.0]];
    let mut best: Option<([f64; 2], f64)> = None;
    for (e, on) in edges.iter().zip(at) {
        if !on {
            continue;
        }
        for sign in [1.0, -1.0] {
            let d = [sign * e[0], sign * e[1]];
            let slope = -(g[0] * d[0] + g[1] * d[1]) / (d[0] * d[0] + d[1] * d[1]).sqrt();
            if slope > 0.0 && feasible(d) && best.is_none_or(|b| slope > b.1) {
                best = Some((d, slope));
            }
        }
    }
    match best {
        Some((d, _)) => ([d, [0.0; 2]], 1),
        None => ([[0.0; 2]; 2], 0),
    }
}

/// Closest points `(s_a, t_a)`, `(s_b, t_b)` of the two curved facets from `start` (see
/// the module docs); `(s, t)` as in [`PhongTri::eval`].
pub fn closest_points(pa: &PhongTri, pb: &PhongTri, start: [[f64; 2]; 2]) -> ([f64; 2], [f64; 2]) {
    let d = descend(pa, pb, start);
    (d.ua, d.ub)
}

/// The end of one descent ([`descend`]).
#[derive(Clone, Copy, Debug)]
pub struct Descent {
    /// `(s_a, t_a)` on the first facet.
    pub ua: [f64; 2],
    /// `(s_b, t_b)` on the second facet.
    pub ub: [f64; 2],
    /// Whether the descent stopped at a stationary point (no free direction, zero reduced
    /// gradient, no step lowering the distance, or a step below 10⁻¹³), not at the
    /// iteration limit.
    pub converged: bool,
    /// Whether the end is a verified stationary point: no free direction, a zero reduced
    /// gradient, or an undamped Newton step below `TINY_STEP` (a positive definite reduced
    /// Hessian there). `converged` alone also counts a line search that found no lower
    /// distance or a move below 10⁻¹³, which may stall short of one (a parameter pair
    /// 10⁻⁸ from a corner, `tests/physics/smooth_continuity.rs`).
    pub stationary: bool,
}

impl Descent {
    /// Whether either parameter pair lies on its facet's edge (or corner).
    pub fn on_edge(&self) -> bool {
        let edge = |u: [f64; 2]| u[0] <= ON_EDGE || u[1] <= ON_EDGE || u[0] + u[1] >= 1.0 - ON_EDGE;
        edge(self.ua) || edge(self.ub)
    }
}

/// [`closest_points`] with whether the descent converged.
pub fn descend(pa: &PhongTri, pb: &PhongTri, start: [[f64; 2]; 2]) -> Descent {
    let (qa, qb) = (Quadratic::of(pa), Quadratic::of(pb));
    let (mut ua, mut ub) = (clamp_st(start[0]), clamp_st(start[1]));
    let mut converged = false;
    let mut stationary = false;
    let dist2 = |ua: [f64; 2], ub: [f64; 2]| (qa.at(ua) - qb.at(ub)).norm_squared();
    let mut f = dist2(ua, ub);
    for _ in 0..STEPS {
        let (ja, jb) = (qa.jet(ua), qb.jet(ub));
        let r = ja.p - jb.p;
        let cols = [ja.ds, ja.dt, -jb.ds, -jb.dt];
        let mut h = Matrix4::zeros();
        let mut g = Vector4::zeros();
        for i in 0..4 {
            g[i] = cols[i].dot(&r);
            for j in 0..4 {
                h[(i, j)] = cols[i].dot(&cols[j]);
            }
        }
        h[(0, 0)] += r.dot(&ja.dss);
        h[(0, 1)] += r.dot(&ja.dst);
        h[(1, 0)] += r.dot(&ja.dst);
        h[(1, 1)] += r.dot(&ja.dtt);
        h[(2, 2)] -= r.dot(&jb.dss);
        h[(2, 3)] -= r.dot(&jb.dst);
        h[(3, 2)] -= r.dot(&jb.dst);
        h[(3, 3)] -= r.dot(&jb.dtt);
        // Basis of the free directions (columns of Z, in the 4 parameters).
        let (da, na) = free_directions(ua, [g[0], g[1]]);
        let (db, nb) = free_directions(ub, [g[2], g[3]]);
        let mut z = [Vector4::zeros(); 4];
        let mut k = 0;
        for d in &da[..na] {
            z[k] = Vector4::new(d[0], d[1], 0.0, 0.0);
            k += 1;
        }
        for d in &db[..nb] {
            z[k] = Vector4::new(0.0, 0.0, d[0], d[1]);
            k += 1;
        }
        if k == 0 {
            converged = true;
            stationary = true;
            break;
        }
        // Reduced system, padded to 4 × 4 with the identity.
        let mut hr = Matrix4::identity();
        let mut gr = Vector4::zeros();
        for i in 0..k {
            gr[i] = z[i].dot(&g);
            for j in 0..k {
                hr[(i, j)] = z[i].dot(&(h * z[j]));
            }
        }
        if gr.norm_squared() == 0.0 {
            converged = true;
            stationary = true;
            break;
        }
        let scale = (0..k).map(|i| hr[(i, i)].abs()).fold(0.0, f64::max);
        let mut lambda = 0.0;
        let mut y = None;
        for _ in 0..12 {
            let mut damped = hr;
            for i in 0..k {
                damped[(i, i)] += lambda;
            }
            if let Some(chol) = damped.cholesky() {
                y = Some(chol.solve(&gr));
                break;
            }
            lambda = if lambda == 0.0 {
                1e-12 * scale.max(f64::MIN_POSITIVE)
            } else {
                100.0 * lambda
            };
        }
        let Some(y) = y else { break };
        let mut newton = Vector4::zeros();
        let mut descent = Vector4::zeros();
        for i in 0..k {
            newton -= y[i] * z[i];
            descent -= (gr[i] / scale.max(f64::MIN_POSITIVE)) * z[i];
        }
        // Converged: an undamped Newton step (positive definite reduced Hessian) below
        // `TINY_STEP` leaves an error of its square. It is taken where it lowers the
        // distance, and the descent stops (halving a step at the rounding floor, then
        // steepest descent, cost about 60 evaluations and moved the end by < 10⁻¹⁰).
        if lambda == 0.0 && newton.amax() < TINY_STEP {
            let na_ = clamp_st([ua[0] + newton[0], ua[1] + newton[1]]);
            let nb_ = clamp_st([ub[0] + newton[2], ub[1] + newton[3]]);
            if dist2(na_, nb_).partial_cmp(&f) == Some(std::cmp::Ordering::Less) {
                (ua, ub) = (na_, nb_);
            }
            converged = true;
            stationary = true;
            break;
        }
        // The Newton step, else (leaving the triangle at a corner, say) steepest descent
        // in the free directions, each halved until the distance decreases.
        let mut accepted = None;
        for step in [newton, descent] {
            let mut alpha = 1.0;
            for _ in 0..HALVINGS {
                let na_ = clamp_st([ua[0] + alpha * step[0], ua[1] + alpha * step[1]]);
                let nb_ = clamp_st([ub[0] + alpha * step[2], ub[1] + alpha * step[3]]);
                let fn_ = dist2(na_, nb_);
                // Also rejects a NaN distance.
                if fn_.partial_cmp(&f) == Some(std::cmp::Ordering::Less) {
                    accepted = Some((na_, nb_, fn_));
                    break;
                }
                alpha *= 0.5;
            }
            if accepted.is_some() {
                break;
            }
        }
        let Some((na_, nb_, fn_)) = accepted else {
            converged = true;
            break;
        };
        let moved = (na_[0] - ua[0]).abs()
            + (na_[1] - ua[1]).abs()
            + (nb_[0] - ub[0]).abs()
            + (nb_[1] - ub[1]).abs();
        (ua, ub, f) = (na_, nb_, fn_);
        if moved < 1e-13 {
            converged = true;
            break;
        }
    }
    Descent {
        ua,
        ub,
        converged,
        stationary,
    }
}
