//! The kernel calls of an [`ActiveSet`](super::ActiveSet): margins as the explicit
//! traversal, outcome classification, coarse (inner-halo) force estimates.
//!
//! Unlike the explicit traversal, a surrogate pair the iterative kernel leaves not
//! converged (`⊙`) falls back to the exact kernel here, as real pairs do (Cor. 5.3): the
//! outcome of every check is then a function of the pair's distance outside the thin band
//! between the unwidened and the widened margin, which is what makes the separation
//! certificates of `certify.rs` predict it exactly (a `⊙` surrogate pair would otherwise
//! be widened however far apart it is).

use super::certify::max_abs;
use super::element::{Element, Outcome};
use super::geometry::{CoarseHit, PairGeometry, Scratch};
use msdem_geom::kernel::{contact, exact_dist, IterativeParams, KernelKind, KernelResult};
use msdem_geom::math::Tri;
use msdem_tree::{LevelStats, TriContact, MAX_LEVELS};

/// Pending checks per batched kernel pass (as the explicit traversal: large enough to
/// amortise a pass, small enough for the lane buffers to stay in L2).
pub(super) const CHUNK: usize = 2048;

/// Iterative-kernel settings of the check pass: the defaults (same iterations, `C` and
/// regulariser as every other caller, hence the same results), with
///
/// * the separation pre-screen where `prescreen`: for a batch of the check pass most of
///   whose pairs were apart at their last check (`check.rs`; never in the event-driven
///   pair-set query). A stored pair is checked where its certificate expired; in small
///   steps these are almost all real contacts, which the screen never rejects (on the
///   §6.7 grid 36 of 36 per pair; screening them cost 11 % of a grid step), but after a
///   large step, or with the wide skin it brings (`skin.rs`), most are still apart: the
///   screen answers them for a few separating axes instead of the exact kernel (the hopper
///   at 10× the explicit `dt`, midpoint rule: CPU −20 %, docs/performance.md issue 19). Every
///   kernel classifies a pair the screen rejects as separated
///   ([`msdem_geom::kernel::screened_separated`]), so outcomes are unchanged; the
///   screened pair's clearance comes from the screen's bound instead of the kernel's;
/// * the AVX2 copy of the lanes where the CPU has it (bit-identical to the SSE2 path;
///   the kernel's default since its closed-form start made it the faster copy on every
///   stream measured, docs/performance.md "Per pair").
pub(super) fn batch_params(prescreen: bool) -> IterativeParams {
    IterativeParams {
        prescreen,
        ..IterativeParams::default()
    }
}

/// The kernel a batch runs: exact, or hybrid (iterative; exact fallback for real–real
/// pairs in the batch, for surrogate pairs in [`resolve`]).
pub(super) fn batch_kind(kernel: KernelKind) -> KernelKind {
    match kernel {
        KernelKind::Exact => KernelKind::Exact,
        _ => KernelKind::Hybrid,
    }
}

/// Triangles (B's in A's frame) and check margin of (`a`, `b`): real–real pairs use
/// `ε_a + ε_b`; other pairs the surrogate halos with the explicit traversal's padding
/// (round-off of the f32 transform) and, for the iterative kernel, its widening by
/// `1/(1 − C/2)` (an iterative "separated" is certain only above `margin·(1 − C/2)`).
pub(super) fn pair_tris(
    g: &PairGeometry,
    cache: &mut Scratch,
    a: Element,
    b: Element,
) -> (Tri, Tri, f32) {
    let (ha, _) = g.halo(a, true);
    let (hb, _) = g.halo(b, false);
    let t1 = if a.real {
        g.a.soup[a.index as usize]
    } else {
        g.a.soup[g.a.nodes[a.index as usize].tri as usize]
    };
    let b_soup = if b.real {
        b.index
    } else {
        g.b.nodes[b.index as usize].tri
    };
    let t2 = cache.get(g.b, &g.b_to_a, b_soup);
    let margin = if a.real && b.real {
        ha + hb
    } else {
        let m = ha + hb;
        // The pair geometry's coordinate bound where known (larger padding only
        // unfolds more; it moves with B's pose by at most the motion, as `max_abs` does).
        let big = if g.coord_bound.is_finite() {
            g.coord_bound
        } else {
            max_abs(&t1, &t2)
        };
        let m = m + 8.0 * f32::EPSILON * big + 1e-6 * m;
        if g.kernel == KernelKind::Exact {
            m
        } else {
            m / (1.0 - 0.5 * IterativeParams::default().c)
        }
    };
    (t1, t2, margin)
}

