//! Hertz–Mindlin keys through setup: the material's law and the obstacle's elastic
//! constants reach the model, and the time-step estimate follows the Hertz spring.

use crate::common::fixture::{scenario_text, Fixture};
use msdem_solver::contact::stability::stable_dt_estimate;
use msdem_solver::model::{ContactLaw, Elastic};
use msdem_solver::scenario::load_scenario;
use msdem_solver::setup::build_world;

#[test]
fn hertz_keys_reach_the_model_and_set_the_stable_time_step() {
    let f = Fixture::new();
    let text = scenario_text(
        "{ dt: 1.0e-4, end: 0.01, output_every: 10 }",
        "obstacles:
  - { name: floor, mesh: meshes/floor.ply, tree: trees/floor.tree, halo: { absolute_m: 0.003 }, youngs_modulus_pa: 2.0e9, poisson_ratio: 0.25, rolling_friction: 0.02 }
particles:
  - { shape: grain, material: rock, position: [0, 0, 1] }
",
    )
    .replace(
        "  rock: { density: 2500.0 }\n",
        "  rock: { density: 2500.0, contact_law: hertz_mindlin, youngs_modulus_pa: 1.0e7, poisson_ratio: 0.3, rolling_friction: 0.1 }\n",
    );
    let w = build_world(&load_scenario(&f.scenario("s.yaml", &text)).unwrap()).unwrap();
    let rock = w.model.materials.iter().find(|m| m.name == "rock").unwrap();
    assert_eq!(
        rock.law,
        ContactLaw::HertzMindlin {
            elastic: Elastic {
                youngs_modulus: 1e7,
                poisson_ratio: 0.3
            },
            rolling_friction: 0.1
        }
    );
    let floor = &w.model.obstacles[0];
    assert_eq!(
        (floor.elastic.youngs_modulus, floor.elastic.poisson_ratio),
        (2e9, 0.25)
    );
    assert_eq!(floor.rolling_friction, 0.02);
    // Independent estimate: the particle against itself (two equal spheres) and against
    // the floor; ω² = K_t(m)/m_eff with K_t = 3/2·(4/3)·E*·sqrt(R*)·sqrt(margin).
    let b = &w.state.bodies[0];
    let omega = |e_star: f64, r_star: f64, margin: f64, m_eff: f64| {
        (2.0 * e_star * (r_star * margin).sqrt() / m_eff).sqrt()
    };
    let particle = 1.0 / (2.0 * (1.0 - 0.09) / 1e7);
    let against_floor = 1.0 / ((1.0 - 0.09) / 1e7 + (1.0 - 0.0625) / 2e9);
    let w_pp = omega(particle, 0.5 * b.radius, 2.0 * b.epsilon, 0.5 * b.mass);
    let w_po = omega(against_floor, b.radius, b.epsilon + 0.003, b.mass);
    let truth = 2.0 * std::f64::consts::PI / w_pp.max(w_po) / 20.0;
    let dt = stable_dt_estimate(&w.model, &w.state.bodies);
    assert!((dt - truth).abs() < 1e-12 * truth, "{dt} vs {truth}");
}

/// `material_pairs:` through setup: a Hertz material beside a seed one is accepted (the
/// pair meets under Hertz with the seed side rigid), listed values replace the means, and
/// unlisted pairs keep the default rule.
#[test]
fn material_pairs_reach_the_pair_parameters() {
    use msdem_solver::contact::pair::PairParams;
    use msdem_solver::model::Other;
    let f = Fixture::new();
    let text = scenario_text(
        "{ dt: 1.0e-4, end: 0.01, output_every: 10 }",
        "material_pairs:
  - { materials: [sand, rock], restitution: 0.3, rolling_friction: 0.05 }
particles:
  - { shape: grain, material: rock, position: [0, 0, 1] }
  - { shape: grain, material: sand, position: [0, 0, 3] }
  - { shape: grain, material: sand, position: [0, 0, 5] }
",
    )
    .replace(
        "  rock: { density: 2500.0 }\n",
        "  rock: { density: 2500.0, restitution: 0.9, friction: 0.4, contact_law: hertz_mindlin, youngs_modulus_pa: 1.0e7, poisson_ratio: 0.3, rolling_friction: 0.1 }\n  sand: { density: 2500.0, restitution: 0.7, friction: 0.2 }\n",
    );
    let w = build_world(&load_scenario(&f.scenario("s.yaml", &text)).unwrap()).unwrap();
    let id = |name: &str| {
        w.state
            .bodies
            .iter()
            .position(|b| w.model.materials[b.material as usize].name == name)
            .unwrap() as u32
    };
    let (rock, sand) = (id("rock"), id("sand"));
    let mixed = PairParams::of(&w.model, &w.state.bodies, rock, Other::Particle(sand));
    assert_eq!(mixed.restitution, 0.3);
    assert!(
        (mixed.friction - 0.3).abs() < 1e-15,
        "mean friction {}",
        mixed.friction
    );
    let hz = mixed
        .hertz
        .expect("a Hertz material meets a seed one under Hertz");
    // The seed side is rigid: E* = E/(1 − ν²).
    assert!(
        (hz.modulus - 1e7 / (1.0 - 0.09)).abs() < 1e-6,
        "{}",
        hz.modulus
    );
    assert_eq!(hz.rolling_friction, 0.05);
    // Either order names the same pair.
    let back = PairParams::of(&w.model, &w.state.bodies, sand, Other::Particle(rock));
    assert_eq!(back.restitution, 0.3);
    // Two seed particles: not listed, the seed's spring and their own values.
    let other_sand = sand + 1;
    assert_eq!(
        w.model.materials[w.state.bodies[other_sand as usize].material as usize].name,
        "sand"
    );
    let seed = PairParams::of(&w.model, &w.state.bodies, sand, Other::Particle(other_sand));
    assert!(seed.hertz.is_none());
    assert_eq!((seed.restitution, seed.friction), (0.7, 0.2));
}
