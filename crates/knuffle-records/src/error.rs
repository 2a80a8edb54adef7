//! What can go wrong, by where it happened, so a caller can act on it (and
//! the `knuffle` command can word it exactly as GNU `shuf` does).

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::PathBuf;

use knuffle_io::{FileError, TempError, describe};

/// A failure of a record shuffle.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A named file (an input, the random source, or the output) could not
    /// be opened, or the output could not be put in place at the end.
    File {
        /// The name as given.
        name: OsString,
        /// The operating system's error.
        error: io::Error,
    },
    /// Reading an input failed.
    Read(io::Error),
    /// Writing the output failed (a closed pipe is `BrokenPipe`).
    Write(io::Error),
    /// Creating, writing or reading a temporary file in `dir` failed
    /// (for example: no space left on the device).
    Temp {
        /// The temporary directory.
        dir: PathBuf,
        /// The operating system's error.
        error: io::Error,
    },
    /// Memory could not be allocated for what the in-memory path needs.
    OutOfMemory,
    /// A record is longer than the memory limit allows, in a mode that must
    /// hold it in memory (see [`Options::memory`](crate::Options::memory)).
    RecordTooLong {
        /// The memory limit in bytes.
        limit: u64,
    },
    /// The random source (`--random-source`) ended before enough bytes
    /// were read from it.
    RandomSourceEnded {
        /// The source's name as given.
        name: OsString,
    },
    /// Reading the random source failed.
    RandomSourceRead {
        /// The source's name as given.
        name: OsString,
        /// The operating system's error.
        error: io::Error,
    },
    /// `repeat` with a count above zero, and no record to draw from.
    NoRecordsToRepeat,
    /// The operating system's entropy could not be read.
    Entropy(String),
    /// The single input file, read through a map
    /// ([`Options::map_input`](crate::Options::map_input)), shrank while
    /// it was being shuffled: some of what was written may be zeros.
    InputShrank,
    /// Words ([`Input::Words`](crate::Input::Words)) or a range
    /// ([`Input::Range`](crate::Input::Range)) given with other inputs:
    /// each is shuffled only on its own.
    MixedInputs,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::File { name, error } => {
                write!(f, "{}: {}", name.to_string_lossy(), describe(error))
            }
            Error::Read(error) => write!(f, "read error: {}", describe(error)),
            Error::Write(error) => write!(f, "write error: {}", describe(error)),
            Error::Temp { dir, error } => write!(
                f,
                "cannot use temporary space in '{}': {} (choose another directory with -T DIR)",
                dir.display(),
                describe(error)
            ),
            Error::OutOfMemory => f.write_str("memory exhausted"),
            Error::RecordTooLong { limit } => write!(
                f,
                "the lines to keep do not fit the memory limit of {}: a line is too long, or -n keeps too many; use a larger --memory",
                human_size(*limit)
            ),
            Error::RandomSourceEnded { name } => {
                write!(f, "{}: end of file", name.to_string_lossy())
            }
            Error::RandomSourceRead { name, error } => write!(
                f,
                "{}: read error: {}",
                name.to_string_lossy(),
                describe(error)
            ),
            Error::NoRecordsToRepeat => f.write_str("no lines to repeat"),
            Error::Entropy(text) => write!(f, "getrandom: {text}"),
            Error::MixedInputs => f.write_str(
                "words (-e) or a range (-i) are shuffled only on their own, not with other inputs",
            ),
            Error::InputShrank => f.write_str(
                "read error: the file shrank or could not be read while it was being shuffled",
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::File { error, .. }
            | Error::Read(error)
            | Error::Write(error)
            | Error::Temp { error, .. }
            | Error::RandomSourceRead { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl From<FileError> for Error {
    fn from(FileError { name, error }: FileError) -> Error {
        Error::File { name, error }
    }
}

impl From<TempError> for Error {
    fn from(TempError { dir, error }: TempError) -> Error {
        Error::Temp { dir, error }
    }
}

/// A size as `--memory` takes it (`8M`, `3G`) when a whole number of MiB
/// or GiB; else to a tenth of a GiB or MiB (`3.4 GiB`: a default limit
/// taken from the memory available); small sizes in bytes.
fn human_size(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    match bytes {
        b if b >= GIB && b % GIB == 0 => format!("{}G", b / GIB),
        b if b >= GIB => format!("{:.1} GiB", b as f64 / GIB as f64),
        b if b >= MIB && b % MIB == 0 => format!("{}M", b / MIB),
        b if b >= MIB => format!("{:.1} MiB", b as f64 / MIB as f64),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_memory_takes_them() {
        assert_eq!(human_size(8 << 20), "8M");
        assert_eq!(human_size(3 << 30), "3G");
        assert_eq!(human_size(1_263_247_360), "1.2 GiB");
        assert_eq!(human_size((5 << 20) + 1000), "5.0 MiB");
        assert_eq!(human_size(1000), "1000 bytes");
        let refused = Error::RecordTooLong { limit: 64 << 20 }.to_string();
        assert!(refused.contains("memory limit of 64M"), "{refused}");
    }
}
