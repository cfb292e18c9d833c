//! Mesh file I/O: PLY (read + write), OBJ (read + write), STL (read + write).
//!
//! The format is chosen by the file extension (case-insensitive). Reads hash the very
//! bytes they parse (one read, no race with a concurrent writer); writes are atomic
//! (temporary file in the target folder, then rename), so a failed write leaves nothing.

mod obj;
mod ply;
mod source;
mod stl;

use crate::hash::hash_bytes;
use crate::{MeshError, TriMesh};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

pub use ply::PLY_COMMENT;
pub use source::SourceMap;

/// A supported mesh file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Stanford PLY; written as binary little endian with `double` coordinates.
    Ply,
    /// Wavefront OBJ (text); polygons are triangulated on read.
    Obj,
    /// STL (binary written; ascii or binary read). Coordinates are `f32` in the file.
    Stl,
}

impl Format {
    /// The format named by a path's extension.
    pub fn from_path(path: &Path) -> Result<Format, MeshError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        match ext.as_str() {
            "ply" => Ok(Format::Ply),
            "obj" => Ok(Format::Obj),
            "stl" => Ok(Format::Stl),
            _ => Err(MeshError::UnsupportedFormat {
                path: path.to_path_buf(),
                ext,
            }),
        }
    }
}

/// Reads a mesh file (format by extension) and returns the mesh with the SHA-256 of the
/// bytes that were parsed.
///
/// STL and OBJ vertices with bit-identical coordinates are welded so that topology checks
/// see shared edges. Face indices outside the vertex list are a parse error; NaN
/// coordinates are read as they are and reported by [`crate::check::check_mesh`].
pub fn read_mesh(path: impl AsRef<Path>) -> Result<(TriMesh, [u8; 32]), MeshError> {
    read_mesh_source(path).map(|(mesh, _, digest)| (mesh, digest))
}

/// [`read_mesh`], also returning where each triangle and vertex came from in the file, to
/// name them in the file's own numbering (see [`SourceMap`]).
pub fn read_mesh_source(
    path: impl AsRef<Path>,
) -> Result<(TriMesh, SourceMap, [u8; 32]), MeshError> {
    let path = path.as_ref();
    let format = Format::from_path(path)?;
    let bytes = std::fs::read(path).map_err(|source| MeshError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let (mesh, map) = decode_mesh_source(&bytes, format, path)?;
    Ok((mesh, map, hash_bytes(&bytes)))
}

/// Parses mesh bytes of a given format; `path` only names the source in errors.
pub fn decode_mesh(bytes: &[u8], format: Format, path: &Path) -> Result<TriMesh, MeshError> {
    decode_mesh_source(bytes, format, path).map(|(mesh, _)| mesh)
}

/// [`decode_mesh`], also returning the [`SourceMap`] of the mesh.
pub fn decode_mesh_source(
    bytes: &[u8],
    format: Format,
    path: &Path,
) -> Result<(TriMesh, SourceMap), MeshError> {
    let parse_err = |format: &'static str| {
        move |message: String| MeshError::Parse {
            path: path.to_path_buf(),
            format,
            message,
        }
    };
    match format {
        Format::Ply => ply::decode(bytes).map_err(parse_err("PLY")),
        Format::Obj => obj::decode(bytes).map_err(parse_err("OBJ")),
        Format::Stl => stl::decode(bytes).map_err(parse_err("STL")),
    }
}

/// Serialises a mesh in the given format. Identical meshes give identical bytes.
///
/// Refuses meshes with out-of-range vertex indices; `path` only names the target in errors.
pub fn encode_mesh(mesh: &TriMesh, format: Format, path: &Path) -> Result<Vec<u8>, MeshError> {
    let n = mesh.vertices.len();
    for (t, tri) in mesh.triangles.iter().enumerate() {
        if let Some(&i) = tri.iter().find(|&&i| i as usize >= n) {
            return Err(MeshError::Invalid {
                path: path.to_path_buf(),
                problem: format!(
                    "cannot write: vertex index {i} of triangle {t} out of range ({n} vertices)"
                ),
            });
        }
    }
    let io_err = |source| MeshError::Io {
        path: path.to_path_buf(),
        source,
    };
    match format {
        Format::Ply => ply::encode(mesh).map_err(io_err),
        Format::Obj => Ok(obj::encode(mesh)),
        Format::Stl => stl::encode(mesh).map_err(io_err),
    }
}

/// Writes a mesh atomically, format by extension (`.ply`, `.obj`, `.stl`).
pub fn write_mesh(path: impl AsRef<Path>, mesh: &TriMesh) -> Result<(), MeshError> {
    let path = path.as_ref();
    let format = Format::from_path(path)?;
    let bytes = encode_mesh(mesh, format, path)?;
    write_atomic(path, &bytes)
}

/// A temporary file in `dir` for an atomic write, with errors as plain as the operating
/// system's: a missing or unusable folder is reported as reading it would be (tempfile's
/// own error names the random temporary path, which means nothing to a user).
pub fn temp_file_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    std::fs::metadata(dir)?;
    tempfile::NamedTempFile::new_in(dir).map_err(|e| {
        let text = e.to_string();
        match text.split_once(" at path ") {
            Some((plain, _)) => std::io::Error::new(e.kind(), plain.to_owned()),
            None => e,
        }
    })
}

/// Writes bytes to `path` through a temporary file in the same folder and a rename, so
/// that the target is either absent/unchanged or complete.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), MeshError> {
    let io_err = |source| MeshError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir: PathBuf = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = temp_file_in(&dir).map_err(io_err)?;
    tmp.write_all(bytes).map_err(io_err)?;
    tmp.as_file().sync_all().map_err(io_err)?;
    tmp.persist(path).map_err(|e| io_err(e.error))?;
    Ok(())
}

/// Merges vertices with bit-identical coordinates (`-0.0` and `0.0` are the same), keeping
/// the first occurrence's position in the list; also returns, per merged vertex, the index
/// of its first occurrence in `positions`. Deterministic.
pub(crate) fn weld_exact(
    positions: &[[f64; 3]],
    triangles: &mut [[u32; 3]],
) -> (Vec<[f64; 3]>, Vec<u32>) {
    let key = |p: &[f64; 3]| p.map(|c| if c == 0.0 { 0u64 } else { c.to_bits() });
    let mut index_of: BTreeMap<[u64; 3], u32> = BTreeMap::new();
    let mut remap = Vec::with_capacity(positions.len());
    let mut out = Vec::new();
    let mut first = Vec::new();
    for (k, p) in positions.iter().enumerate() {
        let next = out.len() as u32;
        let i = *index_of.entry(key(p)).or_insert(next);
        if i == next {
            out.push(*p);
            first.push(k as u32);
        }
        remap.push(i);
    }
    for t in triangles.iter_mut() {
        for i in t.iter_mut() {
            *i = remap[*i as usize];
        }
    }
    (out, first)
}

/// Fan-triangulates a polygon `(p0, p1, …, pn)` into `(p0, pk, pk+1)`.
pub(crate) fn fan(polygon: &[u32], out: &mut Vec<[u32; 3]>) {
    for k in 1..polygon.len().saturating_sub(1) {
        out.push([polygon[0], polygon[k], polygon[k + 1]]);
    }
}
