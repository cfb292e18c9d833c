//! Contact geometry of the curved surface a mesh approximates (issue 14; an extension of
//! seed 000 §2, `docs/design.md` §3 *Smooth surfaces*): the fine pairs of a body pair whose
//! material asks for `surface: smooth` are measured between the Phong surfaces of their
//! triangles ([`crate::model::smooth`]) instead of the flat facets.
//!
//! For a fine pair (triangle `T_a` of `a`, `T_b` of `b`) the gap is the distance between
//! the two curved facets, `min |P_a(s_a, t_a) − P_b(s_b, t_b)|` over their parameters.
//! Start: a point `x` of the smaller triangle minimising `g(x) = |x − y| + (D_a − D_b)·u`
//! (`y` its flat closest point on the other, `u = (x − y)/|x − y|` from `b` towards `a`,
//! `D` the curved surface's offset over the facet, zero on a flat side: for facing facets
//! the flat distance less both sags, `d − h_a − h_b`) on a barycentric grid, then a local
//! pattern search. Then Newton's method on `½|P_a − P_b|²` (exact Hessian: the Phong map is
//! quadratic), with a pattern search for minima on a facet's edge. The fine pair's distance,
//! points and normal become the curved ones: the normal is the connecting direction, the
//! gradient of the distance between two surfaces fixed to the bodies (envelope theorem), so
//! the floor's potential `½k(m − g_min)²` gives a conservative force. Triangles whose
//! corners all carry their face normal (creases, flat faces) are flat: a pair of two flat
//! triangles is left as the narrow phase gave it, bit for bit.

use super::pair::TINY_DISTANCE;
use super::RawContact;
use crate::model::smooth::{barycentric, curved_point, Surface, SHAPE_FACTOR};
use crate::model::{ContactPoints, Model, Other};
use crate::state::Body;
use msdem_geom::math::{Iso3, Point3, Vec3};
use msdem_tree::SurrogateTree;
use nalgebra::{Matrix4, Vector4};

/// Grid steps per triangle edge of the first search (28 points).
const GRID: usize = 6;

/// Pattern-search rounds after the grid (each halves the step when no neighbour improves).
const ROUNDS: usize = 8;

/// One side of a pair: its tree, mesh → world pose and, where smooth, its corner normals.
struct SmoothSide<'m> {
    tree: &'m SurrogateTree,
    pose: Iso3,
    corners: Option<&'m [Option<[Vec3; 3]>]>,
    sag: Option<&'m [f64]>,
}

impl SmoothSide<'_> {
    /// World corners of soup triangle `t`.
    fn tri(&self, t: u32) -> [Vec3; 3] {
        self.tree.soup[t as usize].v.map(|v| {
            (self.pose * Point3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]))).coords
        })
    }

    /// Upper bound \[m\] of the sag of `t` (0 on a flat side).
    fn sag(&self, t: u32) -> f64 {
        self.sag
            .and_then(|s| s.get(t as usize))
            .copied()
            .unwrap_or(0.0)
    }

    /// World corner normals of `t` where it is curved.
    fn normals(&self, t: u32) -> Option<[Vec3; 3]> {
        let c = (*self.corners?.get(t as usize)?)?;
        Some(c.map(|n| self.pose.rotation * n))
    }
}

/// Sag reach \[m\] of body `i` (its mesh's sag bound when its material is smooth, else 0):
/// detection extends the pair's margin by the two reaches.
pub fn reach(model: &Model, bodies: &[Body], i: u32) -> f64 {
    let Some(body) = bodies.get(i as usize) else {
        return 0.0;
    };
    let smooth = model
        .materials
        .get(body.material as usize)
        .is_some_and(|m| m.surface == Surface::Smooth);
    if !smooth {
        return 0.0;
    }
    model
        .shapes
        .get(body.shape as usize)
        .and_then(|s| s.geometry.mesh())
        .map_or(0.0, |m| m.smooth.sag_bound_m)
}

fn particle_side<'m>(model: &'m Model, bodies: &[Body], i: u32) -> Option<SmoothSide<'m>> {
    let body = bodies.get(i as usize)?;
    let shape = model.shapes.get(body.shape as usize)?;
    let mesh = shape.geometry.mesh()?;
    let smooth = model
        .materials
        .get(body.material as usize)
        .is_some_and(|m| m.surface == Surface::Smooth);
    Some(SmoothSide {
        tree: &mesh.tree,
        pose: body.mesh_to_world(&shape.com),
        corners: smooth.then_some(mesh.smooth.corners.as_slice()),
        sag: smooth.then_some(mesh.smooth.sag_m.as_slice()),
    })
}

