//! Collision of one cluster by sequential impulses, solved implicitly (seed 004 §6, after
//! Catto's sequential impulses, the seed's reference \[2\]).
//!
//! Once the cluster's time step ends at its first contact, the contact points are fixed and
//! only the impulses are unknown. Per contact point `c` with unit normal `n` (from `b`
//! towards `a`) the accumulated normal impulse `P_n ≥ 0` and tangential impulse `P_t`
//! solve the constrained system of §6:
//!
//! * non-penetration: the outgoing relative normal velocity `v_n⁺ ≥ 0`, with
//!   complementarity `P_n·v_n⁺ = 0` after compression: the particles stop approaching at
//!   once (the implicit constraint of §6);
//! * restitution by Poisson's hypothesis: the normal impulse is at least `(1 + e)·P_c`, `P_c`
//!   the compression impulse and `e` the pair's restitution ([`PairParams`]). For one
//!   contact point this is Newton's `v_n⁺ = −e·v_n⁻`; for many simultaneous points,
//!   asking `v_n⁺ ≥ −e·v_n⁻` of each (Newton) can add kinetic energy (a dense packing
//!   quadruples it), whereas Poisson's rule never does for frictionless contacts: the
//!   compression removes `½·P_cᵀ A P_c`, the kick returns `e²` of it (`A` the Delassus
//!   operator). Points approaching slower than [`ImpulseSettings::resting_speed_m_s`] are
//!   resting and get no kick (no bounce, so settled stacks neither jitter nor gain
//!   energy — seed Observation 4);
//! * Coulomb friction: `|P_t| ≤ μ·P_n`, sticking (`v_t⁺ = 0`) when the bound allows,
//!   otherwise sliding with `|P_t| = μ·P_n` (§6, "a simple Coulomb friction model");
//! * impulses act at the contact point, so they change linear and angular velocity
//!   (`Δv = P/M`, `Δω = I_w⁻¹ (r × P)`, world inverse inertia
//!   [`crate::state::Body::world_inv_inertia`]); obstacles have infinite mass.
//!
//! The system is non-linear through the bounds. It is solved by a Picard iteration over the
//! contact points (`impulse/sweep.rs`): each point in turn computes the impulse that meets
//! its own constraint given the current velocities (`impulse/row.rs`), the update is damped
//! (under-relaxation `ω`, [`ImpulseSettings::relaxation`]) and the accumulated impulse is
//! clamped to its bounds. A cluster that the sweeps do not settle within 10 sweeps (a
//! jammed one: redundant contact points, mass ratios) is solved directly by active sets
//! (`impulse/direct.rs`: dense LU for small clusters, a block-sparse LU in body space for
//! up to 4,096 points), the sweeps going on from its result if it is not exact. Two
//! solves: compression (floor 0), then, after the kick, the
//! restitution phase (floor `(1 + e)·P_c`), which also stops points that the kick of others
//! drives together. Contact points are updated in parallel by graph colouring
//! (`impulse/colour.rs`): points of one colour share no particle, colours run in a fixed
//! order, so the result is the same at any thread count. A position-only separation term
//! (`impulse/separation.rs`) then pushes particles that sink deeper than half the halo
//! apart, without touching velocities (§6: particles pressed together over many steps).

mod colour;
mod coulomb;
mod direct;
mod relaxed;
mod row;
mod separation;
mod sweep;
mod validate;

use crate::contact::pair::PairParams;
use crate::contact::Contact;
use crate::error::StepError;
use crate::model::{Model, Other};
use crate::state::Body;
use msdem_geom::math::Vec3;

use colour::Colouring;
use row::Row;
use separation::SeparationRow;

