//! Running a pipeline: plan the stages, skip those whose stamp matches, run the others as
//! subprocesses in the output folder, stamp what succeeded, report what was made.

use std::collections::btree_map::{BTreeMap, Entry};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use msdem_frames::lock::lock_folder;
use msdem_scenario::{MeshFiles, TreeName};

use crate::error::PipelineError;
use crate::load::load_pipeline;
use crate::outputs::{self, Mismatch};
use crate::plan::{self, Stage, StageKind, SCENARIO_FILE};
use crate::process::execute;
use crate::ranks::Ranks;
use crate::report::{describe, report_products, say};
use crate::run_log::{self, Outcome, RunLog, StageEntry, RUN_LOG_FILE};
use crate::spec::PipelineSpec;
use crate::stamp::{self, Digest32, Stamp};

/// What to run and where.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The pipeline file.
    pub pipeline: PathBuf,
    /// Output folder; `out/NAME` (relative to the current folder) when `None`.
    pub out_dir: Option<PathBuf>,
    /// Folder holding `meshgen`, `treebuild`, `solver` and `export`.
    pub bin_dir: PathBuf,
    /// Run every selected stage even when its stamp is current.
    pub force: bool,
    /// Run only the stages of one kind (`tree`), or one stage (`tree:grain`).
    pub only: Option<String>,
    /// Continue a killed solver stage from its checkpoint (`pipeline --resume`) when the
    /// checkpoint was written by a run of the same stage; see [`crate::plan::Restart`].
    pub resume: bool,
    /// The command line as typed, for the run log (empty: not recorded).
    pub command: Vec<String>,
    /// `--ranks N`: the solve stage over MPI ([`crate::ranks`]); `None`: one process.
    pub ranks: Option<Ranks>,
}

/// What happened to one stage.
#[derive(Clone, Debug, PartialEq)]
pub struct StageReport {
    /// The stage, e.g. `tree grain`.
    pub label: String,
    /// False when it was skipped as up to date.
    pub ran: bool,
    /// Wall time of the subprocess \[s\] (0 when skipped).
    pub seconds: f64,
}

/// The outcome of a successful pipeline run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunReport {
    /// The output folder.
    pub out_dir: PathBuf,
    /// The selected stages, in order.
    pub stages: Vec<StageReport>,
}

/// Which stages `--only` selects.
#[derive(Clone, Debug, PartialEq)]
struct StageFilter {
    kind: StageKind,
    name: Option<String>,
}

impl StageFilter {
    fn parse(value: &str, stages: &[Stage]) -> Result<Self, PipelineError> {
        let unknown = || PipelineError::UnknownStage {
            value: value.to_owned(),
        };
        let (word, name) = match value.split_once(':') {
            Some((w, n)) => (w, Some(n.to_owned())),
            None => (value, None),
        };
        let kind = StageKind::parse(word).ok_or_else(unknown)?;
        let filter = Self { kind, name };
        if !stages.iter().any(|s| filter.selects(s)) {
            return Err(unknown());
        }
        Ok(filter)
    }

    fn selects(&self, stage: &Stage) -> bool {
        stage.kind == self.kind && self.name.as_ref().is_none_or(|n| *n == stage.name)
    }
}

/// The text of `scenario.yaml` for `spec`: the inline scenario with the pipeline's name and
/// each tree turned into its mesh and tree files (relative to the output folder).
pub fn scenario_text(spec: &PipelineSpec) -> Result<String, serde_norway::Error> {
    let files = spec.scenario.map_geometry(|source: &TreeName| {
        let tree = source.tree.as_str();
        let mesh = spec.trees.get(tree).map_or(tree, |t| t.mesh.as_str());
        MeshFiles {
            mesh: plan::mesh_file(mesh).into(),
            tree: plan::tree_file(tree).into(),
        }
    });
    serde_norway::to_string(&files)
}

