//! Single-pair kernel dispatch (Alg. 4 line 11 classification).

use super::iterative::{solve_lanes, IterativeParams, Lanes, CONTACT, SEPARATED};
use super::screen::screened_separated;
use super::triangle_triangle_exact::triangle_triangle_exact;
use super::{ClosestPair, KernelKind, KernelResult};
use crate::math::Tri;

/// Runs kernel `kind` on the pair (`t1`, `t2`) with contact `margin` \[m\] (sum of the two
/// halo widths) and the default [`IterativeParams`]: `Contact` iff the distance is ≤
/// `margin`.
///
/// `Exact` and `Hybrid` never return [`KernelResult::NotConverged`]. For batches of pairs
/// use [`super::PairBatch`], which runs 8 pairs per SIMD pass.
pub fn contact(kind: KernelKind, t1: &Tri, t2: &Tri, margin: f32) -> KernelResult {
    contact_with(kind, t1, t2, margin, &IterativeParams::default())
}

/// [`contact`] with explicit iterative-kernel parameters.
pub fn contact_with(
    kind: KernelKind,
    t1: &Tri,
    t2: &Tri,
    margin: f32,
    params: &IterativeParams,
) -> KernelResult {
    if params.prescreen && screened_separated(t1, t2, margin) {
        return KernelResult::Separated;
    }
    match kind {
        KernelKind::Exact => exact(t1, t2, margin),
        KernelKind::Iterative => iterative(t1, t2, margin, params),
        KernelKind::Hybrid => match iterative(t1, t2, margin, params) {
            KernelResult::NotConverged => exact(t1, t2, margin),
            r => r,
        },
    }
}

/// Exact kernel with the contact decision.
pub(crate) fn exact(t1: &Tri, t2: &Tri, margin: f32) -> KernelResult {
    exact_dist(t1, t2, margin).0
}

/// The exact kernel's contact decision for margin `margin` \[m\] and the distance it
/// computed \[m\] (a lower bound of the true distance up to `f32` rounding, see
/// [`super::PairOutcome::lower`]).
pub fn exact_dist(t1: &Tri, t2: &Tri, margin: f32) -> (KernelResult, f32) {
    let c = triangle_triangle_exact(t1, t2);
    let d = c.dist();
    if c.dist_sq <= margin * margin {
        (KernelResult::Contact(c), d)
    } else {
        (KernelResult::Separated, d)
    }
}

/// Iterative kernel on one pair (a single lane).
fn iterative(t1: &Tri, t2: &Tri, margin: f32, params: &IterativeParams) -> KernelResult {
    let mut lanes = Lanes::<1>::zeroed();
    lanes.set(0, t1, t2, margin);
    let o = solve_lanes(&lanes, params);
    match o.class[0] {
        CONTACT => KernelResult::Contact(ClosestPair {
            p: [o.p[0][0], o.p[1][0], o.p[2][0]],
            q: [o.q[0][0], o.q[1][0], o.q[2][0]],
            dist_sq: o.dist_sq[0],
        }),
        SEPARATED => KernelResult::Separated,
        _ => KernelResult::NotConverged,
    }
}
