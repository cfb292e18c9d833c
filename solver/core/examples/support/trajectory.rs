//! The pose sequence of a two-body collision as a solver run produces it, and the two
//! sides of `examples/trajectory_vs_parry.rs` stepping along it: our kept active sets
//! with separation certificates (`detect::dispatch::kept_pair`, the solver's
//! `Search::Kept` path of an explicit step) and parry3d's `contact_manifolds` with a
//! persistent workspace and manifold vector (as a parry user steps a simulation).

use anyhow::{bail, Context, Result};
use msdem_solver::contact::RawContact;
use msdem_solver::detect::broad::CandidatePair;
use msdem_solver::detect::dispatch::{
    event_pair_set, kept_pair, kept_pair_set, EventPair, KeptCaches, KeptPair, KeptScratches,
};
use msdem_solver::detect::{Detection, Detector, KeptPass, PairSides};
use msdem_solver::integrator::explicit::ExplicitEuler;
use msdem_solver::params::KernelChoice;
use msdem_solver::state::Body;
use msdem_solver::world::World;

use super::oracle::{near_pairs, T64};
use super::parry_side;

/// Oracle distances within this of the margin \[m\] are borderline (`f32` storage of the
/// triangles): neither library is held to them.
pub const BAND_M: f64 = 1e-6;

/// The steps of a run in which the broad phase pairs the two bodies.
pub struct Trajectory {
    /// The body poses at the start of each such step.
    pub steps: Vec<Vec<Body>>,
    /// The first such step of the run.
    pub first_step: u64,
    /// All steps of the run.
    pub run_steps: u64,
}

/// Runs `steps` explicit steps of `world` (two particles) and keeps the poses of the steps
/// whose detection had the pair as a candidate (one contiguous window: approach, contact,
/// separation).
pub fn record(world: &mut World, steps: u64) -> Result<Trajectory> {
    if world.state.bodies.len() != 2 {
        bail!(
            "a trajectory needs two particles, the scenario has {}",
            world.state.bodies.len()
        );
    }
    let mut ex = ExplicitEuler::new(&world.params);
    let mut det = Detector::new(&world.params);
    let mut t = Trajectory {
        steps: Vec::new(),
        first_step: 0,
        run_steps: steps,
    };
    for s in 0..steps {
        let before = world.state.bodies.clone();
        ex.advance(&world.model, &mut world.state, &mut det, false)?;
        if det.pairs().is_empty() {
            continue;
        }
        if t.steps.is_empty() {
            t.first_step = s;
        } else if t.first_step + t.steps.len() as u64 != s {
            bail!("step {s}: the bodies became a candidate pair twice");
        }
        t.steps.push(before);
    }
    if t.steps.is_empty() {
        bail!("the bodies never came within their halos");
    }
    Ok(t)
}

/// The pair of the two particles.
pub const PAIR: CandidatePair = CandidatePair {
    a: 0,
    b: msdem_solver::model::Other::Particle(1),
};

/// The real triangles of a tree, by their index in the source mesh (the soup also holds
/// the surrogate triangles), in `f32` as stored; `Err` unless every source index appears
/// once.
pub fn real_triangles(t: &msdem_tree::SurrogateTree) -> Result<Vec<[[f32; 3]; 3]>> {
    let n = t
        .source
        .iter()
        .filter(|&&s| s != msdem_tree::NO_TRIANGLE)
        .count();
    let mut out = vec![None; n];
    for (tri, &s) in t.soup.iter().zip(&t.source) {
        if s == msdem_tree::NO_TRIANGLE {
            continue;
        }
        let slot = out
            .get_mut(s as usize)
            .with_context(|| format!("source index {s} beyond {n} real triangles"))?;
        if slot.replace(tri.v).is_some() {
            bail!("source index {s} twice in the soup");
        }
    }
    out.into_iter()
        .enumerate()
        .map(|(i, t)| t.with_context(|| format!("source triangle {i} missing from the soup")))
        .collect()
}

/// `tris` moved by `iso`, in `f64`.
pub fn posed(tris: &[[[f32; 3]; 3]], iso: &msdem_geom::math::Iso3) -> Vec<T64> {
    tris.iter()
        .map(|t| {
            t.map(|p| {
                let q = iso * msdem_geom::math::Point3::new(p[0] as f64, p[1] as f64, p[2] as f64);
                [q.x, q.y, q.z]
            })
        })
        .collect()
}

/// A parry shape of real triangles (triangle `i` of the shape is source triangle `i`).
pub fn parry_shape(tris: &[[[f32; 3]; 3]]) -> Result<parry3d::shape::TriMesh> {
    let mesh = msdem_mesh::TriMesh {
        vertices: tris
            .iter()
            .flat_map(|t| t.map(|p| p.map(f64::from)))
            .collect(),
        triangles: (0..tris.len() as u32)
            .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
            .collect(),
    };
    parry_side::shape(&mesh).map_err(anyhow::Error::msg)
}

/// Both sides' real triangles and parry shapes.
pub struct Shapes {
    /// A's and B's real triangles by source index.
    pub tris: [Vec<[[f32; 3]; 3]>; 2],
    /// A's and B's parry shapes.
    pub parry: [parry3d::shape::TriMesh; 2],
}

