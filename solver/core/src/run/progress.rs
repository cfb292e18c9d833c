//! Progress of a run on stderr: indicatif's bar with ETA on a terminal, plain periodic
//! lines elsewhere (CI, logs, a pipeline that collects the stage's stderr).
//!
//! The mode is chosen by [`PROGRESS_ENV`] (`bar`, `lines` or `off`); unset (or any other
//! value) it is `bar` when stderr is a terminal and `lines` when not; `--quiet` turns it
//! off. The pipeline runner sets `bar` when its own stderr is a terminal (it passes the
//! solver's stderr through, escape codes included) and `lines` otherwise.
//!
//! Every mode is an [`indicatif::ProgressBar`], so the run loop drives them alike
//! (`inc`, `suspend` for warnings, `finish_and_clear`). Progress goes to stderr only:
//! nothing of it reaches an output file.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

/// Environment variable selecting the progress display: `bar`, `lines` or `off`.
pub const PROGRESS_ENV: &str = "MSDEM_PROGRESS";
/// Environment variable overriding the longest gap between two plain progress lines
/// \[s\] (default [`LINE_INTERVAL_S`]); `0` prints a line at every redraw (tests).
pub const PROGRESS_INTERVAL_ENV: &str = "MSDEM_PROGRESS_INTERVAL_S";
/// Longest gap between two plain progress lines \[s\].
pub const LINE_INTERVAL_S: f64 = 10.0;
/// Shortest gap between two plain progress lines \[s\] (capped by the interval), so that
/// a short run prints nothing and a long one at most one line per 5 % and per 2 s.
pub const LINE_MIN_GAP_S: f64 = 2.0;
/// A plain line is due at every this fraction of the steps (unless one was printed less
/// than [`LINE_MIN_GAP_S`] ago).
pub const LINE_FRACTION: f64 = 0.05;

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    /// indicatif's bar with ETA, redrawn in place (escape codes).
    Bar,
    /// One plain line now and then: step, simulated time, elapsed, ETA.
    Lines,
    /// Nothing.
    Off,
}

impl ProgressMode {
    /// The mode for `env` (the value of [`PROGRESS_ENV`], if set) when stderr is
    /// (`terminal`) or is not a terminal; `quiet` wins over everything.
    pub fn choose(quiet: bool, env: Option<&str>, terminal: bool) -> Self {
        match (quiet, env.map(str::trim)) {
            (true, _) => Self::Off,
            (false, Some("bar")) => Self::Bar,
            (false, Some("lines")) => Self::Lines,
            (false, Some("off")) => Self::Off,
            (false, _) if terminal => Self::Bar,
            (false, _) => Self::Lines,
        }
    }
}

/// The progress display of a run of `steps` steps of `dt` seconds (see the module
/// documentation for the mode).
pub fn progress_bar(steps: u64, dt: f64, quiet: bool) -> ProgressBar {
    let terminal = std::io::stderr().is_terminal();
    let env = std::env::var(PROGRESS_ENV).ok();
    match ProgressMode::choose(quiet, env.as_deref(), terminal) {
        ProgressMode::Off => ProgressBar::hidden(),
        ProgressMode::Bar => {
            let target = if terminal {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::term_like_with_hz(Box::new(EscapeCodes), 10)
            };
            let bar = ProgressBar::with_draw_target(Some(steps), target);
            if let Ok(style) = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} steps ({per_sec}, ETA {eta})",
            ) {
                bar.set_style(style);
            }
            bar
        }
        ProgressMode::Lines => {
            let interval = std::env::var(PROGRESS_INTERVAL_ENV)
                .ok()
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v >= 0.0)
                .unwrap_or(LINE_INTERVAL_S);
            let lines = PlainLines {
                dt,
                start: Instant::now(),
                cadence: Mutex::new(Cadence::new(interval)),
                pending: Mutex::new(String::new()),
            };
            let target = ProgressDrawTarget::term_like_with_hz(Box::new(lines), 10);
            let bar = ProgressBar::with_draw_target(Some(steps), target);
            // The rendered text this target parses: position and length only.
            if let Ok(style) = ProgressStyle::with_template("{pos}/{len}") {
                bar.set_style(style);
            }
            bar
        }
    }
}

