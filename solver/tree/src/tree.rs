//! In-memory layout of a surrogate tree (shared by builder, file format, validator and
//! traversal).
//!
//! Following seed 000 App. B, every internal node holds exactly one surrogate triangle and
//! leaves hold sets of real mesh triangles. All geometry lives in one flat `f32` triangle
//! soup (Implementation remark 2): surrogate triangles and leaf triangles alike are indices
//! into [`SurrogateTree::soup`].
//!
//! Layout invariants (checked by [`crate::validate()`]):
//! * nodes are in breadth-first order: index 0 is the root, the children of a node are
//!   contiguous and stored after it;
//! * the real triangles occupy the front of the soup, `soup[..real_count()]`, in
//!   depth-first leaf order, so the real triangles of every leaf *and of every subtree* are
//!   contiguous; the surrogate triangles follow, one per internal node;
//! * a mesh with at most `leaf_size` triangles has a single leaf as root (no surrogate).
//!
//! Halo widths are stored as *geometric offsets* so that one tree serves any ε chosen in a
//! scenario: a surrogate's halo is `ε_s = offset + ε`, where ε is the halo of the real mesh
//! triangles. `offset` is the largest distance from any real mesh vertex in the node's
//! subtree to its surrogate triangle, so `real^ε ⊆ surrogate^(offset+ε)` for every real
//! triangle below (conservative, Def. 4.3; see `bounds.rs` for why this is tighter
//! than the recursive child-offset sum). `inner` = h bounds the distance from any point of
//! the surrogate to the real triangles below, so with `E = ε − h` a point within `E` of the
//! surrogate is within ε of the real geometry (poster §4).

use msdem_geom::math::Tri;

/// Marker for "no triangle" in [`Node::tri`] (leaves).
pub const NO_TRIANGLE: u32 = u32::MAX;

/// One node of a surrogate tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    /// Internal node: index of its surrogate triangle in the soup. Leaf: [`NO_TRIANGLE`].
    pub tri: u32,
    /// Internal node: index of the first child node; leaf: index of the first real triangle
    /// in the soup. Children of a node (and triangles of a leaf) are contiguous.
    pub first: u32,
    /// Number of child nodes (internal) or real triangles (leaf).
    pub count: u32,
    /// Distance from the root (root = 0).
    pub level: u32,
    /// Conservative offset \[m\]: max distance from a real vertex below to the surrogate
    /// triangle, so the surrogate's halo is `offset + ε_mesh`. 0 for leaves.
    pub offset: f32,
    /// Inner distance h \[m\] (poster §4): every point of the surrogate triangle lies within
    /// h of the real triangles below, so the inner halo is `E = ε_mesh − h` (a point within
    /// E of the surrogate is within ε_mesh of the real geometry). 0 for leaves.
    pub inner: f32,
}

impl Node {
    /// True for a leaf (a set of real mesh triangles).
    pub fn is_leaf(&self) -> bool {
        self.tri == NO_TRIANGLE
    }
}

/// A surrogate tree over one particle or obstacle mesh, in the mesh's own frame.
#[derive(Clone, Debug, PartialEq)]
pub struct SurrogateTree {
    /// Nodes; index 0 is the root.
    pub nodes: Vec<Node>,
    /// Flat triangle soup: surrogate triangles and (reordered) real mesh triangles.
    pub soup: Vec<Tri>,
    /// For each soup entry that is a real triangle, its index in the source mesh;
    /// [`NO_TRIANGLE`] for surrogate triangles.
    pub source: Vec<u32>,
    /// SHA-256 of the source mesh file's bytes.
    pub mesh_hash: [u8; 32],
    /// SHA-256 of the builder parameters (canonical encoding).
    pub params_hash: [u8; 32],
}

impl SurrogateTree {
    /// The elements replacing internal node `n` when it is unfolded (seed 000 Alg. 5): each
    /// internal child as `(node index, level, false)` and every real triangle of each leaf
    /// child as `(soup index, the leaf's level, true)`, in child order.
    pub fn unfolded(&self, n: u32) -> impl Iterator<Item = (u32, u32, bool)> + '_ {
        let node = &self.nodes[n as usize];
        (node.first..node.first + node.count).flat_map(move |c| {
            let ch = &self.nodes[c as usize];
            let (range, real) = if ch.is_leaf() {
                (ch.first..ch.first + ch.count, true)
            } else {
                (c..c + 1, false)
            };
            range.map(move |i| (i, ch.level, real))
        })
    }

    /// Number of real mesh triangles (they occupy `soup[..real_count()]`).
    pub fn real_count(&self) -> usize {
        self.source
            .iter()
            .take_while(|&&s| s != NO_TRIANGLE)
            .count()
    }

    /// Number of levels (1 for a single leaf).
    pub fn depth(&self) -> u32 {
        self.nodes.iter().map(|n| n.level + 1).max().unwrap_or(0)
    }
}
