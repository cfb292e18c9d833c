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
//! in the generalised accelerations `q` of the update (`ΔW = 𝓜·q`, rows `J_c` of
//! [`super::newton`]), with the weight `s_c = θ²Δt²·k + θΔt·c` of the slopes of seed 000
//! §2's spring `k·δ` and of our dashpot `c·δ̇` (`(1 + β)·k` and no dashpot at the
//! dashpot's cap). `φ_c` is the contact's force at the guess where it pushes, and where
//! it does not — open (carried from an earlier guess), or a separating contact whose
//! dashpot clamps the force to zero — the linear law's negative value `k·δ − c·δ̇ ≤ 0`:
//! how far the update must push it before it pushes back. The update solves the model
//! exactly:
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
//! when it revealed none, halved; when even a sixteenth of it does not lower the
//! residual, the update bisects (`W ← W + ½·(F − W)`) and reports it: the model does not
//! describe the contact law there (a force that jumps between guesses), and the caller
//! continues the attempt with the relaxed iteration and its switch rule
//! (`super::relax`).
//!
//! Friction enters as linear rows (`f̂ = φ − s·J·q`, never clamped, `super::tangent`):
//! without them its regularisation, which bounds its Picard contraction by ½
//! ([`crate::contact::force`]), set the pace once the normal contacts were solved. The
//! first guess of a step (`predict`) solves the same model at the start state with the
//! approach velocity and gravity acting over the step, as the linearly implicit guess of
//! [`super::newton`] does. Every sum runs in candidate or particle order, so the result is
//! the same at any thread count.

use super::newton::{linearise, ContactJacobian, Row, Vec6};
use super::scheme::Implicitness;
use super::tangent::friction_rows;
use crate::contact::force::{point_velocity, prepare_forces_calibrated, Wrench};
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
/// Weight of the relaxed step `W ← W + ω·(F − W)` taken when the model's direction fails
/// (the bisection of the switch rule in `relax.rs`) [-].
const BISECTION: f64 = 0.5;
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
    /// `s_c` of the sighting \[kg\] and the slopes of its linear law (`super::newton`).
    s: f64,
    slope: f64,
    slope_damping: f64,
    pose_a: (Vec3, Quat),
    pose_b: Option<(Vec3, Quat)>,
}

/// A contact of the last recorded guess: its linearisation, distance \[m\], sighting and
/// the index of that sighting.
#[derive(Clone, Debug)]
struct Own {
    row: Row,
    dist: f64,
    sighting: Sighting,
    seen: usize,
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
    /// Even the shortest step of the model did not lower the residual: the wrench moved
    /// half way towards the forces instead (`BISECTION`).
    pub bisected: bool,
}

