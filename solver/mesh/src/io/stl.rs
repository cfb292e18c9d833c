//! STL reader (ascii or binary, welded) and binary writer. STL stores `f32` coordinates.

use super::weld_exact;
use crate::TriMesh;

/// Parses STL bytes (ascii or binary) and welds bit-identical corners.
pub(super) fn decode(bytes: &[u8]) -> Result<TriMesh, String> {
    let mut cursor = std::io::Cursor::new(bytes);
    let reader = stl_io::create_stl_reader(&mut cursor).map_err(|e| e.to_string())?;
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for (t, tri) in reader.enumerate() {
        let tri = tri.map_err(|e| format!("triangle {t}: {e}"))?;
        let base = positions.len() as u32;
        for v in tri.vertices {
            positions.push(v.0.map(f64::from));
        }
        triangles.push([base, base + 1, base + 2]);
    }
    let vertices = weld_exact(&positions, &mut triangles);
    Ok(TriMesh {
        vertices,
        triangles,
    })
}

/// Serialises a mesh as binary STL with per-facet unit normals.
pub(super) fn encode(mesh: &TriMesh) -> std::io::Result<Vec<u8>> {
    let tris: Vec<stl_io::Triangle> = mesh
        .triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| mesh.vertices[i as usize]);
            let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let w = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let n = [
                u[1] * w[2] - u[2] * w[1],
                u[2] * w[0] - u[0] * w[2],
                u[0] * w[1] - u[1] * w[0],
            ];
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let n = if len > 0.0 {
                n.map(|c| c / len)
            } else {
                [0.0; 3]
            };
            let f = |p: [f64; 3]| stl_io::Vector::new(p.map(|c| c as f32));
            stl_io::Triangle {
                normal: f(n),
                vertices: [f(a), f(b), f(c)],
            }
        })
        .collect();
    let mut out = Vec::new();
    stl_io::write_stl(&mut out, tris.iter())?;
    Ok(out)
}
