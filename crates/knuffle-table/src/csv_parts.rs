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
//! line end (or the first, past the part's target), so it reads at about
//! the speed of memory while the parts before are parsed on other threads.
//! Where a part ends depends only on the text (not on how the input hands
//! it over): the last record end within its target, else the first one
//! after it ([`PartSize`]). What is held is cut before more is read, and a
//! read is about a part, so what a cut leaves (and copies) is too.

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
    size: PartSize,
    max_record: usize,
    /// The text read after the last cut (the start of the next part).
    carry: Vec<u8>,
    /// What the text of `carry` up to `measured` takes ([`PartSize`]),
    /// and the target: where it first reached the part's memory.
    measured: usize,
    cost: usize,
    target: Option<usize>,
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

/// How large a part is: the last record end within its target, else the
/// first after it, the target being where the text first takes `memory`
/// (each byte one, each delimiter or line end `field_bytes` more: as a
/// batch counts its fields, a quoted one counted too many), or `most`
/// bytes. Where a part ends depends on the text alone; what its batches
/// take is bounded by its text, whatever its fields' lengths.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PartSize {
    pub memory: usize,
    pub field_bytes: usize,
    pub most: usize,
}

impl PartSize {
    /// Parts of one record each (a header).
    pub(crate) const ONE_RECORD: PartSize = PartSize {
        memory: 1,
        field_bytes: 0,
        most: 1,
    };
}

/// Bytes read at a time, at most.
const STEP: usize = 64 << 10;

/// Bytes measured at a time before a byte-by-byte look at where the
/// target falls.
const BLOCK: usize = 4 << 10;

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xef\xbb\xbf";

impl<R: BufRead> RecordParts<R> {
    /// Parts of `size` (at least one record each, so a part may be
    /// longer); a record longer than `max_record` bytes ends them
    /// ([`PartEnd::TooLong`]).
    pub(crate) fn new(
        input: R,
        quoting: Option<u8>,
        size: PartSize,
        max_record: usize,
    ) -> RecordParts<R> {
        RecordParts {
            input,
            quoting,
            size,
            max_record: max_record.max(1),
            carry: Vec::new(),
            measured: 0,
            cost: 0,
            target: None,
            scanned: 0,
            in_quotes: false,
            last_end: None,
            first: true,
            failed: None,
            done: false,
        }
    }

    /// Parts of `size` from the next on.
    pub(crate) fn set_size(&mut self, size: PartSize) {
        self.size = size;
    }

    /// Bytes read at a time: about a part's memory, at least [`BLOCK`],
    /// at most [`STEP`].
    fn read_bytes(&self) -> usize {
        self.size.memory.clamp(BLOCK, STEP)
    }

    /// Measures the text held on from `measured`, until the target is
    /// found (see [`PartSize`]).
    fn measure(&mut self) {
        if self.target.is_some() {
            return;
        }
        let size = self.size;
        let delimiter = self.quoting.unwrap_or(b'\t');
        let is_field = |b: u8| b == delimiter || b == b'\n' || b == b'\r';
        let end = self.carry.len().min(size.most.max(1));
        while self.measured < end {
            let block = &self.carry[self.measured..end.min(self.measured + BLOCK)];
            let fields = block.iter().filter(|&&b| is_field(b)).count();
            let block_cost = block.len() + size.field_bytes * fields;
            if self.cost + block_cost < size.memory {
                self.cost += block_cost;
                self.measured += block.len();
                continue;
            }
            // The target falls in this block: where exactly.
            for &b in block {
                self.cost += 1 + if is_field(b) { size.field_bytes } else { 0 };
                self.measured += 1;
                if self.cost >= size.memory {
                    self.target = Some(self.measured);
                    return;
                }
            }
        }
        if self.measured >= size.most.max(1) {
            self.target = Some(self.measured);
        }
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
            // What is held is cut first (more is read only when it holds
            // no cut).
            self.measure();
            if self.target.is_some() {
                self.scan(false);
                if let Some(cut) = self.last_end {
                    return Some(Ok(self.cut_at(cut)));
                }
                if self.carry.len() > self.max_record {
                    self.done = true;
                    return Some(Ok(self.take(PartEnd::TooLong)));
                }
            }
            let read_bytes = self.read_bytes();
            let buf = match self.input.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    // The whole records read before the error, then the
                    // error (a record read in part is not read).
                    self.target = Some(self.carry.len());
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
                if self.carry.is_empty() {
                    self.done = true;
                    return None;
                }
                // A text past its target is cut as it would be were more
                // to come (a quote ending the text closes its field).
                if self.target.is_some() {
                    self.scan(true);
                    if let Some(cut) = self.last_end.filter(|&cut| cut < self.carry.len()) {
                        return Some(Ok(self.cut_at(cut)));
                    }
                }
                self.done = true;
                // The rest is the last part: scanned to its end, for its
                // state there.
                self.target = Some(usize::MAX);
                self.scan(true);
                let in_quotes = self.in_quotes;
                return Some(Ok(self.take(PartEnd::Input { in_quotes })));
            }
            // A read of about a part at most: what a cut leaves (and
            // copies) is then about a part too.
            let take = buf.len().min(read_bytes);
            self.carry.extend_from_slice(&buf[..take]);
            self.input.consume(take);
        }
    }

    /// The part held up to `cut`, a record's end; the rest starts a record
    /// (its scan starts again there).
    fn cut_at(&mut self, cut: usize) -> Part {
        let mut rest = Vec::with_capacity(self.carry.len() - cut + self.read_bytes());
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
        self.measured = 0;
        self.cost = 0;
        self.target = None;
        self.scanned = 0;
        self.in_quotes = false;
        self.last_end = None;
        part
    }

    /// Scans `carry` on from `scanned`: the last record end within the
    /// target (within the text, when `at_end`), else the first after it.
    fn scan(&mut self, at_end: bool) {
        let text = &self.carry[..];
        let target = self.target.unwrap_or(usize::MAX);
        let Some(delimiter) = self.quoting else {
            // TSV: the last line end within the target, else the first.
            let within = text.len().min(target);
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
            if pos >= target && self.last_end.is_some() {
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
            let within = until.min(target.max(pos));
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
                    if self.last_end.is_some_and(|end| end > target) {
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