/// Runs the pipeline of `opts`, writing progress lines to `log`. The stages' own output
/// goes to this process's stdout and stderr. Once the stages are planned, the run log
/// `OUT/run.log` ([`crate::run_log`]) is written at the end, also when a stage fails.
pub fn run_pipeline(opts: &RunOptions, log: &mut dyn Write) -> Result<RunReport, PipelineError> {
    let started_at = SystemTime::now();
    let spec = load_pipeline(&opts.pipeline)?;
    let absolute = |p: &Path| {
        std::path::absolute(p).map_err(|source| PipelineError::Read {
            path: p.to_owned(),
            source,
        })
    };
    let pipeline_dir = match opts.pipeline.parent() {
        Some(p) if !p.as_os_str().is_empty() => absolute(p)?,
        _ => absolute(Path::new("."))?,
    };
    let bin_dir = absolute(&opts.bin_dir)?;
    let out_dir = match &opts.out_dir {
        Some(d) => d.clone(),
        None => Path::new("out").join(spec.name.as_str()),
    };
    let stages = plan::stages(&spec, &pipeline_dir);
    let filter = match &opts.only {
        Some(v) => Some(StageFilter::parse(v, &stages)?),
        None => None,
    };
    let selected: Vec<&Stage> = stages
        .iter()
        .filter(|s| filter.as_ref().is_none_or(|f| f.selects(s)))
        .collect();

    // Fail before running anything when a binary is missing.
    let program_path = |kind: StageKind| {
        bin_dir.join(format!(
            "{}{}",
            kind.program(),
            std::env::consts::EXE_SUFFIX
        ))
    };
    if let Some(path) = selected
        .iter()
        .map(|s| program_path(s.kind))
        .find(|p| !p.is_file())
    {
        return Err(PipelineError::BinaryMissing { path });
    }

    // Held to the end of the run: a second run on this folder refuses before it writes
    // anything (the kernel drops the lock of a killed run).
    let _lock = lock_folder(&out_dir, "pipeline")?;
    let started = Instant::now();
    let mut record = RunLog {
        started: started_at,
        command: opts.command.clone(),
        pipeline: opts.pipeline.clone(),
        pipeline_sha256: stamp::hex(&stamp::file_digest(&opts.pipeline)?),
        out_dir: out_dir.clone(),
        selection: format!(
            "{}{}",
            match (&opts.only, opts.force) {
                (None, false) => "all (unchanged ones reused)".to_owned(),
                (None, true) => "all, --force".to_owned(),
                (Some(o), false) => format!("--only {o}"),
                (Some(o), true) => format!("--only {o}, --force"),
            },
            if opts.resume { ", --resume" } else { "" }
        ) + &opts
            .ranks
            .as_ref()
            .map_or(String::new(), |r| format!(", --ranks {}", r.count)),
        binaries: Vec::new(),
        stages: selected
            .iter()
            .map(|s| StageEntry {
                label: s.label(),
                outcome: Outcome::NotRun,
                warnings: Vec::new(),
            })
            .collect(),
        seconds: 0.0,
        error: None,
    };
    let result = run_selected(
        opts,
        &spec,
        &selected,
        &program_path,
        &out_dir,
        &mut record,
        log,
    );
    record.seconds = started.elapsed().as_secs_f64();
    record.error = result.as_ref().err().map(|e| e.to_string());
    // A run that stopped before its output folder existed has nothing to log into.
    let log_path = out_dir.join(RUN_LOG_FILE);
    let written = if out_dir.is_dir() {
        stamp::write_atomic(&log_path, record.render(&spec).as_bytes()).map(|()| true)
    } else {
        Ok(false)
    };
    let reports = result?;
    written?;
    let ran = reports.iter().filter(|r| r.ran).count();
    say(
        log,
        format_args!(
            "done  {ran} of {} stages ran, {} up to date, {:.2} s",
            reports.len(),
            reports.len() - ran,
            record.seconds
        ),
    );
    report_products(&out_dir, log);
    Ok(RunReport {
        out_dir,
        stages: reports,
    })
}

