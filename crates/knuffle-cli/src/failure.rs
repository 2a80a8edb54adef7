//! The binary's one error type, [`CliError`], and the operating system's
//! text for an I/O error. Every mode and subcommand returns its failure as
//! a `CliError`; `main` is the only place that prints one
//! ([`CliError::report`]) and turns it into the exit status.
//!
//! Exit statuses: 0 success; 1 a read, write or open failed (and every
//! failure of shuf mode, as GNU shuf exits 1 for all of them); 2 invalid
//! arguments of a subcommand (clap's own status for usage errors).
//! `audit` and `verify` return 1 as a verdict, not as an error.

use std::io::{self, Write};
use std::process::ExitCode;

/// Exit status for a failed read or write.
pub const IO_FAILURE: u8 = 1;
/// Exit status for invalid arguments of a subcommand (as clap uses).
pub const USAGE: u8 = 2;

/// A failure of the command line: a message (printed after `PROGRAM: `),
/// whether GNU's "Try 'PROGRAM --help' for more information." follows, and
/// the exit status. clap's own errors, help and version texts travel as
/// they are and are printed by clap.
#[derive(Debug)]
pub struct CliError {
    /// The message, e.g. `invalid line count: ‘A’`.
    pub message: String,
    /// Whether the `--help` hint follows (usage errors).
    pub try_help: bool,
    /// The message's exact bytes when they are not UTF-8 (glibc shows an
    /// option's bytes as given: `unrecognized option '--\xff'`).
    pub raw: Option<Vec<u8>>,
    /// The exit status.
    pub status: u8,
    /// A parse result of clap (an error, or `--help`/`--version`).
    clap: Option<Box<clap::Error>>,
}

impl CliError {
    /// A message without the usage hint, exit status 1 (GNU shuf's status
    /// for every failure).
    pub fn plain(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            try_help: false,
            raw: None,
            status: IO_FAILURE,
            clap: None,
        }
    }

    /// A usage error in GNU's form: the `--help` hint follows, status 1.
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            try_help: true,
            ..CliError::plain(message)
        }
    }

    /// A GNU usage error whose message may hold any bytes.
    pub fn usage_bytes(message: Vec<u8>) -> Self {
        match String::from_utf8(message) {
            Ok(text) => CliError::usage(text),
            Err(e) => CliError {
                raw: Some(e.as_bytes().to_vec()),
                ..CliError::usage(String::from_utf8_lossy(e.as_bytes()).into_owned())
            },
        }
    }

    /// Invalid arguments of a subcommand (an impossible deal, a bad
    /// size, a `--strict` refusal): exit status 2, no hint.
    pub fn invalid(message: impl Into<String>) -> Self {
        CliError::plain(message).with_status(USAGE)
    }

    /// The same failure with exit status `status`.
    pub fn with_status(mut self, status: u8) -> Self {
        self.status = status;
        self
    }

    /// `write error: strerror` (status 1).
    pub fn write(error: &io::Error) -> Self {
        CliError::plain(format!("write error: {}", os_error_text(error)))
    }

    /// The message as printed: its exact bytes.
    pub fn message_bytes(&self) -> &[u8] {
        self.raw.as_deref().unwrap_or(self.message.as_bytes())
    }

    /// Prints the failure on standard error as `PREFIX: MESSAGE` (and the
    /// hint naming `program`), or lets clap print its own text, and returns
    /// the exit status. A standard error that is itself gone is not a
    /// reason to panic: the message is then dropped.
    pub fn report(&self, prefix: &[u8], program: &str) -> ExitCode {
        if let Some(clap) = &self.clap {
            let _ = clap.print();
            return ExitCode::from(clap.exit_code().clamp(0, 255) as u8);
        }
        let mut stderr = io::stderr().lock();
        let _ = stderr.write_all(prefix);
        let _ = stderr.write_all(b": ");
        let _ = stderr.write_all(self.message_bytes());
        let _ = stderr.write_all(b"\n");
        if self.try_help {
            let _ = writeln!(stderr, "Try '{program} --help' for more information.");
        }
        ExitCode::from(self.status)
    }
}

impl From<clap::Error> for CliError {
    fn from(error: clap::Error) -> Self {
        CliError {
            status: error.exit_code().clamp(0, 255) as u8,
            clap: Some(Box::new(error)),
            ..CliError::plain(String::new())
        }
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

    #[test]
    fn statuses() {
        assert_eq!(CliError::plain("x").status, 1);
        assert!(CliError::usage("x").try_help);
        assert_eq!(CliError::invalid("x").status, 2);
        let bytes = CliError::usage_bytes(b"bad \xff".to_vec());
        assert_eq!(bytes.message_bytes(), b"bad \xff");
    }
}