impl Shapes {
    /// The shapes of `sides`' two trees.
    pub fn of(sides: &PairSides) -> Result<Shapes> {
        let tris = [real_triangles(sides.tree_a)?, real_triangles(sides.tree_b)?];
        let parry = [parry_shape(&tris[0])?, parry_shape(&tris[1])?];
        Ok(Shapes { tris, parry })
    }
}

/// Our side: the pair's kept state along the trajectory (fresh at its start).
#[derive(Default)]
pub struct Ours {
    caches: KeptCaches,
    kept: KeptPair,
    scratch: KeptScratches,
    /// Fine contacts of the last step (world frame, soup indices).
    pub raw: Vec<RawContact>,
    coarse: Vec<RawContact>,
    /// The pair set of the last [`Ours::step_pairs`] or [`Ours::step_events`] (soup
    /// indices).
    pub set: Vec<(u32, u32)>,
    events: EventPair,
}

impl Ours {
    /// Forgets the kept state (a new pass starts cold).
    pub fn reset(&mut self, world: &World) {
        self.kept = KeptPair::default();
        self.events = EventPair::default();
        self.caches.update(&world.model);
    }

    /// One explicit step's detection: memory sets forgotten, then the kept set settled at
    /// the poses `bodies`.
    pub fn step(&mut self, world: &World, kernel: KernelChoice, bodies: &[Body]) -> Detection {
        self.kept.forget();
        self.raw.clear();
        self.coarse.clear();
        kept_pair(
            &world.model,
            bodies,
            kernel,
            &self.caches,
            &PAIR,
            &mut self.kept,
            &mut self.scratch,
            KeptPass::Settle,
            &mut self.raw,
            &mut self.coarse,
        )
    }

    /// One step's pair-set query: memory sets forgotten, then the kept set settled at the
    /// poses `bodies` with real pairs held by their in-margin slacks
    /// (`detect::dispatch::kept_pair_set`); the pairs to `set`.
    pub fn step_pairs(
        &mut self,
        world: &World,
        kernel: KernelChoice,
        bodies: &[Body],
    ) -> Detection {
        self.kept.forget();
        kept_pair_set(
            &world.model,
            bodies,
            kernel,
            &self.caches,
            &PAIR,
            &mut self.kept,
            &mut self.scratch,
            &mut self.set,
        )
    }

    /// One step's event-driven pair-set query (`detect::dispatch::event_pair_set`): only
    /// the pairs whose certificates expired are checked; the pairs to `set`, sorted.
    pub fn step_events(
        &mut self,
        world: &World,
        kernel: KernelChoice,
        bodies: &[Body],
    ) -> Detection {
        event_pair_set(
            &world.model,
            bodies,
            kernel,
            &self.caches,
            &PAIR,
            &mut self.events,
            &mut self.scratch,
            &mut self.set,
        )
    }

    /// Active element pairs of the kept set (the leaves of its cut).
    pub fn active_len(&self) -> usize {
        self.kept.active_len()
    }

