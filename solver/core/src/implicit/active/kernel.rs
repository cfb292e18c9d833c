//! The kernel calls of an [`ActiveSet`](super::ActiveSet): margins as the explicit
//! traversal, outcome classification, coarse (inner-halo) force estimates.

use super::{BCache, CoarseHit, Element, Outcome, PairGeometry};
use msdem_geom::kernel::{contact, IterativeParams, KernelKind, KernelResult};
use msdem_geom::math::Tri;
use msdem_tree::{LevelStats, TriContact, MAX_LEVELS};

fn max_abs(t: &Tri, u: &Tri) -> f32 {
    t.v.iter()
        .chain(&u.v)
        .flatten()
        .fold(0.0f32, |m, c| m.max(c.abs()))
}

/// Pending checks per batched kernel pass (as the explicit traversal: large enough to
/// amortise a pass, small enough for the lane buffers to stay in L2).
pub(super) const CHUNK: usize = 2048;

/// The kernel a batch runs: exact, or hybrid (iterative; exact fallback for real–real
/// pairs only, Cor. 5.3).
pub(super) fn batch_kind(kernel: KernelKind) -> KernelKind {
    match kernel {
        KernelKind::Exact => KernelKind::Exact,
        _ => KernelKind::Hybrid,
    }
}

/// Triangles and margin of the check of (`a`, `b`), counted in `stats`: real–real pairs
/// use `ε_a + ε_b`; other pairs the surrogate halos with the explicit traversal's padding
/// (round-off of the f32 transform) and, for the iterative kernel, its widening by
/// `1/(1 − C/2)` (an iterative "separated" is certain only above `margin·(1 − C/2)`).
pub(super) fn prepare(
    g: &PairGeometry,
    cache: &mut BCache,
    a: Element,
    b: Element,
    stats: &mut LevelStats,
) -> (Tri, Tri, f32, bool) {
    let level = (a.level.max(b.level) as usize).min(MAX_LEVELS - 1);
    stats.checks[level] += 1;
    let fine = a.real && b.real;
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
    let margin = if fine {
        stats.fine += 1;
        ha + hb
    } else {
        let m = ha + hb;
        let m = m + 8.0 * f32::EPSILON * max_abs(&t1, &t2) + 1e-6 * m;
        if g.kernel == KernelKind::Exact {
            m
        } else {
            m / (1.0 - 0.5 * IterativeParams::default().c)
        }
    };
    (t1, t2, margin, fine)
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

/// One unbatched surrogate check (narrowing attempts).
pub(super) fn check_single(
    g: &PairGeometry,
    cache: &mut BCache,
    a: Element,
    b: Element,
    stats: &mut LevelStats,
) -> Outcome {
    let (t1, t2, margin, _) = prepare(g, cache, a, b, stats);
    let kind = match g.kernel {
        KernelKind::Exact => KernelKind::Exact,
        _ => KernelKind::Iterative,
    };
    classify(
        g,
        a,
        b,
        contact(kind, &t1, &t2, margin),
        &mut Vec::new(),
        &mut Vec::new(),
    )
}
