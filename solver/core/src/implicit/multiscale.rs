//! Contact detection of one multiscale Picard iteration (seed 000 Alg. 6 lines 3–21):
//! broad phase at the guessed state, then per candidate pair its persistent
//! [`ActiveSet`] is checked (where its certificates do not already decide), widened and
//! narrowed, and its contacts merged, in parallel over pairs (each pair owns its state,
//! counters are integer sums and contacts are read back in pair order: deterministic for
//! any thread count).

use super::active::{soup_sphere, ActiveSet, CoarseHit, PairGeometry, Scratch, UpdateCounts};
use super::raw::{coarse_contacts, PairSides};
use crate::broad::{BroadStage, CandidatePair};
use crate::contact::merge::merge_pair;
use crate::contact::pair::PairParams;
use crate::contact::{Contact, RawContact};
use crate::frames::{Other, PhaseTimes};
use crate::narrow::{fine_contacts_with, kernel_kind, tree_normals};
use crate::step::StepError;
use crate::world::World;
use msdem_geom::math::Vec3;
use msdem_tree::{LevelStats, SurrogateTree, TriContact};
use rayon::prelude::*;
use std::sync::Arc;
use std::time::Instant;

/// Below this many candidate pairs a detection runs on the calling thread: a parallel
/// pass costs two thread wake-ups, which on a few dozen pairs (the staircase: ~0.2 ms per
/// step) weighed more than the work shared.
const SEQUENTIAL_BELOW: usize = 128;

/// Sort key of a candidate pair, in the broad phase's output order: particle pairs first,
/// then particle–obstacle pairs, each ascending.
type PairKey = (u8, u32, u32);

fn key(p: &CandidatePair) -> PairKey {
    match p.b {
        Other::Particle(j) => (0, p.a, j),
        Other::Obstacle(o) => (1, p.a, o),
    }
}

/// Persistent state and this iteration's merged contacts of one particle pair.
#[derive(Debug, Default)]
struct PairState {
    key: PairKey,
    set: ActiveSet,
    fine: Vec<Contact>,
    coarse: Vec<Contact>,
    /// The last iteration neither widened, narrowed nor refreshed this pair's set: at the
    /// same poses another iteration would find the same contacts (see [`process`]).
    quiet: bool,
    /// The two trees the set was built on (addresses): a pair whose shapes changed starts
    /// a new set.
    trees: (usize, usize),
}

/// Per-thread buffers of the per-pair work.
#[derive(Debug, Default)]
struct ThreadScratch {
    active: Scratch,
    hits: Vec<TriContact>,
    coarse_hits: Vec<CoarseHit>,
    raw: Vec<RawContact>,
    coarse_raw: Vec<RawContact>,
}

/// What one multiscale detection reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct MultiscaleDetect {
    /// Candidate pairs.
    pub pairs: u32,
    /// Kernel calls per level.
    pub stats: LevelStats,
    /// Widenings and narrowings of this iteration.
    pub counts: UpdateCounts,
    /// Active pairs whose certificate decided their outcome without a check.
    pub skipped: u64,
    /// Element pairs screened for a certificate in a walk (not kernel checks).
    pub bounds: u64,
    /// Particle pairs whose certificates were renewed (incl. new pairs).
    pub refreshed: u32,
    /// Particle pairs whose contacts were kept from the previous iteration (neither
    /// particle moved, see [`super::PicardParams::local_updates`]).
    pub kept: u32,
}

impl MultiscaleDetect {
    fn add(mut self, o: MultiscaleDetect) -> MultiscaleDetect {
        self.pairs += o.pairs;
        self.stats += &o.stats;
        self.counts.unfolds += o.counts.unfolds;
        self.counts.narrows += o.counts.narrows;
        self.skipped += o.skipped;
        self.bounds += o.bounds;
        self.refreshed += o.refreshed;
        self.kept += o.kept;
        self
    }
}

/// Per-tree data of one shape or obstacle, keyed by the tree's address: the bounding
/// sphere of its soup and the outward normals of its soup triangles (mesh frame).
#[derive(Debug)]
struct TreeData {
    ptr: usize,
    sphere: [f64; 4],
    normals: Vec<Vec3>,
}

