//! Initial interpenetration check: bodies whose real triangles cross, or a particle that
//! lies inside another, are refused before the run starts. Halo overlap (distance ≤ ε_A +
//! ε_B) and touching (shared faces, a vertex resting on a face) are allowed.
//!
//! Candidate pairs come from bounding spheres (particles) and bounding boxes (obstacles);
//! triangles are filtered by the intersection of the two bodies' boxes. A crossing is an edge
//! of one triangle passing strictly through the other (endpoints strictly on both sides of
//! its plane, relative tolerance [`TOUCH_TOL`]). Containment is decided by the generalised
//! winding number of a few vertices of one particle with respect to the other's closed mesh.

use msdem_geom::math::Vec3;

/// Relative tolerance (of the pair's size) below which a vertex counts as *on* a plane.
pub const TOUCH_TOL: f64 = 1e-9;

/// A body's mesh placed in the world (f64).
#[derive(Clone, Debug)]
pub struct PlacedMesh {
    /// World vertices \[m\].
    pub vertices: Vec<Vec3>,
    /// Vertex indices per triangle (shared with the shape's mesh).
    pub triangles: std::sync::Arc<Vec<[u32; 3]>>,
    /// World AABB `(min, max)` \[m\].
    pub aabb: (Vec3, Vec3),
    /// Whether the mesh is closed (particles): only then can something lie inside it.
    pub closed: bool,
}

impl PlacedMesh {
    /// Places mesh vertices with `x ↦ iso·x`.
    pub fn new(
        vertices: &[[f64; 3]],
        triangles: std::sync::Arc<Vec<[u32; 3]>>,
        iso: &msdem_geom::math::Iso3,
        closed: bool,
    ) -> Self {
        let vertices: Vec<Vec3> = vertices
            .iter()
            .map(|v| (iso * msdem_geom::math::Point3::new(v[0], v[1], v[2])).coords)
            .collect();
        let mut lo = Vec3::repeat(f64::INFINITY);
        let mut hi = Vec3::repeat(f64::NEG_INFINITY);
        for t in triangles.iter() {
            for &i in t {
                let v = vertices[i as usize];
                lo = lo.inf(&v);
                hi = hi.sup(&v);
            }
        }
        PlacedMesh {
            vertices,
            triangles,
            aabb: (lo, hi),
            closed,
        }
    }

    fn tri(&self, t: usize) -> [Vec3; 3] {
        let [a, b, c] = self.triangles[t];
        [
            self.vertices[a as usize],
            self.vertices[b as usize],
            self.vertices[c as usize],
        ]
    }

    /// Triangles whose AABB meets the box `(lo, hi)`.
    fn triangles_in(&self, lo: &Vec3, hi: &Vec3) -> Vec<(usize, Vec3, Vec3)> {
        (0..self.triangles.len())
            .filter_map(|t| {
                let [a, b, c] = self.tri(t);
                let tlo = a.inf(&b).inf(&c);
                let thi = a.sup(&b).sup(&c);
                let apart = (0..3).any(|k| tlo[k] > hi[k] || thi[k] < lo[k]);
                (!apart).then_some((t, tlo, thi))
            })
            .collect()
    }
}

/// The world AABB `(min, max)` \[m\] that [`PlacedMesh::new`] computes for the same
/// inputs, bit for bit, without placing the mesh: the bounds over the vertices in `used`
/// (those the triangles reference, [`referenced_vertices`]) under `iso`. Two bodies
/// whose boxes are apart cannot interpenetrate ([`penetration`] starts with the same test).
pub fn placed_aabb(
    vertices: &[[f64; 3]],
    used: &[u32],
    iso: &msdem_geom::math::Iso3,
) -> (Vec3, Vec3) {
    let mut lo = Vec3::repeat(f64::INFINITY);
    let mut hi = Vec3::repeat(f64::NEG_INFINITY);
    for &i in used {
        let v = vertices[i as usize];
        let w = (iso * msdem_geom::math::Point3::new(v[0], v[1], v[2])).coords;
        lo = lo.inf(&w);
        hi = hi.sup(&w);
    }
    (lo, hi)
}

