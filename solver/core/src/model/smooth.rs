//! The curved surface a triangle mesh approximates (issue 14, `docs/design.md` §3,
//! *Smooth surfaces*): vertex normals per triangle corner, split at creases, and the
//! Phong tessellation they describe, with a shape factor per corner.
//!
//! For a point `p` of a facet with barycentric coordinates `b`, corner normals `nᵢ` and
//! corner shape factors `αᵢ`, the curved point is `p* = p + Σ αᵢ·bᵢ·(πᵢ(p) − p)`,
//! `πᵢ(p) = p − ((p − vᵢ)·nᵢ)·nᵢ` the projection of `p` on the tangent plane of corner
//! `i`; its height above the facet is the *sag* `h(p) = (p* − p)·n_f` and its normal
//! `normalise(Σ bᵢ nᵢ)`. The map stays quadratic in `b` (the Phong tessellation of
//! Boubekeur and Alexa has one `α` for all corners; a per-corner `αᵢ` keeps the surface
//! continuous across edges, where only the edge's two corners act).
//!
//! *Shape factor.* For a sphere's inscribed polyhedron a point whose tangent-plane
//! projections lie at angle `ψ` from its corners (its circumcentre, at `ψ` from each
//! corner) is lifted by `α·r·sin²ψ·cos ψ` while the sphere lies `r·(1 − cos ψ)` above it:
//! `α = 1/(c·(1 + c))`, `c = cos ψ`, meets the sphere there. It tends to `½` (second
//! order, the value of a fixed `α`) as the mesh refines; `¾`, the classic choice for
//! shading, overshoots a sphere by about the facet's own sag. Each corner takes
//! `c` = the mean cosine between its normal and the face normals it averages
//! ([`corner_shape_factor`], clamped to `[½, 1]`). Icospheres r = 0.1 m (`tests/physics/
//! smooth.rs`): the surface is within −5.0/+7.8 µm of the sphere for 320 triangles,
//! −0.22/+0.51 µm for 1,280, 0.04 µm for 5,120 (a fixed `α = ½`: −47 / −3.1 / −0.19 µm,
//! always inside; `¾`: +817 / +222 / +57 µm).
//!
//! A corner's normal is the mean of the normals of the triangles around its vertex
//! (vertices welded by exact position) with Max's weights `(e₁ × e₂)/(|e₁|²·|e₂|²)`, `e₁`,
//! `e₂` the triangle's edges from the corner (exact for a polyhedron inscribed in a
//! sphere, which angle or area weights are not where the valence varies), over the
//! triangles within [`CREASE_ANGLE`] of the corner's own triangle, so a cube's corners keep
//! each face's normal: a triangle whose three corner normals are its face normal is flat
//! (`h = 0` exactly) and keeps the
//! facets' contact geometry bit for bit.

use msdem_geom::math::Vec3;
use msdem_tree::{SurrogateTree, NO_TRIANGLE};

/// Dihedral angle \[rad\] above which an edge is a crease (30°): the faces on either side
/// keep separate vertex normals (cube edges, rock ridges).
pub const CREASE_ANGLE: f64 = std::f64::consts::PI / 6.0;

/// Shape factor `α` of a corner whose normal makes mean cosine `c` with the face normals
/// it averages: `1/(c·(1 + c))`, exact at a sphere's facet circumcentres (module docs),
/// clamped to `[½, 1]` (`½` for a flat corner, `1` the original Phong tessellation).
pub fn corner_shape_factor(c: f64) -> f64 {
    let a = 1.0 / (c * (1.0 + c));
    if a.is_finite() {
        a.clamp(0.5, 1.0)
    } else {
        1.0
    }
}

/// A curved triangle's corner normals and shape factors (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Corners {
    /// Unit corner normals.
    pub normals: [Vec3; 3],
    /// Corner shape factors `αᵢ` in `[½, 1]`.
    pub alpha: [f64; 3],
}

/// Corner normals closer than this angle \[rad\] to their face normal are the face normal
/// (a tessellated flat face: its welded normals differ from the face's by rounding).
const FLAT_ANGLE: f64 = 1e-6;

