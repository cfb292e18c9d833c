//! Separation certificates of element pairs under rigid motion (temporal coherence of the
//! active sets; see the parent module's docs for how they are used).
//!
//! **Lower bound.** [`lower_bound`] is the largest of four separating-axis bounds of the
//! distance of two triangles: the gap of their bounding spheres (centroid, largest vertex
//! distance), the gaps of their axis-aligned boxes, and the separation of the two vertex
//! sets along each face normal. Every one is a lower bound of the distance: for a unit
//! axis `w` the projections are 1-Lipschitz and each triangle projects onto the interval
//! spanned by its vertices; a sphere containing a triangle is farther from the other
//! sphere's content than the gap of the spheres.
//!
//! **Motion.** [`motion`] bounds how far any point of B's bounding sphere (centre `c`,
//! radius `r`, in B's mesh frame) moved relative to A between two poses `T₀`, `T₁` of B in
//! A's frame: `T₁y − T₀y = (T₁c − T₀c) + (R₁ − R₀)(y − c)` and
//! `‖R₁ − R₀‖ = ‖R₁R₀ᵀ − I‖ = 2·sin(θ/2)`, θ the angle of `R₁R₀ᵀ`, which is twice the
//! norm of the vector part of the unit quaternion `q₁q₀⁻¹`. Hence
//! `m = |T₁c − T₀c| + 2·|vec(q₁q₀⁻¹)|·r`. The distance of a point `p` of A and a point `y`
//! of B is `|p − Ty| = |T⁻¹p − y|`, so the change of any element pair's distance is also
//! bounded by the displacement of A's points in B's frame — the same bound for A's sphere
//! and the inverse poses; the pair geometry takes the smaller of the two
//! (`PairGeometry::motion_since`), which for a small particle against a large obstacle is
//! the particle's own.
//!
//! **Clearance.** If at pose `P₁` the lower bound of a pair is `L₁` and B moved at most
//! `m₁` from the reference pose `P₀` to `P₁` and at most `m` from `P₀` to `P`, the
//! distance at `P` is at least `L₁ − m₁ − m` (triangle inequality; only B's triangle
//! moves in A's frame). [`clearance`] returns `c = L₁ − M − ρ − m₁·(1 + s)` for the
//! check margin `M`; the pair is certified at `P` when `c > m·(1 + s)`
//! ([`certified`]). `ρ = 2⁻¹⁶·(|x|_max + M)` (`|x|_max` the largest absolute vertex
//! coordinate of the two triangles — or any upper bound of it, such as the one of the pair
//! geometry from the two bounding spheres, which only enlarges ρ; ≈ 256 unit roundoffs of
//! it) absorbs every rounding:
//! the `f32` transform of B's triangles at both poses (≤ √3·u·|x|_max per vertex each),
//! the `f32` evaluation of the bound, the distance kernels' own rounding (their computed
//! distances are those of points within a few ulps of the triangles) and the dependence
//! of the padded surrogate margin on `|x|_max` (its `8·2⁻²³·|x|_max` term changes by at
//! most `2⁻²⁰·(m₁ + m)`, covered by `s = 2⁻¹⁰`), which also covers the relative rounding
//! of `m` and of `c` itself.

use msdem_geom::kernel::triangle_triangle_exact;
use msdem_geom::math::{Iso3, Point3, Tri};

/// Relative slack on motions (see the module docs).
pub(super) const MOTION_SLACK: f64 = 1.0 / 1024.0;

/// Relative rounding allowance ρ of a certificate (see the module docs).
const RHO: f32 = 1.0 / 65536.0;

