//! End-of-run summary: totals over the per-step statistics.

use std::fmt;
use std::path::PathBuf;

use crate::frames::StepStats;

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSummary {
    /// Scenario name.
    pub name: String,
    /// Run folder.
    pub out_dir: PathBuf,
    /// Completed steps.
    pub steps: u64,
    /// Simulated time at the end \[s\].
    pub time: f64,
    /// Output frames written (frame 0 included).
    pub frames: u32,
    /// Wall time of the run loop \[s\].
    pub wall_seconds: f64,
    /// Merged contacts summed over all steps.
    pub contacts_total: u64,
    /// Largest number of merged contacts in one step.
    pub contacts_max: u32,
    /// Triangle-pair checks per level summed over all steps (last entry: fine–fine).
    pub checks_per_level: Vec<u64>,
    /// Exact-kernel fallbacks summed over all steps.
    pub fallbacks: u64,
    /// Picard iterations summed over all steps (= steps for explicit runs).
    pub iterations_total: u64,
    /// Most Picard iterations in one step (1 for explicit runs).
    pub iterations_max: u32,
    /// Implicit steps whose Picard iterations did not converge.
    pub unconverged_steps: u64,
    /// Implicit steps split into substeps because they did not converge at the full Δt
    /// (`picard.on_no_convergence: substep`).
    pub split_steps: u64,
    /// Substeps those steps were split into, in total.
    pub substeps_total: u64,
    /// Most steps whose statistics were held in memory at once (at most
    /// [`crate::frames::stream::CHUNK_STEPS`] however long the run: they are streamed).
    pub peak_buffered_steps: u64,
}

impl RunSummary {
    /// Adds one step's statistics.
    pub fn add_step(&mut self, s: &StepStats) {
        self.steps = s.step;
        self.time = s.time;
        self.contacts_total += u64::from(s.contacts);
        self.contacts_max = self.contacts_max.max(s.contacts);
        if self.checks_per_level.len() < s.checks_per_level.len() {
            self.checks_per_level.resize(s.checks_per_level.len(), 0);
        }
        for (t, c) in self.checks_per_level.iter_mut().zip(&s.checks_per_level) {
            *t += c;
        }
        self.fallbacks += s.fallbacks;
        self.iterations_total += u64::from(s.iterations);
        self.iterations_max = self.iterations_max.max(s.iterations);
        if s.substeps > 0 {
            self.split_steps += 1;
            self.substeps_total += u64::from(s.substeps);
        }
    }
}

impl fmt::Display for RunSummary {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let rate = if self.wall_seconds > 0.0 {
            self.steps as f64 / self.wall_seconds
        } else {
            0.0
        };
        let (levels, fine) = match self.checks_per_level.split_last() {
            Some((fine, levels)) => (levels, *fine),
            None => (&[][..], 0),
        };
        let per_level = levels
            .iter()
            .enumerate()
            .map(|(l, c)| format!("L{l} {c}"))
            .collect::<Vec<_>>()
            .join(", ");
        write!(
            f,
            "{}: {} steps to t = {:.6} s in {:.2} s wall ({:.1} steps/s), {} frames in {}; \
             contacts: {} in total, at most {} in one step; triangle-pair checks per level: \
             [{}], fine–fine {}, total {}; exact fallbacks {}.",
            self.name,
            self.steps,
            self.time,
            self.wall_seconds,
            rate,
            self.frames,
            self.out_dir.display(),
            self.contacts_total,
            self.contacts_max,
            per_level,
            fine,
            levels.iter().sum::<u64>(),
            self.fallbacks
        )?;
        if self.iterations_max > 1 || self.unconverged_steps > 0 {
            write!(
                f,
                " Picard iterations: {} in total, {:.2} per step, at most {} in one step; \
                 {} steps did not converge.",
                self.iterations_total,
                self.iterations_total as f64 / self.steps.max(1) as f64,
                self.iterations_max,
                self.unconverged_steps
            )?;
        }
        if self.split_steps > 0 {
            write!(
                f,
                " {} steps did not converge at the full time step and were split into {} \
                 substeps in total (picard.on_no_convergence: substep).",
                self.split_steps, self.substeps_total
            )?;
        }
        Ok(())
    }
}
