//! Loading the meshes a run manifest names, with `msdem_mesh::read_mesh` (PLY/OBJ/STL by
//! extension), returning the SHA-256 of the bytes that were parsed.

use std::path::Path;

use msdem_mesh::TriMesh;

use crate::error::ExportError;

/// Reads a mesh file and returns it with the SHA-256 of its bytes.
pub fn load_mesh(path: &Path) -> Result<(TriMesh, [u8; 32]), ExportError> {
    Ok(msdem_mesh::read_mesh(path)?)
}
