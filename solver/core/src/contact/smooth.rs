//! Contact geometry of the curved surface a mesh approximates (issue 14; an extension of
//! seed 000 §2, `docs/design.md` §3 *Smooth surfaces*): the fine pairs of a body pair whose
//! material asks for `surface: smooth` are measured between the Phong surfaces of their
//! triangles ([`crate::model::smooth`]) instead of the flat facets.
//!
//! For a fine pair (triangle `T_a` of `a`, `T_b` of `b`) the gap is the distance between
//! the two curved facets, `min |P_a(s_a, t_a) − P_b(s_b, t_b)|` over their parameters.
//! Start: of five points `x` of the smaller triangle (its flat closest point, centroid and
//! edge midpoints) the one minimising `g(x) = |x − y| + (D_a − D_b)·u` (`y` its flat
//! closest point on the other, `u = (x − y)/|x − y|` from `b` towards `a`, `D` the curved
//! surface's offset over the facet, zero on a flat side: for facing facets the flat
//! distance less both sags, `d − h_a − h_b`). Then Newton's method with active sets on
//! `½|P_a − P_b|²` ([`closest`]: exact Hessian, the Phong map is quadratic; minima on a
//! facet's edge included); where it ends on an edge or unconverged, a second descent from
//! both centroids, the lower minimum kept (without it the gap jumped between local
//! minima as the pose moved, `tests/physics/smooth_continuity.rs`). The fine pair's distance,
//! points and normal become the curved ones: the normal is the connecting direction, the
//! gradient of the distance between two surfaces fixed to the bodies (envelope theorem), so
//! the floor's potential `½k(m − g_min)²` gives a conservative force. Triangles whose
//! corners all carry their face normal (creases, flat faces) are flat: a pair of two flat
//! triangles is left as the narrow phase gave it, bit for bit.

pub mod closest;
pub mod unique;

use super::pair::TINY_DISTANCE;
use super::RawContact;
use crate::model::smooth::{barycentric, curved_point, Corners, Surface};
use crate::model::{ContactPoints, Model, Other};
use crate::state::Body;
use closest::{descend, PhongTri};
use msdem_geom::math::{Iso3, Point3, Vec3};
use msdem_tree::SurrogateTree;

/// One side of a pair: its tree, mesh → world pose and, where smooth, its corner normals
/// and shape factors.
struct SmoothSide<'m> {
    tree: &'m SurrogateTree,
    pose: Iso3,
    corners: Option<&'m [Option<Corners>]>,
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

    /// World corner normals (and shape factors) of `t` where it is curved.
    fn normals(&self, t: u32) -> Option<Corners> {
        let c = (*self.corners?.get(t as usize)?)?;
        Some(Corners {
            normals: c.normals.map(|n| self.pose.rotation * n),
            alpha: c.alpha,
        })
    }
}

