//! Active-set Newton update of the Picard wrench with a piecewise-linear contact model
//! ([`crate::params::PicardAcceleration::PiecewiseLinear`]).
//!
//! The Newton update of [`super::newton`] linearises only the contacts that push at the
//! current guess. At a large Δt a contact that is open at one guess and closed at the
//! next makes it cycle: where the contact is open its Jacobian has no row for it and the
//! step penetrates; at the next guess the row is there and the step throws the particle
//! out (docs/design.md, "Implicit stepping at large time steps"). This update keeps the
//! kink inside the model. Per outer iteration (one narrow phase) every contact
//! *candidate* `c` — the contacts of the guess, and every contact seen at an earlier guess
//! of the same step (or at its start), its gap carried rigidly to the current guess —
//! gets the piecewise-linear normal force
//!
//! `f̂_c(q) = max(0, φ_c − s_c·J_c·q)`
//!
//! in the generalised accelerations `q` of the update (`ΔW = 𝓜·q`, rows `J_c` and weight
//! `s_c = θ²Δt²·k_c + θΔt·c_c` of [`super::newton`]): `φ_c` is the force at the guess for
//! a closed contact, and `s_c·(margin − gap)/(θ²Δt²) ≤ 0` for an open one — zero force
//! until the update closes its gap. The update solves the model exactly:
//!
//! `𝓜·q = r + Σ_c J_cᵀ·(f̂_c(q) − f_c⁰)`
//!
//! (`r = F − W`, `f_c⁰ = max(0, φ_c)`), the optimality condition of the strongly convex
//! piecewise-quadratic potential
//!
//! `Φ(q) = ½·qᵀ𝓜q − rᵀq + Σ_c [max(0, φ_c − s_c·J_c·q)² / (2·s_c) + f_c⁰·J_c·q]`,
//!
//! by an inner semi-smooth (active-set) Newton loop with Armijo backtracking on `Φ`: each
//! inner step solves the linear system of the contacts active at the inner iterate by the
//! conjugate gradients of [`super::newton`] (no narrow phase), so a contact that the
//! update would close pushes back and one it would open lets go *within* the update. The
//! outer iteration is globalised on the residual `‖F − W‖` in the `𝓜⁻¹` norm: a guess
//! whose residual grew over the last accepted one is not built on; instead the update from
//! that accepted guess is re-solved with the candidates the rejected guess revealed, or,
//! when it revealed none, halved.
//!
//! Friction is not in the model (its regularisation bounds its Picard contraction by ½,
//! [`crate::contact::force`]); the outer iteration corrects it. Every sum runs in contact
//! or particle order, so the result is the same at any thread count.

use super::newton::{linearise, ContactJacobian, Row, Vec6};
use super::tangent::friction_rows;
use crate::contact::force::{prepare_forces, Wrench};
use crate::contact::Contact;
use crate::model::{Model, Other};
use crate::state::Body;
use msdem_geom::math::{Quat, Vec3};

/// Most inner (model) iterations per update.
const INNER_MAX_ITERATIONS: usize = 30;
/// Armijo's sufficient-decrease constant of the inner line search [-].
const ARMIJO: f64 = 1e-4;
/// Smallest inner step length [-].
const MIN_STEP: f64 = 1.0 / 1024.0;
/// Smallest weight of an outer update halved by the backtracking [-].
const MIN_WEIGHT: f64 = 1.0 / 16.0;
/// Two sightings of contacts of the same body pair are the same candidate when their
/// points are closer than this fraction of the radius of `a` [-].
const SAME_POINT: f64 = 0.25;

/// A contact seen at some guess of the step: where, and the poses it was seen at.
#[derive(Clone, Debug)]
struct Sighting {
    a: usize,
    b: Option<usize>,
    /// The other body (obstacles told apart).
    other: Other,
    point: Vec3,
    normal: Vec3,
    /// Distance \[m\] and halo margin \[m\] at the sighting.
    dist: f64,
    margin: f64,
    /// `s_c` of the sighting \[kg\].
    s: f64,
    pose_a: (Vec3, Quat),
    pose_b: Option<(Vec3, Quat)>,
}

