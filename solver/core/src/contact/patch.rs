//! Surface patches: contact points weighted by the surface they stand for, so that the
//! total force between two meshes is a property of their surfaces, not of their
//! triangulation (an extension of seed 000 §2; see `docs/design.md` §3).
//!
//! Seed 000 §2 gives every merged contact point the same fade-in spring
//! `K_s·sqrt(m_eff)·(1 − d/m)`. Two flat faces then push with a force proportional to the
//! number of vertices on them. Here the halo acts as a thin elastic layer: a point `x` of a
//! surface at distance `d(x)` from the other body carries the pressure
//! `k·(m − d(x))₊/A_ref`, and a body pair's spring force is its integral over the surface,
//! projected on the contact normal:
//!
//! `F = k/A_ref · ∫ (m − d(x))₊ cos θ(x) dA`, with `k = K_s·sqrt(m_eff)/m` (the seed's
//! stiffness) and the reference area `A_ref = π·R_eff·m`, `1/R_eff = 1/R_a + 1/R_b`
//! (bounding radii; obstacles count as flat).
//!
//! `A_ref` is the integral of `(1 − d/m)` over the halo cap of two spheres that just touch
//! (`∫ (m − d)₊ dA = π·R_eff·(m − d₀)²`), so a sphere pair at first touch pushes with the
//! seed's peak force `K_s·sqrt(m_eff)`, and the force then grows as `(1 − d₀/m)²`.
//!
//! **Quadrature.** For every fine triangle of one side in contact, the distances `d_i` of its
//! corners to the other side's triangles it touches (the narrow phase's pairs) are computed
//! exactly; `(m − d)` is interpolated linearly over the triangle and its positive part
//! integrated in closed form (clipped triangle). A flat face at a uniform gap gives
//! `A·(m − gap)` whatever its triangulation. The finer side is integrated: alone when
//! its mesh's mean longest edge is at most half the other's ([`integrated_sides`]; a
//! particle on a staircase whose treads are two triangles of 2 m is measured on the
//! particle), else both, and the larger integral is used (a coarse face pressed by a
//! sharp edge is measured on the edge's faces). When no corner of either side is within
//! the halo (two sharp edges crossing, first touch of two curved faces) the floor below
//! holds the pair.
//!
//! **Cost.** A pair whose integral a cheap bound (from the partners' planes and edge
//! planes, three dot products per corner and triangle pair) proves below its floor goes
//! to the floor without the quadrature: curved contacts almost always, since their
//! integral grows like the square of the overlap and the floor linearly.
//!
//! **Floor.** Near a corner pressed into a face the overlap volume grows like δ³ with the
//! penetration δ, far softer than the seed's linear spring: a box landing on a corner
//! would sink through the halo. A pair's total spring `Σ wᵢ·(m − dᵢ)` is therefore never
//! below the seed spring `m − d_min` of its deepest fine contact point; below it, the
//! pair's contacts become that one seed point ([`pair_contacts`]); under Hertz–Mindlin,
//! the seed's merged points instead (`apply_seed_floor`). Face-on-face contacts, whose integral is
//! many points' worth, never reach the floor, so their force stays independent of the
//! triangulation.
//!
//! **Output.** Triangle samples closer than ε are merged (Implementation remark 1) into
//! [`Contact`]s with `weight = A_in/A_ref` (the projected area inside the halo relative to
//! `A_ref`) and `dist = m − ∫(m − d)₊/A_in`, so that `k·weight·(m − dist)` is the merged
//! samples' spring force exactly and `k·weight` their stiffness.

use super::merge::merge_pair;
use super::normal::robust_normal;
use super::pair::TINY_DISTANCE;
use super::triangle_point::closest_on_triangle;
use super::{Contact, RawContact};
use crate::model::{ContactPoints, Model, Other};
use crate::state::Body;
use cull::Mask;
use msdem_geom::math::{Iso3, Point3, Vec3};
use msdem_tree::SurrogateTree;
use prune::Planes;

mod cull;
mod prune;

/// Reference area `A_ref = π·R_eff·m` \[m²\] of a pair: bounding radii `r_a`, `r_b` \[m\]
/// (`None` for an obstacle) and margin `m` \[m\] (see the module docs).
pub fn reference_area(r_a: f64, r_b: Option<f64>, margin: f64) -> f64 {
    let r_eff = match r_b {
        Some(r_b) => r_a * r_b / (r_a + r_b),
        None => r_a,
    };
    std::f64::consts::PI * r_eff * margin
}

/// One triangle's contribution.
#[derive(Clone, Copy, Debug)]
struct Sample {
    /// Pressure centroid, moved to mid-halo \[m\].
    point: Vec3,
    /// Unit normal from `b` towards `a`.
    normal: Vec3,
    /// Projected area inside the halo \[m²\].
    area: f64,
    /// `∫ (m − d)₊ cos θ dA` \[m³\].
    integral: f64,
    /// Largest corner overlap `m − d` \[m\].
    depth: f64,
}

/// World corners of soup triangle `t` of `tree` under `pose`.
fn world_tri(tree: &SurrogateTree, pose: &Iso3, t: u32) -> [Vec3; 3] {
    tree.soup[t as usize]
        .v
        .map(|v| (pose * Point3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]))).coords)
}

/// Unit normal of a triangle (zero if degenerate) and its area \[m²\].
fn normal_area(t: &[Vec3; 3]) -> (Vec3, f64) {
    let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
    let len = n.norm();
    if len > 0.0 {
        (n / len, 0.5 * len)
    } else {
        (Vec3::zeros(), 0.0)
    }
}

/// `∫ f₊ dA` \[m³\], `∫ f₊ dA` area \[m²\] and first moment `∫ x f₊ dA` of the linear
/// function with corner values `f` over the triangle `x`, clipped at 0 (closed forms: the
/// positive part is a triangle or a quadrilateral split into two).
fn clipped_integral(x: &[Vec3; 3], f: [f64; 3], area: f64) -> (f64, f64, Vec3) {
    // Integral, area and first moment of a linear function over one triangle.
    let tri = |p: [Vec3; 3], g: [f64; 3], a: f64| {
        let s = g[0] + g[1] + g[2];
        let moment =
            (g[0] * p[0] + g[1] * p[1] + g[2] * p[2] + s * (p[0] + p[1] + p[2])) * (a / 12.0);
        (a * s / 3.0, a, moment)
    };
    let pos = f.map(|v| v > 0.0);
    let count = pos.iter().filter(|&&p| p).count();
    match count {
        0 => (0.0, 0.0, Vec3::zeros()),
        3 => tri(*x, f, area),
        1 => {
            let i = pos.iter().position(|&p| p).unwrap_or(0);
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            let tj = f[i] / (f[i] - f[j]);
            let tk = f[i] / (f[i] - f[k]);
            let pj = x[i] + tj * (x[j] - x[i]);
            let pk = x[i] + tk * (x[k] - x[i]);
            tri([x[i], pj, pk], [f[i], 0.0, 0.0], area * tj * tk)
        }
        _ => {
            let k = pos.iter().position(|&p| !p).unwrap_or(0);
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            let si = f[i] / (f[i] - f[k]);
            let sj = f[j] / (f[j] - f[k]);
            let pi = x[i] + si * (x[k] - x[i]);
            let pj = x[j] + sj * (x[k] - x[j]);
            // Quad x_i, x_j, p_j, p_i: triangles (x_i, x_j, p_j) and (x_i, p_j, p_i).
            let a1 = 0.5 * (x[j] - x[i]).cross(&(pj - x[i])).norm();
            let a2 = 0.5 * (pj - x[i]).cross(&(pi - x[i])).norm();
            let (i1, ar1, m1) = tri([x[i], x[j], pj], [f[i], f[j], 0.0], a1);
            let (i2, ar2, m2) = tri([x[i], pj, pi], [f[i], 0.0, 0.0], a2);
            (i1 + i2, ar1 + ar2, m1 + m2)
        }
    }
}