/// The vertex indices `triangles` reference, ascending, each once.
pub fn referenced_vertices(triangles: &[[u32; 3]]) -> Vec<u32> {
    let mut used: Vec<u32> = triangles.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    used
}

/// Whether two boxes are apart on some axis (the first test of [`penetration`]).
pub fn boxes_apart(a: &(Vec3, Vec3), b: &(Vec3, Vec3)) -> bool {
    let lo = a.0.sup(&b.0);
    let hi = a.1.inf(&b.1);
    (0..3).any(|k| lo[k] > hi[k])
}

/// How two bodies interpenetrate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Penetration {
    /// Triangle `a` of the first body crosses triangle `b` of the second.
    Crossing {
        /// Triangle of the first body.
        a: u32,
        /// Triangle of the second body.
        b: u32,
    },
    /// A point of the first body's surface lies strictly inside the second (closed) body.
    FirstInside,
    /// A point of the second body's surface lies strictly inside the first (closed) body.
    SecondInside,
}

/// Whether and how two placed meshes interpenetrate.
///
/// First a strict crossing test (an edge strictly through a triangle's interior); then,
/// for closed bodies, sample points of the other surface near the overlap (vertices, edge
/// midpoints, centroids) with winding number ≈ 1. The samples catch containment and the
/// aligned overlaps whose crossings all lie on triangle boundaries (e.g. two axis-aligned
/// cubes overlapping by half), where the crossing test alone cannot tell them from touching.
pub fn penetration(a: &PlacedMesh, b: &PlacedMesh) -> Option<Penetration> {
    if boxes_apart(&a.aabb, &b.aabb) {
        return None;
    }
    let lo = a.aabb.0.sup(&b.aabb.0);
    let hi = a.aabb.1.inf(&b.aabb.1);
    let size = (a.aabb.1 - a.aabb.0).norm() + (b.aabb.1 - b.aabb.0).norm();
    let tol = TOUCH_TOL * size;
    let ta = a.triangles_in(&lo, &hi);
    let tb = b.triangles_in(&lo, &hi);
    for &(i, alo, ahi) in &ta {
        let t1 = a.tri(i);
        for &(j, blo, bhi) in &tb {
            if (0..3).any(|k| alo[k] > bhi[k] || ahi[k] < blo[k]) {
                continue;
            }
            if triangles_cross(&t1, &b.tri(j), tol) {
                return Some(Penetration::Crossing {
                    a: i as u32,
                    b: j as u32,
                });
            }
        }
    }
    let inset = 1e-6 * size;
    if b.closed && samples_inside(a, &ta, b, &lo, &hi, inset) {
        return Some(Penetration::FirstInside);
    }
    if a.closed && samples_inside(b, &tb, a, &lo, &hi, inset) {
        return Some(Penetration::SecondInside);
    }
    None
}

/// Winding number above which a point is inside a closed mesh (1 inside, 0 outside, ≤ 1/2
/// on a face or convex edge; only sharp concave edges come near 1 while on the surface).
pub const INSIDE_WINDING: f64 = 0.9;

