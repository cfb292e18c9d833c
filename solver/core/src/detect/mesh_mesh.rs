//! Mesh–mesh pairs (seed 000 Alg. 5): the multiresolution traversal of the two surrogate
//! trees of a candidate pair in body `a`'s mesh frame, with the results mapped back to the
//! world; the kept active sets of such a pair are processed in [`kept`].
//!
//! Within a pair, contacts are sorted by triangle indices `(tri_a, tri_b)`, so that the
//! (order-dependent) merge of remark 1 sees the same sequence in every detection path.
//!
//! Normals: every raw contact gets its unit normal from [`contact_normal`], with the
//! outward normals of its two triangles for the intersecting and penetrated cases.

pub mod events;
pub mod kept;

use super::active::CoarseHit;
use super::broad::CandidatePair;
use crate::contact::normal::{contact_normal, robust_normal};
use crate::contact::pair::TINY_DISTANCE;
use crate::contact::smooth::reach;
use crate::contact::RawContact;
use crate::model::{Model, Other};
use crate::params::{DetectionMode, KernelChoice};
use crate::state::Body;
use msdem_geom::kernel::KernelKind;
use msdem_geom::math::{Iso3, Point3, Tri, Vec3, P32};
use msdem_tree::traverse::{find_contacts, LevelStats, Mode, Scratch, TriContact};
use msdem_tree::SurrogateTree;

/// Traversal mode of a detection choice.
pub fn traverse_mode(mode: DetectionMode) -> Mode {
    match mode {
        DetectionMode::Hierarchy => Mode::Hierarchy,
        DetectionMode::Flat => Mode::Flat,
    }
}

/// Triangle kernel of a kernel choice.
pub fn kernel_kind(kernel: KernelChoice) -> KernelKind {
    match kernel {
        KernelChoice::Exact => KernelKind::Exact,
        KernelChoice::Hybrid => KernelKind::Hybrid,
    }
}

/// Per-thread buffers of the traversal from the roots.
#[derive(Debug, Default)]
pub struct RootsScratch {
    traverse: Scratch,
    hits: Vec<TriContact>,
}

/// A soup point as a dynamics point.
pub(crate) fn point(p: &P32) -> Point3 {
    Point3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2]))
}

/// Unit outward normal of a triangle (zero if degenerate), in the triangle's frame.
fn outward_normal(t: &Tri) -> Vec3 {
    let [a, b, c] = t.v.map(|v| point(&v));
    (b - a)
        .cross(&(c - a))
        .try_normalize(0.0)
        .unwrap_or_else(Vec3::zeros)
}

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
    /// Sides of `pair` at the poses of `bodies`; `None` unless both sides are meshes
    /// (the dispatcher only calls mesh–mesh code for such pairs) and the ids are valid.
    pub fn of(model: &'w Model, bodies: &[Body], pair: &CandidatePair) -> Option<Self> {
        let body_a = bodies.get(pair.a as usize)?;
        let shape_a = model.shapes.get(body_a.shape as usize)?;
        let (tree_b, eps_b, b_to_world) = match pair.b {
            Other::Particle(j) => {
                let body = bodies.get(j as usize)?;
                let shape = model.shapes.get(body.shape as usize)?;
                let tree = shape.geometry.tree()?;
                (&**tree, body.epsilon, body.mesh_to_world(&shape.com))
            }
            Other::Obstacle(o) => {
                let ob = model.obstacles.get(o as usize)?;
                (&**ob.geometry.tree()?, ob.epsilon, ob.pose)
            }
        };
        // A curved surface ([`crate::contact::smooth`]) lies up to its sag bound outside
        // the facets: the traversal reaches that much farther on that side.
        let eps_b = eps_b
            + match pair.b {
                Other::Particle(j) => reach(model, bodies, j),
                Other::Obstacle(_) => 0.0,
            };
        Some(PairSides {
            tree_a: shape_a.geometry.tree()?,
            eps_a: body_a.epsilon + reach(model, bodies, pair.a),
            a_to_world: body_a.mesh_to_world(&shape_a.com),
            tree_b,
            eps_b,
            b_to_world,
        })
    }

    /// B's mesh frame → A's mesh frame.
    pub fn b_to_a(&self) -> Iso3 {
        self.a_to_world.inverse() * self.b_to_world
    }
}