/// One candidate of the model: rows, weight, `φ_c` and `f_c⁰` \[N\] (module docs).
#[derive(Clone, Debug)]
struct Candidate {
    a: usize,
    b: Option<usize>,
    ja: Vec6,
    jb: Vec6,
    s: f64,
    phi: f64,
    f0: f64,
    /// A linear (friction) row: `f̂ = φ − s·J·q`, never clamped.
    linear: bool,
}

impl Candidate {
    /// `J_c·q`: the rate at which the update opens the contact.
    fn rate(&self, q: &[Vec6]) -> f64 {
        self.ja.dot(&q[self.a]) - self.b.map_or(0.0, |j| self.jb.dot(&q[j]))
    }

    /// Adds `f·J_cᵀ` to the wrenches `w` (on `a`; the reaction on `b`).
    fn spread(&self, f: f64, w: &mut [Vec6]) {
        w[self.a] += f * self.ja;
        if let Some(j) = self.b {
            w[j] -= f * self.jb;
        }
    }
}

/// What one update did: inner iterations and whether it backtracked.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PwlUpdate {
    /// Inner (model) iterations used.
    pub inner: usize,
    /// The guess was rejected (its residual grew): the update restarted from the last
    /// accepted guess.
    pub backtracked: bool,
}

/// The piecewise-linear active-set update (see the module docs): candidate memory of one
/// step, the accepted guess the outer iteration builds on, and scratch.
#[derive(Clone, Debug, Default)]
pub struct PiecewiseLinear {
    seen: Vec<Sighting>,
    candidates: Vec<Candidate>,
    system: ContactJacobian,
    /// The accepted guess: its wrench, residual, bodies, merit and the update from it.
    base_applied: Vec<Wrench>,
    base_residual: Vec<Vec6>,
    base_bodies: Vec<Body>,
    base_merit: f64,
    base_free: Vec<bool>,
    step: Vec<Vec6>,
    weight: f64,
    /// Sightings already in the candidates of the accepted guess.
    known: usize,
    q: Vec<Vec6>,
    trial: Vec<Vec6>,
    rhs: Vec<Vec6>,
    scratch: Vec<Vec6>,
    active: Vec<bool>,
}

/// The rotation vector \[rad\] that turns `from` into `to`.
fn rotation(from: &Quat, to: &Quat) -> Vec3 {
    (to * from.inverse()).scaled_axis()
}

/// The weight `s_c = θ²Δt²·∂F_n/∂δ + θΔt·c_c` \[kg\] of a linearised contact (`h` =
/// θ²Δt², `v` = θΔt).
fn weight(row: &Row, h: f64, v: f64) -> f64 {
    h * row.slope + v * row.damping
}

/// `‖r‖²` in the `𝓜⁻¹` norm of the particles `bodies` [N²/kg].
fn merit(bodies: &[Body], r: &[Vec6]) -> f64 {
    bodies
        .iter()
        .zip(r)
        .map(|(b, r)| {
            let f = r.fixed_rows::<3>(0).into_owned();
            let t = r.fixed_rows::<3>(3).into_owned();
            f.norm_squared() / b.mass + t.dot(&(b.world_inv_inertia() * t))
        })
        .sum()
}

impl PiecewiseLinear {
    /// Forgets the contacts and the accepted guess of the previous step.
    pub fn begin_step(&mut self) {
        self.seen.clear();
        self.candidates.clear();
        self.known = 0;
        self.base_merit = f64::INFINITY;
        self.weight = 1.0;
        self.step.clear();
    }

    /// Remembers the contacts with a force at the state `bodies` (merged into the
    /// sightings of the same contact: same pair, points within `SAME_POINT` radii).
    fn record(&mut self, model: &Model, bodies: &[Body], contacts: &[Contact], dt: f64, theta: f64) {
        let h = theta * theta * dt * dt;
        let pose = |i: usize| (bodies[i].position, bodies[i].orientation);
        let mut fresh = Vec::new();
        linearise(model, bodies, contacts, dt, theta, |c, row| {
            fresh.push(Sighting {
                a: row.a,
                b: row.b,
                other: c.b,
                point: c.point,
                normal: c.normal,
                dist: c.dist,
                margin: row.margin,
                s: weight(&row, h, theta * dt),
                pose_a: pose(row.a),
                pose_b: row.b.map(pose),
            });
        });
        for f in fresh {
            let reach = SAME_POINT * bodies[f.a].radius;
            match self
                .seen
                .iter_mut()
                .find(|s| s.a == f.a && s.other == f.other && (s.point - f.point).norm() <= reach)
            {
                Some(s) => *s = f,
                None => self.seen.push(f),
            }
        }
    }

