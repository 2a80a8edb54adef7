//! `-n COUNT` over a stream (a pipe, or a large file for GNU compatibility):
//! a reservoir of COUNT lines in memory, whatever the input's length.
//!
//! With knuffle's generator: Li's Algorithm L (`knuffle::Reservoir`), which
//! draws only O(k log(N/k)) numbers and passes over the other lines with
//! `memchr` counting alone. With `--random-source`: GNU's own reservoir
//! (`read_input_reservoir_sampling` in coreutils' `src/shuf.c`): every line
//! after the first k draws `j` uniform in `0..=lines_so_far` and replaces
//! slot `j` when `j < k`, including one last draw at the end of the input,
//! so that the same bytes are consumed as GNU consumes them.

use knuffle::Reservoir;

use crate::error::Error;
use crate::randomness::Randomness;
use crate::stream::{LineStream, stream_buffer};

/// What a kept line costs besides its bytes (its `Vec` and the
/// allocator's header), counted against the budget.
pub const LINE_OVERHEAD: u64 = 32;

/// The memory a kept line takes.
pub fn line_cost(line: &[u8]) -> u64 {
    line.len() as u64 + LINE_OVERHEAD
}

/// The bytes the lines kept by `-n` over a stream may take under the
/// memory `limit`: all that the stream's buffer leaves (they are written
/// out from where they are held, never copied whole). Beyond the limit, the
/// process needs a small constant of its own (documented in the README).
pub fn sample_budget(limit: u64) -> u64 {
    limit.saturating_sub(stream_buffer(limit) as u64)
}

/// Whether a reservoir of `k` lines is the way `-n k` is served under the
/// memory `limit`: when `k` lines of the smallest cost (a delimiter and
/// [`LINE_OVERHEAD`]) fill at most half of [`sample_budget`]. When not,
/// the count is served another way (the in-memory index of a file that
/// fits, or the external shuffle). The rule decides which way, and so the
/// order written for a seed: it stays as it is.
pub fn reservoir_fits(k: u64, limit: u64) -> bool {
    k.saturating_mul(LINE_OVERHEAD + 1) <= sample_budget(limit) / 2
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

/// Samples up to `k` lines of `stream` uniformly (not in random order),
/// holding at most `budget` bytes of lines (by [`line_cost`]), or fails
/// with [`Error::RecordTooLong`].
pub fn reservoir_sample(
    stream: &mut LineStream<'_>,
    k: u64,
    randomness: &mut Randomness,
    budget: u64,
) -> Result<Vec<Vec<u8>>, Error> {
    let k = usize::try_from(k).unwrap_or(usize::MAX);
    let limit = stream.limit();
    let too_long = || Error::RecordTooLong { limit };
    match randomness {
        Randomness::Knuffle(rng) => {
            let rng = rng.as_mut();
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
                reservoir.offer(line, rng);
                if kept > budget {
                    kept = reservoir.items().iter().map(|l| line_cost(l)).sum();
                    if kept > budget {
                        return Err(too_long());
                    }
                }
            }
            Ok(reservoir.into_vec())
        }
        Randomness::Gnu(source) => {
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
                let j = source.choose(lines_so_far + 1)?;
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
}
