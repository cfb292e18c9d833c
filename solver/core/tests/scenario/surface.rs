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

/// With `surface: smooth` a sphere's particles get the mass of the solid its curved surface
/// bounds (80-triangle icosphere r = 0.05 m, whose 36° edges are partly creases: between
/// its facets' mass, 12.7 % below the ball's `4/3·π·r³·ρ`, and the ball's; the physics
/// tests check the curved mass against the ball and a second method,
/// `tests/physics/smooth_mass.rs`); `facets` keeps the polyhedron's mass bit for bit, and a cube
/// (no curved triangle) keeps it under `smooth` too. A shape used by particles of both
/// surfaces is refused, naming it and both materials.
#[test]
fn smooth_particles_get_the_curved_solids_mass() {
    use crate::common::fixture::GRAIN_RADIUS;
    let f = Fixture::new();
    let text = |grain: &str, cube: &str| {
        scenario_text(
            "{ dt: 1.0e-4, end: 0.01, output_every: 10 }",
            &format!(
                "particles:
  - {{ shape: grain, material: {grain}, position: [0, 0, 1] }}
  - {{ shape: cube, material: {cube}, position: [1, 0, 1] }}
"
            ),
        )
        .replace(
            "  rock: { density: 2500.0 }\n",
            "  rock: { density: 2500.0 }\n  glass: { density: 2500.0, surface: smooth }\n",
        )
    };
    let build = |t: String| build_world(&load_scenario(&f.scenario("s.yaml", &t)).unwrap());
    let facets = build(text("rock", "rock")).unwrap();
    let smooth = build(text("glass", "glass")).unwrap();
    let ball = 4.0 / 3.0 * std::f64::consts::PI * GRAIN_RADIUS.powi(3) * 2500.0;
    let mesh = |name: &str| {
        let (m, _) = msdem_mesh::read_mesh(f.path().join(format!("meshes/{name}.ply"))).unwrap();
        msdem_mesh::mass::mass_properties(&m, 2500.0).unwrap()
    };
    let (grain, cube) = (mesh("grain"), mesh("cube"));
    let (mf, ms) = (facets.state.bodies[0].mass, smooth.state.bodies[0].mass);
    eprintln!("grain mass: facets {mf:.6} smooth {ms:.6} ball {ball:.6}");
    assert_eq!(mf.to_bits(), grain.mass.to_bits());
    assert!(mf < ms && ms < ball, "{mf} {ms} {ball}");
    let grain_shape = &smooth.model.shapes[smooth.state.bodies[0].shape as usize];
    assert_eq!(ms.to_bits(), (2500.0 * grain_shape.volume).to_bits());
    assert_eq!(
        smooth.state.bodies[0].inertia,
        grain_shape.unit_inertia * 2500.0
    );
    for w in [&facets, &smooth] {
        assert_eq!(w.state.bodies[1].mass.to_bits(), cube.mass.to_bits());
        assert_eq!(
            w.state.bodies[1].inertia[(0, 0)].to_bits(),
            cube.inertia[0][0].to_bits()
        );
    }
    // Different shapes of different surfaces are fine.
    let apart = build(text("glass", "rock")).unwrap();
    assert_eq!(apart.state.bodies[0].mass.to_bits(), ms.to_bits());
    assert_eq!(apart.state.bodies[1].mass.to_bits(), cube.mass.to_bits());
    // Two grains of different surfaces: the grain is refused.
    let mixed = text("glass", "rock").replace(
        "  - { shape: cube, material: rock,",
        "  - { shape: grain, material: rock,",
    );
    let err = build(mixed).unwrap_err().to_string();
    assert!(
        err.contains("shapes.grain") && err.contains("`glass`") && err.contains("`rock`"),
        "{err}"
    );
}