/// Counts one kernel check of (`a`, `b`) in `stats` (per level; fine–fine also in
/// `stats.fine`).
pub(super) fn count(a: Element, b: Element, stats: &mut LevelStats) {
    let level = (a.level.max(b.level) as usize).min(MAX_LEVELS - 1);
    stats.checks[level] += 1;
    if a.real && b.real {
        stats.fine += 1;
    }
}

/// The final kernel result of a batched check: a surrogate pair left not converged by the
/// iterative kernel is decided by the exact one (counted as a fallback).
pub(super) fn resolve(
    r: KernelResult,
    pair: Option<(Tri, Tri, f32)>,
    stats: &mut LevelStats,
) -> KernelResult {
    resolve_dist(r, pair, stats).0
}

/// [`resolve`] with a lower bound of the distance: the exact distance where the exact
/// kernel decided, `0` otherwise (no bound).
pub(super) fn resolve_dist(
    r: KernelResult,
    pair: Option<(Tri, Tri, f32)>,
    stats: &mut LevelStats,
) -> (KernelResult, f32) {
    match (r, pair) {
        (KernelResult::NotConverged, Some((t1, t2, margin))) => {
            stats.fallbacks += 1;
            exact_dist(&t1, &t2, margin)
        }
        (r, _) => (r, 0.0),
    }
}

/// Outcome of a kernel result for (`a`, `b`): real contacts are appended to `hits`;
/// surrogate contacts whose inner halos guarantee a real contact to `coarse`.
pub(super) fn classify(
    g: &PairGeometry,
    a: Element,
    b: Element,
    r: KernelResult,
    hits: &mut Vec<TriContact>,
    coarse: &mut Vec<CoarseHit>,
) -> Outcome {
    if a.real && b.real {
        return match r {
            KernelResult::Contact(c) => {
                hits.push(TriContact {
                    p: c.p,
                    q: c.q,
                    dist: c.dist(),
                    tri_a: a.index,
                    tri_b: b.index,
                });
                Outcome::FineContact
            }
            _ => Outcome::FineNone,
        };
    }
    match r {
        KernelResult::Separated => Outcome::Separated,
        KernelResult::NotConverged => Outcome::Widen,
        KernelResult::Contact(c) => {
            // Inner halos: E = ε − h per side (h = 0 for a real triangle).
            let (_, ia) = g.halo(a, true);
            let (_, ib) = g.halo(b, false);
            let d = c.dist();
            if d <= (g.eps_a - ia) + (g.eps_b - ib) {
                coarse.push(CoarseHit {
                    p: c.p,
                    q: c.q,
                    dist: d + ia + ib,
                });
            }
            Outcome::Widen
        }
    }
}

/// One unbatched surrogate check (narrowing attempts), counted in `stats`: the outcome,
/// the triangles/margin it used and the computed distance of a contact (NaN otherwise).
pub(super) fn check_single(
    g: &PairGeometry,
    cache: &mut Scratch,
    a: Element,
    b: Element,
    stats: &mut LevelStats,
) -> (Outcome, (Tri, Tri, f32), f32) {
    count(a, b, stats);
    let (t1, t2, margin) = pair_tris(g, cache, a, b);
    let r = match g.kernel {
        KernelKind::Exact => contact(KernelKind::Exact, &t1, &t2, margin),
        _ => resolve(
            contact(KernelKind::Iterative, &t1, &t2, margin),
            Some((t1, t2, margin)),
            stats,
        ),
    };
    let dist = match r {
        KernelResult::Contact(c) => c.dist(),
        _ => f32::NAN,
    };
    let o = classify(g, a, b, r, &mut Vec::new(), &mut Vec::new());
    (o, (t1, t2, margin), dist)
}