/// Settings of the sequential-impulse collision solver (seed 004 §6). Values outside
/// their ranges are clamped into them; a NaN value takes its default.
#[derive(Clone, Debug, PartialEq)]
pub struct ImpulseSettings {
    /// Most Picard sweeps over the contact points per cluster.
    pub max_iterations: u32,
    /// Sweeps stop when the largest change of an accumulated contact impulse (normal and
    /// friction together), relative to the largest accumulated impulse, is below this.
    pub tolerance: f64,
    /// Damping of the impulse updates (under-relaxation ω in (0, 1]).
    pub relaxation: f64,
    /// Fraction in [0, 1] of the halo violation removed per collision by the separation
    /// (position-only) term.
    pub separation_fraction: f64,
    /// Approach speed below which a contact is resting and does not bounce (outgoing
    /// normal velocity 0 instead of `e` times the approach speed) [m/s]. Set it at least
    /// to the speed gravity adds in one cluster step, `|g|·Δt`.
    pub resting_speed_m_s: f64,
    /// Largest cluster (contact points) whose direct solve uses the dense LU
    /// (`impulse/direct/dense.rs`); larger clusters, up to 4,096 points, are solved in body
    /// space by a block-sparse LU (`impulse/direct/sparse.rs`). Both solve the same active-set
    /// system; the dense one is faster on small clusters.
    pub dense_max_points: u32,
    /// Where the semismooth Newton solve (`impulse/direct/newton.rs`) is used.
    pub newton: NewtonUse,
    /// Most steps of the fallback (`impulse/relaxed.rs`: the convex relaxation of the
    /// Coulomb problem by accelerated projected gradients) for a velocity solve that the
    /// sweeps and the direct solves leave unconverged; 0 switches the fallback off.
    pub fallback_iterations: u32,
    /// Tolerance of the fallback relative to the collision's speed scale (the fastest
    /// relative contact motion before any impulse, at least the resting speed): it stops
    /// when its natural residual (`impulse/relaxed.rs`) is below this times the scale.
    pub fallback_tolerance: f64,
    /// Most passes of the fixed point on de Saxcé's shift after the fallback's relaxed
    /// solve (`impulse/coulomb.rs`): each re-solves the relaxation with the normal
    /// velocities shifted by `μ·|v_t|` of the previous pass, towards Coulomb's solution
    /// (the relaxed one lets sliding points separate at `μ·|v_t|`); 0 keeps the relaxed
    /// solution.
    pub coulomb_passes: u32,
}

/// Where a cluster's direct solve uses the semismooth Newton method
/// (`impulse/direct/newton.rs`) besides the active sets (`impulse/direct.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewtonUse {
    /// Never: active sets only.
    Off,
    /// In clusters above [`ImpulseSettings::dense_max_points`] whose active-set solve
    /// failed, from the better of its result and the sweeps' iterate; after a Newton try
    /// that stalled on a flat stretch of its merit, the collision's later direct tries use
    /// the active sets alone.
    Large,
    /// In every cluster whose active-set solve failed (after a stalled try as in
    /// [`NewtonUse::Large`]).
    Always,
    /// In clusters above [`ImpulseSettings::dense_max_points`] instead of the active sets.
    Instead,
}

impl Default for ImpulseSettings {
    /// 200 sweeps at most; tolerance 1e-8 (an impulse converged to ~8 digits); relaxation
    /// 0.9 (damped, as in seed 004 §6, yet a single contact converges by a factor 10 per
    /// sweep); separation fraction 0.2 (a slow push, the seed's "slowly separate");
    /// resting speed 1e-2 m/s (gravity during a 1 ms step); dense direct solve up to 32
    /// points.
    fn default() -> Self {
        ImpulseSettings {
            max_iterations: 200,
            tolerance: 1e-8,
            relaxation: 0.9,
            separation_fraction: 0.2,
            resting_speed_m_s: 1e-2,
            dense_max_points: direct::DENSE_MAX_ROWS as u32,
            newton: NewtonUse::Large,
            fallback_iterations: FALLBACK_ITERATIONS,
            fallback_tolerance: FALLBACK_TOLERANCE,
            coulomb_passes: COULOMB_PASSES,
        }
    }
}

