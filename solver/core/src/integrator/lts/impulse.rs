//! Sequential-impulse collision solver of one cluster (seed 004 §6).
//!
//! **Provisional version of the core branch** (the interface is fixed by the lead; the
//! impulse branch replaces this file at merge): a plain sequential (Gauss–Seidel) impulse
//! per contact point with restitution, no friction, no graph colouring, plus the
//! position-only separation term of §6. Per contact `c` with normal `n` (from `b` to `a`),
//! lever arms `r_a`, `r_b` and the normal velocity `u_n = n·(v_a + ω_a×r_a − v_b − ω_b×r_b)`:
//!
//! ```text
//! target_c = −e·min(u_n⁻, 0)                    (u_n⁻: before any impulse)
//! k_c      = 1/M_a + 1/M_b + n·(I_a⁻¹(r_a×n))×r_a + n·(I_b⁻¹(r_b×n))×r_b
//! P_c      ← max(0, P_c + ω_relax·(target_c − u_n)/k_c)   (accumulated, ≥ 0)
//! ```
//!
//! swept over the contacts until the largest change of an accumulated impulse is below
//! `tolerance` × the largest accumulated impulse (Picard over contact points, §6).

use crate::contact::pair::PairParams;
use crate::contact::Contact;
use crate::error::StepError;
use crate::model::{Model, Other};
use crate::state::Body;
use msdem_geom::math::{Mat3, Vec3};

/// Settings of the sequential-impulse collision solver (seed 004 §6).
#[derive(Clone, Debug, PartialEq)]
pub struct ImpulseSettings {
    /// Most Picard sweeps over the contact points per cluster.
    pub max_iterations: u32,
    /// Sweeps stop when the largest change of an accumulated normal impulse, relative to the
    /// largest accumulated normal impulse, is below this.
    pub tolerance: f64,
    /// Damping of the impulse updates (under-relaxation ω in (0, 1]).
    pub relaxation: f64,
    /// Fraction in [0, 1] of the halo violation removed per collision by the separation
    /// (position-only) term.
    pub separation_fraction: f64,
}

impl Default for ImpulseSettings {
    /// 200 sweeps, tolerance 1e-9 (tight: the two-body results are exact after one sweep),
    /// no damping (ω = 1), half of the halo overlap removed per collision.
    fn default() -> Self {
        ImpulseSettings {
            max_iterations: 200,
            tolerance: 1e-9,
            relaxation: 1.0,
            separation_fraction: 0.5,
        }
    }
}

/// What one call reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImpulseReport {
    /// Sweeps run.
    pub iterations: u32,
    /// True when the sweeps met the tolerance.
    pub converged: bool,
    /// Colours of the contact graph used for the parallel update (1: sequential).
    pub colours: u32,
    /// Contact points that received a non-zero impulse.
    pub active_contacts: u32,
    /// Final relative residual.
    pub residual: f64,
}

/// Reusable buffers (one per worker; no allocation in the steady state).
#[derive(Debug, Default)]
pub struct ImpulseScratch {
    rows: Vec<Row>,
    moved: Vec<Vec3>,
}

/// One contact's constant data during the sweeps.
#[derive(Clone, Copy, Debug)]
struct Row {
    a: usize,
    b: Option<usize>,
    n: Vec3,
    ra: Vec3,
    rb: Vec3,
    /// Inverse world inertia of `a` (and `b`).
    ia: Mat3,
    ib: Mat3,
    k: f64,
    target: f64,
    impulse: f64,
    violation: f64,
}

fn normal_velocity(bodies: &[Body], r: &Row) -> f64 {
    let a = &bodies[r.a];
    let mut u = a.velocity + a.angular_velocity.cross(&r.ra);
    if let Some(b) = r.b {
        let b = &bodies[b];
        u -= b.velocity + b.angular_velocity.cross(&r.rb);
    }
    u.dot(&r.n)
}

fn apply(bodies: &mut [Body], r: &Row, p: f64) {
    let j = p * r.n;
    {
        let a = &mut bodies[r.a];
        a.velocity += j / a.mass;
        a.angular_velocity += r.ia * r.ra.cross(&j);
    }
    if let Some(b) = r.b {
        let b = &mut bodies[b];
        b.velocity -= j / b.mass;
        b.angular_velocity -= r.ib * r.rb.cross(&j);
    }
}