/// Deepest midpoint refinement of a triangle whose halo boundary the linear
/// interpolation of its corners cannot resolve (each level halves the edges).
pub const MAX_REFINE: u32 = 6;

/// What [`SideCtx::eval`] finds at a point.
#[derive(Clone, Copy, Debug)]
struct Corner {
    /// Overlap `m − d` (clamped to `≤ m`) \[m\].
    f: f64,
    /// Unit direction from `b` towards `a`.
    dir: Vec3,
    /// Distance to the closest partner \[m\] (before the `behind` branch).
    d: f64,
}

/// One side's view of a pair during the quadrature.
struct SideCtx<'c> {
    o_tris: &'c [Partner],
    n_s: Vec3,
    s_is_a: bool,
    b_is_obstacle: bool,
    centre_dir: &'c Vec3,
    margin: f64,
    /// Skip cells that provably integrate to nothing ([`SideCtx::contributes_nothing`])
    /// and evaluate midpoints against the partners that may be the closest only
    /// ([`SideCtx::nearby`]); `false` only in the tests that check both against the full
    /// quadrature.
    prune: bool,
}

/// Largest height \[m\] of a partner vertex in front of a side triangle's plane, relative
/// to the lower bound of their distance, that [`SideCtx::contributes_nothing`] accepts as
/// "on the plane": far above the rounding of world coordinates (a coplanar neighbour's
/// face, ≈ 10⁻¹⁶ m per metre), far below any direction that matters (every corner's
/// `cos` ≤ 10⁻⁹).
const FRONT_SLACK: f64 = 1e-9;

impl SideCtx<'_> {
    /// Overlap `f = m − d` (clamped to `≤ m`) of the point `c` and the direction from `b`
    /// towards `a` there, against the partners in `mask` (which must hold the closest).
    fn eval(&self, c: &Vec3, mask: Mask) -> Corner {
        let mut best = (f64::INFINITY, Vec3::zeros(), Vec3::zeros());
        self.each(mask, |_, Partner { y, n, .. }| {
            let q = closest_on_triangle(c, &y[0], &y[1], &y[2]);
            let d2 = (c - q).norm_squared();
            if d2 < best.0 {
                best = (d2, q, *n);
            }
        });
        let (d2, q, n_o) = best;
        let mut d = d2.sqrt();
        let raw = d;
        let v = c - q;
        let sign = if self.s_is_a { 1.0 } else { -1.0 };
        let (n_a, n_b) = if self.s_is_a {
            (self.n_s, n_o)
        } else {
            (n_o, self.n_s)
        };
        // A point behind the other face, whose closest point lies inside that face (the
        // offset is along the face normal), has penetrated past the halo: full overlap
        // along the faces' normals. Behind a face but closest to its edge or corner, the
        // side is ambiguous with the partner triangles alone (a far point of a large
        // ground "behind" a box's side face): the distance decides.
        let along = v.dot(&n_o);
        let lateral = (v - along * n_o).norm();
        let behind = along < 0.0 && lateral <= 1e-6 * d.max(self.margin);
        let dir = if d > TINY_DISTANCE * self.margin && !behind {
            sign * v / d
        } else {
            if behind {
                d = 0.0;
            }
            robust_normal(&n_a, &n_b, self.b_is_obstacle, self.centre_dir)
        };
        Corner {
            f: (self.margin - d).min(self.margin),
            dir,
            d: raw,
        }
    }

    /// Integrates the triangle `x` with corner values `v` into `out`, refining it by
    /// midpoints where the halo boundary or a closer region may lie inside it (the
    /// distance is 1-Lipschitz: a triangle whose corners are all farther than
    /// `m + longest edge` has no point in the halo). Returns the integral \[m³\].
    fn integrate(
        &self,
        x: [Vec3; 3],
        v: [Corner; 3],
        level: u32,
        mask: Mask,
        out: &mut Vec<Sample>,
    ) -> f64 {
        let f = v.map(|p| p.f);
        let longest = (x[1] - x[0])
            .norm()
            .max((x[2] - x[1]).norm())
            .max((x[0] - x[2]).norm());
        let all_in = f.iter().all(|&g| g > 0.0);
        let best = f.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        if best + longest <= 0.0 {
            return 0.0;
        }
        if !all_in && level < MAX_REFINE && longest > self.margin {
            let mask = if self.prune {
                self.nearby(&x, &v, longest, mask)
            } else {
                mask
            };
            if self.prune && self.contributes_nothing(&x, &v, longest, mask) {
                #[cfg(test)]
                tests::PRUNED.with(|p| p.set(p.get() + 1));
                return 0.0;
            }
            let m = [
                0.5 * (x[0] + x[1]),
                0.5 * (x[1] + x[2]),
                0.5 * (x[2] + x[0]),
            ];
            let vm = m.map(|p| self.eval(&p, mask));
            let next = level + 1;
            return self.integrate([x[0], m[0], m[2]], [v[0], vm[0], vm[2]], next, mask, out)
                + self.integrate([m[0], x[1], m[1]], [vm[0], v[1], vm[1]], next, mask, out)
                + self.integrate([m[2], m[1], x[2]], [vm[2], vm[1], v[2]], next, mask, out)
                + self.integrate([m[0], m[1], m[2]], [vm[0], vm[1], vm[2]], next, mask, out);
        }
        let area = 0.5 * (x[1] - x[0]).cross(&(x[2] - x[0])).norm();
        let (raw_integral, raw_area, moment) = clipped_integral(&x, f, area);
        if raw_integral.is_nan() || raw_integral <= 0.0 {
            return 0.0;
        }
        let mut normal = Vec3::zeros();
        for c in &v {
            normal += c.f.max(0.0) * c.dir;
        }
        let Some(normal) = normal.try_normalize(0.0) else {
            return 0.0;
        };
        let sign = if self.s_is_a { 1.0 } else { -1.0 };
        let cos = (-sign * self.n_s.dot(&normal)).max(0.0);
        if cos <= 0.0 {
            return 0.0;
        }
        let integral = raw_integral * cos;
        let centroid = moment / raw_integral;
        // Mid-halo: half the mean gap of the positive region towards the other side.
        let gap = self.margin - raw_integral / raw_area;
        out.push(Sample {
            point: centroid - sign * 0.5 * gap * normal,
            normal,
            area: raw_area * cos,
            integral,
            depth: best.max(0.0),
        });
        integral
    }
}

