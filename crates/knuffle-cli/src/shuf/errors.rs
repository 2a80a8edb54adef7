//! shuf mode's failures in GNU's words (names quoted by [`super::quote`]),
//! as constructors of the binary's one error type [`CliError`].

use std::ffi::OsStr;
use std::io;

pub use crate::failure::CliError;
use crate::failure::os_error_text;

pub use super::quote::{quote, quotef};

impl CliError {
    /// `NAME: strerror` for a file that could not be opened or read, with
    /// the name quoted as GNU's `quotef` does.
    pub fn file(name: &OsStr, error: &io::Error) -> Self {
        CliError::plain(format!("{}: {}", quotef(name), os_error_text(error)))
    }

    /// GNU's `read error: strerror`.
    pub fn read(error: &io::Error) -> Self {
        CliError::plain(format!("read error: {}", os_error_text(error)))
    }

    /// GNU's `memory exhausted`.
    pub fn memory() -> Self {
        CliError::plain("memory exhausted")
    }
}
