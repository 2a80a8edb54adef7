//! A CSV or TSV text cut into parts of whole records, so that the records
//! of several parts are parsed at once (csv_in.rs).
//!
//! Where a record ends depends on every quote before it, so the cut is not
//! guessed from the bytes around it (as the speculative splits do, e.g.
//! Ge et al., "Speculative Distributed CSV Data Parsing", SIGMOD 2019): the
//! quoting is followed from the start of the file, by the rule of RFC 4180
//! as `csv-core` reads it:
//! - a `"` opens a quoted field only at the start of a field: at the start
//!   of the text (after a UTF-8 byte order mark, which `csv-core` skips),
//!   or after a delimiter, CR or LF that is not inside quotes; anywhere
//!   else it is a byte of the field;
//! - inside quotes, `""` is a quote and any other `"` closes them;
//! - a CR or LF outside quotes ends a record (CR LF, or blank lines, end
//!   it once: `csv-core` skips the empty records they would make).
//!
//! A TSV is read without quoting: every CR or LF ends a record.
//!
//! The scan looks only at the quotes (memchr) and, between two, at the last
//! line end (or the first, past the target size), so it reads at about the
//! speed of memory while the parts before are parsed on other threads.
//! Where a part ends depends only on the text (not on how the input hands
//! it over): the last record end within `target` bytes, else the first one
//! after them.

use std::io::{self, BufRead};

/// How a part ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PartEnd {
    /// At the end of a record: the next part starts a record.
    Record,
    /// At the end of the input; `in_quotes` when it ends inside a quoted
    /// field (the last record opens a quote never closed).
    Input { in_quotes: bool },
    /// Inside a record longer than `max_record` bytes, the part's only
    /// record (no part follows).
    TooLong,
}

/// A part: whole records, or the last of the input.
#[derive(Debug)]
pub(crate) struct Part {
    pub text: Vec<u8>,
    pub end: PartEnd,
}

/// The parts of a CSV or TSV text, in order.
pub(crate) struct RecordParts<R> {
    input: R,
    /// `Some(delimiter)` for quoted CSV, `None` for TSV.
    quoting: Option<u8>,
    target: usize,
    max_record: usize,
    /// The text read after the last cut (the start of the next part).
    carry: Vec<u8>,
    /// The scan of `carry`: where it stopped, whether that is inside
    /// quotes, and the end of the last record found.
    scanned: usize,
    in_quotes: bool,
    last_end: Option<usize>,
    /// Whether the next part starts the file.
    first: bool,
    /// An error of the input, reported after the parts before it.
    failed: Option<io::Error>,
    done: bool,
}

/// Bytes read at a time past the target (at least), looking for a
/// record's end.
const STEP: usize = 64 << 10;

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xef\xbb\xbf";

impl<R: BufRead> RecordParts<R> {
    /// Parts of about `target` bytes (at least one record each, so a
    /// part may be longer); a record longer than `max_record` bytes ends
    /// them ([`PartEnd::TooLong`]).
    pub(crate) fn new(
        input: R,
        quoting: Option<u8>,
        target: usize,
        max_record: usize,
    ) -> RecordParts<R> {
        RecordParts {
            input,
            quoting,
            target: target.max(1),
            max_record: max_record.max(1),
            carry: Vec::new(),
            scanned: 0,
            in_quotes: false,
            last_end: None,
            first: true,
            failed: None,
            done: false,
        }
    }

    /// Parts of about `target` bytes from the next on.
    pub(crate) fn set_target(&mut self, target: usize) {
        self.target = target.max(1);
    }

