//! The plan of a record shuffle: every decision made once, before any
//! record is chosen, from the inputs, the options and the source of
//! randomness; each strategy it names is then executed by its own module,
//! called from here ([`execute`]: decide, then run; nothing returns to
//! `records.rs` in between). The decision is a pure function of the
//! [`Facts`] (options, limit, the inputs' sizes, their lines when the
//! answer depends on them): [`choose_gnu`] for a GNU random source,
//! [`choose`] for knuffle's generator, tested by table below. What the strategies are told (the settings,
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

use crate::buffers::CHUNK;
use crate::error::Error;
use crate::external;
use crate::external_run;
use crate::in_memory;
use crate::input::{self, Opened};
use crate::options::{HeadCount, Options};
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

/// What the choice of a strategy is made from, gathered from the inputs
/// before it ([`facts_of`]); the choice itself ([`choose`]) reads nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Facts {
    /// `-r`.
    pub repeat: bool,
    /// `-n`.
    pub head_count: HeadCount,
    /// The memory limit.
    pub limit: u64,
    /// The inputs' bytes still to read, when every one is a regular file
    /// (`None`: a pipe, a device or standard input from a terminal).
    pub size: Option<u64>,
    /// Their lines, once counted: [`choose`] asks for them
    /// ([`Decision::CountLines`]) only when the answer depends on them.
    pub lines: Option<u64>,
}

/// A strategy that holds what it chooses from in memory: the only kind a
/// GNU random source gets (GNU's own behaviour).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HeldChoice {
    /// `-n COUNT` over a stream: a reservoir ([`crate::sample`]).
    Reservoir,
    /// Everything in memory, permuted ([`crate::in_memory`]).
    Permute,
    /// Everything in memory, drawn with replacement (`-r`).
    Repeat,
}

/// The strategy chosen for knuffle's generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Choice {
    /// As with a GNU source.
    Held(HeldChoice),
    /// Regular files larger than the limit ([`crate::external`]).
    External,
    /// Pipes: read while they fit within `capacity`, then shuffled in
    /// memory, or externally with what was read ([`crate::spill`]).
    Spill {
        /// What the in-memory path may take.
        capacity: u64,
    },
}

/// A strategy, or the one fact still needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Chosen.
    Chosen(Choice),
    /// The answer depends on the number of lines: count them and ask
    /// again.
    CountLines,
}

/// The strategy for a GNU random source, a pure function: GNU's reservoir
/// rule (regular files over 8 MiB and streams with `-n`), else the whole
/// input in memory, as GNU does.
pub(crate) fn choose_gnu(facts: Facts) -> HeldChoice {
    let large = facts.size.is_none_or(|s| s > GNU_RESERVOIR_MIN_INPUT);
    if facts.repeat {
        HeldChoice::Repeat
    } else if facts.head_count != HeadCount::All && large {
        HeldChoice::Reservoir
    } else {
        HeldChoice::Permute
    }
}

/// The strategy for knuffle's generator, a pure function: `-r` in memory,
/// a small `-n` by reservoir, else in memory when the input fits the
/// limit and externally when not (pipes: decided while reading).
pub(crate) fn choose(facts: Facts) -> Decision {
    let chosen = |choice| Decision::Chosen(choice);
    if facts.repeat {
        return chosen(Choice::Held(HeldChoice::Repeat));
    }
    if let HeadCount::AtMost(count) = facts.head_count
        && count <= STREAM_SAMPLE_MAX
        && reservoir_fits(count, facts.limit)
    {
        return chosen(Choice::Held(HeldChoice::Reservoir));
    }
    let capacity = facts.limit - facts.limit / 8;
    let Some(size) = facts.size else {
        return chosen(Choice::Spill { capacity });
    };
    // Even if every byte ended a line, or more than the limit whatever
    // the lines: no need to count them.
    let fits = if in_memory_need(size, size) <= capacity {
        true
    } else if size > capacity {
        false
    } else if let Some(lines) = facts.lines {
        in_memory_need(size, lines) <= capacity
    } else {
        return Decision::CountLines;
    };
    chosen(if fits {
        Choice::Held(HeldChoice::Permute)
    } else {
        Choice::External
    })
}

