//! Where the lines start: one offset per line, found with the
//! [`knuffle_io::scan`] delimiter scan on both cores. Offsets are `u32` when the
//! input is under 4 GiB, which halves the index (15M lines: 60 MB instead
//! of 120 MB).
//!
//! Two parallel passes over disjoint chunks: count the delimiters of each
//! chunk, then write each chunk's starts into its own slice of one
//! exactly-sized array, so the index is allocated once, never copied.

use rayon::prelude::*;

use crate::error::Error;
use knuffle_io::scan::{block_mask, count_delimiters, for_each_delimiter};

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

/// Whether the lines of `len` bytes are indexed with `u32` offsets (under
/// 4 GiB) rather than `u64`: the one place the width is chosen.
fn narrow(len: u64) -> bool {
    u32::try_from(len).is_ok()
}

/// The bytes an offset takes in the index of `len` bytes of input (what
/// the memory plan counts per line).
pub fn offset_bytes(len: u64) -> u64 {
    if narrow(len) { 4 } else { 8 }
}

/// A computation over the line index of some bytes, for either offset
/// width: [`by_width`] runs it with the width those bytes take.
pub trait ByWidth {
    /// What the computation returns.
    type Output;
    /// Runs it with offsets of type `O`.
    fn run<O: Offset>(self) -> Self::Output;
}

/// Runs `work` with `u32` offsets for `len` bytes under 4 GiB, `u64`
/// otherwise.
pub fn by_width<W: ByWidth>(len: usize, work: W) -> W::Output {
    if narrow(len as u64) {
        work.run::<u32>()
    } else {
        work.run::<u64>()
    }
}

/// Chunks of at least this many bytes are scanned by one task.
const MIN_CHUNK: usize = 1 << 20;

/// The start offset of every line of `data` (a last line without a
/// delimiter counts; an empty input has no lines).
pub fn line_starts<O: Offset>(data: &[u8], delimiter: u8) -> Result<Vec<O>, Error> {
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
        .map_err(|_| Error::OutOfMemory)?;
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

/// The bytes [`append_line`] reads at once from a line's start.
pub const LINE_WINDOW: usize = 128;

/// Appends the line that starts at `start` to `out`, ending in `delimiter`
/// (added when the input's last line has none). A line whose delimiter is
/// within [`LINE_WINDOW`] bytes (nearly all text lines) is found with one
/// 128-bit mask of the window and copied as one fixed-size block, of which
/// only the line's bytes are kept: no per-line search call, no branch on
/// the line's length. Longer lines and the input's last bytes take the
/// plain search.
#[inline]
pub fn append_line(data: &[u8], start: usize, delimiter: u8, out: &mut Vec<u8>) {
    if let Some(window) = data
        .get(start..start + LINE_WINDOW)
        .and_then(|w| <&[u8; LINE_WINDOW]>::try_from(w).ok())
    {
        let (low, high) = window.split_at(64);
        let mask = u128::from(block_mask(low.try_into().expect("64 bytes"), delimiter))
            | u128::from(block_mask(high.try_into().expect("64 bytes"), delimiter)) << 64;
        if mask != 0 {
            let len = mask.trailing_zeros() as usize + 1;
            out.reserve(LINE_WINDOW);
            let at = out.len();
            // SAFETY: `reserve` made room for LINE_WINDOW bytes after `at`;
            // the first `len <= LINE_WINDOW` of them are then initialised.
            unsafe {
                out.as_mut_ptr()
                    .add(at)
                    .copy_from_nonoverlapping(window.as_ptr(), LINE_WINDOW);
                out.set_len(at + len);
            }
            return;
        }
    }
    let end = line_end(data, start, delimiter);
    out.extend_from_slice(&data[start..end]);
    out.push(delimiter);
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
    fn appended_lines_are_the_lines_whatever_their_length_and_place() {
        // Lengths around the window's edges, a line that crosses the
        // window, and a last line without a delimiter near the end.
        let lengths = [0usize, 1, 63, 64, 65, 126, 127, 128, 129, 300, 5, 0, 70];
        let mut data = Vec::new();
        let mut lines = Vec::new();
        for (i, &len) in lengths.iter().enumerate() {
            let line: Vec<u8> = (0..len).map(|j| b'a' + ((i + j) % 26) as u8).collect();
            data.extend_from_slice(&line);
            data.push(b'\n');
            lines.push(line);
        }
        data.extend_from_slice(b"tail");
        lines.push(b"tail".to_vec());
        let starts = line_starts::<u32>(&data, b'\n').unwrap();
        assert_eq!(starts.len(), lines.len());
        let mut out = b"previous\n".to_vec();
        let mut expected = out.clone();
        for (&start, line) in starts.iter().zip(&lines).rev() {
            append_line(&data, start as usize, b'\n', &mut out);
            expected.extend_from_slice(line);
            expected.push(b'\n');
            assert_eq!(out, expected);
        }
    }

    #[test]
    fn chunked_starts_match_the_whole_index() {
        // 1000 bytes with a newline at every multiple of 13 and at the last
        // byte of every 64-byte block, `a` elsewhere.
        let data: Vec<u8> = (0..1000u32)
            .map(|i| {
                if i % 13 == 0 || i % 64 == 63 {
                    b'\n'
                } else {
                    b'a'
                }
            })
            .collect();
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
