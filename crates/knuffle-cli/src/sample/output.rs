//! Records out (standard output, buffered; a closed pipe has already been
//! made to end the process quietly), and the memory budget of the records
//! a mode holds.

use std::io::{BufWriter, StdoutLock, Write};

use crate::failure::CliError;

/// What a held record costs besides its bytes (its `Vec`, its index or
/// key, the allocator's header), counted against the budget.
pub const RECORD_OVERHEAD: u64 = 64;

/// The memory a held record takes.
pub fn record_cost(record: &[u8]) -> u64 {
    record.len() as u64 + RECORD_OVERHEAD
}

/// Buffered standard output.
pub struct Output {
    out: BufWriter<StdoutLock<'static>>,
    budget: u64,
}

impl Output {
    /// Standard output; `memory` is the limit on records held.
    pub fn stdout(memory: u64) -> Output {
        Output {
            out: BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
            budget: memory,
        }
    }

    /// Writes one record (its terminator included).
    pub fn write(&mut self, record: &[u8]) -> Result<(), CliError> {
        self.out
            .write_all(record)
            .map_err(|err| CliError::write(&err))
    }

    /// Flushes everything written.
    pub fn finish(mut self) -> Result<(), CliError> {
        self.out.flush().map_err(|err| CliError::write(&err))
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