/// When the next plain line is due.
#[derive(Clone, Debug, PartialEq)]
pub struct Cadence {
    /// Longest gap between lines \[s\].
    interval: f64,
    /// Shortest gap between lines \[s\].
    min_gap: f64,
    /// Elapsed time of the last line \[s\] (0 before the first).
    last: f64,
    /// The step count from which the next line is due regardless of the interval (`None`:
    /// the first [`LINE_FRACTION`] of the steps).
    next_mark: Option<u64>,
}

impl Cadence {
    /// A cadence printing at least every `interval` seconds and at every
    /// [`LINE_FRACTION`] of the steps, never twice within `min(LINE_MIN_GAP_S, interval)`.
    pub fn new(interval: f64) -> Self {
        Cadence {
            interval,
            min_gap: LINE_MIN_GAP_S.min(interval),
            last: 0.0,
            next_mark: None,
        }
    }

    /// Whether a line is due at step `pos` of `len` after `elapsed` seconds; if so, the
    /// line counts as printed.
    pub fn due(&mut self, pos: u64, len: u64, elapsed: f64) -> bool {
        let gap = elapsed - self.last;
        let step = ((len as f64 * LINE_FRACTION).ceil() as u64).max(1);
        let mark = self.next_mark.unwrap_or(step);
        if gap < self.min_gap || (pos < mark && gap < self.interval) {
            return false;
        }
        self.last = elapsed;
        self.next_mark = Some((pos / step + 1) * step);
        true
    }
}

/// `1.5 s`, `2 min 05 s`, `1 h 02 min`.
pub fn duration_text(seconds: f64) -> String {
    let s = seconds.max(0.0);
    if s < 60.0 {
        format!("{s:.1} s")
    } else if s < 3600.0 {
        let whole = s.round() as u64;
        format!("{} min {:02} s", whole / 60, whole % 60)
    } else {
        let minutes = (s / 60.0).round() as u64;
        format!("{} h {:02} min", minutes / 60, minutes % 60)
    }
}

/// One plain progress line: step `pos` of `len` (time step `dt` \[s\]) after `elapsed`
/// seconds, with the remaining time extrapolated at the mean rate so far.
pub fn progress_line(pos: u64, len: u64, dt: f64, elapsed: f64) -> String {
    let percent = if len == 0 {
        100.0
    } else {
        100.0 * pos as f64 / len as f64
    };
    let eta = if pos == 0 {
        "unknown".to_owned()
    } else {
        duration_text(elapsed * len.saturating_sub(pos) as f64 / pos as f64)
    };
    format!(
        "progress: step {pos}/{len} ({percent:.1} %), t = {} s of {} s simulated, {} elapsed, ETA {eta}",
        SimTime(pos as f64 * dt),
        SimTime(len as f64 * dt),
        duration_text(elapsed),
    )
}

/// A simulated time printed with 4 significant digits, without trailing zeros.
struct SimTime(f64);

impl std::fmt::Display for SimTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = format!("{:.4e}", self.0);
        let value: f64 = text.parse().unwrap_or(self.0);
        write!(f, "{value}")
    }
}

/// Draw target of [`ProgressMode::Lines`]: indicatif renders `pos/len` into it at every
/// redraw; it prints a [`progress_line`] when the [`Cadence`] says one is due and
/// ignores everything else (no escape codes).
#[derive(Debug)]
struct PlainLines {
    dt: f64,
    start: Instant,
    cadence: Mutex<Cadence>,
    pending: Mutex<String>,
}

impl PlainLines {
    fn take_rendered(&self) -> Option<(u64, u64)> {
        let mut pending = self.pending.lock().ok()?;
        let text = std::mem::take(&mut *pending);
        let (pos, len) = text.trim().split_once('/')?;
        Some((pos.trim().parse().ok()?, len.trim().parse().ok()?))
    }
}

