//! Choosing between in-memory and external (larger than memory) shuffling
//! for FILE input, and running the external shuffle (`crate::external`).
//!
//! The rule: the in-memory path needs the input's bytes plus its line
//! index (4 bytes a line under 4 GiB, 8 above) plus output buffers (an
//! eighth of the limit is kept for them; a longer line is written from where
//! it is, see [`crate::records`]). When that fits `--memory` (or the default,
//! [`default_limit`]: the smallest of three quarters of the available memory,
//! `RLIMIT_AS` and the cgroup's limit), nothing changes;
//! otherwise the external shuffle runs. Regular files are measured before
//! reading (their lines are counted only when the answer depends on it);
//! pipes are read into memory up to the limit and spill to external mode
//! with what was read so far. `-r` and `--random-source` keep GNU's
//! in-memory behaviour; `-n` up to the reservoir size keeps the reservoir
//! (constant memory); larger `-n` counts stop the external shuffle early.

use std::io::{self, Read, Write};
use std::os::unix::fs::FileExt;

use crate::buffers::CHUNK;
use crate::error::Error;
use crate::external::{self, ExternalConfig};
use crate::input::{Bytes, Opened, total_regular_size};
use crate::memory::default_limit;
use crate::options::Options;
use crate::output::{Output, OutputPlan};
use crate::progress::Progress;
use crate::randomness::Randomness;
use crate::sample::reservoir_fits;
use crate::scan::count_delimiters;

/// Where FILE input goes.
pub enum Route {
    /// Done: shuffled externally.
    Handled,
    /// The inputs fit: the in-memory path as before.
    InMemory(Vec<Opened>),
    /// Pipes read completely within the limit: shuffle these bytes.
    Read(Bytes),
}

/// What the external shuffle needs besides the inputs.
pub struct Run<'r, 'o> {
    /// The options.
    pub options: &'r Options,
    /// The randomness.
    pub randomness: &'r mut Randomness,
    /// The output, opened late.
    pub output: &'r OutputPlan<'o>,
    /// Where progress goes.
    pub progress: &'r dyn Progress,
}

/// Decides, and runs the external shuffle when the input is too large.
/// `reservoir_max`: the largest `-n` served by reservoir sampling.
pub fn route(
    run: &mut Run<'_, '_>,
    mut opened: Vec<Opened>,
    reservoir_max: u64,
) -> Result<Route, Error> {
    let options = run.options;
    let head_count = options.count.unwrap_or(u64::MAX);
    let gnu = matches!(run.randomness, Randomness::Gnu(_));
    let limit = options.memory.unwrap_or_else(default_limit);
    if options.repeat || gnu || (head_count <= reservoir_max && reservoir_fits(head_count, limit)) {
        return Ok(Route::InMemory(opened));
    }
    let capacity = limit - limit / 8;
    let delimiter = options.delimiter;
    if let Some(size) = total_regular_size(&opened) {
        if fits_regular(&opened, size, capacity, delimiter)? {
            return Ok(Route::InMemory(opened));
        }
        let inputs = opened
            .into_iter()
            .map(|o| external::Input::reader(Box::new(o)))
            .collect();
        shuffle_external(run, inputs, limit)?;
        return Ok(Route::Handled);
    }
    match read_within(&mut opened, capacity, delimiter, run.progress)? {
        Prefix::Complete(bytes) => Ok(Route::Read(Bytes::Owned(bytes))),
        Prefix::Partial { bytes, next } => {
            let mut rest = opened.drain(next..);
            let current = rest.next().expect("the input being read");
            let mut inputs = vec![external::Input {
                prefix: bytes,
                rest: Box::new(current),
            }];
            inputs.extend(rest.map(|o| external::Input::reader(Box::new(o))));
            shuffle_external(run, inputs, limit)?;
            Ok(Route::Handled)
        }
    }
}

/// Memory the in-memory path needs for `bytes` bytes in `lines` lines.
fn in_memory_need(bytes: u64, lines: u64) -> u64 {
    let per_line = if bytes < 1 << 32 { 4 } else { 8 };
    bytes.saturating_add(lines.saturating_mul(per_line))
}

