//! Mapping of tree-level results of one particle pair (A's mesh frame) to world-frame
//! contacts: real hits become [`RawContact`]s through the explicit narrow phase's own
//! [`fine_contacts`](crate::narrow::fine_contacts) (same transforms, normals and order, so multiscale Picard and the flat
//! detection agree bit for bit on the same state); coarse hits become force estimates.

use super::active::CoarseHit;
use crate::contact::pair::TINY_DISTANCE;
use crate::contact::RawContact;
use crate::narrow::point;
pub use crate::narrow::PairSides;

/// Appends force estimates of guaranteed surrogate contacts (`dist` = the upper bound of
/// the real distance, normal `(p − q)/|p − q|`) to `out`; hits whose closest points
/// coincide carry no direction and are skipped.
pub fn coarse_contacts(s: &PairSides, hits: &[CoarseHit], out: &mut Vec<RawContact>) {
    let margin = s.eps_a + s.eps_b;
    out.extend(hits.iter().filter_map(|h| {
        let p = (s.a_to_world * point(&h.p)).coords;
        let q = (s.a_to_world * point(&h.q)).coords;
        let d = p - q;
        let len = d.norm();
        (len > TINY_DISTANCE * margin && len.is_finite()).then(|| RawContact {
            p,
            q,
            dist: f64::from(h.dist).min(margin),
            normal: d / len,
            tri_a: u32::MAX,
            tri_b: u32::MAX,
        })
    }));
}
