//! Time step size of one cluster (seed 004 §5): the earliest proper contact time of its
//! particle pairs (the pruned graph's edges) and of its particles with the obstacles their
//! tubes reach, by **narrowing**: the span of interest shrinks to every contact time found
//! and prunes every later search.
//!
//! * Per pair, bounding spheres (particles) or boxes (obstacles) give a lower bound of the
//!   distance at the start; where it is within the margin `m`, one distance search
//!   (branch and bound over both surrogate trees, coarse levels first,
//!   [`super::distance`]) decides Def. 2.2: a pair already touching (distance ≤ `m`) does
//!   not shrink the step — it is resting or in contact, and the collision solve handles it;
//!   a pair whose relative motion bound `μ` is 0 (at rest relative to each other) never
//!   does.
//! * Otherwise the pair's earliest possible contact is `(d₀ − target)/μ` (`d₀` the bound or
//!   the distance). Pairs are processed in the order of these bounds (the cheap coarse
//!   answer first), and a pair whose bound is past the current step size is not searched
//!   at all.
//! * The contact time is found by conservative advancement in space-time: at pose `s`,
//!   the real distance `d(s)` (tree search cut off at what can still be reached before the
//!   current step size) allows `s ← s + (d(s) − target)/μ`, since no point moves faster
//!   than `μ` relative to the other body. It stops when `d ≤ target + tol`.
//! * **Widening** (§5): the target is `m − w` with `w` = [`WIDENING`] × `m`, so a step ends
//!   with the halos overlapping by a finite depth (not just touching), and the next step
//!   starts with the pair touching — the step size does not collapse on the next sweep.
//! * **Contact-depth guard** (our addition): a touching pair that may still approach at the
//!   speed `u` (centres closing along their line, or towards an obstacle's box, plus the
//!   rotation terms) limits the step to `GUARD × m / u`, so no resting pair is pushed more
//!   than half a margin deeper within one step. Separating pairs and pairs at rest relative
//!   to each other are not limited (Def. 2.2).
//!
//! Motion bounds `μ` [m/s] over the span `S`: particle pairs `|v_a − v_b| + |ω_a| R_a +
//! |ω_b| R_b` (gravity cancels); particle–obstacle `|v_a| + ½|g| S + |ω_a| R_a`.

use super::distance::{min_distance, DistanceScratch, Posed, Witness};
use super::snapshot::Snapshot;
use crate::model::{Model, Other};
use crate::state::Body;
use msdem_geom::math::{Iso3, Vec3};
use msdem_tree::SurrogateTree;

/// Widening depth as a fraction of the pair's margin [-] (see the module docs).
pub const WIDENING: f64 = 0.25;
/// Contact-depth guard as a fraction of the pair's margin [-] (see the module docs).
pub const GUARD: f64 = 0.5;
/// Cut-off of one distance search in margins [-]: a search only needs to find distances up
/// to a few margins (nearer answers decide contact; a farther pair advances by the cut-off),
/// which keeps the branch and bound small.
pub const SEARCH_REACH: f64 = 4.0;
/// Most conservative-advancement iterations per pair; a pair that needs more limits the
/// step to where it got (a narrowing without contact).
pub const MAX_ADVANCE: u32 = 64;

/// The outcome of narrowing one cluster.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Narrowed {
    /// Effective time step size \[s\] (≤ the span).
    pub dt: f64,
    /// True when `dt` ends at a proper contact (a collision, not the span or a guard).
    pub collision: bool,
    /// Conservative-advancement iterations (distance searches after the first).
    pub iterations: u32,
    /// Triangle-pair kernel calls of the searches.
    pub checks: u64,
}

/// One pair to narrow, with its start distance.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    lower: f64,
    a: usize,
    b: Other,
    margin: f64,
    mu: f64,
    d0: f64,
    /// The real pair of the start distance (seeds the advancement's searches).
    witness: Witness,
    /// Index of the pair in the input (where its last witness goes).
    pair: usize,
}

/// Reusable buffers of the narrowing.
#[derive(Debug, Default)]
pub struct NarrowScratch {
    distance: DistanceScratch,
    candidates: Vec<Candidate>,
    /// Every search from the roots, no witness (the reference of the reuse tests).
    from_roots: bool,
}

impl NarrowScratch {
    /// Empty buffers; with `from_roots` every distance search starts from the trees'
    /// roots, without the witness of the pair's previous search ([`super::distance`]).
    pub fn searching(from_roots: bool) -> Self {
        NarrowScratch {
            from_roots,
            ..NarrowScratch::default()
        }
    }
}

/// What a cluster's narrowing reads: the model, its particles' static data and their
/// consolidated snapshots (cluster-local indices), gravity.
#[derive(Clone, Copy, Debug)]
pub struct ClusterView<'a> {
    /// Model (shapes, obstacles).
    pub model: &'a Model,
    /// Cluster particles (mass properties, shape, halo; poses ignored).
    pub bodies: &'a [Body],
    /// Consolidated snapshots at the cluster's time stamp, like `bodies`.
    pub states: &'a [Snapshot],
    /// Gravity [m/s²].
    pub gravity: Vec3,
}

