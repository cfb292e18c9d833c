//! The scenario's `broadphase:` → [`BroadPhaseChoice`], and the check, before the first
//! step, that the chosen broad phase accepts the initial particles (docs/design.md §7).
//!
//! Bounding radii never change during a run, so a particle that fits the largest given
//! cell (`cell_sizes` / `cell_size`) at the start fits it in every step: checking once here
//! turns what would be a mid-run failure into a setup error naming the particle.

use msdem_broadphase::{BroadPhaseError, HGridConfig};

use crate::detect::broad::{default_skin, BroadStage};
use crate::error::SolverError;
use crate::params::BroadPhaseChoice;
use crate::scenario::{short_number, BroadPhaseSpec, Scenario};
use crate::state::Body;
use crate::world::World;

/// The broad phase a scenario asks for. An unwritten skin is [`default_skin`] of `bodies`
/// when the cells are automatic, and 0 when the scenario gives them (`cell_sizes`,
/// `cell_size`), so that cells sized to fit the particles keep fitting.
pub(crate) fn choice(spec: &BroadPhaseSpec, bodies: &[Body]) -> BroadPhaseChoice {
    let skin = |written: &Option<f64>, given_cells: bool| match written {
        Some(s) => *s,
        None if given_cells => 0.0,
        None => default_skin(bodies),
    };
    match spec {
        BroadPhaseSpec::HGrid {
            levels,
            cell_sizes,
            skin: written,
        } => BroadPhaseChoice::HGrid(HGridConfig {
            levels: levels.map(|l| l as usize),
            cell_sizes: cell_sizes.clone(),
            skin: skin(written, cell_sizes.is_some()),
        }),
        BroadPhaseSpec::LinkedCells {
            cell_size,
            skin: written,
        } => BroadPhaseChoice::LinkedCells {
            cell_size: *cell_size,
            skin: skin(written, cell_size.is_some()),
        },
        BroadPhaseSpec::Bins { bin_size } => BroadPhaseChoice::Bins {
            bin_size: *bin_size,
        },
        BroadPhaseSpec::AllPairs => BroadPhaseChoice::AllPairs,
    }
}

/// Runs the world's broad phase once on the initial state; a refusal becomes a
/// [`SolverError::Setup`] at `broadphase` that names the particle (id and origin).
pub(crate) fn check_initial(
    scenario: &Scenario,
    world: &World,
    origins: &[String],
) -> Result<(), SolverError> {
    let mut pairs = Vec::new();
    let Err(e) = BroadStage::default().candidates(
        &world.model,
        &world.state.bodies,
        &world.params.broadphase,
        &mut pairs,
    ) else {
        return Ok(());
    };
    let particle = |index: usize| {
        let origin = origins.get(index).map_or("?", String::as_str);
        format!("particle {index} ({origin})")
    };
    let message = match e {
        BroadPhaseError::TooLarge {
            index,
            diameter,
            cell_size,
        } if matches!(world.params.broadphase, BroadPhaseChoice::Bins { .. }) => format!(
            "{}: bounding diameter {} m (incl. ε) is wider than 32 bins ({} m); give a \
             larger `broadphase.bin_size` or leave it out",
            particle(index),
            short_number(significant(diameter)),
            short_number(significant(cell_size))
        ),
        BroadPhaseError::TooLarge {
            index,
            diameter,
            cell_size,
        } => {
            let key = match world.params.broadphase {
                BroadPhaseChoice::LinkedCells { .. } => "cell_size",
                _ => "cell_sizes",
            };
            format!(
                "{}: bounding diameter {} m (incl. ε and skin) does not fit the largest \
                 cell size {} m; give a cell larger than the diameter (by 0.1 %) \
                 or leave `broadphase.{key}` out",
                particle(index),
                short_number(significant(diameter)),
                short_number(cell_size)
            )
        }
        BroadPhaseError::NonFinite { index, .. }
        | BroadPhaseError::NegativeRadius { index, .. }
        | BroadPhaseError::OutOfRange { index, .. } => format!("{}: {e}", particle(index)),
        other => other.to_string(),
    };
    Err(SolverError::Setup {
        file: scenario.file.clone(),
        context: "broadphase".to_owned(),
        message,
    })
}

/// `v` rounded to 9 significant digits, so that `0.1 + 0.002` prints as `0.102`.
fn significant(v: f64) -> f64 {
    if !v.is_finite() || v == 0.0 {
        return v;
    }
    let scale = 10f64.powi(8 - v.abs().log10().floor() as i32);
    (v * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::significant;

    #[test]
    fn significant_digits_drop_rounding_noise_only() {
        assert_eq!(significant(0.1 + 0.002).to_string(), "0.102");
        assert_eq!(significant(0.11200000000000002).to_string(), "0.112");
        assert_eq!(significant(123456.789).to_string(), "123456.789");
        assert_eq!(significant(1.5e-7), 1.5e-7);
        assert_eq!(significant(0.0), 0.0);
    }
}
