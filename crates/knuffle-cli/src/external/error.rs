//! What can go wrong in external mode, said so a user can act on it.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// A failure of the external shuffle, by where it happened.
#[derive(Debug)]
pub enum ExternalError {
    /// Reading an input failed.
    Input { error: io::Error },
    /// Creating, writing or reading a temporary file in `dir` failed
    /// (for example: no space left on the device).
    Temp { dir: PathBuf, error: io::Error },
    /// Writing the output failed (a closed pipe is `BrokenPipe`).
    Output(io::Error),
}

impl fmt::Display for ExternalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExternalError::Input { error, .. } => write!(f, "read error: {}", describe(error)),
            ExternalError::Temp { dir, error } => write!(
                f,
                "cannot use temporary space in '{}': {} (choose another directory with -T DIR)",
                dir.display(),
                describe(error)
            ),
            ExternalError::Output(error) => write!(f, "write error: {}", describe(error)),
        }
    }
}

impl std::error::Error for ExternalError {}

/// An I/O error without Rust's " (os error N)" tail, as coreutils print it.
pub fn describe(error: &io::Error) -> String {
    let text = error.to_string();
    match text.find(" (os error ") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    }
}
