//! Mapping of tree-level results of one particle pair (A's mesh frame) to world-frame
//! contacts: real hits become [`RawContact`]s exactly as the explicit narrow phase builds
//! them ([`crate::narrow`]: same transforms, same normals, same order), so that multiscale
//! Picard and the flat detection agree bit for bit on the same state; coarse hits become
//! force estimates.

use super::active::CoarseHit;
use crate::broad::CandidatePair;
use crate::contact::normal::{contact_normal, robust_normal};
use crate::contact::pair::TINY_DISTANCE;
use crate::contact::RawContact;
use crate::frames::Other;
use crate::world::World;
use msdem_geom::math::{Iso3, Point3, Tri, Vec3, P32};
use msdem_tree::{SurrogateTree, TriContact};

/// The geometry of one candidate pair: A's tree, halo and pose, B's tree, halo and pose
/// (mesh frame → world).
pub struct PairSides<'w> {
    /// A's tree.
    pub tree_a: &'w SurrogateTree,
    /// A's halo \[m\].
    pub eps_a: f64,
    /// A's mesh → world.
    pub a_to_world: Iso3,
    /// B's tree.
    pub tree_b: &'w SurrogateTree,
    /// B's halo \[m\].
    pub eps_b: f64,
    /// B's mesh → world.
    pub b_to_world: Iso3,
}

impl<'w> PairSides<'w> {
    /// Sides of `pair` in the current state of `world`.
    pub fn of(world: &'w World, pair: &CandidatePair) -> Self {
        let body_a = &world.bodies[pair.a as usize];
        let shape_a = &world.shapes[body_a.shape as usize];
        let (tree_b, eps_b, b_to_world) = match pair.b {
            Other::Particle(j) => {
                let body = &world.bodies[j as usize];
                let shape = &world.shapes[body.shape as usize];
                (&*shape.tree, body.epsilon, body.mesh_to_world(&shape.com))
            }
            Other::Obstacle(o) => {
                let ob = &world.obstacles[o as usize];
                (&*ob.tree, ob.epsilon, ob.pose)
            }
        };
        PairSides {
            tree_a: &shape_a.tree,
            eps_a: body_a.epsilon,
            a_to_world: body_a.mesh_to_world(&shape_a.com),
            tree_b,
            eps_b,
            b_to_world,
        }
    }

    /// B's mesh frame → A's mesh frame.
    pub fn b_to_a(&self) -> Iso3 {
        self.a_to_world.inverse() * self.b_to_world
    }
}

fn point(p: &P32) -> Point3 {
    Point3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2]))
}

fn outward_normal(t: &Tri) -> Vec3 {
    let [a, b, c] = t.v.map(|v| point(&v));
    (b - a)
        .cross(&(c - a))
        .try_normalize(0.0)
        .unwrap_or_else(Vec3::zeros)
}

/// Appends the world-frame contacts of `hits` (sorted by `(tri_a, tri_b)` first, the
/// canonical order of the merge) to `out`.
pub fn fine_contacts(
    world: &World,
    pair: &CandidatePair,
    s: &PairSides,
    hits: &mut [TriContact],
    out: &mut Vec<RawContact>,
) {
    hits.sort_unstable_by_key(|h| (h.tri_a, h.tri_b));
    let body_a = &world.bodies[pair.a as usize];
    let margin = s.eps_a + s.eps_b;
    let (b_is_obstacle, centre_b) = match pair.b {
        Other::Particle(j) => (false, world.bodies[j as usize].position),
        Other::Obstacle(_) => (true, s.b_to_world.translation.vector),
    };
    let centre_dir = (body_a.position - centre_b)
        .try_normalize(0.0)
        .unwrap_or_else(Vec3::z);
    out.extend(hits.iter().map(|h| {
        let p = (s.a_to_world * point(&h.p)).coords;
        let q = (s.a_to_world * point(&h.q)).coords;
        let n_a = s.a_to_world * outward_normal(&s.tree_a.soup[h.tri_a as usize]);
        let n_b = s.b_to_world * outward_normal(&s.tree_b.soup[h.tri_b as usize]);
        let fallback = robust_normal(&n_a, &n_b, b_is_obstacle, &centre_dir);
        RawContact {
            p,
            q,
            dist: f64::from(h.dist),
            normal: contact_normal(&p, &q, margin, &n_a, &n_b, &fallback),
            tri_a: h.tri_a,
            tri_b: h.tri_b,
        }
    }));
}

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
