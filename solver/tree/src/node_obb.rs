//! Oriented boxes of the real geometry below every node (issue 15), next to the
//! axis-aligned node boxes of `node_box.rs`: near a contact the patch below a node of a
//! round body is a thin curved cap, whose box along its mean normal is far thinner than
//! its box along the coordinate axes of a frame it is turned against (B's boxes posed into
//! A's frame are inflated by the rotation as well). Two elements whose oriented boxes are
//! separated by more than `ε_a + ε_b` along one of the six face axes hold no real triangle
//! pair within the margin (separating-axis bound), while the surrogate halos (seed 000
//! Def. 4.3) and the axis-aligned boxes may still overlap.
//!
//! **Definition.** An [`Obb`] is the intersection of three slabs
//! `{p : |u_i·(p − c)| ≤ h_i}` with the stored `f32` axes `u_i` and centre `c`. The axes
//! are orthonormal in `f64` and rounded to `f32` (off by ≤ 2⁻²⁴ per component); each
//! `h_i` is the largest `|u_i·(p − c)|` over the node's real vertices, computed in `f64`
//! with those stored axes and rounded up, so the node's real triangles (convex hulls of
//! their vertices) lie inside exactly. Axes: the area-weighted mean normal of the
//! triangles below and the principal directions of their vertices in its plane, or the
//! coordinate axes, whichever gives the smaller box (`h₀h₁h₂`).
//!
//! **Rounding of the test.** A separating axis `u` proves the two sets farther apart than
//! the gap of their projections divided by `|u|`. Against the exact projections the
//! computed test errs by (a) the `f32` rounding of the dot products, a few ulps of the
//! coordinates' magnitude `M` (centres plus extents), (b) the axes' departure from
//! orthonormality, which widens a box's true projection beyond `Σ h_j |u·v_j|` by at most
//! about `3·2⁻²⁴·Σ h_j`, and (c) `|u| ≤ 1 + 2⁻²³`. All are below `10⁻⁶·(margin + M)`;
//! the test only answers "apart" when the computed gap exceeds the margin by
//! `10⁻⁵·(margin + M)`, the culling slack of `cull.rs`.

use crate::cull::Bound;
use crate::tree::SurrogateTree;
use msdem_geom::math::{Iso3, Mat3, Tri, Vec3};

/// Relative slack of the separating-axis tests (as `cull.rs`).
const SLACK: f32 = 1e-5;

/// An oriented box: centre \[m\], three (nearly) orthonormal axes and half-extents \[m\]
/// along them, and `mag` = largest absolute centre coordinate plus the extents' sum
/// \[m\] (the magnitude the test's slack scales with).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Obb {
    /// Centre \[m\].
    pub c: [f32; 3],
    /// Axes (unit vectors, rounded to `f32`).
    pub u: [[f32; 3]; 3],
    /// Half-extents along the axes \[m\].
    pub h: [f32; 3],
    /// Largest absolute centre coordinate plus `h₀ + h₁ + h₂` \[m\].
    pub mag: f32,
}

