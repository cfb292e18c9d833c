//! Particle kinds: the geometry behind a shape or an obstacle.
//!
//! Contact detection is dispatched on the pair of kinds ([`crate::detect::dispatch`]), so
//! a new kind (an ellipsoid, seed 002) adds a variant here, its own pair files in
//! `detect/` and one dispatch arm per pair of kinds; the existing pair code is untouched.

use std::sync::Arc;

use msdem_tree::SurrogateTree;

/// Which kind of geometry a shape or obstacle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A closed triangle mesh (particle) or a triangle soup (obstacle) with its
    /// surrogate tree (seed 000 §4).
    Mesh,
}

/// A triangle mesh with its surrogate tree, in the mesh frame.
#[derive(Clone, Debug)]
pub struct MeshGeometry {
    /// Surrogate tree in the mesh frame (shared: geometry is instanced).
    pub tree: Arc<SurrogateTree>,
    /// Mesh file as written into the run manifest (relative to the run folder).
    pub mesh_path: String,
    /// SHA-256 of the mesh file's bytes.
    pub mesh_hash: [u8; 32],
    /// Number of real triangles.
    pub triangles: u32,
}

/// The geometry of a shape or obstacle, by kind.
#[derive(Clone, Debug)]
pub enum Geometry {
    /// Triangle mesh with surrogate tree.
    Mesh(MeshGeometry),
}

impl Geometry {
    /// The kind of this geometry.
    pub fn kind(&self) -> Kind {
        match self {
            Geometry::Mesh(_) => Kind::Mesh,
        }
    }

    /// The mesh and tree, for a [`Kind::Mesh`] geometry.
    pub fn mesh(&self) -> Option<&MeshGeometry> {
        match self {
            Geometry::Mesh(m) => Some(m),
        }
    }

    /// The surrogate tree, for a [`Kind::Mesh`] geometry.
    pub fn tree(&self) -> Option<&Arc<SurrogateTree>> {
        self.mesh().map(|m| &m.tree)
    }
}