/// Vertex normals of a mesh's real triangles and the largest sag they produce, in the
/// mesh frame.
#[derive(Clone, Debug, Default)]
pub struct SmoothSurface {
    /// Per soup triangle of the tree: its corner normals and shape factors, or `None` where
    /// the triangle is flat (all three corners carry its face normal) or a surrogate.
    pub corners: Vec<Option<Corners>>,
    /// Per soup triangle: an upper bound \[m\] of its curved point's displacement
    /// `|p* − p|` (so of its sag), [`displacement_bound`]; 0 where flat.
    pub sag_m: Vec<f64>,
    /// The largest of [`SmoothSurface::sag_m`] \[m\]. Detection reaches this much farther so
    /// that no pair enters the force law with a jump.
    pub sag_bound_m: f64,
    /// Volume and moments the curved triangles add to the polyhedron
    /// ([`super::smooth_mass`]); `None` without a curved triangle.
    pub caps: Option<super::smooth_mass::CapMoments>,
    /// Whether the owning shape's mass properties already include [`SmoothSurface::caps`]
    /// (`Shape::use_curved_mass`).
    pub caps_in_mass: bool,
}

/// Unit normal of a triangle (`None` if degenerate).
fn face_normal(v: &[Vec3; 3]) -> Option<Vec3> {
    (v[1] - v[0]).cross(&(v[2] - v[0])).try_normalize(0.0)
}

/// Max's weighted face normal of triangle `v` at corner `i`: `(e₁ × e₂)/(|e₁|²·|e₂|²)`
/// with `e₁`, `e₂` its edges from the corner (exact for a polyhedron inscribed in a
/// sphere, which angle or area weights are not where the valence varies).
fn weighted_normal(v: &[Vec3; 3], i: usize) -> Vec3 {
    let e1 = v[(i + 1) % 3] - v[i];
    let e2 = v[(i + 2) % 3] - v[i];
    let w = e1.norm_squared() * e2.norm_squared();
    if w > 0.0 {
        e1.cross(&e2) / w
    } else {
        Vec3::zeros()
    }
}

impl SmoothSurface {
    /// The smooth surface of `tree`'s real triangles (see the module docs). Cost: one sort
    /// of the `3·n` corners by position.
    pub fn of(tree: &SurrogateTree) -> Self {
        let n = tree.soup.len();
        let verts: Vec<[Vec3; 3]> = tree
            .soup
            .iter()
            .map(|t| {
                t.v.map(|p| Vec3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2])))
            })
            .collect();
        let normals: Vec<Option<Vec3>> = verts
            .iter()
            .zip(&tree.source)
            .map(|(v, &s)| {
                if s == NO_TRIANGLE {
                    None
                } else {
                    face_normal(v)
                }
            })
            .collect();
        // Corners grouped by their vertex's exact position (f32 bits), in a fixed order.
        let mut keys: Vec<([u32; 3], u32, u8)> = Vec::with_capacity(3 * n);
        for (t, tri) in tree.soup.iter().enumerate() {
            if normals[t].is_none() {
                continue;
            }
            for (i, p) in tri.v.iter().enumerate() {
                keys.push((p.map(f32::to_bits), t as u32, i as u8));
            }
        }
        keys.sort_unstable();
        let mut corners: Vec<Option<Corners>> = vec![None; n];
        let mut acc: Vec<[Vec3; 3]> = vec![[Vec3::zeros(); 3]; n];
        let mut alpha: Vec<[f64; 3]> = vec![[0.5; 3]; n];
        let cos_crease = CREASE_ANGLE.cos();
        let mut start = 0;
        while start < keys.len() {
            let mut end = start + 1;
            while end < keys.len() && keys[end].0 == keys[start].0 {
                end += 1;
            }
            let group = &keys[start..end];
            for &(_, t, i) in group {
                let own = normals[t as usize].unwrap_or_else(Vec3::zeros);
                let joins = |u: u32| {
                    let nu = normals[u as usize].unwrap_or_else(Vec3::zeros);
                    u == t || nu.dot(&own) >= cos_crease
                };
                let mut sum = Vec3::zeros();
                for &(_, u, j) in group {
                    if joins(u) {
                        sum += weighted_normal(&verts[u as usize], j as usize);
                    }
                }
                let ni = sum.try_normalize(0.0).unwrap_or(own);
                // Mean cosine between the corner normal and the face normals it averages.
                let (mut cos_sum, mut count) = (0.0, 0.0);
                for &(_, u, _) in group {
                    if joins(u) {
                        cos_sum += ni.dot(&normals[u as usize].unwrap_or_else(Vec3::zeros));
                        count += 1.0;
                    }
                }
                acc[t as usize][i as usize] = ni;
                alpha[t as usize][i as usize] = corner_shape_factor(cos_sum / count);
            }
            start = end;
        }
        let cos_flat = FLAT_ANGLE.cos();
        let mut sag_bound_m: f64 = 0.0;
        let mut sag_m = vec![0.0; n];
        for t in 0..n {
            let Some(nf) = normals[t] else { continue };
            let c = acc[t];
            if c.iter().all(|ni| ni.dot(&nf) >= cos_flat) {
                continue;
            }
            let curved = Corners {
                normals: c,
                alpha: alpha[t],
            };
            sag_m[t] = displacement_bound(&verts[t], &curved);
            sag_bound_m = sag_bound_m.max(sag_m[t]);
            corners[t] = Some(curved);
        }
        let caps = super::smooth_mass::cap_moments(tree, &corners);
        SmoothSurface {
            corners,
            sag_m,
            sag_bound_m,
            caps,
            caps_in_mass: false,
        }
    }
}

