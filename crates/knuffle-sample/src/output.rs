//! Records out (a writer of the caller's, buffered; or a file written by
//! knuffle's one rule for files: [`WrittenFile`], a regular file replaced
//! atomically only once the sample is complete, so it may be one of the
//! inputs, and never truncated by a failing run), and the memory budget of
//! the records a mode holds.

use std::cell::Cell;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::rc::Rc;

use super::error::SampleError;
use knuffle_io::WrittenFile;

/// What a held record costs besides its bytes (its `Vec`, its index or
/// key, the allocator's header), counted against the budget.
pub const RECORD_OVERHEAD: u64 = 64;

/// The memory a held record takes.
pub fn record_cost(record: &[u8]) -> u64 {
    record.len() as u64 + RECORD_OVERHEAD
}

/// What `--print-random` and `--gen-random-inorder` ask for.
#[derive(Clone, Copy, Debug)]
pub struct PrintRandom {
    /// The field delimiter written after the value.
    pub delimiter: u8,
    /// `--gen-random-inorder`: every record is written (in input order),
    /// not only those in the sample.
    pub every_record: bool,
}

/// Where records go: a writer of the caller's (flushed at the end), or a
/// file by knuffle's one rule for files.
pub enum Destination<'a> {
    /// A writer (standard output, a `Vec`, ...).
    Writer(&'a mut dyn Write),
    /// A file, replaced only once everything is written.
    File(&'a Path),
}

/// Where the sample goes.
enum Sink<'a> {
    Writer(BufWriter<&'a mut dyn Write>),
    File(BufWriter<WrittenFile>),
}

/// A write error: `write error: strerror` for a writer (as GNU tools say
/// it of standard output), `cannot write 'FILE': strerror` for a file.
fn write_error(name: Option<&str>, error: &std::io::Error) -> SampleError {
    match name {
        None => SampleError::write(error),
        Some(name) => SampleError::io(
            error,
            format!("cannot write '{name}': {}", knuffle_io::describe(error)),
        ),
    }
}

/// Buffered output.
pub struct Output<'a> {
    sink: Sink<'a>,
    budget: u64,
    /// A file's name, which its write errors give.
    name: Option<String>,
}

impl<'a> Output<'a> {
    /// Output to `destination` (a file is opened now, so that a missing
    /// directory is reported before any record is read); `memory` is the
    /// limit on records held.
    pub fn open(destination: Destination<'a>, memory: u64) -> Result<Output<'a>, SampleError> {
        let name = match destination {
            Destination::File(path) => Some(path.display().to_string()),
            Destination::Writer(_) => None,
        };
        let sink = match destination {
            Destination::Writer(writer) => Sink::Writer(BufWriter::with_capacity(1 << 16, writer)),
            Destination::File(path) => {
                let written = WrittenFile::create(path).map_err(SampleError::file)?;
                Sink::File(BufWriter::with_capacity(1 << 16, written))
            }
        };
        Ok(Output {
            sink,
            budget: memory,
            name,
        })
    }

    /// Writes one record (its terminator included).
    pub fn write(&mut self, record: &[u8]) -> Result<(), SampleError> {
        match &mut self.sink {
            Sink::Writer(out) => out.write_all(record),
            Sink::File(out) => out.write_all(record),
        }
        .map_err(|err| write_error(self.name.as_deref(), &err))
    }

    /// Writes `value`, the field `delimiter`, then `record`
    /// (`--print-random`).
    pub fn write_valued(
        &mut self,
        value: &str,
        delimiter: u8,
        record: &[u8],
    ) -> Result<(), SampleError> {
        self.write(value.as_bytes())?;
        self.write(&[delimiter])?;
        self.write(record)
    }

    /// Flushes everything written; a file is completed (renamed into
    /// place).
    pub fn finish(self) -> Result<(), SampleError> {
        let name = self.name;
        match self.sink {
            Sink::Writer(mut out) => out.flush().map_err(|err| SampleError::write(&err)),
            Sink::File(out) => {
                let written = out
                    .into_inner()
                    .map_err(|err| write_error(name.as_deref(), err.error()))?;
                written.finish().map_err(SampleError::file)
            }
        }
    }

    /// The memory limit on records held.
    pub fn budget(&self) -> u64 {
        self.budget
    }

    /// A meter of the records held under this output's memory limit.
    pub fn meter(&self) -> Meter {
        Meter {
            held: Rc::new(Cell::new(0)),
            budget: self.budget,
        }
    }
}

/// The memory that held records take, counted exactly: a [`Held`] record
/// adds its cost when it is made and takes it back when it is dropped
/// (evicted from a reservoir, or written), so the count is always what is
/// held, at O(1) per record.
pub struct Meter {
    held: Rc<Cell<u64>>,
    budget: u64,
}

impl Meter {
    /// Holds `record`, the `index`-th of the input (0-based).
    pub fn hold(&self, index: u64, record: Vec<u8>) -> Held {
        self.held.set(self.held.get() + record_cost(&record));
        Held {
            index,
            record,
            meter: Rc::clone(&self.held),
        }
    }

    /// Counts `bytes` held for good (a group's key and reservoir).
    pub fn add(&self, bytes: u64) {
        self.held.set(self.held.get() + bytes);
    }

    /// An error when what is held exceeds the limit.
    pub fn check(&self) -> Result<(), SampleError> {
        if self.held.get() > self.budget {
            return Err(SampleError::memory(format!(
                "the records to hold take more than the memory limit ({} bytes); give a \
                 smaller sample (-n, --per-key) or a larger --memory",
                self.budget
            )));
        }
        Ok(())
    }
}

/// A record held in memory, counted by its [`Meter`] while it lives.
pub struct Held {
    /// Its position in the input (0-based), for `--inorder`.
    pub index: u64,
    record: Vec<u8>,
    meter: Rc<Cell<u64>>,
}

impl Held {
    /// The record's bytes.
    pub fn record(&self) -> &[u8] {
        &self.record
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.meter.set(self.meter.get() - record_cost(&self.record));
    }
}
