//! The plan of a record shuffle: every decision made once, before any
//! record is chosen, from the inputs, the options and the source of
//! randomness; each strategy it names is then executed by its own module.
//!
//! | strategy | when | executed by |
//! | --- | --- | --- |
//! | reservoir | `-n COUNT` over a stream | [`crate::sample`] |
//! | in memory (permute) | the input fits the limit; an offset width and, for one regular file, a map or a copy | [`crate::in_memory`] |
//! | repeat | `-r` (held whole, as GNU does) | [`crate::in_memory`], then [`crate::repeat`] |
//! | external | regular files larger than the limit | [`crate::external`] |
//! | spill | pipes, knuffle's generator: read while they fit, else external | [`crate::spill`] |
//!
//! The rule for the in-memory path: it needs the input's bytes plus its
//! line index (4 bytes a line under 4 GiB, 8 above,
//! [`offset_bytes`]) plus output buffers (an eighth of the limit is kept
//! for them; a longer line is written from where it is). When that fits
//! `--memory` (or the default, [`default_limit`]: the smallest of three
//! quarters of the available memory, `RLIMIT_AS` and the cgroup's limit),
//! the input is shuffled in memory; otherwise externally. Regular files are
//! measured before reading (their lines are counted only when the answer
//! depends on it); pipes are read into memory up to the limit and spill to
//! external mode with what was read so far. `-r` and `--random-source` keep
//! GNU's in-memory behaviour; `-n` up to [`STREAM_SAMPLE_MAX`] that fits
//! the limit keeps the reservoir (constant memory); larger `-n` counts stop
//! the external shuffle early. These rules decide which way, and so the
//! order written for a seed: they stay as they are.

use std::os::unix::fs::FileExt;

use crate::buffers::CHUNK;
use crate::error::Error;
use crate::input::{self, Opened};
use crate::line_index::offset_bytes;
use crate::memory::default_limit;
use crate::options::Options;
use crate::output::OutputPlan;
use crate::progress::Progress;
use crate::scan::count_delimiters;
use crate::stream::stream_buffer;

/// GNU shuf reads a regular file larger than this by reservoir sampling
/// when `-n` is given (`RESERVOIR_MIN_INPUT` in coreutils' `src/shuf.c`);
/// `--random-source` output depends on it.
const GNU_RESERVOIR_MIN_INPUT: u64 = 8192 * 1024;

/// With knuffle's generator, `-n COUNT` up to this many lines is served by
/// a reservoir in constant memory; larger counts from regular files use the
/// in-memory index (a reservoir of millions of lines costs more).
pub(crate) const STREAM_SAMPLE_MAX: u64 = 1 << 16;

/// What a kept line costs besides its bytes (its `Vec` and the
/// allocator's header), counted against the budget.
pub(crate) const LINE_OVERHEAD: u64 = 32;

/// The bytes the lines kept by `-n` over a stream may take under the
/// memory `limit`: all that the stream's buffer leaves (they are written
/// out from where they are held, never copied whole). Beyond the limit, the
/// process needs a small constant of its own (documented in the README).
pub(crate) fn sample_budget(limit: u64) -> u64 {
    limit.saturating_sub(stream_buffer(limit) as u64)
}

/// Whether a reservoir of `k` lines is the way `-n k` is served under the
/// memory `limit`: when `k` lines of the smallest cost (a delimiter and
/// [`LINE_OVERHEAD`]) fill at most half of [`sample_budget`]. When not,
/// the count is served another way (the in-memory index of a file that
/// fits, or the external shuffle).
fn reservoir_fits(k: u64, limit: u64) -> bool {
    k.saturating_mul(LINE_OVERHEAD + 1) <= sample_budget(limit) / 2
}

/// What every strategy is told: the settings of the run, resolved once.
pub(crate) struct Run<'a, 'o> {
    /// The options.
    pub options: &'a Options,
    /// The output, opened late.
    pub output: &'a OutputPlan<'o>,
    /// Where progress goes.
    pub progress: &'a dyn Progress,
    /// `-n COUNT`, `u64::MAX` without one.
    pub head_count: u64,
    /// The memory limit: `--memory`, or the default taken once before
    /// anything is read (it counts the address space mapped now, which the
    /// input will take from).
    pub limit: u64,
}

/// The run's settings and the strategy chosen (`S`: [`Held`] for a GNU
/// random source, [`Strategy`] for knuffle's generator).
pub(crate) struct Plan<'a, 'o, S> {
    /// The settings.
    pub run: Run<'a, 'o>,
    /// The strategy.
    pub strategy: S,
}

