//! Errors of shuf mode (names in them are quoted by [`super::quote`]).

use std::ffi::OsStr;
use std::io;

pub use super::quote::{quote, quotef};

/// A failure: GNU's message (without the `program: ` prefix), and whether
/// "Try 'program --help' for more information." follows. Exit status 1.
#[derive(Debug)]
pub struct ShufError {
    /// The message, e.g. `invalid line count: ‘A’`.
    pub message: String,
    /// Whether the `--help` hint follows (usage errors).
    pub try_help: bool,
    /// The message's exact bytes when they are not UTF-8 (glibc shows an
    /// option's bytes as given: `unrecognized option '--\xff'`).
    pub raw: Option<Vec<u8>>,
}

impl ShufError {
    /// An error without the usage hint.
    pub fn plain(message: impl Into<String>) -> Self {
        ShufError {
            message: message.into(),
            try_help: false,
            raw: None,
        }
    }

    /// A usage error: the `--help` hint follows.
    pub fn usage(message: impl Into<String>) -> Self {
        ShufError {
            message: message.into(),
            try_help: true,
            raw: None,
        }
    }

    /// A usage error whose message may hold any bytes.
    pub fn usage_bytes(message: Vec<u8>) -> Self {
        match String::from_utf8(message) {
            Ok(text) => ShufError::usage(text),
            Err(e) => ShufError {
                message: String::from_utf8_lossy(e.as_bytes()).into_owned(),
                try_help: true,
                raw: Some(e.into_bytes()),
            },
        }
    }

    /// The message as printed: its exact bytes.
    pub fn message_bytes(&self) -> &[u8] {
        self.raw.as_deref().unwrap_or(self.message.as_bytes())
    }

    /// `NAME: strerror` for a file that could not be opened or read, with
    /// the name quoted as GNU's `quotef` does.
    pub fn file(name: &OsStr, error: &io::Error) -> Self {
        ShufError::plain(format!("{}: {}", quotef(name), os_error_text(error)))
    }

    /// GNU's `read error: strerror`.
    pub fn read(error: &io::Error) -> Self {
        ShufError::plain(format!("read error: {}", os_error_text(error)))
    }

    /// GNU's `write error: strerror`.
    pub fn write(error: &io::Error) -> Self {
        ShufError::plain(format!("write error: {}", os_error_text(error)))
    }

    /// GNU's `memory exhausted`.
    pub fn memory() -> Self {
        ShufError::plain("memory exhausted")
    }
}

/// The C library's text for an error (`strerror`), without Rust's
/// ` (os error N)` suffix.
pub fn os_error_text(error: &io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(cut) if error.raw_os_error().is_some() => text[..cut].to_string(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strerror_text_has_no_rust_suffix() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(os_error_text(&e), "No such file or directory");
    }
}
