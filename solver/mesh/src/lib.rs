//! Triangle meshes for the multiresolution DEM (pipeline stage 1).
//!
//! Lengths in metres, densities in kg/m³, masses in kg.
#![warn(missing_docs)]

mod trimesh;
pub use trimesh::TriMesh;
