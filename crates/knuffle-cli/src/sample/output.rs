//! Records out (standard output, buffered, where a closed pipe has
//! already been made to end the process quietly; or `-o FILE`, written by
//! knuffle's one rule for files: `knuffle_records::WrittenFile`, a regular
//! file replaced atomically only once the sample is complete, so FILE may
//! be one of the inputs), and the memory budget of the records a mode
//! holds.

use std::io::{BufWriter, StdoutLock, Write};
use std::path::Path;

use knuffle_records::WrittenFile;

use crate::failure::CliError;

/// What a held record costs besides its bytes (its `Vec`, its index or
/// key, the allocator's header), counted against the budget.
pub const RECORD_OVERHEAD: u64 = 64;

/// The memory a held record takes.
pub fn record_cost(record: &[u8]) -> u64 {
    record.len() as u64 + RECORD_OVERHEAD
}

/// Where the sample goes.
enum Sink {
    Stdout(BufWriter<StdoutLock<'static>>),
    File(BufWriter<WrittenFile>),
}

/// Buffered output.
pub struct Output {
    sink: Sink,
    budget: u64,
}

impl Output {
    /// Standard output, or `file` (opened now, so that a missing directory
    /// is reported before any input is read); `memory` is the limit on
    /// records held.
    pub fn open(file: Option<&Path>, memory: u64) -> Result<Output, CliError> {
        let sink = match file {
            None => Sink::Stdout(BufWriter::with_capacity(1 << 16, std::io::stdout().lock())),
            Some(path) => {
                let written = WrittenFile::create(path)
                    .map_err(|error| CliError::plain(error.to_string()))?;
                Sink::File(BufWriter::with_capacity(1 << 16, written))
            }
        };
        Ok(Output {
            sink,
            budget: memory,
        })
    }

    /// Writes one record (its terminator included).
    pub fn write(&mut self, record: &[u8]) -> Result<(), CliError> {
        match &mut self.sink {
            Sink::Stdout(out) => out.write_all(record),
            Sink::File(out) => out.write_all(record),
        }
        .map_err(|err| CliError::write(&err))
    }

    /// Writes `value`, the field `delimiter`, then `record`
    /// (`--print-random`).
    pub fn write_valued(
        &mut self,
        value: &str,
        delimiter: u8,
        record: &[u8],
    ) -> Result<(), CliError> {
        self.write(value.as_bytes())?;
        self.write(&[delimiter])?;
        self.write(record)
    }

    /// Flushes everything written; a file is completed (renamed into
    /// place).
    pub fn finish(self) -> Result<(), CliError> {
        match self.sink {
            Sink::Stdout(mut out) => out.flush().map_err(|err| CliError::write(&err)),
            Sink::File(out) => {
                let written = out
                    .into_inner()
                    .map_err(|err| CliError::write(err.error()))?;
                written
                    .finish()
                    .map_err(|error| CliError::plain(error.to_string()))
            }
        }
    }

    /// The memory limit on records held.
    pub fn budget(&self) -> u64 {
        self.budget
    }

    /// A tracker of held records under this output's memory limit.
    pub fn held(&self) -> Held {
        Held {
            bound: 0,
            budget: self.budget,
        }
    }
}

/// An upper bound of the bytes of records held (records evicted are not
/// subtracted one by one: when the bound passes the budget, the caller's
/// exact count replaces it, and only an exact count over the budget is an
/// error).
pub struct Held {
    bound: u64,
    budget: u64,
}

impl Held {
    /// Counts a newly held `record`; `exact` gives the exact cost of all
    /// records held (the new one included) when the bound is over budget.
    pub fn add(&mut self, record_bytes: u64, exact: impl FnOnce() -> u64) -> Result<(), CliError> {
        self.bound += record_bytes + RECORD_OVERHEAD;
        if self.bound > self.budget {
            self.bound = exact();
            if self.bound > self.budget {
                return Err(CliError::plain(format!(
                    "the records to hold take more than the memory limit ({} bytes); give a \
                     smaller sample (-n, --per-key) or a larger --memory",
                    self.budget
                )));
            }
        }
        Ok(())
    }
}
