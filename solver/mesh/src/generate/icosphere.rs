//! Icosphere: a subdivided icosahedron projected onto a sphere (seed 000 §6.1).

use crate::vec3::{add, cross, dot, normalize, scale, sub};
use crate::{MeshError, TriMesh};
use std::collections::BTreeMap;

/// Largest accepted subdivision level (20·4⁸ ≈ 1.3 million triangles).
pub const MAX_SUBDIVISIONS: u32 = 8;

/// Unit icosphere with `subdivisions` levels of 1→4 midpoint refinement:
/// `20·4^k` triangles, `10·4^k + 2` vertices, all at distance `radius` \[m\] from the origin,
/// outward oriented. `subdivisions` may be 0 (the icosahedron).
pub fn icosphere(radius: f64, subdivisions: u32) -> Result<TriMesh, MeshError> {
    super::positive("--radius", radius)?;
    if subdivisions > MAX_SUBDIVISIONS {
        return Err(MeshError::parameter(
            "--subdivisions",
            subdivisions,
            format!("must be at most {MAX_SUBDIVISIONS}"),
        ));
    }
    let mut mesh = unit_icosphere(subdivisions);
    for v in &mut mesh.vertices {
        *v = scale(*v, radius);
    }
    Ok(mesh)
}

/// Unit-radius icosphere (vertices exactly normalised).
pub(crate) fn unit_icosphere(subdivisions: u32) -> TriMesh {
    let phi = (1.0 + 5f64.sqrt()) / 2.0;
    let raw = [
        [-1.0, phi, 0.0],
        [1.0, phi, 0.0],
        [-1.0, -phi, 0.0],
        [1.0, -phi, 0.0],
        [0.0, -1.0, phi],
        [0.0, 1.0, phi],
        [0.0, -1.0, -phi],
        [0.0, 1.0, -phi],
        [phi, 0.0, -1.0],
        [phi, 0.0, 1.0],
        [-phi, 0.0, -1.0],
        [-phi, 0.0, 1.0],
    ];
    let mut vertices: Vec<[f64; 3]> = raw.iter().map(|&v| normalize(v)).collect();
    let mut triangles: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    // Orient every face outward (normal along the centroid direction).
    for t in &mut triangles {
        let [a, b, c] = t.map(|i| vertices[i as usize]);
        if dot(cross(sub(b, a), sub(c, a)), add(add(a, b), c)) < 0.0 {
            t.swap(1, 2);
        }
    }
    for _ in 0..subdivisions {
        let mut midpoint: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        let mut next = Vec::with_capacity(4 * triangles.len());
        let mut mid = |a: u32, b: u32, vertices: &mut Vec<[f64; 3]>| {
            *midpoint.entry((a.min(b), a.max(b))).or_insert_with(|| {
                let m = normalize(add(vertices[a as usize], vertices[b as usize]));
                vertices.push(m);
                vertices.len() as u32 - 1
            })
        };
        for &[a, b, c] in &triangles {
            let ab = mid(a, b, &mut vertices);
            let bc = mid(b, c, &mut vertices);
            let ca = mid(c, a, &mut vertices);
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        triangles = next;
    }
    TriMesh {
        vertices,
        triangles,
    }
}
