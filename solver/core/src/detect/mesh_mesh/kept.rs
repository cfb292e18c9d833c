//! Kept active sets of a mesh–mesh pair (seed 000 Alg. 6, remarks 4–6): the pair's
//! `ActiveSet` is checked where its separation certificates do not already decide,
//! widened and narrowed (one Picard iteration, `ActiveSet::iterate`) or widened at the
//! current pose until no surrogate pair is in contact (an explicit step,
//! `ActiveSet::settle`); real hits become world-frame contacts through the same mapping
//! as the traversal from the roots ([`super::fine_contacts_with`]), so every path gives
//! the same contacts bit for bit.

use std::sync::Arc;

use super::{coarse_contacts, fine_contacts_with, kernel_kind, tree_normals, PairSides};
use crate::contact::RawContact;
use crate::detect::active::{
    soup_sphere, ActiveSet, CertificateSkin, CoarseHit, IterationReport, PairGeometry, Scratch,
};
use crate::detect::broad::CandidatePair;
use crate::detect::report::{Detection, KeptPass};
use crate::model::{Model, Other};
use crate::params::KernelChoice;
use crate::state::Body;
use msdem_geom::math::Vec3;
use msdem_tree::{SurrogateTree, TriContact};

/// The kept state of one mesh–mesh pair: its active set and the two trees it was built
/// on (addresses; a pair whose shapes changed starts a new set).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct MeshPair {
    set: ActiveSet,
    /// Not serialised (addresses of this process): a set read back from a checkpoint
    /// adopts the trees of its first detection ([`RESTORED`]); the checkpoint's scenario
    /// hash guarantees they are the trees it was built on.
    #[serde(skip, default = "restored")]
    trees: (usize, usize),
}

/// Tree addresses of a set read back from a checkpoint (no tree lives at `usize::MAX`).
const RESTORED: (usize, usize) = (usize::MAX, usize::MAX);

fn restored() -> (usize, usize) {
    RESTORED
}

impl MeshPair {
    /// Records the trees of `sides` as those of the set: a set read back from a checkpoint
    /// ([`RESTORED`]) adopts them, a set built on other trees (the pair's shapes changed)
    /// starts anew.
    fn adopt(&mut self, sides: &PairSides) {
        let trees = (
            std::ptr::from_ref(sides.tree_a) as usize,
            std::ptr::from_ref(sides.tree_b) as usize,
        );
        if self.trees != RESTORED && self.trees != trees {
            self.set = ActiveSet::default();
        }
        self.trees = trees;
    }

    /// Forgets the memory sets and vetoes of the set (a new time step).
    pub fn forget(&mut self) {
        self.set.forget();
    }

    /// Number of active element pairs.
    pub fn active_len(&self) -> usize {
        self.set.active_len()
    }

    /// Bytes held by the set beyond its own struct.
    pub fn extra_bytes(&self) -> usize {
        self.set.bytes() - std::mem::size_of::<ActiveSet>()
    }
}

/// Per-thread buffers of the mesh–mesh work.
#[derive(Debug, Default)]
pub struct MeshScratch {
    pub(super) active: Scratch,
    hits: Vec<TriContact>,
    coarse_hits: Vec<CoarseHit>,
}

/// Per-tree data of one shape or obstacle, keyed by the tree's address: the bounding
/// sphere of its soup and the outward normals of its soup triangles (mesh frame).
#[derive(Debug)]
struct TreeData {
    ptr: usize,
    sphere: [f64; 4],
    normals: Vec<Vec3>,
}

/// `TreeData` of every mesh shape and obstacle, refreshed when a tree changes, and the
/// base skin of the certificates of the sets processed with it (the setting of the sets'
/// user: `Detector::set_skin`).
#[derive(Debug, Default)]
pub struct TreeCache {
    shapes: Vec<Option<TreeData>>,
    obstacles: Vec<Option<TreeData>>,
    /// Base skin of the sets' certificates.
    pub(crate) skin: CertificateSkin,
}