/// Default most steps of the fallback ([`ImpulseSettings::fallback_iterations`]).
pub const FALLBACK_ITERATIONS: u32 = 20_000;
/// Default tolerance of the fallback ([`ImpulseSettings::fallback_tolerance`]).
pub const FALLBACK_TOLERANCE: f64 = 1e-6;
/// Default most passes of the fixed point towards Coulomb ([`ImpulseSettings::coulomb_passes`]).
pub const COULOMB_PASSES: u32 = 32;
/// The fixed point towards Coulomb stops when the exact conditions hold to this many times
/// the fallback's velocity tolerance (its passes are solved to that tolerance).
const COULOMB_ACCEPT: f64 = 10.0;

/// What one call reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImpulseReport {
    /// Picard sweeps of the velocity solve.
    pub iterations: u32,
    /// Whether the velocity solve reached [`ImpulseSettings::tolerance`].
    pub converged: bool,
    /// Colours of the contact graph used for the parallel update.
    pub colours: u32,
    /// Contact points that received a non-zero impulse.
    pub active_contacts: u32,
    /// Final relative residual.
    pub residual: f64,
    /// Direct solves taken (`impulse/direct.rs`).
    pub direct: u32,
    /// Velocity solves (of the compression and the restitution phase) settled by the
    /// fallback, the convex relaxation (`impulse/relaxed.rs`).
    pub relaxed: u32,
    /// Steps of the fallback, over both phases (the passes towards Coulomb included).
    pub relaxed_iterations: u32,
    /// Passes of the fixed point towards Coulomb (`impulse/coulomb.rs`), over both phases.
    pub coulomb_passes: u32,
    /// Largest violation of the exact contact conditions of §6 in the outgoing velocities
    /// [m/s]: the approach speed, `|v_n|` where a point pushes, `|v_t|` inside the friction
    /// disc, `v_t` not opposed to the impulse on its rim. After the fallback it is what
    /// the passes towards Coulomb (`impulse/coulomb.rs`) left of the relaxation's normal
    /// separation `μ·|v_t|` of sliding points (or the part of the conditions left unmet
    /// where nothing converged).
    pub complementarity: f64,
}

/// Reusable buffers (one per worker; no allocation in the steady state).
#[derive(Debug, Default)]
pub struct ImpulseScratch {
    /// Working velocities of the cluster's particles.
    state: sweep::Velocities,
    /// One row per touching contact point, sorted by colour.
    rows: Vec<Row>,
    /// Position rows of the separation term, in the order of `rows`.
    separation: Vec<SeparationRow>,
    /// Translations of the separation term per particle \[m\].
    shifts: Vec<Vec3>,
    /// Touching contact points: index into the contacts and the pair's parameters.
    touching: Vec<(u32, PairParams)>,
    /// Their particles, the edges of the contact graph.
    edges: Vec<(u32, Option<u32>)>,
    /// Contact-graph colouring.
    colouring: Colouring,
    /// Buffers of the direct solve of jammed clusters.
    direct: direct::Direct,
    /// Buffers of the fallback (`impulse/relaxed.rs`, `impulse/coulomb.rs`).
    relaxed: coulomb::Coulomb,
}

/// Resolves the collisions of one cluster at its common time stamp (seed 004 §6).
/// `bodies` are the cluster's particles only (cluster-local indices 0..n); in `contacts`,
/// `a` and `b = Other::Particle(j)` are cluster-local indices, `Other::Obstacle(k)` indexes
/// `model.obstacles` (infinite mass). Contacts are the merged contact points of
/// `crate::contact` (normal from b towards a; `dist` = distance of the real surfaces, so the
/// pair touches when `dist <= margin` of `crate::contact::pair::PairParams::of`; contacts
/// farther apart are ignored).
/// Changes velocities and angular velocities by impulses (restitution of the pair's
/// `PairParams`, Coulomb friction impulse |J_t| <= μ·J_n), and positions only by the
/// separation term (it never changes velocities). Deterministic; never panics on finite input;
/// non-finite input gives `Err(StepError::NonFinite{..})` (see `crate::error`), a contact
/// naming a body that does not exist `Err(StepError::InvalidContact{..})`; both with
/// `step` 0 and cluster-local particle indices (the caller maps them), and `bodies`
/// unchanged.
pub fn resolve_cluster(
    model: &Model,
    bodies: &mut [Body],
    contacts: &[Contact],
    settings: &ImpulseSettings,
    scratch: &mut ImpulseScratch,
) -> Result<ImpulseReport, StepError> {
    let mut impulses = Vec::new();
    resolve_cluster_warm(
        model,
        bodies,
        contacts,
        &[],
        settings,
        scratch,
        &mut impulses,
    )
}

