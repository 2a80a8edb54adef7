//! The reservoir strategy: `-n COUNT` over a stream (a pipe, or a large
//! file for GNU compatibility): header lines, then a reservoir of COUNT
//! lines in memory, whatever the input's length, written in random order.
//!
//! With knuffle's generator: Li's Algorithm L (`knuffle::Reservoir`), which
//! draws only O(k log(N/k)) numbers and passes over the other lines with
//! `memchr` counting alone. With `--random-source`: GNU's own reservoir
//! (`read_input_reservoir_sampling` in coreutils' `src/shuf.c`): every line
//! after the first k draws `j` uniform in `0..=lines_so_far` and replaces
//! slot `j` when `j < k`, including one last draw at the end of the input,
//! so that the same bytes are consumed as GNU consumes them.

use knuffle::{DefaultRng, Reservoir};

use crate::engine::{Held, HeldLine, permute_and_write_held};
use crate::error::Error;
use crate::gnu_random::GnuRandom;
use crate::input::Opened;
use crate::randomness::Draws;
use crate::settings::{LINE_OVERHEAD, Run, sample_budget};
use crate::stream::LineStream;

/// The memory a kept line takes.
fn line_cost(line: &[u8]) -> u64 {
    line.len() as u64 + LINE_OVERHEAD
}

/// A source of randomness that samples a stream: each source its own way.
pub(crate) trait Sampler: Draws {
    /// Samples up to `k` lines of `stream` uniformly (not in random order),
    /// holding at most `budget` bytes of lines (by [`line_cost`]), or fails
    /// with [`Error::RecordTooLong`].
    fn reservoir_sample(
        &mut self,
        stream: &mut LineStream<'_>,
        k: u64,
        budget: u64,
    ) -> Result<Vec<Vec<u8>>, Error>;
}

/// `-n COUNT` over a stream: header lines, then a reservoir sample, held
/// within [`sample_budget`], written in random order.
pub(crate) fn run<S: Sampler>(
    run: &Run<'_, '_>,
    opened: Vec<Opened>,
    sampler: &mut S,
) -> Result<(), Error> {
    let options = run.options;
    sampler.open_if(true)?;
    let limit = run.limit;
    let mut budget = sample_budget(limit);
    let mut stream = LineStream::new(opened, options.delimiter)
        .with_limit(limit)
        .with_progress(run.progress);
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for _ in 0..options.header {
        let mut line = Vec::new();
        if !stream.next_line(&mut line, budget.saturating_sub(LINE_OVERHEAD))? {
            break;
        }
        budget = budget.saturating_sub(line_cost(&line));
        lines.push(line);
    }
    let header_len = lines.len();
    lines.extend(sampler.reservoir_sample(&mut stream, run.head_count.limit(), budget)?);
    let mut indices: Vec<u32> = (0..lines.len() as u32).collect();
    let (header, body) = indices.split_at_mut(header_len);
    let line = |i: u32| -> HeldLine<'_> { (&lines[i as usize], false) };
    let held = Held {
        line: &line,
        delimiter: options.delimiter,
        intact: None,
    };
    let progress = run.progress;
    let notice = |h: u64| progress.permuting(h);
    permute_and_write_held(header, body, u64::MAX, sampler, &held, run.output, &notice)
}

/// Reads the next line into `line` while the lines `kept` (an upper
/// bound of their cost; `exact()` gives the exact one) and it fit
/// `budget`. When the bound says no, the exact cost is taken and the line
/// goes on if that leaves room.
fn take_line(
    stream: &mut LineStream<'_>,
    line: &mut Vec<u8>,
    budget: u64,
    kept: &mut u64,
    exact: impl Fn() -> u64,
) -> Result<bool, Error> {
    loop {
        let room = budget
            .saturating_sub(*kept)
            .saturating_sub(LINE_OVERHEAD)
            .saturating_sub(line.len() as u64);
        match stream.next_line(line, room) {
            Err(Error::RecordTooLong { limit }) => {
                let exact = exact();
                if exact >= *kept {
                    return Err(Error::RecordTooLong { limit });
                }
                *kept = exact;
            }
            other => return other,
        }
    }
}

/// Li's Algorithm L.
impl Sampler for DefaultRng {
    fn reservoir_sample(
        &mut self,
        stream: &mut LineStream<'_>,
        k: u64,
        budget: u64,
    ) -> Result<Vec<Vec<u8>>, Error> {
        let k = usize::try_from(k).unwrap_or(usize::MAX);
        let limit = stream.limit();
        let mut reservoir: Reservoir<Vec<u8>> = Reservoir::new(k);
        // An upper bound of the kept lines' cost (lines replaced are not
        // subtracted), made exact whenever it exceeds the budget.
        let mut kept = 0u64;
        loop {
            let skip = reservoir.items_to_skip();
            if skip > 0 {
                let skipped = stream.skip_lines(skip)?;
                reservoir.skip(skipped);
                if skipped < skip {
                    break;
                }
            }
            let mut line = Vec::new();
            let exact = || reservoir.items().iter().map(|l| line_cost(l)).sum();
            if !take_line(stream, &mut line, budget, &mut kept, exact)? {
                break;
            }
            kept += line_cost(&line);
            reservoir.offer(line, self);
            if kept > budget {
                kept = reservoir.items().iter().map(|l| line_cost(l)).sum();
                if kept > budget {
                    return Err(Error::RecordTooLong { limit });
                }
            }
        }
        Ok(reservoir.into_vec())
    }
}

/// GNU's reservoir, draw for draw.
impl Sampler for GnuRandom {
    fn reservoir_sample(
        &mut self,
        stream: &mut LineStream<'_>,
        k: u64,
        budget: u64,
    ) -> Result<Vec<Vec<u8>>, Error> {
        let k = usize::try_from(k).unwrap_or(usize::MAX);
        let mut kept: Vec<Vec<u8>> = Vec::new();
        let mut cost = 0u64;
        let mut line = Vec::new();
        while kept.len() < k {
            let room = budget.saturating_sub(cost).saturating_sub(LINE_OVERHEAD);
            if !stream.next_line(&mut line, room)? {
                return Ok(kept);
            }
            cost += line_cost(&line);
            kept.push(std::mem::take(&mut line));
        }
        let mut lines_so_far = kept.len() as u64;
        loop {
            let j = self.choose(lines_so_far + 1)?;
            line.clear();
            let room = budget.saturating_sub(cost).saturating_sub(LINE_OVERHEAD);
            if !stream.next_line(&mut line, room)? {
                return Ok(kept);
            }
            if let Some(slot) = usize::try_from(j).ok().filter(|&j| j < k) {
                cost = cost - line_cost(&kept[slot]) + line_cost(&line);
                std::mem::swap(&mut kept[slot], &mut line);
            }
            lines_so_far += 1;
        }
    }
}
