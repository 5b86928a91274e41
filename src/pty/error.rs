//! Why a PTY operation failed.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Why a PTY operation failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum PtyError {
    /// The program could not be started: not found, not executable, or exec failed.
    CannotRun {
        /// The program as the caller named it.
        program: String,
        /// `NotFound`, `PermissionDenied`, … — lets a CLI pick exit code 127 or 126.
        kind: io::ErrorKind,
        /// Human-readable reason, e.g. "No such file or directory".
        reason: String,
    },
    /// The working directory is unusable.
    Cwd {
        /// The directory asked for.
        path: PathBuf,
        /// Human-readable reason.
        reason: String,
    },
    /// Width or height was zero.
    InvalidSize {
        /// Columns asked for.
        width: u16,
        /// Rows asked for.
        height: u16,
    },
    /// Opening, configuring or resizing the PTY failed.
    Pty {
        /// What was being done.
        op: &'static str,
        /// Human-readable reason.
        reason: String,
    },
    /// The program's input is closed (its terminal is gone).
    Closed,
    /// The process survived SIGKILL for longer than is plausible.
    Unkillable {
        /// Its pid.
        pid: u32,
    },
}

impl fmt::Display for PtyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtyError::CannotRun {
                program, reason, ..
            } => write!(f, "cannot run `{program}`: {reason}"),
            PtyError::Cwd { path, reason } => {
                write!(
                    f,
                    "cannot use working directory `{}`: {reason}",
                    path.display()
                )
            }
            PtyError::InvalidSize { width, height } => {
                write!(
                    f,
                    "invalid terminal size {width}x{height}: both must be at least 1"
                )
            }
            PtyError::Pty { op, reason } => write!(f, "pty {op} failed: {reason}"),
            PtyError::Closed => f.write_str("the program's terminal is closed"),
            PtyError::Unkillable { pid } => {
                write!(f, "process {pid} did not exit after SIGKILL")
            }
        }
    }
}

impl std::error::Error for PtyError {}

/// An I/O error's message without the " (os error N)" suffix, for user-facing text.
pub(super) fn os_message(err: &io::Error) -> String {
    let text = err.to_string();
    match text.rfind(" (os error ") {
        Some(i) if text.ends_with(')') => text[..i].to_string(),
        _ => text,
    }
}

/// An `anyhow` error from portable-pty (its `Display` chain) as plain text.
pub(super) fn pty_error(op: &'static str, err: impl fmt::Display) -> PtyError {
    PtyError::Pty {
        op,
        reason: err.to_string(),
    }
}
