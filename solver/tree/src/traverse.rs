//! Multiresolution contact detection between two surrogate trees (seed 000 §5.1 Alg. 5,
//! Lemma 5.1, Cor. 5.3, §5.4) and the flat baseline (Alg. 2): the public entry points and
//! types. The descent itself is in `descend.rs`.
//!
//! **Hierarchy** mode descends *pairs* of elements simultaneously (a bounding-volume test
//! tree), where an element is an internal node (its surrogate triangle with halo
//! `offset + ε`) or a real triangle (halo ε). Alg. 5 checks the cross product of the two
//! active sets of a level; checking only the pairs whose parents were in contact yields the
//! same contacts (the argument of Lemma 5.1 applies pair by pair) with fewer checks.
//! * surrogate–surrogate or surrogate–real pair: margin = sum of the two halos (padded,
//!   see below). Pairs whose element bounding spheres (grown by their halos) are apart
//!   are never formed; pairs whose bounding boxes or face-normal projections are apart
//!   by more than the margin (conservative separating-axis tests, `cull.rs`) are pruned; every other pair is unfolded ([`Unfold`]): under the iterative kinds
//!   without a kernel call (measured cheaper than running the iterative kernel, whose
//!   survivors mostly come back contact or not converged), under [`KernelKind::Exact`]
//!   when the exact kernel finds a contact;
//! * real–real pair: margin `ε_a + ε_b`; a contact yields a [`TriContact`]. Only here does a
//!   non-converged iterative result fall back to the exact kernel (Cor. 5.3).
//!
//! **Batched kernel (§5.4).** The pending checks of one level are gathered in a
//! breadth-first buffer and streamed, in chunks, through the geometry crate's
//! [`PairBatch`]: with [`KernelKind::Iterative`] or
//! [`KernelKind::Hybrid`] eight real–real pairs run per SIMD pass of the iterative
//! kernel and those that do not converge fall back to the exact kernel.
//! [`KernelKind::Exact`] runs the exact kernel on the same stream. Flat mode streams all real–real pairs the same way. B's triangles are
//! transformed into A's frame lazily, only for the elements visited, and cached in
//! [`Scratch`] for the duration of one call.
//!
//! **Root screen.** Hierarchy mode first tests the two roots' bounding spheres
//! (`screen.rs`): a far pose ends there, before any buffer is touched. With node boxes,
//! the root boxes come first and the bodies' separation along the line between their
//! centres (`support.rs`) last.
//!
//! **Padding.** Surrogate margins are enlarged by `8·2⁻²³·m + 10⁻⁶·margin`, `m` the largest
//! absolute coordinate of the two triangles: offsets are exact `f64` values rounded up, but
//! B's surrogate and real triangles are rounded independently when transformed to `f32`
//! and the `f32` kernel's distance carries errors of a few ulps of the coordinates; the
//! padding only causes extra unfolding, never a lost contact. Real–real checks use the
//! unpadded margin in both modes, so both modes return identical contacts for the same
//! kernel.

use crate::cull::Bound;
use crate::descend::{flat, hierarchy, Check, Ctx, El, Kids};
use crate::lanes::CullCache;
use crate::node_box::{boxes_apart, posed, NodeBoxes};
use crate::screen::roots_apart;
use crate::support::supports_apart;
use crate::tree::SurrogateTree;
use msdem_geom::kernel::{KernelKind, PairBatch, PairOutcome, Within};
use msdem_geom::math::{Iso3, Tri, P32};

/// Number of per-level check counters in [`LevelStats`]; deeper levels are counted in the
/// last entry.
pub const MAX_LEVELS: usize = 16;

/// How contacts between two trees are searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Simultaneous descent of the two surrogate trees (Alg. 5).
    Hierarchy,
    /// Every real triangle against every real triangle (Alg. 2 baseline).
    Flat,
}

