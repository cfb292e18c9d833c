//! Per-pair geometry and per-thread scratch of an [`ActiveSet`](super::ActiveSet): the
//! two trees, halos and relative pose of one particle pair, coarse (inner-halo) hits, and
//! B's triangles transformed into A's frame.

use super::buffers::Buffers;
use super::certify::motion;
use super::element::Element;
use super::skin::CertificateSkin;
use msdem_geom::kernel::{KernelKind, PairBatch, PairOutcome};
use msdem_geom::math::{Iso3, Tri, P32};
use msdem_tree::SurrogateTree;

/// A surrogate-level contact whose inner halos guarantee a real contact (poster §4), in
/// A's mesh frame: the fine distance is at most `d + h_a + h_b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoarseHit {
    /// Closest point on A's element \[m\].
    pub p: P32,
    /// Closest point on B's element \[m\].
    pub q: P32,
    /// Upper bound of the real triangles' distance `d + h_a + h_b` \[m\] (≤ margin).
    pub dist: f32,
}

/// The geometry of one particle pair, in A's mesh frame.
#[derive(Clone, Copy, Debug)]
pub struct PairGeometry<'a> {
    /// A's tree.
    pub a: &'a SurrogateTree,
    /// A's halo \[m\].
    pub eps_a: f32,
    /// B's tree.
    pub b: &'a SurrogateTree,
    /// B's halo \[m\].
    pub eps_b: f32,
    /// B's mesh frame → A's mesh frame.
    pub b_to_a: Iso3,
    /// Triangle kernel: `Exact`, or `Hybrid` (iterative, exact fallback).
    pub kernel: KernelKind,
    /// Bounding sphere of B's soup in B's mesh frame (centre, radius) \[m\].
    pub b_sphere: [f64; 4],
    /// Bounding sphere of A's soup in A's mesh frame (centre, radius) \[m\].
    pub a_sphere: [f64; 4],
    /// A's mesh frame → B's mesh frame (the inverse of `b_to_a`).
    pub a_to_b: Iso3,
    /// An upper bound of every vertex coordinate's magnitude of both soups in A's frame
    /// at this pose (from the two bounding spheres) \[m\]: the scale of the rounding
    /// allowance of the certificates (`certify.rs`); infinite if unknown (each pair's own
    /// largest coordinate is used then).
    pub coord_bound: f32,
    /// Skin setting of the certificates: base skin relative to `ε_a + ε_b` and refresh
    /// period (chosen by the set's user, `skin.rs`).
    pub skin: CertificateSkin,
}

impl PairGeometry<'_> {
    pub(super) fn halo(&self, e: Element, of_a: bool) -> (f32, f32) {
        let (tree, eps) = if of_a {
            (self.a, self.eps_a)
        } else {
            (self.b, self.eps_b)
        };
        if e.real {
            (eps, 0.0)
        } else {
            let n = &tree.nodes[e.index as usize];
            (n.offset + eps, n.inner)
        }
    }

    /// Bound of the change of any element pair's distance between B's pose `t0` (in A's
    /// frame) and the current one \[m\]: the smaller of the displacement of B's points
    /// in A's frame and that of A's points in B's frame (the distance of two points is
    /// the same in either frame), each bounded by [`motion`] with the moving side's
    /// bounding sphere. The second is what keeps a small particle's pair with a large
    /// obstacle certified while the particle turns: B's bound grows with B's radius.
    pub(super) fn motion_since(&self, t0: &Iso3) -> f64 {
        let mb = motion(t0, &self.b_to_a, &self.b_sphere);
        let ma = motion(&t0.inverse(), &self.a_to_b, &self.a_sphere);
        mb.min(ma)
    }

    /// Skin of the certificates \[m\].
    pub(super) fn skin(&self) -> f32 {
        self.skin.relative() * (self.eps_a + self.eps_b)
    }
}

/// Per-thread scratch: B's triangles transformed into A's frame, the kernel batch, the
/// buffers of a walk.
#[derive(Debug, Default)]
pub struct Scratch {
    pub(super) batch: PairBatch<u32>,
    pub(super) results: Vec<PairOutcome<u32>>,
    pub(super) tris: Vec<Tri>,
    pub(super) stamp: Vec<u32>,
    pub(super) current: u32,
    pub(super) walk: Buffers,
    /// The next batch of the check pass runs the separation pre-screen (most of its
    /// pairs were apart at their last check, `check.rs`).
    pub(super) prescreen: bool,
}

impl Scratch {
    pub(super) fn begin(&mut self, len: usize) {
        if self.stamp.len() < len {
            self.stamp.resize(len, 0);
            self.tris.resize(len, Tri::default());
        }
        self.current = self.current.wrapping_add(1);
        if self.current == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.current = 1;
        }
    }

    pub(super) fn get(&mut self, b: &SurrogateTree, b_to_a: &Iso3, i: u32) -> Tri {
        let i = i as usize;
        if self.stamp[i] != self.current {
            self.stamp[i] = self.current;
            self.tris[i] = b.soup[i].transformed(b_to_a);
        }
        self.tris[i]
    }
}
