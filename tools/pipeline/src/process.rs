//! Running one stage binary: its stderr is passed through as it comes (the solver's
//! progress bar included) and its warnings and error message kept.

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::error::PipelineError;
use crate::plan::Stage;

/// Environment variable that selects the solver's progress display
/// (`msdem_solver::run::progress`): the runner asks for the bar when its own stderr is a
/// terminal, for plain lines otherwise.
pub const PROGRESS_ENV: &str = "MSDEM_PROGRESS";

/// Runs the stage binary (`program` with `stage.args` and the variables `env` added to the
/// environment) in `out_dir`; its stderr is passed through and its warnings (lines
/// starting with `warning` after the stage's `NAME: ` prefix, if any) are appended to
/// `warnings`; its error message is kept for [`PipelineError::StageFailed`].
pub fn execute(
    program: &Path,
    stage: &Stage,
    env: &[(String, String)],
    out_dir: &Path,
    warnings: &mut Vec<String>,
) -> Result<(), PipelineError> {
    let progress = if std::io::stderr().is_terminal() {
        "bar"
    } else {
        "lines"
    };
    let spawn_err = |source| PipelineError::Spawn {
        stage: stage.label(),
        program: program.to_owned(),
        source,
    };
    let mut child = spawn_retrying(|| {
        let mut command = Command::new(program);
        command
            .args(&stage.args)
            .current_dir(out_dir)
            .stdin(Stdio::null())
            .env(PROGRESS_ENV, progress)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stderr(Stdio::piped());
        die_with_parent(&mut command);
        command.spawn()
    })
    .map_err(spawn_err)?;
    let tee = child
        .stderr
        .take()
        .map(|err| std::thread::spawn(|| tee_stderr(err)));
    let status = child.wait().map_err(spawn_err)?;
    let (message, mut found) = tee.and_then(|t| t.join().ok()).unwrap_or_default();
    warnings.append(&mut found);
    if status.success() {
        return Ok(());
    }
    let mut message = message.unwrap_or_else(|| "(it wrote nothing to stderr)".to_owned());
    if let Some(hint) = &stage.hint {
        message = format!("{message} ({hint})");
    }
    Err(PipelineError::StageFailed {
        stage: stage.label(),
        status: status.to_string(),
        message,
    })
}

