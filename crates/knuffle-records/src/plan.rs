//! The plan of a record shuffle: every decision made once, before any
//! record is chosen, from the inputs, the options and the source of
//! randomness; each strategy it names is then executed by its own module,
//! called from here ([`execute`]: decide, then run; nothing returns to
//! `records.rs` in between). What the strategies are told (the settings,
//! the holding, the memory rules) lives below, in [`crate::settings`].
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
//! [`offset_bytes`](crate::line_index::offset_bytes)) plus output buffers (an eighth of the limit is kept
//! for them; a longer line is written from where it is). When that fits
//! `--memory` (or the default, [`default_limit`](knuffle_io::default_limit): the smallest of three
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

use knuffle::DefaultRng;

use crate::buffers::CHUNK;
use crate::error::Error;
use crate::external;
use crate::external_run;
use crate::in_memory;
use crate::input::{self, Opened};
use crate::options::Options;
use crate::output::OutputPlan;
use crate::progress::Progress;
use crate::randomness::{Draws, Randomness};
use crate::sample::{self, Sampler};
use crate::settings::{Holding, LINE_OVERHEAD, Run, in_memory_need, sample_budget};
use crate::spill;
use knuffle_io::scan::count_delimiters;

/// GNU shuf reads a regular file larger than this by reservoir sampling
/// when `-n` is given (`RESERVOIR_MIN_INPUT` in coreutils' `src/shuf.c`);
/// `--random-source` output depends on it.
const GNU_RESERVOIR_MIN_INPUT: u64 = 8192 * 1024;

/// With knuffle's generator, `-n COUNT` up to this many lines is served by
/// a reservoir in constant memory; larger counts from regular files use the
/// in-memory index (a reservoir of millions of lines costs more).
pub(crate) const STREAM_SAMPLE_MAX: u64 = 1 << 16;

/// Whether a reservoir of `k` lines is the way `-n k` is served under the
/// memory `limit`: when `k` lines of the smallest cost (a delimiter and
/// [`LINE_OVERHEAD`]) fill at most half of [`sample_budget`]. When not,
/// the count is served another way (the in-memory index of a file that
/// fits, or the external shuffle).
fn reservoir_fits(k: u64, limit: u64) -> bool {
    k.saturating_mul(LINE_OVERHEAD + 1) <= sample_budget(limit) / 2
}

/// Plans the shuffle of `opened` and executes the plan: the settings are
/// resolved, the strategy chosen, and the strategy's module run. The one
/// place the source of randomness is told apart: a GNU source gets only
/// the strategies that hold their records in memory (GNU's own
/// behaviour), knuffle's generator any of them.
pub(crate) fn execute(
    opened: Vec<Opened>,
    options: &Options,
    randomness: &mut Randomness,
    output: &OutputPlan<'_>,
    progress: &dyn Progress,
) -> Result<(), Error> {
    let run = Run::new(options, output, progress);
    match randomness {
        Randomness::Gnu(source) => Plan::gnu(run, &opened)?.execute(opened, source),
        Randomness::Knuffle(rng) => Plan::knuffle(run, &opened)?.execute(opened, rng.as_mut()),
    }
}

/// The run's settings and the strategy chosen (`S`: [`Held`] for a GNU
/// random source, [`Strategy`] for knuffle's generator).
struct Plan<'a, 'o, S> {
    /// The settings.
    run: Run<'a, 'o>,
    /// The strategy.
    strategy: S,
}

/// The strategies that hold what they choose from in memory: the only
/// ones with a GNU random source (GNU's own behaviour).
enum Held {
    /// `-n COUNT` over a stream: a reservoir ([`crate::sample`]).
    Reservoir,
    /// Everything in memory, permuted ([`crate::in_memory`]).
    Permute(Holding),
    /// Everything in memory, drawn with replacement (`-r`).
    Repeat(Holding),
}