/// An upper bound \[m\] of `|p* − p|` over the facet `v` with corners `c`: with
/// `dᵢⱼ = (vⱼ − vᵢ)·nᵢ`, `(p − vᵢ)·nᵢ = Σⱼ bⱼ·dᵢⱼ`, so
/// `|p* − p| ≤ Σᵢ αᵢ·bᵢ·Σⱼ bⱼ·|dᵢⱼ| = Σ_{i<j} bᵢ·bⱼ·wᵢⱼ`, `wᵢⱼ = αᵢ·|dᵢⱼ| + αⱼ·|dⱼᵢ|`,
/// at most `max wᵢⱼ / 3` (`Σ_{i<j} bᵢ·bⱼ ≤ ⅓` on the triangle). For a sphere's inscribed
/// facet this is the sag at its centre over `cos ψ` (≈ `α·L²/(3r)`, `L` an edge), about
/// 0.58 of the bound `max αᵢ·L·max sin θᵢ` (`θᵢ` the corner normals' angles to the face
/// normal) it replaces.
pub fn displacement_bound(v: &[Vec3; 3], c: &Corners) -> f64 {
    let d = |i: usize, j: usize| (v[j] - v[i]).dot(&c.normals[i]).abs();
    let w = |i: usize, j: usize| c.alpha[i] * d(i, j) + c.alpha[j] * d(j, i);
    w(0, 1).max(w(1, 2)).max(w(0, 2)) / 3.0
}

/// The curved point and normal over a point of a facet (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct CurvedPoint {
    /// Displacement `p* − p` \[m\].
    pub offset: Vec3,
    /// Unit normal of the curved surface there.
    pub normal: Vec3,
}

/// Barycentric coordinates of `p` (in the plane of `v`) with respect to `v`.
pub fn barycentric(p: &Vec3, v: &[Vec3; 3]) -> [f64; 3] {
    let e0 = v[1] - v[0];
    let e1 = v[2] - v[0];
    let e2 = p - v[0];
    let d00 = e0.dot(&e0);
    let d01 = e0.dot(&e1);
    let d11 = e1.dot(&e1);
    let d20 = e2.dot(&e0);
    let d21 = e2.dot(&e1);
    let den = d00 * d11 - d01 * d01;
    if den == 0.0 || !den.is_finite() {
        return [1.0, 0.0, 0.0];
    }
    let b1 = (d11 * d20 - d01 * d21) / den;
    let b2 = (d00 * d21 - d01 * d20) / den;
    [1.0 - b1 - b2, b1, b2]
}

/// The curved point over `p` on the facet `v` (corners, same frame as `p`) with corner
/// normals and shape factors `c` (normals in the same frame).
pub fn curved_point(p: &Vec3, v: &[Vec3; 3], c: &Corners) -> CurvedPoint {
    let b = barycentric(p, v);
    let n = &c.normals;
    let mut offset = Vec3::zeros();
    let mut normal = Vec3::zeros();
    for i in 0..3 {
        offset -= (c.alpha[i] * b[i] * (p - v[i]).dot(&n[i])) * n[i];
        normal += b[i] * n[i];
    }
    CurvedPoint {
        offset,
        normal: normal.try_normalize(0.0).unwrap_or(n[0]),
    }
}

/// Which surface a material's particles meet others with (`materials.NAME.surface`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Surface {
    /// The mesh's flat facets (seed 000 §2; the default).
    #[default]
    Facets,
    /// The curved surface its vertex normals describe where the mesh is smooth
    /// ([`SmoothSurface`]); facets at creases.
    Smooth,
}
