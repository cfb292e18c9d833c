//! The contact law keys of a material (`contact_law`, `youngs_modulus_pa`,
//! `poisson_ratio`, `rolling_friction`) and the rules that tie them together
//! (`docs/design.md` §3, "Hertz–Mindlin").

use serde::{Deserialize, Serialize};

/// A material's contact law (`materials.NAME.contact_law`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactLawSpec {
    /// The seed's fade-in spring `K_s·sqrt(m_eff)·(1 − d/m)` (seed 000 §2; default).
    #[default]
    Seed,
    /// Hertz's normal force `4/3·E*·sqrt(R*)·δ^{3/2}` with restitution damping, Coulomb
    /// friction and rolling resistance; needs `youngs_modulus_pa` and `poisson_ratio`.
    HertzMindlin,
}

/// The elastic keys of a material as written, checked against its law: Hertz–Mindlin
/// needs `youngs_modulus_pa` and `poisson_ratio`; the seed's law accepts none of the
/// Hertz keys (they would be silently ignored). Returns the one-line message of the first
/// violation.
pub(crate) fn check_material(
    law: ContactLawSpec,
    youngs_modulus_pa: Option<f64>,
    poisson_ratio: Option<f64>,
    rolling_friction: f64,
) -> Result<(), String> {
    match law {
        ContactLawSpec::HertzMindlin => {
            let missing: Vec<&str> = [
                ("youngs_modulus_pa", youngs_modulus_pa.is_none()),
                ("poisson_ratio", poisson_ratio.is_none()),
            ]
            .iter()
            .filter(|(_, absent)| *absent)
            .map(|(k, _)| *k)
            .collect();
            if missing.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "`contact_law: hertz_mindlin` needs `{}`",
                    missing.join("` and `")
                ))
            }
        }
        ContactLawSpec::Seed => {
            let given: Vec<&str> = [
                ("youngs_modulus_pa", youngs_modulus_pa.is_some()),
                ("poisson_ratio", poisson_ratio.is_some()),
                ("rolling_friction", rolling_friction != 0.0),
            ]
            .iter()
            .filter(|(_, present)| *present)
            .map(|(k, _)| *k)
            .collect();
            if given.is_empty() {
                Ok(())
            } else {
                let verb = if given.len() == 1 { "needs" } else { "need" };
                Err(format!(
                    "`{}` {verb} `contact_law: hertz_mindlin` (the seed's spring uses `spring`)",
                    given.join("`, `")
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hertz_needs_its_moduli_and_seed_refuses_them() {
        let hm = ContactLawSpec::HertzMindlin;
        assert!(check_material(hm, Some(1e7), Some(0.3), 0.1).is_ok());
        assert_eq!(
            check_material(hm, None, None, 0.0).unwrap_err(),
            "`contact_law: hertz_mindlin` needs `youngs_modulus_pa` and `poisson_ratio`"
        );
        let seed = ContactLawSpec::Seed;
        assert!(check_material(seed, None, None, 0.0).is_ok());
        assert!(check_material(seed, Some(1e7), None, 0.0)
            .unwrap_err()
            .starts_with("`youngs_modulus_pa` needs"));
    }
}