/// Sag reach \[m\] of body `i` (its mesh's sag bound when its material is smooth, else 0):
/// detection extends the pair's margin by the two reaches.
pub fn reach(model: &Model, bodies: &[Body], i: u32) -> f64 {
    bodies
        .get(i as usize)
        .map_or(0.0, |b| crate::detect::broad::surface_reach(model, b))
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
    // A second bound where the first one leaves the pair within the margin: the two
    // curved facets lie in the convex hulls of their Bernstein control points
    // (`unique.rs`), so their gap is at least the hulls' separation along the flat
    // normal (any unit vector bounds it).
    let lower = |r: &RawContact| {
        if r.tri_a == u32::MAX {
            return r.dist;
        }
        let by_sag = r.dist - sa.sag(r.tri_a) - sb.sag(r.tri_b);
        if by_sag > margin {
            return by_sag;
        }
        let (ta, tb) = (sa.tri(r.tri_a), sb.tri(r.tri_b));
        let (na, nb) = (sa.normals(r.tri_a), sb.normals(r.tri_b));
        by_sag.max(unique::separation(
            &PhongTri {
                v: &ta,
                n: na.as_ref(),
            },
            &PhongTri {
                v: &tb,
                n: nb.as_ref(),
            },
            &r.normal,
        ))
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

/// The curved gap of one fine pair (see the module docs): `r` the flat fine pair of the
/// facets `ta` (body `a`) and `tb` (world corners), `na`/`nb` their world corner normals
/// and shape factors where curved; the distance, points and normal (from `b` towards `a`)
/// between the curved facets, keeping `r`'s triangle indices.
pub fn curved_pair(
    ta: &[Vec3; 3],
    na: Option<Corners>,
    tb: &[Vec3; 3],
    nb: Option<Corners>,
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
    // Where the distance provably has a single local minimum value (`unique.rs`), a
    // descent from the flat closest points that ends at a verified stationary point has
    // found it: no start search, no second descent.
    if unique::single_minimum(&pa, &pb) {
        let d = descend(&pa, &pb, [st_of(&r.p, ta), st_of(&r.q, tb)]);
        if d.stationary {
            return gap_between(pa.eval(d.ua).p, pb.eval(d.ub).p, r, margin);
        }
    }
    searched_pair(&pa, &pb, r, margin)
}

/// [`curved_pair`] without the single-minimum certificate: the start search, the first
/// descent and, where it ends on an edge or unconverged, the second one from the
/// centroids (module docs). Public as the reference the certificate's shortcut is tested
/// against (`tests/physics/smooth_unique.rs`).
pub fn searched_pair(pa: &PhongTri, pb: &PhongTri, r: &RawContact, margin: f64) -> RawContact {
    let (ta, tb) = (pa.v, pb.v);
    // Start: the smaller triangle's point minimising `d − h_a − h_b` over the flat closest
    // points among five candidates; `sign` turns its side's direction into b → a.
    let a_small = longest(ta) <= longest(tb);
    let (ps, po, sign) = if a_small {
        (pa, pb, 1.0)
    } else {
        (pb, pa, -1.0)
    };
    // (approximate gap, point on the searched side, its flat closest point on the other).
    let eval = |w: [f64; 3]| {
        let x = w[0] * ps.v[0] + w[1] * ps.v[1] + w[2] * ps.v[2];
        let y = super::triangle_point::closest_on_triangle(&x, &po.v[0], &po.v[1], &po.v[2]);
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
    // Candidates on the searched side: its flat closest point, its centroid and its edges'
    // midpoints (the curved minimum of two facing facets lies where both sags are large).
    let own = if a_small { r.p } else { r.q };
    let wf = barycentric(&own, ps.v);
    let third = 1.0 / 3.0;
    let mut best = eval(wf);
    for w in [
        [third, third, third],
        [0.5, 0.5, 0.0],
        [0.0, 0.5, 0.5],
        [0.5, 0.0, 0.5],
    ] {
        let e = eval(w);
        if e.0 < best.0 {
            best = e;
        }
    }
    let (xs, xo) = (best.1, best.2);
    let (xa, xb) = if a_small { (xs, xo) } else { (xo, xs) };
    // The gap is the distance between the two curved surfaces, refined from there by
    // Newton's method: its gradient is then the connecting direction (a conservative
    // force, the envelope theorem).
    let first = descend(pa, pb, [st_of(&xa, ta), st_of(&xb, tb)]);
    let (ca, cb) = (pa.eval(first.ua).p, pb.eval(first.ub).p);
    // Where that descent did not converge or ended on an edge (where local minima of
    // the constrained distance lie), a second one from both centroids; the lower of the
    // two minima.
    let (ca, cb) = if first.converged && !first.on_edge() {
        (ca, cb)
    } else {
        let third = [1.0 / 3.0; 2];
        let second = descend(pa, pb, [third, third]);
        let (da, db) = (pa.eval(second.ua).p, pb.eval(second.ub).p);
        if (da - db).norm_squared() < (ca - cb).norm_squared() {
            (da, db)
        } else {
            (ca, cb)
        }
    };
    gap_between(ca, cb, r, margin)
}

/// The fine pair `r` with its points replaced by the curved closest points `ca` (on `a`)
/// and `cb`: their distance and connecting direction (from `b` towards `a`, oriented as
/// `r`'s normal; `r`'s normal where they coincide), `r`'s triangle indices.
fn gap_between(ca: Vec3, cb: Vec3, r: &RawContact, margin: f64) -> RawContact {
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
