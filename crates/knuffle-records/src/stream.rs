//! Lines of one or more inputs, read as a stream in constant memory (a
//! 1 MiB buffer, plus the longest line handed out): for `-n COUNT` through
//! a pipe. Lines can be taken (copied out) or skipped (only counted, with
//! `memchr`). Each input's last line ends at the end of that input, with a
//! delimiter added when it is missing.

use std::collections::VecDeque;
use std::io::{self, Read};

use crate::buffers::{STREAM_BUFFER, grow_within};
use crate::error::Error;
use crate::input::Opened;
use crate::progress::{NoProgress, Progress};

/// The buffer of a stream under the memory `limit`: an eighth of it, at
/// least 64 KiB and at most [`STREAM_BUFFER`] (its size changes how the
/// input is read, never which lines are taken).
pub fn stream_buffer(limit: u64) -> usize {
    (limit / 8).clamp(64 << 10, STREAM_BUFFER as u64) as usize
}

/// A stream of lines over several inputs, opened one after the other.
pub struct LineStream<'p> {
    pending: VecDeque<Opened>,
    current: Option<Opened>,
    buffer: Box<[u8]>,
    start: usize,
    end: usize,
    delimiter: u8,
    /// The memory limit named when a line is refused.
    limit: u64,
    /// Told how many bytes are read.
    progress: &'p dyn Progress,
}

impl<'p> LineStream<'p> {
    /// A stream over opened inputs, read in order.
    pub fn new(opened: Vec<Opened>, delimiter: u8) -> Self {
        let mut pending: VecDeque<Opened> = opened.into();
        let current = pending.pop_front();
        LineStream {
            pending,
            current,
            buffer: vec![0u8; STREAM_BUFFER].into_boxed_slice(),
            start: 0,
            end: 0,
            delimiter,
            limit: u64::MAX,
            progress: &NoProgress,
        }
    }

    /// Reports the bytes read to `progress`.
    pub fn with_progress(mut self, progress: &'p dyn Progress) -> Self {
        self.progress = progress;
        self
    }

    /// The memory limit a refused line is reported against
    /// ([`Error::RecordTooLong`]).
    /// The buffer is then [`stream_buffer`]`(limit)` bytes.
    pub fn with_limit(mut self, limit: u64) -> Self {
        self.limit = limit;
        self.buffer = vec![0u8; stream_buffer(limit)].into_boxed_slice();
        self
    }

