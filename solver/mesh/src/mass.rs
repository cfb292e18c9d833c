//! Mass properties of a closed triangle mesh (docs/design.md §3).
//!
//! Exact for polyhedra: the solid is decomposed into signed tetrahedra spanned by each
//! triangle and a reference point (divergence theorem). For the tetrahedron with corners
//! `0, a, b, c` and `D = a · (b × c)`: volume `D/6`, first moment `D/24 · (a + b + c)` and
//! second moment `∫ x xᵀ dV = D/120 · (a aᵀ + b bᵀ + c cᵀ + s sᵀ)` with `s = a + b + c`.

use crate::vec3::{add, cross, dot, norm, scale, sub};
use crate::{MeshError, TriMesh};

/// Mass properties of a homogeneous rigid body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Enclosed volume \[m³\].
    pub volume: f64,
    /// Mass \[kg\] = density × volume.
    pub mass: f64,
    /// Centre of mass \[m\], in mesh coordinates.
    pub com: [f64; 3],
    /// Inertia tensor about the centre of mass, mesh axes \[kg·m²\].
    pub inertia: [[f64; 3]; 3],
    /// Largest distance of a mesh vertex from the centre of mass \[m\].
    pub bounding_radius: f64,
}

/// Volume, mass, centre of mass, inertia about the centre of mass and bounding radius of a
/// closed, outward mesh of uniform `density` \[kg/m³\].
///
/// Fails on out-of-range indices, non-finite coordinates, a non-positive or non-finite
/// density, or a non-positive enclosed volume (open or inside-out mesh). The mesh's
/// topology is not otherwise checked: run [`crate::check::check_mesh`] first.
pub fn mass_properties(mesh: &TriMesh, density: f64) -> Result<MassProperties, MeshError> {
    if !(density.is_finite() && density > 0.0) {
        return Err(MeshError::Mass(format!(
            "density {density} kg/m³ must be positive and finite"
        )));
    }
    let used = used_vertices(mesh)?;
    if used.is_empty() {
        return Err(MeshError::Mass("empty mesh".into()));
    }
    // Reference point inside the vertex cloud keeps the tetra moments well conditioned.
    let reference = scale(
        used.iter()
            .fold([0.0; 3], |acc, &i| add(acc, mesh.vertices[i])),
        1.0 / used.len() as f64,
    );
    let mut six_volume = 0.0;
    let mut first = [0.0; 3]; // × 24
    let mut second = [[0.0; 3]; 3]; // × 120
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|i| sub(mesh.vertices[i as usize], reference));
        let d = dot(a, cross(b, c));
        let s = add(add(a, b), c);
        six_volume += d;
        first = add(first, scale(s, d));
        for (i, row) in second.iter_mut().enumerate() {
            for (j, m) in row.iter_mut().enumerate() {
                *m += d * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
            }
        }
    }
    let volume = six_volume / 6.0;
    if !(volume.is_finite() && volume > 0.0) {
        return Err(MeshError::Mass(format!(
            "enclosed volume {volume:e} m³ is not positive (open or inside-out mesh?)"
        )));
    }
    let com_rel = scale(first, 1.0 / (24.0 * volume));
    // ∫ (x − com)(x − com)ᵀ dV; exactly symmetric since every term is.
    let cov: [[f64; 3]; 3] = std::array::from_fn(|i| {
        std::array::from_fn(|j| second[i][j] / 120.0 - volume * com_rel[i] * com_rel[j])
    });
    let trace = cov[0][0] + cov[1][1] + cov[2][2];
    let inertia = std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            let delta = if i == j { trace } else { 0.0 };
            density * (delta - cov[i][j])
        })
    });
    let com = add(reference, com_rel);
    Ok(MassProperties {
        volume,
        mass: density * volume,
        com,
        inertia,
        bounding_radius: bounding_radius(mesh, com),
    })
}

/// Largest distance \[m\] of a vertex used by some triangle from `center` (0 if none).
pub fn bounding_radius(mesh: &TriMesh, center: [f64; 3]) -> f64 {
    mesh.triangles
        .iter()
        .flatten()
        .filter_map(|&i| mesh.vertices.get(i as usize))
        .map(|&v| norm(sub(v, center)))
        .fold(0.0, f64::max)
}

/// Sorted, deduplicated indices of the vertices used by triangles; validates them.
fn used_vertices(mesh: &TriMesh) -> Result<Vec<usize>, MeshError> {
    let n = mesh.vertices.len();
    let mut used: Vec<usize> = mesh
        .triangles
        .iter()
        .flatten()
        .map(|&i| i as usize)
        .collect();
    used.sort_unstable();
    used.dedup();
    if let Some(&i) = used.last().filter(|&&i| i >= n) {
        return Err(MeshError::Mass(format!(
            "vertex index {i} out of range ({n} vertices)"
        )));
    }
    if let Some(&i) = used
        .iter()
        .find(|&&i| mesh.vertices[i].iter().any(|c| !c.is_finite()))
    {
        return Err(MeshError::Mass(format!(
            "vertex {i} has a non-finite coordinate"
        )));
    }
    Ok(used)
}

/// Total area \[m²\] of the triangles (triangles with an out-of-range index are skipped).
pub fn surface_area(mesh: &TriMesh) -> f64 {
    mesh.triangles
        .iter()
        .filter_map(|t| {
            let [a, b, c] = [0, 1, 2].map(|k| mesh.vertices.get(t[k] as usize));
            Some(0.5 * norm(cross(sub(*b?, *a?), sub(*c?, *a?))))
        })
        .sum()
}

/// Principal moments (eigenvalues, ascending) and principal axes (unit eigenvectors, one
/// row per moment) of a symmetric inertia tensor. Each axis is signed so that its largest
/// component (the first of equal ones) is positive, so the result is deterministic.
pub fn principal_axes(inertia: &[[f64; 3]; 3]) -> ([f64; 3], [[f64; 3]; 3]) {
    let m = msdem_geom::math::Mat3::from_fn(|i, j| 0.5 * (inertia[i][j] + inertia[j][i]));
    let eig = m.symmetric_eigen();
    let mut pairs: Vec<(f64, [f64; 3])> = (0..3)
        .map(|k| {
            let v = eig.eigenvectors.column(k);
            let mut axis = [v[0], v[1], v[2]];
            let big = (0..3).fold(0, |b, i| if axis[i].abs() > axis[b].abs() { i } else { b });
            if axis[big] < 0.0 {
                axis = axis.map(|c| -c);
            }
            (eig.eigenvalues[k], axis)
        })
        .collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    (
        [pairs[0].0, pairs[1].0, pairs[2].0],
        [pairs[0].1, pairs[1].1, pairs[2].1],
    )
}
