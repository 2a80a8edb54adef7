//! The one error type of the table library: what went wrong, in words that
//! name the file, and whether it was the data or the system.

use std::fmt;
use std::io;
use std::path::Path;

/// What kind of failure: the exit status the command line gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Invalid options or invalid data (a corrupt or truncated file, a
    /// schema mismatch, a ragged CSV row): exit status 2.
    Invalid,
    /// A read, write or open failed: exit status 1.
    Io,
    /// A sample's rows cannot be sampled as asked (a bad weight; as
    /// `knuffle sample` reports them for lines), or the input changed while
    /// it was read: exit status 1.
    Data,
    /// What a run must hold passes the memory limit (a sample larger than
    /// `--memory`): exit status 1.
    Memory,
}

/// A failure of a table shuffle.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    /// The operating system's kind of an I/O failure, when there was one.
    os: Option<io::ErrorKind>,
}

impl Error {
    /// Invalid options or data.
    pub fn invalid(message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Invalid,
            message: message.into(),
            os: None,
        }
    }

    /// An I/O failure.
    pub fn io(message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Io,
            message: message.into(),
            os: None,
        }
    }

    /// Rows that cannot be sampled as asked (exit status 1, as for
    /// lines): a bad weight; an input that changed while it was read.
    pub fn data(message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Data,
            message: message.into(),
            os: None,
        }
    }

    /// More to hold than the memory limit allows.
    pub fn memory(message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Memory,
            message: message.into(),
            os: None,
        }
    }

    /// An I/O failure on `path`, with the operating system's text; a
    /// compressed file whose data does not decompress is invalid data.
    pub fn io_at(path: &Path, error: &io::Error) -> Error {
        if knuffle_io::compressed::is_corrupt(error) {
            return Error::invalid(format!("{}: {error}", path.display()));
        }
        Error {
            os: Some(error.kind()),
            ..Error::io(format!("{}: {}", path.display(), os_text(error)))
        }
    }

    /// The operating system's kind of an I/O failure (`NotFound`,
    /// `PermissionDenied`, ...), when the failure was one.
    pub fn os_kind(&self) -> Option<io::ErrorKind> {
        self.os
    }

    /// What kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same failure, its message followed by `; more`.
    pub(crate) fn context_after(self, more: impl fmt::Display) -> Error {
        Error {
            kind: self.kind,
            message: format!("{}; {more}", self.message),
            os: self.os,
        }
    }

    /// The same failure, its message prefixed with `context: `.
    pub fn context(self, context: impl fmt::Display) -> Error {
        Error {
            kind: self.kind,
            message: format!("{context}: {}", self.message),
            os: self.os,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<knuffle_io::FileError> for Error {
    fn from(error: knuffle_io::FileError) -> Error {
        Error {
            os: Some(error.error.kind()),
            ..Error::io(error.to_string())
        }
    }
}

/// The operating system's text of an I/O error, without Rust's " (os error
/// N)" suffix.
pub(crate) fn os_text(error: &io::Error) -> String {
    let text = error.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

/// An Arrow error while reading or writing `path`: an I/O error stays one,
/// anything else is invalid data.
pub(crate) fn arrow_error(path: &Path, error: arrow::error::ArrowError) -> Error {
    use arrow::error::ArrowError;
    match error {
        ArrowError::IoError(_, e) => Error::io_at(path, &e),
        ArrowError::ExternalError(e) => match e.downcast::<io::Error>() {
            Ok(e) => Error::io_at(path, &e),
            Err(e) => Error::invalid(format!("{}: {e}", path.display())),
        },
        other => Error::invalid(format!("{}: {}", path.display(), strip_arrow(&other))),
    }
}

/// A Parquet error while reading or writing `path`.
pub(crate) fn parquet_error(path: &Path, error: parquet::errors::ParquetError) -> Error {
    use parquet::errors::ParquetError;
    match error {
        ParquetError::External(e) => match e.downcast::<io::Error>() {
            Ok(e) => Error::io_at(path, &e),
            Err(e) => Error::invalid(format!("{}: {e}", path.display())),
        },
        ParquetError::ArrowError(text) => Error::invalid(format!("{}: {text}", path.display())),
        ParquetError::EOF(text) => Error::invalid(format!(
            "{}: not a complete Parquet file (truncated?): {text}",
            path.display()
        )),
        other => Error::invalid(format!("{}: {other}", path.display())),
    }
}

/// Arrow's error text without its variant's prefix ("Parser error: ...").
fn strip_arrow(error: &arrow::error::ArrowError) -> String {
    error.to_string()
}
