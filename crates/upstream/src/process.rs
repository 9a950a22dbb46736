//! Running a child process under a time limit (and optionally a size limit on a folder it
//! writes), with its output collected without deadlock.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::FetchError;

/// How much of stderr is kept for the error message.
const STDERR_KEEP: usize = 64 * 1024;

/// Limits for one child process.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunLimits<'a> {
    /// Kill the child at this instant: the end of the time allowed for the whole source, which
    /// every command run for it shares.
    pub(crate) deadline: Instant,
    /// That whole time, for the error message.
    pub(crate) timeout: Duration,
    /// Kill the child when this folder grows past `max_bytes`.
    pub(crate) watch: Option<(&'a Path, u64)>,
}

/// Runs `cmd` to completion and returns its stdout. A non-zero exit is [`FetchError::Git`] with
/// the last lines of stderr.
pub(crate) fn run(
    command: &'static str,
    mut cmd: Command,
    stdin: Option<Vec<u8>>,
    limits: RunLimits<'_>,
) -> Result<Vec<u8>, FetchError> {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| FetchError::Git {
        command,
        message: format!("cannot start git: {e} (is git installed and on PATH?)"),
    })?;
    let writer = match (stdin, child.stdin.take()) {
        (Some(input), Some(mut pipe)) => Some(thread::spawn(move || {
            // A child that exits early closes the pipe; its exit status tells what went wrong.
            let _ = pipe.write_all(&input);
        })),
        _ => None,
    };
    let mut out_pipe = child.stdout.take().expect("stdout was piped");
    let mut err_pipe = child.stderr.take().expect("stderr was piped");
    let out_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out_pipe.read_to_end(&mut buf);
        buf
    });
    let err_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err_pipe
            .by_ref()
            .take(STDERR_KEEP as u64)
            .read_to_end(&mut buf);
        let _ = std::io::copy(&mut err_pipe, &mut std::io::sink());
        buf
    });

    let started = Instant::now();
    // The cap is on what this command adds, not on what earlier fetches left in the folder.
    let baseline = limits.watch.map_or(0, |(dir, _)| dir_size(dir));
    let mut pause = Duration::from_micros(200);
    let mut last_size_check = started;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                return Err(FetchError::Git {
                    command,
                    message: format!("cannot wait for git: {e}"),
                });
            }
        }
        let limit_hit = if Instant::now() > limits.deadline {
            Some(FetchError::Timeout {
                command,
                seconds: limits.timeout.as_secs(),
            })
        } else if let Some((dir, max)) = limits
            .watch
            .filter(|_| last_size_check.elapsed() > Duration::from_millis(100))
        {
            last_size_check = Instant::now();
            (dir_size(dir).saturating_sub(baseline) > max)
                .then_some(FetchError::TooLarge { limit: max })
        } else {
            None
        };
        if let Some(error) = limit_hit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(error);
        }
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(10));
    };
    if let Some(w) = writer {
        let _ = w.join();
    }
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    if status.success() {
        Ok(stdout)
    } else {
        Err(FetchError::Git {
            command,
            message: last_lines(&stderr, status),
        })
    }
}

/// git's own explanation, on one line: its `fatal:`/`error:` lines when it printed any (the
/// advice after them says less; one that ends in `:` with the line that completes it, as git's
/// `unable to connect to 127.0.0.1:` then `127.0.0.1[0: 127.0.0.1]: errno=Connection refused`),
/// else the last lines of stderr.
fn last_lines(stderr: &[u8], status: std::process::ExitStatus) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let fatal: Vec<String> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let said = l
                .strip_prefix("fatal: ")
                .or_else(|| l.strip_prefix("error: "))?;
            Some(match lines.get(i + 1) {
                Some(next)
                    if said.ends_with(':')
                        && !next.starts_with("fatal: ")
                        && !next.starts_with("error: ") =>
                {
                    format!("{said} {next}")
                }
                _ => said.to_owned(),
            })
        })
        .take(2)
        .collect();
    let chosen: Vec<String> = if fatal.is_empty() {
        lines[lines.len().saturating_sub(2)..]
            .iter()
            .map(|l| (*l).to_owned())
            .collect()
    } else {
        fatal
    };
    if chosen.is_empty() {
        format!("exited with {status}")
    } else {
        chosen.join("; ")
    }
}

/// Total size of the files below `dir` (0 when it cannot be read).
pub(crate) fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;

    use super::last_lines;

    #[test]
    fn git_s_fatal_lines_are_the_message_each_completed_when_it_ends_in_a_colon() {
        let status = std::process::ExitStatus::from_raw(128 << 8);
        let said = |stderr: &str| last_lines(stderr.as_bytes(), status);
        assert_eq!(
            said(
                "fatal: unable to connect to 127.0.0.1:\n\
                 127.0.0.1[0: 127.0.0.1]: errno=Connection refused\n\n"
            ),
            "unable to connect to 127.0.0.1: 127.0.0.1[0: 127.0.0.1]: errno=Connection refused"
        );
        assert_eq!(
            said("hint: advice\nfatal: first:\nerror: second\nhint: more\n"),
            "first:; second"
        );
        assert_eq!(said("warning: a\nlast\n"), "warning: a; last");
        assert_eq!(said(""), format!("exited with {status}"));
    }
}