fn dot(a: &[f32; 3], b: &[f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn sub(a: &[f32; 3], b: &[f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Separation of the vertex sets of `t1`, `t2` along the face normal of `p` (one of them)
/// \[m\]; `-inf` for a degenerate triangle.
fn normal_gap(p: &Tri, t1: &Tri, t2: &Tri) -> f32 {
    let e1 = sub(&p.v[1], &p.v[0]);
    let e2 = sub(&p.v[2], &p.v[0]);
    let w = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    let len = dot(&w, &w).sqrt();
    if !(len > 0.0 && len.is_finite()) {
        return f32::NEG_INFINITY;
    }
    let pa = t1.v.map(|v| dot(&w, &v));
    let pb = t2.v.map(|v| dot(&w, &v));
    let (amin, amax) = (pa[0].min(pa[1]).min(pa[2]), pa[0].max(pa[1]).max(pa[2]));
    let (bmin, bmax) = (pb[0].min(pb[1]).min(pb[2]), pb[0].max(pb[1]).max(pb[2]));
    (bmin - amax).max(amin - bmax) / len
}

/// A lower bound of the distance between `t1` and `t2` \[m\] (may be negative; see the
/// module docs).
pub(super) fn lower_bound(t1: &Tri, t2: &Tri) -> f32 {
    let centre = |t: &Tri| [0, 1, 2].map(|k| (t.v[0][k] + t.v[1][k] + t.v[2][k]) * (1.0 / 3.0));
    let (c1, c2) = (centre(t1), centre(t2));
    let radius = |t: &Tri, c: &[f32; 3]| {
        t.v.iter()
            .map(|v| {
                let d = sub(v, c);
                dot(&d, &d)
            })
            .fold(0.0f32, f32::max)
            .sqrt()
    };
    let d = sub(&c1, &c2);
    let mut lb = dot(&d, &d).sqrt() - radius(t1, &c1) - radius(t2, &c2);
    for k in 0..3 {
        let lo1 = t1.v[0][k].min(t1.v[1][k]).min(t1.v[2][k]);
        let hi1 = t1.v[0][k].max(t1.v[1][k]).max(t1.v[2][k]);
        let lo2 = t2.v[0][k].min(t2.v[1][k]).min(t2.v[2][k]);
        let hi2 = t2.v[0][k].max(t2.v[1][k]).max(t2.v[2][k]);
        lb = lb.max(lo2 - hi1).max(lo1 - hi2);
    }
    lb.max(normal_gap(t1, t1, t2)).max(normal_gap(t2, t1, t2))
}

/// Largest absolute vertex coordinate of the two triangles \[m\].
pub(super) fn max_abs(t: &Tri, u: &Tri) -> f32 {
    t.v.iter()
        .chain(&u.v)
        .flatten()
        .fold(0.0f32, |m, c| m.max(c.abs()))
}

/// Clearance of the pair (`t1`, `t2`) with check margin `margin` \[m\], evaluated at a
/// pose that B reached after moving at most `m1` \[m\] from the reference pose: a pair is
/// certified separated at any pose within `m·(1 + s) < c` of the reference ([`certified`]).
/// NaN coordinates give `-inf` (never certified).
pub(super) fn clearance(t1: &Tri, t2: &Tri, margin: f32, m1: f64) -> f32 {
    let lb = lower_bound(t1, t2);
    let rho = RHO * (max_abs(t1, t2) + margin);
    let c = lb - margin - rho - (m1 * (1.0 + MOTION_SLACK)) as f32;
    if c.is_nan() {
        f32::NEG_INFINITY
    } else {
        c
    }
}

/// [`clearance`] with the exact distance as the lower bound where the cheap bound
/// leaves the pair within `skin` \[m\] (so that it would be stored and possibly
/// re-checked): one exact kernel call then saves the re-checks of every iteration until
/// the pair comes closer by its clearance. Returns the clearance and whether the exact
/// kernel ran.
pub(super) fn tight_clearance(t1: &Tri, t2: &Tri, margin: f32, m1: f64, skin: f32) -> (f32, bool) {
    let c = clearance(t1, t2, margin, m1);
    if c > skin {
        return (c, false);
    }
    let d = triangle_triangle_exact(t1, t2).dist();
    let rho = RHO * (max_abs(t1, t2) + margin);
    let e = d - margin - rho - (m1 * (1.0 + MOTION_SLACK)) as f32;
    (if e.is_nan() { c } else { c.max(e) }, true)
}

/// Clearance of the pair (`t1`, `t2`) from a lower bound `lower` \[m\] of its distance
/// (the kernel's or the screen's, [`msdem_geom::kernel::PairOutcome::lower`]), as
/// [`clearance`] does from the cheap bound: `lower − M − ρ − m1·(1 + s)`, with ρ scaled
/// by `coord_bound` — an upper bound of the pair's coordinate magnitudes (a larger scale
/// only lowers the clearance) — or, where that is not finite, by the pair's own largest
/// coordinate; NaN gives `-inf`.
pub(super) fn clearance_from(
    lower: f32,
    coord_bound: f32,
    (t1, t2): (&Tri, &Tri),
    margin: f32,
    m1: f64,
) -> f32 {
    allowed(lower - margin, coord_bound, (t1, t2), margin, m1)
}

/// In-margin slack of a real pair whose kernel call found it in contact with computed
/// distance `dist` \[m\] (an upper bound of its distance up to rounding: the closest
/// points lie on the triangles), evaluated at a pose that B reached after moving at most
/// `m1` \[m\] from the base pose: `M − dist − ρ − m1·(1 + s)` with the check margin `M`
/// and the rounding allowance ρ of [`clearance_from`] (scaled by `coord_bound`). At any
/// pose within `m·(1 + s) < slack` of the base ([`certified`]) the pair's distance is
/// below `M` by the triangle inequality, so it is certainly still in contact. NaN gives
/// `-inf` (never certified).
pub(super) fn slack(
    dist: f32,
    coord_bound: f32,
    (t1, t2): (&Tri, &Tri),
    margin: f32,
    m1: f64,
) -> f32 {
    allowed(margin - dist, coord_bound, (t1, t2), margin, m1)
}

/// `room − ρ − m1·(1 + s)` (NaN gives `-inf`): what is left of `room` \[m\] (a clearance
/// beyond the margin, or a slack within it) after the rounding allowance ρ of
/// [`clearance_from`] and the motion `m1` \[m\] since the base pose.
fn allowed(room: f32, coord_bound: f32, (t1, t2): (&Tri, &Tri), margin: f32, m1: f64) -> f32 {
    let rho = rho(coord_bound, (t1, t2), margin);
    let c = room - rho - (m1 * (1.0 + MOTION_SLACK)) as f32;
    if c.is_nan() {
        f32::NEG_INFINITY
    } else {
        c
    }
}

/// The rounding allowance ρ of [`clearance_from`] \[m\]: `2⁻¹⁶·(scale + M)`, the scale
/// `coord_bound` where finite, else the pair's own largest coordinate.
pub(super) fn rho(coord_bound: f32, (t1, t2): (&Tri, &Tri), margin: f32) -> f32 {
    let scale = if coord_bound.is_finite() {
        coord_bound
    } else {
        max_abs(t1, t2)
    };
    RHO * (scale + margin)
}

/// [`rho`] of a real pair with check margin `margin` \[m\] where `coord_bound` is finite
/// (the pair's triangles are not needed then).
pub(super) fn rho_real(coord_bound: f32, margin: f32) -> f32 {
    RHO * (coord_bound + margin)
}

/// Whether clearance `c` \[m\] certifies a pair after a motion of at most `m` \[m\] from
/// the reference pose.
pub(super) fn certified(c: f32, m: f64) -> bool {
    f64::from(c) > m * (1.0 + MOTION_SLACK)
}

/// Bound of the displacement of any point of B's bounding sphere `sphere` (centre and
/// radius in B's mesh frame \[m\]) between the poses `t0` and `t1` of B in A's frame \[m\].
pub(super) fn motion(t0: &Iso3, t1: &Iso3, sphere: &[f64; 4]) -> f64 {
    let c = Point3::new(sphere[0], sphere[1], sphere[2]);
    let shift = (t1 * c - t0 * c).norm();
    let dq = t1.rotation * t0.rotation.inverse();
    let m = shift + 2.0 * dq.quaternion().imag().norm() * sphere[3];
    if m.is_nan() {
        f64::INFINITY
    } else {
        m
    }
}

/// Bounding sphere (centre, radius \[m\]) of every vertex of a triangle soup, slightly
/// enlarged to cover its own rounding.
pub(crate) fn soup_sphere(soup: &[Tri]) -> [f64; 4] {
    let mut lo = [f64::MAX; 3];
    let mut hi = [f64::MIN; 3];
    for v in soup.iter().flat_map(|t| t.v.iter()) {
        for k in 0..3 {
            lo[k] = lo[k].min(f64::from(v[k]));
            hi[k] = hi[k].max(f64::from(v[k]));
        }
    }
    if soup.is_empty() {
        return [0.0; 4];
    }
    let c = [0, 1, 2].map(|k| 0.5 * (lo[k] + hi[k]));
    let r2 = soup
        .iter()
        .flat_map(|t| t.v.iter())
        .map(|v| {
            (0..3)
                .map(|k| (f64::from(v[k]) - c[k]).powi(2))
                .sum::<f64>()
        })
        .fold(0.0f64, f64::max);
    [c[0], c[1], c[2], r2.sqrt() * (1.0 + 1e-9) + 1e-12]
}

#[cfg(test)]
mod tests {
    use super::*;
    use msdem_geom::math::{Quat, Vec3};

    fn tri(seed: u32) -> Tri {
        let mut x = seed.wrapping_mul(2654435761).wrapping_add(777);
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

    /// The bound never exceeds the exact distance, and certifies far pairs.
    #[test]
    fn lower_bound_is_below_the_exact_distance() {
        let mut positive = 0;
        for i in 0..3000u32 {
            let (t1, mut t2) = (tri(2 * i), tri(2 * i + 1));
            let shift = (i % 9) as f32 * 0.4;
            t2.v.iter_mut().for_each(|v| v[1] += shift);
            let d = triangle_triangle_exact(&t1, &t2).dist();
            let lb = lower_bound(&t1, &t2);
            assert!(lb <= d + 1e-5, "pair {i}: bound {lb} > distance {d}");
            positive += usize::from(lb > 0.0);
        }
        assert!(positive > 1000, "{positive}");
    }

    /// Every point of the sphere moves at most `motion` between two random poses.
    #[test]
    fn motion_bounds_the_displacement_of_the_sphere() {
        let sphere = [0.3, -0.2, 0.1, 0.7];
        for i in 0..200u32 {
            let f = |k: u32| ((i * 31 + k * 17) % 101) as f64 / 101.0 - 0.5;
            let t0 = Iso3::from_parts(
                Vec3::new(f(1), f(2), f(3)).into(),
                Quat::from_scaled_axis(Vec3::new(f(4), f(5), f(6))),
            );
            let t1 = Iso3::from_parts(
                (t0.translation.vector + 0.01 * Vec3::new(f(7), f(8), f(9))).into(),
                Quat::from_scaled_axis(0.02 * Vec3::new(f(10), f(11), f(12))) * t0.rotation,
            );
            let m = motion(&t0, &t1, &sphere);
            for k in 0..50u32 {
                let dir = Vec3::new(f(k + 13), f(k + 14), f(k + 15)).normalize();
                let y = Point3::new(sphere[0], sphere[1], sphere[2]) + dir * sphere[3];
                let d = (t1 * y - t0 * y).norm();
                assert!(d <= m * (1.0 + 1e-12), "{d} > {m}");
            }
        }
    }
}
