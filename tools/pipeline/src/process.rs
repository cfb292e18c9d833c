//! Running one stage binary: its stderr is passed through and its error message kept.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::error::PipelineError;
use crate::plan::Stage;

/// Runs the stage binary in `out_dir`; its stderr is passed through line by line and its
/// error message kept for [`PipelineError::StageFailed`].
pub fn execute(program: &Path, stage: &Stage, out_dir: &Path) -> Result<(), PipelineError> {
    let spawn_err = |source| PipelineError::Spawn {
        stage: stage.label(),
        program: program.to_owned(),
        source,
    };
    let mut child = spawn_retrying(|| {
        Command::new(program)
            .args(&stage.args)
            .current_dir(out_dir)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
    })
    .map_err(spawn_err)?;
    let tee = child
        .stderr
        .take()
        .map(|err| std::thread::spawn(|| tee_stderr(err)));
    let status = child.wait().map_err(spawn_err)?;
    let message = tee.and_then(|t| t.join().ok()).flatten();
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

/// Copies `input` to this process's stderr and returns the error message in it: the first
/// line starting with `error` (prefix removed), else the last non-empty line.
fn tee_stderr(input: impl Read) -> Option<String> {
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    let (mut first_error, mut last) = (None, None);
    let stderr = std::io::stderr();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let _ = stderr.lock().write_all(&line);
        let text = String::from_utf8_lossy(&line).trim().to_owned();
        if text.is_empty() {
            continue;
        }
        let lower = text.to_ascii_lowercase();
        if first_error.is_none() && lower.starts_with("error") {
            let stripped = text
                .get(5..)
                .map(|rest| rest.trim_start_matches(':').trim())
                .filter(|rest| !rest.is_empty())
                .unwrap_or(&text);
            first_error = Some(stripped.to_owned());
        }
        last = Some(text);
    }
    first_error.or(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

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
