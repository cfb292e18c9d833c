//! Cheap conservative culling of element pairs before any kernel call (seed 000 §5.4 puts
//! the pair stream behind the kernels; these tests keep pairs that are certainly apart out
//! of that stream): bounding spheres, bounding boxes and the two face normals, all
//! separating-axis bounds: for any axis `w`, the distance of two
//! point sets is at least the gap between their projections divided by `|w|`.
//!
//! **Rounding.** Every quantity is `f32`; a test only answers "apart" when the computed
//! gap exceeds the margin by a relative slack of `10⁻⁵` of the margin plus the largest
//! coordinate magnitude involved, far above the few-ulp errors of the centroids, radii,
//! projections and of the unit normal's length, and above the kernels' own rounding, so a
//! pair culled here is one every kernel classifies as separated.

use msdem_geom::math::Tri;

/// Relative slack of the culling tests (≫ the `f32` unit roundoff `2⁻²⁴`).
const SLACK: f32 = 1e-5;

/// Bounding data of one soup triangle (in the frame of the traversal, A's).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Bound {
    /// Centroid \[m\] and the largest vertex distance from it \[m\].
    pub sph: [f32; 4],
    /// Unit face normal (zero for a degenerate triangle).
    pub n: [f32; 3],
    /// Projection interval of the triangle's vertices on `n` \[m\].
    pub lo: f32,
    /// Upper end of the projection interval \[m\].
    pub hi: f32,
    /// Largest absolute vertex coordinate \[m\].
    pub mag: f32,
    /// Axis-aligned bounding box: lower corner \[m\].
    pub bmin: [f32; 3],
    /// Upper corner \[m\].
    pub bmax: [f32; 3],
}

fn dot(a: &[f32; 3], b: &[f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

impl Bound {
    /// Bounds of `t`.
    pub fn of(t: &Tri) -> Bound {
        let v = &t.v;
        let c = [0, 1, 2].map(|k| (v[0][k] + v[1][k] + v[2][k]) * (1.0 / 3.0));
        let r2 = v
            .iter()
            .map(|p| (0..3).map(|k| (p[k] - c[k]) * (p[k] - c[k])).sum::<f32>())
            .fold(0.0f32, f32::max);
        let e1 = [0, 1, 2].map(|k| v[1][k] - v[0][k]);
        let e2 = [0, 1, 2].map(|k| v[2][k] - v[0][k]);
        let w = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        let len = dot(&w, &w).sqrt();
        let n = if len > 0.0 && len.is_finite() {
            w.map(|x| x / len)
        } else {
            [0.0; 3]
        };
        let p = v.map(|q| dot(&n, &q));
        Bound {
            sph: [c[0], c[1], c[2], r2.sqrt()],
            n,
            lo: p[0].min(p[1]).min(p[2]),
            hi: p[0].max(p[1]).max(p[2]),
            mag: v.iter().flatten().fold(0.0f32, |m, x| m.max(x.abs())),
            bmin: [0, 1, 2].map(|k| v[0][k].min(v[1][k]).min(v[2][k])),
            bmax: [0, 1, 2].map(|k| v[0][k].max(v[1][k]).max(v[2][k])),
        }
    }
}

/// Whether two spheres (centre, radius grown by the element's halo \[m\]) are certainly
/// apart: then every point pair of the two halos is farther apart than their sum.
#[inline]
pub(crate) fn spheres_apart(x: &[f32; 4], y: &[f32; 4]) -> bool {
    spheres_apart_mag(x, centre_mag(x), y, centre_mag(y))
}

/// Largest absolute coordinate of a sphere's centre (the magnitude [`spheres_apart`]
/// scales its slack with), for [`spheres_apart_mag`].
#[inline]
pub(crate) fn centre_mag(x: &[f32; 4]) -> f32 {
    x[0].abs().max(x[1].abs()).max(x[2].abs())
}

/// [`spheres_apart`] with the two centres' [`centre_mag`] given (the same decision).
#[inline]
pub(crate) fn spheres_apart_mag(x: &[f32; 4], mx: f32, y: &[f32; 4], my: f32) -> bool {
    let d = [x[0] - y[0], x[1] - y[1], x[2] - y[2]];
    let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    let m = mx.max(my);
    let r = x[3] + y[3];
    let r = r + SLACK * (r + m);
    d2 > r * r
}

/// Whether the face-normal axis of `p` (the bounds of one triangle) proves triangle `t`
/// (with bounds `bt`) farther than `margin` \[m\] from it.
#[inline]
fn normal_apart(p: &Bound, t: &Tri, bt: &Bound, margin: f32) -> bool {
    let q = t.v.map(|v| dot(&p.n, &v));
    let (qlo, qhi) = (q[0].min(q[1]).min(q[2]), q[0].max(q[1]).max(q[2]));
    let m = margin + SLACK * (margin + p.mag + bt.mag);
    qlo - p.hi > m || p.lo - qhi > m
}

/// Whether the two triangles' bounding boxes are more than `margin` \[m\] apart along a
/// coordinate axis.
#[inline]
fn boxes_apart(b1: &Bound, b2: &Bound, margin: f32) -> bool {
    let m = margin + SLACK * (margin + b1.mag + b2.mag);
    (0..3).any(|k| b2.bmin[k] - b1.bmax[k] > m || b1.bmin[k] - b2.bmax[k] > m)
}

/// Whether the coordinate axes or the two face normals prove triangles `t1`, `t2` (bounds `b1`, `b2`) farther
/// apart than `margin` \[m\] (bounding boxes and the plane-side test).
#[inline]
pub(crate) fn planes_apart(t1: &Tri, b1: &Bound, t2: &Tri, b2: &Bound, margin: f32) -> bool {
    boxes_apart(b1, b2, margin)
        || normal_apart(b1, t2, b2, margin)
        || normal_apart(b2, t1, b1, margin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use msdem_geom::kernel::triangle_triangle_exact;

    fn tri(seed: u32) -> Tri {
        let mut x = seed.wrapping_mul(2654435761).wrapping_add(12345);
        let mut r = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x % 20000) as f32 / 10000.0 - 1.0
        };
        Tri {
            v: [[r(), r(), r()], [r(), r(), r()], [r(), r(), r()]],
        }
    }

    #[test]
    fn culling_never_drops_a_pair_within_the_margin_and_drops_far_ones() {
        let mut culled = 0;
        for i in 0..4000u32 {
            let (t1, mut t2) = (tri(2 * i), tri(2 * i + 1));
            let shift = (i % 7) as f32 * 0.3;
            t2.v.iter_mut().for_each(|v| v[0] += shift);
            let (b1, b2) = (Bound::of(&t1), Bound::of(&t2));
            let d = triangle_triangle_exact(&t1, &t2).dist();
            for margin in [0.0, 0.01, 0.1, 0.5] {
                let mut s1 = b1.sph;
                s1[3] += margin;
                let apart = spheres_apart(&s1, &b2.sph) || planes_apart(&t1, &b1, &t2, &b2, margin);
                if apart {
                    culled += 1;
                    assert!(
                        d > margin,
                        "pair {i}: distance {d} culled at margin {margin}"
                    );
                }
            }
        }
        assert!(culled > 2000, "only {culled} pairs culled");
    }
}