    /// The candidate of the sighting `k` carried rigidly to the state `bodies` (open: `φ`
    /// from its estimated gap, at most 0) for `h = θ²Δt²`.
    fn carried(&self, k: usize, bodies: &[Body], h: f64) -> Candidate {
        let s = &self.seen[k];
        let moved = |i: usize, (x0, o0): (Vec3, Quat)| {
            let b = &bodies[i];
            let turn = rotation(&o0, &b.orientation);
            (b.position - x0) + turn.cross(&(s.point - x0))
        };
        let ua = moved(s.a, s.pose_a);
        let ub = match (s.b, s.pose_b) {
            (Some(j), Some(p)) => moved(j, p),
            _ => Vec3::zeros(),
        };
        let gap = s.dist + s.normal.dot(&(ua - ub));
        let point = s.point + ua;
        let ja = super::newton::join(
            &s.normal,
            &(point - bodies[s.a].position).cross(&s.normal),
        );
        let jb = s.b.map_or(Vec6::zeros(), |j| {
            super::newton::join(&s.normal, &(point - bodies[j].position).cross(&s.normal))
        });
        Candidate {
            a: s.a,
            b: s.b,
            ja,
            jb,
            s: s.s,
            phi: (s.s * (s.margin - gap) / h).min(0.0),
            f0: 0.0,
            linear: false,
        }
    }

    /// Builds the candidates at the evaluated guess `bodies`: its own contacts (`φ = f⁰`,
    /// their force), then every earlier sighting not among them, carried to it.
    #[allow(clippy::too_many_arguments)]
    fn build(
        &mut self,
        model: &Model,
        bodies: &[Body],
        contacts: &[Contact],
        dt: f64,
        theta: f64,
        predict: Option<&Vec3>,
    ) {
        self.candidates.clear();
        let h = theta * theta * dt * dt;
        // The exact normal forces of the guess (and what friction needs).
        let (mut prepared, mut rolling) = (Vec::new(), Vec::new());
        prepare_forces(model, bodies, contacts, dt, &mut prepared, &mut rolling);
        let mut own = Vec::new();
        linearise(model, bodies, contacts, dt, theta, |c, row| {
            own.push((c.point, c.b, row))
        });
        let mut covered = vec![false; self.seen.len()];
        for (point, other, row) in own {
            let reach = SAME_POINT * bodies[row.a].radius;
            let seen = self
                .seen
                .iter()
                .position(|s| s.a == row.a && s.other == other && (s.point - point).norm() <= reach)
                .unwrap_or(usize::MAX);
            if let Some(c) = covered.get_mut(seen) {
                *c = true;
            }
            let f0 = prepared.get(row.index).map_or(0.0, |p| p.normal);
            let s = weight(&row, h, theta * dt);
            // The first guess of a step also moves with the approach velocity and gravity
            // over the step (the linearly implicit guess of `super::newton`).
            let phi = match predict {
                Some(g) => {
                    let g_rel = if row.b.is_some() { 0.0 } else { row.normal.dot(g) };
                    f0 - row.slope * theta * dt * row.approach - s * g_rel
                }
                None => f0,
            };
            self.candidates.push(Candidate {
                a: row.a,
                b: row.b,
                ja: row.ja,
                jb: row.jb,
                s,
                phi,
                f0,
                linear: false,
            });
        }
        for (k, &c) in covered.iter().enumerate() {
            if !c {
                let cand = self.carried(k, bodies, h);
                self.candidates.push(cand);
            }
        }
        self.known = self.seen.len();
        let mut rows = Vec::new();
        friction_rows(bodies, contacts, &prepared, dt, theta, &mut rows);
        for row in rows {
            // The first guess: gravity slides a particle along an obstacle over the step.
            let phi = match (predict, row.b) {
                (Some(g), None) => -row.s * row.ja.fixed_rows::<3>(0).dot(g),
                _ => 0.0,
            };
            self.candidates.push(Candidate {
                a: row.a,
                b: row.b,
                ja: row.ja,
                jb: row.jb,
                s: row.s,
                phi,
                f0: 0.0,
                linear: true,
            });
        }
    }