/// Brings `cache` in line with `trees` (`None`: not a mesh).
fn refresh<'t>(
    cache: &mut Vec<Option<TreeData>>,
    trees: impl Iterator<Item = Option<&'t Arc<SurrogateTree>>>,
) {
    let mut n = 0;
    for (i, t) in trees.enumerate() {
        n = i + 1;
        let ptr = t.map(|t| Arc::as_ptr(t) as usize);
        if cache.get(i).map(|c| c.as_ref().map(|d| d.ptr)) != Some(ptr) {
            cache.truncate(i);
            cache.push(t.map(|t| TreeData {
                ptr: Arc::as_ptr(t) as usize,
                sphere: soup_sphere(&t.soup),
                normals: tree_normals(t),
            }));
        }
    }
    cache.truncate(n);
}

impl TreeCache {
    /// Refreshes the per-tree data of `model` (a pair whose trees changed starts a new
    /// active set in [`process`]).
    pub fn update(&mut self, model: &Model) {
        refresh(
            &mut self.shapes,
            model.shapes.iter().map(|s| s.geometry.tree()),
        );
        refresh(
            &mut self.obstacles,
            model.obstacles.iter().map(|o| o.geometry.tree()),
        );
    }

    fn of(&self, pair: &CandidatePair, bodies: &[Body]) -> [Option<&TreeData>; 2] {
        let shape = |i: u32| {
            bodies
                .get(i as usize)
                .and_then(|b| self.shapes.get(b.shape as usize))
                .and_then(Option::as_ref)
        };
        let b = match pair.b {
            Other::Particle(j) => shape(j),
            Other::Obstacle(o) => self.obstacles.get(o as usize).and_then(Option::as_ref),
        };
        [shape(pair.a), b]
    }
}

/// Bounding spheres of A's and B's soups (mesh frames); unknown: an infinite sphere,
/// which certifies nothing.
fn spheres_of(data: [Option<&TreeData>; 2]) -> [[f64; 4]; 2] {
    data.map(|d| d.map_or([0.0, 0.0, 0.0, f64::INFINITY], |s| s.sphere))
}

fn geometry<'a>(
    kernel: KernelChoice,
    s: &PairSides<'a>,
    spheres: [[f64; 4]; 2],
    skin: CertificateSkin,
) -> PairGeometry<'a> {
    let b_to_a = s.b_to_a();
    let [a, b] = spheres;
    let reach = |c: Vec3, r: f64| c.norm() + r;
    let cb = b_to_a * msdem_geom::math::Point3::new(b[0], b[1], b[2]);
    let bound = reach(Vec3::new(a[0], a[1], a[2]), a[3]).max(reach(cb.coords, b[3]));
    PairGeometry {
        a: s.tree_a,
        eps_a: s.eps_a as f32,
        b: s.tree_b,
        eps_b: s.eps_b as f32,
        b_to_a,
        kernel: kernel_kind(kernel),
        b_sphere: b,
        a_sphere: a,
        a_to_b: b_to_a.inverse(),
        // Rounded up well past the f64 → f32 conversion.
        coord_bound: (bound * (1.0 + 1e-6)) as f32,
        skin,
    }
}

/// The geometry of `pair` with the sides `sides` at the poses of `bodies` (the bounding
/// spheres from `cache`), for the other kept queries of the pair.
pub(super) fn pair_geometry<'a>(
    kernel: KernelChoice,
    cache: &TreeCache,
    pair: &CandidatePair,
    bodies: &[Body],
    sides: &PairSides<'a>,
) -> PairGeometry<'a> {
    geometry(
        kernel,
        sides,
        spheres_of(cache.of(pair, bodies)),
        cache.skin,
    )
}

/// Checks the structural invariants of the active set of `pair` (complete cut of the
/// simultaneous descent, siblings together, remark 6).
pub fn validate(
    model: &Model,
    bodies: &[Body],
    kernel: KernelChoice,
    cache: &TreeCache,
    pair: &CandidatePair,
    kept: &mut MeshPair,
) -> Result<(), String> {
    let s = PairSides::of(model, bodies, pair).ok_or("not a mesh–mesh pair")?;
    let g = geometry(kernel, &s, spheres_of(cache.of(pair, bodies)), cache.skin);
    kept.set.validate(&g)
}