/// [`TreeData`] of every shape and obstacle.
#[derive(Debug, Default)]
struct Spheres {
    shapes: Vec<TreeData>,
    obstacles: Vec<TreeData>,
}

/// Brings `cache` in line with `trees`.
fn refresh_spheres<'t>(
    cache: &mut Vec<TreeData>,
    trees: impl Iterator<Item = &'t Arc<SurrogateTree>>,
) {
    for (i, t) in trees.enumerate() {
        let ptr = Arc::as_ptr(t) as usize;
        if cache.get(i).map(|c| c.ptr) != Some(ptr) {
            cache.truncate(i);
            cache.push(TreeData {
                ptr,
                sphere: soup_sphere(&t.soup),
                normals: tree_normals(t),
            });
        }
    }
}

/// Broad phase, active sets and buffers of multiscale Picard.
#[derive(Debug, Default)]
pub struct MultiscaleStage {
    broad: BroadStage,
    pairs: Vec<CandidatePair>,
    states: Vec<PairState>,
    spheres: Spheres,
    /// Start new active sets from one full descent (kept sets) instead of the roots.
    seed: bool,
    /// Check every active pair in every iteration (diagnostic, see
    /// [`ActiveSet::iterate`]).
    pub recheck_all: bool,
    /// Scratch of the sequential path (few pairs).
    sequential: ThreadScratch,
}

impl MultiscaleStage {
    /// Starts a time step: forgets all active sets (`restart`: Alg. 6 line 1 read
    /// literally, new sets start from the root pairs) or only the memory sets and vetoes
    /// (new sets start from one full descent, see [`ActiveSet::iterate`]).
    pub fn begin_step(&mut self, restart: bool) {
        self.seed = !restart;
        if restart {
            self.states.clear();
        } else {
            self.states.iter_mut().for_each(|s| s.set.forget());
        }
    }

    /// Total number of active pairs over all particle pairs.
    pub fn active_len(&self) -> usize {
        self.states.iter().map(|s| s.set.active_len()).sum()
    }

    /// Bytes held by the active sets and per-pair buffers.
    pub fn bytes(&self) -> usize {
        self.states.capacity() * std::mem::size_of::<PairState>()
            + self
                .states
                .iter()
                .map(|s| {
                    s.set.bytes() - std::mem::size_of::<ActiveSet>()
                        + (s.fine.capacity() + s.coarse.capacity()) * std::mem::size_of::<Contact>()
                })
                .sum::<usize>()
    }

    /// Validates every active set ([`ActiveSet::validate`]) against `world`'s current
    /// candidate pairs; returns the first violation.
    pub fn validate(&mut self, world: &World) -> Result<(), String> {
        self.update_spheres(world);
        for (pair, st) in self.pairs.iter().zip(self.states.iter_mut()) {
            let s = PairSides::of(world, pair);
            let g = geometry(world, &s, spheres_of(data_of(&self.spheres, pair, world)));
            st.set
                .validate(&g)
                .map_err(|e| format!("pair {pair:?}: {e}"))?;
        }
        Ok(())
    }

    /// Refreshes the per-tree data (a pair whose trees changed starts a new active set in
    /// [`process`]).
    fn update_spheres(&mut self, world: &World) {
        refresh_spheres(
            &mut self.spheres.shapes,
            world.shapes.iter().map(|s| &s.tree),
        );
        refresh_spheres(
            &mut self.spheres.obstacles,
            world.obstacles.iter().map(|o| &o.tree),
        );
    }

    /// One iteration's detection at the state of `world`: fine contacts (merged, remark 1)
    /// to `fine`, merged coarse force estimates to `coarse`; the active sets are widened
    /// and narrowed for the next iteration.
    pub fn detect(
        &mut self,
        world: &World,
        moved: &[bool],
        fine: &mut Vec<Contact>,
        coarse: &mut Vec<Contact>,
        wall: &mut PhaseTimes,
    ) -> Result<MultiscaleDetect, StepError> {
        self.detect_with(world, Some(moved), fine, coarse, wall)
    }

