//! Closed particle solids: box (cuboid) and ellipsoid.

use super::icosphere::unit_icosphere;
use super::{grid_count, positive};
use crate::io::weld_exact;
use crate::{MeshError, TriMesh};

/// Axis-aligned box of edge lengths `size` \[m\] centred at the origin, each face split into
/// `subdivisions × subdivisions` quads of two triangles (`12·N²` triangles), outward.
pub fn cuboid(size: [f64; 3], subdivisions: u32) -> Result<TriMesh, MeshError> {
    for s in size {
        positive("--size", s)?;
    }
    let n = grid_count("--subdivisions", subdivisions, 12)?;
    // Same expression on every face, so shared edge vertices are bit-identical and weld.
    let coord = |axis: usize, i: u32| size[axis] * (f64::from(i) / f64::from(n) - 0.5);
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for axis in 0..3 {
        for side in [0, n] {
            // e_u × e_v = e_axis; swap for the negative face to keep normals outward.
            let (mut u, mut v) = ((axis + 1) % 3, (axis + 2) % 3);
            if side == 0 {
                std::mem::swap(&mut u, &mut v);
            }
            let base = positions.len() as u32;
            for j in 0..=n {
                for i in 0..=n {
                    let mut p = [0.0; 3];
                    p[axis] = coord(axis, side);
                    p[u] = coord(u, i);
                    p[v] = coord(v, j);
                    positions.push(p);
                }
            }
            let at = |i: u32, j: u32| base + j * (n + 1) + i;
            for j in 0..n {
                for i in 0..n {
                    let (p00, p10, p11, p01) =
                        (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
                    triangles.push([p00, p10, p11]);
                    triangles.push([p00, p11, p01]);
                }
            }
        }
    }
    let (vertices, _) = weld_exact(&positions, &mut triangles);
    Ok(TriMesh {
        vertices,
        triangles,
    })
}

/// Ellipsoid with semi-axes `radii` \[m\] along x, y, z: the unit icosphere with
/// `subdivisions` levels scaled per axis (`20·4^k` triangles), centred at the origin.
pub fn ellipsoid(radii: [f64; 3], subdivisions: u32) -> Result<TriMesh, MeshError> {
    for r in radii {
        positive("--radii", r)?;
    }
    super::noise_sphere::check_subdivisions(subdivisions)?;
    let mut mesh = unit_icosphere(subdivisions);
    for v in &mut mesh.vertices {
        for k in 0..3 {
            v[k] *= radii[k];
        }
    }
    Ok(mesh)
}