    /// The memory limit a refused line is reported against.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Refills the buffer from the current input. `Ok(false)` at the end of
    /// the current input (the caller then moves to the next one).
    fn refill(&mut self) -> Result<bool, Error> {
        let Some(input) = self.current.as_mut() else {
            return Ok(false);
        };
        loop {
            match input.read(&mut self.buffer) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.progress.read(n as u64);
                    self.start = 0;
                    self.end = n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::Read(e)),
            }
        }
    }

    /// Moves to the next input; `Ok(false)` when there is none.
    fn next_input(&mut self) -> Result<bool, Error> {
        self.current = self.pending.pop_front();
        Ok(self.current.is_some())
    }

    /// Appends the next line, with its delimiter, to `line`. `Ok(false)` at
    /// the end of all inputs. A line longer than `room` bytes is refused
    /// before it is held ([`Error::RecordTooLong`]): memory stays bounded
    /// whatever the input (`/dev/zero` has no newline).
    ///
    /// `line` is empty, or holds the beginning of a line from a call that
    /// was refused: the call then goes on with that line (its bytes are not
    /// counted against `room` again).
    pub fn next_line(&mut self, line: &mut Vec<u8>, room: u64) -> Result<bool, Error> {
        let mut partial = !line.is_empty();
        let room = usize::try_from(room).unwrap_or(usize::MAX);
        let base = line.len();
        // The line's buffer never grows past its room (and the delimiter
        // added to a last line that lacks one).
        let most = base.saturating_add(room).saturating_add(1);
        loop {
            let window = &self.buffer[self.start..self.end];
            let found = memchr::memchr(self.delimiter, window);
            let take = found.map_or(window.len(), |p| p + 1);
            if line.len() - base + take > room {
                return Err(Error::RecordTooLong { limit: self.limit });
            }
            if let Some(p) = found {
                grow_within(line, p + 1, most)?;
                line.extend_from_slice(&window[..=p]);
                self.start += p + 1;
                return Ok(true);
            }
            if !window.is_empty() {
                grow_within(line, window.len(), most)?;
                line.extend_from_slice(window);
                partial = true;
            }
            self.start = self.end;
            if self.refill()? {
                continue;
            }
            if partial {
                grow_within(line, 1, most)?;
                line.push(self.delimiter);
                self.next_input()?;
                return Ok(true);
            }
            if !self.next_input()? {
                return Ok(false);
            }
        }
    }

    /// Passes over up to `count` lines without copying them; returns how
    /// many there were (fewer than `count` only at the end of all inputs).
    pub fn skip_lines(&mut self, count: u64) -> Result<u64, Error> {
        let mut skipped = 0u64;
        let mut partial = false;
        while skipped < count {
            let window = &self.buffer[self.start..self.end];
            let mut consumed = window.len();
            let mut last_delimiter = None;
            for p in memchr::memchr_iter(self.delimiter, window) {
                skipped += 1;
                last_delimiter = Some(p);
                if skipped == count {
                    consumed = p + 1;
                    break;
                }
            }
            if skipped == count {
                self.start += consumed;
                return Ok(skipped);
            }
            partial = match last_delimiter {
                Some(p) => p + 1 < window.len(),
                None => partial || !window.is_empty(),
            };
            self.start = self.end;
            if self.refill()? {
                continue;
            }
            if partial {
                skipped += 1;
                partial = false;
            }
            if !self.next_input()? {
                return Ok(skipped);
            }
        }
        Ok(skipped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::open_all;
    use std::io::Write;

    fn file(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    #[test]
    fn lines_across_files_get_delimiters() {
        let a = file(b"1\n2");
        let b = file(b"3\n\n4\n");
        let names = [a.path().into(), b.path().into()];
        let mut s = LineStream::new(open_all(&names).unwrap(), b'\n');
        let mut all = Vec::new();
        let mut line = Vec::new();
        while s.next_line(&mut line, u64::MAX).unwrap() {
            all.push(String::from_utf8(std::mem::take(&mut line)).unwrap());
        }
        assert_eq!(all, ["1\n", "2\n", "3\n", "\n", "4\n"]);
    }

    #[test]
    fn a_line_longer_than_the_room_is_refused() {
        let a = file(b"12345\n123456789\n");
        let names = [a.path().into()];
        let mut s = LineStream::new(open_all(&names).unwrap(), b'\n').with_limit(7);
        let mut line = Vec::new();
        assert!(s.next_line(&mut line, 6).unwrap());
        assert_eq!(line, b"12345\n");
        line.clear();
        let refused = s.next_line(&mut line, 6).unwrap_err();
        assert!(
            matches!(refused, Error::RecordTooLong { limit: 7 }),
            "{refused}"
        );
    }

    #[test]
    fn a_line_grows_geometrically_but_never_past_its_room() {
        let mut line = Vec::new();
        grow_within(&mut line, 10, 1000).unwrap();
        assert!(line.capacity() >= 10);
        line.resize(600, b'a');
        grow_within(&mut line, 300, 1000).unwrap();
        assert!(line.capacity() >= 900 && line.capacity() <= 1000 + 16);
        line.resize(900, b'a');
        grow_within(&mut line, 200, 1000).unwrap(); // past `most`: what it needs
        assert!(line.capacity() >= 1100);
        // The vector escapes through black_box: otherwise an optimized build
        // may elide the unused allocation, and the reservation "succeeds".
        let mut huge: Vec<u8> = Vec::new();
        let refused = grow_within(&mut huge, usize::MAX / 2, usize::MAX);
        std::hint::black_box(&mut huge);
        assert!(matches!(refused, Err(Error::OutOfMemory)));
    }

    #[test]
    fn skipping_counts_unterminated_lines() {
        let a = file(b"1\n2");
        let b = file(b"3\n4");
        let names = [a.path().into(), b.path().into()];
        let mut s = LineStream::new(open_all(&names).unwrap(), b'\n');
        assert_eq!(s.skip_lines(3).unwrap(), 3);
        let mut line = Vec::new();
        assert!(s.next_line(&mut line, u64::MAX).unwrap());
        assert_eq!(line, b"4\n");
        let mut s = LineStream::new(open_all(&names).unwrap(), b'\n');
        assert_eq!(s.skip_lines(10).unwrap(), 4);
    }
}
