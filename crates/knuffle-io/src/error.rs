//! The failures of this crate's files, carried up to each engine's error
//! (which words them), and the one way an I/O error is worded.

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::PathBuf;

/// A file written by the rule of [`written_file`](crate::written_file)
/// could not be opened, written or put in place.
#[derive(Debug)]
pub struct FileError {
    /// The name as the caller gave it (never a temporary name).
    pub name: OsString,
    /// The operating system's error.
    pub error: io::Error,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}",
            self.name.to_string_lossy(),
            describe(&self.error)
        )
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Creating, writing or reading a temporary file in `dir` failed (for
/// example: no space left on the device). Each engine words it in its
/// own error (knuffle-records' `Error::Temp`).
#[derive(Debug)]
pub struct TempError {
    /// The temporary directory.
    pub dir: PathBuf,
    /// The operating system's error.
    pub error: io::Error,
}

/// An I/O error without Rust's " (os error N)" tail, as coreutils print it.
pub fn describe(error: &io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(cut) if error.raw_os_error().is_some() => text[..cut].to_string(),
        _ => text,
    }
}
