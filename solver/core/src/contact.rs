//! Contact model of seed 000 §2: contact points from the narrow phase, their merging
//! (Implementation remark 1) and the forces they exert.
//!
//! Pipeline of this module, used by every integrator (explicit now, implicit Picard later):
//!
//! 1. [`RawContact`]s — one per fine–fine triangle pair in contact, from the narrow phase,
//!    in world coordinates;
//!    with unit normals from [`normal::contact_normal`];
//! 2. [`merge::merge_pair`] — contact points of one body pair closer than ε are replaced by
//!    their average (remark 1), giving [`Contact`]s;
//! 3. [`pair::PairParams`] — the pair's margin, effective mass and material values;
//! 4. [`force::contact_force`] — the force of one merged contact (fade-in spring, restitution
//!    damping, regularised Coulomb friction), and [`force::accumulate_forces`] to sum
//!    forces and torques about the centres of mass;
//! 5. [`stability::stable_dt_estimate`] — the time step the contact springs allow.
//!
//! Conventions: the first side `a` of a pair is always a particle; `b` is a particle with a
//! larger id or an obstacle. Normals point from `b` towards `a`. Units: m, kg, s, N.

pub mod force;
pub mod hertz;
pub mod merge;
pub mod normal;
pub mod pair;
pub mod patch;
pub mod rolling;
pub mod smooth;
pub mod stability;
mod triangle_point;

use crate::model::Other;
use msdem_geom::math::Vec3;

/// One contact of a fine–fine triangle pair (seed 000 Def. 2.1), world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RawContact {
    /// Closest point on body `a`'s triangle \[m\].
    pub p: Vec3,
    /// Closest point on body `b`'s triangle \[m\].
    pub q: Vec3,
    /// Distance between the two triangles `|p − q|` \[m\] (≤ the pair's margin).
    pub dist: f64,
    /// Unit normal from `b` towards `a` ([`normal::contact_normal`]: `(p − q)/|p − q|`, or
    /// a robust normal for intersecting or penetrated triangles).
    pub normal: Vec3,
    /// Soup index of `a`'s triangle in its surrogate tree.
    pub tri_a: u32,
    /// Soup index of `b`'s triangle in its surrogate tree.
    pub tri_b: u32,
}

/// The index ranges of `contacts` that belong to one body pair, in list order (the
/// contact list keeps each pair's contacts together, Implementation remark 1).
pub fn pair_runs(contacts: &[Contact]) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        let first = contacts.get(start)?;
        let len = contacts[start..]
            .iter()
            .take_while(|c| c.a == first.a && c.b == first.b)
            .count();
        let run = start..start + len;
        start += len;
        Some(run)
    })
}

/// A merged contact point of one body pair (Implementation remark 1).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Contact {
    /// First body: a particle id.
    pub a: u32,
    /// Second body.
    pub b: Other,
    /// Contact point: average of the merged midpoints `(p + q)/2` \[m\].
    pub point: Vec3,
    /// Unit normal from `b` towards `a`.
    pub normal: Vec3,
    /// Distance \[m\] in `[0, margin]`: the spring force of this contact is
    /// `weight·k·(margin − dist)` ([`pair::PairParams::stiffness`]). For a seed point the
    /// average triangle distance of the merged points; for a surface patch
    /// ([`patch`]) the margin minus the patch's mean overlap.
    pub dist: f64,
    /// Stiffness weight \[-\]: how many seed contact points (seed 000 §2) this contact is
    /// worth; 1 for a seed point, `A_in/A_ref` for a surface patch ([`patch`]).
    pub weight: f64,
    /// Deepest halo overlap `margin − d` among the points this contact stands for \[m\].
    pub depth: f64,
}
