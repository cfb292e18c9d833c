//! Refinement cells of the patch quadrature that provably add nothing (issue 14): a cell
//! that straddles the halo boundary is skipped before it is refined when no point of it
//! is within the halo, or when every point of it that is has a direction whose `cos`
//! factor is ≤ 0 (a stacked cube's side face along the face below, also where the cube
//! overhangs it). See [`SideCtx::contributes_nothing`] for the proof and `docs/design.md`
//! §3 "Cells that add nothing, over the union of partners".

use super::cull::Mask;
use super::{Corner, Partner, SideCtx, BOUND_SLACK, FRONT_SLACK};
use crate::contact::pair::TINY_DISTANCE;
use msdem_geom::math::Vec3;

/// Affine functions of a side triangle's corners `x_j` against one partner triangle `y`
/// (unit normal `n`, zero if degenerate): the signed heights `s_j = n·(x_j − y₀)` over
/// its plane and, per edge `k` of `y` (`None` when degenerate), the signed distances
/// `e_kj` of the corners from that edge's plane perpendicular to `y` (positive outside
/// `y`). The distance from a point `c` of `x` to `y` is at least `|s(c)|` and, where
/// `e_k(c) ≥ 0`, at least `sqrt(s(c)² + e_k(c)²)`; all are affine along `x`, so their
/// extremes over `x` are at its corners.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Planes {
    /// Heights of the corners over `y`'s plane \[m\].
    pub(super) s: [f64; 3],
    /// Distances of the corners outside each edge's plane \[m\].
    pub(super) e: [Option<[f64; 3]>; 3],
}

impl Planes {
    /// The planes of the corners `x` against the partner `y`.
    pub(super) fn of(x: &[Vec3; 3], y: &Partner) -> Self {
        let along =
            |u: &Vec3, p: &Vec3| [u.dot(&(x[0] - p)), u.dot(&(x[1] - p)), u.dot(&(x[2] - p))];
        let s = along(&y.n, &y.y[0]);
        let mut e = [None; 3];
        for ((e, out), p) in e.iter_mut().zip(&y.out).zip(&y.y) {
            if let Some(out) = out {
                *e = Some(along(out, p));
            }
        }
        Self { s, e }
    }

    /// A lower bound \[m\] of the distance from `x` to the partner, or `None` when a
    /// point of `x` may lie behind it: [`super::lower_bound`]'s, computed more cheaply —
    /// the distance to a half-plane beyond an edge only where the planes alone leave the
    /// bound below `enough` \[m\] or the "behind" test undecided (else the planes' bound,
    /// lower but as decisive). Declining on a lower value is always right.
    fn lower_bound_quick(&self, reach: f64, enough: f64) -> Option<f64> {
        let s = self.s;
        let (s_min, s_max) = (min3(s), max3(s));
        let plane = if s_min >= 0.0 {
            s_min
        } else if s_max <= 0.0 {
            -s_max
        } else {
            0.0
        };
        let mut outside: f64 = 0.0;
        for e in self.e.iter().flatten() {
            outside = outside.max(min3(*e));
        }
        let behind_open = s_min < 0.0 && outside <= 1e-5 * reach;
        if plane.max(outside) < enough || behind_open {
            for e in self.e.iter().flatten() {
                if min3(*e) > 0.0 {
                    let q = [[s[0], e[0]], [s[1], e[1]], [s[2], e[2]]];
                    outside = outside.max(origin_to_triangle_2d(&q));
                }
            }
        }
        let never_behind = s_min >= 0.0 || outside > 1e-5 * reach;
        never_behind.then_some(plane.max(outside))
    }

    /// Whether the projection of every point of `x` onto `y`'s plane lies in `y` (then
    /// `y`'s closest point to `c` is that projection, `c − s(c)·n`).
    fn contains_projection(&self) -> bool {
        self.e
            .iter()
            .all(|e| e.is_some_and(|e| e.iter().all(|&v| v <= 0.0)))
    }
}

