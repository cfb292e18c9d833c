//! Particle kinds: the geometry behind a shape or an obstacle.
//!
//! Contact detection is dispatched on the pair of kinds ([`crate::detect::dispatch`]), so
//! a new kind (an ellipsoid, seed 002) adds a variant here, its own pair files in
//! `detect/` and one dispatch arm per pair of kinds; the existing pair code is untouched.

use std::sync::Arc;

use msdem_ellipsoid::Ellipsoid;
use msdem_tree::SurrogateTree;

/// Which kind of geometry a shape or obstacle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A closed triangle mesh (particle) or a triangle soup (obstacle) with its
    /// surrogate tree (seed 000 §4).
    Mesh,
    /// An ellipsoid, analytic (seed 002): no mesh and no tree for contact.
    Ellipsoid,
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
    /// Ellipsoid with semi-axes along the shape's axes, centred at the shape's origin.
    Ellipsoid(Ellipsoid),
}

impl Geometry {
    /// The kind of this geometry.
    pub fn kind(&self) -> Kind {
        match self {
            Geometry::Mesh(_) => Kind::Mesh,
            Geometry::Ellipsoid(_) => Kind::Ellipsoid,
        }
    }

    /// The mesh and tree, for a [`Kind::Mesh`] geometry.
    pub fn mesh(&self) -> Option<&MeshGeometry> {
        match self {
            Geometry::Mesh(m) => Some(m),
            Geometry::Ellipsoid(_) => None,
        }
    }

    /// The ellipsoid, for a [`Kind::Ellipsoid`] geometry.
    pub fn ellipsoid(&self) -> Option<&Ellipsoid> {
        match self {
            Geometry::Ellipsoid(e) => Some(e),
            Geometry::Mesh(_) => None,
        }
    }

    /// The surrogate tree, for a [`Kind::Mesh`] geometry.
    pub fn tree(&self) -> Option<&Arc<SurrogateTree>> {
        self.mesh().map(|m| &m.tree)
    }
}
