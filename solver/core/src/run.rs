//! The run loop (seed 000 Alg. 1 driven to the end time): validate, prepare the run
//! folder, write the manifest and frame 0, step, write a frame every `output_every` steps,
//! stream the per-step statistics to disk in chunks ([`streams`]; memory stays flat) and
//! write the last chunk at the end — also when a step fails, so that the frames written so
//! far and the statistics up to the failure stay readable. Frames, the manifest and
//! checkpoints are written atomically; the statistics are appended in checksummed chunks
//! (see [`crate::frames`]).
//!
//! Nothing is written before every check passed: a bad world or an unusable output folder
//! leaves the disk untouched.

use std::path::Path;
use std::time::Instant;

use crate::contact::force::Wrench;
use crate::contact::stability::stable_dt_estimate;
use crate::detect::stats_levels;
use crate::error::{SolverError, StepError};
use crate::frames::{self, BodyLoad, BodyState, ContactRecord, Frame, Other, FRAME_MAGIC};
use crate::integrator::Stepped;
use crate::params::IntegratorChoice;
use crate::state::State;
use crate::world::World;

pub mod budget;
pub mod checkpoint;
mod output;
pub mod progress;
mod stepper;
pub mod streams;
mod summary;

pub use output::relative_to;
pub use stepper::Stepper;
pub use summary::RunSummary;

/// Non-converged implicit steps reported one by one on stderr; later ones are only
/// counted (in [`RunSummary::unconverged_steps`] and one closing warning).
pub const MAX_CONVERGENCE_WARNINGS: u64 = 3;

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Show no progress (see [`progress`] for the bar and the plain lines).
    pub quiet: bool,
    /// Write the wall-clock times per phase to `timings.msdem`. Every other output file
    /// (`stats.msdem` included, whose `wall` fields are zero) is byte-identical across runs
    /// of the same scenario either way.
    pub wall_times: bool,
    /// When to write a checkpoint ([`checkpoint`]); [`checkpoint::Cadence::NEVER`] for
    /// none. Checkpoints never change the other output files.
    pub checkpoint: checkpoint::Cadence,
    /// [`solve`]: continue from the run folder's checkpoint ([`resume`]).
    pub restart: bool,
    /// [`solve`]: the cadence given on the command line, which wins over the scenario's
    /// `checkpoint:` section, which wins over [`RunOptions::checkpoint`]
    /// ([`checkpoint::Cadence::with`]).
    pub checkpoint_flags: checkpoint::CadenceFlags,
    /// The most steps the run may take (`solver --max-steps`); `None`: the scenario's
    /// `limits.max_steps` in [`solve`], [`crate::scenario::DEFAULT_MAX_STEPS`] in [`run`]
    /// and [`resume`]. A longer run is refused before it starts.
    pub max_steps: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            quiet: false,
            wall_times: true,
            checkpoint: checkpoint::Cadence::default(),
            restart: false,
            checkpoint_flags: checkpoint::CadenceFlags::default(),
            max_steps: None,
        }
    }
}

/// Number of steps to reach `end` with steps of `dt`: `end/dt` rounded up, except that a
/// ratio within 1e-9 (relative) of an integer counts as that integer.
pub fn step_count(dt: f64, end: f64) -> u64 {
    let r = end / dt;
    let n = r.round();
    if (r - n).abs() <= 1e-9 * r.max(1.0) {
        n as u64
    } else {
        r.ceil() as u64
    }
}

/// A warning when the time step of an explicit run exceeds the stability estimate of the
/// contact springs ([`stable_dt_estimate`]), `None` otherwise and for implicit runs (their
/// Picard iterations report steps that do not converge instead).
pub fn time_step_warning(world: &World) -> Option<String> {
    if world.params.integrator != IntegratorChoice::Explicit {
        return None;
    }
    let stable = stable_dt_estimate(&world.model, &world.state.bodies);
    (world.params.dt > stable).then(|| {
        format!(
            "time step dt = {} s exceeds the stable estimate {:.3e} s of the contact springs; \
             the run may blow up (lower time.dt)",
            world.params.dt, stable
        )
    })
}

