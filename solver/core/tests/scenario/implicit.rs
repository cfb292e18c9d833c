//! The implicit-integrator keys of the scenario reach the world's parameters: each
//! `integrator:` value maps to its Picard variant, `picard:` keys override the defaults
//! one by one, and a `detection.mode` that agrees with the variant is accepted.

use crate::common::fixture::{scenario_text, Fixture};
use msdem_solver::params::{
    IntegratorChoice as Integrator, NoConvergence, PicardAcceleration, PicardParams, PicardScheme,
    PicardVariant,
};
use msdem_solver::scenario::load_scenario;
use msdem_solver::setup::build_world;
use msdem_solver::world::World;

fn world(f: &Fixture, keys: &str) -> World {
    let body = format!(
        "{keys}\nparticles:\n  - {{ shape: grain, material: rock, position: [0, 0, 1] }}\n"
    );
    let s = f.scenario(
        "s.yaml",
        &scenario_text("{ dt: 1.0e-4, end: 0.01, output_every: 10 }", &body),
    );
    build_world(&load_scenario(&s).unwrap_or_else(|e| panic!("{keys}: {e}"))).unwrap()
}

#[test]
fn integrator_values_map_to_their_picard_variants() {
    let f = Fixture::new();
    for (key, integrator) in [
        ("explicit", Integrator::Explicit),
        ("implicit_flat", Integrator::Implicit(PicardVariant::Flat)),
        (
            "implicit_surrogate",
            Integrator::Implicit(PicardVariant::Surrogate),
        ),
        (
            "implicit_multiscale",
            Integrator::Implicit(PicardVariant::Multiscale),
        ),
    ] {
        let w = world(&f, &format!("integrator: {key}"));
        assert_eq!(w.params.integrator, integrator, "{key}");
        assert_eq!(w.params.picard, PicardParams::default(), "{key}");
    }
    assert_eq!(world(&f, "").params.integrator, Integrator::Explicit);
}

#[test]
fn picard_keys_override_the_defaults_one_by_one() {
    let f = Fixture::new();
    let w = world(
        &f,
        "integrator: implicit_multiscale
picard:
  tolerance: 0.002
  max_iterations: 12
  min_relaxation: 0.1
  relaxation: 0.8
  max_relaxation: 1.2
  force_floor: 0
  coarse_force_damping: 1
  keep_active_sets: false
  local_updates: false
  scheme: theta
  theta: 0.7
  acceleration: aitken
  on_no_convergence: stop
  max_substep_levels: 7",
    );
    let expected = PicardParams {
        tolerance: 0.002,
        max_iterations: 12,
        relaxation: 0.8,
        min_relaxation: 0.1,
        max_relaxation: 1.2,
        force_floor: 0.0,
        coarse_force_damping: 1.0,
        keep_active_sets: false,
        local_updates: false,
        scheme: PicardScheme::Theta,
        theta: 0.7,
        acceleration: PicardAcceleration::Aitken,
        on_no_convergence: NoConvergence::Stop,
        max_substep_levels: 7,
    };
    assert_eq!(w.params.picard, expected);
    let w = world(
        &f,
        "integrator: implicit_flat\npicard: { max_iterations: 7 }",
    );
    assert_eq!(
        w.params.picard,
        PicardParams {
            max_iterations: 7,
            ..PicardParams::default()
        }
    );
}

#[test]
fn a_detection_mode_that_agrees_with_the_variant_is_accepted() {
    let f = Fixture::new();
    for keys in [
        "integrator: implicit_flat\ndetection: { mode: flat, kernel: hybrid }",
        "detection: { mode: hierarchy }\nintegrator: implicit_multiscale",
        "detection: { mode: hierarchy }\nintegrator: implicit_surrogate",
        "detection: { mode: flat }\nintegrator: explicit",
    ] {
        world(&f, keys);
    }
}
