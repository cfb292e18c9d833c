//! Particle kinds: the geometry behind a shape or an obstacle.
//!
//! Contact detection is dispatched on the pair of kinds ([`crate::detect::dispatch`]), so
//! a new kind (an ellipsoid, seed 002) adds a variant here, its own pair files in
//! `detect/` and one dispatch arm per pair of kinds; the existing pair code is untouched.

use std::sync::Arc;

use msdem_ellipsoid::Ellipsoid;
use msdem_tree::{SurrogateTree, NO_TRIANGLE};

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
    /// Mean longest edge of the real triangles \[m\]: how finely the surface is
    /// triangulated (surface patches integrate the finer side of a pair,
    /// [`crate::contact::patch`]).
    pub edge_length: f64,
    /// Vertex normals and sag bounds of the curved surface the mesh approximates
    /// ([`super::smooth`]), used where a material asks for `surface: smooth`; empty (every
    /// triangle flat) until [`MeshGeometry::with_smooth`] computes them (set-up does for
    /// the particle shapes when a material is smooth).
    pub smooth: Arc<super::smooth::SmoothSurface>,
}

impl MeshGeometry {
    /// The geometry of a mesh of `triangles` real triangles with its `tree`, read from
    /// `mesh_path` (hash `mesh_hash`); computes [`MeshGeometry::edge_length`].
    pub fn new(
        tree: Arc<SurrogateTree>,
        mesh_path: String,
        mesh_hash: [u8; 32],
        triangles: u32,
    ) -> Self {
        MeshGeometry {
            edge_length: edge_length(&tree),
            smooth: Arc::default(),
            tree,
            mesh_path,
            mesh_hash,
            triangles,
        }
    }
}

impl MeshGeometry {
    /// This geometry with its curved surface ([`MeshGeometry::smooth`]) computed.
    pub fn with_smooth(mut self) -> Self {
        self.smooth = Arc::new(super::smooth::SmoothSurface::of(&self.tree));
        self
    }
}

/// Mean longest edge \[m\] of the real triangles of `tree` (0 without any).
pub fn edge_length(tree: &SurrogateTree) -> f64 {
    let (mut sum, mut count) = (0.0, 0u64);
    for (t, &src) in tree.soup.iter().zip(&tree.source) {
        if src == NO_TRIANGLE {
            continue;
        }
        let v = t.v.map(|p| p.map(f64::from));
        let len = |i: usize, j: usize| {
            ((v[i][0] - v[j][0]).powi(2)
                + (v[i][1] - v[j][1]).powi(2)
                + (v[i][2] - v[j][2]).powi(2))
            .sqrt()
        };
        sum += len(0, 1).max(len(1, 2)).max(len(2, 0));
        count += 1;
    }
    if count == 0 {
        0.0
    } else {
        sum / count as f64
    }
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