/// Warnings for materials and obstacles whose restitution lies below the lowest one the
/// capped contact dashpot reaches (`impact_restitution(MAX_DAMPING_RATIO, DAMPING_CAP)`
/// ≈ 0.11, [`crate::contact::pair`]): their impacts rebound with that restitution instead.
pub fn restitution_warnings(world: &World) -> Vec<String> {
    use crate::contact::pair::{impact_restitution, DAMPING_CAP, MAX_DAMPING_RATIO};
    let lowest = impact_restitution(MAX_DAMPING_RATIO, DAMPING_CAP);
    let named = world
        .model
        .materials
        .iter()
        .map(|m| ("material", &m.name, m.restitution))
        .chain(
            world
                .model
                .obstacles
                .iter()
                .map(|o| ("obstacle", &o.name, o.restitution)),
        );
    named
        .filter(|&(_, _, e)| e < lowest)
        .map(|(kind, name, e)| {
            format!(
                "{kind} `{name}`: restitution {e} is below the lowest the contact dashpot \
                 reaches ({lowest:.3}); its impacts rebound with about {lowest:.3}"
            )
        })
        .collect()
}

/// Largest over smallest semi-axis of an ellipsoid shape above which the solver warns
/// (OpM and ChM are tested up to much lower ratios; very flat or needle-like ellipsoids
/// need small time steps).
pub const ELLIPSOID_ASPECT_WARNING: f64 = 100.0;

/// Warnings for ellipsoid shapes whose aspect ratio exceeds [`ELLIPSOID_ASPECT_WARNING`].
pub fn ellipsoid_warnings(world: &World) -> Vec<String> {
    world
        .model
        .shapes
        .iter()
        .filter_map(|s| {
            let e = s.geometry.ellipsoid()?;
            let ratio = e.aspect_ratio();
            (ratio > ELLIPSOID_ASPECT_WARNING).then(|| {
                format!(
                    "shape `{}`: ellipsoid aspect ratio {ratio:.3e} exceeds \
                     {ELLIPSOID_ASPECT_WARNING}; contact detection is untested there",
                    s.name
                )
            })
        })
        .collect()
}

/// Kinematic state of every particle for a frame.
pub fn body_states(state: &State) -> Vec<BodyState> {
    state
        .bodies
        .iter()
        .map(|b| {
            let q = b.orientation.quaternion();
            BodyState {
                position: b.position.into(),
                orientation: [q.w, q.i, q.j, q.k],
                velocity: b.velocity.into(),
                angular_velocity: b.angular_velocity.into(),
            }
        })
        .collect()
}

/// Contact load of every one of `bodies` particles for a frame: force and torque from
/// `wrenches` (the integrator's sums over exactly `contacts`; empty = no contacts, all
/// zero) and the number of `contacts` that involve each particle.
pub fn body_loads(bodies: usize, contacts: &[ContactRecord], wrenches: &[Wrench]) -> Vec<BodyLoad> {
    let mut loads: Vec<BodyLoad> = (0..bodies)
        .map(|i| match wrenches.get(i) {
            Some(w) => BodyLoad {
                force: w.force.into(),
                torque: w.torque.into(),
                contacts: 0,
            },
            None => BodyLoad::default(),
        })
        .collect();
    for c in contacts {
        if let Some(l) = loads.get_mut(c.a as usize) {
            l.contacts += 1;
        }
        if let Other::Particle(j) = c.b {
            if let Some(l) = loads.get_mut(j as usize) {
                l.contacts += 1;
            }
        }
    }
    loads
}