    /// The source-mesh triangle pairs of the last step (of [`Ours::step`], or of
    /// [`Ours::step_pairs`] with `set`), sorted.
    pub fn pairs(&self, sides: &PairSides, set: bool) -> Vec<(u32, u32)> {
        let (sa, sb) = (&sides.tree_a.source, &sides.tree_b.source);
        let src = |s: &[u32], i: u32| s.get(i as usize).copied().unwrap_or(u32::MAX);
        let soup: Vec<(u32, u32)> = if set {
            self.set.clone()
        } else {
            self.raw.iter().map(|c| (c.tri_a, c.tri_b)).collect()
        };
        let mut v: Vec<_> = soup
            .iter()
            .map(|&(a, b)| (src(sa, a), src(sb, b)))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Misses (sure oracle pairs not found) and extras (found pairs beyond margin + band).
pub fn score(found: &[(u32, u32)], near: &[(u32, u32, f64)], margin: f64) -> (usize, usize) {
    let misses = near
        .iter()
        .filter(|p| p.2 <= margin - BAND_M && found.binary_search(&(p.0, p.1)).is_err())
        .count();
    let extras = found
        .iter()
        .filter(|f| near.binary_search_by_key(*f, |p| (p.0, p.1)).is_err())
        .count();
    (misses, extras)
}

/// Per step of the trajectory: sure oracle pairs, borderline pairs, our misses/extras,
/// parry's misses/extras; both sides stepped once along the whole trajectory from cold.
pub struct Checked {
    /// Sure oracle pairs summed over the steps.
    pub sure: usize,
    /// Borderline oracle pairs summed over the steps.
    pub band: usize,
    /// Steps with at least one sure pair.
    pub touching: usize,
    /// Our misses and extras summed over the steps.
    pub ours_wrong: (usize, usize),
    /// parry's misses and extras summed over the steps.
    pub parry_wrong: (usize, usize),
    /// Our fine contacts summed over the steps (a timed pass must find as many).
    pub ours_contacts: usize,
    /// Our detection reports summed over the steps without and with sure pairs.
    pub reports: [Detection; 2],
    /// Our thread-CPU time in this single pass over the steps without and with sure
    /// pairs \[ns\] (a rough split; the timed passes give the medians).
    pub split_ns: [u64; 2],
    /// parry's, likewise.
    pub parry_split_ns: [u64; 2],
    /// Largest active set (leaves of the cut) along the trajectory.
    pub max_active: usize,
    /// The pair-set query's misses and extras summed over the steps.
    pub set_wrong: (usize, usize),
    /// The pair-set query's pairs summed over the steps (a timed pass must find as many).
    pub set_pairs: usize,
    /// The pair-set query's reports summed over the steps without and with sure pairs.
    pub set_reports: [Detection; 2],
    /// The event-driven query's reports, likewise.
    pub event_reports: [Detection; 2],
    /// Steps at which the event-driven query's pairs differ from the pair-set query's.
    pub event_differ: usize,
    /// Largest event set (all active pairs stored) along the trajectory.
    pub event_active: usize,
    /// Steps in which the event-driven query widened (walked its cut).
    pub event_walks: usize,
    /// Steps in which the pair-set query walked its cut (widened or refreshed).
    pub set_walks: usize,
}

/// Checks both sides against the exact oracle at every step.
pub fn check(
    world: &World,
    kernel: KernelChoice,
    traj: &Trajectory,
    shapes: &Shapes,
) -> Result<Checked> {
    let mut ours = Ours::default();
    ours.reset(world);
    let mut set = Ours::default();
    set.reset(world);
    let mut ev = Ours::default();
    ev.reset(world);
    let mut parry = parry_side::Query::default();
    let mut c = Checked {
        set_wrong: (0, 0),
        set_pairs: 0,
        set_reports: [Detection::default(); 2],
        event_reports: [Detection::default(); 2],
        event_differ: 0,
        event_active: 0,
        event_walks: 0,
        set_walks: 0,
        sure: 0,
        band: 0,
        touching: 0,
        ours_wrong: (0, 0),
        parry_wrong: (0, 0),
        ours_contacts: 0,
        reports: [Detection::default(); 2],
        split_ns: [0; 2],
        parry_split_ns: [0; 2],
        max_active: 0,
    };
    for (step, bodies) in traj.steps.iter().enumerate() {
        let sides = PairSides::of(&world.model, bodies, &PAIR).context("not a mesh pair")?;
        let margin = sides.eps_a + sides.eps_b;
        let a = posed(&shapes.tris[0], &msdem_geom::math::Iso3::identity());
        let b = posed(&shapes.tris[1], &sides.b_to_a());
        let near = near_pairs(&a, &b, margin + BAND_M);
        let sure = near.iter().filter(|x| x.2 <= margin - BAND_M).count();
        c.sure += sure;
        c.band += near.len() - sure;
        c.touching += usize::from(sure > 0);
        let t = super::timing::thread_cpu_ns();
        let d = ours.step(world, kernel, bodies);
        let k = usize::from(sure > 0);
        c.split_ns[k] += super::timing::thread_cpu_ns() - t;
        c.reports[k] = c.reports[k] + d;
        c.max_active = c.max_active.max(ours.active_len());
        c.ours_contacts += ours.raw.len();
        let w = score(&ours.pairs(&sides, false), &near, margin);
        if w.0 > 0 {
            bail!(
                "step {}: ours missed {} oracle pairs",
                traj.first_step + step as u64,
                w.0
            );
        }
        c.ours_wrong = (c.ours_wrong.0 + w.0, c.ours_wrong.1 + w.1);
        let d = set.step_pairs(world, kernel, bodies);
        c.set_reports[k] = c.set_reports[k] + d;
        c.set_walks += usize::from(d.counts.unfolds > 0 || d.refreshed > 0);
        c.set_pairs += set.set.len();
        let w = score(&set.pairs(&sides, true), &near, margin);
        if w.0 > 0 {
            bail!(
                "step {}: the pair-set query missed {} oracle pairs",
                traj.first_step + step as u64,
                w.0
            );
        }
        c.set_wrong = (c.set_wrong.0 + w.0, c.set_wrong.1 + w.1);
        let d = ev.step_events(world, kernel, bodies);
        c.event_reports[k] = c.event_reports[k] + d;
        c.event_walks += usize::from(d.counts.unfolds > 0);
        c.event_active = c.event_active.max(ev.events.active_len());
        if ev.pairs(&sides, true) != set.pairs(&sides, true) {
            c.event_differ += 1;
        }
        let pos12 = parry_side::pose(&sides.b_to_a());
        let t = super::timing::thread_cpu_ns();
        parry.run(
            &pos12,
            &shapes.parry[0],
            &shapes.parry[1],
            margin as f32,
            false,
        );
        c.parry_split_ns[k] += super::timing::thread_cpu_ns() - t;
        let w = score(&parry.pairs(margin as f32), &near, margin);
        c.parry_wrong = (c.parry_wrong.0 + w.0, c.parry_wrong.1 + w.1);
    }
    Ok(c)
}