/// Whether the pair (`a`, `b`) meets with a curved surface on either side.
pub fn is_smooth(model: &Model, bodies: &[Body], a: u32, b: Other) -> bool {
    let side = |i: u32| {
        bodies
            .get(i as usize)
            .and_then(|bd| model.materials.get(bd.material as usize))
            .is_some_and(|m| m.surface == Surface::Smooth)
    };
    side(a) || matches!(b, Other::Particle(j) if side(j))
}

/// The fine pairs `raw` of the mesh pair (`a`, `b`) measured between the curved surfaces
/// (see the module docs), those within `margin` appended to `out` in `raw`'s order.
/// Flat–flat fine pairs are copied unchanged (dropped beyond the margin: detection reaches
/// [`reach`] farther); coarse estimates (`tri_a == u32::MAX`) are copied.
pub fn smooth_raw(
    model: &Model,
    bodies: &[Body],
    a: u32,
    b: Other,
    raw: &[RawContact],
    margin: f64,
    out: &mut Vec<RawContact>,
) {
    let side_a = particle_side(model, bodies, a);
    let side_b = match b {
        Other::Particle(j) => particle_side(model, bodies, j),
        Other::Obstacle(o) => model.obstacles.get(o as usize).and_then(|ob| {
            Some(SmoothSide {
                tree: ob.geometry.tree()?,
                pose: ob.pose,
                corners: None,
                sag: None,
            })
        }),
    };
    let (Some(sa), Some(sb)) = (side_a, side_b) else {
        out.extend(raw.iter().filter(|r| r.dist <= margin).copied());
        return;
    };
    // A fine pair's curved gap is at least its flat distance less both triangles' sag
    // bounds: pairs beyond the margin by that bound are dropped unmeasured. With surface
    // patches only the deepest pairs matter (the floor and its tie, `patch.rs`): pairs in
    // increasing order of that bound are measured until it exceeds the deepest curved gap
    // found plus the tie; the rest keep their flat distance, which is larger.
    let lower = |r: &RawContact| {
        if r.tri_a == u32::MAX {
            r.dist
        } else {
            r.dist - sa.sag(r.tri_a) - sb.sag(r.tri_b)
        }
    };
    let first = out.len();
    let deepest_only = model.contact_points == ContactPoints::Patches;
    let mut order: Vec<(f64, usize)> = raw
        .iter()
        .enumerate()
        .map(|(i, r)| (lower(r), i))
        .filter(|&(l, _)| l <= margin)
        .collect();
    order.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    let mut measured: Vec<Option<RawContact>> = vec![None; raw.len()];
    let mut best = f64::INFINITY;
    for &(l, i) in &order {
        let r = &raw[i];
        if deepest_only && l > best + TIE_REACH * margin {
            // Unmeasured: flat distance (≥ its bound > the deepest curved gap).
            measured[i] = Some(*r).filter(|r| r.dist <= margin);
            continue;
        }
        let (na, nb) = if r.tri_a == u32::MAX {
            (None, None)
        } else {
            (sa.normals(r.tri_a), sb.normals(r.tri_b))
        };
        let c = if na.is_none() && nb.is_none() {
            *r
        } else {
            curved_pair(&sa.tri(r.tri_a), na, &sb.tri(r.tri_b), nb, r, margin)
        };
        best = best.min(c.dist);
        measured[i] = Some(c).filter(|c| c.dist <= margin);
    }
    // `raw`'s order (by triangle indices), as every detection path delivers it.
    out.extend(measured.into_iter().flatten());
    debug_assert!(out[first..].iter().all(|c| c.dist <= margin));
}

/// Fine pairs whose curved gap may lie within this fraction of the margin of the deepest
/// one are measured with surface patches (above the floor's tie, `patch.rs`, 10⁻⁴).
const TIE_REACH: f64 = 1e-3;

/// Longest edge of `t` \[m\].
fn longest(t: &[Vec3; 3]) -> f64 {
    (t[1] - t[0])
        .norm()
        .max((t[2] - t[1]).norm())
        .max((t[0] - t[2]).norm())
}