fn check_world(world: &World) -> Result<(), SolverError> {
    let p = &world.params;
    let bad = |message: String| SolverError::InvalidWorld {
        name: world.model.name.clone(),
        message,
    };
    if !(p.dt.is_finite() && p.dt > 0.0 && p.end.is_finite() && p.end > 0.0) {
        return Err(bad(format!(
            "invalid time stepping dt = {}, end = {}",
            p.dt, p.end
        )));
    }
    if p.output_every == 0 {
        return Err(bad("output_every must be ≥ 1".to_owned()));
    }
    if world.state.bodies.is_empty() {
        return Err(bad("no particles".to_owned()));
    }
    if let Some((particle, what)) = crate::motion::first_non_finite(&world.state.bodies) {
        return Err(SolverError::NonFinite {
            step: world.state.step,
            particle,
            what: what.to_owned(),
        });
    }
    Ok(())
}

/// The warning for a step whose Picard iterations did not converge.
fn unconverged(name: &str, tolerance: f64, out: &Stepped) -> String {
    format!(
        "{}: step {} (t = {:.6e} s): Picard iterations did not converge within {} \
         (largest relative update {:.3e} > tolerance {:.1e}); the last guess was accepted \
         (raise picard.max_iterations or lower time.dt)",
        name, out.stats.step, out.stats.time, out.stats.iterations, out.residual, tolerance
    )
}

/// Pipeline stage 3 in one call: loads and validates the scenario at `scenario`, builds the
/// world (meshes, trees, particles, interpenetration check), prints a warning on stderr when
/// `dt` exceeds the stability estimate, and runs it into `out_dir` — first refusing a
/// scenario over its limits (steps, memory, disk: [`budget`]) — with
/// [`RunOptions::restart`], from
/// the checkpoint in `out_dir` ([`resume`]). Checkpoints are taken at the cadence of
/// [`RunOptions::checkpoint_flags`], else of the scenario's `checkpoint:` section, else of
/// [`RunOptions::checkpoint`].
pub fn solve(
    scenario: &Path,
    out_dir: &Path,
    options: &RunOptions,
) -> Result<RunSummary, SolverError> {
    solve_with(scenario, out_dir, options, |world| {
        Ok(Stepper::new(&world.params))
    })
}

/// [`solve`] with the stepper that `stepper` makes for the built world (a distributed run
/// passes its own integrator; an error stops the run before anything is written).
pub fn solve_with(
    scenario: &Path,
    out_dir: &Path,
    options: &RunOptions,
    stepper: impl FnOnce(&World) -> Result<Stepper, SolverError>,
) -> Result<RunSummary, SolverError> {
    let scenario = crate::scenario::load_scenario(scenario)?;
    let max_steps = options.max_steps.unwrap_or(scenario.limits.max_steps);
    let needs = budget::estimate(&scenario, options.wall_times);
    budget::check(
        &scenario,
        &needs,
        &budget::machine(out_dir),
        max_steps,
        out_dir,
    )?;
    let world = crate::setup::build_world(&scenario)?;
    if let Some(w) = time_step_warning(&world) {
        eprintln!("warning: {}: {w}", scenario.file.display());
    }
    for w in restitution_warnings(&world)
        .into_iter()
        .chain(ellipsoid_warnings(&world))
    {
        eprintln!("warning: {}: {w}", scenario.file.display());
    }
    let options = RunOptions {
        max_steps: Some(max_steps),
        checkpoint: options
            .checkpoint
            .with(&scenario.checkpoint, &options.checkpoint_flags),
        ..options.clone()
    };
    let stepper = stepper(&world)?;
    let result = start(world, out_dir, &options, options.restart, stepper);
    // Errors of the run loop name a step and a particle; say which scenario they belong to.
    result.map_err(|e| match e {
        SolverError::NonFinite { .. } | SolverError::Step(_) | SolverError::InvalidWorld { .. } => {
            SolverError::InRun {
                file: scenario.file.clone(),
                error: Box::new(e),
            }
        }
        other => other,
    })
}

/// Runs `world` to its end time, writing into `out_dir` (see the module documentation).
pub fn run(world: World, out_dir: &Path, options: &RunOptions) -> Result<RunSummary, SolverError> {
    let stepper = Stepper::new(&world.params);
    start(world, out_dir, options, false, stepper)
}