/// Distance from the origin to the plane triangle `q` (as
/// [`super::origin_to_triangle_2d`], with `sqrt` for `hypot`: within an ulp).
fn origin_to_triangle_2d(q: &[[f64; 2]; 3]) -> f64 {
    let cross = |a: [f64; 2], b: [f64; 2]| a[0] * b[1] - a[1] * b[0];
    let mut side = [0.0; 3];
    for i in 0..3 {
        let (a, b) = (q[i], q[(i + 1) % 3]);
        side[i] = cross([b[0] - a[0], b[1] - a[1]], [-a[0], -a[1]]);
    }
    if side.iter().all(|&c| c >= 0.0) || side.iter().all(|&c| c <= 0.0) {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    for i in 0..3 {
        let (a, b) = (q[i], q[(i + 1) % 3]);
        let d = [b[0] - a[0], b[1] - a[1]];
        let len2 = d[0] * d[0] + d[1] * d[1];
        let t = if len2 > 0.0 {
            (-(a[0] * d[0] + a[1] * d[1]) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (u, w) = (a[0] + t * d[0], a[1] + t * d[1]);
        best = best.min((u * u + w * w).sqrt());
    }
    best
}

/// Largest of the three values.
fn max3(v: [f64; 3]) -> f64 {
    v[0].max(v[1]).max(v[2])
}

/// Smallest of the three values.
fn min3(v: [f64; 3]) -> f64 {
    v[0].min(v[1]).min(v[2])
}

/// Whether the partner `z` is strictly farther than the partner `y` from every point of
/// the side triangle, where `y` contains the triangle's projection (so that the distance
/// to `y` is `|s_y(c)|`, affine where `s_y` keeps its sign). With `δ` the most by which
/// `|s_z|` falls short of `|s_y|` at a corner (both affine of constant sign, so at every
/// point) and `μ > 0` the distance of the triangle outside one of `z`'s edge planes,
/// `d(c, z)² ≥ s_z² + e_k² ≥ (|s_y| − δ)₊² + μ² ≥ s_y² − 2δ·|s_y| + μ²`: `z` is farther
/// when `μ² > 2δ·max|s_y|`, here with a slack far above rounding. (`z` a coplanar
/// neighbour of `y` — the other half of a square face — has `δ` ≈ 10⁻¹⁶ m.)
fn strictly_farther(z: &Planes, y: &Planes) -> bool {
    let (sy, sz) = (y.s, z.s);
    let same_sign = |s: [f64; 3]| min3(s) > 0.0 || max3(s) < 0.0;
    if !same_sign(sy) {
        return false;
    }
    let sy_abs = sy.map(f64::abs);
    let s_max = max3(sy_abs);
    let short = if same_sign(sz) {
        (0..3)
            .map(|j| sy_abs[j] - sz[j].abs())
            .fold(0.0_f64, f64::max)
    } else {
        s_max
    };
    let mu =
        z.e.iter()
            .flatten()
            .map(|e| min3(*e))
            .fold(0.0_f64, f64::max);
    let slack = 4.0 * BOUND_SLACK * (s_max + mu);
    mu > 0.0 && mu * mu - 2.0 * short * s_max > slack
}

/// Whether the partner triangle with corners `z` lies on or behind the plane of the
/// partner `y` as seen from the side triangle (corner heights `y_planes.s` over that
/// plane, all of one sign), up to `tol` \[m\]. Then no point of `z` is closer to a point
/// `c` of the triangle than `c`'s projection onto `y`'s plane, and where that projection
/// lies in `y` (`y` contains the triangle's projection) `z` is at most as close as `y`,
/// equally only at that same point: where `z` is the closest, `q` is the projection, as
/// for `y` (the other half of a square face; a side face below the top face). Rounding:
/// `z` up to `tol` in front of the plane is closest only within `sqrt(2·d·tol)` of the
/// projection.
fn behind_plane(z: &[Vec3; 3], y: &Partner, y_planes: &Planes, tol: f64) -> bool {
    let s = y_planes.s;
    let side = if min3(s) > 0.0 {
        1.0
    } else if max3(s) < 0.0 {
        -1.0
    } else {
        return false;
    };
    z.iter().all(|v| side * y.n.dot(&(v - y.y[0])) <= tol)
}

thread_local! {
    /// [`SideCtx::contributes_nothing`]'s relevant partners and their planes (a buffer
    /// per thread: the test runs for most refinement cells).
    static RELEVANT: std::cell::RefCell<Vec<(usize, Planes)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl SideCtx<'_> {
    /// Whether every point of the cell `x` (in the plane of this side's triangle, unit
    /// normal `n_s`; longest edge `longest` \[m\]) provably adds nothing to
    /// [`SideCtx::integrate`], so that it may be skipped before refining it. Proof, branch
    /// by branch of [`SideCtx::eval`] at a point `c` of `x`, whose closest partner point is
    /// `q` (on the partner `z`) at distance `d`:
    ///
    /// * Only the partners in `mask` are looked at: the others are never the closest at
    ///   a point of `x` ([`SideCtx::nearby`]), so `eval` never uses them there.
    /// * A lower bound of the distance from `x` to each partner ([`Planes`], as
    ///   [`super::distance_lower_bound`]) is `None` when a point of `x` may lie behind it
    ///   as `eval` decides it: then decline. A partner whose bound is at least `m` (plus a
    ///   slack far above rounding) is *irrelevant*: wherever it is the closest,
    ///   `f = m − d ≤ 0`, and a leaf's normal `Σ g₊·dir` ignores corners with `g ≤ 0`.
    ///   With no relevant partner no point of `x` is in the halo: every leaf below
    ///   returns 0 without a sample.
    /// * Requiring the smallest relevant bound `d_lb > 2·TINY_DISTANCE·m` rules out
    ///   `eval`'s other branches where `f > 0` (`behind`, `d ≤ TINY_DISTANCE·m`, which use
    ///   `robust_normal`, whose `cos` is positive for two particles): the direction is
    ///   `sign·(c − q)/d`, whose `cos` factor is `n_s·(q − c)/d`.
    /// * Each relevant partner `z` is shown never to give `n_s·(q − c) > 0` where it is
    ///   the closest, in one of three ways: (a) every vertex of `z` is on or behind the
    ///   plane (`q` is a convex combination of them and `n_s·c ≥ min_j n_s·x_j`); (b) `z`
    ///   contains the projection of `x` onto its plane: `q = c − s(c)·n_z`, so
    ///   `n_s·(q − c) = −s(c)·(n_s·n_z)`, affine, ≤ 0 at the corners (a side face over the
    ///   face below it: `n_s ⊥ n_z`); (c) a partner `y` of kind (b) is at least as close
    ///   at every point of `x`: `z` lies on or behind `y`'s plane ([`behind_plane`]: then
    ///   where `z` is the closest, `q` is the same projection; the other half of that
    ///   face, a convex partner's side faces) or is [`strictly_farther`] (a post standing
    ///   on the face).
    /// * A leaf pushes a sample only if its normal, a positive combination of its corners'
    ///   directions with `g > 0`, has `cos > 0`. So every leaf below `x` returns 0
    ///   without a sample, and so does `x`: skipping it changes nothing.
    ///
    /// Rounding: a coplanar neighbour's face (a cube stacked flush on another) has
    /// `n_s·(q − c)` = ±10⁻¹⁶ m per metre of coordinates, so values up to
    /// `FRONT_SLACK·d_lb` are accepted ([`FRONT_SLACK`]); what the quadrature would have
    /// given there is a sample whose corners' `cos` are ≤ 10⁻⁹ (≈ 10⁻¹⁶ in practice:
    /// rounding noise). At a near-tie of (c) — a point whose projection is within
    /// ≈ 10⁻⁹ m of the edge `y` shares with `z` — `eval` may pick `z` by the last bits of
    /// the distances, whose closest point is then up to that far from the projection:
    /// the full quadrature's samples there have `cos` ≲ 10⁻⁶ and change as much when a
    /// body moves by 10⁻¹⁵ m (measured in `skipping_empty_triangles_changes_nothing`).
    pub(super) fn contributes_nothing(
        &self,
        x: &[Vec3; 3],
        v: &[Corner; 3],
        longest: f64,
        mask: Mask,
    ) -> bool {
        // Quick refusal (declining is always right): a corner in the halo whose direction
        // has a positive `cos` (a face over a face).
        let sign = if self.s_is_a { 1.0 } else { -1.0 };
        if v.iter()
            .any(|c| c.f > 0.0 && -sign * self.n_s.dot(&c.dir) > FRONT_SLACK)
        {
            return false;
        }
        let reach = self.margin + longest;
        RELEVANT.with_borrow_mut(|relevant| {
            relevant.clear();
            let mut d_lb = f64::INFINITY;
            let mut declined = false;
            self.each(mask, |i, y| {
                if declined {
                    return;
                }
                let planes = Planes::of(x, y);
                let Some(d) = planes.lower_bound_quick(reach, self.margin + BOUND_SLACK) else {
                    declined = true;
                    return;
                };
                if d < self.margin + BOUND_SLACK {
                    relevant.push((i, planes));
                    d_lb = d_lb.min(d);
                }
            });
            if declined {
                return false;
            }
            self.face_away(x, relevant, d_lb)
        })
    }

    /// The last part of [`SideCtx::contributes_nothing`]: whether every relevant partner
    /// (index, planes; `d_lb` the smallest of their distance bounds) gives
    /// `n_s·(q − c) ≤ 0` wherever it is the closest to a point of the cell `x`.
    fn face_away(&self, x: &[Vec3; 3], relevant: &[(usize, Planes)], d_lb: f64) -> bool {
        let plane = min3(x.map(|c| self.n_s.dot(&c)));
        if relevant.is_empty() {
            return true;
        }
        if d_lb <= 2.0 * TINY_DISTANCE * self.margin {
            return false;
        }
        let slack = FRONT_SLACK * d_lb;
        // (b): partners containing the projection, with their `n_s·(q − c)` ≤ slack.
        let contains = |(i, p): &(usize, Planes)| {
            p.contains_projection() && {
                let tilt = self.n_s.dot(&self.o_tris[*i].n);
                max3(p.s.map(|s| -s * tilt)) <= slack
            }
        };
        relevant.iter().all(|z| {
            let corners = &self.o_tris[z.0].y;
            let front = max3(corners.map(|v| self.n_s.dot(&v))) - plane;
            front <= slack
                || contains(z)
                || relevant.iter().any(|y| {
                    contains(y)
                        && (behind_plane(corners, &self.o_tris[y.0], &y.1, slack)
                            || strictly_farther(&z.1, &y.1))
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::cube;
    use super::super::{cull, normal_area, Partner, SideCtx};
    use msdem_geom::math::{Iso3, Point3, Vec3};
    use rand::{Rng, SeedableRng};

    /// The cells [`SideCtx::contributes_nothing`] skips and the partners
    /// [`SideCtx::nearby`] keeps, against brute force (independent truth: `eval` at 200
    /// random points of the cell and its midpoints against every partner): seeded poses
    /// of two cubes (aligned, tilted by 10⁻⁶ rad, by up to 0.05 rad, by up to 0.3 rad;
    /// stacked from 0.2 margins interpenetrating to 1.5 margins apart, slid sideways; a
    /// third with a wall or post standing on `b` beside `a`, so that the partners are not convex),
    /// refinement cells of `a`'s triangles from level 0 to 5. In a skipped cell no point
    /// in the halo has a direction with `cos` above 10⁻⁶ (rounding at near-ties; the
    /// contributions that matter have `cos` ≈ the tilt); the kept partners give every
    /// point the same `eval` bit for bit.
    #[test]
    fn skipped_cells_add_nothing_anywhere() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(21);
        let (half, margin) = (0.05, 4e-3);
        let centre_dir = Vec3::z();
        let (mut cells, mut skipped, mut skipped_in_halo, mut culled) = (0, 0, 0, 0);
        let mut worst_cos: f64 = 0.0;
        for case in 0..8000 {
            let splits = [1, 2][rng.gen_range(0..2)];
            let axis = Vec3::new(
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
            )
            .normalize();
            let angle = match case % 4 {
                0 => 0.0,
                1 => 1e-6,
                2 => rng.gen_range(0.0..0.05),
                _ => rng.gen_range(0.0..0.3),
            };
            let rot = Iso3::rotation(axis * angle);
            let a: Vec<[Vec3; 3]> = cube(half, splits)
                .iter()
                .map(|t| t.map(|v| (rot * Point3::from(v)).coords))
                .collect();
            let low = a
                .iter()
                .flatten()
                .map(|v| v.z)
                .fold(f64::INFINITY, f64::min);
            let gap = margin * rng.gen_range(-0.2..1.5);
            let slide = if rng.gen_bool(0.5) {
                // A slanted stack's layer: shifted by 0–3.5 margins.
                margin * rng.gen_range(0.0..3.5)
            } else {
                rng.gen_range(-1.2..1.2) * half
            };
            let shift = Vec3::new(slide, 0.0, half + gap - low);
            let a: Vec<[Vec3; 3]> = a.iter().map(|t| t.map(|v| v + shift)).collect();
            let mut b = cube(half, splits);
            if case % 3 == 2 {
                // A wall or post standing on `b`'s top face, facing `a`'s side just beside it: the
                // partners are no longer convex (a staircase's riser).
                let x_w = shift.x - half - margin * rng.gen_range(0.1..1.5);
                let (mid, w) = (rng.gen_range(-half..half), rng.gen_range(0.002..0.05));
                let (l, r, top) = (mid - w, mid + w, half + rng.gen_range(0.002..0.06));
                let p = |y: f64, z: f64| Vec3::new(x_w, y, z);
                b.push([p(l, half), p(r, half), p(r, top)]);
                b.push([p(l, half), p(r, top), p(l, top)]);
            }
            // A refinement cell of one of `a`'s triangles near `b` (half of them on side
            // faces), mostly towards `b`.
            let near: Vec<&[Vec3; 3]> = a
                .iter()
                .filter(|t| t.iter().any(|v| v.z < half + 2.0 * margin))
                .filter(|t| case % 2 == 0 || normal_area(t).0.z.abs() < 0.5)
                .collect();
            if near.is_empty() {
                continue;
            }
            let t = *near[rng.gen_range(0..near.len())];
            let mut x = t;
            for _ in 0..rng.gen_range(0..6) {
                let m = [
                    0.5 * (x[0] + x[1]),
                    0.5 * (x[1] + x[2]),
                    0.5 * (x[2] + x[0]),
                ];
                let children = [
                    [x[0], m[0], m[2]],
                    [m[0], x[1], m[1]],
                    [m[2], m[1], x[2]],
                    m,
                ];
                x = if rng.gen_bool(0.7) {
                    let low = |c: &[Vec3; 3]| c[0].z + c[1].z + c[2].z;
                    *children
                        .iter()
                        .min_by(|p, q| low(p).total_cmp(&low(q)))
                        .unwrap_or(&m)
                } else {
                    children[rng.gen_range(0..4)]
                };
            }
            let longest = (x[1] - x[0])
                .norm()
                .max((x[2] - x[1]).norm())
                .max((x[0] - x[2]).norm());
            let lo = t[0].inf(&t[1]).inf(&t[2]);
            let hi = t[0].sup(&t[1]).sup(&t[2]);
            let partners: Vec<Partner> = b
                .iter()
                .filter(|y| {
                    let (l2, h2) = (y[0].inf(&y[1]).inf(&y[2]), y[0].sup(&y[1]).sup(&y[2]));
                    (0..3).all(|k| lo[k] <= h2[k] + margin && l2[k] <= hi[k] + margin)
                })
                .map(|y| Partner::new(*y))
                .collect();
            if partners.is_empty() {
                continue;
            }
            let ctx = SideCtx {
                o_tris: &partners,
                n_s: normal_area(&t).0,
                s_is_a: true,
                b_is_obstacle: false,
                centre_dir: &centre_dir,
                margin,
                prune: true,
            };
            cells += 1;
            let v = x.map(|c| ctx.eval(&c, cull::ALL));
            let mask = ctx.nearby(&x, &v, longest, cull::ALL);
            culled += usize::from(mask != ctx.all());
            let skip = ctx.contributes_nothing(&x, &v, longest, mask);
            skipped += usize::from(skip);
            let mut in_halo = false;
            for i in 0..203 {
                let c = if i < 3 {
                    0.5 * (x[i] + x[(i + 1) % 3])
                } else {
                    let (u, w) = (rng.gen_range(0.0..1.0), rng.gen_range(0.0..1.0));
                    let (u, w) = if u + w > 1.0 {
                        (1.0 - u, 1.0 - w)
                    } else {
                        (u, w)
                    };
                    x[0] + u * (x[1] - x[0]) + w * (x[2] - x[0])
                };
                let full = ctx.eval(&c, cull::ALL);
                let kept = ctx.eval(&c, mask);
                assert!(
                    full.f.to_bits() == kept.f.to_bits()
                        && full.dir == kept.dir
                        && full.d.to_bits() == kept.d.to_bits(),
                    "case {case}: the culled partners change eval at {c}"
                );
                if skip && full.f > 0.0 {
                    in_halo = true;
                    let cos = -ctx.n_s.dot(&full.dir);
                    worst_cos = worst_cos.max(cos);
                    assert!(
                        cos <= 1e-6,
                        "case {case}: skipped cell, a point in the halo with cos {cos:e}"
                    );
                }
            }
            skipped_in_halo += usize::from(in_halo);
        }
        eprintln!(
            "{cells} cells: {skipped} skipped ({skipped_in_halo} with points in the halo, \
             largest cos there {worst_cos:e}); partners culled in {culled}"
        );
        assert!(skipped_in_halo > cells / 20, "{skipped_in_halo} of {cells}");
        assert!(
            skipped > skipped_in_halo + cells / 20,
            "{skipped} of {cells}"
        );
        assert!(culled > cells / 10, "{culled} of {cells}");
    }
}
