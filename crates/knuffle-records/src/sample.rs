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
use crate::stream::LineStream;

/// Samples up to `k` lines of `stream` uniformly (not in random order).
pub fn reservoir_sample(
    stream: &mut LineStream,
    k: u64,
    randomness: &mut Randomness,
) -> Result<Vec<Vec<u8>>, Error> {
    let k = usize::try_from(k).unwrap_or(usize::MAX);
    match randomness {
        Randomness::Knuffle(rng) => {
            let rng = rng.as_mut();
            let mut reservoir: Reservoir<Vec<u8>> = Reservoir::new(k);
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
                if !stream.next_line(&mut line)? {
                    break;
                }
                reservoir.offer(line, rng);
            }
            Ok(reservoir.into_vec())
        }
        Randomness::Gnu(source) => {
            let mut kept: Vec<Vec<u8>> = Vec::new();
            let mut line = Vec::new();
            while kept.len() < k {
                if !stream.next_line(&mut line)? {
                    return Ok(kept);
                }
                kept.push(std::mem::take(&mut line));
            }
            let mut lines_so_far = kept.len() as u64;
            loop {
                let j = source.choose(lines_so_far + 1)?;
                line.clear();
                if !stream.next_line(&mut line)? {
                    return Ok(kept);
                }
                if let Some(slot) = usize::try_from(j).ok().filter(|&j| j < k) {
                    std::mem::swap(&mut kept[slot], &mut line);
                }
                lines_so_far += 1;
            }
        }
    }
}