/// One side's triangles in contact, grouped with their partners on the other side, in
/// world coordinates (the quadrature's input).
#[derive(Debug, Default)]
struct SideGroups {
    /// World corners of each triangle of this side in contact and the range of its
    /// partners in `partners`.
    tris: Vec<([Vec3; 3], usize, usize)>,
    /// The partner triangles, per triangle in `tris`.
    partners: Vec<Partner>,
}

/// A partner triangle of the quadrature (the other side's, in world coordinates).
#[derive(Clone, Copy, Debug)]
struct Partner {
    /// Corners \[m\].
    y: [Vec3; 3],
    /// Unit normal, zero if degenerate.
    n: Vec3,
    /// Per edge `k` (from `y[k]` to `y[k + 1]`), the outward unit normal of its plane
    /// perpendicular to the triangle (`None` where degenerate).
    out: [Option<Vec3>; 3],
    /// Lower corner of the axis-aligned box \[m\].
    lo: Vec3,
    /// Upper corner of the axis-aligned box \[m\].
    hi: Vec3,
}

impl Partner {
    /// The partner with corners `y`.
    fn new(y: [Vec3; 3]) -> Self {
        let n = normal_area(&y).0;
        let out = [0, 1, 2].map(|k| {
            let (p, q, r) = (y[k], y[(k + 1) % 3], y[(k + 2) % 3]);
            let out = (q - p).cross(&n).try_normalize(0.0)?;
            Some(if out.dot(&(r - p)) > 0.0 { -out } else { out })
        });
        let lo = y[0].inf(&y[1]).inf(&y[2]);
        let hi = y[0].sup(&y[1]).sup(&y[2]);
        Self { y, n, out, lo, hi }
    }
}

impl SideGroups {
    /// Groups `pairs` (`(s triangle, o triangle)` in contact, sorted by the `s` triangle)
    /// of side `s` against side `o`.
    fn build(
        &mut self,
        s_tree: &SurrogateTree,
        s_pose: &Iso3,
        o_tree: &SurrogateTree,
        o_pose: &Iso3,
        pairs: &[(u32, u32)],
    ) {
        self.tris.clear();
        self.partners.clear();
        let mut start = 0;
        while start < pairs.len() {
            let t = pairs[start].0;
            let mut end = start;
            while end < pairs.len() && pairs[end].0 == t {
                end += 1;
            }
            let first = self.partners.len();
            self.partners.extend(
                pairs[start..end]
                    .iter()
                    .map(|&(_, u)| Partner::new(world_tri(o_tree, o_pose, u))),
            );
            self.tris
                .push((world_tri(s_tree, s_pose, t), first, self.partners.len()));
            start = end;
        }
    }

    /// An upper bound \[m³\] of what [`SideGroups::integrate`] returns, from planes alone
    /// (three dot products per corner and partner): each triangle adds at most its area
    /// times its largest overlap `m − d_lb`, `d_lb` a lower bound of its distance to its
    /// partners ([`distance_lower_bound`]), or times `m` when a point of it may lie
    /// behind a partner face (counted as fully penetrated by [`SideCtx::eval`]). Every
    /// value the quadrature interpolates is one of the triangle's overlaps, so its
    /// integral over the triangle is at most that.
    fn bound(&self, margin: f64) -> f64 {
        let mut total = 0.0;
        for (x, first, end) in &self.tris {
            let longest = (x[1] - x[0])
                .norm()
                .max((x[2] - x[1]).norm())
                .max((x[0] - x[2]).norm());
            let mut d_lb = f64::INFINITY;
            for y in &self.partners[*first..*end] {
                match distance_lower_bound(x, y, margin + longest) {
                    Some(d) => d_lb = d_lb.min(d),
                    None => {
                        d_lb = 0.0;
                        break;
                    }
                }
            }
            // Slack for the rounding of distances computed in different ways.
            let overlap = (margin - d_lb + BOUND_SLACK).min(margin);
            if overlap > 0.0 {
                total += normal_area(x).1 * overlap;
            }
        }
        total
    }

    /// Samples of this side against the other into `out` (`s_is_a`: this side is body
    /// `a`; normals point from `b` to `a`; `prune`: skip cells that provably add
    /// nothing, [`SideCtx::contributes_nothing`], and partners never the closest,
    /// [`SideCtx::nearby`]). Returns the summed integral \[m³\].
    fn integrate(
        &self,
        s_is_a: bool,
        b_is_obstacle: bool,
        centre_dir: &Vec3,
        margin: f64,
        prune: bool,
        out: &mut Vec<Sample>,
    ) -> f64 {
        let mut total = 0.0;
        for (x, first, end) in &self.tris {
            let ctx = SideCtx {
                o_tris: &self.partners[*first..*end],
                n_s: normal_area(x).0,
                s_is_a,
                b_is_obstacle,
                centre_dir,
                margin,
                prune,
            };
            let v = x.map(|c| ctx.eval(&c, cull::ALL));
            total += ctx.integrate(*x, v, 0, cull::ALL, out);
        }
        total
    }
}

/// A lower bound \[m\] of the distance from every point of the triangle `x` to the
/// partner triangle `y`, or `None` when a point of `x` may
/// lie behind `y` as [`SideCtx::eval`] decides it (then it counts as fully penetrated).
/// `reach` \[m\]: the largest distance between points of the two triangles that matters
/// (the margin plus `x`'s longest edge). The distance to `y` is at least the distance to
/// its plane and to each half-space bounded by an edge's plane perpendicular to `y`;
/// each is affine along `x`, so its minimum over `x` is at a corner. Where `x` lies
/// wholly beyond an edge, the distance to the half-plane beyond it bounds both at once.
fn distance_lower_bound(x: &[Vec3; 3], y: &Partner, reach: f64) -> Option<f64> {
    lower_bound(&Planes::of(x, y), reach)
}

/// [`distance_lower_bound`] from the corners' [`Planes`] against the partner.
fn lower_bound(planes: &Planes, reach: f64) -> Option<f64> {
    let s = planes.s;
    let s_min = s[0].min(s[1]).min(s[2]);
    let s_max = s[0].max(s[1]).max(s[2]);
    let plane = if s_min >= 0.0 {
        s_min
    } else if s_max <= 0.0 {
        -s_max
    } else {
        0.0
    };
    // Outside an edge of `y` by more than eval's "inside the face" tolerance, a point
    // is never behind `y`.
    let mut outside: f64 = 0.0;
    for e in planes.e.iter().flatten() {
        let e_min = e[0].min(e[1]).min(e[2]);
        outside = outside.max(e_min);
        if e_min > 0.0 {
            // Outside edge k everywhere on `x`: the distance to `y` is at least the
            // distance to its half-plane beyond that edge, `|(s, e_k)|` with both affine
            // along `x`, whose minimum is the distance from the origin to the plane
            // triangle of the corners' `(s, e_k)`.
            let q = [0, 1, 2].map(|i| [s[i], e[i]]);
            outside = outside.max(origin_to_triangle_2d(&q));
        }
    }
    let never_behind = s_min >= 0.0 || outside > 1e-5 * reach;
    never_behind.then_some(plane.max(outside))
}

