//! Contact geometry of the curved surface a mesh approximates (issue 14; an extension of
//! seed 000 §2, `docs/design.md` §3 *Smooth surfaces*): the fine pairs of a body pair whose
//! material asks for `surface: smooth` are measured between the Phong surfaces of their
//! triangles ([`crate::model::smooth`]) instead of the flat facets.
//!
//! For a fine pair (triangle `T_a` of `a`, `T_b` of `b`), a point `x` of the smaller of the
//! two triangles, its closest point `y` on the other and `u = (x − y)/|x − y|` (from `b`
//! towards `a`), the gap is `g(x) = |x − y| + (D_a(x) − D_b(y))·u` with `D` the curved
//! surface's offset over the facet (zero on a flat side); for facing facets this is the
//! flat distance less both sags, `d − h_a − h_b`. The pair's gap is the minimum of `g` over
//! the triangle (a barycentric grid, then a local pattern search), its points the curved
//! points there and its normal the curved normals' `normalise(n*_b − n*_a)`. Triangles whose
//! corners all carry their face normal (creases, flat faces) are flat: a pair of two flat
//! triangles is left as the narrow phase gave it, bit for bit.

use super::pair::TINY_DISTANCE;
use super::RawContact;
use crate::model::smooth::{curved_point, Surface};
use crate::model::{Model, Other};
use crate::state::Body;
use msdem_geom::math::{Iso3, Point3, Vec3};
use msdem_tree::SurrogateTree;

/// Grid steps per triangle edge of the first search (45 points).
const GRID: usize = 8;

/// Pattern-search rounds after the grid (each halves the step when no neighbour improves).
const ROUNDS: usize = 16;

/// One side of a pair: its tree, mesh → world pose and, where smooth, its corner normals.
struct SmoothSide<'m> {
    tree: &'m SurrogateTree,
    pose: Iso3,
    corners: Option<&'m [Option<[Vec3; 3]>]>,
}

impl SmoothSide<'_> {
    /// World corners of soup triangle `t`.
    fn tri(&self, t: u32) -> [Vec3; 3] {
        self.tree.soup[t as usize].v.map(|v| {
            (self.pose * Point3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]))).coords
        })
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
            })
        }),
    };
    let (Some(sa), Some(sb)) = (side_a, side_b) else {
        out.extend(raw.iter().filter(|r| r.dist <= margin).copied());
        return;
    };
    for r in raw {
        if r.tri_a == u32::MAX {
            out.push(*r);
            continue;
        }
        let (na, nb) = (sa.normals(r.tri_a), sb.normals(r.tri_b));
        if na.is_none() && nb.is_none() {
            if r.dist <= margin {
                out.push(*r);
            }
            continue;
        }
        let c = curved_pair(&sa.tri(r.tri_a), na, &sb.tri(r.tri_b), nb, r, margin);
        if c.dist <= margin {
            out.push(c);
        }
    }
}

/// Face normal of `t` (zero if degenerate).
fn face_normal(t: &[Vec3; 3]) -> Vec3 {
    (t[1] - t[0])
        .cross(&(t[2] - t[0]))
        .try_normalize(0.0)
        .unwrap_or_else(Vec3::zeros)
}

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
    // Search over the smaller triangle; `sign` turns its side's direction into b → a.
    let a_small = longest(ta) <= longest(tb);
    let (ts, ns, to, no, sign) = if a_small {
        (ta, na, tb, nb, 1.0)
    } else {
        (tb, nb, ta, na, -1.0)
    };
    let (fs, fo) = (face_normal(ts), face_normal(to));
    // (gap, point on the searched side, point on the other, b → a normal) at barycentric w.
    let eval = |w: [f64; 3]| {
        let x = w[0] * ts[0] + w[1] * ts[1] + w[2] * ts[2];
        let y = super::patch::closest_on_triangle(&x, &to[0], &to[1], &to[2]);
        let v = x - y;
        let d = v.norm();
        let dir = if d > TINY_DISTANCE * margin {
            sign * v / d
        } else {
            r.normal
        };
        let (ds, ms) = match &ns {
            Some(n) => {
                let c = curved_point(&x, ts, n);
                (c.offset, c.normal)
            }
            None => (Vec3::zeros(), fs),
        };
        let (dq, mo) = match &no {
            Some(n) => {
                let c = curved_point(&y, to, n);
                (c.offset, c.normal)
            }
            None => (Vec3::zeros(), fo),
        };
        let (da, db) = if a_small { (ds, dq) } else { (dq, ds) };
        let (ma, mb) = if a_small { (ms, mo) } else { (mo, ms) };
        let g = d + (da - db).dot(&dir);
        let (pa, pb) = if a_small { (x, y) } else { (y, x) };
        (g, pa + da, pb + db, (mb - ma).try_normalize(0.0).unwrap_or(dir))
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
    let (g, p, q, normal) = best;
    RawContact {
        p,
        q,
        dist: g.max(0.0),
        normal,
        tri_a: r.tri_a,
        tri_b: r.tri_b,
    }
}