/// The piecewise-linear active-set update (see the module docs): candidate memory of one
/// step, the accepted guess the outer iteration builds on, and scratch.
#[derive(Clone, Debug, Default)]
pub struct PiecewiseLinear {
    seen: Vec<Sighting>,
    own: Vec<Own>,
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

/// The weight `s_c = θ²Δt²·∂F_n/∂δ + θΔt·∂F_n/∂δ̇` \[kg\] of a linearised contact (`h` =
/// θ²Δt², `v` = θΔt).
fn weight(row: &Row, h: f64, v: f64) -> f64 {
    h * row.slope + v * row.slope_damping
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
    fn record(
        &mut self,
        model: &Model,
        bodies: &[Body],
        contacts: &[Contact],
        dt: f64,
        im: Implicitness,
    ) {
        let h = im.position * dt * dt;
        let pose = |i: usize| (bodies[i].position, bodies[i].orientation);
        let mut own = std::mem::take(&mut self.own);
        own.clear();
        linearise(model, bodies, contacts, dt, im, |c, row| {
            own.push(Own {
                dist: c.dist,
                seen: usize::MAX,
                sighting: Sighting {
                    a: row.a,
                    b: row.b,
                    other: c.b,
                    point: c.point,
                    normal: c.normal,
                    dist: c.dist,
                    margin: row.margin,
                    s: weight(&row, h, im.velocity * dt),
                    slope: row.slope,
                    slope_damping: row.slope_damping,
                    pose_a: pose(row.a),
                    pose_b: row.b.map(pose),
                },
                row,
            });
        });
        for o in &mut own {
            let f = &o.sighting;
            let reach = SAME_POINT * bodies[f.a].radius;
            let found = self.seen.iter().position(|s| {
                s.a == f.a && s.other == f.other && (s.point - f.point).norm() <= reach
            });
            o.seen = match found {
                Some(k) => {
                    self.seen[k] = f.clone();
                    k
                }
                None => {
                    self.seen.push(f.clone());
                    self.seen.len() - 1
                }
            };
        }
        self.own = own;
    }

    /// The candidate of the sighting `k` carried rigidly to the state `bodies` (open: `φ`
    /// from its estimated gap and approach speed, at most 0).
    fn carried(&self, k: usize, bodies: &[Body]) -> Candidate {
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
        let mut v = point_velocity(&bodies[s.a], &point);
        if let Some(j) = s.b {
            v -= point_velocity(&bodies[j], &point);
        }
        let ja = super::newton::join(&s.normal, &(point - bodies[s.a].position).cross(&s.normal));
        let jb = s.b.map_or(Vec6::zeros(), |j| {
            super::newton::join(&s.normal, &(point - bodies[j].position).cross(&s.normal))
        });
        Candidate {
            a: s.a,
            b: s.b,
            ja,
            jb,
            s: s.s,
            // Open here (or the detection would have reported it): no force before the
            // update closes the linear law's gap.
            phi: (s.slope * (s.margin - gap) - s.slope_damping * v.dot(&s.normal)).min(0.0),
            f0: 0.0,
            linear: false,
        }
    }

    /// Builds the candidates at the evaluated guess `bodies` (whose contacts the last
    /// `record` linearised): its own contacts (`φ = f⁰`, their force), then every earlier
    /// sighting not among them, carried to it, then the friction rows; candidates between
    /// bodies that are not `free` are left out (nothing of theirs changes).
    #[allow(clippy::too_many_arguments)]
    fn build(
        &mut self,
        model: &Model,
        bodies: &[Body],
        contacts: &[Contact],
        free: &[bool],
        dt: f64,
        im: Implicitness,
        predict: Option<&Vec3>,
    ) {
        self.candidates.clear();
        let h = im.position * dt * dt;
        // The exact normal forces of the guess (and what friction needs).
        let (mut prepared, mut rolling) = (Vec::new(), Vec::new());
        prepare_forces_calibrated(
            model,
            bodies,
            contacts,
            dt,
            &mut prepared,
            &mut rolling,
            im.damping,
        );
        let mut covered = vec![false; self.seen.len()];
        let fixed = |a: usize, b: Option<usize>| {
            !free.get(a).copied().unwrap_or(false)
                && b.is_none_or(|j| !free.get(j).copied().unwrap_or(false))
        };
        for o in &self.own {
            if let Some(c) = covered.get_mut(o.seen) {
                *c = true;
            }
            let (row, dist) = (&o.row, o.dist);
            if fixed(row.a, row.b) {
                // Neither body moves in this update: no change of force to model.
                continue;
            }
            let f0 = prepared.get(row.index).map_or(0.0, |p| p.normal);
            let s = weight(row, h, im.velocity * dt);
            // Where the force is clamped to zero (a dashpot of a separating contact), the
            // linear law's negative value: how far the contact is from pushing again.
            let depth = (row.margin - dist).clamp(0.0, row.margin);
            let linear = row.slope * depth - row.slope_damping * row.approach;
            let f_lin = if f0 > 0.0 { f0 } else { linear.min(0.0) };
            // The first guess of a step also moves with the approach velocity and gravity
            // over the step (the linearly implicit guess of `super::newton`).
            let phi = match predict {
                Some(g) => {
                    let g_rel = if row.b.is_some() {
                        0.0
                    } else {
                        row.normal.dot(g)
                    };
                    f_lin - row.slope * im.drift * dt * row.approach - s * g_rel
                }
                None => f_lin,
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
            if !c && !fixed(self.seen[k].a, self.seen[k].b) {
                let cand = self.carried(k, bodies);
                self.candidates.push(cand);
            }
        }
        self.known = self.seen.len();
        let mut rows = Vec::new();
        friction_rows(bodies, contacts, &prepared, dt, im, &mut rows);
        for row in rows.into_iter().filter(|r| !fixed(r.a, r.b)) {
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
            self.system.finish_touched();
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
        self.step
            .extend(self.system.masses().iter().zip(&self.q).map(|(m, q)| m * q));
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
        im: Implicitness,
        applied: &mut [Wrench],
    ) -> usize {
        self.begin_step();
        self.record(model, bodies, contacts, dt, im);
        let free = vec![true; bodies.len()];
        self.build(model, bodies, contacts, &free, dt, im, Some(gravity));
        let r: Vec<Vec6> = start
            .iter()
            .map(|w| super::newton::join(&w.force, &w.torque))
            .collect();
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
        im: Implicitness,
    ) -> PwlUpdate {
        self.record(model, bodies, contacts, dt, im);
        let r: Vec<Vec6> = computed
            .iter()
            .zip(applied.iter())
            .map(|(f, w)| super::newton::join(&(f.force - w.force), &(f.torque - w.torque)))
            .collect();
        let value = merit(bodies, &r);
        // (A NaN merit counts as grown.)
        let grew = self.base_merit.is_finite() && (value.is_nan() || value > self.base_merit);
        if grew && self.base_applied.len() == applied.len() {
            // Do not build on a guess whose residual grew: back to the accepted one.
            let inner = if self.seen.len() > self.known {
                // The rejected guess revealed contacts: add them to the model there.
                for k in self.known..self.seen.len() {
                    let c = self.carried(k, &self.base_bodies);
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
                    bisected: false,
                };
            }
            // The model's direction does not lower the residual even when shortened: the
            // contact law is not what the model says here (a force that jumps between
            // guesses). Bisect towards the forces instead (the caller relaxes from here).
            self.base_merit = f64::INFINITY;
            self.weight = 1.0;
            for ((w, f), &free) in applied.iter_mut().zip(computed).zip(free) {
                if free {
                    w.force += BISECTION * (f.force - w.force);
                    w.torque += BISECTION * (f.torque - w.torque);
                }
            }
            return PwlUpdate {
                inner,
                backtracked: true,
                bisected: true,
            };
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
        self.build(model, bodies, contacts, free, dt, im, None);
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
            bisected: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use msdem_geom::math::Mat3;

    fn body(mass: f64, x: f64) -> Body {
        Body {
            shape: 0,
            material: 0,
            mass,
            inertia: Mat3::identity() * 0.1 * mass,
            inv_inertia: Mat3::identity() / (0.1 * mass),
            epsilon: 0.01,
            radius: 0.5,
            position: Vec3::new(x, 0.0, 0.0),
            orientation: Quat::identity(),
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
        }
    }

    /// A normal candidate along `+z` through the centre of `a` (against an obstacle).
    fn floor(a: usize, s: f64, phi: f64, f0: f64) -> Candidate {
        Candidate {
            a,
            b: None,
            ja: Vec6::new(0.0, 0.0, 1.0, 0.0, 0.0, 0.0),
            jb: Vec6::zeros(),
            s,
            phi,
            f0,
            linear: false,
        }
    }

    fn solve(candidates: Vec<Candidate>, bodies: &[Body], r: &[Vec6]) -> (Vec<Vec6>, usize) {
        let mut m = PiecewiseLinear {
            candidates,
            ..PiecewiseLinear::default()
        };
        let inner = m.solve(bodies, r, &vec![true; bodies.len()]);
        (m.q.clone(), inner)
    }

    /// One particle pushed down (`r = −R` along z) onto an open candidate with the gap
    /// force `φ < 0`, solved by hand: the contact stays open while the free motion does
    /// not close it (`q = −R/m`), otherwise it closes and pushes back,
    /// `q = (φ − R)/(m + s)`.
    #[test]
    fn an_open_candidate_closes_only_when_the_update_reaches_it() {
        let (m, s) = (2.0, 50.0);
        let bodies = [body(m, 0.0)];
        let push = |big: f64| vec![Vec6::new(0.0, 0.0, -big, 0.0, 0.0, 0.0)];
        // Stays open: s·R/m = 2.5 < |φ| = 3.
        let (q, _) = solve(vec![floor(0, s, -3.0, 0.0)], &bodies, &push(0.1));
        assert!((q[0][2] + 0.1 / m).abs() < 1e-12, "{q:?}");
        // Closes: s·R/m = 250 > 3.
        let (q, inner) = solve(vec![floor(0, s, -3.0, 0.0)], &bodies, &push(10.0));
        let want = (-3.0 - 10.0) / (m + s);
        assert!(
            (q[0][2] - want).abs() < 1e-9 * want.abs(),
            "{q:?} vs {want}"
        );
        assert!(inner <= 3, "{inner} inner iterations");
        // Nothing else moves.
        assert!(
            [0, 1, 3, 4, 5].iter().all(|&k| q[0][k].abs() < 1e-15),
            "{q:?}"
        );
    }

    /// A closed candidate (force `φ = f⁰ > 0`) pulled away lets go completely once the
    /// pull exceeds what the spring can hold over the update: `q = (R − f⁰)/m` — where
    /// the Newton update of `super::newton`, linear in the contact, would give
    /// `R/(m + s)` and leave the particle stuck to the floor.
    #[test]
    fn a_closed_candidate_lets_go_within_the_update() {
        let (m, s, f0) = (2.0, 50.0, 4.0);
        let bodies = [body(m, 0.0)];
        let pull = vec![Vec6::new(0.0, 0.0, 300.0, 0.0, 0.0, 0.0)];
        let (q, _) = solve(vec![floor(0, s, f0, f0)], &bodies, &pull);
        let want = (300.0 - f0) / m;
        assert!((q[0][2] - want).abs() < 1e-9 * want, "{q:?} vs {want}");
        // A small pull keeps it closed: linear, `q = R/(m + s)`.
        let pull = vec![Vec6::new(0.0, 0.0, 1.0, 0.0, 0.0, 0.0)];
        let (q, _) = solve(vec![floor(0, s, f0, f0)], &bodies, &pull);
        assert!((q[0][2] - 1.0 / (m + s)).abs() < 1e-12, "{q:?}");
    }

    /// A chain obstacle – 0 – 1 with off-centre rows, one friction row, one contact that
    /// opens and one that closes: the solution satisfies the model's equation
    /// `𝓜q = r + Σ J(f̂(q) − f⁰)` (evaluated directly, not by the active-set solver),
    /// and `Φ` at the solution is below `Φ` at nearby points.
    #[test]
    fn the_solution_satisfies_the_model_equation() {
        let bodies = [body(1.0, 0.0), body(3.0, 1.0)];
        let row = |n: Vec3, r: Vec3| super::super::newton::join(&n, &r.cross(&n));
        let z = Vec3::z();
        let cands = vec![
            Candidate {
                ja: row(z, Vec3::new(0.1, 0.0, -0.5)),
                ..floor(0, 40.0, 2.0, 2.0)
            },
            Candidate {
                a: 1,
                b: Some(0),
                ja: row(Vec3::x(), Vec3::new(-0.5, 0.05, 0.0)),
                jb: row(Vec3::x(), Vec3::new(0.5, 0.05, 0.0)),
                s: 30.0,
                phi: -0.5,
                f0: 0.0,
                linear: false,
            },
            Candidate {
                ja: row(Vec3::x(), Vec3::new(0.0, 0.0, -0.5)),
                s: 5.0,
                phi: 0.0,
                f0: 0.0,
                linear: true,
                ..floor(0, 0.0, 0.0, 0.0)
            },
        ];
        let r = vec![
            Vec6::new(3.0, 0.5, 40.0, 0.1, 0.0, 0.0),
            Vec6::new(-20.0, 0.0, -1.0, 0.0, 0.2, 0.0),
        ];
        let mut m = PiecewiseLinear {
            candidates: cands,
            ..PiecewiseLinear::default()
        };
        m.solve(&bodies, &r, &[true, true]);
        let q = m.q.clone();
        // The contacts that switched: the floor opened, the pair closed.
        assert!(m.candidates[0].phi - m.candidates[0].s * m.candidates[0].rate(&q) < 0.0);
        assert!(m.candidates[1].phi - m.candidates[1].s * m.candidates[1].rate(&q) > 0.0);
        // The model's equation, term by term.
        let mass = m.system.masses().to_vec();
        let mut lhs: Vec<Vec6> = mass.iter().zip(&q).map(|(mm, q)| mm * q).collect();
        for (l, r) in lhs.iter_mut().zip(&r) {
            *l -= r;
        }
        for c in &m.candidates {
            let f = if c.linear {
                c.phi - c.s * c.rate(&q)
            } else {
                (c.phi - c.s * c.rate(&q)).max(0.0)
            };
            c.spread(c.f0 - f, &mut lhs);
        }
        let scale: f64 = r.iter().map(|v| v.norm()).sum();
        for l in &lhs {
            assert!(l.norm() < 1e-5 * scale, "{lhs:?}");
        }
        // A strict minimum of Φ.
        let mut grad = Vec::new();
        let at = m.potential(&r, &q, &mut grad);
        for k in 0..12 {
            let mut p = q.clone();
            p[k / 6][k % 6] += 1e-3;
            assert!(m.potential(&r, &p, &mut grad) > at);
            p[k / 6][k % 6] -= 2e-3;
            assert!(m.potential(&r, &p, &mut grad) > at);
        }
    }
}
