//! Contact laws from the scenario: a material's [`ContactLaw`], an obstacle's elastic
//! constants, and the scenario's material pairs (`docs/design.md` §3, "Hertz–Mindlin" and
//! "Material pairs").

use crate::error::SolverError;
use crate::model::{ContactLaw, Elastic, MaterialPair};
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

/// The scenario's `material_pairs:` with material indices (the position of each name in
/// the sorted `materials:`). A pair of materials meets under Hertz–Mindlin when either
/// material uses it (the other counts as rigid, as an obstacle without
/// `youngs_modulus_pa` does; `docs/design.md` §3, "Material pairs"), so `rolling_friction`
/// of a pair of two seed materials would never act and is refused, naming the entry.
pub fn material_pairs(scenario: &Scenario) -> Result<Vec<MaterialPair>, SolverError> {
    let index = |name: &str| {
        scenario
            .materials
            .keys()
            .position(|k| k == name)
            .map(|i| i as u32)
    };
    let hertz = |name: &str| {
        scenario
            .materials
            .get(name)
            .is_some_and(|m| m.contact_law == ContactLawSpec::HertzMindlin)
    };
    let mut out = Vec::with_capacity(scenario.material_pairs.len());
    for (i, p) in scenario.material_pairs.iter().enumerate() {
        let [a, b] = &p.materials;
        let error = |message: String| SolverError::Setup {
            file: scenario.file.clone(),
            context: format!("material_pairs[{i}]"),
            message,
        };
        let (Some(ia), Some(ib)) = (index(a), index(b)) else {
            // The parser checks the names; a scenario built in memory may not have.
            return Err(error(format!(
                "the pair `{a}`–`{b}` names an unknown material"
            )));
        };
        if p.rolling_friction.is_some() && !hertz(a) && !hertz(b) {
            return Err(error(format!(
                "`rolling_friction` of the pair `{a}`–`{b}` needs a `contact_law: hertz_mindlin` material \
                 (the seed's spring has no rolling resistance)"
            )));
        }
        out.push(MaterialPair {
            materials: (ia.min(ib), ia.max(ib)),
            restitution: p.restitution,
            friction: p.friction,
            rolling_friction: p.rolling_friction,
        });
    }
    Ok(out)
}
