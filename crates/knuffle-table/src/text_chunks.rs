//! A text file cut into chunks of whole lines, so that the lines of several
//! chunks are parsed at once on rayon's threads, and how many threads a
//! text reader may use.
//!
//! A JSON string cannot hold a raw newline (RFC 8259, section 7: control
//! characters inside strings are escaped), so every `\n` of a JSON Lines
//! file ends a line and a chunk cut just after one holds whole lines (the
//! split of newline-delimited text that parallel JSON readers use, e.g.
//! simdjson's `iterate_many` batches or DuckDB's `read_json` buffers).
//! Chunks come out in file order; a reader numbers their lines by adding up
//! the lines of the chunks before.

use std::io::{self, BufRead};

/// Bytes a chunk of lines holds (at least one whole line: a longer line
/// makes a longer chunk).
pub(crate) const CHUNK_BYTES: usize = 1 << 20;

/// Threads that parse the text of a file (rayon's), from how it is read
/// (`Reading` of opened.rs: `parallel_bytes`, `batch_memory`): more than
/// one only when the reading allows decoding more than one batch at once
/// (`parallel_bytes`, the share of the memory limit that Parquet row groups
/// decoded at once take), at most one more than the batches that share
/// holds: a stream opened in a forked process has none (its pool has no
/// threads), and its text is read on its own thread.
pub(crate) fn workers(parallel_bytes: u64, batch_memory: u64) -> usize {
    let batch = batch_memory.max(1);
    if parallel_bytes < batch {
        return 1;
    }
    let allowed = usize::try_from(1 + parallel_bytes / batch).unwrap_or(usize::MAX);
    rayon::current_num_threads().clamp(1, allowed)
}

/// Chunks of whole lines of a text, each of about `target` bytes (see the
/// module's notes).
pub(crate) struct LineChunks<'a, R> {
    input: &'a mut R,
    target: usize,
    /// The longest line a reader takes: a line that grows past it ends the
    /// chunks (the last one holds it, for its reader to refuse).
    max_line: usize,
    /// The start of the next chunk (the part of a line read after a cut).
    carry: Vec<u8>,
    /// An error of the input, reported after the whole lines before it.
    failed: Option<io::Error>,
    done: bool,
}

impl<'a, R: BufRead> LineChunks<'a, R> {
    pub(crate) fn new(input: &'a mut R, target: usize, max_line: usize) -> LineChunks<'a, R> {
        LineChunks {
            input,
            target: target.max(1),
            max_line,
            carry: Vec::new(),
            failed: None,
            done: false,
        }
    }

    /// The next chunk: its text (whole lines, the last one without its
    /// `\n` only at the end of the input or when it is longer than
    /// `max_line`), or the input's error after the chunks before it.
    fn next_chunk(&mut self) -> Option<io::Result<Vec<u8>>> {
        if let Some(failed) = self.failed.take() {
            return Some(Err(failed));
        }
        if self.done {
            return None;
        }
        let mut text = std::mem::take(&mut self.carry);
        loop {
            let buf = match self.input.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    // The whole lines read before the error, then the error
                    // (a line read in part is not read: as a reader of one
                    // line at a time would have it).
                    text.truncate(memchr::memrchr(b'\n', &text).map_or(0, |nl| nl + 1));
                    if text.is_empty() {
                        return Some(Err(e));
                    }
                    self.failed = Some(e);
                    return Some(Ok(text));
                }
            };
            if buf.is_empty() {
                self.done = true;
                return (!text.is_empty()).then_some(Ok(text));
            }
            if text.len() < self.target {
                let take = buf.len().min(self.target - text.len());
                text.extend_from_slice(&buf[..take]);
                self.input.consume(take);
                if text.len() < self.target {
                    continue;
                }
                if let Some(nl) = memchr::memrchr(b'\n', &text) {
                    self.carry = text.split_off(nl + 1);
                    return Some(Ok(text));
                }
                continue;
            }
            // Past the target within one line: to its end.
            match memchr::memchr(b'\n', buf) {
                Some(nl) => {
                    text.extend_from_slice(&buf[..=nl]);
                    self.input.consume(nl + 1);
                    return Some(Ok(text));
                }
                None => {
                    let take = buf.len();
                    text.extend_from_slice(buf);
                    self.input.consume(take);
                    if text.len() > self.max_line {
                        self.done = true;
                        return Some(Ok(text));
                    }
                }
            }
        }
    }
}

impl<R: BufRead> Iterator for LineChunks<'_, R> {
    type Item = io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_chunk()
    }
}

/// The lines of a chunk, each with its `\n` (the last one without, when
/// the chunk ends inside it).
pub(crate) fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |nl| nl + 1);
        let (line, after) = rest.split_at(end);
        rest = after;
        Some(line)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(text: &[u8], target: usize, max_line: usize) -> Vec<Vec<u8>> {
        let mut input = io::BufReader::with_capacity(3, text);
        LineChunks::new(&mut input, target, max_line)
            .map(|c| c.unwrap())
            .collect()
    }

    #[test]
    fn chunks_hold_whole_lines_and_all_the_text() {
        let text = b"a\nbb\n\nccc\ndddd\ne";
        for target in 1..20 {
            let cut = chunks(text, target, 100);
            assert_eq!(cut.concat(), text, "{target}");
            for chunk in &cut[..cut.len() - 1] {
                assert_eq!(chunk.last(), Some(&b'\n'), "{target}");
            }
            let lines: usize = cut.iter().map(|c| lines(c).count()).sum();
            assert_eq!(lines, 6);
        }
    }

    #[test]
    fn a_line_longer_than_the_longest_ends_the_chunks() {
        let mut text = b"a\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 50));
        text.extend(b"\nb\n");
        let cut = chunks(&text, 1, 10);
        let last = cut.last().unwrap();
        assert!(last.len() > 10 && !last.contains(&b'b'));
    }
}
