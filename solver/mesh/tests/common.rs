//! Helpers shared by the integration tests (included with `mod common;`).
#![allow(dead_code)]

use msdem_mesh::TriMesh;

/// Regular-ish tetrahedron with outward faces.
pub fn tetra() -> TriMesh {
    TriMesh {
        vertices: vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ],
        triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    }
}

/// Triangle normal (not normalised), `(b − a) × (c − a)`.
pub fn normal(m: &TriMesh, t: usize) -> [f64; 3] {
    let [a, b, c] = m.triangles[t].map(|i| m.vertices[i as usize]);
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let w = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    [
        u[1] * w[2] - u[2] * w[1],
        u[2] * w[0] - u[0] * w[2],
        u[0] * w[1] - u[1] * w[0],
    ]
}

/// Total area [m²].
pub fn area(m: &TriMesh) -> f64 {
    (0..m.triangles.len())
        .map(|t| {
            let n = normal(m, t);
            0.5 * (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt()
        })
        .sum()
}

/// Relative error.
pub fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

/// Rotation matrix about a unit axis by an angle [rad] (Rodrigues).
pub fn rotation(axis: [f64; 3], angle: f64) -> [[f64; 3]; 3] {
    let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    let [x, y, z] = axis.map(|c| c / n);
    let (s, c) = angle.sin_cos();
    let t = 1.0 - c;
    [
        [t * x * x + c, t * x * y - s * z, t * x * z + s * y],
        [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
        [t * x * z - s * y, t * y * z + s * x, t * z * z + c],
    ]
}

/// Matrix–vector product.
pub fn mul(r: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|i| r[i][0] * v[0] + r[i][1] * v[1] + r[i][2] * v[2])
}

/// R · A · Rᵀ.
pub fn conj(r: &[[f64; 3]; 3], a: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut out = [[0.0; 3]; 3];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, o) in row.iter_mut().enumerate() {
            for k in 0..3 {
                for l in 0..3 {
                    *o += r[i][k] * a[k][l] * r[j][l];
                }
            }
        }
    }
    out
}

/// Largest absolute entry difference relative to the largest entry of `b`.
pub fn mat_rel(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> f64 {
    let scale = b.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
    let diff = (0..9).fold(0.0f64, |m, k| {
        m.max((a[k / 3][k % 3] - b[k / 3][k % 3]).abs())
    });
    diff / scale
}