/// Which side(s) of a surrogate–surrogate pair in contact are unfolded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unfold {
    /// Both (Alg. 5 unfolds every active surrogate).
    Both,
    /// Only the one with the larger halo `offset + ε` (the other stays as it is).
    Larger,
}

/// Triangle-pair checks of one or more traversals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelStats {
    /// Kernel calls per level; index = the deeper of the two elements' levels (a real
    /// triangle has the level of its leaf), clamped to `MAX_LEVELS − 1`.
    pub checks: [u64; MAX_LEVELS],
    /// Real–real checks (included in `checks`).
    pub fine: u64,
    /// Real–real checks that fell back to the exact kernel (hybrid kernel, Cor. 5.3).
    pub fallbacks: u64,
}

impl LevelStats {
    /// Total kernel calls.
    pub fn total(&self) -> u64 {
        self.checks.iter().sum()
    }

    /// Adds another set of counters.
    pub fn add(&mut self, o: &LevelStats) {
        for (a, b) in self.checks.iter_mut().zip(&o.checks) {
            *a += b;
        }
        self.fine += o.fine;
        self.fallbacks += o.fallbacks;
    }
}

impl std::ops::AddAssign<&LevelStats> for LevelStats {
    fn add_assign(&mut self, o: &LevelStats) {
        self.add(o);
    }
}

/// A contact between two real triangles, in A's mesh frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriContact {
    /// Closest point on A's triangle \[m\] (A frame).
    pub p: P32,
    /// Closest point on B's triangle \[m\] (A frame).
    pub q: P32,
    /// Distance `|p − q|` \[m\] (≤ ε_a + ε_b).
    pub dist: f32,
    /// Soup index of A's triangle (`a.source[tri_a]` is its mesh index).
    pub tri_a: u32,
    /// Soup index of B's triangle.
    pub tri_b: u32,
}

/// Reusable buffers of [`find_contacts`] (keep one per thread).
#[derive(Debug, Default)]
pub struct Scratch {
    pub(crate) b_tris: Vec<Tri>,
    /// Culling bounds of B's soup triangles in A's frame.
    pub(crate) b_sph: Vec<Bound>,
    pub(crate) b_stamp: Vec<u32>,
    /// Culling bounds of A's soup triangles (A frame), filled lazily.
    pub(crate) a_sph: Vec<Bound>,
    pub(crate) a_stamp: Vec<u32>,
    pub(crate) stamp: u32,
    /// Node boxes of B in A's frame, filled lazily.
    pub(crate) b_box: Vec<crate::node_box::Aabb>,
    pub(crate) box_stamp: Vec<u32>,
    /// Oriented node boxes of B in A's frame, filled lazily.
    pub(crate) b_obb: Vec<crate::node_obb::Obb>,
    pub(crate) obb_stamp: Vec<u32>,
    pub(crate) cur: Vec<(El, El)>,
    pub(crate) next: Vec<(El, El)>,
    /// Unfolding buffers of the descent.
    pub(crate) kids: Kids,
    /// What the pre-screen did with each pair of the current chunk.
    pub(crate) halos: Vec<Check>,
    /// One chunk of pending checks in SIMD lane layout (tag = index in the chunk).
    pub(crate) batch: PairBatch<u32>,
    /// Kernel outcomes of `batch`.
    pub(crate) results: Vec<PairOutcome<u32>>,
    /// Pair-set query: the chunk's real–real pairs for the decision kernel, their tags
    /// and decisions.
    pub(crate) fine: PairBatch<u32>,
    pub(crate) fine_tags: Vec<u32>,
    pub(crate) within: Vec<Within>,
    /// Culling data of A's and B's elements met in the query (`lanes.rs`).
    pub(crate) cull_a: CullCache,
    pub(crate) cull_b: CullCache,
    /// Node stack of the root support screen (`support.rs`).
    pub(crate) support_stack: Vec<u32>,
}

