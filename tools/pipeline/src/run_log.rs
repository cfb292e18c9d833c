//! `out/NAME/run.log`: what a run did, in text — the command, versions, the pipeline file
//! and its hash, the resolved parameters, every stage with its time and whether it ran or
//! was reused, the solver's counts and phase breakdown, and every warning any stage printed.
//! Written atomically at the end of a run and when a stage fails (then naming the stage and
//! its error). It holds wall-clock times, so unlike the run's other outputs it differs from
//! run to run; no stamp reads it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use msdem_scenario::GeneratorSpec;

use crate::plan::{self, RUN_DIR};
use crate::run_facts::{self, ModelCounts, PhaseTotals};
use crate::spec::PipelineSpec;

/// The run log's file name, in the output folder.
pub const RUN_LOG_FILE: &str = "run.log";

/// The version of this runner and the commit it was built from (`unknown` when the build
/// had no git).
pub fn version_text() -> String {
    format!(
        "msdem-pipeline {} (commit {})",
        env!("CARGO_PKG_VERSION"),
        env!("MSDEM_GIT_COMMIT")
    )
}

/// What happened to one stage, for the log.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// It ran and succeeded, taking this long \[s\].
    Ran(f64),
    /// Its outputs were up to date and reused.
    Reused,
    /// It failed after this long \[s\] with this message.
    Failed(f64, String),
    /// An earlier stage failed.
    NotRun,
}

/// One selected stage.
#[derive(Clone, Debug, PartialEq)]
pub struct StageEntry {
    /// `tree grain`.
    pub label: String,
    /// What happened.
    pub outcome: Outcome,
    /// Warning lines it printed (for a reused stage: those of the run that made its
    /// outputs, when recorded).
    pub warnings: Vec<String>,
}

/// Everything the log says, gathered while the pipeline runs.
#[derive(Clone, Debug)]
pub struct RunLog {
    /// Start of the run (wall clock).
    pub started: SystemTime,
    /// The command line (empty: not known).
    pub command: Vec<String>,
    /// The pipeline file as given.
    pub pipeline: PathBuf,
    /// SHA-256 of the pipeline file, hex.
    pub pipeline_sha256: String,
    /// The output folder.
    pub out_dir: PathBuf,
    /// `--only` and `--force`, as given.
    pub selection: String,
    /// Stage binaries and their SHA-256 (hex), in pipeline order.
    pub binaries: Vec<(String, String)>,
    /// The selected stages, in order.
    pub stages: Vec<StageEntry>,
    /// Wall time of the whole run \[s\] (set at the end).
    pub seconds: f64,
    /// The error that stopped the run, if any.
    pub error: Option<String>,
}

impl RunLog {
    /// The log's text for the pipeline `spec`; the run folder's files are read from
    /// `out_dir/run` as they are now.
    pub fn render(&self, spec: &PipelineSpec) -> String {
        let mut t = String::new();
        let _ = self.write_to(&mut t, spec);
        t
    }

    fn write_to(&self, t: &mut String, spec: &PipelineSpec) -> std::fmt::Result {
        writeln!(t, "msdem run log: {}", spec.name)?;
        writeln!(t)?;
        writeln!(t, "[run]")?;
        writeln!(t, "started         {}", utc_text(self.started))?;
        let command = if self.command.is_empty() {
            "(not recorded: run through the library)".to_owned()
        } else {
            self.command.join(" ")
        };
        writeln!(t, "command         {command}")?;
        writeln!(t, "version         {}", version_text())?;
        writeln!(
            t,
            "pipeline file   {} (SHA-256 {})",
            self.pipeline.display(),
            self.pipeline_sha256
        )?;
        writeln!(t, "output folder   {}", self.out_dir.display())?;
        writeln!(t, "stages          {}", self.selection)?;
        match &self.error {
            None => writeln!(t, "status          completed in {:.2} s", self.seconds)?,
            Some(e) => writeln!(t, "status          FAILED after {:.2} s: {e}", self.seconds)?,
        }
        writeln!(t)?;
        self.write_parameters(t, spec)?;
        writeln!(t)?;
        writeln!(t, "[stages]")?;
        let n = self.stages.len();
        let width = self.stages.iter().map(|s| s.label.len()).max().unwrap_or(0);
        for (i, s) in self.stages.iter().enumerate() {
            let what = match &s.outcome {
                Outcome::Ran(sec) => format!("ran       {sec:8.2} s"),
                Outcome::Reused => "reused    (outputs up to date)".to_owned(),
                Outcome::Failed(sec, m) => format!("FAILED    {sec:8.2} s: {m}"),
                Outcome::NotRun => "not run   (an earlier stage failed)".to_owned(),
            };
            let position = format!("[{}/{n}]", i + 1);
            let places = format!("[{n}/{n}]").len();
            writeln!(t, "{position:<places$} {:<width$}  {what}", s.label)?;
        }
        writeln!(t)?;
        self.write_solver(t, spec)?;
        writeln!(t)?;
        writeln!(t, "[warnings]")?;
        let mut any = false;
        for s in &self.stages {
            let reused = if s.outcome == Outcome::Reused {
                " (recorded when its outputs were made)"
            } else {
                ""
            };
            for w in &s.warnings {
                any = true;
                writeln!(t, "{}{reused}: {w}", s.label)?;
            }
        }
        if !any {
            writeln!(t, "none")?;
        }
        writeln!(t)?;
        writeln!(t, "[binaries]")?;
        for (name, digest) in &self.binaries {
            writeln!(t, "{name:<10}SHA-256 {digest}")?;
        }
        Ok(())
    }