/// The curved gap of one fine pair (see the module docs).
fn curved_pair(
    ta: &[Vec3; 3],
    na: Option<[Vec3; 3]>,
    tb: &[Vec3; 3],
    nb: Option<[Vec3; 3]>,
    r: &RawContact,
    margin: f64,
) -> RawContact {
    let pa = PhongTri {
        v: ta,
        n: na.as_ref(),
    };
    let pb = PhongTri {
        v: tb,
        n: nb.as_ref(),
    };
    // Start: the smaller triangle's point minimising `d − h_a − h_b` over the flat closest
    // points (a grid, then a pattern search); `sign` turns its side's direction into b → a.
    let a_small = longest(ta) <= longest(tb);
    let (ps, po, sign) = if a_small {
        (&pa, &pb, 1.0)
    } else {
        (&pb, &pa, -1.0)
    };
    // (approximate gap, point on the searched side, its flat closest point on the other).
    let eval = |w: [f64; 3]| {
        let x = w[0] * ps.v[0] + w[1] * ps.v[1] + w[2] * ps.v[2];
        let y = super::patch::closest_on_triangle(&x, &po.v[0], &po.v[1], &po.v[2]);
        let v = x - y;
        let d = v.norm();
        let dir = if d > TINY_DISTANCE * margin {
            sign * v / d
        } else {
            r.normal
        };
        let ds =
            ps.n.map_or_else(Vec3::zeros, |n| curved_point(&x, ps.v, n).offset);
        let dq =
            po.n.map_or_else(Vec3::zeros, |n| curved_point(&y, po.v, n).offset);
        (d + sign * (ds - dq).dot(&dir), x, y)
    };
    let mut best_w = [1.0, 0.0, 0.0];
    let mut best = eval(best_w);
    let step0 = 1.0 / GRID as f64;
    for i in 0..=GRID {
        for j in 0..=GRID - i {
            let w = [
                i as f64 * step0,
                j as f64 * step0,
                (GRID - i - j) as f64 * step0,
            ];
            let e = eval(w);
            if e.0 < best.0 {
                best = e;
                best_w = w;
            }
        }
    }
    let mut step = 0.5 * step0;
    for _ in 0..ROUNDS {
        let mut moved = false;
        for (i, j) in [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)] {
            let mut w = best_w;
            w[i] += step;
            w[j] -= step;
            if w[j] < 0.0 {
                continue;
            }
            let e = eval(w);
            if e.0 < best.0 {
                best = e;
                best_w = w;
                moved = true;
            }
        }
        if !moved {
            step *= 0.5;
        }
    }
    let (xs, xo) = (best.1, best.2);
    let (xa, xb) = if a_small { (xs, xo) } else { (xo, xs) };
    // The gap is the distance between the two curved surfaces, refined from there by
    // Newton's method: its gradient is then the connecting direction (a conservative
    // force, the envelope theorem).
    let (ua, ub) = newton(&pa, &pb, [st_of(&xa, ta), st_of(&xb, tb)]);
    let (ca, cb) = (pa.eval(ua).p, pb.eval(ub).p);
    let v = ca - cb;
    let len = v.norm();
    let (gap, normal) = if len > TINY_DISTANCE * margin {
        let n = v / len;
        if n.dot(&r.normal) < 0.0 {
            (-len, -n)
        } else {
            (len, n)
        }
    } else {
        (len, r.normal)
    };
    RawContact {
        p: ca,
        q: cb,
        dist: gap.max(0.0),
        normal,
        tri_a: r.tri_a,
        tri_b: r.tri_b,
    }
}

/// `(s, t)` of `p` on triangle `v`: `p = v₀ + s·(v₁ − v₀) + t·(v₂ − v₀)`.
fn st_of(p: &Vec3, v: &[Vec3; 3]) -> [f64; 2] {
    let b = barycentric(p, v);
    [b[1], b[2]]
}

/// A facet with its corner normals where curved (`None`: flat).
struct PhongTri<'t> {
    v: &'t [Vec3; 3],
    n: Option<&'t [Vec3; 3]>,
}

/// The curved point at `(s, t)` and its first and second derivatives.
struct Jet {
    p: Vec3,
    ds: Vec3,
    dt: Vec3,
    dss: Vec3,
    dst: Vec3,
    dtt: Vec3,
}

