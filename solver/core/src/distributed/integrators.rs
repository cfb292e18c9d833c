//! The distributed integrator a scenario selects: explicit Euler ([`super::explicit`]) or
//! implicit Euler by Picard iterations ([`super::implicit`]); local time stepping has no
//! distributed form yet and is refused in one line.

use super::explicit::{DistributedExplicit, Traffic};
use super::implicit::DistributedImplicit;
use crate::detect::Detector;
use crate::error::StepError;
use crate::integrator::{Integrator, Stepped};
use crate::model::Model;
use crate::params::IntegratorChoice;
use crate::state::State;
use crate::world::World;

/// The distributed integrator of one rank.
#[derive(Debug)]
pub enum DistributedIntegrator {
    /// `integrator: explicit`.
    Explicit(Box<DistributedExplicit>),
    /// `integrator: implicit_*`.
    Implicit(Box<DistributedImplicit>),
}

impl DistributedIntegrator {
    /// The integrator of rank `rank` of `size` for `world`, rebalanced above the load
    /// imbalance `rebalance_above`; or one line saying why there is none (local time
    /// stepping, the Newton update, a domain left without particles).
    pub fn for_world(
        world: &World,
        rank: u32,
        size: u32,
        rebalance_above: f64,
    ) -> Result<Self, String> {
        let (model, state, params) = (&world.model, &world.state, &world.params);
        match params.integrator {
            IntegratorChoice::Explicit => {
                DistributedExplicit::new(model, state, params, rank, size, rebalance_above)
                    .map(|i| Self::Explicit(Box::new(i)))
                    .map_err(|e| e.to_string())
            }
            IntegratorChoice::Implicit(variant) => {
                DistributedImplicit::new(model, state, params, variant, rank, size, rebalance_above)
                    .map(|i| Self::Implicit(Box::new(i)))
            }
            IntegratorChoice::Lts(_) => Err(format!(
                "distributed runs support the explicit and implicit integrators, not `{}` \
                 (run it without mpirun or with one rank)",
                crate::integrator::for_params(params).name()
            )),
        }
    }

    /// Communication and balance counters so far.
    pub fn traffic(&self) -> Traffic {
        match self {
            Self::Explicit(i) => i.traffic(),
            Self::Implicit(i) => i.traffic(),
        }
    }

    /// A handle on the counters, updated after every step.
    pub fn shared_traffic(&self) -> std::sync::Arc<std::sync::Mutex<Traffic>> {
        match self {
            Self::Explicit(i) => i.shared_traffic(),
            Self::Implicit(i) => i.shared_traffic(),
        }
    }

    fn inner(&mut self) -> &mut dyn Integrator {
        match self {
            Self::Explicit(i) => i.as_mut(),
            Self::Implicit(i) => i.as_mut(),
        }
    }
}

impl Integrator for DistributedIntegrator {
    fn name(&self) -> &'static str {
        match self {
            Self::Explicit(i) => i.name(),
            Self::Implicit(i) => i.name(),
        }
    }

    fn step(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        record_contacts: bool,
    ) -> Result<Stepped, StepError> {
        self.inner().step(model, state, detector, record_contacts)
    }

    fn restore(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.inner().restore(bytes)
    }
}