/// Makes the child die with the runner (issue 16, defect 1: a killed `pipeline` left its
/// solver running, writing into the folder a rerun then wrote too). On Linux the child
/// asks for `SIGKILL` when its parent dies (`PR_SET_PDEATHSIG`; strictly, when the thread
/// that spawned it ends, and the runner waits for every child on the thread that spawned
/// it); if the parent died before the request, it exits at once. Children stay in the
/// runner's process group, so a terminal's ^C reaches them as well.
fn die_with_parent(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id();
        // SAFETY: between fork and exec the closure only makes async-signal-safe system
        // calls (prctl, getppid) and allocates nothing.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have died before prctl: then we are another's child.
                if u32::try_from(libc::getppid()).ok() != Some(parent) {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Attempts of [`spawn_retrying`] while the program file is busy.
const BUSY_ATTEMPTS: u32 = 50;

/// Runs `spawn`, retrying for up to about half a second while it fails with "text file
/// busy" (`ETXTBSY`): an executable that was just written (a rebuilt stage binary) can stay
/// open for writing in a child that another thread forked in that instant, until that
/// child execs. Any other error, or a file that stays busy, is returned.
fn spawn_retrying<T>(mut spawn: impl FnMut() -> std::io::Result<T>) -> std::io::Result<T> {
    let mut attempt = 1;
    loop {
        match spawn() {
            Err(e)
                if e.kind() == std::io::ErrorKind::ExecutableFileBusy
                    && attempt < BUSY_ATTEMPTS =>
            {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

/// Copies `input` to this process's stderr as it arrives and returns the error message in
/// it (the first line starting with `error`, prefix removed, else the last non-empty line)
/// and its warning lines.
fn tee_stderr(mut input: impl Read) -> (Option<String>, Vec<String>) {
    let mut lines = StderrLines::default();
    let mut buffer = [0u8; 8192];
    let stderr = std::io::stderr();
    loop {
        let n = match input.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let _ = stderr.lock().write_all(&buffer[..n]);
        lines.push(&buffer[..n]);
    }
    lines.finish()
}

/// What the runner keeps of a stage's stderr, fed in arbitrary chunks.
#[derive(Debug, Default)]
struct StderrLines {
    partial: Vec<u8>,
    first_error: Option<String>,
    last: Option<String>,
    warnings: Vec<String>,
}

impl StderrLines {
    fn push(&mut self, chunk: &[u8]) {
        for &byte in chunk {
            if byte == b'\n' {
                let line = std::mem::take(&mut self.partial);
                self.line(&line);
            } else {
                self.partial.push(byte);
            }
        }
    }

    /// One line as a terminal shows it: escape sequences removed, only the text after the
    /// last carriage return (a progress bar redrawn in place and then cleared leaves none).
    fn line(&mut self, raw: &[u8]) {
        let text = visible_text(&String::from_utf8_lossy(raw));
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let lower = text.to_ascii_lowercase();
        if self.first_error.is_none() && lower.starts_with("error") {
            let stripped = text
                .get(5..)
                .map(|rest| rest.trim_start_matches(':').trim())
                .filter(|rest| !rest.is_empty())
                .unwrap_or(text);
            self.first_error = Some(stripped.to_owned());
        }
        // `warning: …` (solver, meshgen) or `export: warning: …`.
        let after_prefix = lower.split_once(": ").map_or("", |(_, rest)| rest);
        if lower.starts_with("warning") || after_prefix.starts_with("warning") {
            self.warnings.push(text.to_owned());
        }
        self.last = Some(text.to_owned());
    }

    fn finish(mut self) -> (Option<String>, Vec<String>) {
        let rest = std::mem::take(&mut self.partial);
        self.line(&rest);
        (self.first_error.or(self.last), self.warnings)
    }
}

/// `text` without ANSI escape sequences (`ESC [ … letter`) and without what a carriage
/// return overwrites.
fn visible_text(text: &str) -> String {
    let after_cr = text.rsplit('\r').find(|part| {
        let t = strip_escapes(part);
        !t.trim().is_empty()
    });
    strip_escapes(after_cr.unwrap_or(""))
}

fn strip_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ parameters… final byte in @..~
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

    #[test]
    fn warnings_and_the_error_are_found_in_chunks_through_progress_bar_redraws() {
        let mut lines = StderrLines::default();
        let text = "warning: s.yaml: time step dt = 0.5 s exceeds\n\
                    \r\x1b[2K[00:00:01] ### 10/400 steps\r\x1b[2K\x1b[1A\
                    [00:00:02] ### 20/400 steps\r\x1b[2Kwarning: tiny: step 3 (t = …): Picard\n\
                    progress: step 100/400 (25.0 %), …\n\
                    export: warning: no stats.msdem\n\
                    error: it broke\nlast words";
        for chunk in text.as_bytes().chunks(7) {
            lines.push(chunk);
        }
        let (message, warnings) = lines.finish();
        assert_eq!(message.as_deref(), Some("it broke"));
        assert_eq!(
            warnings,
            [
                "warning: s.yaml: time step dt = 0.5 s exceeds",
                "warning: tiny: step 3 (t = …): Picard",
                "export: warning: no stats.msdem",
            ]
        );
        // Without an error line, the last visible line is the message.
        let mut lines = StderrLines::default();
        lines.push(b"one\ntwo\r\x1b[2K\n");
        assert_eq!(lines.finish().0.as_deref(), Some("two"));
    }

    #[test]
    fn a_busy_program_is_retried_and_other_errors_are_not() {
        let mut calls = 0;
        let r = spawn_retrying(|| {
            calls += 1;
            if calls < 3 {
                Err(Error::from(ErrorKind::ExecutableFileBusy))
            } else {
                Ok(calls)
            }
        });
        assert_eq!(r.unwrap(), 3);
        let mut calls = 0;
        let r: std::io::Result<()> = spawn_retrying(|| {
            calls += 1;
            Err(Error::from(ErrorKind::NotFound))
        });
        assert_eq!(r.unwrap_err().kind(), ErrorKind::NotFound);
        assert_eq!(calls, 1);
        let mut calls = 0;
        let r: std::io::Result<()> = spawn_retrying(|| {
            calls += 1;
            Err(Error::from(ErrorKind::ExecutableFileBusy))
        });
        assert_eq!(r.unwrap_err().kind(), ErrorKind::ExecutableFileBusy);
        assert_eq!(calls, BUSY_ATTEMPTS);
    }
}