    fn write_parameters(&self, t: &mut String, spec: &PipelineSpec) -> std::fmt::Result {
        let s = &spec.scenario;
        let run = self.out_dir.join(RUN_DIR);
        writeln!(t, "[parameters]")?;
        writeln!(t, "integrator      {}", s.integrator.key())?;
        writeln!(
            t,
            "time            dt = {} s, end = {} s, a frame every {} steps",
            s.time.dt, s.time.end, s.time.output_every
        )?;
        writeln!(
            t,
            "gravity         [{}, {}, {}] m/s²",
            s.gravity[0], s.gravity[1], s.gravity[2]
        )?;
        writeln!(t, "broad phase     {}", s.broadphase.key())?;
        let detection = serde_norway::to_string(&s.detection).unwrap_or_default();
        writeln!(t, "detection       {}", one_line(&detection))?;
        if s.integrator.picard_variant().is_some() {
            let picard = serde_norway::to_string(&s.picard).unwrap_or_default();
            writeln!(t, "picard          {}", one_line(&picard))?;
        }
        if msdem_scenario::lts::is_lts(s.integrator) {
            let lts = serde_norway::to_string(&s.lts).unwrap_or_default();
            writeln!(t, "lts             {}", one_line(&lts))?;
        }
        writeln!(
            t,
            "materials       {} ({})",
            s.materials.len(),
            s.materials.keys().cloned().collect::<Vec<_>>().join(", ")
        )?;
        let obstacle_triangles = self.obstacle_triangles(spec);
        match run_facts::model_counts(&run) {
            Ok(ModelCounts {
                particles,
                shapes,
                obstacles,
                particle_triangles,
                ..
            }) => {
                writeln!(
                    t,
                    "particles       {particles} of {shapes} shapes, {particle_triangles} triangles in all (run/run.msdem)"
                )?;
                writeln!(t, "obstacles       {obstacles}, {obstacle_triangles}")?;
            }
            Err(e) => {
                writeln!(
                    t,
                    "particles       {} listed and generated, of {} shapes (scenario; run/run.msdem: {e})",
                    scenario_particles(spec),
                    s.shapes.len()
                )?;
                writeln!(
                    t,
                    "obstacles       {}, {obstacle_triangles}",
                    s.obstacles.len()
                )?;
            }
        }
        Ok(())
    }

    /// `80 triangles in all (meshes/…)`, or why not known.
    fn obstacle_triangles(&self, spec: &PipelineSpec) -> String {
        let mut total = 0usize;
        for o in &spec.scenario.obstacles {
            let mesh = spec
                .trees
                .get(o.geometry.tree.as_str())
                .map_or(o.geometry.tree.as_str(), |t| t.mesh.as_str());
            let file = plan::mesh_file(mesh);
            match msdem_mesh::read_mesh(self.out_dir.join(&file)) {
                Ok((m, _)) => total += m.triangles.len(),
                Err(_) => return format!("triangles unknown ({file} not readable)"),
            }
        }
        format!("{total} triangles in all (meshes/)")
    }

