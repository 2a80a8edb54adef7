//! Choosing between in-memory and external (larger than memory) shuffling
//! for FILE input, and running the external shuffle (`crate::external`).
//!
//! The rule: the in-memory path needs the input's bytes plus its line
//! index (4 bytes a line under 4 GiB, 8 above) plus output buffers (an
//! eighth of the limit is kept for them). When that fits `--memory` (or the
//! default, three quarters of the available memory), nothing changes;
//! otherwise the external shuffle runs. Regular files are measured before
//! reading (their lines are counted only when the answer depends on it);
//! pipes are read into memory up to the limit and spill to external mode
//! with what was read so far. `-r` and `--random-source` keep GNU's
//! in-memory behaviour; `-n` up to the reservoir size keeps the reservoir
//! (constant memory); larger `-n` counts stop the external shuffle early.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::external::{self, ExternalConfig, ExternalError, Input};

use super::errors::ShufError;
use super::input::{Bytes, Opened};
use super::modes::Run;
use super::output::{Output, OutputPlan};
use super::randomness::Randomness;

/// Where FILE input goes.
pub enum Route {
    /// Done: shuffled externally.
    Handled,
    /// The inputs fit: the in-memory path as before.
    InMemory(Vec<Opened>),
    /// Pipes read completely within the limit: shuffle these bytes.
    Read(Bytes),
}

/// Decides, and runs the external shuffle when the input is too large.
/// `reservoir_max`: the largest `-n` served by reservoir sampling.
pub fn route(
    run: &Run<'_>,
    mut opened: Vec<Opened>,
    reservoir_max: u64,
) -> Result<Route, ShufError> {
    let options = run.options;
    if options.repeat || options.random_source.is_some() || options.head_count <= reservoir_max {
        return Ok(Route::InMemory(opened));
    }
    let limit = options.memory.unwrap_or_else(external::default_limit);
    let capacity = limit - limit / 8;
    let delimiter = options.delimiter;
    if let Some(size) = super::input::total_regular_size(&opened) {
        if fits_regular(&opened, size, capacity, delimiter)? {
            return Ok(Route::InMemory(opened));
        }
        let inputs = opened
            .into_iter()
            .map(|o| Input::reader(Box::new(o)))
            .collect();
        shuffle_external(run, inputs, limit, Some(size))?;
        return Ok(Route::Handled);
    }
    match read_within(&mut opened, capacity, delimiter)? {
        Prefix::Complete(bytes) => Ok(Route::Read(Bytes::Owned(bytes))),
        Prefix::Partial { bytes, next } => {
            let mut rest = opened.drain(next..);
            let current = rest.next().expect("the input being read");
            let mut inputs = vec![Input {
                prefix: bytes,
                rest: Box::new(current),
            }];
            inputs.extend(rest.map(|o| Input::reader(Box::new(o))));
            shuffle_external(run, inputs, limit, None)?;
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
fn fits_regular(
    opened: &[Opened],
    size: u64,
    capacity: u64,
    delimiter: u8,
) -> Result<bool, ShufError> {
    if in_memory_need(size, size) <= capacity {
        return Ok(true); // even if every byte ended a line
    }
    if size > capacity {
        return Ok(false);
    }
    let mut lines = opened.len() as u64; // a missing final delimiter each
    let mut buffer = vec![0u8; 1 << 20];
    for input in opened {
        let file = input.file();
        let remaining = input.remaining_regular_size().unwrap_or(0);
        let len = file.metadata().map_err(|e| ShufError::read(&e))?.len();
        let mut at = len - remaining;
        while at < len {
            let read = file
                .read_at(&mut buffer, at)
                .map_err(|e| ShufError::read(&e))?;
            if read == 0 {
                break;
            }
            lines += crate::scan::count_delimiters(&buffer[..read], delimiter);
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
fn read_within(opened: &mut [Opened], capacity: u64, delimiter: u8) -> Result<Prefix, ShufError> {
    let mut bytes: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 1 << 20];
    let mut lines = 0u64;
    let count = opened.len();
    for (index, input) in opened.iter_mut().enumerate() {
        let before = bytes.len();
        loop {
            let read = loop {
                match input.read(&mut chunk) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other.map_err(|e| ShufError::read(&e))?,
                }
            };
            if read == 0 {
                break;
            }
            let chunk = &chunk[..read];
            lines += crate::scan::count_delimiters(chunk, delimiter);
            let len = bytes.len() + read;
            if len > bytes.capacity() {
                // Grow geometrically, but never past the capacity.
                let target = (bytes.capacity() * 2)
                    .max(len)
                    .min(capacity as usize)
                    .max(len);
                bytes
                    .try_reserve_exact(target - bytes.len())
                    .map_err(|_| ShufError::memory())?;
            }
            bytes.extend_from_slice(chunk);
            if in_memory_need(len as u64, lines + 1) > capacity {
                return Ok(Prefix::Partial { bytes, next: index });
            }
        }
        if index + 1 < count && bytes.len() > before && bytes.last() != Some(&delimiter) {
            bytes.push(delimiter);
            lines += 1;
        }
    }
    Ok(Prefix::Complete(bytes))
}

/// The output, opened on its first write (after the input was read, as
/// GNU does: `-o FILE` may name an input).
struct LazyOutput<'a> {
    plan: &'a OutputPlan<'a>,
    output: Option<Output>,
    failed: Option<ShufError>,
}

impl LazyOutput<'_> {
    fn get(&mut self) -> io::Result<&mut File> {
        if self.output.is_none() {
            match self.plan.open() {
                Ok(output) => self.output = Some(output),
                Err(error) => {
                    let text = error.message.clone();
                    self.failed = Some(error);
                    return Err(io::Error::other(text));
                }
            }
        }
        Ok(self.output.as_mut().expect("opened").writer())
    }
}

impl Write for LazyOutput<'_> {
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
    run: &Run<'_>,
    inputs: Vec<Input>,
    limit: u64,
    total: Option<u64>,
) -> Result<(), ShufError> {
    let options = run.options;
    let mut rng = match run.randomness(true)? {
        Randomness::Knuffle(rng) => rng,
        Randomness::Gnu(_) => unreachable!("--random-source stays in memory"),
    };
    let config = ExternalConfig {
        memory: limit,
        temp_dir: external::temp_dir(options.temp_dir.as_deref().map(Path::new)),
        delimiter: options.delimiter,
        header: options.header,
        count: (options.head_count != u64::MAX).then_some(options.head_count),
        progress: true,
        total_bytes: total,
    };
    let mut out = LazyOutput {
        plan: &run.output,
        output: None,
        failed: None,
    };
    let result = external::shuffle_external(inputs, &config, &mut rng, &mut out);
    if let Some(error) = out.failed.take() {
        return Err(error);
    }
    let stats = result.map_err(|error| match error {
        ExternalError::Input { error, .. } => ShufError::read(&error),
        ExternalError::Output(error) => ShufError::write(&error),
        temp @ ExternalError::Temp { .. } => ShufError::plain(temp.to_string()),
    })?;
    run.notice_permutation(stats.records);
    out.get().map_err(|e| ShufError::write(&e))?;
    out.output.take().expect("opened").finish()
}