/// The strategies that hold what they choose from in memory: the only
/// ones with a GNU random source (GNU's own behaviour).
pub(crate) enum Held {
    /// `-n COUNT` over a stream: a reservoir ([`crate::sample`]).
    Reservoir,
    /// Everything in memory, permuted ([`crate::in_memory`]).
    Permute(Holding),
    /// Everything in memory, drawn with replacement (`-r`).
    Repeat(Holding),
}

/// How the in-memory strategies hold the input.
pub(crate) enum Holding {
    /// The single regular input, `len` bytes from `offset`: read by both
    /// cores into a private copy, or (`mapped`) mapped from the page
    /// cache.
    File {
        /// Where reading starts.
        offset: u64,
        /// The bytes left.
        len: usize,
        /// Mapped rather than copied.
        mapped: bool,
    },
    /// Read whole into one buffer.
    Loaded,
}

/// The strategies of knuffle's generator: those of [`Held`], and the two
/// that go through temporary files.
pub(crate) enum Strategy {
    /// As with a GNU source.
    Held(Held),
    /// Regular files larger than the limit ([`crate::external`]).
    External,
    /// Pipes: read while they fit within `capacity`, then shuffled in
    /// memory, or externally with what was read ([`crate::spill`]).
    Spill {
        /// What the in-memory path may take.
        capacity: u64,
    },
}

impl<'a, 'o> Run<'a, 'o> {
    /// The settings for `options` (the default memory limit taken now).
    pub(crate) fn new(
        options: &'a Options,
        output: &'a OutputPlan<'o>,
        progress: &'a dyn Progress,
    ) -> Self {
        Run {
            options,
            output,
            progress,
            head_count: options.count.unwrap_or(u64::MAX),
            limit: options.memory.unwrap_or_else(default_limit),
        }
    }

    /// The plan for a GNU random source: GNU's reservoir rule (regular
    /// files over 8 MiB and streams with `-n`), else the whole input in
    /// memory.
    pub(crate) fn plan_gnu(self, opened: &[Opened]) -> Result<Plan<'a, 'o, Held>, Error> {
        let strategy = if self.options.repeat {
            Held::Repeat(self.holding(opened)?)
        } else if self.head_count != u64::MAX
            && input::total_regular_size(opened).is_none_or(|s| s > GNU_RESERVOIR_MIN_INPUT)
        {
            Held::Reservoir
        } else {
            Held::Permute(self.holding(opened)?)
        };
        Ok(Plan {
            run: self,
            strategy,
        })
    }

    /// The plan for knuffle's generator: `-r` in memory, a small `-n` by
    /// reservoir, else in memory when the input fits the limit and
    /// externally when not (pipes: decided while reading).
    pub(crate) fn plan_knuffle(self, opened: &[Opened]) -> Result<Plan<'a, 'o, Strategy>, Error> {
        let strategy = if self.options.repeat {
            Strategy::Held(Held::Repeat(self.holding(opened)?))
        } else if self.head_count <= STREAM_SAMPLE_MAX
            && reservoir_fits(self.head_count, self.limit)
        {
            Strategy::Held(Held::Reservoir)
        } else {
            let capacity = self.limit - self.limit / 8;
            match input::total_regular_size(opened) {
                Some(size) if fits_regular(opened, size, capacity, self.options.delimiter)? => {
                    Strategy::Held(Held::Permute(self.holding(opened)?))
                }
                Some(_) => Strategy::External,
                None => Strategy::Spill { capacity },
            }
        };
        Ok(Plan {
            run: self,
            strategy,
        })
    }

    /// How the in-memory strategies hold `opened`: one regular, non-empty
    /// file by its own reads (mapped when the options allow it and the
    /// output cannot overwrite it), anything else loaded.
    fn holding(&self, opened: &[Opened]) -> Result<Holding, Error> {
        let Some((file, offset, remaining)) = input::single_regular(opened) else {
            return Ok(Holding::Loaded);
        };
        Ok(Holding::File {
            offset,
            len: usize::try_from(remaining).map_err(|_| Error::OutOfMemory)?,
            mapped: self.options.map_input && !self.output.could_overwrite(file),
        })
    }
}

/// Memory the in-memory path needs for `bytes` bytes in `lines` lines.
pub(crate) fn in_memory_need(bytes: u64, lines: u64) -> u64 {
    bytes.saturating_add(lines.saturating_mul(offset_bytes(bytes)))
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