/// [`resolve_cluster`] with a warm start: `warm[i]` (world, on `a`) [N·s] is the impulse
/// contact `i` starts from if it is resting (missing entries, and `warm` shorter than
/// `contacts`, start from 0; non-finite ones are ignored; impacts always start from 0), typically the impulse of the same persistent contact at
/// the previous collision. The converged impulses are the same as from a cold start (the
/// compression solve converges to its solution from any start); only the sweeps they take
/// change. `impulses` receives the accumulated impulse of every contact after the solve
/// (world, on `a`; zero for contacts that do not touch), in the order of `contacts`.
pub fn resolve_cluster_warm(
    model: &Model,
    bodies: &mut [Body],
    contacts: &[Contact],
    warm: &[Vec3],
    settings: &ImpulseSettings,
    scratch: &mut ImpulseScratch,
    impulses: &mut Vec<Vec3>,
) -> Result<ImpulseReport, StepError> {
    impulses.clear();
    validate::input(model, bodies, contacts)?;
    let defaults = ImpulseSettings::default();
    let omega = sanitised(
        settings.relaxation,
        defaults.relaxation,
        f64::MIN_POSITIVE,
        1.0,
    );
    let fraction = sanitised(
        settings.separation_fraction,
        defaults.separation_fraction,
        0.0,
        1.0,
    );
    let resting = sanitised(
        settings.resting_speed_m_s,
        defaults.resting_speed_m_s,
        0.0,
        f64::MAX,
    );
    let tolerance = sanitised(settings.tolerance, defaults.tolerance, 0.0, f64::MAX);

    // Touching contact points and the colouring of their graph.
    scratch.state.load(bodies);
    scratch.touching.clear();
    scratch.edges.clear();
    for (i, c) in contacts.iter().enumerate() {
        let pair = PairParams::of(model, bodies, c.a, c.b);
        if c.dist <= pair.margin {
            scratch.touching.push((i as u32, pair));
            scratch.edges.push((c.a, particle(c.b)));
        }
    }
    scratch.colouring.colour(bodies.len(), &scratch.edges);
    scratch.rows.clear();
    scratch.separation.clear();
    for &k in scratch.colouring.order() {
        let (i, pair) = &scratch.touching[k as usize];
        let c = &contacts[*i as usize];
        let b = particle(c.b);
        let state = &scratch.state;
        scratch
            .rows
            .push(Row::new(c, b, pair, bodies, state, resting).with_contact(*i));
        scratch
            .separation
            .push(SeparationRow::new(c, b, pair.margin, fraction, state));
    }
    let ranges = scratch.colouring.ranges();

    // Velocity solve (§6): compression, Poisson's restitution kick, restitution phase.
    let mut report = ImpulseReport {
        colours: ranges.len() as u32,
        converged: true,
        ..ImpulseReport::default()
    };
    // Warm start: the previous impulses, projected onto the constraints, applied once.
    for row in scratch.rows.iter_mut() {
        if let Some(p) = warm.get(row.contact() as usize) {
            if row.warm(p) {
                row.apply(&mut scratch.state);
            }
        }
    }
    // Velocity scale of the direct solve's tolerance: the fastest relative contact motion
    // before any impulse, at least the resting speed.
    let speed = scratch
        .rows
        .iter()
        .map(|row| row.relative_speed(&scratch.state))
        .fold(resting, f64::max);
    let mut picard = Picard {
        max_iterations: settings.max_iterations,
        tolerance,
        omega,
        tol_v: tolerance * speed,
        dense_max: settings.dense_max_points as usize,
        newton: settings.newton,
        newton_setting: settings.newton,
        fallback: settings.fallback_iterations,
        fallback_tol_v: sanitised(
            settings.fallback_tolerance,
            defaults.fallback_tolerance,
            0.0,
            f64::MAX,
        ) * speed,
        coulomb_passes: settings.coulomb_passes,
        direct: &mut scratch.direct,
        relaxed: &mut scratch.relaxed,
    };
    picard.solve(&mut scratch.rows, ranges, &mut scratch.state, &mut report);
    let mut kicked = false;
    for row in scratch.rows.iter_mut() {
        if row.kick() {
            row.apply(&mut scratch.state);
            kicked = true;
        }
    }
    if kicked {
        picard.solve(&mut scratch.rows, ranges, &mut scratch.state, &mut report);
    }
    report.active_contacts = scratch.rows.iter().filter(|r| r.is_active()).count() as u32;

    // Separation: translations only, the same colours, never a velocity.
    scratch.shifts.clear();
    scratch.shifts.resize(bodies.len(), Vec3::zeros());
    if scratch.separation.iter().any(|s| s.target > 0.0) {
        let mut positional = separation::Shifts {
            inv_mass: &scratch.state.inv_mass,
            shift: &mut scratch.shifts,
        };
        for _ in 0..settings.max_iterations.max(1) {
            let change = sweep::sweep(
                &mut scratch.separation,
                ranges,
                &mut positional,
                |row, s| row.solve(s),
                |row, s| row.apply(s),
            );
            let largest = scratch
                .separation
                .iter()
                .map(|s| s.accumulated)
                .fold(0.0, f64::max);
            if change <= tolerance * largest {
                break;
            }
        }
    }

    validate::output(&scratch.state, &scratch.shifts)?;
    impulses.resize(contacts.len(), Vec3::zeros());
    for row in &scratch.rows {
        impulses[row.contact() as usize] = row.impulse();
    }
    for (i, body) in bodies.iter_mut().enumerate() {
        body.velocity = scratch.state.velocity[i];
        body.angular_velocity = scratch.state.angular[i];
        body.position += scratch.shifts[i];
    }
    Ok(report)
}