/// Processes one mesh–mesh pair's kept active set at the poses of `bodies` (see the
/// module docs): fine contacts to `raw`, coarse force estimates (Picard only) to
/// `coarse_raw`.
#[allow(clippy::too_many_arguments)]
pub fn process(
    model: &Model,
    bodies: &[Body],
    kernel: KernelChoice,
    cache: &TreeCache,
    pair: &CandidatePair,
    kept: &mut MeshPair,
    ts: &mut MeshScratch,
    pass: KeptPass,
    raw: &mut Vec<RawContact>,
    coarse_raw: &mut Vec<RawContact>,
) -> Detection {
    let Some(sides) = PairSides::of(model, bodies, pair) else {
        return Detection::default();
    };
    kept.adopt(&sides);
    let data = cache.of(pair, bodies);
    let g = geometry(kernel, &sides, spheres_of(data), cache.skin);
    ts.hits.clear();
    ts.coarse_hits.clear();
    let (hits, coarse_hits) = (&mut ts.hits, &mut ts.coarse_hits);
    let rep = match pass {
        KeptPass::Iterate { seed, recheck_all } => {
            kept.set
                .iterate(&g, seed, recheck_all, &mut ts.active, hits, coarse_hits)
        }
        KeptPass::Settle | KeptPass::SettleRecheck => {
            let all = pass == KeptPass::SettleRecheck;
            let rep = kept.set.settle(&g, all, &mut ts.active, hits, coarse_hits);
            // Estimates of surrogate pairs widened later in the same call.
            coarse_hits.clear();
            rep
        }
    };
    let normals = data.map(|d| d.map(|d| d.normals.as_slice()));
    fine_contacts_with(bodies, pair, &sides, &mut ts.hits, raw, normals);
    coarse_contacts(&sides, &ts.coarse_hits, coarse_raw);
    detection(&rep)
}

/// The pair-set query of one mesh–mesh pair's kept active set at the poses of `bodies`
/// (`ActiveSet::settle_pairs`): every real triangle pair within the margin, as soup
/// indices `(A's, B's)` in the order of the active set (each once), to `out`; real pairs
/// still certified within the margin by their slack are held without a kernel call. For
/// queries of which triangles touch (the trajectory comparison with parry3d), not for
/// forces: the set evolves as under an explicit step's [`process`], so a pair may
/// alternate between the two.
#[allow(clippy::too_many_arguments)]
pub fn pair_set(
    model: &Model,
    bodies: &[Body],
    kernel: KernelChoice,
    cache: &TreeCache,
    pair: &CandidatePair,
    kept: &mut MeshPair,
    ts: &mut MeshScratch,
    out: &mut Vec<(u32, u32)>,
) -> Detection {
    out.clear();
    let Some(sides) = PairSides::of(model, bodies, pair) else {
        return Detection::default();
    };
    kept.adopt(&sides);
    let g = geometry(
        kernel,
        &sides,
        spheres_of(cache.of(pair, bodies)),
        cache.skin,
    );
    ts.hits.clear();
    let rep = kept.set.settle_pairs(&g, &mut ts.active, &mut ts.hits);
    out.extend(ts.hits.iter().map(|h| (h.tri_a, h.tri_b)));
    detection(&rep)
}

/// The statistics of one kept-set pass as the pair's [`Detection`] (no candidate or kept
/// pair counted here: the caller counts pairs).
pub(super) fn detection(rep: &IterationReport) -> Detection {
    Detection {
        pairs: 0,
        kept: 0,
        stats: rep.stats,
        counts: rep.counts,
        skipped: rep.skipped,
        bounds: rep.bounds,
        refreshed: u32::from(rep.refreshed),
        renewed: rep.renewed,
        witnessed: rep.witnessed,
        ahead: rep.ahead,
    }
}