    /// The next part, or the input's error (after the parts before it).
    pub(crate) fn next_part(&mut self) -> Option<io::Result<Part>> {
        if let Some(failed) = self.failed.take() {
            return Some(Err(failed));
        }
        if self.done {
            return None;
        }
        loop {
            let buf = match self.input.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    // The whole records read before the error, then the
                    // error (a record read in part is not read).
                    self.scan(false);
                    let Some(cut) = self.last_end else {
                        return Some(Err(e));
                    };
                    self.failed = Some(e);
                    self.carry.truncate(cut);
                    return Some(Ok(self.take(PartEnd::Record)));
                }
            };
            if buf.is_empty() {
                self.scan(true);
                // A text past the target is cut as it would be were more
                // to come.
                if self.carry.len() >= self.target
                    && let Some(cut) = self.last_end.filter(|&cut| cut < self.carry.len())
                {
                    return Some(Ok(self.cut_at(cut)));
                }
                self.done = true;
                if self.carry.is_empty() {
                    return None;
                }
                // The scan went to the end: its state is the text's.
                let in_quotes = self.in_quotes;
                return Some(Ok(self.take(PartEnd::Input { in_quotes })));
            }
            let len = self.carry.len();
            // Up to the target exactly, then on by steps (the cut depends
            // on the text only; a part holds little more than it needs).
            let take = if len < self.target {
                buf.len().min(self.target - len)
            } else {
                buf.len().min(self.target.max(STEP))
            };
            self.carry.extend_from_slice(&buf[..take]);
            self.input.consume(take);
            if self.carry.len() < self.target {
                continue;
            }
            self.scan(false);
            if let Some(cut) = self.last_end {
                return Some(Ok(self.cut_at(cut)));
            }
            if self.carry.len() > self.max_record {
                self.done = true;
                return Some(Ok(self.take(PartEnd::TooLong)));
            }
        }
    }

    /// The part held up to `cut`, a record's end; the rest starts a record
    /// (its scan starts again there).
    fn cut_at(&mut self, cut: usize) -> Part {
        let mut rest = Vec::with_capacity(self.target.saturating_add(STEP).min(self.max_record));
        rest.extend_from_slice(&self.carry[cut..]);
        self.carry.truncate(cut);
        let part = self.take(PartEnd::Record);
        self.carry = rest;
        part
    }

    /// The part held (from a record's start), its scan reset.
    fn take(&mut self, end: PartEnd) -> Part {
        let part = Part {
            text: std::mem::take(&mut self.carry),
            end,
        };
        self.first = false;
        self.scanned = 0;
        self.in_quotes = false;
        self.last_end = None;
        part
    }

    /// Scans `carry` on from `scanned`: the last record end within the
    /// target (within the text, when `at_end`), else the first after it.
    fn scan(&mut self, at_end: bool) {
        let text = &self.carry[..];
        let Some(delimiter) = self.quoting else {
            // TSV: the last line end within the target, else the first.
            let within = text.len().min(self.target);
            if self.scanned < within {
                let from = self.scanned;
                self.last_end = memchr::memrchr2(b'\n', b'\r', &text[from..within])
                    .map(|i| from + i + 1)
                    .or(self.last_end);
            }
            if self.last_end.is_none() {
                let from = self.scanned.max(within);
                self.last_end = memchr::memchr2(b'\n', b'\r', &text[from..]).map(|i| from + i + 1);
            }
            self.scanned = text.len();
            return;
        };
        // A quote at the start of the text (after a byte order mark at the
        // start of the file) opens a quoted field.
        let record_start = if self.first && text.starts_with(BOM) {
            BOM.len()
        } else {
            0
        };
        let mut pos = self.scanned;
        while pos < text.len() {
            // Past the target, the first record end is the cut.
            if pos >= self.target && self.last_end.is_some() {
                break;
            }
            if self.in_quotes {
                match memchr::memchr(b'"', &text[pos..]) {
                    None => pos = text.len(),
                    Some(i) => {
                        let quote = pos + i;
                        match text.get(quote + 1) {
                            Some(b'"') => pos = quote + 2,
                            Some(_) => {
                                self.in_quotes = false;
                                pos = quote + 1;
                            }
                            None if at_end => {
                                self.in_quotes = false;
                                pos = quote + 1;
                            }
                            // Whether it closes the quotes depends on the
                            // byte after it, not read yet.
                            None => break,
                        }
                    }
                }
                continue;
            }
            let quote = memchr::memchr(b'"', &text[pos..]).map(|i| pos + i);
            let until = quote.unwrap_or(text.len());
            // The record ends between here and the next quote: the last
            // one within the target, else the first after it.
            let within = until.min(self.target.max(pos));
            if let Some(i) = memchr::memrchr2(b'\n', b'\r', &text[pos..within]) {
                self.last_end = Some(pos + i + 1);
            } else if self.last_end.is_none()
                && let Some(i) = memchr::memchr2(b'\n', b'\r', &text[within..until])
            {
                self.last_end = Some(within + i + 1);
            }
            match quote {
                None => pos = text.len(),
                Some(quote) => {
                    if self.last_end.is_some_and(|end| end > self.target) {
                        // The cut is before this quote.
                        pos = quote;
                        break;
                    }
                    let field_start = quote == record_start
                        || (quote > 0
                            && (matches!(text[quote - 1], b'\n' | b'\r')
                                || text[quote - 1] == delimiter));
                    self.in_quotes = field_start;
                    pos = quote + 1;
                }
            }
        }
        self.scanned = pos.min(text.len());
    }
}

impl<R: BufRead> Iterator for RecordParts<R> {
    type Item = io::Result<Part>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_part()
    }
}

#[cfg(test)]
#[path = "csv_parts_tests.rs"]
mod tests;