/// Resolves the collisions of one cluster at its common time stamp (seed 004 §6).
/// `bodies` are the cluster's particles only (cluster-local indices 0..n); in `contacts`,
/// `a` and `b = Other::Particle(j)` are cluster-local indices, `Other::Obstacle(k)` indexes
/// `model.obstacles` (infinite mass). Changes velocities and angular velocities by impulses,
/// and positions only by the separation term (it never changes velocities). Deterministic;
/// never panics on finite input; non-finite input gives `Err(StepError::NonFinite{..})`.
pub fn resolve_cluster(
    model: &Model,
    bodies: &mut [Body],
    contacts: &[Contact],
    settings: &ImpulseSettings,
    scratch: &mut ImpulseScratch,
) -> Result<ImpulseReport, StepError> {
    if let Some((particle, quantity)) = crate::motion::first_non_finite(bodies) {
        return Err(StepError::NonFinite {
            step: 0,
            particle,
            quantity,
        });
    }
    let ImpulseScratch { rows, moved } = scratch;
    rows.clear();
    for c in contacts {
        let a = c.a as usize;
        let (b, xb, ib, mb_ok) = match c.b {
            Other::Particle(j) => {
                let j = j as usize;
                match bodies.get(j) {
                    Some(bb) => (Some(j), bb.position, bb.world_inv_inertia(), true),
                    None => (None, Vec3::zeros(), Mat3::zeros(), false),
                }
            }
            Other::Obstacle(_) => (None, c.point, Mat3::zeros(), true),
        };
        let Some(ba) = bodies.get(a) else { continue };
        if !mb_ok
            || !c.normal.iter().all(|x| x.is_finite())
            || !c.point.iter().all(|x| x.is_finite())
        {
            continue;
        }
        let params = PairParams::of(model, bodies, c.a, c.b);
        let n = c.normal;
        let ra = c.point - ba.position;
        let rb = c.point - xb;
        let ia = ba.world_inv_inertia();
        let mut k = 1.0 / ba.mass + n.dot(&(ia * ra.cross(&n)).cross(&ra));
        if let Some(j) = b {
            k += 1.0 / bodies[j].mass + n.dot(&(ib * rb.cross(&n)).cross(&rb));
        }
        if !(k.is_finite() && k > 0.0) {
            continue;
        }
        let mut row = Row {
            a,
            b,
            n,
            ra,
            rb,
            ia,
            ib,
            k,
            target: 0.0,
            impulse: 0.0,
            violation: (params.margin - c.dist).max(0.0),
        };
        let u = normal_velocity(bodies, &row);
        row.target = -params.restitution * u.min(0.0);
        rows.push(row);
    }
    let mut report = ImpulseReport {
        colours: 1,
        converged: true,
        ..ImpulseReport::default()
    };
    let omega = settings.relaxation.clamp(f64::MIN_POSITIVE, 1.0);
    for it in 0..settings.max_iterations.max(1) {
        let mut largest_change: f64 = 0.0;
        for r in rows.iter_mut() {
            let u = normal_velocity(bodies, r);
            let new = (r.impulse + omega * (r.target - u) / r.k).max(0.0);
            let delta = new - r.impulse;
            if delta != 0.0 {
                apply(bodies, r, delta);
                r.impulse = new;
            }
            largest_change = largest_change.max(delta.abs());
        }
        let largest = rows.iter().fold(0.0f64, |m, r| m.max(r.impulse));
        report.iterations = it + 1;
        report.residual = if largest > 0.0 {
            largest_change / largest
        } else {
            0.0
        };
        report.converged = report.residual <= settings.tolerance;
        if report.converged {
            break;
        }
    }
    report.active_contacts = rows.iter().filter(|r| r.impulse > 0.0).count() as u32;
    // Separation term: positions only, along the normal, split by inverse mass; swept
    // (Gauss–Seidel) until every contact has received its share, so that a push against
    // one neighbour does not close the gap to another (stacks).
    let f = settings.separation_fraction.clamp(0.0, 1.0);
    if f > 0.0 && !rows.is_empty() {
        moved.clear();
        moved.resize(bodies.len(), Vec3::zeros());
        let largest = rows.iter().fold(0.0f64, |m, r| m.max(r.violation));
        for _ in 0..settings.max_iterations.max(1) {
            let mut worst: f64 = 0.0;
            for r in rows.iter() {
                let wa = 1.0 / bodies[r.a].mass;
                let wb = r.b.map_or(0.0, |j| 1.0 / bodies[j].mass);
                let done = (moved[r.a] - r.b.map_or(Vec3::zeros(), |j| moved[j])).dot(&r.n);
                let need = f * r.violation - done;
                if need > 0.0 {
                    worst = worst.max(need);
                    moved[r.a] += r.n * (need * wa / (wa + wb));
                    if let Some(j) = r.b {
                        moved[j] -= r.n * (need * wb / (wa + wb));
                    }
                }
            }
            if worst <= 1e-6 * largest {
                break;
            }
        }
        for (b, d) in bodies.iter_mut().zip(moved.iter()) {
            b.position += d;
        }
    }
    if let Some((particle, quantity)) = crate::motion::first_non_finite(bodies) {
        return Err(StepError::NonFinite {
            step: 0,
            particle,
            quantity,
        });
    }
    Ok(report)
}