    /// `Φ(q)` and, into `grad`, `∇Φ(q)` (module docs).
    fn potential(&self, r: &[Vec6], q: &[Vec6], grad: &mut Vec<Vec6>) -> f64 {
        let m = self.system.masses();
        grad.clear();
        grad.extend(m.iter().zip(q).zip(r).map(|((m, q), r)| m * q - r));
        let mut phi: f64 = m
            .iter()
            .zip(q)
            .zip(r)
            .map(|((m, q), r)| 0.5 * q.dot(&(m * q)) - r.dot(q))
            .sum();
        for c in &self.candidates {
            let rate = c.rate(q);
            if c.linear {
                phi += 0.5 * c.s * rate * rate - (c.phi - c.f0) * rate;
                c.spread(c.f0 - (c.phi - c.s * rate), grad);
                continue;
            }
            let f = (c.phi - c.s * rate).max(0.0);
            phi += f * f / (2.0 * c.s) + c.f0 * rate;
            c.spread(c.f0 - f, grad);
        }
        phi
    }

    /// Solves the model for the residual `r` of the `free` particles at the guess
    /// `bodies` (others held): the wrench update `𝓜·q` into `self.step`. Returns the
    /// inner iterations.
    fn solve(&mut self, bodies: &[Body], r: &[Vec6], free: &[bool]) -> usize {
        let n = bodies.len();
        self.system.begin(bodies);
        self.q.clear();
        self.q.resize(n, Vec6::zeros());
        let mut grad = Vec::new();
        let mut value = self.potential(r, &self.q, &mut grad);
        let mut inner = 0;
        self.active.clear();
        self.active
            .extend(self.candidates.iter().map(|c| c.linear || c.phi > 0.0));
        while inner < INNER_MAX_ITERATIONS {
            inner += 1;
            // The linear system of the candidates active at the inner iterate.
            self.system.clear_rows();
            self.rhs.clear();
            self.rhs.extend_from_slice(r);
            for (c, &on) in self.candidates.iter().zip(&self.active) {
                if on {
                    self.system.push(c.a, c.b, c.ja, c.jb, c.s);
                    c.spread(c.phi - c.f0, &mut self.rhs);
                } else {
                    c.spread(-c.f0, &mut self.rhs);
                }
            }
            self.system.finish();
            self.system.solve(&self.rhs, free, &mut self.scratch);
            let direction: Vec<Vec6> = self
                .system
                .solution()
                .iter()
                .zip(&self.q)
                .map(|(new, old)| new - old)
                .collect();
            let slope: f64 = grad.iter().zip(&direction).map(|(g, d)| g.dot(d)).sum();
            if !(slope < 0.0 && slope.is_finite()) {
                break;
            }
            // Armijo backtracking on Φ.
            let mut t = 1.0;
            let mut trial_grad = Vec::new();
            let accepted = loop {
                self.trial.clear();
                self.trial
                    .extend(self.q.iter().zip(&direction).map(|(q, d)| q + t * d));
                let v = self.potential(r, &self.trial, &mut trial_grad);
                if v <= value + ARMIJO * t * slope {
                    break Some(v);
                }
                t *= 0.5;
                if t < MIN_STEP {
                    break None;
                }
            };
            let Some(v) = accepted else {
                break;
            };
            std::mem::swap(&mut self.q, &mut self.trial);
            grad = trial_grad;
            value = v;
            let mut changed = false;
            for (c, on) in self.candidates.iter().zip(self.active.iter_mut()) {
                let now = c.linear || c.phi - c.s * c.rate(&self.q) > 0.0;
                changed |= now != *on;
                *on = now;
            }
            if !changed && t == 1.0 {
                break;
            }
        }
        self.step.clear();
        self.step.extend(
            self.system
                .masses()
                .iter()
                .zip(&self.q)
                .map(|(m, q)| m * q),
        );
        inner
    }

