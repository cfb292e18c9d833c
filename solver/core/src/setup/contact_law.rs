//! Contact laws from the scenario: a material's [`ContactLaw`], an obstacle's elastic
//! constants, and the rule that one scenario uses one particle contact law
//! (`docs/design.md` §3, "Hertz–Mindlin").

use crate::error::SolverError;
use crate::model::{ContactLaw, Elastic};
use crate::scenario::{ContactLawSpec, MaterialSpec, ObstacleSpec, Scenario};

/// The contact law of a parsed material (its keys were checked by the parser).
pub fn material_law(spec: &MaterialSpec) -> ContactLaw {
    match (spec.contact_law, spec.youngs_modulus_pa, spec.poisson_ratio) {
        (ContactLawSpec::HertzMindlin, Some(e), Some(nu)) => ContactLaw::HertzMindlin {
            elastic: Elastic {
                youngs_modulus: e,
                poisson_ratio: nu,
            },
            rolling_friction: spec.rolling_friction,
        },
        _ => ContactLaw::Seed,
    }
}

/// An obstacle's elastic constants: rigid (`E = ∞`) without `youngs_modulus_pa`, else
/// `E` with `ν` (default 0).
pub fn obstacle_elastic<G>(spec: &ObstacleSpec<G>) -> Elastic {
    match spec.youngs_modulus_pa {
        Some(e) => Elastic {
            youngs_modulus: e,
            poisson_ratio: spec.poisson_ratio.unwrap_or(0.0),
        },
        None => Elastic::RIGID,
    }
}

/// Refuses a scenario whose materials mix the seed's spring and Hertz–Mindlin: a pair
/// of the two has no defined law. Names the first material of the minority law.
pub fn check_one_law(scenario: &Scenario) -> Result<(), SolverError> {
    let hertz = |m: &MaterialSpec| m.contact_law == ContactLawSpec::HertzMindlin;
    let first_seed = scenario.materials.iter().find(|(_, m)| !hertz(m));
    let first_hertz = scenario.materials.iter().find(|(_, m)| hertz(m));
    match (first_seed, first_hertz) {
        (Some((seed, _)), Some((hm, _))) => Err(SolverError::Setup {
            file: scenario.file.clone(),
            context: format!("materials.{hm}"),
            message: format!(
                "`contact_law: hertz_mindlin` cannot meet material `{seed}` (`contact_law: seed`): \
                 use one contact law for all materials"
            ),
        }),
        _ => Ok(()),
    }
}
