//! Ellipsoid–mesh pairs (an ellipsoid particle against a mesh particle or a triangulated
//! obstacle): the multiresolution descent of seed 000 Alg. 5 with one side analytic. A
//! surrogate node is unfolded when the ellipsoid comes within `m + offset` of its surrogate
//! triangle (`m = ε_a + ε_b`; every real triangle below lies within `offset` of the
//! surrogate, so nothing below can be nearer: conservative as Def. 4.3); a real triangle
//! within `m` of the ellipsoid is a contact, at distance `max(0, d)`, with the normal and
//! witness points of the ellipsoid–triangle query of `msdem_ellipsoid::triangle`. The
//! triangles are taken to the ellipsoid's world frame in `f64`; a bounding-sphere test
//! (ellipsoid's largest semi-axis) skips the exact query for triangles clearly apart.

use super::broad::CandidatePair;
use super::sides::Side;
use crate::contact::RawContact;
use crate::model::Model;
use crate::state::Body;
use msdem_ellipsoid::{ellipsoid_triangle, Ellipsoid, Triangle};
use msdem_geom::math::{Iso3, Point3, Tri, Vec3};
use msdem_tree::{LevelStats, SurrogateTree, MAX_LEVELS};

/// A soup triangle of the mesh (its frame) in the world.
fn world_triangle(t: &Tri, pose: &Iso3) -> Triangle {
    let p = |q: &[f32; 3]| pose * Point3::new(f64::from(q[0]), f64::from(q[1]), f64::from(q[2]));
    Triangle::new(p(&t.v[0]), p(&t.v[1]), p(&t.v[2]))
}

/// Squared distance from `c` to the triangle's bounding box (a lower bound of the squared
/// distance to the triangle).
fn box_distance2(t: &Triangle, c: &Vec3) -> f64 {
    let lo = t.v[0].coords.inf(&t.v[1].coords).inf(&t.v[2].coords);
    let hi = t.v[0].coords.sup(&t.v[1].coords).sup(&t.v[2].coords);
    (c.sup(&lo).inf(&hi) - c).norm_squared()
}

struct Query<'a> {
    e: &'a Ellipsoid,
    pose: &'a Iso3,
    centre: Vec3,
    reach: f64,
}

impl Query<'_> {
    /// Signed distance and the query's result, `None` when the bounding sphere proves
    /// the triangle farther than `limit`.
    fn within(&self, t: &Triangle, limit: f64) -> Option<msdem_ellipsoid::Contact> {
        let r = self.reach + limit;
        if box_distance2(t, &self.centre) > r * r {
            return None;
        }
        let c = ellipsoid_triangle(self.e, self.pose, t);
        (c.signed_distance <= limit).then_some(c)
    }
}

fn count(stats: &mut LevelStats, level: u32, real: bool) {
    if real {
        stats.fine += 1;
    }
    if let Some(c) = stats.checks.get_mut((level as usize).min(MAX_LEVELS - 1)) {
        *c += 1;
    }
}

/// Appends the contacts of an ellipsoid–mesh candidate pair to `raw` (sorted by the
/// mesh triangle's soup index); checks per tree level to `stats`.
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
    let (ellipsoid_is_a, e_side, m_side) = match (a.geometry.ellipsoid(), b.geometry.ellipsoid()) {
        (Some(_), None) => (true, a, b),
        (None, Some(_)) => (false, b, a),
        _ => return,
    };
    let (Some(e), Some(tree)) = (e_side.geometry.ellipsoid(), m_side.geometry.tree()) else {
        return;
    };
    let margin = a.eps + b.eps;
    let q = Query {
        e,
        pose: &e_side.pose,
        centre: e_side.pose.translation.vector,
        reach: e.max_radius(),
    };
    let start = raw.len();
    descend(tree, &m_side.pose, &q, margin, stats, |tri, c| {
        let (p, q_, normal) = if ellipsoid_is_a {
            (c.point_a.coords, c.point_b.coords, c.normal)
        } else {
            (c.point_b.coords, c.point_a.coords, -c.normal)
        };
        let (tri_a, tri_b) = if ellipsoid_is_a {
            (u32::MAX, tri)
        } else {
            (tri, u32::MAX)
        };
        raw.push(RawContact {
            p,
            q: q_,
            dist: c.signed_distance.max(0.0),
            normal,
            tri_a,
            tri_b,
        });
    });
    raw[start..].sort_by_key(|c| (c.tri_a, c.tri_b));
}

/// Depth-first descent of `tree` (posed by `pose`) against the ellipsoid of `q`; `hit`
/// receives each real triangle (soup index) within `margin` and its query result.
fn descend(
    tree: &SurrogateTree,
    pose: &Iso3,
    q: &Query,
    margin: f64,
    stats: &mut LevelStats,
    mut hit: impl FnMut(u32, &msdem_ellipsoid::Contact),
) {
    let Some(root) = tree.nodes.first() else {
        return;
    };
    let mut real = |i: u32, level: u32, stats: &mut LevelStats| {
        count(stats, level, true);
        let t = world_triangle(&tree.soup[i as usize], pose);
        if let Some(c) = q.within(&t, margin) {
            if c.signed_distance.is_finite() {
                hit(i, &c);
            }
        }
    };
    if root.is_leaf() {
        for i in root.first..root.first + root.count {
            real(i, root.level, stats);
        }
        return;
    }
    let surrogate_near = |n: u32, stats: &mut LevelStats| {
        let node = &tree.nodes[n as usize];
        count(stats, node.level, false);
        let t = world_triangle(&tree.soup[node.tri as usize], pose);
        // The f32 offset and soup, rounded up generously.
        let reach = (margin + f64::from(node.offset)) * (1.0 + 1e-6);
        q.within(&t, reach).is_some()
    };
    if !surrogate_near(0, stats) {
        return;
    }
    let mut stack = vec![0u32];
    while let Some(n) = stack.pop() {
        for (i, level, is_real) in tree.unfolded(n) {
            if is_real {
                real(i, level, stats);
            } else if surrogate_near(i, stats) {
                stack.push(i);
            }
        }
    }
}
