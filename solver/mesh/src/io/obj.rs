//! Wavefront OBJ reader (geometry only: `v` and `f`; polygons fan-triangulated, groups
//! merged, bit-identical vertices welded) and writer.
//!
//! The reader keeps the file's numbering: vertex `i` of an `f` line is the `i`-th `v` line
//! of the file (from 1; negative indices count back from the last `v` line read so far),
//! and every error names its line. Other statements (`vt`, `vn`, `o`, `g`, `usemtl`,
//! `mtllib`, `l`, `p`, …) are ignored; a trailing `\` continues a statement on the next line.

use super::source::SourceMap;
use super::{fan, weld_exact, Format};
use crate::TriMesh;
use std::fmt::Write;

/// A face as written: its line and its vertex indices resolved to 0-based file indices
/// (positive indices are checked against the vertex count once the file is read).
struct Face {
    line: u32,
    indices: Vec<i64>,
}

/// Parses OBJ bytes; errors start with `line N:`.
pub(super) fn decode(bytes: &[u8]) -> Result<(TriMesh, SourceMap), String> {
    // A UTF-8 byte-order mark before the first statement is not part of it.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut positions: Vec<[f64; 3]> = Vec::new();
    let mut vertex_line: Vec<u32> = Vec::new();
    let mut faces: Vec<Face> = Vec::new();
    let mut statement = String::new();
    let mut start_line = 0u32;
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let number = u32::try_from(i + 1).map_err(|_| "more than 4294967295 lines".to_owned())?;
        let text = String::from_utf8_lossy(raw);
        let text = text.strip_suffix('\r').unwrap_or(&text);
        if statement.is_empty() {
            start_line = number;
        }
        if let Some(head) = text.strip_suffix('\\') {
            statement.push_str(head);
            statement.push(' ');
            continue;
        }
        statement.push_str(text);
        let line = std::mem::take(&mut statement);
        let line = line.split('#').next().unwrap_or("");
        let mut tokens = line.split_whitespace();
        match tokens.next() {
            Some("v") => {
                let mut p = [0.0; 3];
                for (axis, c) in p.iter_mut().enumerate() {
                    let token = tokens.next().ok_or_else(|| {
                        format!(
                            "line {start_line}: vertex has {axis} coordinates (at least 3 needed)"
                        )
                    })?;
                    *c = token.parse().map_err(|_| {
                        format!("line {start_line}: vertex coordinate `{token}` is not a number")
                    })?;
                }
                positions.push(p);
                vertex_line.push(start_line);
            }
            Some("f") => {
                let count = positions.len() as i64;
                let mut indices = Vec::new();
                for token in tokens {
                    let first = token.split('/').next().unwrap_or("");
                    let index: i64 = first.parse().map_err(|_| {
                        format!("line {start_line}: face vertex `{token}` is not an index")
                    })?;
                    let resolved = match index {
                        0 => {
                            return Err(format!(
                                "line {start_line}: face vertex index 0 (OBJ counts vertices from 1)"
                            ))
                        }
                        i if i > 0 => i - 1,
                        i if count + i >= 0 => count + i,
                        i => {
                            return Err(format!(
                                "line {start_line}: face vertex index {i} reaches before the first vertex ({count} vertices so far)"
                            ))
                        }
                    };
                    indices.push(resolved);
                }
                if indices.len() < 3 {
                    return Err(format!(
                        "line {start_line}: face has {} vertices (at least 3 needed)",
                        indices.len()
                    ));
                }
                faces.push(Face {
                    line: start_line,
                    indices,
                });
            }
            _ => {}
        }
    }
    if !statement.is_empty() {
        return Err(format!(
            "line {start_line}: the file ends inside a statement continued with `\\`"
        ));
    }
    let n = positions.len();
    if n > u32::MAX as usize {
        return Err(format!("{n} vertices: more than 4294967295"));
    }
    let mut triangles = Vec::new();
    let mut triangle_face = Vec::new();
    let mut face_line = Vec::with_capacity(faces.len());
    let mut polygon = Vec::new();
    for (f, face) in faces.iter().enumerate() {
        polygon.clear();
        for &i in &face.indices {
            if i >= n as i64 {
                return Err(format!(
                    "line {}: face {}: vertex {} does not exist (the file has {n} vertices)",
                    face.line,
                    f + 1,
                    i + 1
                ));
            }
            polygon.push(i as u32);
        }
        let before = triangles.len();
        fan(&polygon, &mut triangles);
        triangle_face.extend(std::iter::repeat_n(f as u32, triangles.len() - before));
        face_line.push(face.line);
    }
    let (vertices, vertex_source) = weld_exact(&positions, &mut triangles);
    let map = SourceMap::new(
        Format::Obj,
        triangle_face,
        face_line,
        vertex_source,
        vertex_line,
    );
    Ok((
        TriMesh {
            vertices,
            triangles,
        },
        map,
    ))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        decode(text.as_bytes()).unwrap_err()
    }

    #[test]
    fn faces_keep_the_file_numbering_and_lines() {
        let text = "# square\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0 1.0\nvn 0 0 1\n\
                    g top\nf 1//1 2//1 3//1 4//1\nf -4 -2 \\\n -1\n";
        let (m, map) = decode(text.as_bytes()).unwrap();
        assert_eq!(m.triangles, vec![[0, 1, 2], [0, 2, 3], [0, 2, 3]]);
        assert_eq!(map.triangle_label(1), "face 1 (line 8)");
        assert_eq!(map.triangle_label(2), "face 2 (line 9)");
        assert_eq!(map.vertex_label(3), "vertex 4 (line 5)");
    }

    #[test]
    fn errors_name_their_line() {
        assert_eq!(
            err("v 0 0 0\nv 1 0 x\n"),
            "line 2: vertex coordinate `x` is not a number"
        );
        assert_eq!(
            err("v 0 0\n"),
            "line 1: vertex has 2 coordinates (at least 3 needed)"
        );
        assert_eq!(
            err("v 0 0 0\nv 1 0 0\nf 1 2\n"),
            "line 3: face has 2 vertices (at least 3 needed)"
        );
        assert_eq!(
            err("v 0 0 0\nf 1 2 0\n"),
            "line 2: face vertex index 0 (OBJ counts vertices from 1)"
        );
        assert_eq!(
            err("v 0 0 0\nf 1 1 a/2\n"),
            "line 2: face vertex `a/2` is not an index"
        );
        assert_eq!(
            err("v 0 0 0\nf -1 -2 -1\n"),
            "line 2: face vertex index -2 reaches before the first vertex (1 vertices so far)"
        );
        assert_eq!(
            err("v 0 0 0\nv 1 0 0\n\nf 1 2 3\n"),
            "line 4: face 1: vertex 3 does not exist (the file has 2 vertices)"
        );
        assert_eq!(
            err("v 0 0 0\nf 1 \\"),
            "line 2: the file ends inside a statement continued with `\\`"
        );
    }
}
