//! One time step of whichever integrator the world's parameters select, with the
//! workspaces kept for the whole run (the multiscale active sets persist between steps).

use crate::frames::{ContactRecord, StepStats};
use crate::implicit::{implicit_step, ImplicitWorkspace};
use crate::step::{step, StepError, StepWorkspace};
use crate::world::{Integrator, World};

/// Reusable state of the run loop's integrators.
#[derive(Debug, Default)]
pub struct Stepper {
    explicit: StepWorkspace,
    implicit: ImplicitWorkspace,
}

/// What one step of either integrator reports to the run loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Stepped {
    /// Step statistics (`iterations` = Picard iterations, `converged` false when the
    /// Picard budget ran out).
    pub stats: StepStats,
    /// Contacts with their forces (empty unless requested).
    pub contacts: Vec<ContactRecord>,
    /// Largest relative force/torque update of the last Picard iteration [-] (0 for
    /// explicit steps).
    pub residual: f64,
}

impl Stepper {
    /// Empty workspaces.
    pub fn new() -> Self {
        Self::default()
    }

    /// Advances `world` by one step of `world.params.integrator`: explicit Euler
    /// ([`crate::step::step`]) or implicit Euler with the Picard variant and
    /// `world.params.picard` ([`crate::implicit::implicit_step`]).
    pub fn step(&mut self, world: &mut World, record_contacts: bool) -> Result<Stepped, StepError> {
        match world.params.integrator {
            Integrator::Explicit => {
                let out = step(world, &mut self.explicit, record_contacts)?;
                Ok(Stepped {
                    stats: out.stats,
                    contacts: out.contacts,
                    residual: 0.0,
                })
            }
            Integrator::Implicit(variant) => {
                let params = world.params.picard.clone();
                let out =
                    implicit_step(world, &mut self.implicit, &params, variant, record_contacts)?;
                let residual = out.per_iteration.last().map_or(0.0, |it| it.residual);
                Ok(Stepped {
                    stats: out.stats,
                    contacts: out.contacts,
                    residual,
                })
            }
        }
    }
}