/// Distance from the origin to the plane triangle `q`.
fn origin_to_triangle_2d(q: &[[f64; 2]; 3]) -> f64 {
    let cross = |a: [f64; 2], b: [f64; 2]| a[0] * b[1] - a[1] * b[0];
    let side = [0, 1, 2].map(|i| {
        let (a, b) = (q[i], q[(i + 1) % 3]);
        cross([b[0] - a[0], b[1] - a[1]], [-a[0], -a[1]])
    });
    if side.iter().all(|&c| c >= 0.0) || side.iter().all(|&c| c <= 0.0) {
        return 0.0;
    }
    (0..3)
        .map(|i| {
            let (a, b) = (q[i], q[(i + 1) % 3]);
            let d = [b[0] - a[0], b[1] - a[1]];
            let len2 = d[0] * d[0] + d[1] * d[1];
            let t = if len2 > 0.0 {
                (-(a[0] * d[0] + a[1] * d[1]) / len2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            (a[0] + t * d[0]).hypot(a[1] + t * d[1])
        })
        .fold(f64::INFINITY, f64::min)
}

/// Absolute slack \[m\] of [`SideGroups::bound`]'s overlaps: far above the rounding of
/// world coordinates (≈ 10⁻¹⁵ m at 10 m), far below any halo.
const BOUND_SLACK: f64 = 1e-12;

/// A side of a mesh pair is integrated alone when its mean edge is at most this fraction
/// of the other side's ([`MeshGeometry::edge_length`](crate::model::MeshGeometry)).
pub const FINER_SIDE: f64 = 0.5;

/// Which sides of a mesh pair the quadrature integrates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntegratedSides {
    /// Body `a`'s surface only (its triangles are finer).
    A,
    /// Body `b`'s surface only.
    B,
    /// Both; the larger integral is used.
    Both,
}

/// The sides integrated for a pair whose mean edges are `h_a`, `h_b` \[m\]: the finer side
/// alone when it is at least twice as fine ([`FINER_SIDE`]), else both. The coarse side
/// cannot resolve a contact smaller than its triangles (a particle on a staircase whose
/// treads are two triangles of 2 m) and costs the most: its triangles straddle the halo
/// boundary and are refined the full [`MAX_REFINE`] levels.
pub fn integrated_sides(h_a: f64, h_b: f64) -> IntegratedSides {
    if h_a <= FINER_SIDE * h_b {
        IntegratedSides::A
    } else if h_b <= FINER_SIDE * h_a {
        IntegratedSides::B
    } else {
        IntegratedSides::Both
    }
}

/// Trees, mesh → world poses and mean edges of a mesh–mesh pair.
struct Sides<'m> {
    tree_a: &'m SurrogateTree,
    a_to_world: Iso3,
    edge_a: f64,
    tree_b: &'m SurrogateTree,
    b_to_world: Iso3,
    edge_b: f64,
}

/// The [`Sides`] of (`a`, `b`) when both are meshes.
fn mesh_sides<'m>(model: &'m Model, bodies: &[Body], a: u32, b: Other) -> Option<Sides<'m>> {
    let body_a = bodies.get(a as usize)?;
    let shape_a = model.shapes.get(body_a.shape as usize)?;
    let (geom_b, b_to_world) = match b {
        Other::Particle(j) => {
            let body = bodies.get(j as usize)?;
            let shape = model.shapes.get(body.shape as usize)?;
            (shape.geometry.mesh()?, body.mesh_to_world(&shape.com))
        }
        Other::Obstacle(o) => {
            let ob = model.obstacles.get(o as usize)?;
            (ob.geometry.mesh()?, ob.pose)
        }
    };
    let geom_a = shape_a.geometry.mesh()?;
    Some(Sides {
        tree_a: &geom_a.tree,
        a_to_world: body_a.mesh_to_world(&shape_a.com),
        edge_a: geom_a.edge_length,
        tree_b: &geom_b.tree,
        b_to_world,
        edge_b: geom_b.edge_length,
    })
}