/// The strategies of knuffle's generator: those of [`Held`], and the two
/// that go through temporary files.
enum Strategy {
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

impl<'a, 'o> Plan<'a, 'o, Held> {
    /// The plan for a GNU random source: GNU's reservoir rule (regular
    /// files over 8 MiB and streams with `-n`), else the whole input in
    /// memory.
    fn gnu(run: Run<'a, 'o>, opened: &[Opened]) -> Result<Self, Error> {
        let strategy = if run.options.repeat {
            Held::Repeat(holding(&run, opened)?)
        } else if run.head_count != u64::MAX
            && input::total_regular_size(opened).is_none_or(|s| s > GNU_RESERVOIR_MIN_INPUT)
        {
            Held::Reservoir
        } else {
            Held::Permute(holding(&run, opened)?)
        };
        Ok(Plan { run, strategy })
    }

    /// Executes a strategy that holds its records in memory.
    fn execute<D: Draws + Sampler>(self, opened: Vec<Opened>, draws: &mut D) -> Result<(), Error> {
        execute_held(&self.run, self.strategy, opened, draws)
    }
}

impl<'a, 'o> Plan<'a, 'o, Strategy> {
    /// The plan for knuffle's generator: `-r` in memory, a small `-n` by
    /// reservoir, else in memory when the input fits the limit and
    /// externally when not (pipes: decided while reading).
    fn knuffle(run: Run<'a, 'o>, opened: &[Opened]) -> Result<Self, Error> {
        let strategy = if run.options.repeat {
            Strategy::Held(Held::Repeat(holding(&run, opened)?))
        } else if run.head_count <= STREAM_SAMPLE_MAX && reservoir_fits(run.head_count, run.limit) {
            Strategy::Held(Held::Reservoir)
        } else {
            let capacity = run.limit - run.limit / 8;
            match input::total_regular_size(opened) {
                Some(size) if fits_regular(opened, size, capacity, run.options.delimiter)? => {
                    Strategy::Held(Held::Permute(holding(&run, opened)?))
                }
                Some(_) => Strategy::External,
                None => Strategy::Spill { capacity },
            }
        };
        Ok(Plan { run, strategy })
    }

    /// Executes the strategy chosen, each by its own module.
    fn execute(self, opened: Vec<Opened>, rng: &mut DefaultRng) -> Result<(), Error> {
        let run = &self.run;
        match self.strategy {
            Strategy::Held(strategy) => execute_held(run, strategy, opened, rng),
            Strategy::External => {
                let inputs = opened
                    .into_iter()
                    .map(|o| external::Input::reader(Box::new(o)))
                    .collect();
                external_run::run(run, inputs, rng)
            }
            Strategy::Spill { capacity } => spill::run(run, opened, capacity, rng),
        }
    }
}

/// Executes a strategy that holds its records in memory, with either
/// source of randomness.
fn execute_held<D: Draws + Sampler>(
    run: &Run<'_, '_>,
    strategy: Held,
    opened: Vec<Opened>,
    draws: &mut D,
) -> Result<(), Error> {
    match strategy {
        Held::Reservoir => sample::run(run, opened, draws),
        Held::Permute(holding) => in_memory::run(run, holding, opened, false, draws),
        Held::Repeat(holding) => in_memory::run(run, holding, opened, true, draws),
    }
}

/// How the in-memory strategies hold `opened`: one regular, non-empty
/// file by its own reads (mapped when the options allow it and the
/// output cannot overwrite it), anything else loaded.
fn holding(run: &Run<'_, '_>, opened: &[Opened]) -> Result<Holding, Error> {
    let Some((file, offset, remaining)) = input::single_regular(opened) else {
        return Ok(Holding::Loaded);
    };
    Ok(Holding::File {
        offset,
        len: usize::try_from(remaining).map_err(|_| Error::OutOfMemory)?,
        mapped: run.options.map_input && !run.output.could_overwrite(file),
    })
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