/// Continues the run of `world` in `out_dir` from its checkpoint ([`checkpoint::load`]):
/// frames written after the checkpoint are removed and the run goes on to its end time,
/// writing the same files as an uninterrupted run. Without a checkpoint the run starts
/// from step 0 (a note on stderr unless quiet); a corrupt checkpoint, or one of another
/// run, is an error naming the file and changes nothing.
pub fn resume(
    world: World,
    out_dir: &Path,
    options: &RunOptions,
) -> Result<RunSummary, SolverError> {
    let stepper = Stepper::new(&world.params);
    start(world, out_dir, options, true, stepper)
}

fn start(
    world: World,
    out_dir: &Path,
    options: &RunOptions,
    restart: bool,
    mut stepper: Stepper,
) -> Result<RunSummary, SolverError> {
    check_world(&world)?;
    output::check_output_folder(out_dir)?;
    let steps = step_count(world.params.dt, world.params.end);
    let max_steps = options
        .max_steps
        .unwrap_or(crate::scenario::DEFAULT_MAX_STEPS);
    if steps > max_steps {
        return Err(SolverError::InvalidWorld {
            name: world.model.name.clone(),
            message: format!(
                "end / dt = {} steps, more than the cap of {} (raise max_steps)",
                crate::scenario::limits::short(steps as f64),
                crate::scenario::limits::short(max_steps as f64)
            ),
        });
    }
    let every = u64::from(world.params.output_every);

    let manifest = output::manifest(
        &world.model,
        &world.state,
        world.params.dt,
        world.params.output_every,
        out_dir,
        stats_levels(&world.model),
    );
    let identity = checkpoint::identity(&manifest, &world.params, steps);
    let restored = match restart {
        true => checkpoint::load(out_dir, &identity)?,
        false => None,
    };
    if restart && restored.is_none() && !options.quiet {
        eprintln!(
            "note: {}: no checkpoint; the run starts from step 0",
            out_dir.display()
        );
    }
    let mut summary = RunSummary {
        name: world.model.name.clone(),
        out_dir: out_dir.to_path_buf(),
        ..RunSummary::default()
    };
    let write_frame =
        |state: &State, index: u32, contacts: Vec<ContactRecord>, wrenches: &[Wrench]| {
            let frame = Frame {
                step: state.step,
                time: state.time,
                bodies: body_states(state),
                loads: body_loads(state.bodies.len(), &contacts, wrenches),
                contacts,
            };
            frames::write_record(&frames::frame_path(out_dir, index), &FRAME_MAGIC, &frame)
        };
    let World {
        model,
        mut state,
        params,
    } = world;
    let mut streams = match restored {
        None => {
            output::prepare_output_folder(out_dir)?;
            checkpoint::remove(out_dir)?;
            output::write_manifest(out_dir, &manifest)?;
            write_frame(&state, 0, Vec::new(), &[])?;
            summary.frames = 1;
            streams::Streams::create(out_dir, options.wall_times)?
        }
        Some(c) => {
            if !options.quiet {
                eprintln!(
                    "note: {}: resuming from the checkpoint at step {} (t = {} s)",
                    out_dir.display(),
                    c.step,
                    c.time
                );
            }
            c.check_fits(
                &frames::checkpoint_path(out_dir),
                &state.bodies,
                steps,
                every,
            )?;
            stepper
                .restore(&c.detector, &c.integrator)
                .map_err(|message| SolverError::Output {
                    path: frames::checkpoint_path(out_dir),
                    message,
                })?;
            output::remove_later_frames(out_dir, c.frames)?;
            output::write_manifest(out_dir, &manifest)?;
            state = c.state();
            summary.frames = c.frames;
            streams::Streams::resume(out_dir, c.streams, options.wall_times, |s| {
                summary.add_step(s);
                summary.unconverged_steps += u64::from(!s.converged);
            })?
        }
    };

    let start = Instant::now();
    let mut last_checkpoint = Instant::now();
    let bar = progress::progress_bar(steps, params.dt, options.quiet);
    bar.inc(state.step);
    let mut failure = None;
    for n in state.step + 1..=steps {
        let output_step = n % every == 0;
        // Decided before the step, so that a distributed integrator gathers its state
        // during it (the wall time is read at the step's start rather than its end).
        let checkpoint_due = n < steps
            && options
                .checkpoint
                .due(n, last_checkpoint.elapsed().as_secs_f64());
        stepper.checkpoint_follows(checkpoint_due);
        match stepper.step(&model, &mut state, output_step) {
            Ok(mut out) => {
                if !out.stats.converged {
                    summary.unconverged_steps += 1;
                    if summary.unconverged_steps <= MAX_CONVERGENCE_WARNINGS {
                        let tolerance = params.picard.tolerance;
                        let warning = match stepper.integrator().lts_stats() {
                            Some((lts, _)) => format!(
                                "{}: step {} (t = {:.6e} s): the sequential impulses of {} \
                                 cluster collision(s) did not converge (sweeps, direct \
                                 solves and lts.impulse.fallback_iterations steps of the \
                                 fallback); the last iterate was accepted",
                                model.name, out.stats.step, out.stats.time, lts.impulse_unconverged
                            ),
                            None => unconverged(&model.name, tolerance, &out),
                        };
                        bar.suspend(|| eprintln!("warning: {warning}"));
                    }
                }
                // Wall times go to their own file so that `stats.msdem` is deterministic.
                let wall = std::mem::take(&mut out.stats.wall);
                summary.add_step(&out.stats);
                let lts = stepper.integrator().lts_stats();
                if let Err(e) = streams.push(out_dir, out.stats, wall, lts) {
                    failure = Some(e);
                    break;
                }
                if output_step {
                    if let Err(e) = write_frame(&state, summary.frames, out.contacts, &out.wrenches)
                    {
                        failure = Some(SolverError::from(e));
                        break;
                    }
                    summary.frames += 1;
                }
                if checkpoint_due {
                    let (detector, integrator) = stepper.snapshot();
                    let marks = match streams.marks() {
                        Ok(m) => m,
                        Err(e) => {
                            failure = Some(e);
                            break;
                        }
                    };
                    let c = checkpoint::CheckpointRef {
                        identity: &identity,
                        bodies: &state.bodies,
                        time: state.time,
                        step: state.step,
                        frames: summary.frames,
                        streams: &marks,
                        detector: &detector,
                        integrator: &integrator,
                    };
                    if let Err(e) = checkpoint::write(out_dir, &c) {
                        failure = Some(e);
                        break;
                    }
                    last_checkpoint = Instant::now();
                }
            }
            Err(e) => {
                failure = Some(match e {
                    StepError::NonFinite {
                        step,
                        particle,
                        quantity,
                    } => SolverError::NonFinite {
                        step,
                        particle,
                        what: format!("{quantity} (time step too large or absurd initial state?)"),
                    },
                    other => SolverError::Step(other),
                });
                break;
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    if summary.unconverged_steps > MAX_CONVERGENCE_WARNINGS {
        eprintln!(
            "warning: {}: {} steps in total did not converge ({} more than reported; \
             `converged` in stats.msdem)",
            model.name,
            summary.unconverged_steps,
            summary.unconverged_steps - MAX_CONVERGENCE_WARNINGS
        );
    }
    summary.wall_seconds = start.elapsed().as_secs_f64();
    streams.end_chunks()?;
    summary.peak_buffered_steps = streams.peak_buffered() as u64;
    match failure {
        Some(e) => Err(e),
        None => {
            checkpoint::remove(out_dir)?;
            Ok(summary)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_count_rounds_up_but_forgives_rounding_noise() {
        assert_eq!(step_count(1e-4, 0.01), 100);
        assert_eq!(step_count(0.1, 0.3), 3);
        assert_eq!(step_count(0.1, 0.35), 4);
        assert_eq!(step_count(2.0e-5, 2.0), 100_000);
        assert_eq!(step_count(1.0, 0.5), 1);
    }
}
