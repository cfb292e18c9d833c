//! Wavefront OBJ reader (`tobj`, triangulated, groups merged and welded) and writer.

use super::{fan, weld_exact};
use crate::TriMesh;
use std::fmt::Write;

/// Parses OBJ bytes; material libraries are not loaded (geometry only).
pub(super) fn decode(bytes: &[u8]) -> Result<TriMesh, String> {
    // The struct update covers fields that exist only with some tobj features.
    #[allow(clippy::needless_update)]
    let options = tobj::LoadOptions {
        triangulate: false,
        single_index: false,
        ignore_points: true,
        ignore_lines: true,
        ..Default::default()
    };
    let mut reader = std::io::BufReader::new(bytes);
    let (models, _materials) = tobj::load_obj_buf(&mut reader, &options, |_| {
        Err(tobj::LoadError::GenericFailure)
    })
    .map_err(|e| e.to_string())?;
    let mut positions: Vec<[f64; 3]> = Vec::new();
    let mut triangles = Vec::new();
    for model in &models {
        let m = &model.mesh;
        let base = positions.len() as u32;
        positions.extend(m.positions.chunks_exact(3).map(|c| [c[0], c[1], c[2]]));
        let n = positions.len() as u32;
        let arities: Vec<u32> = if m.face_arities.is_empty() {
            vec![3; m.indices.len() / 3]
        } else {
            m.face_arities.clone()
        };
        let mut start = 0usize;
        let mut polygon = Vec::new();
        for (f, &arity) in arities.iter().enumerate() {
            let end = start + arity as usize;
            let idx = m
                .indices
                .get(start..end)
                .ok_or_else(|| format!("object {:?}: face {f} truncated", model.name))?;
            if arity < 3 {
                return Err(format!(
                    "object {:?}: face {f} has {arity} vertices (at least 3 needed)",
                    model.name
                ));
            }
            polygon.clear();
            for &i in idx {
                let g = base + i;
                if g >= n {
                    return Err(format!(
                        "object {:?}: face {f}: vertex index {i} out of range",
                        model.name
                    ));
                }
                polygon.push(g);
            }
            fan(&polygon, &mut triangles);
            start = end;
        }
    }
    let vertices = weld_exact(&positions, &mut triangles);
    Ok(TriMesh {
        vertices,
        triangles,
    })
}

/// Serialises a mesh as OBJ text. Coordinates use Rust's shortest round-trip formatting,
/// so a written file reads back bit-identically.
pub(super) fn encode(mesh: &TriMesh) -> Vec<u8> {
    let mut s = String::from("# msdem-mesh: lengths in metres\n");
    for v in &mesh.vertices {
        let _ = writeln!(s, "v {:?} {:?} {:?}", v[0], v[1], v[2]);
    }
    for t in &mesh.triangles {
        let _ = writeln!(s, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    s.into_bytes()
}
