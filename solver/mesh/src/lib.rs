//! Triangle meshes for the multiresolution DEM (pipeline stage 1).
//!
//! Lengths in metres, densities in kg/m³, masses in kg.
//!
//! - [`read_mesh`] / [`write_mesh`]: PLY, OBJ, STL by extension, hashed reads, atomic writes;
//! - [`check`]: topology and geometry checks per [`check::Role`];
//! - [`mass`]: volume, centre of mass, inertia (divergence theorem);
//! - [`generate`]: spheres (Perlin noise), boxes, ellipsoids, obstacles;
//! - [`hash`]: SHA-256 of file bytes.
#![warn(missing_docs)]

pub mod check;
mod error;
pub mod generate;
pub mod hash;
pub mod io;
pub mod mass;
mod trimesh;
mod vec3;

pub use error::MeshError;
pub use hash::file_hash;
pub use io::{read_mesh, write_mesh};
pub use trimesh::TriMesh;
