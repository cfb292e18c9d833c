//! Explicit Euler (seed 000 Alg. 1 with the multiresolution detection of Alg. 5):
//!
//! 1. **detect** — every contact of the current state through the detection layer
//!    ([`crate::detect`]): on the kept active sets ([`Search::Kept`], the default) or from
//!    the roots / flat ([`Search::Roots`]); the contacts are the same either way;
//! 2. **forces** — fade-in spring, damping, friction; torques about the centres of mass
//!    ([`crate::contact::force`]);
//! 3. **integration** — explicit Euler in Euler–Cromer order ([`crate::motion`]).

use std::time::Instant;

use super::{check_finite, Integrator, Stepped};
use crate::contact::force::{accumulate_forces, Wrench};
use crate::contact::Contact;
use crate::detect::{checks_per_level, stats_levels, CertificateSkin, Detector, Search};
use crate::error::StepError;
use crate::frames::{ContactRecord, PhaseTimes, StepStats};
use crate::model::Model;
use crate::motion::energy::observables;
use crate::motion::explicit_euler;
use crate::params::{DetectionMode, Params};
use crate::state::State;
use msdem_geom::math::Vec3;

/// The explicit Euler integrator and its buffers.
#[derive(Clone, Debug)]
pub struct ExplicitEuler {
    dt: f64,
    gravity: Vec3,
    search: Search,
    skin: CertificateSkin,
    contacts: Vec<Contact>,
    wrenches: Vec<Wrench>,
}

/// What one explicit step reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepOutput {
    /// Statistics. Energies and momenta describe the state at the end of the step; pair,
    /// contact and check counts the detection at its start.
    pub stats: StepStats,
    /// Merged contacts with their forces (empty unless requested).
    pub contacts: Vec<ContactRecord>,
    /// Potential energy of the contact springs at the start of the step \[J\]
    /// ([`crate::contact::pair::PairParams::spring_energy`]).
    pub contact_energy: f64,
}

/// The search of explicit steps for `params`: kept active sets for the hierarchy with
/// `kept_sets`, otherwise a complete search from scratch in `params.detection`'s mode.
pub fn search_for(params: &Params) -> Search {
    match params.detection {
        DetectionMode::Hierarchy if params.kept_sets => Search::Kept,
        mode => Search::Roots(mode),
    }
}

impl ExplicitEuler {
    /// The integrator with the time step, gravity and detection of `params`.
    pub fn new(params: &Params) -> Self {
        Self::with(params.dt, params.gravity, search_for(params))
    }

    /// The integrator with time step `dt` \[s\], gravity [m/s²] and contact search.
    pub fn with(dt: f64, gravity: Vec3, search: Search) -> Self {
        ExplicitEuler {
            dt,
            gravity,
            search,
            skin: CertificateSkin::EXPLICIT,
            contacts: Vec::new(),
            wrenches: Vec::new(),
        }
    }

    /// Selects the contact search of the following steps (a diagnostic: with
    /// `Search::Roots(DetectionMode::Hierarchy)` every step descends from the roots, Alg. 5
    /// read literally; the contacts are the same as with [`Search::Kept`]).
    pub fn set_search(&mut self, search: Search) {
        self.search = search;
    }

    /// Selects the certificate skin of the kept sets (base skin and refresh period;
    /// [`CertificateSkin::EXPLICIT`] unless set), handed to the detector before each
    /// detection: it decides how many certified pairs are stored and how often the sets
    /// are refreshed, never a contact.
    pub fn set_skin(&mut self, skin: CertificateSkin) {
        self.skin = skin;
    }

    /// Merged contacts of the last step's detection (at its start state).
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// Advances `state` by one explicit Euler step (see the module docs) and returns its
    /// statistics, plus the contacts when `record_contacts` is set.
    ///
    /// Fails with [`StepError::NonFinite`] naming the first particle whose state is NaN
    /// or infinite, checked before and after the step; in the latter case the bodies hold
    /// the offending state for inspection while time and step count are not advanced.
    pub fn advance(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        record_contacts: bool,
    ) -> Result<StepOutput, StepError> {
        check_finite(state)?;
        let mut wall = PhaseTimes::default();
        if self.search == Search::Kept {
            detector.set_skin(self.skin);
            detector.begin_step(false);
        }
        let d = detector.detect(model, state, self.search, &mut self.contacts, &mut wall)?;

        let t_forces = Instant::now();
        let dt = self.dt;
        self.wrenches.clear();
        self.wrenches.resize(state.bodies.len(), Wrench::default());
        let mut records = Vec::new();
        let contact_energy = accumulate_forces(
            model,
            &state.bodies,
            &self.contacts,
            dt,
            &mut self.wrenches,
            record_contacts.then_some(&mut records),
        );
        wall.forces += t_forces.elapsed().as_secs_f64();

        let t_integrate = Instant::now();
        let gravity = self.gravity;
        explicit_euler(&mut state.bodies, &self.wrenches, &gravity, dt);
        wall.integrate = t_integrate.elapsed().as_secs_f64();
        check_finite(state)?;
        state.step += 1;
        state.time += dt;

        let obs = observables(&state.bodies, &gravity);
        let stats = StepStats {
            step: state.step,
            time: state.time,
            checks_per_level: checks_per_level(stats_levels(model), &d.stats),
            fallbacks: d.stats.fallbacks,
            candidate_pairs: d.pairs,
            contacts: self.contacts.len() as u32,
            kinetic_energy: obs.kinetic,
            potential_energy: obs.potential,
            linear_momentum: obs.linear_momentum.into(),
            angular_momentum: obs.angular_momentum.into(),
            iterations: 1,
            converged: true,
            substeps: 0,
            unfolds: d.counts.unfolds,
            narrows: d.counts.narrows,
            skipped: d.skipped,
            iteration_checks: Vec::new(),
            wall,
        };
        Ok(StepOutput {
            stats,
            contacts: records,
            contact_energy,
        })
    }
}

impl Integrator for ExplicitEuler {
    fn name(&self) -> &'static str {
        "explicit"
    }

    fn step(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        record_contacts: bool,
    ) -> Result<Stepped, StepError> {
        let out = self.advance(model, state, detector, record_contacts)?;
        // `wrenches` holds the forces of the contacts `advance` recorded.
        let wrenches = if record_contacts {
            self.wrenches.clone()
        } else {
            Vec::new()
        };
        Ok(Stepped {
            stats: out.stats,
            contacts: out.contacts,
            wrenches,
            residual: 0.0,
        })
    }
}
