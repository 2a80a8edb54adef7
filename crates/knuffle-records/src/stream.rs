//! Lines of one or more inputs, read as a stream in constant memory (a
//! 1 MiB buffer, plus the longest line handed out): for `-n COUNT` through
//! a pipe. Lines can be taken (copied out) or skipped (only counted, with
//! `memchr`). Each input's last line ends at the end of that input, with a
//! delimiter added when it is missing.

use std::collections::VecDeque;
use std::io::{self, Read};

use crate::buffers::STREAM_BUFFER;
use crate::error::Error;
use crate::input::Opened;

/// A stream of lines over several inputs, opened one after the other.
pub struct LineStream {
    pending: VecDeque<Opened>,
    current: Option<Opened>,
    buffer: Box<[u8]>,
    start: usize,
    end: usize,
    delimiter: u8,
}

impl LineStream {
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
        }
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
    /// the end of all inputs.
    pub fn next_line(&mut self, line: &mut Vec<u8>) -> Result<bool, Error> {
        let mut partial = false;
        loop {
            let window = &self.buffer[self.start..self.end];
            if let Some(p) = memchr::memchr(self.delimiter, window) {
                line.extend_from_slice(&window[..=p]);
                self.start += p + 1;
                return Ok(true);
            }
            if !window.is_empty() {
                line.extend_from_slice(window);
                partial = true;
            }
            self.start = self.end;
            if self.refill()? {
                continue;
            }
            if partial {
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
        while s.next_line(&mut line).unwrap() {
            all.push(String::from_utf8(std::mem::take(&mut line)).unwrap());
        }
        assert_eq!(all, ["1\n", "2\n", "3\n", "\n", "4\n"]);
    }

    #[test]
    fn skipping_counts_unterminated_lines() {
        let a = file(b"1\n2");
        let b = file(b"3\n4");
        let names = [a.path().into(), b.path().into()];
        let mut s = LineStream::new(open_all(&names).unwrap(), b'\n');
        assert_eq!(s.skip_lines(3).unwrap(), 3);
        let mut line = Vec::new();
        assert!(s.next_line(&mut line).unwrap());
        assert_eq!(line, b"4\n");
        let mut s = LineStream::new(open_all(&names).unwrap(), b'\n');
        assert_eq!(s.skip_lines(10).unwrap(), 4);
    }
}