/// Writes the scenario and runs the selected stages in order, filling in `record`.
fn run_selected(
    opts: &RunOptions,
    spec: &PipelineSpec,
    selected: &[&Stage],
    program_path: &dyn Fn(StageKind) -> PathBuf,
    out_dir: &Path,
    record: &mut RunLog,
    log: &mut dyn Write,
) -> Result<Vec<StageReport>, PipelineError> {
    say(
        log,
        format_args!("pipeline {} -> {}", spec.name, out_dir.display()),
    );
    if selected.iter().any(|s| s.kind == StageKind::Solve) {
        let text = scenario_text(spec).map_err(|e| PipelineError::Invalid {
            path: opts.pipeline.clone(),
            message: format!("cannot write the scenario: {e}"),
        })?;
        let path = out_dir.join(SCENARIO_FILE);
        if std::fs::read(&path).ok().as_deref() != Some(text.as_bytes()) {
            stamp::write_atomic(&path, text.as_bytes())?;
            say(log, format_args!("wrote {}", path.display()));
        }
    }

    // Each binary is hashed once per run.
    let mut digests: BTreeMap<StageKind, Digest32> = BTreeMap::new();
    let mut reports = Vec::new();
    let count = selected.len();
    for (index, stage) in selected.iter().enumerate() {
        let program = program_path(stage.kind);
        let program_digest = match digests.entry(stage.kind) {
            Entry::Occupied(e) => *e.get(),
            Entry::Vacant(e) => {
                let digest = *e.insert(stamp::file_digest(&program)?);
                record
                    .binaries
                    .push((stage.kind.program().to_owned(), stamp::hex(&digest)));
                digest
            }
        };
        let position = StagePosition { index, count };
        let started = Instant::now();
        let entry = &mut record.stages[index];
        match run_stage(
            stage,
            &program,
            &program_digest,
            out_dir,
            StageMode {
                force: opts.force,
                resume: opts.resume,
                ranks: opts.ranks.as_ref(),
            },
            position,
            &mut entry.warnings,
            log,
        ) {
            Ok(report) => {
                entry.outcome = if report.ran {
                    Outcome::Ran(report.seconds)
                } else {
                    Outcome::Reused
                };
                reports.push(report);
            }
            Err(e) => {
                let message = match &e {
                    PipelineError::StageFailed {
                        message, status, ..
                    } => {
                        format!("({status}) {message}")
                    }
                    other => other.to_string(),
                };
                entry.outcome = Outcome::Failed(started.elapsed().as_secs_f64(), message);
                return Err(e);
            }
        }
    }
    Ok(reports)
}

/// `[n/N]`: a stage's place among the selected ones, printed before its lines.
#[derive(Clone, Copy, Debug)]
struct StagePosition {
    index: usize,
    count: usize,
}

impl std::fmt::Display for StagePosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}/{}]", self.index + 1, self.count)
    }
}

fn remove_path(path: &Path) -> Result<(), PipelineError> {
    let result = if path.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    };
    match result {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(PipelineError::Write {
            path: path.to_owned(),
            source: e,
        }),
        _ => Ok(()),
    }
}

/// `--force`, `--resume` and `--ranks`, as one stage sees them.
#[derive(Clone, Copy, Debug)]
struct StageMode<'a> {
    /// Run it even when its stamp is current.
    force: bool,
    /// Continue it from its checkpoint when it has one of the same run.
    resume: bool,
    /// Run a solve stage over MPI (not part of its stamp: the results are the same).
    ranks: Option<&'a Ranks>,
}

/// The checkpoint `stage` can be continued from: the first of its [`crate::plan::Restart`]
/// checkpoints that exists, provided its start stamp `started` holds `digest` (the
/// checkpoint was written by a run of this very stage, inputs and binary included).
fn checkpoint_of_same_run<'a>(
    stage: &'a Stage,
    out_dir: &Path,
    started: &Path,
    digest: &Digest32,
) -> Option<&'a Path> {
    let restart = stage.restart.as_ref()?;
    if stamp::read_stamp(started).map(|s| s.digest) != Some(*digest) {
        return None;
    }
    restart
        .checkpoints
        .iter()
        .find(|p| out_dir.join(p).is_file())
        .map(PathBuf::as_path)
}

