//! Loading the meshes a run manifest names.
//!
//! Temporary stand-in until `msdem_mesh::read_mesh` lands: reads PLY (ASCII or binary)
//! with `ply-rs-bw` and hashes the file bytes with SHA-256.

use std::path::Path;

use msdem_mesh::TriMesh;
use ply_rs_bw::parser::Parser;
use ply_rs_bw::ply::{DefaultElement, Property};
use sha2::Digest;

use crate::error::ExportError;

/// Reads a mesh file and returns it with the SHA-256 of its bytes.
pub fn load_mesh(path: &Path) -> Result<(TriMesh, [u8; 32]), ExportError> {
    let bad = |detail: String| ExportError::Mesh {
        path: path.to_path_buf(),
        detail,
    };
    let bytes = std::fs::read(path).map_err(ExportError::io(path))?;
    let hash: [u8; 32] = sha2::Sha256::digest(&bytes).into();
    let parser = Parser::<DefaultElement>::new();
    let ply = parser
        .read_ply(&mut std::io::Cursor::new(&bytes))
        .map_err(|e| bad(e.to_string()))?;
    let num = |p: Option<&Property>| -> Option<f64> {
        match p? {
            Property::Float(v) => Some(*v as f64),
            Property::Double(v) => Some(*v),
            _ => None,
        }
    };
    let mut mesh = TriMesh::default();
    for (i, v) in ply.payload.get("vertex").into_iter().flatten().enumerate() {
        let xyz = [num(v.get("x")), num(v.get("y")), num(v.get("z"))];
        match xyz {
            [Some(x), Some(y), Some(z)] => mesh.vertices.push([x, y, z]),
            _ => return Err(bad(format!("vertex {i}: missing or non-float x/y/z"))),
        }
    }
    for (i, f) in ply.payload.get("face").into_iter().flatten().enumerate() {
        let idx = f
            .get("vertex_indices")
            .or_else(|| f.get("vertex_index"))
            .and_then(|p| p.to_u32_list())
            .ok_or_else(|| bad(format!("face {i}: missing vertex_indices")))?;
        if idx.len() != 3 || idx.iter().any(|&k| k as usize >= mesh.vertices.len()) {
            return Err(bad(format!("face {i}: not a triangle of existing vertices")));
        }
        mesh.triangles.push([idx[0], idx[1], idx[2]]);
    }
    Ok((mesh, hash))
}