/// True if a sample point of `a`'s triangles `tris` inside the box `(lo, hi)` lies inside
/// the closed mesh `b`. Samples: vertices, edge midpoints, the centroid and, for a closed
/// `a`, the centroid moved `inset` \[m\] inwards (a point of `a`'s interior, which catches
/// coincident surfaces).
fn samples_inside(
    a: &PlacedMesh,
    tris: &[(usize, Vec3, Vec3)],
    b: &PlacedMesh,
    lo: &Vec3,
    hi: &Vec3,
    inset: f64,
) -> bool {
    let in_box = |p: &Vec3| (0..3).all(|k| p[k] >= lo[k] && p[k] <= hi[k]);
    tris.iter().any(|&(t, _, _)| {
        let [p, q, r] = a.tri(t);
        let centroid = (p + q + r) / 3.0;
        let inward = match (q - p).cross(&(r - p)).try_normalize(0.0) {
            Some(n) if a.closed => centroid - n * inset,
            _ => centroid,
        };
        let samples = [
            p,
            (p + q) * 0.5,
            (q + r) * 0.5,
            (r + p) * 0.5,
            centroid,
            inward,
        ];
        samples
            .iter()
            .any(|s| in_box(s) && winding_number(s, b) > INSIDE_WINDING)
    })
}

/// Generalised winding number of `p` with respect to a closed mesh: 1 inside, 0 outside,
/// 1/2 on a face (sum of signed solid angles over 4π, Van Oosterom–Strackee formula; a
/// triangle whose plane contains `p` contributes 0).
pub fn winding_number(p: &Vec3, m: &PlacedMesh) -> f64 {
    let mut omega = 0.0;
    for t in 0..m.triangles.len() {
        let [a, b, c] = m.tri(t);
        let (a, b, c) = (a - p, b - p, c - p);
        let (la, lb, lc) = (a.norm(), b.norm(), c.norm());
        let num = a.dot(&b.cross(&c));
        if num.abs() <= 1e-12 * la * lb * lc {
            continue;
        }
        let den = la * lb * lc + a.dot(&b) * lc + a.dot(&c) * lb + b.dot(&c) * la;
        omega += 2.0 * num.atan2(den);
    }
    omega / (4.0 * std::f64::consts::PI)
}

/// True if an edge of one triangle passes strictly through the other.
pub fn triangles_cross(t1: &[Vec3; 3], t2: &[Vec3; 3], tol: f64) -> bool {
    edges_pierce(t1, t2, tol) || edges_pierce(t2, t1, tol)
}

/// Does an edge of `e` cross the plane of `t` strictly inside `t`?
fn edges_pierce(e: &[Vec3; 3], t: &[Vec3; 3], tol: f64) -> bool {
    let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
    let len = n.norm();
    if len <= 0.0 || !len.is_finite() {
        return false;
    }
    let n = n / len;
    let d: [f64; 3] = std::array::from_fn(|k| n.dot(&(e[k] - t[0])));
    (0..3).any(|k| {
        let (i, j) = (k, (k + 1) % 3);
        if !((d[i] > tol && d[j] < -tol) || (d[i] < -tol && d[j] > tol)) {
            return false;
        }
        let s = d[i] / (d[i] - d[j]);
        let x = e[i] + (e[j] - e[i]) * s;
        point_in_triangle(&x, t, &n, tol)
    })
}