    /// The first guess of a step (the linearly implicit guess of [`super::newton`] with
    /// the piecewise-linear contacts): the contacts of the start state `bodies` with the
    /// start forces `start` \[N, N·m\]; the wrenches of the guess into `applied`.
    #[allow(clippy::too_many_arguments)]
    pub fn predict(
        &mut self,
        model: &Model,
        bodies: &[Body],
        contacts: &[Contact],
        start: &[Wrench],
        gravity: &Vec3,
        dt: f64,
        theta: f64,
        applied: &mut [Wrench],
    ) -> usize {
        self.begin_step();
        self.record(model, bodies, contacts, dt, theta);
        self.build(model, bodies, contacts, dt, theta, Some(gravity));
        let r: Vec<Vec6> = start
            .iter()
            .map(|w| super::newton::join(&w.force, &w.torque))
            .collect();
        let free = vec![true; bodies.len()];
        let inner = self.solve(bodies, &r, &free);
        for (w, d) in applied.iter_mut().zip(&self.step) {
            w.force = d.fixed_rows::<3>(0).into_owned();
            w.torque = d.fixed_rows::<3>(3).into_owned();
        }
        inner
    }

    /// One outer update at the evaluated guess `bodies` (its `contacts` and forces
    /// `computed`, produced by the wrenches `applied`, which are updated in place; only the
    /// `free` particles move). See the module docs for the globalisation.
    #[allow(clippy::too_many_arguments)]
    pub fn update(
        &mut self,
        model: &Model,
        bodies: &[Body],
        contacts: &[Contact],
        computed: &[Wrench],
        applied: &mut [Wrench],
        free: &[bool],
        dt: f64,
        theta: f64,
    ) -> PwlUpdate {
        self.record(model, bodies, contacts, dt, theta);
        let r: Vec<Vec6> = computed
            .iter()
            .zip(applied.iter())
            .map(|(f, w)| super::newton::join(&(f.force - w.force), &(f.torque - w.torque)))
            .collect();
        let value = merit(bodies, &r);
        let h = theta * theta * dt * dt;
        let grew = !(value <= self.base_merit) && self.base_merit.is_finite();
        if grew && self.base_applied.len() == applied.len() {
            // Do not build on a guess whose residual grew: back to the accepted one.
            let inner = if self.seen.len() > self.known {
                // The rejected guess revealed contacts: add them to the model there.
                for k in self.known..self.seen.len() {
                    let c = self.carried(k, &self.base_bodies, h);
                    self.candidates.push(c);
                }
                self.known = self.seen.len();
                let (bodies0, r0, free0) = (
                    std::mem::take(&mut self.base_bodies),
                    std::mem::take(&mut self.base_residual),
                    std::mem::take(&mut self.base_free),
                );
                let inner = self.solve(&bodies0, &r0, &free0);
                (self.base_bodies, self.base_residual, self.base_free) = (bodies0, r0, free0);
                self.weight = 1.0;
                inner
            } else {
                self.weight *= 0.5;
                0
            };
            if self.weight >= MIN_WEIGHT {
                for ((w, w0), d) in applied.iter_mut().zip(&self.base_applied).zip(&self.step) {
                    w.force = w0.force + self.weight * d.fixed_rows::<3>(0);
                    w.torque = w0.torque + self.weight * d.fixed_rows::<3>(3);
                }
                return PwlUpdate {
                    inner,
                    backtracked: true,
                };
            }
        }
        // Accept this guess and build on it.
        self.base_applied.clear();
        self.base_applied.extend_from_slice(applied);
        self.base_bodies.clear();
        self.base_bodies.extend_from_slice(bodies);
        self.base_free.clear();
        self.base_free.extend_from_slice(free);
        self.base_merit = value;
        self.weight = 1.0;
        self.build(model, bodies, contacts, dt, theta, None);
        let inner = self.solve(bodies, &r, free);
        self.base_residual = r;
        for ((w, d), &f) in applied.iter_mut().zip(&self.step).zip(free) {
            if f {
                w.force += d.fixed_rows::<3>(0);
                w.torque += d.fixed_rows::<3>(3);
            }
        }
        PwlUpdate {
            inner,
            backtracked: false,
        }
    }
}
