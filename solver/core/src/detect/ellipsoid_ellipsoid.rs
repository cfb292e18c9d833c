//! Ellipsoid–ellipsoid pairs (seed 002): the characteristic-equation filter ChM (§3)
//! decides "certainly apart" on ellipsoids inflated to cover the halos, then the
//! optimisation contact OpM (§2) gives the distance, normal and witness points. The halo
//! contact law is the mesh particles' (seed 000 §2): a contact when the surfaces are
//! within `ε_a + ε_b`, at distance `max(0, d)`.
//!
//! Inflation: an ellipsoid `E` with smallest semi-axis `r` contains the ball of radius `r`,
//! so `E ⊕ B(m) ⊆ E + (m/r)·E = (1 + m/r)·E` — scaling `A`'s semi-axes by `1 + m/r_a`
//! covers every point within the margin `m` of `A`, and ChM finding the scaled `A` and `B`
//! apart proves `dist(A, B) > m`.

use super::broad::CandidatePair;
use super::sides::Side;
use crate::contact::RawContact;
use crate::model::Model;
use crate::state::Body;
use msdem_ellipsoid::{chm_in_contact, opm, Ellipsoid};
use msdem_tree::LevelStats;

/// Appends the contact of an ellipsoid–ellipsoid candidate pair (if any) to `raw`; one
/// fine check is counted, a fallback when OpM did not converge.
pub fn pair(
    model: &Model,
    bodies: &[Body],
    pair: &CandidatePair,
    raw: &mut Vec<RawContact>,
    stats: &mut LevelStats,
) {
    let (Some(a), Some(b)) = (Side::a(model, bodies, pair), Side::b(model, bodies, pair)) else {
        return;
    };
    let (Some(ea), Some(eb)) = (a.geometry.ellipsoid(), b.geometry.ellipsoid()) else {
        return;
    };
    let margin = a.eps + b.eps;
    stats.fine += 1;
    let scale = 1.0 + margin / ea.min_radius();
    let inflated = ea.radii().map(|r| r * scale);
    if let Ok(big_a) = Ellipsoid::new(inflated) {
        if !chm_in_contact(&big_a, &a.pose, eb, &b.pose) {
            return;
        }
    }
    let c = opm(ea, &a.pose, eb, &b.pose);
    if !c.converged() {
        stats.fallbacks += 1;
    }
    if c.signed_distance <= margin && c.signed_distance.is_finite() {
        raw.push(RawContact {
            p: c.point_a.coords,
            q: c.point_b.coords,
            dist: c.signed_distance.max(0.0),
            normal: c.normal,
            tri_a: u32::MAX,
            tri_b: u32::MAX,
        });
    }
}