/// Whether regular files of `size` bytes in total fit `capacity`; the
/// lines are counted (bounded positioned reads, offsets untouched) only
/// when the answer depends on them.
fn fits_regular(opened: &[Opened], size: u64, capacity: u64, delimiter: u8) -> Result<bool, Error> {
    if in_memory_need(size, size) <= capacity {
        return Ok(true); // even if every byte ended a line
    }
    if size > capacity {
        return Ok(false);
    }
    let mut lines = opened.len() as u64; // a missing final delimiter each
    let mut buffer = vec![0u8; CHUNK];
    for input in opened {
        let Some(file) = input.file_for_reading().map_err(Error::Read)? else {
            continue; // not reached: every input is a regular file here
        };
        let remaining = input.remaining_regular_size().unwrap_or(0);
        let len = file.metadata().map_err(Error::Read)?.len();
        let mut at = len - remaining;
        while at < len {
            let read = file.read_at(&mut buffer, at).map_err(Error::Read)?;
            if read == 0 {
                break;
            }
            lines += count_delimiters(&buffer[..read], delimiter);
            at += read as u64;
        }
    }
    Ok(in_memory_need(size, lines) <= capacity)
}

enum Prefix {
    /// Every input was read: their bytes, concatenated, each but the last
    /// ending with a delimiter.
    Complete(Vec<u8>),
    /// The limit was reached while reading input `next`.
    Partial { bytes: Vec<u8>, next: usize },
}

/// Reads the inputs into memory while the in-memory path's need stays
/// within `capacity`.
fn read_within(
    opened: &mut [Opened],
    capacity: u64,
    delimiter: u8,
    progress: &dyn Progress,
) -> Result<Prefix, Error> {
    let mut bytes: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; CHUNK];
    let mut lines = 0u64;
    let count = opened.len();
    for (index, input) in opened.iter_mut().enumerate() {
        let before = bytes.len();
        loop {
            let read = loop {
                match input.read(&mut chunk) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other.map_err(Error::Read)?,
                }
            };
            if read == 0 {
                break;
            }
            progress.read(read as u64);
            let chunk = &chunk[..read];
            lines += count_delimiters(chunk, delimiter);
            let len = bytes.len() + read;
            if len > bytes.capacity() {
                // Grow geometrically, but never past the capacity.
                let target = (bytes.capacity() * 2)
                    .max(len)
                    .min(capacity as usize)
                    .max(len);
                bytes
                    .try_reserve_exact(target - bytes.len())
                    .map_err(|_| Error::OutOfMemory)?;
            }
            bytes.extend_from_slice(chunk);
            if in_memory_need(len as u64, lines + 1) > capacity {
                return Ok(Prefix::Partial { bytes, next: index });
            }
        }
        // Read to its end: closed now (a later FILE is opened only when
        // its turn comes).
        *input = Opened::Reader(Box::new(io::empty()));
        if index + 1 < count && bytes.len() > before && bytes.last() != Some(&delimiter) {
            // One byte more, not a doubling past the capacity.
            bytes.try_reserve_exact(1).map_err(|_| Error::OutOfMemory)?;
            bytes.push(delimiter);
            lines += 1;
        }
    }
    Ok(Prefix::Complete(bytes))
}

/// The output, opened on its first write (after the input was read, as
/// GNU does: `-o FILE` may name an input).
struct LazyOutput<'p, 'o> {
    plan: &'p OutputPlan<'o>,
    output: Option<Output<'o>>,
    failed: Option<Error>,
}

impl LazyOutput<'_, '_> {
    fn get(&mut self) -> io::Result<&mut dyn Write> {
        if self.output.is_none() {
            match self.plan.open() {
                Ok(output) => self.output = Some(output),
                Err(error) => {
                    let text = error.to_string();
                    self.failed = Some(error);
                    return Err(io::Error::other(text));
                }
            }
        }
        // The external shuffle reports what it writes itself.
        Ok(self.output.as_mut().expect("opened").raw_writer())
    }
}

impl Write for LazyOutput<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.get()?.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.get()?.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.output {
            Some(output) => output.writer().flush(),
            None => Ok(()),
        }
    }
}

fn shuffle_external(
    run: &mut Run<'_, '_>,
    inputs: Vec<external::Input>,
    limit: u64,
) -> Result<(), Error> {
    let options = run.options;
    let Randomness::Knuffle(rng) = &mut *run.randomness else {
        unreachable!("--random-source stays in memory")
    };
    let config = ExternalConfig {
        memory: limit,
        temp_dir: external::temp_dir(options.temp_dir.as_deref()),
        delimiter: options.delimiter,
        header: options.header,
        count: options.count,
    };
    let mut out = LazyOutput {
        plan: run.output,
        output: None,
        failed: None,
    };
    let result = external::shuffle_external(inputs, &config, rng.as_mut(), &mut out, run.progress);
    if let Some(error) = out.failed.take() {
        return Err(error);
    }
    let stats = result?;
    run.progress.permuting(stats.records);
    out.get().map_err(Error::Write)?;
    out.output.take().expect("opened").finish()
}
