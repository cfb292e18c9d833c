//! Axis-aligned boxes of the real geometry below every node (in the tree's frame), the
//! bound parry3d's BVH prunes with, used by the traversal next to the surrogate halos: a
//! pair of elements whose boxes are farther apart than `ε_a + ε_b` along a coordinate
//! axis of A's frame holds no real triangle pair in contact (separating-axis bound), while
//! the surrogate halo (seed 000 Def. 4.3) may still overlap. The boxes are derived from
//! the tree (exact `f32` minima and maxima of the soup coordinates), computed once per
//! tree with [`NodeBoxes::of`].

use crate::cull::Bound;
use crate::node_obb::{node_obbs, Obb};
use crate::tree::SurrogateTree;
use msdem_geom::math::{Iso3, Mat3};

/// One box: lower and upper corner \[m\].
pub type Aabb = ([f32; 3], [f32; 3]);

/// The boxes of a tree's nodes, axis-aligned and oriented, by node index, and the culling
/// bounds of its soup triangles (all in the tree's frame, computed once per tree: the
/// traversal reads A's instead of recomputing them per query).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeBoxes {
    /// Box of the real triangles below node `i` (tree frame).
    pub boxes: Vec<Aabb>,
    /// Culling bounds of soup triangle `i` (tree frame), as `cull.rs` computes them.
    pub(crate) soup: Vec<Bound>,
    /// Oriented box of the real triangles below node `i` (tree frame, `node_obb.rs`).
    pub(crate) obbs: Vec<Obb>,
}

fn union(a: &Aabb, b: &Aabb) -> Aabb {
    (
        [0, 1, 2].map(|k| a.0[k].min(b.0[k])),
        [0, 1, 2].map(|k| a.1[k].max(b.1[k])),
    )
}

const EMPTY: Aabb = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);

impl NodeBoxes {
    /// Computes the boxes bottom-up (children are stored after their parent). A tree that
    /// fails [`crate::validate()`] may give boxes that bound nothing; the traversal is only
    /// defined on valid trees.
    pub fn of(tree: &SurrogateTree) -> NodeBoxes {
        let mut boxes = vec![EMPTY; tree.nodes.len()];
        for i in (0..tree.nodes.len()).rev() {
            let n = &tree.nodes[i];
            let range = n.first as usize..(n.first as usize + n.count as usize);
            let mut b = EMPTY;
            if n.is_leaf() {
                for t in tree.soup.get(range).unwrap_or(&[]) {
                    for v in &t.v {
                        b = union(&b, &(*v, *v));
                    }
                }
            } else {
                for c in boxes.get(range).unwrap_or(&[]) {
                    b = union(&b, c);
                }
            }
            boxes[i] = b;
        }
        NodeBoxes {
            boxes,
            soup: tree.soup.iter().map(Bound::of).collect(),
            obbs: node_obbs(tree),
        }
    }

    /// The same boxes without the oriented ones: the traversal then prunes by the
    /// axis-aligned boxes alone (the same answers, more checks; to measure what the
    /// oriented boxes save).
    pub fn axis_aligned_only(mut self) -> NodeBoxes {
        self.obbs = Vec::new();
        self
    }
}

/// Box in A's frame containing `b` (B's frame) moved by `b_to_a`, including the `f32`
/// rounding of B's triangles transformed to A's frame (corners pushed out by `2⁻²⁰` of
/// their magnitude).
pub(crate) fn posed(b: &Aabb, b_to_a: &Iso3) -> Aabb {
    posed_by(
        b,
        b_to_a,
        &b_to_a.rotation.to_rotation_matrix().into_inner(),
    )
}

/// [`posed`] with the rotation's matrix `m` given (formed once per query).
pub(crate) fn posed_by(b: &Aabb, b_to_a: &Iso3, m: &Mat3) -> Aabb {
    let mut c = [0.0f64; 3];
    let mut h = [0.0f64; 3];
    for k in 0..3 {
        c[k] = 0.5 * (b.0[k] as f64 + b.1[k] as f64);
        h[k] = 0.5 * (b.1[k] as f64 - b.0[k] as f64);
    }
    let cc = b_to_a * msdem_geom::math::Point3::new(c[0], c[1], c[2]);
    let cc = [cc.x, cc.y, cc.z];
    let mut lo = [0.0f32; 3];
    let mut hi = [0.0f32; 3];
    for k in 0..3 {
        let e = m[(k, 0)].abs() * h[0] + m[(k, 1)].abs() * h[1] + m[(k, 2)].abs() * h[2];
        let s = (cc[k].abs() + e) * 1e-6 + 1e-30;
        lo[k] = (cc[k] - e - s) as f32;
        hi[k] = (cc[k] + e + s) as f32;
    }
    (lo, hi)
}

/// Whether boxes `a` and `b` are more than `margin` \[m\] apart along a coordinate axis
/// (with the culling slack of `cull.rs`).
#[inline]
pub(crate) fn boxes_apart(a: &Aabb, b: &Aabb, margin: f32) -> bool {
    boxes_apart_mag(a, box_mag(a), b, box_mag(b), margin)
}

/// Largest absolute corner coordinate of a box (the magnitude [`boxes_apart`] scales its
/// slack with), for [`boxes_apart_mag`].
#[inline]
pub(crate) fn box_mag(a: &Aabb) -> f32 {
    (0..3).fold(0.0f32, |m, k| m.max(a.0[k].abs()).max(a.1[k].abs()))
}

/// [`boxes_apart`] with the two boxes' [`box_mag`] given (the same decision).
#[inline]
pub(crate) fn boxes_apart_mag(a: &Aabb, ma: f32, b: &Aabb, mb: f32, margin: f32) -> bool {
    let mag = ma.max(mb);
    let m = margin + 1e-5 * (margin + mag);
    (0..3).any(|k| b.0[k] - a.1[k] > m || a.0[k] - b.1[k] > m)
}