/// Damped Picard sweeps until the relative impulse change is below the tolerance, with a
/// direct solve of jammed clusters that the sweeps do not settle quickly.
struct Picard<'a> {
    max_iterations: u32,
    tolerance: f64,
    omega: f64,
    /// Velocity tolerance of the direct solve [m/s].
    tol_v: f64,
    /// Largest cluster solved by the dense direct solve.
    dense_max: usize,
    /// Where the direct solve uses the semismooth Newton method.
    newton: NewtonUse,
    /// Where the settings use Newton (`newton` is switched off by the cost guard).
    newton_setting: NewtonUse,
    /// Most steps of the fallback (0: off).
    fallback: u32,
    /// Velocity tolerance of the fallback [m/s].
    fallback_tol_v: f64,
    /// Most passes of the fixed point towards Coulomb after the fallback.
    coulomb_passes: u32,
    direct: &'a mut direct::Direct,
    relaxed: &'a mut coulomb::Coulomb,
}

/// Sweeps after which a cluster not yet converged is solved directly (`impulse/direct.rs`):
/// after 10 the sweeps have sorted most points (pushing or open, sticking or sliding), the
/// later tries start from a better sorting.
const DIRECT_AT: [u32; 3] = [10, 50, 150];

impl Picard<'_> {
    /// Sweeps `rows` (sorted by colour, `ranges`) until converged or out of sweeps; adds
    /// the sweeps to `report` and sets its residual; `converged` stays true only if this
    /// solve converged too.
    fn solve(
        &mut self,
        rows: &mut [Row],
        ranges: &[std::ops::Range<usize>],
        state: &mut sweep::Velocities,
        report: &mut ImpulseReport,
    ) {
        if rows.is_empty() {
            return;
        }
        let mut converged = false;
        // Direct tries stop after one that changed nothing (its work is then wasted).
        let mut try_direct = rows.len() <= direct::DIRECT_MAX_ROWS;
        for sweep in 0..self.max_iterations {
            if try_direct && DIRECT_AT.contains(&sweep) {
                match self
                    .direct
                    .solve(rows, state, self.tol_v, self.dense_max, self.newton)
                {
                    direct::Outcome::Solved => report.direct += 1,
                    direct::Outcome::Improved => {}
                    direct::Outcome::Failed => try_direct = false,
                }
                // A Newton try that stalled on a flat stretch of its merit mostly fails
                // again from the sweeps' next iterate: the later direct tries of this
                // collision use the active sets alone (`impulse/direct/newton.rs`).
                if self.direct.newton_stalled()
                    && matches!(self.newton, NewtonUse::Large | NewtonUse::Always)
                {
                    self.newton = NewtonUse::Off;
                }
            }
            let change = sweep::sweep(
                rows,
                ranges,
                state,
                |row, state| row.solve(state, self.omega),
                |row, state| row.apply(state),
            );
            report.iterations += 1;
            let largest = rows.iter().map(Row::impulse_norm).fold(0.0, f64::max);
            report.residual = if largest > 0.0 { change / largest } else { 0.0 };
            if report.residual <= self.tolerance {
                converged = true;
                break;
            }
        }
        if !converged && self.fallback > 0 {
            // The fallback from the sweeps' iterate (which kept the better of the direct
            // solves' results): converges by construction (`impulse/relaxed.rs`).
            let outcome = self.relaxed.solve(
                rows,
                state,
                self.fallback_tol_v,
                self.fallback,
                self.coulomb_passes,
                COULOMB_ACCEPT * self.fallback_tol_v,
            );
            report.relaxed_iterations += outcome.iterations;
            report.coulomb_passes += outcome.passes;
            if outcome.relaxed.converged {
                report.relaxed += 1;
                converged = true;
                self.polish(rows, state, report);
            }
        }
        report.complementarity = direct::worst(rows, state);
        report.converged &= converged;
    }
}

