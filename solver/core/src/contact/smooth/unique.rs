//! Certificates that the distance between two facets (flat or curved,
//! [`super::closest::PhongTri`]) has a single local minimum value, so that one converged
//! descent ([`super::closest::descend`]) found the global one and the second descent from
//! the centroids (`docs/design.md` §3, *Smooth surfaces*, *Continuity*) cannot find a
//! lower one.
//!
//! *Bernstein form.* A Phong facet is a quadratic triangular patch: with
//! `dᵢⱼ = (vⱼ − vᵢ)·nᵢ`, `P(b) = Σᵢ bᵢ²·vᵢ + Σ_{i<j} 2bᵢbⱼ·cᵢⱼ`,
//! `cᵢⱼ = (vᵢ + vⱼ)/2 − (αᵢ·dᵢⱼ·nᵢ + αⱼ·dⱼᵢ·nⱼ)/2`, so the patch lies in the convex hull of
//! its six control points `vᵢ`, `cᵢⱼ` (the Bernstein weights are ≥ 0 and sum to 1).
//!
//! *Convexity* ([`convex_distance`]). `F(u_a, u_b) = ½|r|²`, `r = P_a(u_a) − P_b(u_b)`,
//! has the Hessian `JᵀJ + S(r)`, `S(r) = diag(r·P_a″, −r·P_b″)` (the 2 × 2 blocks of the
//! facets' second derivatives, constant: `P` is quadratic). `S` is linear in `r` and the
//! positive semidefinite cone is convex, so where `S` is positive semidefinite at every
//! difference of control points, it is for every `r` of the two patches, `F` is convex on
//! the product of the two triangles, and every stationary point of the constrained descent
//! is a global minimum.
//!
//! *A curved facet over a flat one* ([`convex_height`]). Where every control point of the
//! curved facet lies strictly on one side of the flat facet's plane and projects into the
//! flat facet, the distance from a curved point to the flat facet is its height
//! `h(u) = σ·n·(P(u) − v₀)` above the plane, a quadratic in `u` with the constant Hessian
//! `σ·n·P″`; where that is positive semidefinite `h` is convex and positive, and every
//! stationary point of `F` (its flat side's point is then the projection, inside the
//! facet) is a minimum of `h`, so the global one.

use super::closest::PhongTri;
use msdem_geom::math::Vec3;

/// The six Bernstein control points of a facet (module docs): its corners, then the
/// edge points `c₀₁`, `c₁₂`, `c₀₂`.
pub fn control_points(p: &PhongTri) -> [Vec3; 6] {
    let v = p.v;
    let mid = |i: usize, j: usize| {
        let m = 0.5 * (v[i] + v[j]);
        match p.n {
            None => m,
            Some(c) => {
                let n = &c.normals;
                let dij = (v[j] - v[i]).dot(&n[i]);
                let dji = (v[i] - v[j]).dot(&n[j]);
                m - 0.5 * (c.alpha[i] * dij * n[i] + c.alpha[j] * dji * n[j])
            }
        }
    };
    [v[0], v[1], v[2], mid(0, 1), mid(1, 2), mid(0, 2)]
}

/// A lower bound \[m\] of the distance between the two facets: the separation of their
/// control points' convex hulls (which hold the facets) along the unit vector `n` (from
/// `b` towards `a`), `min_i n·c_a,i − max_j n·c_b,j` (negative where they overlap along it).
pub fn separation(pa: &PhongTri, pb: &PhongTri, n: &Vec3) -> f64 {
    let lo = control_points(pa)
        .iter()
        .map(|c| n.dot(c))
        .fold(f64::INFINITY, f64::min);
    let hi = control_points(pb)
        .iter()
        .map(|c| n.dot(c))
        .fold(f64::NEG_INFINITY, f64::max);
    lo - hi
}

/// Second derivatives `(P_ss, P_st, P_tt)` of a facet (constant; zero where flat), in the
/// parameters of [`PhongTri::eval`].
pub fn second_derivatives(p: &PhongTri) -> Option<[Vec3; 3]> {
    p.n?;
    let j = p.eval([0.0, 0.0]);
    Some([j.dss, j.dst, j.dtt])
}

/// Whether the symmetric 2 × 2 matrix `[[p, q], [q, s]]` is positive semidefinite.
fn psd(p: f64, q: f64, s: f64) -> bool {
    p >= 0.0 && s >= 0.0 && p * s >= q * q
}

/// Whether `F = ½|P_a − P_b|²` is convex on the product of the two facets (module docs):
/// `r·P_a″` and `−r·P_b″` positive semidefinite for every difference `r` of control points.
pub fn convex_distance(pa: &PhongTri, pb: &PhongTri) -> bool {
    let (ca, cb) = (control_points(pa), control_points(pb));
    let block = |d: Option<[Vec3; 3]>, sign: f64| -> bool {
        let Some(d) = d else { return true };
        // `sign·r·P″` with `r = x − y` is `q(x) − q(y)`, `q(x) = sign·(x·P_ss, x·P_st, x·P_tt)`.
        let q = |x: &Vec3| d.map(|e| sign * x.dot(&e));
        let (qa, qb) = (ca.map(|x| q(&x)), cb.map(|x| q(&x)));
        qa.iter().all(|x| {
            qb.iter()
                .all(|y| psd(x[0] - y[0], x[1] - y[1], x[2] - y[2]))
        })
    };
    block(second_derivatives(pa), 1.0) && block(second_derivatives(pb), -1.0)
}

/// Whether the curved facet `c` over the flat facet `f` has a convex positive height above
/// `f`'s plane with every control point projecting into `f` (module docs).
pub fn convex_height(c: &PhongTri, f: &PhongTri) -> bool {
    let Some(d) = second_derivatives(c) else {
        return false;
    };
    if f.n.is_some() {
        return false;
    }
    let v = f.v;
    let (e1, e2) = (v[1] - v[0], v[2] - v[0]);
    let normal = e1.cross(&e2);
    if normal.norm_squared() == 0.0 {
        return false;
    }
    let pts = control_points(c);
    let h0 = (pts[0] - v[0]).dot(&normal);
    let sigma = if h0 > 0.0 {
        1.0
    } else if h0 < 0.0 {
        -1.0
    } else {
        return false;
    };
    // Inside the flat facet: the projection's coordinates along its edge normals.
    let inside = |x: &Vec3| {
        (0..3).all(|i| {
            let (a, b) = (v[i], v[(i + 1) % 3]);
            (b - a).cross(&(x - a)).dot(&normal) >= 0.0
        })
    };
    let above = pts
        .iter()
        .all(|x| sigma * (x - v[0]).dot(&normal) > 0.0 && inside(x));
    above
        && psd(
            sigma * normal.dot(&d[0]),
            sigma * normal.dot(&d[1]),
            sigma * normal.dot(&d[2]),
        )
}

/// Whether the distance between the two facets has no local minimum above its global one
/// ([`convex_distance`], or [`convex_height`] with either side flat).
pub fn single_minimum(pa: &PhongTri, pb: &PhongTri) -> bool {
    match (pa.n.is_some(), pb.n.is_some()) {
        (true, false) if convex_height(pa, pb) => true,
        (false, true) if convex_height(pb, pa) => true,
        _ => convex_distance(pa, pb),
    }
}