impl Scratch {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    pub(crate) fn begin(&mut self, a_len: usize, b_len: usize, b_nodes: usize) {
        if self.box_stamp.len() < b_nodes {
            self.box_stamp.resize(b_nodes, 0);
            self.b_box.resize(b_nodes, Default::default());
        }
        if self.obb_stamp.len() < b_nodes {
            self.obb_stamp.resize(b_nodes, 0);
            self.b_obb.resize(b_nodes, Default::default());
        }
        if self.b_stamp.len() < b_len {
            self.b_stamp.resize(b_len, 0);
            self.b_tris.resize(b_len, Tri::default());
            self.b_sph.resize(b_len, Bound::default());
        }
        if self.a_stamp.len() < a_len {
            self.a_stamp.resize(a_len, 0);
            self.a_sph.resize(a_len, Bound::default());
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.b_stamp.iter_mut().for_each(|s| *s = 0);
            self.a_stamp.iter_mut().for_each(|s| *s = 0);
            self.box_stamp.iter_mut().for_each(|s| *s = 0);
            self.obb_stamp.iter_mut().for_each(|s| *s = 0);
            self.cull_a.reset();
            self.cull_b.reset();
            self.stamp = 1;
        }
        self.cur.clear();
        self.next.clear();
    }
}

/// Finds all contacts between the real triangles of `a` (halo `eps_a` \[m\]) and `b` (halo
/// `eps_b` \[m\]) posed by `b_to_a` (B's mesh frame → A's mesh frame), appending them to
/// `out` in A's frame and counting checks in `stats`. Both modes append the same set of
/// contacts (Lemma 5.1); hierarchy mode unfolds only the side with the larger halo of a
/// surrogate pair ([`Unfold::Larger`]), measured to need about 2–3× fewer kernel calls
/// than unfolding both (examples/traverse_checks.rs: 1,280-triangle noisy spheres,
/// 120k vs 276k checks over 30 overlapping poses).
#[allow(clippy::too_many_arguments)]
pub fn find_contacts(
    a: &SurrogateTree,
    eps_a: f32,
    b: &SurrogateTree,
    eps_b: f32,
    b_to_a: &Iso3,
    mode: Mode,
    kernel: KernelKind,
    scratch: &mut Scratch,
    out: &mut Vec<TriContact>,
    stats: &mut LevelStats,
) {
    find_contacts_with(
        a,
        eps_a,
        b,
        eps_b,
        b_to_a,
        mode,
        kernel,
        Unfold::Larger,
        scratch,
        out,
        stats,
    );
}

/// [`find_contacts`] with a choice of [`Unfold`] policy.
#[allow(clippy::too_many_arguments)]
pub fn find_contacts_with(
    a: &SurrogateTree,
    eps_a: f32,
    b: &SurrogateTree,
    eps_b: f32,
    b_to_a: &Iso3,
    mode: Mode,
    kernel: KernelKind,
    unfold: Unfold,
    scratch: &mut Scratch,
    out: &mut Vec<TriContact>,
    stats: &mut LevelStats,
) {
    if a.nodes.is_empty() || b.nodes.is_empty() {
        return;
    }
    if mode == Mode::Hierarchy && roots_apart(a, eps_a, b, eps_b, b_to_a) {
        return;
    }
    scratch.begin(a.soup.len(), b.soup.len(), b.nodes.len());
    let cx = Ctx {
        a,
        eps_a,
        b,
        eps_b,
        b_to_a,
        rot: b_to_a.rotation.to_rotation_matrix().into_inner(),
        kernel,
        boxes: None,
        oriented: false,
        decide: false,
    };
    match mode {
        Mode::Flat => flat(&cx, scratch, out, stats),
        Mode::Hierarchy => hierarchy(&cx, unfold, scratch, out, stats),
    }
}

