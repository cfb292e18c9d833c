//! The material key `surface` through setup: `smooth` reaches the model and the particle
//! shapes get their curved surface; left out, every material meets with its facets and no
//! shape carries one (`docs/design.md` §3, *Smooth surfaces*).

use crate::common::fixture::{scenario_text, Fixture};
use msdem_solver::model::smooth::Surface;
use msdem_solver::scenario::load_scenario;
use msdem_solver::setup::build_world;

#[test]
fn surface_key_reaches_the_model() {
    let f = Fixture::new();
    let base = scenario_text(
        "{ dt: 1.0e-4, end: 0.01, output_every: 10 }",
        "particles:
  - { shape: grain, material: rock, position: [0, 0, 1] }
",
    );
    for (key, surface) in [
        ("", Surface::Facets),
        (", surface: smooth", Surface::Smooth),
    ] {
        let text = base.replace(
            "  rock: { density: 2500.0 }\n",
            &format!("  rock: {{ density: 2500.0{key} }}\n"),
        );
        let w = build_world(&load_scenario(&f.scenario("s.yaml", &text)).unwrap()).unwrap();
        let rock = w.model.materials.iter().find(|m| m.name == "rock").unwrap();
        assert_eq!(rock.surface, surface);
        let mesh = w.model.shapes[0].geometry.mesh().unwrap();
        let computed = mesh.smooth.corners.len() == mesh.tree.soup.len();
        assert_eq!(computed, surface == Surface::Smooth, "{key}");
    }
}
