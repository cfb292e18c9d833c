//! The solver as a library: load a scenario file, build its world, run 100 steps (or
//! STEPS) with the run loop's [`Stepper`] and print the contacts of the last step: their
//! count and the first few records (bodies, point, force).
//!
//! A scenario names mesh and tree files, which the pipeline makes. The default scenario is
//! that of the smallest test pipeline, two grains falling onto a plane (the lower one is
//! on the plane in steps ≈ 126–165, so pass 150 to see a contact):
//!
//! ```text
//! cargo build --release --bins
//! ./target/release/pipeline tests/pipelines/tiny.yaml    # writes out/tiny/scenario.yaml
//! cargo run --release -p msdem-solver --example usage [-- [SCENARIO.yaml [STEPS]]]
//! ```
//!
//! Any other scenario works the same way, e.g. after `make pipeline SCENARIO=particle_pair`
//! with `-- out/particle_pair/scenario.yaml 2200` (its spheres touch around step 2,200).

use std::path::Path;

use anyhow::{Context, Result};
use msdem_solver::frames::ContactRecord;
use msdem_solver::run::Stepper;
use msdem_solver::scenario::load_scenario;
use msdem_solver::setup::build_world;
use msdem_solver::world::World;

/// Loads `scenario`, builds its world (model, state, run parameters) and advances it by
/// `steps` steps of the integrator the scenario selects; returns the world and the
/// contacts, with their forces, of the last step.
pub fn simulate(scenario: &Path, steps: u64) -> Result<(World, Vec<ContactRecord>)> {
    let loaded = load_scenario(scenario).context("loading the scenario (see examples/usage.rs)")?;
    let mut world = build_world(&loaded)?;
    // One detector (it keeps the active sets between steps) and one integrator per run.
    let mut stepper = Stepper::new(&world.params);
    let mut contacts = Vec::new();
    for k in 1..=steps {
        // Contact records (with forces) cost extra: ask for them in the last step only.
        contacts = stepper
            .step(&world.model, &mut world.state, k == steps)?
            .contacts;
    }
    Ok((world, contacts))
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "out/tiny/scenario.yaml".into());
    let steps = args.next().map_or(Ok(100), |s| s.parse())?;
    let (world, contacts) = simulate(Path::new(&path), steps)?;
    let state = &world.state;
    println!(
        "{}: {} particles, step {} at t = {:.4} s: {} contacts",
        world.model.name,
        state.bodies.len(),
        state.step,
        state.time,
        contacts.len()
    );
    for c in contacts.iter().take(5) {
        println!(
            "  particle {} – {:?}: point {:.4?} m, force {:.4?} N",
            c.a, c.b, c.point, c.force
        );
    }
    Ok(())
}