impl PhongTri<'_> {
    /// The curved point `P(s, t) = X + α·Σ bᵢ·(πᵢ(X) − X)` over `X = v₀ + s·e₁ + t·e₂`
    /// (`b = (1 − s − t, s, t)`) with its derivatives (`P` is quadratic in `(s, t)`).
    fn eval(&self, st: [f64; 2]) -> Jet {
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
        let Some(n) = self.n else {
            return jet;
        };
        let b = [1.0 - s - t, s, t];
        let (bs, bt) = ([-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]);
        let a = -SHAPE_FACTOR;
        for i in 0..3 {
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

/// Newton iterations of the closest points.
const NEWTON_STEPS: usize = 12;

/// Clamps `(s, t)` into the triangle `s, t ≥ 0, s + t ≤ 1`.
fn clamp_st(st: [f64; 2]) -> [f64; 2] {
    let (s, t) = (st[0].max(0.0), st[1].max(0.0));
    let sum = s + t;
    if sum > 1.0 {
        [s / sum, t / sum]
    } else {
        [s, t]
    }
}

/// Closest points `(s_a, t_a)`, `(s_b, t_b)` of the two curved facets from `start`:
/// Newton's method on `½|P_a − P_b|²` (exact Hessian: `JᵀJ` plus the residual times the
/// second derivatives), each step clamped into the triangles and kept only if it lowers
/// the distance; stops at a non-positive-definite Hessian.
fn newton(pa: &PhongTri, pb: &PhongTri, start: [[f64; 2]; 2]) -> ([f64; 2], [f64; 2]) {
    let (mut ua, mut ub) = (clamp_st(start[0]), clamp_st(start[1]));
    let dist2 = |ua: [f64; 2], ub: [f64; 2]| (pa.eval(ua).p - pb.eval(ub).p).norm_squared();
    let mut f = dist2(ua, ub);
    for _ in 0..NEWTON_STEPS {
        let (ja, jb) = (pa.eval(ua), pb.eval(ub));
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
        let Some(chol) = h.cholesky() else {
            break;
        };
        let step = chol.solve(&g);
        let na = clamp_st([ua[0] - step[0], ua[1] - step[1]]);
        let nb = clamp_st([ub[0] - step[2], ub[1] - step[3]]);
        let fn_ = dist2(na, nb);
        // Also stops on a NaN distance.
        if fn_.partial_cmp(&f) != Some(std::cmp::Ordering::Less) {
            break;
        }
        let moved = (na[0] - ua[0]).abs()
            + (na[1] - ua[1]).abs()
            + (nb[0] - ub[0]).abs()
            + (nb[1] - ub[1]).abs();
        (ua, ub, f) = (na, nb, fn_);
        if moved < 1e-12 {
            break;
        }
    }
    // A minimum on a facet's boundary (the curved surface is only continuous across
    // edges): Newton's clamped steps stall beside it; a pattern search along the
    // parameter axes and the hypotenuse finishes it.
    let on_edge = |u: [f64; 2]| u[0] <= 0.0 || u[1] <= 0.0 || u[0] + u[1] >= 1.0;
    if on_edge(ua) || on_edge(ub) {
        let dirs = [
            [1.0, 0.0],
            [-1.0, 0.0],
            [0.0, 1.0],
            [0.0, -1.0],
            [1.0, -1.0],
            [-1.0, 1.0],
        ];
        let mut h = 1e-2;
        let mut iterations = 0;
        while h > 1e-10 && iterations < POLISH_STEPS {
            iterations += 1;
            let mut moved = false;
            for side in 0..2 {
                for d in &dirs {
                    let (ta, tb) = if side == 0 {
                        (clamp_st([ua[0] + h * d[0], ua[1] + h * d[1]]), ub)
                    } else {
                        (ua, clamp_st([ub[0] + h * d[0], ub[1] + h * d[1]]))
                    };
                    let ft = dist2(ta, tb);
                    if ft < f {
                        (ua, ub, f) = (ta, tb, ft);
                        moved = true;
                    }
                }
            }
            if !moved {
                h *= 0.5;
            }
        }
    }
    (ua, ub)
}

/// Most pattern-search rounds finishing a minimum on a facet's boundary.
const POLISH_STEPS: usize = 200;