/// Is `x` (in the plane of `t`, unit normal `n`) strictly inside `t` (farther than `tol`
/// from its edges)?
fn point_in_triangle(x: &Vec3, t: &[Vec3; 3], n: &Vec3, tol: f64) -> bool {
    (0..3).all(|k| {
        let (a, b) = (t[k], t[(k + 1) % 3]);
        let edge = b - a;
        let l = edge.norm();
        l > 0.0 && n.dot(&edge.cross(&(x - a))) / l > tol
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use msdem_geom::math::Iso3;
    use std::sync::Arc;

    fn cube(center: [f64; 3], half: f64) -> PlacedMesh {
        let v: Vec<[f64; 3]> = (0..8)
            .map(|i| {
                [
                    if i & 1 == 0 { -half } else { half },
                    if i & 2 == 0 { -half } else { half },
                    if i & 4 == 0 { -half } else { half },
                ]
            })
            .collect();
        // Outward, counter-clockwise faces.
        let t = vec![
            [0, 2, 1],
            [1, 2, 3],
            [4, 5, 6],
            [5, 7, 6],
            [0, 1, 4],
            [1, 5, 4],
            [2, 6, 3],
            [3, 6, 7],
            [0, 4, 2],
            [2, 4, 6],
            [1, 3, 5],
            [3, 7, 5],
        ];
        let iso = Iso3::translation(center[0], center[1], center[2]);
        PlacedMesh::new(&v, Arc::new(t), &iso, true)
    }

    #[test]
    fn winding_number_inside_outside_on_face() {
        let c = cube([0.0; 3], 1.0);
        let w = winding_number(&Vec3::new(0.1, 0.2, 0.3), &c);
        assert!((w - 1.0).abs() < 1e-9, "{w}");
        assert!(winding_number(&Vec3::new(3.0, 0.2, 0.3), &c).abs() < 1e-9);
        assert!((winding_number(&Vec3::new(1.0, 0.2, 0.3), &c) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn overlapping_cubes_cross_touching_and_separate_ones_do_not() {
        let a = cube([0.0; 3], 1.0);
        assert!(matches!(
            penetration(&a, &cube([1.5, 0.3, 0.2], 1.0)),
            Some(Penetration::Crossing { .. })
        ));
        // Face to face, exactly touching.
        assert_eq!(penetration(&a, &cube([2.0, 0.0, 0.0], 1.0)), None);
        // Stacked with an offset: a vertex rests on a face.
        assert_eq!(penetration(&a, &cube([0.5, 0.5, 2.0], 1.0)), None);
        assert_eq!(penetration(&a, &cube([2.001, 0.0, 0.0], 1.0)), None);
        // Aligned overlap by half: every crossing lies on a triangle boundary.
        assert!(penetration(&a, &cube([1.0, 0.0, 0.0], 1.0)).is_some());
        assert!(penetration(&a, &cube([1.0, 1.0, 1.0], 1.0)).is_some());
    }

    #[test]
    fn placed_aabb_is_the_placed_meshes_box_bit_for_bit() {
        let c = cube([0.0; 3], 1.0);
        let v: Vec<[f64; 3]> = (0..8)
            .map(|i| {
                let s = |b: i32| if i & b == 0 { -1.0 } else { 1.0 };
                [s(1), s(2), s(4)]
            })
            .collect();
        let rot = msdem_geom::math::Quat::from_euler_angles(0.3, -1.1, 2.0);
        let iso = Iso3::from_parts(msdem_geom::math::Vec3::new(0.1, 2.0, -3.0).into(), rot);
        let placed = PlacedMesh::new(&v, c.triangles.clone(), &iso, true);
        let used = referenced_vertices(&c.triangles);
        assert_eq!(used, (0..8).collect::<Vec<u32>>());
        assert_eq!(placed_aabb(&v, &used, &iso), placed.aabb);
    }

    #[test]
    fn containment_is_detected_both_ways() {
        let big = cube([0.0; 3], 1.0);
        let small = cube([0.1, 0.0, 0.0], 0.2);
        assert_eq!(penetration(&small, &big), Some(Penetration::FirstInside));
        assert_eq!(penetration(&big, &small), Some(Penetration::SecondInside));
    }

    #[test]
    fn axis_aligned_cubes_match_the_interval_truth_on_a_grid() {
        // Offsets on a 0.5 grid hit every aligned and touching configuration (and coincidence);
        // truth: the
        // interiors of two unit-half cubes meet iff |d_k| < 2 on every axis.
        let a = cube([0.0; 3], 1.0);
        let steps: Vec<f64> = (-5..=5).map(|i| f64::from(i) * 0.5).collect();
        for &x in &steps {
            for &y in &steps {
                for &z in &steps {
                    let d = [x, y, z];
                    let truth = d.iter().all(|c| c.abs() < 2.0);
                    let got = penetration(&a, &cube(d, 1.0)).is_some();
                    assert_eq!(got, truth, "offset {d:?}");
                }
            }
        }
    }
}
