//! What a sample or split reports: its failure ([`SampleError`], with a
//! [`SampleErrorKind`] that tells a caller how to act on it: the command
//! line turns `Invalid` into exit status 2 and the rest into 1, Python into
//! `ValueError`, `OSError` or `MemoryError`), and its notes ([`Note`]).

use std::fmt;
use std::io;

/// What kind of failure a [`SampleError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SampleErrorKind {
    /// The options are wrong (a bad probability, field, delimiter or
    /// part list; a field name without a header): the caller's to fix.
    Invalid,
    /// The data is wrong (a record without the weight or key field, a bad
    /// weight, weights whose total overflows).
    Data,
    /// Reading, writing or opening a file failed (the operating system's
    /// error kind).
    Io(io::ErrorKind),
    /// What the mode must hold exceeds the memory limit.
    Memory,
}

/// A failure of a sample or split: its kind and its message (as the
/// command line prints it after `knuffle sample: `).
#[derive(Debug)]
pub struct SampleError {
    kind: SampleErrorKind,
    message: String,
}

impl SampleError {
    /// An error of `kind` saying `message`.
    pub fn new(kind: SampleErrorKind, message: impl Into<String>) -> SampleError {
        SampleError {
            kind,
            message: message.into(),
        }
    }

    /// Wrong options.
    pub fn invalid(message: impl Into<String>) -> SampleError {
        SampleError::new(SampleErrorKind::Invalid, message)
    }

    /// Wrong data.
    pub fn data(message: impl Into<String>) -> SampleError {
        SampleError::new(SampleErrorKind::Data, message)
    }

    /// Over the memory limit.
    pub fn memory(message: impl Into<String>) -> SampleError {
        SampleError::new(SampleErrorKind::Memory, message)
    }

    /// An I/O failure described by `message`.
    pub fn io(error: &io::Error, message: impl Into<String>) -> SampleError {
        SampleError::new(SampleErrorKind::Io(error.kind()), message)
    }

    /// `cannot read NAME: strerror`; compressed data that does not
    /// decompress is wrong data, not a failure to read
    /// ([`knuffle_io::compressed::is_corrupt`]).
    pub fn read(name: &str, error: &io::Error) -> SampleError {
        let message = format!("cannot read {name}: {}", knuffle_io::describe(error));
        if knuffle_io::compressed::is_corrupt(error) {
            return SampleError::data(message);
        }
        SampleError::io(error, message)
    }

    /// `write error: strerror`.
    pub fn write(error: &io::Error) -> SampleError {
        SampleError::io(
            error,
            format!("write error: {}", knuffle_io::describe(error)),
        )
    }

    /// A failure of the file writer (knuffle-io's written-file rule), with
    /// its message (which names the file).
    pub fn file(error: knuffle_io::FileError) -> SampleError {
        SampleError::new(SampleErrorKind::Io(error.error.kind()), error.to_string())
    }

    /// The kind of failure.
    pub fn kind(&self) -> SampleErrorKind {
        self.kind
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SampleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SampleError {}

/// Something a run tells its caller without failing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Note {
    /// Records dropped because their weight was not a positive finite
    /// number (`skip_bad_weights`); given once, after reading, when any
    /// were.
    SkippedBadWeights(u64),
}