impl TermLike for PlainLines {
    fn width(&self) -> u16 {
        80
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.write_str(s)
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        if let Ok(mut pending) = self.pending.lock() {
            pending.push_str(s);
        }
        Ok(())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        let Some((pos, len)) = self.take_rendered() else {
            return Ok(());
        };
        let elapsed = self.start.elapsed().as_secs_f64();
        let due = self
            .cadence
            .lock()
            .map(|mut c| c.due(pos, len, elapsed))
            .unwrap_or(false);
        if due {
            let line = progress_line(pos, len, self.dt, elapsed);
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
        Ok(())
    }
}

/// Draw target of [`ProgressMode::Bar`] when stderr is not a terminal but a reader that
/// shows it on one (the pipeline runner): indicatif's output with its escape codes.
#[derive(Debug)]
struct EscapeCodes;

impl EscapeCodes {
    fn write(s: &str) -> std::io::Result<()> {
        std::io::stderr().lock().write_all(s.as_bytes())
    }
}

impl TermLike for EscapeCodes {
    fn width(&self) -> u16 {
        std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse().ok())
            .filter(|&c: &u16| c >= 20)
            .unwrap_or(80)
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        if n > 0 {
            Self::write(&format!("\x1b[{n}A"))?;
        }
        Ok(())
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        if n > 0 {
            Self::write(&format!("\x1b[{n}B"))?;
        }
        Ok(())
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        if n > 0 {
            Self::write(&format!("\x1b[{n}C"))?;
        }
        Ok(())
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        if n > 0 {
            Self::write(&format!("\x1b[{n}D"))?;
        }
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        Self::write(s)?;
        Self::write("\n")
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        Self::write(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Self::write("\r\x1b[2K")
    }
    fn flush(&self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mode_follows_quiet_then_the_variable_then_the_terminal() {
        use ProgressMode::*;
        assert_eq!(ProgressMode::choose(true, Some("bar"), true), Off);
        assert_eq!(ProgressMode::choose(false, Some("bar"), false), Bar);
        assert_eq!(ProgressMode::choose(false, Some("lines"), true), Lines);
        assert_eq!(ProgressMode::choose(false, Some("off"), true), Off);
        assert_eq!(ProgressMode::choose(false, None, true), Bar);
        assert_eq!(ProgressMode::choose(false, None, false), Lines);
        assert_eq!(ProgressMode::choose(false, Some("fancy"), false), Lines);
    }

    #[test]
    fn lines_come_every_five_percent_but_not_within_the_minimum_gap() {
        // 1000 steps at a steady 0.01 s per step (10 s in all): a line every 50 steps
        // would be every 0.5 s, under the 2 s minimum gap, so one every 2 s.
        let mut c = Cadence::new(LINE_INTERVAL_S);
        let printed: Vec<u64> = (1..=1000)
            .filter(|&pos| c.due(pos, 1000, pos as f64 / 100.0))
            .collect();
        assert_eq!(printed, [200, 400, 600, 800, 1000]);
        // 100 slow steps of 1 s: one line per 5 % (5 steps = 5 s).
        let mut c = Cadence::new(LINE_INTERVAL_S);
        let printed: Vec<u64> = (1..=100)
            .filter(|&pos| c.due(pos, 100, pos as f64))
            .collect();
        assert_eq!(printed, (1..=20).map(|k| 5 * k).collect::<Vec<_>>());
        // 10 very slow steps of 30 s: each step is past both the mark and the interval.
        let mut c = Cadence::new(LINE_INTERVAL_S);
        assert!((1..=10).all(|pos| c.due(pos, 10, 30.0 * pos as f64)));
    }

    #[test]
    fn the_interval_forces_a_line_between_marks() {
        // 1,000,000 steps, 5 % would take 50 s: the 10 s interval prints in between.
        let mut c = Cadence::new(10.0);
        let printed: Vec<u64> = (1..=60)
            .map(|s| s * 1000)
            .filter(|&pos| c.due(pos, 1_000_000, pos as f64 / 1000.0))
            .collect();
        assert_eq!(printed, [10_000, 20_000, 30_000, 40_000, 50_000, 60_000]);
        // Interval 0: every redraw prints.
        let mut c = Cadence::new(0.0);
        assert!((1..=5).all(|pos| c.due(pos, 1_000_000, 0.0)));
    }

    #[test]
    fn a_line_gives_step_simulated_time_elapsed_and_eta() {
        assert_eq!(
            progress_line(4000, 80_000, 5.0e-5, 1.2),
            "progress: step 4000/80000 (5.0 %), t = 0.2 s of 4 s simulated, 1.2 s elapsed, \
             ETA 22.8 s"
        );
        assert_eq!(
            progress_line(0, 10, 0.1, 0.0),
            "progress: step 0/10 (0.0 %), t = 0 s of 1 s simulated, 0.0 s elapsed, ETA unknown"
        );
        assert_eq!(duration_text(125.2), "2 min 05 s");
        assert_eq!(duration_text(3720.0), "1 h 02 min");
        // Rounding noise of step × dt does not show.
        assert_eq!(SimTime(3.0 * 0.1).to_string(), "0.3");
    }
}