    /// The complete detection of Alg. 5 at the state of `world` on the kept active sets
    /// (explicit steps, [`ActiveSet::settle`]): every particle pair's set is widened at
    /// this pose until no surrogate pair is in contact, so `fine` receives exactly the
    /// flat contacts (merged, remark 1). Call [`MultiscaleStage::begin_step`] with
    /// `false` before each step.
    pub fn detect_full(
        &mut self,
        world: &World,
        fine: &mut Vec<Contact>,
        wall: &mut PhaseTimes,
    ) -> Result<MultiscaleDetect, StepError> {
        let mut coarse = Vec::new();
        self.detect_with(world, None, fine, &mut coarse, wall)
    }

    /// [`MultiscaleStage::detect`] (`moved`: one Picard iteration) or
    /// [`MultiscaleStage::detect_full`] (`None`).
    fn detect_with(
        &mut self,
        world: &World,
        moved: Option<&[bool]>,
        fine: &mut Vec<Contact>,
        coarse: &mut Vec<Contact>,
        wall: &mut PhaseTimes,
    ) -> Result<MultiscaleDetect, StepError> {
        let t0 = Instant::now();
        self.broad
            .candidates(world, &mut self.pairs)
            .map_err(|source| StepError::BroadPhase {
                step: world.step + 1,
                source,
            })?;
        self.update_spheres(world);
        self.align();
        let t1 = Instant::now();
        let (spheres, seed, all) = (&self.spheres, self.seed, self.recheck_all);
        let one = |ts: &mut ThreadScratch, (st, pair): (&mut PairState, &CandidatePair)| {
            let Some(moved) = moved else {
                return process(world, pair, st, ts, data_of(spheres, pair, world), None);
            };
            let moved_b = match pair.b {
                Other::Particle(j) => moved.get(j as usize).copied().unwrap_or(true),
                Other::Obstacle(_) => false,
            };
            let still = !moved.get(pair.a as usize).copied().unwrap_or(true) && !moved_b;
            if still && st.quiet && !all {
                return MultiscaleDetect {
                    kept: 1,
                    ..MultiscaleDetect::default()
                };
            }
            let picard = Some((seed, all));
            process(world, pair, st, ts, data_of(spheres, pair, world), picard)
        };
        let mut out = if self.pairs.len() < SEQUENTIAL_BELOW {
            // Few pairs: waking the worker threads would cost more than the work.
            let ts = &mut self.sequential;
            self.states
                .iter_mut()
                .zip(&self.pairs)
                .map(|item| one(ts, item))
                .fold(MultiscaleDetect::default(), MultiscaleDetect::add)
        } else {
            self.states
                .par_iter_mut()
                .zip(self.pairs.par_iter())
                .with_min_len(8)
                .map_init(ThreadScratch::default, one)
                .reduce(MultiscaleDetect::default, MultiscaleDetect::add)
        };
        out.pairs = self.pairs.len() as u32;
        let t2 = Instant::now();
        fine.clear();
        coarse.clear();
        for st in &self.states {
            fine.extend_from_slice(&st.fine);
            coarse.extend_from_slice(&st.coarse);
        }
        wall.broad += (t1 - t0).as_secs_f64();
        wall.narrow += (t2 - t1).as_secs_f64();
        wall.forces += t2.elapsed().as_secs_f64();
        Ok(out)
    }

    /// Lines the pair states up with the new candidate pairs, keeping the state of every
    /// pair that stays a candidate; pairs that left the broad phase lose theirs.
    fn align(&mut self) {
        let sorted_new = self.pairs.windows(2).all(|w| key(&w[0]) < key(&w[1]));
        let sorted_old = self.states.windows(2).all(|w| w[0].key < w[1].key);
        let unchanged = self.states.len() == self.pairs.len()
            && self
                .states
                .iter()
                .zip(&self.pairs)
                .all(|(s, p)| s.key == key(p));
        if unchanged {
            return;
        }
        let old = std::mem::take(&mut self.states);
        let mut states = Vec::with_capacity(self.pairs.len());
        let fresh = |k| PairState {
            key: k,
            ..PairState::default()
        };
        if sorted_new && sorted_old {
            let mut it = old.into_iter().peekable();
            for p in &self.pairs {
                let k = key(p);
                while it.peek().is_some_and(|s| s.key < k) {
                    it.next();
                }
                match it.peek() {
                    Some(s) if s.key == k => states.push(it.next().unwrap_or_default()),
                    _ => states.push(fresh(k)),
                }
            }
        } else {
            let mut map: std::collections::BTreeMap<PairKey, PairState> =
                old.into_iter().map(|s| (s.key, s)).collect();
            for p in &self.pairs {
                let k = key(p);
                states.push(map.remove(&k).unwrap_or_else(|| fresh(k)));
            }
        }
        self.states = states;
    }
}

