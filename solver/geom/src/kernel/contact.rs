//! Single-pair kernel dispatch (Alg. 4 line 11 classification).

use super::triangle_triangle_exact::triangle_triangle_exact;
use super::{KernelKind, KernelResult};
use crate::math::Tri;

/// Runs kernel `kind` on the pair (`t1`, `t2`) with contact `margin` [m] (sum of the two
/// halo widths): `Contact` iff the distance is ≤ `margin`.
///
/// `Exact` and `Hybrid` never return [`KernelResult::NotConverged`].
pub fn contact(kind: KernelKind, t1: &Tri, t2: &Tri, margin: f32) -> KernelResult {
    match kind {
        // The iterative kernel is not wired yet: every kind currently runs the exact kernel.
        KernelKind::Exact | KernelKind::Iterative | KernelKind::Hybrid => exact(t1, t2, margin),
    }
}

/// Exact kernel with the contact decision.
pub(crate) fn exact(t1: &Tri, t2: &Tri, margin: f32) -> KernelResult {
    let c = triangle_triangle_exact(t1, t2);
    if c.dist_sq <= margin * margin {
        KernelResult::Contact(c)
    } else {
        KernelResult::Separated
    }
}