impl Picard<'_> {
    /// One exact direct try (active sets, then Newton; none where the settings switch
    /// Newton off, [`NewtonUse::Off`]) from the fallback's relaxed
    /// solution, which often lies close to the exact one: if it meets every exact condition
    /// (`impulse/direct.rs`'s acceptance rule) it replaces the relaxed solution and the
    /// solve counts as direct, otherwise the relaxed solution is restored. On `cube_stacks`
    /// it leaves 490 relaxed solves of 581 at the same CPU time (docs/performance.md,
    /// "Fallback: the convex relaxation").
    fn polish(
        &mut self,
        rows: &mut [Row],
        state: &mut sweep::Velocities,
        report: &mut ImpulseReport,
    ) {
        // Not where the settings switch Newton off, nor where the cost guard has (a Newton
        // try of this collision stalled: on the tower's impact clusters the polish then
        // rarely succeeds, 68 of 2,739 relaxed solves, at 23 % more CPU time).
        if rows.len() > direct::DIRECT_MAX_ROWS
            || self.newton_setting == NewtonUse::Off
            || self.newton == NewtonUse::Off
        {
            return;
        }
        let saved: Vec<_> = rows.iter().map(|r| (r.pn, r.pt)).collect();
        let before = (state.velocity.clone(), state.angular.clone());
        // Newton at any size.
        let newton = NewtonUse::Always;
        match self
            .direct
            .solve(rows, state, self.tol_v, self.dense_max, newton)
        {
            direct::Outcome::Solved => {
                report.relaxed -= 1;
                report.direct += 1;
            }
            direct::Outcome::Improved | direct::Outcome::Failed => {
                for (row, (pn, pt)) in rows.iter_mut().zip(saved) {
                    row.accept(pn, pt);
                }
                (state.velocity, state.angular) = before;
            }
        }
    }
}

/// The cluster particle on side `b` of a contact, `None` for an obstacle.
fn particle(b: Other) -> Option<u32> {
    match b {
        Other::Particle(j) => Some(j),
        Other::Obstacle(_) => None,
    }
}

/// `value` clamped to `[lo, hi]`, or `default` when it is NaN.
fn sanitised(value: f64, default: f64, lo: f64, hi: f64) -> f64 {
    if value.is_nan() {
        default
    } else {
        value.clamp(lo, hi)
    }
}
