//! Where the lines start: one offset per line, found with the
//! [`crate::scan`] delimiter scan on both cores. Offsets are `u32` when the
//! input is under 4 GiB, which halves the index (15M lines: 60 MB instead
//! of 120 MB).
//!
//! Two parallel passes over disjoint chunks: count the delimiters of each
//! chunk, then write each chunk's starts into its own slice of one
//! exactly-sized array, so the index is allocated once, never copied.

use rayon::prelude::*;

use super::errors::ShufError;
use crate::scan::{count_delimiters, for_each_delimiter};

/// A line offset: `u32` or `u64`.
pub trait Offset: Copy + Send + Sync + 'static {
    /// The offset as an index.
    fn get(self) -> usize;
    /// An offset from an index that fits.
    fn new(at: usize) -> Self;
}

impl Offset for u32 {
    #[inline]
    fn get(self) -> usize {
        self as usize
    }
    #[inline]
    fn new(at: usize) -> Self {
        at as u32
    }
}

impl Offset for u64 {
    #[inline]
    fn get(self) -> usize {
        self as usize
    }
    #[inline]
    fn new(at: usize) -> Self {
        at as u64
    }
}

/// Chunks of at least this many bytes are scanned by one task.
const MIN_CHUNK: usize = 1 << 20;

/// The start offset of every line of `data` (a last line without a
/// delimiter counts; an empty input has no lines).
pub fn line_starts<O: Offset>(data: &[u8], delimiter: u8) -> Result<Vec<O>, ShufError> {
    if data.is_empty() {
        return Ok(Vec::new());
    }
    let tasks = (rayon::current_num_threads() * 4).max(1);
    let chunk_len = data.len().div_ceil(tasks).max(MIN_CHUNK);
    let chunks: Vec<(usize, &[u8])> = data
        .chunks(chunk_len)
        .enumerate()
        .map(|(i, c)| (i * chunk_len, c))
        .collect();
    // A line starts at 0 and after every delimiter that is not the last byte.
    let counts: Vec<usize> = chunks
        .par_iter()
        .map(|&(begin, chunk)| {
            let delimiters = count_delimiters(chunk, delimiter) as usize;
            let ends_input = begin + chunk.len() == data.len() && chunk.last() == Some(&delimiter);
            delimiters - usize::from(ends_input) + usize::from(begin == 0)
        })
        .collect();
    let total: usize = counts.iter().sum();
    let mut starts: Vec<O> = Vec::new();
    starts
        .try_reserve_exact(total)
        .map_err(|_| ShufError::memory())?;
    starts.resize(total, O::new(0));
    let mut slices: Vec<&mut [O]> = Vec::with_capacity(chunks.len());
    let mut rest: &mut [O] = &mut starts;
    for &count in &counts {
        let (head, tail) = rest.split_at_mut(count);
        slices.push(head);
        rest = tail;
    }
    chunks
        .par_iter()
        .zip(slices.into_par_iter())
        .for_each(|(&(begin, chunk), out)| {
            let mut slot = 0;
            if begin == 0 {
                out[0] = O::new(0);
                slot = 1;
            }
            for_each_delimiter(chunk, delimiter, |p| {
                let next = begin + p + 1;
                if next < data.len() {
                    out[slot] = O::new(next);
                    slot += 1;
                }
            });
            debug_assert_eq!(slot, out.len());
        });
    Ok(starts)
}

/// Appends the starts of the lines that begin inside `chunk` (which sits at
/// offset `base` of an input of `total_len` bytes) to `out`.
pub fn push_starts<O: Offset>(
    chunk: &[u8],
    base: usize,
    total_len: usize,
    delimiter: u8,
    out: &mut Vec<O>,
) {
    if base == 0 && !chunk.is_empty() {
        out.push(O::new(0));
    }
    for_each_delimiter(chunk, delimiter, |p| {
        let next = base + p + 1;
        if next < total_len {
            out.push(O::new(next));
        }
    });
}

/// The end of the line that starts at `start` (the delimiter's position, or
/// the end of the input when the last line has none).
#[inline]
pub fn line_end(data: &[u8], start: usize, delimiter: u8) -> usize {
    memchr::memchr(delimiter, &data[start..]).map_or(data.len(), |p| start + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_of_lines_with_and_without_final_delimiter() {
        assert_eq!(
            line_starts::<u32>(b"a\nbb\n\nc", b'\n').unwrap(),
            vec![0, 2, 5, 6]
        );
        assert_eq!(
            line_starts::<u64>(b"a\nbb\n\nc\n", b'\n').unwrap(),
            vec![0, 2, 5, 6]
        );
        assert_eq!(line_starts::<u32>(b"\n", b'\n').unwrap(), vec![0]);
        assert!(line_starts::<u32>(b"", b'\n').unwrap().is_empty());
    }

    #[test]
    fn chunked_starts_match_the_whole_index() {
        let data = crate::scan::test_data::newlines_at_block_edges();
        let mut pushed: Vec<u32> = Vec::new();
        push_starts(&data[..500], 0, 1000, b'\n', &mut pushed);
        push_starts(&data[500..], 500, 1000, b'\n', &mut pushed);
        assert_eq!(pushed, line_starts::<u32>(&data, b'\n').unwrap());
    }

    #[test]
    fn chunked_scan_matches_a_plain_scan() {
        let data: Vec<u8> = (0..5_000_000u32)
            .map(|i| if i % 7 == 3 { 0 } else { b'x' })
            .collect();
        let expected: Vec<u32> = std::iter::once(0)
            .chain(
                data.iter()
                    .enumerate()
                    .filter(|(_, b)| **b == 0)
                    .map(|(i, _)| i as u32 + 1),
            )
            .filter(|&s| (s as usize) < data.len())
            .collect();
        assert_eq!(line_starts::<u32>(&data, 0).unwrap(), expected);
    }
}