/// Plans the shuffle of `opened` and executes the plan: the facts
/// gathered, the strategy chosen ([`choose_gnu`], [`choose`]), and the
/// strategy's module run. The one place the source of randomness is told
/// apart.
pub(crate) fn execute(
    opened: Vec<Opened>,
    options: &Options,
    randomness: &mut Randomness,
    output: &OutputPlan<'_>,
    progress: &dyn Progress,
) -> Result<(), Error> {
    let run = Run::new(options, output, progress);
    let mut facts = facts_of(&run, &opened);
    match randomness {
        Randomness::Gnu(source) => {
            let held = held(&run, choose_gnu(facts), &opened)?;
            execute_held(&run, held, opened, source)
        }
        Randomness::Knuffle(rng) => {
            let choice = loop {
                match choose(facts) {
                    Decision::Chosen(choice) => break choice,
                    Decision::CountLines => {
                        facts.lines = Some(count_lines(&opened, options.delimiter)?);
                    }
                }
            };
            match choice {
                Choice::Held(choice) => {
                    let held = held(&run, choice, &opened)?;
                    execute_held(&run, held, opened, rng.as_mut())
                }
                Choice::External => {
                    let inputs = opened
                        .into_iter()
                        .map(|o| external::Input::reader(Box::new(o)))
                        .collect();
                    external_run::run(&run, inputs, rng.as_mut())
                }
                Choice::Spill { capacity } => spill::run(&run, opened, capacity, rng.as_mut()),
            }
        }
    }
}

/// The held strategy of `choice`, with how it holds `opened`.
fn held(run: &Run<'_, '_>, choice: HeldChoice, opened: &[Opened]) -> Result<Held, Error> {
    Ok(match choice {
        HeldChoice::Reservoir => Held::Reservoir,
        HeldChoice::Permute => Held::Permute(holding(run, opened)?),
        HeldChoice::Repeat => Held::Repeat(holding(run, opened)?),
    })
}