impl ClusterView<'_> {
    fn tree_of(&self, i: usize) -> Option<&SurrogateTree> {
        let shape = self.model.shapes.get(self.bodies[i].shape as usize)?;
        shape.geometry.tree().map(|t| &**t)
    }

    fn particle_at(&self, i: usize, s: f64) -> Option<Posed<'_>> {
        let b = &self.bodies[i];
        let shape = self.model.shapes.get(b.shape as usize)?;
        let st = self.states[i].flown(s, &self.gravity);
        let rot = st.orientation;
        let pose = Iso3::from_parts((st.position - rot * shape.com).into(), rot);
        Some(Posed {
            tree: self.tree_of(i)?,
            pose,
        })
    }

    fn other_at(&self, b: Other, s: f64) -> Option<Posed<'_>> {
        match b {
            Other::Particle(j) => self.particle_at(j as usize, s),
            Other::Obstacle(o) => {
                let ob = self.model.obstacles.get(o as usize)?;
                Some(Posed {
                    tree: ob.geometry.tree()?,
                    pose: ob.pose,
                })
            }
        }
    }

    fn margin(&self, a: usize, b: Other) -> f64 {
        self.bodies[a].epsilon
            + match b {
                Other::Particle(j) => self.bodies[j as usize].epsilon,
                Other::Obstacle(o) => self.model.obstacles[o as usize].epsilon,
            }
    }

    /// Bounding radius \[m\] of particle `i`'s contact surface about its centre (its
    /// radius plus its [`crate::detect::broad::surface_reach`]; the radius with facets).
    fn outer(&self, i: usize) -> f64 {
        let b = &self.bodies[i];
        b.radius + crate::detect::broad::surface_reach(self.model, b)
    }

    /// A lower bound of the real-mesh distance of the pair at the start from bounding
    /// spheres (particle) and boxes (obstacle, whose box includes its halo) \[m\].
    fn sphere_gap(&self, a: usize, b: Other) -> f64 {
        let (ca, ra) = (self.states[a].position, self.outer(a));
        match b {
            Other::Particle(j) => {
                let j = j as usize;
                (ca - self.states[j].position).norm() - ra - self.outer(j)
            }
            Other::Obstacle(o) => {
                let ob = &self.model.obstacles[o as usize];
                let closest = ca.sup(&ob.aabb.0).inf(&ob.aabb.1);
                (closest - ca).norm() - ra - ob.epsilon
            }
        }
    }

    /// A bound of the speed at which the pair can approach [m/s] (for the contact-depth
    /// guard of touching pairs): the approach of the centres along their connecting line
    /// (particles) or along the direction from the obstacle's box (obstacles), plus the
    /// rotation terms and, for obstacles, gravity; the full motion bound where no direction
    /// is defined.
    fn approach_bound(&self, a: usize, b: Other, span: f64) -> f64 {
        let (sa, ra) = (&self.states[a], self.outer(a));
        let spin_a = sa.angular_velocity.norm() * ra;
        match b {
            Other::Particle(j) => {
                let (sb, rb) = (&self.states[j as usize], self.outer(j as usize));
                let d = sa.position - sb.position;
                let len = d.norm();
                if len > 0.0 {
                    let closing = -(sa.velocity - sb.velocity).dot(&d) / len;
                    closing.max(0.0) + spin_a + sb.angular_velocity.norm() * rb
                } else {
                    self.motion_bound(a, b, span)
                }
            }
            Other::Obstacle(o) => {
                let ob = &self.model.obstacles[o as usize];
                let c = sa.position;
                let d = c - c.sup(&ob.aabb.0).inf(&ob.aabb.1);
                let len = d.norm();
                if len > 0.0 {
                    let closing = -sa.velocity.dot(&d) / len;
                    closing.max(0.0) + 0.5 * self.gravity.norm() * span + spin_a
                } else {
                    self.motion_bound(a, b, span)
                }
            }
        }
    }

    fn motion_bound(&self, a: usize, b: Other, span: f64) -> f64 {
        let (sa, ra) = (&self.states[a], self.outer(a));
        match b {
            Other::Particle(j) => {
                let (sb, rb) = (&self.states[j as usize], self.outer(j as usize));
                (sa.velocity - sb.velocity).norm()
                    + sa.angular_velocity.norm() * ra
                    + sb.angular_velocity.norm() * rb
            }
            Other::Obstacle(_) => {
                sa.velocity.norm()
                    + 0.5 * self.gravity.norm() * span
                    + sa.angular_velocity.norm() * ra
            }
        }
    }
}