/// Per-thread buffers of [`pair_contacts`].
#[derive(Debug, Default)]
struct Scratch {
    pairs_a: Vec<(u32, u32)>,
    pairs_b: Vec<(u32, u32)>,
    side_a: SideGroups,
    side_b: SideGroups,
    samples_a: Vec<Sample>,
    samples_b: Vec<Sample>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// The contacts of the mesh pair (`a`, `b`) from its fine raw contacts `raw` (sorted by
/// triangle indices, as every detection path delivers them), appended to `out` (see the
/// module docs). Pairs that are not mesh–mesh get the seed's merged points
/// ([`merge_pair`], weight 1); a mesh pair whose integral is below the spring of its
/// deepest fine contact (also one without any corner in the halo) gets that one point.
///
/// Cost: only the finer side is integrated when the other is at least twice as coarse
/// ([`integrated_sides`]), and a pair whose integral a cheap bound from the partners'
/// planes proves below
/// the floor goes to the floor without the quadrature (curved faces almost always: their
/// integral grows like the square of the overlap, the floor linearly).
pub fn pair_contacts(
    model: &Model,
    bodies: &[Body],
    a: u32,
    b: Other,
    raw: &[RawContact],
    out: &mut Vec<Contact>,
) {
    let Some(body_a) = bodies.get(a as usize) else {
        return;
    };
    let (r_b, eps_b) = match b {
        Other::Particle(j) => match bodies.get(j as usize) {
            Some(bb) => (Some(bb.radius), bb.epsilon),
            None => return,
        },
        Other::Obstacle(o) => match model.obstacles.get(o as usize) {
            Some(ob) => (None, ob.epsilon),
            None => return,
        },
    };
    let margin = body_a.epsilon + eps_b;
    if super::smooth::is_smooth(model, bodies, a, b) {
        let mut curved = Vec::with_capacity(raw.len());
        super::smooth::smooth_raw(model, bodies, a, b, raw, margin, &mut curved);
        if !curved.is_empty() {
            flat_pair_contacts(model, bodies, a, b, (r_b, margin), &curved, out);
        }
        return;
    }
    flat_pair_contacts(model, bodies, a, b, (r_b, margin), raw, out);
}

/// [`pair_contacts`] of fine pairs measured between the surfaces the contact uses; `rm`:
/// `b`'s bounding radius (`None` for an obstacle) and the pair's margin \[m\].
fn flat_pair_contacts(
    model: &Model,
    bodies: &[Body],
    a: u32,
    b: Other,
    rm: (Option<f64>, f64),
    raw: &[RawContact],
    out: &mut Vec<Contact>,
) {
    let (r_b, margin) = rm;
    let body_a = &bodies[a as usize];
    if model.contact_points == ContactPoints::Seed {
        return merge_pair(a, b, raw, 0.5 * margin, out);
    }
    let Some(sides) =
        mesh_sides(model, bodies, a, b).filter(|_| raw.iter().all(|r| r.tri_a != u32::MAX))
    else {
        return merge_pair(a, b, raw, 0.5 * margin, out);
    };
    let b_is_obstacle = matches!(b, Other::Obstacle(_));
    let centre_b = match b {
        Other::Particle(j) => bodies[j as usize].position,
        Other::Obstacle(_) => sides.b_to_world.translation.vector,
    };
    let centre_dir = (body_a.position - centre_b)
        .try_normalize(0.0)
        .unwrap_or_else(Vec3::z);
    let which = integrated_sides(sides.edge_a, sides.edge_b);
    let (use_a, use_b) = (which != IntegratedSides::B, which != IntegratedSides::A);
    let a_ref = reference_area(body_a.radius, r_b, margin);
    let floor = raw
        .iter()
        .map(|r| r.dist)
        .reduce(f64::min)
        .map_or(0.0, |d| (margin - d).min(margin));
    let first = out.len();
    SCRATCH.with_borrow_mut(|sc| {
        sc.pairs_a.clear();
        sc.pairs_a.extend(raw.iter().map(|r| (r.tri_a, r.tri_b)));
        sc.pairs_a.sort_unstable();
        sc.pairs_a.dedup();
        if use_a {
            sc.side_a.build(
                sides.tree_a,
                &sides.a_to_world,
                sides.tree_b,
                &sides.b_to_world,
                &sc.pairs_a,
            );
        }
        if use_b {
            sc.pairs_b.clear();
            sc.pairs_b.extend(sc.pairs_a.iter().map(|&(x, y)| (y, x)));
            sc.pairs_b.sort_unstable();
            sc.side_b.build(
                sides.tree_b,
                &sides.b_to_world,
                sides.tree_a,
                &sides.a_to_world,
                &sc.pairs_b,
            );
        }
        // The floor holds the pair whatever the quadrature gives: skip it.
        let bound = |used: bool, side: &SideGroups| if used { side.bound(margin) } else { 0.0 };
        let bound = bound(use_a, &sc.side_a).max(bound(use_b, &sc.side_b));
        if bound < a_ref * floor * (1.0 - 1e-9) {
            return;
        }
        sc.samples_a.clear();
        sc.samples_b.clear();
        let ia = if use_a {
            sc.side_a.integrate(
                true,
                b_is_obstacle,
                &centre_dir,
                margin,
                true,
                &mut sc.samples_a,
            )
        } else {
            0.0
        };
        let ib = if use_b {
            sc.side_b.integrate(
                false,
                b_is_obstacle,
                &centre_dir,
                margin,
                true,
                &mut sc.samples_b,
            )
        } else {
            0.0
        };
        let samples = if ia >= ib {
            &sc.samples_a
        } else {
            &sc.samples_b
        };
        if ia.max(ib) > 0.0 {
            merge_samples(a, b, samples, 0.5 * margin, margin, a_ref, out);
        }
    });
    let hertz = super::pair::PairParams::of(model, bodies, a, b)
        .hertz
        .is_some();
    let smooth = super::smooth::is_smooth(model, bodies, a, b);
    apply_seed_floor(a, b, out, first, margin, raw, hertz, smooth);
}

/// The force floor of the pair (`a`, `b`) (see the module docs): when the pair's
/// integrated spring `Σ wᵢ·(m − dᵢ)` of `out[first..]` is below the seed spring
/// `m − d_min` of its deepest fine contact (among `raw`), the pair's contacts are replaced
/// by that one seed point (seed 000 §2: weight 1, distance `d_min`, its midpoint and
/// normal). A corner or an edge pressed into a face has an overlap volume that grows like
/// δ³ or δ² with the penetration δ; the floor gives it the seed's linear spring, so it is
/// never softer than one seed point, and its dashpot is calibrated for a linear spring.
/// The floor alone is the potential `½k·(m − d_min)²` of the deepest fine pair, a
/// continuous function of the poses, so an elastic impact held by it conserves energy
/// (unlike merged averages, whose clusters change as fine pairs come and go). Face-on-face
/// contacts, whose integral is many points' worth, never reach the floor, so their force
/// stays independent of the triangulation. The switch is continuous in the total force.
///
/// Under Hertz–Mindlin (`hertz`) the pair's force is Hertz's of the deepest overlap
/// whatever its points ([`super::hertz`]); there the floor's points are the seed's merged
/// points ([`merge_pair`]), among which that force is shared in proportion to their
/// overlaps, so that its application point moves continuously as a curved face rolls
/// over its vertices (one deepest point jumps from vertex to vertex: a 1,280-triangle
/// sphere then rolls 5 % slow, `tests/physics/rolling.rs`).
#[allow(clippy::too_many_arguments)]
fn apply_seed_floor(
    a: u32,
    b: Other,
    out: &mut Vec<Contact>,
    first: usize,
    margin: f64,
    raw: &[RawContact],
    hertz: bool,
    smooth: bool,
) {
    let Some(deepest) = raw
        .iter()
        .reduce(|x, y| if y.dist < x.dist { y } else { x })
    else {
        return;
    };
    let floor = (margin - deepest.dist).min(margin);
    let total: f64 = out[first..]
        .iter()
        .map(|c| c.weight * (margin - c.dist))
        .sum();
    if !(floor > total && floor.is_finite()) {
        return;
    }
    if hertz {
        out.truncate(first);
        return merge_pair(a, b, raw, 0.5 * margin, out);
    }
    // Fine pairs tied with the deepest (a vertex's triangles against a face: one closest
    // point, normals equal up to the f32 geometry's rounding; an edge along a face) share
    // its point and normal: their average, so that the rounding does not pick a side.
    // Only parallel normals ([`TIE_COS`]): averaging two different features' normals is
    // not the gradient of the floor's potential.
    let tie = deepest.dist + TIE_FRACTION * margin;
    let (mut point, mut dir) = (Vec3::zeros(), Vec3::zeros());
    let mut count = 0.0;
    // Curved surfaces ([`super::smooth`]) meet nearly parallel across a facet edge: two
    // neighbouring facets' closest points there are different points with normals a
    // fraction of 10⁻³ rad apart, so there the tie also asks for the same point.
    let mid = 0.5 * (deepest.p + deepest.q);
    let same_point =
        |r: &RawContact| !smooth || (0.5 * (r.p + r.q) - mid).norm() <= TIE_FRACTION * margin;
    for r in raw
        .iter()
        .filter(|r| r.dist <= tie && r.normal.dot(&deepest.normal) >= TIE_COS && same_point(r))
    {
        point += 0.5 * (r.p + r.q);
        dir += r.normal;
        count += 1.0;
    }
    let normal = dir.try_normalize(0.0).unwrap_or(deepest.normal);
    out.truncate(first);
    out.push(Contact {
        a,
        b,
        point: point / count,
        normal,
        dist: deepest.dist.clamp(0.0, margin),
        weight: 1.0,
        depth: floor,
    });
}

/// Fine pairs within this fraction of the margin of the deepest one count as tied with
/// it in [`apply_seed_floor`] (when their normals agree, [`TIE_COS`]).
const TIE_FRACTION: f64 = 1e-4;

/// Cosine of the largest angle (10⁻³ rad) between the normals of tied fine pairs in
/// [`apply_seed_floor`]: the same closest points reached through several triangles (a
/// vertex's triangles against a face) or parallel features (an edge along a face) share
/// one normal up to the `f32` geometry's rounding; two different features near a switch
/// (a vertex above a face near its edge, against that edge: distances apart by
/// `Δ²/(2d)` for closest points `Δ` apart) do not, and averaging their normals is not the
/// gradient of the floor's potential (an elastic off-centre impact of two noisy spheres
/// lost 0.005 % of its energy at every time step that way).
const TIE_COS: f64 = 1.0 - 0.5e-6;

/// Greedy merge of samples closer than `radius` (remark 1; the order of `samples` is the
/// triangle order), keeping each cluster's spring force and stiffness exactly.
fn merge_samples(
    a: u32,
    b: Other,
    samples: &[Sample],
    radius: f64,
    margin: f64,
    a_ref: f64,
    out: &mut Vec<Contact>,
) {
    struct Cluster {
        anchor: Vec3,
        force: Vec3,
        moment: Vec3,
        integral: f64,
        area: f64,
        depth: f64,
    }
    let r2 = radius * radius;
    let mut clusters: Vec<Cluster> = Vec::new();
    for s in samples {
        let c = match clusters
            .iter_mut()
            .find(|c| (c.anchor - s.point).norm_squared() < r2)
        {
            Some(c) => c,
            None => {
                clusters.push(Cluster {
                    anchor: s.point,
                    force: Vec3::zeros(),
                    moment: Vec3::zeros(),
                    integral: 0.0,
                    area: 0.0,
                    depth: 0.0,
                });
                clusters.last_mut().expect("just pushed")
            }
        };
        c.force += s.integral * s.normal;
        c.moment += s.integral * s.point;
        c.integral += s.integral;
        c.area += s.area;
        c.depth = c.depth.max(s.depth);
    }
    out.extend(clusters.iter().filter_map(|c| {
        let len = c.force.norm();
        let normal = c.force.try_normalize(0.0)?;
        (c.area > 0.0).then(|| Contact {
            a,
            b,
            point: c.moment / c.integral,
            normal,
            dist: (margin - len / c.area).clamp(0.0, margin),
            weight: c.area / a_ref,
            depth: c.depth,
        })
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    thread_local! {
        /// Triangles skipped by [`SideCtx::contributes_nothing`] on this thread.
        pub(super) static PRUNED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Outward-wound triangles of an axis-aligned cube of half side `half` at the origin,
    /// each face split `splits × splits` (two triangles per cell).
    pub(super) fn cube(half: f64, splits: usize) -> Vec<[Vec3; 3]> {
        let mut tris = Vec::new();
        for k in 0..3 {
            for sign in [1.0, -1.0] {
                let n = sign * Vec3::ith(k, 1.0);
                let (mut u, mut v) = (Vec3::ith((k + 1) % 3, 1.0), Vec3::ith((k + 2) % 3, 1.0));
                if sign < 0.0 {
                    std::mem::swap(&mut u, &mut v);
                }
                let h = 2.0 * half / splits as f64;
                let p = |i: usize, j: usize| {
                    half * n + (-half + i as f64 * h) * u + (-half + j as f64 * h) * v
                };
                for i in 0..splits {
                    for j in 0..splits {
                        tris.push([p(i, j), p(i + 1, j), p(i + 1, j + 1)]);
                        tris.push([p(i, j), p(i + 1, j + 1), p(i, j + 1)]);
                    }
                }
            }
        }
        tris
    }

    /// Side `s` against `o`: every pair of triangles whose bounding boxes are within
    /// `margin` (a superset of the narrow phase's pairs).
    fn groups(s: &[[Vec3; 3]], o: &[[Vec3; 3]], margin: f64) -> SideGroups {
        let bb = |t: &[Vec3; 3]| {
            let lo = t[0].inf(&t[1]).inf(&t[2]);
            let hi = t[0].sup(&t[1]).sup(&t[2]);
            (lo, hi)
        };
        let mut g = SideGroups::default();
        for x in s {
            let (lo, hi) = bb(x);
            let first = g.partners.len();
            for y in o {
                let (lo2, hi2) = bb(y);
                if (0..3).all(|k| lo[k] <= hi2[k] + margin && lo2[k] <= hi[k] + margin) {
                    g.partners.push(Partner::new(*y));
                }
            }
            if g.partners.len() > first {
                g.tris.push((*x, first, g.partners.len()));
            }
        }
        g
    }

    /// Total spring force and its torque about the origin (up to the factor `k/A_ref`)
    /// of merged samples.
    fn force_torque(samples: &[Sample], margin: f64) -> (Vec3, Vec3) {
        let mut out = Vec::new();
        merge_samples(
            0,
            Other::Particle(1),
            samples,
            0.5 * margin,
            margin,
            1.0,
            &mut out,
        );
        out.iter()
            .fold((Vec3::zeros(), Vec3::zeros()), |(f, t), c| {
                let fc = c.weight * (margin - c.dist) * c.normal;
                (f + fc, t + c.point.cross(&fc))
            })
    }

    /// The early-out of cells that add nothing ([`SideCtx::contributes_nothing`]) and the
    /// culling of partners never the closest ([`SideCtx::nearby`]) against the full
    /// quadrature (independent truth: the same code with both off): seeded poses of two
    /// cubes of 1, 2 or 4 splits per face edge (stacked flush, offset, tilted, edge-on,
    /// side by side, slanted stacks — shifted by 0.5–3.5 margins, exactly aligned or
    /// tilted by 10⁻⁷–10⁻⁴ rad; from 0.3 margins interpenetrating to a margin apart) and
    /// of a cube on a plane, all under a random global rotation. Both sides' integrals,
    /// samples and the merged contacts' force and torque agree; the skip must fire
    /// (stacked faces; slanted stacks' side faces) for the test to mean anything.
    #[test]
    fn skipping_empty_triangles_changes_nothing() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(8);
        let (half, margin) = (0.05, 4e-3);
        let (mut identical, mut fired, mut contacts) = (0, 0, 0);
        let mut worst_lever: f64 = 0.0;
        let same_sample = |x: &Sample, y: &Sample| {
            x.point == y.point
                && x.normal == y.normal
                && x.area.to_bits() == y.area.to_bits()
                && x.integral.to_bits() == y.integral.to_bits()
                && x.depth.to_bits() == y.depth.to_bits()
        };
        let cases = 800;
        let (mut fired_slanted, mut relaxed) = (0, 0);
        for case in 0..cases {
            let kind = case % 8;
            let splits = [1, 2, 4];
            let (sa, sb) = (splits[rng.gen_range(0..3)], splits[rng.gen_range(0..3)]);
            let gap = margin * rng.gen_range(-0.3..1.0);
            let small = |rng: &mut rand_xoshiro::Xoshiro256PlusPlus, a: f64| {
                Vec3::new(
                    rng.gen_range(-a..a),
                    rng.gen_range(-a..a),
                    rng.gen_range(-a..a),
                )
            };
            let mut rot = match kind {
                0 | 1 => Iso3::rotation(Vec3::z() * rng.gen_range(-0.01..0.01)),
                2 | 5 => Iso3::rotation(small(&mut rng, 0.1)),
                3 => {
                    Iso3::rotation(Vec3::x() * std::f64::consts::FRAC_PI_4)
                        * Iso3::rotation(small(&mut rng, 0.01))
                }
                6 => {
                    let angle = 10f64.powf(rng.gen_range(-7.0..-4.0));
                    Iso3::rotation(small(&mut rng, 1.0).normalize() * angle)
                }
                7 => Iso3::identity(),
                _ => Iso3::rotation(small(&mut rng, 0.02)),
            };
            if kind == 0 && case % 12 == 0 {
                rot = Iso3::identity(); // exactly flush
            }
            let mut a: Vec<[Vec3; 3]> = cube(half, sa)
                .iter()
                .map(|t| t.map(|v| (rot * Point3::from(v)).coords))
                .collect();
            let b: Vec<[Vec3; 3]> = if kind == 5 {
                let c = [
                    Vec3::new(-1.0, -1.0, 0.0),
                    Vec3::new(1.0, -1.0, 0.0),
                    Vec3::new(1.0, 1.0, 0.0),
                    Vec3::new(-1.0, 1.0, 0.0),
                ];
                vec![[c[0], c[1], c[2]], [c[0], c[2], c[3]]]
            } else {
                cube(half, sb)
            };
            // Place `a` a gap above (side by side: beside) `b`'s face.
            let axis = if kind == 4 { 0 } else { 2 };
            let top = if kind == 5 { 0.0 } else { half };
            let low = a
                .iter()
                .flatten()
                .map(|v| v[axis])
                .fold(f64::INFINITY, f64::min);
            let mut shift = Vec3::ith(axis, top + gap - low);
            if kind == 1 || kind == 4 {
                shift[(axis + 1) % 3] = rng.gen_range(-1.5 * half..1.5 * half);
            }
            if kind == 5 {
                shift.x = rng.gen_range(-0.5..0.5);
            }
            if kind >= 6 {
                // A slanted stack's layer (`pipelines/cube_stacks.yaml`: 1–3 margins).
                let sign = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
                shift.x = sign * margin * rng.gen_range(0.5..3.5);
                if kind == 7 {
                    shift.x = sign * margin * f64::from(rng.gen_range(1..4));
                }
            }
            for t in &mut a {
                *t = t.map(|v| v + shift);
            }
            // A random global pose: world coordinates are rounded.
            let global = Iso3::new(small(&mut rng, 3.0), small(&mut rng, 3.0));
            let world = |ts: &[[Vec3; 3]]| -> Vec<[Vec3; 3]> {
                ts.iter()
                    .map(|t| t.map(|v| (global * Point3::from(v)).coords))
                    .collect()
            };
            let (a, b) = (world(&a), world(&b));
            let centre_dir = (global.rotation * shift).normalize();
            let obstacle = kind == 5;
            let mut same = true;
            for (s_is_a, g) in [
                (true, groups(&a, &b, margin)),
                (false, groups(&b, &a, margin)),
            ] {
                let (mut full, mut pruned) = (Vec::new(), Vec::new());
                let i_full = g.integrate(s_is_a, obstacle, &centre_dir, margin, false, &mut full);
                let before = PRUNED.with(|p| p.get());
                let i_pruned =
                    g.integrate(s_is_a, obstacle, &centre_dir, margin, true, &mut pruned);
                if PRUNED.with(|p| p.get()) > before {
                    fired += 1;
                    fired_slanted += usize::from(kind >= 6);
                }
                // What the full quadrature itself resolves: its change when `a` moves by a
                // few ulps of its coordinates (3 m: 4.4·10⁻¹⁶ m). Near-ties between a face
                // and the edge it shares with a neighbour (a tilted slanted stack, aligned
                // sides) make `eval`'s closest point jump by up to ≈ 10⁻⁹ m there.
                // (integral, force of the merged contacts)
                let wobble = || {
                    let (f1, _) = force_torque(&full, margin);
                    let mut worst = (0.0_f64, 0.0_f64);
                    for eps in [1e-15, 3e-15] {
                        let moved: Vec<[Vec3; 3]> = a
                            .iter()
                            .map(|t| t.map(|v| v + Vec3::new(eps, -eps, eps)))
                            .collect();
                        let g2 = if s_is_a {
                            groups(&moved, &b, margin)
                        } else {
                            groups(&b, &moved, margin)
                        };
                        let mut o = Vec::new();
                        let i2 = g2.integrate(s_is_a, obstacle, &centre_dir, margin, false, &mut o);
                        let (f2, _) = force_torque(&o, margin);
                        worst.0 = worst.0.max((i2 - i_full).abs());
                        worst.1 = worst.1.max((f2 - f1).norm());
                    }
                    worst
                };
                let (f_full, t_full) = force_torque(&full, margin);
                let (f_pruned, t_pruned) = force_torque(&pruned, margin);
                let scale = f_full.norm();
                let lever = (t_full - t_pruned).norm() / scale.max(f64::MIN_POSITIVE);
                let loose = (i_full - i_pruned).abs() > 1e-12 * i_full
                    || (f_full - f_pruned).norm() > 1e-12 * scale
                    || lever > 1e-4 * margin;
                let (i_wobble, f_wobble) = if loose {
                    relaxed += 1;
                    wobble()
                } else {
                    (0.0, 0.0)
                };
                assert!(
                    (i_full - i_pruned).abs() <= (1e-12 * i_full).max(2.0 * i_wobble),
                    "case {case}: integral {i_full:e} → {i_pruned:e} (the full one moves by \
                     {i_wobble:e})"
                );
                // Every sample kept is the full quadrature's, bit for bit and in order; the
                // ones dropped are rounding noise (`cos` ≈ 10⁻¹⁶ on coplanar faces, ≤ 10⁻⁶
                // at near-ties): together below 10⁻⁹ of the side's largest possible integral.
                let mut kept = pruned.iter().peekable();
                let mut dropped = 0.0;
                for x in &full {
                    match kept.peek() {
                        Some(y) if same_sample(x, y) => {
                            kept.next();
                        }
                        _ => {
                            dropped += x.integral;
                        }
                    }
                }
                assert!(
                    kept.next().is_none(),
                    "case {case}: a sample not in the full quadrature"
                );
                let most = margin * g.tris.iter().map(|t| normal_area(&t.0).1).sum::<f64>();
                assert!(
                    dropped <= FRONT_SLACK * most,
                    "case {case}: dropped {dropped:e} of at most {most:e}"
                );
                // The merged contacts: the force is the samples' sum whatever the clusters;
                // the torque moves where a dropped noise sample anchored a cluster.
                assert!(
                    (f_full - f_pruned).norm() <= (1e-12 * scale).max(2.0 * f_wobble),
                    "case {case}: force {f_full} → {f_pruned} (the full one moves by {f_wobble:e})"
                );
                // A dropped noise sample that anchored a cluster regroups the samples
                // around it (clusters of radius m/2): the full quadrature's own torque moves
                // by up to 8·10⁻⁵ m × the force when `a` moves by 10⁻¹⁵ m (measured).
                worst_lever = worst_lever.max(lever);
                assert!(
                    lever <= 0.05 * margin,
                    "case {case} side {s_is_a}: torque moved by {lever:e} m × the force {f_full}"
                );
                contacts += usize::from(scale > 0.0);
                same &= i_full.to_bits() == i_pruned.to_bits()
                    && f_full == f_pruned
                    && t_full == t_pruned;
            }
            identical += usize::from(same);
        }
        eprintln!(
            "{identical} of {cases} cases bit for bit; skip fired on {fired} sides \
             ({fired_slanted} slanted); {relaxed} sides within the full quadrature's own \
             wobble only; \
             {contacts} sides in contact; largest torque change / force {worst_lever:e} m"
        );
        assert!(fired > cases / 4, "the skip fired on {fired} sides only");
        assert!(
            fired_slanted > cases / 8,
            "the skip fired on {fired_slanted} slanted sides only"
        );
        assert!(contacts > cases, "{contacts}");
    }

    #[test]
    fn clipped_integral_matches_sampling() {
        let x = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 2.0, 0.0),
        ];
        let area = 1.0;
        for f in [
            [1.0, 2.0, 3.0],
            [1.0, -1.0, -2.0],
            [1.0, 0.5, -2.0],
            [-1.0, -1.0, -0.5],
        ] {
            let (i, ar, m) = clipped_integral(&x, f, area);
            // Midpoint sampling on a fine barycentric grid.
            let n = 600;
            let (mut si, mut sa, mut sm) = (0.0, 0.0, Vec3::zeros());
            let cell = area / (n * n) as f64;
            for u in 0..n {
                for v in 0..n - u {
                    for (du, dv, up) in
                        [(1.0 / 3.0, 1.0 / 3.0, true), (2.0 / 3.0, 2.0 / 3.0, false)]
                    {
                        if !up && u + v + 1 >= n {
                            continue;
                        }
                        let (bu, bv) = ((u as f64 + du) / n as f64, (v as f64 + dv) / n as f64);
                        let bw = 1.0 - bu - bv;
                        let val = bw * f[0] + bu * f[1] + bv * f[2];
                        let p = bw * x[0] + bu * x[1] + bv * x[2];
                        if val > 0.0 {
                            si += val * cell;
                            sa += cell;
                            sm += val * cell * p;
                        }
                    }
                }
            }
            assert!(
                (i - si).abs() < 2e-3 * (1.0 + si.abs()),
                "{f:?}: {i} vs {si}"
            );
            assert!((ar - sa).abs() < 5e-3, "{f:?}: area {ar} vs {sa}");
            assert!(
                (m - sm).norm() < 5e-3 * (1.0 + sm.norm()),
                "{f:?}: {m} vs {sm}"
            );
        }
    }

    /// The early-out's bound is never below what the quadrature integrates (fast path
    /// against slow truth): seeded random triangles, 1–4 partners within the margin (a
    /// corner of each placed near a point of the triangle), in front, straddling,
    /// behind, tiny and degenerate, so that a pair the bound sends to the floor would
    /// have been floored by the quadrature too.
    #[test]
    fn bound_is_never_below_the_quadrature() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(14);
        let unit = |rng: &mut rand_xoshiro::Xoshiro256PlusPlus| {
            Vec3::new(
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
            )
        };
        let mut tight = 0;
        for case in 0..20_000 {
            let margin = 10f64.powf(rng.gen_range(-3.0..-1.5));
            let size = margin * 10f64.powf(rng.gen_range(-1.0..2.0));
            let origin = 5.0 * unit(&mut rng);
            let mut x = [0; 3].map(|_| origin + size * unit(&mut rng));
            if case % 50 == 0 {
                x[2] = x[1]; // degenerate
            }
            let mut partners = Vec::new();
            for _ in 0..rng.gen_range(1..5) {
                let (u, v) = (rng.gen_range(0.0..1.0), rng.gen_range(0.0..1.0));
                let (u, v) = if u + v > 1.0 {
                    (1.0 - u, 1.0 - v)
                } else {
                    (u, v)
                };
                let on_x = x[0] + u * (x[1] - x[0]) + v * (x[2] - x[0]);
                let corner = on_x + rng.gen_range(0.0..margin) * unit(&mut rng).normalize();
                let psize = size * 10f64.powf(rng.gen_range(-1.0..2.0));
                let y = [
                    corner,
                    corner + psize * unit(&mut rng),
                    corner + psize * unit(&mut rng),
                ];
                partners.push(Partner::new(y));
            }
            let groups = SideGroups {
                tris: vec![(x, 0, partners.len())],
                partners,
            };
            let bound = groups.bound(margin);
            for s_is_a in [true, false] {
                let mut out = Vec::new();
                let integral = groups.integrate(s_is_a, false, &Vec3::z(), margin, true, &mut out);
                assert!(
                    integral <= bound,
                    "case {case}: quadrature {integral:e} above the bound {bound:e}"
                );
                if integral > 0.5 * bound {
                    tight += 1;
                }
            }
        }
        // The bound is not vacuous: it is within 2x of the quadrature in many cases.
        assert!(tight > 1000, "{tight}");
    }

    #[test]
    fn the_finer_side_is_integrated_alone() {
        assert_eq!(integrated_sides(0.01, 2.0), IntegratedSides::A);
        assert_eq!(integrated_sides(2.0, 0.01), IntegratedSides::B);
        assert_eq!(integrated_sides(0.01, 0.015), IntegratedSides::Both);
        assert_eq!(integrated_sides(0.01, 0.02), IntegratedSides::A);
    }

    #[test]
    fn closest_point_agrees_with_brute_force() {
        let (a, b, c) = (
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.2, 0.0),
            Vec3::new(0.3, 1.0, 0.4),
        );
        let pts = [
            Vec3::new(0.3, 0.3, 1.0),
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(0.0, 2.0, 1.0),
            Vec3::new(0.6, 0.7, -0.5),
            Vec3::new(0.5, -0.5, 0.0),
        ];
        for p in pts {
            let q = closest_on_triangle(&p, &a, &b, &c);
            let n = 400;
            let mut best = f64::INFINITY;
            for i in 0..=n {
                for j in 0..=n - i {
                    let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                    let y = a + u * (b - a) + v * (c - a);
                    best = best.min((p - y).norm());
                }
            }
            assert!(((p - q).norm() - best).abs() < 5e-3, "{p}");
        }
    }
}