/// Runs one stage unless its stamp is current; the warnings it prints (or, when it is
/// skipped, those recorded when its outputs were made) are appended to `warnings`. With
/// `mode.resume`, a stage killed after writing a checkpoint continues from it
/// ([`crate::plan::Restart`]) instead of starting over.
#[allow(clippy::too_many_arguments)]
fn run_stage(
    stage: &Stage,
    program: &Path,
    program_digest: &Digest32,
    out_dir: &Path,
    mode: StageMode,
    position: StagePosition,
    warnings: &mut Vec<String>,
    log: &mut dyn Write,
) -> Result<StageReport, PipelineError> {
    let label = stage.label();
    let missing_input = stage
        .inputs
        .iter()
        .chain(stage.input_dir.as_ref())
        .find(|p| !out_dir.join(p).exists());
    if let Some(path) = missing_input {
        // A mesh stage reads only the user's own file (the loader checked that it exists).
        if stage.kind == StageKind::Mesh {
            return Err(PipelineError::ImportMissing {
                stage: label,
                path: path.clone(),
            });
        }
        return Err(PipelineError::InputMissing {
            stage: label,
            path: path.clone(),
        });
    }
    let digest = stamp::stage_digest(stage, program_digest, out_dir)?;
    let stamp_path = out_dir.join(stage.stamp_path());
    let warnings_path = run_log::warnings_path(out_dir, &stage.stamp_path());
    // Reused only when its inputs are those of its stamp and its outputs the stamp's files.
    let stamped = stamp::read_stamp(&stamp_path).filter(|s| s.digest == digest);
    let mismatch = match &stamped {
        Some(s) if !mode.force => match stage.outputs.iter().find(|p| !out_dir.join(p).exists()) {
            Some(p) => Some(Mismatch::Missing(p.display().to_string())),
            None => outputs::verify(out_dir, &stage.products, &stage.product_skip, &s.outputs)?,
        },
        _ => None,
    };
    if let Some(mismatch) = &mismatch {
        say(log, format_args!("{position} stale {label}: {mismatch}"));
    }
    if !mode.force && stamped.is_some() && mismatch.is_none() {
        say(log, format_args!("{position} skip  {label} (up to date)"));
        if let Ok(text) = std::fs::read_to_string(&warnings_path) {
            warnings.extend(text.lines().map(str::to_owned));
        }
        return Ok(StageReport {
            label,
            ran: false,
            seconds: 0.0,
        });
    }

    let started_path = stamp::started_path(&stamp_path);
    let resumed_from = match mode.resume {
        true => checkpoint_of_same_run(stage, out_dir, &started_path, &digest),
        false => None,
    };
    // The staged folder and the one it replaces must not be written by anyone else (a
    // solver run by hand there): the final one stays locked until the swap.
    let staging_locks = match &stage.staging {
        Some((written, target)) => {
            drop(lock_folder(&out_dir.join(written), "pipeline")?);
            Some(lock_folder(&out_dir.join(target), "pipeline")?)
        }
        None => None,
    };
    remove_path(&stamp_path)?;
    remove_path(&warnings_path)?;
    if resumed_from.is_none() {
        for path in &stage.clear {
            remove_path(&out_dir.join(path))?;
        }
    }
    for output in &stage.outputs {
        if let Some(parent) = out_dir.join(output).parent() {
            std::fs::create_dir_all(parent).map_err(|source| PipelineError::Write {
                path: parent.to_owned(),
                source,
            })?;
        }
    }
    let name = stage.kind.program();
    let mut command = stage.clone();
    match (resumed_from, &stage.restart) {
        (Some(checkpoint), Some(restart)) => {
            command.args.push(restart.flag.clone());
            say(
                log,
                format_args!(
                    "{position} resume {label} from {}: {name} {}",
                    checkpoint.display(),
                    command.args.join(" ")
                ),
            );
        }
        _ => say(
            log,
            format_args!("{position} run   {label}: {name} {}", stage.args.join(" ")),
        ),
    }
    if stage.restart.is_some() {
        let start = Stamp {
            digest,
            outputs: Vec::new(),
        };
        stamp::write_stamp(&started_path, &start)?;
    }
    let started = Instant::now();
    let first_warning = warnings.len();
    match mode.ranks.filter(|_| stage.kind == StageKind::Solve) {
        Some(ranks) => {
            let (mpirun, args, env) = ranks.launch(program, &command.args);
            say(
                log,
                format_args!(
                    "{position} on {} MPI ranks × {} threads: {} {}",
                    ranks.count,
                    ranks.threads(),
                    mpirun.display(),
                    args.join(" ")
                ),
            );
            command.args = args;
            execute(&mpirun, &command, &env, out_dir, warnings)?;
        }
        None => execute(program, &command, &[], out_dir, warnings)?,
    }
    let seconds = started.elapsed().as_secs_f64();
    if let Some((written, target)) = &stage.staging {
        let target = out_dir.join(target);
        remove_path(&target)?;
        std::fs::rename(out_dir.join(written), &target).map_err(|source| PipelineError::Write {
            path: target.clone(),
            source,
        })?;
    }
    drop(staging_locks);
    if let Some(path) = stage.outputs.iter().find(|p| !out_dir.join(p).exists()) {
        return Err(PipelineError::OutputMissing {
            stage: label,
            path: path.clone(),
        });
    }
    let own = &warnings[first_warning..];
    if !own.is_empty() {
        let mut text = own.join("\n");
        text.push('\n');
        stamp::write_atomic(&warnings_path, text.as_bytes())?;
    }
    let made = Stamp {
        digest,
        outputs: outputs::record(out_dir, &stage.products, &stage.product_skip)?,
    };
    stamp::write_stamp(&stamp_path, &made)?;
    remove_path(&started_path)?;
    let made: Vec<String> = stage.outputs.iter().map(|p| describe(out_dir, p)).collect();
    say(
        log,
        format_args!(
            "{position} made  {label}: {} in {seconds:.2} s",
            made.join(", ")
        ),
    );
    Ok(StageReport {
        label,
        ran: true,
        seconds,
    })
}