/// The effective time step size of a cluster over `[0, span]` (relative to its time stamp)
/// for the particle pairs `pairs` (cluster-local `(a, Particle(b))` or `(a, Obstacle(k))`);
/// see the module docs. `None` when a particle or obstacle has no surrogate tree (only mesh
/// particles take part in local time stepping).
///
/// `witnesses` holds one [`Witness`] per pair: the real triangle pair of the pair's last
/// distance search (from the previous narrowing, [`super::witnesses`]), which seeds its
/// searches; on return it holds the pair of each pair's last search (unchanged for pairs
/// not searched). The result does not depend on them ([`super::distance`]).
pub fn narrow(
    view: &ClusterView,
    pairs: &[(usize, Other)],
    witnesses: &mut [Witness],
    span: f64,
    scratch: &mut NarrowScratch,
) -> Option<Narrowed> {
    let mut out = Narrowed {
        dt: span,
        ..Narrowed::default()
    };
    let NarrowScratch {
        distance,
        candidates,
        from_roots,
    } = scratch;
    let reuse = !*from_roots;
    if !reuse {
        witnesses.iter_mut().for_each(|w| *w = None);
    }
    candidates.clear();
    // Start distances: Def. 2.2 and the bounds that order the search.
    for (pair, &(a, b)) in pairs.iter().enumerate() {
        let margin = view.margin(a, b);
        let mu = view.motion_bound(a, b, span);
        if mu.is_nan() || mu <= 0.0 {
            continue;
        }
        let cutoff = margin + mu * out.dt;
        let gap = view.sphere_gap(a, b);
        if gap >= cutoff {
            continue;
        }
        let target = margin * (1.0 - WIDENING);
        if gap > margin {
            // Not touching (Def. 2.2 decided by the bounding volumes): the search starts
            // where the bounding volumes could first reach the target.
            candidates.push(Candidate {
                lower: (gap - target) / mu,
                a,
                b,
                margin,
                mu,
                d0: f64::NAN,
                witness: witnesses.get(pair).copied().flatten(),
                pair,
            });
            continue;
        }
        let (pa, pb) = (view.particle_at(a, 0.0)?, view.other_at(b, 0.0)?);
        // Only "touching or not" matters here: a short cut-off keeps the search small.
        let near = cutoff.min(SEARCH_REACH * margin);
        let mut witness = witnesses.get(pair).copied().flatten();
        // Only "within the margin or not" is asked of a distance within it (Def. 2.2).
        let enough = if reuse { margin } else { f64::NEG_INFINITY };
        let d0 = min_distance(
            &pa,
            &pb,
            near,
            enough,
            distance,
            &mut out.checks,
            &mut witness,
        );
        if let Some(w) = witnesses.get_mut(pair) {
            *w = witness;
        }
        let Some(d0) = d0 else {
            if near < cutoff {
                candidates.push(Candidate {
                    lower: (near - target) / mu,
                    a,
                    b,
                    margin,
                    mu,
                    d0: f64::NAN,
                    witness,
                    pair,
                });
            }
            continue;
        };
        if d0 <= margin {
            let approach = view.approach_bound(a, b, span);
            if approach > 0.0 {
                let guard = GUARD * margin / approach;
                if guard < out.dt {
                    out.dt = guard;
                }
            }
            continue;
        }
        candidates.push(Candidate {
            lower: (d0 - target) / mu,
            a,
            b,
            margin,
            mu,
            d0,
            witness,
            pair,
        });
    }
    candidates.sort_by(|x, y| x.lower.total_cmp(&y.lower));
    for c in candidates.iter() {
        if c.lower >= out.dt {
            break;
        }
        let target = c.margin * (1.0 - WIDENING);
        let tol = 0.5 * WIDENING * c.margin;
        let mut s = c.lower;
        let mut d = c.d0;
        let mut k = 0;
        let mut witness = c.witness;
        loop {
            if k > 0 || s > 0.0 || d.is_nan() {
                let (pa, pb) = (view.particle_at(c.a, s)?, view.other_at(c.b, s)?);
                let reach = target + tol + c.mu * (out.dt - s);
                let cutoff = reach.min(target + SEARCH_REACH * c.margin);
                out.iterations += 1;
                if !reuse {
                    witness = None;
                }
                // Only "contact reached or not" is asked of a distance within it.
                let enough = if reuse {
                    target + tol
                } else {
                    f64::NEG_INFINITY
                };
                let found = min_distance(
                    &pa,
                    &pb,
                    cutoff,
                    enough,
                    distance,
                    &mut out.checks,
                    &mut witness,
                );
                match found {
                    // Farther than the cut-off: at least that far, advance by it.
                    None if cutoff < reach => d = cutoff,
                    None => break,
                    Some(x) => d = x,
                }
            }
            if d <= target + tol {
                out.dt = s;
                out.collision = true;
                break;
            }
            k += 1;
            if k > MAX_ADVANCE {
                out.dt = s;
                out.collision = false;
                break;
            }
            s += (d - target) / c.mu;
            if s >= out.dt {
                break;
            }
        }
        if let Some(w) = witnesses.get_mut(c.pair) {
            *w = witness;
        }
    }
    Some(out)
}