    fn write_solver(&self, t: &mut String, spec: &PipelineSpec) -> std::fmt::Result {
        let run = self.out_dir.join(RUN_DIR);
        let solve_label = format!("solve {}", spec.name);
        let solve = self.stages.iter().find(|s| s.label == solve_label);
        writeln!(t, "[solver]")?;
        let source = match solve.map(|s| &s.outcome) {
            Some(Outcome::Ran(_)) => "this run",
            Some(Outcome::Reused) => "the reused run folder",
            Some(Outcome::Failed(..)) | Some(Outcome::NotRun) | None => {
                "the run folder as it is (the solver did not complete here)"
            }
        };
        writeln!(t, "source          {source}: {}", run.display())?;
        match run_facts::step_totals(&run) {
            Ok(s) => {
                writeln!(t, "steps           {} to t = {:.6} s", s.steps, s.time)?;
                writeln!(
                    t,
                    "contacts        {} in total, at most {} in one step",
                    s.contacts_total, s.contacts_max
                )?;
                let lts = msdem_scenario::lts::is_lts(spec.scenario.integrator);
                if lts {
                    // Local time stepping counts sweeps where the others count Picard
                    // iterations, and its narrowing work is in lts.msdem, not here.
                    writeln!(
                        t,
                        "lts             {} sweeps, at most {} in one interval, {} intervals with unconverged impulse solves (per-sweep statistics: lts.msdem, steps.csv)",
                        s.iterations, s.iterations_max, s.unconverged
                    )?;
                } else {
                    writeln!(
                        t,
                        "candidate pairs at most {} in one step",
                        s.candidate_pairs_max
                    )?;
                    writeln!(
                        t,
                        "checks          {} triangle-pair checks, {} exact fallbacks",
                        s.checks, s.fallbacks
                    )?;
                }
                if !lts && (s.iterations_max > 1 || s.unconverged > 0) {
                    writeln!(
                        t,
                        "picard          {} iterations, at most {} in one step, {} steps did not converge",
                        s.iterations, s.iterations_max, s.unconverged
                    )?;
                }
            }
            Err(e) => writeln!(t, "statistics      not available ({e})")?,
        }
        if let Some(bx) = &spec.report.packing_box {
            let densities: Vec<f64> = spec
                .scenario
                .materials
                .values()
                .map(|m| m.density)
                .collect();
            match crate::packing::packing(&run, bx, &densities) {
                Ok(p) => writeln!(
                    t,
                    "packing         fraction {:.4} (whole bed), {:.4} (lower half) at t = {:.6} s: {} particles, solid {:.6e} m³, bed height {:.4} m, box {:?}–{:?} m",
                    p.fraction, p.core_fraction, p.time_s, p.particles, p.solid_volume_m3, p.bed_height_m, bx.min_m, bx.max_m
                )?,
                Err(e) => writeln!(t, "packing         not available ({e})")?,
            }
        }
        match run_facts::phase_totals(&run) {
            Ok(p) => {
                let wall = match solve.map(|s| &s.outcome) {
                    Some(Outcome::Ran(sec)) => Some(*sec),
                    _ => None,
                };
                write_phases(t, &p, wall)?;
            }
            Err(e) => writeln!(t, "phases          not available ({e})")?,
        }
        Ok(())
    }
}

/// The phase breakdown; `wall` is the solve stage's wall time when it ran in this run.
fn write_phases(t: &mut String, p: &PhaseTotals, wall: Option<f64>) -> std::fmt::Result {
    let total = wall.unwrap_or(p.sum()).max(p.sum());
    writeln!(
        t,
        "phases          wall time summed over {} steps (run/timings.msdem):",
        p.steps
    )?;
    let percent = |x: f64| if total > 0.0 { 100.0 * x / total } else { 0.0 };
    let mut rows = vec![
        ("broad", p.broad),
        ("narrow", p.narrow),
        ("forces", p.forces),
        ("integration", p.integrate),
    ];
    if let Some(w) = wall {
        rows.push(("output, setup", (w - p.sum()).max(0.0)));
    }
    for (name, sec) in rows {
        writeln!(t, "  {name:<14}{sec:10.3} s {:6.1} %", percent(sec))?;
    }
    match wall {
        Some(w) => writeln!(
            t,
            "  {:<14}{w:10.3} s  (the solve stage; `output, setup` is the rest: reading trees, writing frames and statistics)",
            "total"
        ),
        None => writeln!(
            t,
            "  {:<14}{:10.3} s  (the four phases; the solver's setup and output were not timed in this run)",
            "total",
            p.sum()
        ),
    }
}

/// Listed plus generated particles of the scenario.
fn scenario_particles(spec: &PipelineSpec) -> u64 {
    let s = &spec.scenario;
    let generated = s
        .generators
        .iter()
        .map(GeneratorSpec::total)
        .fold(0u64, u64::saturating_add);
    (s.particles.len() as u64).saturating_add(generated)
}

/// A small YAML mapping as one line: `{ kernel: exact, kept_sets: true }`.
fn one_line(yaml: &str) -> String {
    let items: Vec<&str> = yaml
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    format!("{{ {} }}", items.join(", "))
}

/// `2026-11-24 00:30:12 UTC` (proleptic Gregorian calendar, from the Unix time).
pub fn utc_text(time: SystemTime) -> String {
    let secs = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days to civil date (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// Where the warnings of a stage that ran are kept for the logs of later runs that reuse
/// its outputs (beside its stamp).
pub fn warnings_path(out_dir: &Path, stamp: &Path) -> PathBuf {
    out_dir.join(stamp.with_extension("warnings"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn utc_dates_match_known_instants() {
        let at = |s: u64| utc_text(SystemTime::UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01 00:00:00 UTC");
        // `date -u -d @951782400`: the leap day of 2000.
        assert_eq!(at(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(at(1_795_566_612), "2026-11-25 00:30:12 UTC");
    }

    #[test]
    fn phases_add_up_to_the_stage_time_with_the_rest_as_output() {
        let p = PhaseTotals {
            steps: 10,
            broad: 1.0,
            narrow: 5.0,
            forces: 2.0,
            integrate: 1.0,
        };
        let mut t = String::new();
        write_phases(&mut t, &p, Some(10.0)).unwrap();
        assert!(t.contains("  narrow             5.000 s   50.0 %"), "{t}");
        assert!(t.contains("  output, setup      1.000 s   10.0 %"), "{t}");
        assert!(t.contains("  total             10.000 s"), "{t}");
    }
}