fn data_of<'s>(
    spheres: &'s Spheres,
    pair: &CandidatePair,
    world: &World,
) -> [Option<&'s TreeData>; 2] {
    let shape = |i: u32| {
        world
            .bodies
            .get(i as usize)
            .and_then(|b| spheres.shapes.get(b.shape as usize))
    };
    let b = match pair.b {
        Other::Particle(j) => shape(j),
        Other::Obstacle(o) => spheres.obstacles.get(o as usize),
    };
    [shape(pair.a), b]
}

/// Bounding spheres of A's and B's soups (mesh frames); unknown: an infinite sphere,
/// which certifies nothing.
fn spheres_of(data: [Option<&TreeData>; 2]) -> [[f64; 4]; 2] {
    data.map(|d| d.map_or([0.0, 0.0, 0.0, f64::INFINITY], |s| s.sphere))
}

fn geometry<'a>(world: &World, s: &PairSides<'a>, spheres: [[f64; 4]; 2]) -> PairGeometry<'a> {
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
        kernel: kernel_kind(world.params.kernel),
        b_sphere: b,
        a_sphere: a,
        a_to_b: b_to_a.inverse(),
        // Rounded up well past the f64 → f32 conversion.
        coord_bound: (bound * (1.0 + 1e-6)) as f32,
    }
}

fn process(
    world: &World,
    pair: &CandidatePair,
    st: &mut PairState,
    ts: &mut ThreadScratch,
    data: [Option<&TreeData>; 2],
    picard: Option<(bool, bool)>,
) -> MultiscaleDetect {
    let sides = PairSides::of(world, pair);
    let trees = (
        std::ptr::from_ref(sides.tree_a) as usize,
        std::ptr::from_ref(sides.tree_b) as usize,
    );
    if st.trees != trees {
        st.trees = trees;
        st.set = ActiveSet::default();
    }
    let g = geometry(world, &sides, spheres_of(data));
    ts.hits.clear();
    ts.coarse_hits.clear();
    ts.raw.clear();
    ts.coarse_raw.clear();
    let (hits, coarse_hits) = (&mut ts.hits, &mut ts.coarse_hits);
    let rep = match picard {
        Some((seed, recheck_all)) => {
            st.set
                .iterate(&g, seed, recheck_all, &mut ts.active, hits, coarse_hits)
        }
        None => {
            let rep = st.set.settle(&g, &mut ts.active, hits, coarse_hits);
            // Estimates of surrogate pairs widened later in the same call.
            coarse_hits.clear();
            rep
        }
    };
    let normals = data.map(|d| d.map(|d| d.normals.as_slice()));
    fine_contacts_with(world, pair, &sides, &mut ts.hits, &mut ts.raw, normals);
    coarse_contacts(&sides, &ts.coarse_hits, &mut ts.coarse_raw);
    st.fine.clear();
    st.coarse.clear();
    if !ts.raw.is_empty() || !ts.coarse_raw.is_empty() {
        let radius = 0.5 * PairParams::of(world, pair.a, pair.b).margin;
        merge_pair(pair.a, pair.b, &ts.raw, radius, &mut st.fine);
        merge_pair(pair.a, pair.b, &ts.coarse_raw, radius, &mut st.coarse);
    }
    st.quiet = rep.counts.unfolds == 0 && rep.counts.narrows == 0 && !rep.refreshed;
    MultiscaleDetect {
        pairs: 0,
        kept: 0,
        stats: rep.stats,
        counts: rep.counts,
        skipped: rep.skipped,
        bounds: rep.bounds,
        refreshed: u32::from(rep.refreshed),
    }
}