/// The facts of the run (the inputs' sizes: metadata only, nothing read).
fn facts_of(run: &Run<'_, '_>, opened: &[Opened]) -> Facts {
    Facts {
        repeat: run.options.repeat,
        head_count: run.head_count,
        limit: run.limit,
        size: input::total_regular_size(opened),
        lines: None,
    }
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

/// The lines of regular inputs (a missing final delimiter counts one),
/// by bounded positioned reads: their offsets are left untouched.
fn count_lines(opened: &[Opened], delimiter: u8) -> Result<u64, Error> {
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
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn facts(repeat: bool, head_count: HeadCount, limit: u64, size: Option<u64>) -> Facts {
        Facts {
            repeat,
            head_count,
            limit,
            size,
            lines: None,
        }
    }

    /// GNU's rule, by `-r` × `-n` × pipe or file size.
    #[test]
    fn a_gnu_source_holds_everything_or_samples_as_gnu_does() {
        use HeadCount::{All, AtMost};
        use HeldChoice::{Permute, Repeat, Reservoir};
        let gnu_max = GNU_RESERVOIR_MIN_INPUT;
        let table = [
            (true, All, Some(10), Repeat),
            (true, AtMost(5), None, Repeat),
            (true, AtMost(5), Some(gnu_max + 1), Repeat),
            (false, AtMost(5), None, Reservoir),
            (false, AtMost(5), Some(gnu_max), Permute),
            (false, AtMost(5), Some(gnu_max + 1), Reservoir),
            (false, AtMost(0), Some(gnu_max + 1), Reservoir),
            (false, All, Some(1 << 40), Permute),
            (false, All, None, Permute),
        ];
        for (repeat, head_count, size, expected) in table {
            // The memory limit does not change GNU's choice.
            for limit in [MIB, 1 << 40] {
                let got = choose_gnu(facts(repeat, head_count, limit, size));
                assert_eq!(got, expected, "{repeat} {head_count:?} {limit} {size:?}");
            }
        }
    }

    /// knuffle's generator, by `-r` × `-n` × limit × pipe or file size ×
    /// lines counted.
    #[test]
    fn knuffles_generator_chooses_by_size_limit_and_count() {
        use Choice::{External, Held, Spill};
        use Decision::{Chosen, CountLines};
        use HeadCount::{All, AtMost};
        use HeldChoice::{Permute, Repeat, Reservoir};
        let limit = 100 * MIB;
        let capacity = limit - limit / 8; // 87.5 MiB
        let small = STREAM_SAMPLE_MAX;
        // -r, -n, limit, size (None: a pipe), lines counted, decision.
        type Row = (bool, HeadCount, u64, Option<u64>, Option<u64>, Decision);
        let table: [Row; 15] = [
            // -r holds everything, whatever the size or limit.
            (true, All, MIB, Some(1 << 40), None, Chosen(Held(Repeat))),
            (true, AtMost(3), limit, None, None, Chosen(Held(Repeat))),
            // A small -n that fits half the sample budget: a reservoir.
            (
                false,
                AtMost(10),
                limit,
                None,
                None,
                Chosen(Held(Reservoir)),
            ),
            (
                false,
                AtMost(small),
                limit,
                Some(1 << 40),
                None,
                Chosen(Held(Reservoir)),
            ),
            // A larger -n, or one the budget cannot hold: by size.
            (
                false,
                AtMost(small + 1),
                limit,
                Some(MIB),
                None,
                Chosen(Held(Permute)),
            ),
            (
                false,
                AtMost(small),
                MIB,
                None,
                None,
                Chosen(Spill {
                    capacity: MIB - MIB / 8,
                }),
            ),
            (
                false,
                AtMost(small + 1),
                limit,
                Some(200 * MIB),
                None,
                Chosen(External),
            ),
            // Every record: in memory when even one line per byte fits ...
            (
                false,
                All,
                limit,
                Some(10 * MIB),
                None,
                Chosen(Held(Permute)),
            ),
            // ... externally when the bytes alone do not ...
            (false, All, limit, Some(200 * MIB), None, Chosen(External)),
            (
                false,
                All,
                limit,
                Some(capacity + 1),
                None,
                Chosen(External),
            ),
            // ... and by the lines in between: counted, then decided.
            (false, All, limit, Some(30 * MIB), None, CountLines),
            (
                false,
                All,
                limit,
                Some(30 * MIB),
                Some(MIB),
                Chosen(Held(Permute)),
            ),
            (
                false,
                All,
                limit,
                Some(30 * MIB),
                Some(20 * MIB),
                Chosen(External),
            ),
            // Pipes are read while they fit.
            (false, All, limit, None, None, Chosen(Spill { capacity })),
            (false, AtMost(0), MIB, None, None, Chosen(Held(Reservoir))),
        ];
        for (repeat, head_count, limit, size, lines, expected) in table {
            let facts = Facts {
                lines,
                ..facts(repeat, head_count, limit, size)
            };
            assert_eq!(choose(facts), expected, "{facts:?}");
        }
    }

    /// The boundary of the in-memory rule, at the exact byte: the input's
    /// bytes plus 4 bytes a line (under 4 GiB) against seven eighths of
    /// the limit.
    #[test]
    fn the_in_memory_rule_holds_to_the_byte() {
        let limit = 100 * MIB;
        let capacity = limit - limit / 8;
        let size = 40 * MIB;
        let lines_that_fit = (capacity - size) / 4;
        for (lines, fits) in [(lines_that_fit, true), (lines_that_fit + 1, false)] {
            let facts = Facts {
                lines: Some(lines),
                ..facts(false, HeadCount::All, limit, Some(size))
            };
            let expected = if fits {
                Choice::Held(HeldChoice::Permute)
            } else {
                Choice::External
            };
            assert_eq!(choose(facts), Decision::Chosen(expected), "{lines}");
        }
    }
}