/// [`find_contacts`] (hierarchy mode) pruning also by the node boxes of [`NodeBoxes`]
/// (computed once per tree; axis-aligned and oriented) and screening the roots by the
/// bodies' vertex supports (`support.rs`): the same contacts, fewer element pairs near
/// the surfaces. `boxes_a`/`boxes_b` must be [`NodeBoxes::of`] the two trees.
///
/// Unlike [`find_contacts`] it unfolds both surrogates of a pair in contact
/// ([`Unfold::Both`], Alg. 5 as written): each side's children are first gated by their
/// boxes against the other side's node, so the cross product is formed from the few
/// children near the other body, and half as many pairs are unfolded as with
/// [`Unfold::Larger`] (1,280-triangle spheres: 10–20 % less time on the touching poses,
/// see docs/performance.md).
#[allow(clippy::too_many_arguments)]
pub fn find_contacts_boxed(
    (a, boxes_a): (&SurrogateTree, &NodeBoxes),
    eps_a: f32,
    (b, boxes_b): (&SurrogateTree, &NodeBoxes),
    eps_b: f32,
    b_to_a: &Iso3,
    kernel: KernelKind,
    scratch: &mut Scratch,
    out: &mut Vec<TriContact>,
    stats: &mut LevelStats,
) {
    let Some(boxes) = matched_boxes((a, boxes_a), (b, boxes_b)) else {
        find_contacts(
            a,
            eps_a,
            b,
            eps_b,
            b_to_a,
            Mode::Hierarchy,
            kernel,
            scratch,
            out,
            stats,
        );
        return;
    };
    if let Some(cx) = screened(
        (a, eps_a),
        (b, eps_b),
        b_to_a,
        Some(boxes),
        kernel,
        false,
        scratch,
    ) {
        hierarchy(&cx, Unfold::Both, scratch, out, stats);
    }
}

/// The two trees' [`NodeBoxes`] if both belong to their trees (one box per node).
pub(crate) fn matched_boxes<'a>(
    (a, boxes_a): (&SurrogateTree, &'a NodeBoxes),
    (b, boxes_b): (&SurrogateTree, &'a NodeBoxes),
) -> Option<(&'a NodeBoxes, &'a NodeBoxes)> {
    (boxes_a.boxes.len() == a.nodes.len() && boxes_b.boxes.len() == b.nodes.len())
        .then_some((boxes_a, boxes_b))
}

/// The root screen and the descent's inputs, shared by the boxed queries: `None` when
/// the query ends at the roots (an empty tree; the root boxes, then the root spheres,
/// apart — the boxes are exact for shapes far apart along an axis, parry's test, the
/// spheres tighter for round shapes turned against each other); otherwise the scratch is
/// readied for the descent.
pub(crate) fn screened<'a>(
    (a, eps_a): (&'a SurrogateTree, f32),
    (b, eps_b): (&'a SurrogateTree, f32),
    b_to_a: &'a Iso3,
    boxes: Option<(&'a NodeBoxes, &'a NodeBoxes)>,
    kernel: KernelKind,
    decide: bool,
    scratch: &mut Scratch,
) -> Option<Ctx<'a>> {
    if a.nodes.is_empty() || b.nodes.is_empty() {
        return None;
    }
    if let Some((ba, bb)) = boxes {
        if boxes_apart(&ba.boxes[0], &posed(&bb.boxes[0], b_to_a), eps_a + eps_b) {
            return None;
        }
    }
    if roots_apart(a, eps_a, b, eps_b, b_to_a) {
        return None;
    }
    if let Some((ba, bb)) = boxes {
        let st = &mut scratch.support_stack;
        if supports_apart((a, ba), eps_a, (b, bb), eps_b, b_to_a, st) {
            return None;
        }
    }
    scratch.begin(a.soup.len(), b.soup.len(), b.nodes.len());
    let oriented = boxes
        .is_some_and(|(ba, bb)| ba.obbs.len() == a.nodes.len() && bb.obbs.len() == b.nodes.len());
    Some(Ctx {
        a,
        eps_a,
        b,
        eps_b,
        b_to_a,
        rot: b_to_a.rotation.to_rotation_matrix().into_inner(),
        kernel,
        boxes,
        oriented,
        decide,
    })
}
