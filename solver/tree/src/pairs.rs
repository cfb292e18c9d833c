//! The pair-set query (issue 15): which real triangle pairs of two trees lie within the
//! margin `ε_a + ε_b` — the set itself, without closest points.
//!
//! The descent is that of [`crate::find_contacts_boxed`] (seed 000 Alg. 5 with node
//! boxes, both surrogates of a pair unfolded; `descend.rs`), and the surrogate pairs are
//! handled identically. Only the
//! real–real pairs differ: after the same culling tests they go through the decision
//! kernel ([`msdem_geom::kernel::PairBatch::decide`]): a pair is *in* as soon as an upper
//! bound of its distance (points of the two triangles, seed 000 §2) is within the margin,
//! *out* when a separating axis proves it beyond; only undecided pairs run the hybrid
//! distance kernel (iterative with the exact fallback, Cor. 5.3). The set is the one
//! [`crate::find_contacts_boxed`] returns with the hybrid kernel, up to the kernels' `f32`
//! rounding at the margin (the decision answers "in" only `4·10⁻⁶` of the coordinates'
//! magnitude inside the margin).

use crate::descend::hierarchy_with;
use crate::node_box::NodeBoxes;
use crate::traverse::{matched_boxes, screened, LevelStats, Scratch, Unfold};
use crate::tree::SurrogateTree;
use msdem_geom::kernel::{KernelKind, KernelResult, Within};
use msdem_geom::math::Iso3;

/// A real triangle pair within the margin: soup indices (`a.source[tri_a]` is A's mesh
/// index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TriPair {
    /// Soup index of A's triangle.
    pub tri_a: u32,
    /// Soup index of B's triangle.
    pub tri_b: u32,
}

/// Appends to `out` every pair of real triangles of `a` (halo `eps_a` \[m\]) and `b`
/// (halo `eps_b` \[m\]), B posed by `b_to_a` (B's mesh frame → A's), whose distance is at
/// most `eps_a + eps_b`, counting checks in `stats`. `boxes_a`/`boxes_b` should be
/// [`NodeBoxes::of`] the two trees; boxes of another tree (a length mismatch) are ignored
/// and the query runs on the halos alone (the same pairs, more checks).
#[allow(clippy::too_many_arguments)]
pub fn find_pairs_boxed(
    (a, boxes_a): (&SurrogateTree, &NodeBoxes),
    eps_a: f32,
    (b, boxes_b): (&SurrogateTree, &NodeBoxes),
    eps_b: f32,
    b_to_a: &Iso3,
    scratch: &mut Scratch,
    out: &mut Vec<TriPair>,
    stats: &mut LevelStats,
) {
    let boxes = matched_boxes((a, boxes_a), (b, boxes_b));
    let Some(cx) = screened(
        (a, eps_a),
        (b, eps_b),
        b_to_a,
        boxes,
        KernelKind::Hybrid,
        true,
        scratch,
    ) else {
        return;
    };
    hierarchy_with(
        &cx,
        Unfold::Both,
        scratch,
        stats,
        &mut |s, chunk, results| {
            // Real–real pairs: the decision kernel first, the undecided ones to the hybrid
            // kernel's batch (run by the descent right after this).
            if let Some(results) = results {
                for o in results {
                    let (ea, eb) = chunk[o.tag as usize];
                    if ea.real && eb.real && matches!(o.result, KernelResult::Contact(_)) {
                        out.push(TriPair {
                            tri_a: ea.idx,
                            tri_b: eb.idx,
                        });
                    }
                }
                return;
            }
            s.fine.decide(&mut s.within);
            for (i, w) in s.within.iter().enumerate() {
                let tag = s.fine_tags[i];
                match w {
                    Within::In => {
                        let (ea, eb) = chunk[tag as usize];
                        out.push(TriPair {
                            tri_a: ea.idx,
                            tri_b: eb.idx,
                        });
                    }
                    Within::Out => {}
                    Within::Unknown => {
                        if let Some((t1, t2, m)) = s.fine.pair(i) {
                            s.batch.push(&t1, &t2, m, tag, true);
                        }
                    }
                }
            }
        },
    );
}