/// Runs the traversal from the roots (or the flat search) of one mesh–mesh candidate
/// pair and appends its contacts (world frame) to `raw`, its checks to `stats`.
#[allow(clippy::too_many_arguments)]
pub fn roots_pair(
    model: &Model,
    bodies: &[Body],
    pair: &CandidatePair,
    mode: DetectionMode,
    kernel: KernelChoice,
    ts: &mut RootsScratch,
    raw: &mut Vec<RawContact>,
    stats: &mut LevelStats,
) {
    let Some(sides) = PairSides::of(model, bodies, pair) else {
        return;
    };
    ts.hits.clear();
    find_contacts(
        sides.tree_a,
        sides.eps_a as f32,
        sides.tree_b,
        sides.eps_b as f32,
        &sides.b_to_a(),
        traverse_mode(mode),
        kernel_kind(kernel),
        &mut ts.traverse,
        &mut ts.hits,
        stats,
    );
    fine_contacts(bodies, pair, &sides, &mut ts.hits, raw);
}

/// Appends the world-frame contacts of `hits` to `out`. `hits` are sorted by
/// `(tri_a, tri_b)` first: the merge (remark 1) is order-dependent, and both traversal
/// modes (and the implicit variants) must lead to the same merged contacts (Lemma 5.1).
pub fn fine_contacts(
    bodies: &[Body],
    pair: &CandidatePair,
    s: &PairSides,
    hits: &mut [TriContact],
    out: &mut Vec<RawContact>,
) {
    fine_contacts_with(bodies, pair, s, hits, out, [None, None]);
}

/// Outward unit normals of every soup triangle of `tree`, in its mesh frame (as
/// [`fine_contacts`] computes them, bit for bit): a cache for [`fine_contacts_with`].
pub fn tree_normals(tree: &SurrogateTree) -> Vec<Vec3> {
    tree.soup.iter().map(outward_normal).collect()
}

/// [`fine_contacts`] with the mesh-frame outward normals of A's and B's soups taken from
/// `normals` ([`tree_normals`] of `s.tree_a`, `s.tree_b`) where given: the same contacts,
/// bit for bit.
pub fn fine_contacts_with(
    bodies: &[Body],
    pair: &CandidatePair,
    s: &PairSides,
    hits: &mut [TriContact],
    out: &mut Vec<RawContact>,
    normals: [Option<&[Vec3]>; 2],
) {
    let normal_of = |tree: &SurrogateTree, cache: Option<&[Vec3]>, t: u32| match cache {
        Some(n) => n[t as usize],
        None => outward_normal(&tree.soup[t as usize]),
    };
    hits.sort_unstable_by_key(|h| (h.tri_a, h.tri_b));
    let body_a = &bodies[pair.a as usize];
    let margin = s.eps_a + s.eps_b;
    let (b_is_obstacle, centre_b) = match pair.b {
        Other::Particle(j) => (false, bodies[j as usize].position),
        Other::Obstacle(_) => (true, s.b_to_world.translation.vector),
    };
    let centre_dir = (body_a.position - centre_b)
        .try_normalize(0.0)
        .unwrap_or_else(Vec3::z);
    // A's world normal is kept while consecutive hits share `tri_a` (the sort above), and
    // the robust fallback is only computed when `contact_normal` selects it (a NaN
    // sentinel marks that choice: its regular normal is always finite): the same values
    // as computing both for every hit.
    let nan = Vec3::repeat(f64::NAN);
    let mut last_a = (u32::MAX, Vec3::zeros());
    out.extend(hits.iter().map(|h| {
        let p = (s.a_to_world * point(&h.p)).coords;
        let q = (s.a_to_world * point(&h.q)).coords;
        if last_a.0 != h.tri_a {
            last_a = (
                h.tri_a,
                s.a_to_world * normal_of(s.tree_a, normals[0], h.tri_a),
            );
        }
        let n_a = last_a.1;
        let n_b = s.b_to_world * normal_of(s.tree_b, normals[1], h.tri_b);
        let mut normal = contact_normal(&p, &q, margin, &n_a, &n_b, &nan);
        if normal.x.is_nan() {
            normal = robust_normal(&n_a, &n_b, b_is_obstacle, &centre_dir);
        }
        RawContact {
            p,
            q,
            dist: f64::from(h.dist),
            normal,
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
