//! Explicit steps on a scenario with the hierarchical detection working on the active sets
//! kept from step to step (the solver's default) against Alg. 5 from the roots in every
//! step, in the same run: wall time, kernel checks, and a check that both give the same
//! contacts and states in every step.
//!
//! ```text
//! make pipeline SCENARIO=staircase
//! cargo run --release -p msdem-solver --example explicit_kept -- out/staircase/scenario.yaml --steps 20000
//! ```

use anyhow::{bail, Result};
use clap::Parser;
use msdem_solver::detect::{Detector, Search};
use msdem_solver::integrator::explicit::ExplicitEuler;
use msdem_solver::scenario::load_scenario;
use msdem_solver::setup::build_world;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Parser, Debug)]
#[command(about = "Explicit steps: kept active sets vs descent from the roots")]
struct Args {
    /// Solver scenario file (e.g. out/staircase/scenario.yaml after its pipeline ran).
    scenario: PathBuf,
    /// Steps to run with each detection.
    #[arg(long, default_value_t = 20_000)]
    steps: u64,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let scenario = load_scenario(&args.scenario)?;
    let base = build_world(&scenario)?;
    let (mut kept, mut roots) = (base.clone(), base);
    // Each world its own integrator and detector. The scenario's search (the kept active
    // sets by default) against a search from scratch in the scenario's detection mode.
    let p = &kept.params;
    let mut ex_kept = ExplicitEuler::new(p);
    let mut ex_roots = ExplicitEuler::new(p);
    ex_roots.set_search(Search::Roots(p.detection));
    let (mut det_kept, mut det_roots) = (Detector::new(p), Detector::new(p));
    let (mut t_kept, mut t_roots) = (0.0, 0.0);
    let (mut c_kept, mut c_roots, mut contacts, mut skipped) = (0u64, 0u64, 0u64, 0u64);
    let checks = |v: &[u64]| v[..v.len() - 1].iter().sum::<u64>();
    for s in 0..args.steps {
        let t = Instant::now();
        let a = ex_kept.advance(&kept.model, &mut kept.state, &mut det_kept, false)?;
        t_kept += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let b = ex_roots.advance(&roots.model, &mut roots.state, &mut det_roots, false)?;
        t_roots += t.elapsed().as_secs_f64();
        if a.stats.contacts != b.stats.contacts
            || kept
                .state
                .bodies
                .iter()
                .zip(&roots.state.bodies)
                .any(|(p, q)| p.position != q.position || p.angular_velocity != q.angular_velocity)
        {
            bail!("step {}: the two detections disagree", s + 1);
        }
        c_kept += checks(&a.stats.checks_per_level);
        c_roots += checks(&b.stats.checks_per_level);
        contacts += u64::from(a.stats.contacts);
        skipped += a.stats.skipped;
    }
    println!(
        "{} steps, {} particles, {contacts} contacts in all (identical states in every step)",
        args.steps,
        kept.state.bodies.len()
    );
    println!(
        "kept active sets: {t_kept:.2} s, {c_kept} kernel checks, {skipped} pairs skipped by certificates"
    );
    println!("from the roots:   {t_roots:.2} s, {c_roots} kernel checks");
    println!(
        "roots / kept: time {:.2}×, checks {:.2}×",
        t_roots / t_kept,
        c_roots as f64 / c_kept.max(1) as f64
    );
    Ok(())
}