fn dot(a: &[f32; 3], b: &[f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn v64(p: &[f32; 3]) -> Vec3 {
    Vec3::new(p[0].into(), p[1].into(), p[2].into())
}

fn f32s(v: &Vec3) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}

/// `x ≥ 0` rounded to the nearest `f32` at or above it.
fn up(x: f64) -> f32 {
    let y = x as f32;
    if f64::from(y) >= x || !y.is_finite() || y < 0.0 {
        y
    } else {
        // The next `f32` above a non-negative finite one.
        f32::from_bits(y.to_bits() + 1)
    }
}

/// The box with axes `u` (rows) around `pts`, and its volume measure `h₀h₁h₂`; `None`
/// without points.
fn fit(u: [[f32; 3]; 3], pts: &[[f32; 3]]) -> Option<(Obb, f64)> {
    let first = pts.first()?;
    let axes = u.map(|a| v64(&a));
    // Centre: the middle of the projection intervals, mapped back (exactly enough: the
    // extents are then measured from the stored centre).
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in pts {
        let q = v64(p);
        for i in 0..3 {
            let s = axes[i].dot(&q);
            lo[i] = lo[i].min(s);
            hi[i] = hi[i].max(s);
        }
    }
    let mid: Vec3 = (0..3)
        .map(|i| axes[i] * (0.5 * (lo[i] + hi[i])))
        .fold(Vec3::zeros(), |a, b| a + b);
    let c = if mid.iter().all(|x| x.is_finite()) {
        f32s(&mid)
    } else {
        *first
    };
    let c64 = v64(&c);
    let mut h = [0.0f64; 3];
    for p in pts {
        let d = v64(p) - c64;
        for i in 0..3 {
            h[i] = h[i].max(axes[i].dot(&d).abs());
        }
    }
    // `f64` rounding of the products (relative 2⁻⁵²) is covered by the relative pad.
    let h = h.map(|x| up(x * (1.0 + 1e-12) + 1e-30));
    let mag = c.iter().fold(0.0f32, |m, x| m.max(x.abs())) + h[0] + h[1] + h[2];
    let vol = f64::from(h[0]) * f64::from(h[1]) * f64::from(h[2]);
    Some((Obb { c, u, h, mag }, vol))
}

/// Axes from the mean normal `n` (area-weighted) and the principal in-plane direction of
/// `pts`; `None` when the normals cancel out.
fn normal_axes(n: &Vec3, pts: &[[f32; 3]]) -> Option<[[f32; 3]; 3]> {
    let len = n.norm();
    if !(len > 0.0 && len.is_finite()) {
        return None;
    }
    let w = n / len;
    let t = if w.x.abs() < 0.6 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    let e1 = (t - w * w.dot(&t)).normalize();
    let e2 = w.cross(&e1);
    let k = pts.len().max(1) as f64;
    let m = pts.iter().map(v64).fold(Vec3::zeros(), |a, b| a + b) / k;
    let (mut sxx, mut syy, mut sxy) = (0.0, 0.0, 0.0);
    for p in pts {
        let d = v64(p) - m;
        let (x, y) = (d.dot(&e1), d.dot(&e2));
        sxx += x * x;
        syy += y * y;
        sxy += x * y;
    }
    let phi = 0.5 * f64::atan2(2.0 * sxy, sxx - syy);
    let a = e1 * phi.cos() + e2 * phi.sin();
    let b = w.cross(&a);
    Some([f32s(&a), f32s(&b), f32s(&w)])
}

impl Obb {
    /// The smaller of the mean-normal box and the coordinate box of `tris`' vertices
    /// (`None` for no triangles).
    pub fn of(tris: &[Tri]) -> Option<Obb> {
        let pts: Vec<[f32; 3]> = tris.iter().flat_map(|t| t.v).collect();
        let n = tris.iter().fold(Vec3::zeros(), |acc, t| {
            let [a, b, c] = t.v.map(|p| v64(&p));
            acc + (b - a).cross(&(c - a))
        });
        let coord = fit([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], &pts)?;
        let best = normal_axes(&n, &pts)
            .and_then(|u| fit(u, &pts))
            .filter(|o| o.1 < coord.1)
            .unwrap_or(coord);
        Some(best.0)
    }

    /// This box (tree frame of B) in A's frame (`b_to_a`), grown to hold B's triangles as
    /// the traversal rounds them to `f32` after the move (`10⁻⁶` of the magnitude, far
    /// above the ≈ 4·2⁻²⁴ of the rounded axes, centre and vertices).
    pub fn posed(&self, b_to_a: &Iso3) -> Obb {
        self.posed_by(b_to_a, &b_to_a.rotation.to_rotation_matrix().into_inner())
    }

    /// [`Obb::posed`] with the rotation's matrix `m` given (formed once per query).
    #[allow(clippy::needless_range_loop)]
    pub(crate) fn posed_by(&self, b_to_a: &Iso3, m: &Mat3) -> Obb {
        let t = &b_to_a.translation.vector;
        let mut c = [0.0f32; 3];
        let mut u = [[0.0f32; 3]; 3];
        for k in 0..3 {
            let row = [m[(k, 0)], m[(k, 1)], m[(k, 2)]];
            let mv = |p: &[f32; 3]| {
                row[0] * f64::from(p[0]) + row[1] * f64::from(p[1]) + row[2] * f64::from(p[2])
            };
            c[k] = (mv(&self.c) + t[k]) as f32;
            for i in 0..3 {
                u[i][k] = mv(&self.u[i]) as f32;
            }
        }
        let ext = self.h[0] + self.h[1] + self.h[2];
        let cm = c[0].abs().max(c[1].abs()).max(c[2].abs());
        let pad = 1e-6 * (cm + ext) + 1e-30;
        let h = [self.h[0] + pad, self.h[1] + pad, self.h[2] + pad];
        Obb {
            c,
            u,
            h,
            mag: cm + h[0] + h[1] + h[2],
        }
    }
}

/// The oriented box of every node of `tree` (by node index, tree frame), from the real
/// triangles below it (contiguous in the soup for every subtree); a node without any gets
/// the default box (no test applies it: its axis-aligned box already culls everything).
pub(crate) fn node_obbs(tree: &SurrogateTree) -> Vec<Obb> {
    let n = tree.nodes.len();
    // Soup range of the real triangles below each node, bottom-up.
    let mut range = vec![(u32::MAX, 0u32); n];
    for i in (0..n).rev() {
        let node = &tree.nodes[i];
        range[i] = if node.is_leaf() {
            (node.first, node.first + node.count)
        } else {
            let kids = node.first as usize..(node.first + node.count) as usize;
            range
                .get(kids)
                .unwrap_or(&[])
                .iter()
                .fold((u32::MAX, 0), |(l, h), &(a, b)| (l.min(a), h.max(b)))
        };
    }
    range
        .iter()
        .map(|&(l, h)| {
            tree.soup
                .get(l as usize..h as usize)
                .and_then(Obb::of)
                .unwrap_or_default()
        })
        .collect()
}

/// Whether oriented boxes `a` and `b` are more than `margin` \[m\] apart along one of their
/// six face axes (see the module's rounding note).
#[inline]
#[allow(clippy::needless_range_loop)]
pub(crate) fn obbs_apart(a: &Obb, b: &Obb, margin: f32) -> bool {
    let d = [b.c[0] - a.c[0], b.c[1] - a.c[1], b.c[2] - a.c[2]];
    let mut r = [[0.0f32; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = dot(&a.u[i], &b.u[j]).abs();
        }
    }
    let m = margin + SLACK * (margin + a.mag + b.mag);
    let mut apart = false;
    for i in 0..3 {
        let rb = b.h[0] * r[i][0] + b.h[1] * r[i][1] + b.h[2] * r[i][2];
        apart |= dot(&d, &a.u[i]).abs() - a.h[i] - rb > m;
        let ra = a.h[0] * r[0][i] + a.h[1] * r[1][i] + a.h[2] * r[2][i];
        apart |= dot(&d, &b.u[i]).abs() - b.h[i] - ra > m;
    }
    apart
}

/// Whether oriented box `o` and triangle `t` (bounds `bt`, same frame) are more than
/// `margin` \[m\] apart along one of the box's axes or the triangle's normal.
#[inline]
pub(crate) fn obb_tri_apart(o: &Obb, t: &Tri, bt: &Bound, margin: f32) -> bool {
    let m = margin + SLACK * (margin + o.mag + bt.mag);
    let d = [0usize, 1, 2];
    let rel = d.map(|k| [t.v[k][0] - o.c[0], t.v[k][1] - o.c[1], t.v[k][2] - o.c[2]]);
    let mut apart = false;
    for i in 0..3 {
        let q0 = dot(&o.u[i], &rel[0]);
        let q1 = dot(&o.u[i], &rel[1]);
        let q2 = dot(&o.u[i], &rel[2]);
        let (lo, hi) = (q0.min(q1).min(q2), q0.max(q1).max(q2));
        apart |= (lo - o.h[i] > m) | (-o.h[i] - hi > m);
    }
    let pc = dot(&bt.n, &o.c);
    let r = o.h[0] * dot(&bt.n, &o.u[0]).abs()
        + o.h[1] * dot(&bt.n, &o.u[1]).abs()
        + o.h[2] * dot(&bt.n, &o.u[2]).abs();
    apart | (pc - r - bt.hi > m) | (bt.lo - (pc + r) > m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use msdem_geom::kernel::triangle_triangle_exact;

    fn rng(seed: u32) -> impl FnMut() -> f32 {
        let mut x = seed.wrapping_mul(2654435761).wrapping_add(12345);
        move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x % 20000) as f32 / 10000.0 - 1.0
        }
    }

    /// A small random cap: `k` triangles near a random point, roughly facing outwards.
    fn patch(seed: u32, k: usize, centre: [f32; 3], size: f32) -> Vec<Tri> {
        let mut r = rng(seed);
        (0..k)
            .map(|_| Tri {
                v: [0; 3].map(|_| [0, 1, 2].map(|j| centre[j] + size * r())),
            })
            .collect()
    }

    /// The box holds every vertex it was fitted to (exactly, by its own slab test), posed
    /// boxes hold the rounded moved vertices, and every pair of patches the tests call
    /// apart is farther apart than the margin by the exact kernel; the tests do fire.
    #[test]
    fn separated_patches_are_truly_apart_and_boxes_hold_their_points() {
        let mut fired = 0;
        for s in 0..600u32 {
            let mut r = rng(s + 77);
            let ca = [r(), r(), r()].map(|x| 0.5 * x);
            let cb = [r(), r(), r()].map(|x| 0.5 * x);
            let size = 0.05 + 0.2 * r().abs();
            let (pa, pb) = (patch(3 * s, 4, ca, size), patch(3 * s + 1, 4, cb, size));
            let iso = Iso3::new(
                Vec3::new(0.1 * r() as f64, 0.2, -0.1),
                Vec3::new(r() as f64, 2.0 * r() as f64, 0.7),
            );
            let pb_moved: Vec<Tri> = pb.iter().map(|t| t.transformed(&iso)).collect();
            let (oa, ob) = (Obb::of(&pa).unwrap(), Obb::of(&pb).unwrap().posed(&iso));
            for (o, ts) in [(&oa, &pa), (&ob, &pb_moved)] {
                for t in ts {
                    for v in &t.v {
                        for i in 0..3 {
                            let d = [0, 1, 2].map(|k| f64::from(v[k]) - f64::from(o.c[k]));
                            let s: f64 = (0..3).map(|k| f64::from(o.u[i][k]) * d[k]).sum();
                            assert!(s.abs() <= f64::from(o.h[i]), "seed {s}: outside its box");
                        }
                    }
                }
            }
            let d = pa
                .iter()
                .flat_map(|x| {
                    pb_moved
                        .iter()
                        .map(move |y| triangle_triangle_exact(x, y).dist())
                })
                .fold(f32::INFINITY, f32::min);
            for margin in [0.0, 0.01, 0.05, 0.2] {
                if obbs_apart(&oa, &ob, margin) {
                    fired += 1;
                    assert!(
                        d > margin,
                        "seed {s}: boxes apart at {margin}, distance {d}"
                    );
                }
                for y in &pb_moved {
                    if obb_tri_apart(&oa, y, &Bound::of(y), margin) {
                        let dy = pa
                            .iter()
                            .map(|x| triangle_triangle_exact(x, y).dist())
                            .fold(f32::INFINITY, f32::min);
                        assert!(dy > margin, "seed {s}: box–triangle apart, distance {dy}");
                    }
                }
            }
        }
        assert!(fired > 200, "the box test fired only {fired} times");
    }

    /// A flat cap turned against the coordinate axes gets its mean-normal box, far
    /// thinner than its coordinate box.
    #[test]
    fn a_turned_flat_cap_gets_a_thin_box() {
        let iso = Iso3::new(Vec3::zeros(), Vec3::new(0.6, -0.4, 0.9));
        let mut r = rng(5);
        let flat: Vec<Tri> = (0..8)
            .map(|_| {
                Tri {
                    v: [0; 3].map(|_| [0.2 * r(), 0.2 * r(), 0.001 * r()]),
                }
                .transformed(&iso)
            })
            .collect();
        let o = Obb::of(&flat).unwrap();
        let thin = o.h.iter().fold(f32::INFINITY, |m, &x| m.min(x));
        // Half-thickness 0.001 m; the mean normal of random triangles in the layer is
        // tilted by up to ~0.01 rad over the 0.2 m half-width. The coordinate box of the
        // turned layer is over 0.05 m thick along every axis.
        assert!(thin < 0.003, "thinnest extent {thin}");
        let (lo, hi) = (0..3).fold(([f32::MAX; 3], [f32::MIN; 3]), |(mut lo, mut hi), k| {
            for t in &flat {
                for v in &t.v {
                    lo[k] = lo[k].min(v[k]);
                    hi[k] = hi[k].max(v[k]);
                }
            }
            (lo, hi)
        });
        assert!(
            (0..3).all(|k| hi[k] - lo[k] > 0.05),
            "coordinate box {lo:?} {hi:?}"
        );
    }
}
