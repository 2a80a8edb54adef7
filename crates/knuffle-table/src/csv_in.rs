//! Reading a CSV or TSV table: every column is text named by the header,
//! every field comes back out as the text it was (an empty field is null,
//! written empty).
//!
//! The records are parsed by `csv-core` (the parser of the `csv` crate),
//! here rather than through Arrow's CSV reader, so that what a hostile file
//! can do is bounded and said:
//! - a quoted field that is never closed is an error naming its record
//!   (`csv-core` ends such a field at the end of the input, which would
//!   swallow every record after the quote into one field);
//! - TSV is read without quote processing (a TSV field is the bytes between
//!   TABs: `"a" b` stays `"a" b`);
//! - a batch ends at a number of rows or of bytes chosen from the memory
//!   limit, so a wide table (columns x rows of offsets) or a long record
//!   cannot take more than the limit allows; a record longer than that is
//!   an error that says which limit to raise.
//!
//! The records are parsed on one thread, as they come (what a ragged or
//! long record's message says depends on the parser's buffers and where
//! the input was cut, so the parse is not split); with several threads
//! (text_chunks.rs), a batch's columns are made on them at once
//! (csv_convert.rs) while the next batch's records are parsed: a pipeline
//! of two stages, its batches in file order and its first error the one
//! reported, as on one thread.

use std::fs::File;
use std::io::BufRead;
use std::path::PathBuf;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use csv_core::{ReadRecordResult, Reader, ReaderBuilder};
use knuffle_io::compressed::Decompressed;

use crate::csv_convert::{self, Records};
use crate::csv_types;
use crate::error::Error;

/// Bytes a batch takes per field beyond the field's text: its end while
/// parsing (8), its offset (4) and validity bit in the array, rounded up.
pub(crate) const BYTES_PER_FIELD: usize = 16;

/// Where a CSV reader is in the quoting of RFC 4180, as `csv-core` reads
/// it (a quote opens a quoted field only at the start of a field; `""`
/// inside quotes is a quote), to tell whether the input ended inside
/// quotes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quoting {
    FieldStart,
    Unquoted,
    Quoted,
    QuoteInQuoted,
}

struct QuoteWatch {
    state: Quoting,
    delimiter: u8,
    /// Whether the file's first bytes were seen (a UTF-8 byte order mark,
    /// which `csv-core` skips, is skipped).
    started: bool,
}

impl QuoteWatch {
    fn scan(&mut self, mut bytes: &[u8]) {
        if !self.started && !bytes.is_empty() {
            self.started = true;
            if let Some(rest) = bytes.strip_prefix(b"\xef\xbb\xbf") {
                bytes = rest;
            }
        }
        for &b in bytes {
            self.state = match (self.state, b) {
                (Quoting::Quoted, b'"') => Quoting::QuoteInQuoted,
                (Quoting::Quoted, _) => Quoting::Quoted,
                (Quoting::QuoteInQuoted, b'"') | (Quoting::FieldStart, b'"') => Quoting::Quoted,
                (_, b'\n' | b'\r') => Quoting::FieldStart,
                (_, b) if b == self.delimiter => Quoting::FieldStart,
                _ => Quoting::Unquoted,
            };
        }
    }
}

/// The limits of one CSV reader.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CsvLimits {
    /// Rows per batch at most.
    pub batch_rows: usize,
    /// Bytes a batch may take (its text and [`BYTES_PER_FIELD`] per field);
    /// also the longest record.
    pub batch_bytes: usize,
    /// Threads the batches are made on (text_chunks.rs).
    pub workers: usize,
}

/// A CSV (`delimiter` `,`) or TSV (TAB, no quoting) table's batches.
pub(crate) struct CsvBatches {
    path: PathBuf,
    /// The file's text (decompressed, when it is gzip or zstd).
    input: Decompressed<File>,
    parser: Reader,
    quotes: Option<QuoteWatch>,
    schema: SchemaRef,
    limits: CsvLimits,
    /// Records read, the header included (messages count it as record 1).
    records: u64,
    /// The text of the batch's fields, one after another.
    text: Vec<u8>,
    used: usize,
    /// The end of each field in `text`.
    ends: Vec<usize>,
    ended: usize,
    done: bool,
    /// The records of the next batch, read ahead (several workers).
    pending: Option<Result<Option<Owned>, Error>>,
}

/// Opens a CSV or TSV file: its header read, its schema (every column
/// text), its batches.
pub(crate) fn open(
    path: PathBuf,
    input: Decompressed<File>,
    delimiter: u8,
    limits: CsvLimits,
    typed: Option<&Schema>,
) -> Result<(SchemaRef, CsvBatches), Error> {
    let tsv = delimiter == b'\t';
    let parser = ReaderBuilder::new()
        .delimiter(delimiter)
        .quoting(!tsv)
        .build();
    let mut batches = CsvBatches {
        path,
        input,
        parser,
        quotes: (!tsv).then_some(QuoteWatch {
            state: Quoting::FieldStart,
            delimiter,
            started: false,
        }),
        schema: Arc::new(Schema::empty()),
        limits,
        records: 0,
        text: vec![0; 1 << 12],
        used: 0,
        ends: vec![0; 64],
        ended: 0,
        done: false,
        pending: None,
    };
    // The header: a record of names (none at all: a table of no columns).
    let columns = batches.read_record(usize::MAX)?;
    let mut names = Vec::with_capacity(columns.unwrap_or(0));
    let mut start = 0;
    for &end in &batches.ends[..batches.ended] {
        let name = std::str::from_utf8(&batches.text[start..end]).map_err(|_| {
            Error::invalid(format!(
                "{}: the CSV header is not UTF-8 text",
                batches.path.display()
            ))
        })?;
        names.push(name.to_owned());
        start = end;
    }
    batches.done = columns.is_none();
    let width = names.len().max(1);
    if width.saturating_mul(BYTES_PER_FIELD) > limits.batch_bytes {
        return Err(Error::invalid(format!(
            "{}: {} columns: one row takes more than the memory limit allows a batch being \
             read ({} KiB); raise the memory limit (--memory)",
            batches.path.display(),
            names.len(),
            limits.batch_bytes >> 10
        )));
    }
    batches.limits.batch_rows = limits
        .batch_rows
        .min(limits.batch_bytes / (width * BYTES_PER_FIELD))
        .max(1);
    // A column typed by --infer-types (csv_types.rs) in the schema the
    // reader is given is converted from its text; any other is text.
    let type_of = |name: &str| {
        typed
            .and_then(|schema| schema.field_with_name(name).ok())
            .map(|field| field.data_type().clone())
            .filter(csv_types::is_inferred)
            .unwrap_or(DataType::Utf8)
    };
    batches.schema = Arc::new(Schema::new(
        names
            .iter()
            .map(|name| Field::new(name, type_of(name), true))
            .collect::<Vec<_>>(),
    ));
    Ok((batches.schema.clone(), batches))
}

impl CsvBatches {
    fn invalid(&self, text: impl std::fmt::Display) -> Error {
        Error::invalid(format!("{}: {text}", self.path.display()))
    }

    /// Reads the next record into `text` and `ends` after what is there:
    /// its number of fields, or none at the end of the input. More than
    /// `max_fields` fields is an error (a ragged record) before they are
    /// all held.
    fn read_record(&mut self, max_fields: usize) -> Result<Option<usize>, Error> {
        let (record_start, first_end) = (self.used, self.ended);
        loop {
            let input = self
                .input
                .fill_buf()
                .map_err(|e| Error::io_at(&self.path, &e))?;
            let at_end = input.is_empty();
            let (result, read, written, count) = self.parser.read_record(
                input,
                &mut self.text[self.used..],
                &mut self.ends[self.ended..],
            );
            if let Some(quotes) = &mut self.quotes {
                quotes.scan(&input[..read]);
            }
            self.input.consume(read);
            self.used += written;
            self.ended += count;
            // The input ended inside quotes: the record being read holds
            // the quote never closed.
            if at_end
                && self
                    .quotes
                    .as_ref()
                    .is_some_and(|q| q.state == Quoting::Quoted)
            {
                return Err(self.invalid(format!(
                    "record {} opens a quoted field that is never closed (the file ends \
                     inside quotes)",
                    self.records + 1
                )));
            }
            // Its text and its fields' ends (a header of a million empty
            // names has no text but a million ends).
            let record_bytes =
                self.used - record_start + (self.ended - first_end) * size_of::<usize>();
            if record_bytes > self.limits.batch_bytes {
                return Err(self.invalid(format!(
                    "record {} is longer than {} KiB, the most the memory limit allows one \
                     record; raise the memory limit (--memory)",
                    self.records + 1,
                    self.limits.batch_bytes >> 10
                )));
            }
            let fields = self.ended - first_end;
            match result {
                ReadRecordResult::InputEmpty => {}
                ReadRecordResult::OutputFull => {
                    let grown = (self.text.len() * 2).min(self.used + self.limits.batch_bytes + 1);
                    self.text.resize(grown.max(self.text.len() + 1), 0);
                }
                ReadRecordResult::OutputEndsFull => {
                    if fields > max_fields {
                        return Err(self.ragged(fields + 1));
                    }
                    self.ends.resize(self.ends.len() * 2, 0);
                }
                ReadRecordResult::Record => {
                    self.records += 1;
                    for end in &mut self.ends[first_end..self.ended] {
                        *end += record_start;
                    }
                    return Ok(Some(fields));
                }
                ReadRecordResult::End => return Ok(None),
            }
        }
    }

    fn ragged(&self, got: usize) -> Error {
        self.invalid(format!(
            "incorrect number of fields in record {}, expected {} got {got}",
            self.records + 1,
            self.schema.fields().len()
        ))
    }

    /// Reads the records of the next batch into `text` and `ends`: how
    /// many, or none at the end of the input.
    fn read_batch(&mut self) -> Result<Option<usize>, Error> {
        let columns = self.schema.fields().len();
        self.used = 0;
        self.ended = 0;
        let mut rows = 0;
        while !self.done
            && rows < self.limits.batch_rows
            && self.used + rows * columns * BYTES_PER_FIELD < self.limits.batch_bytes
        {
            match self.read_record(columns)? {
                None => self.done = true,
                Some(fields) if fields != columns => {
                    self.records -= 1;
                    return Err(self.ragged(fields));
                }
                Some(_) => rows += 1,
            }
        }
        Ok((rows > 0).then_some(rows))
    }

    /// The records of the next batch, copied out of the reader's buffers
    /// (which keep their sizes: what a ragged record's message counts
    /// depends on them).
    fn read_owned(&mut self) -> Result<Option<Owned>, Error> {
        Ok(self.read_batch()?.map(|rows| Owned {
            text: self.text[..self.used].to_vec(),
            ends: self.ends[..self.ended].to_vec(),
            rows,
            last: self.records,
        }))
    }

    /// The next batch: on one thread, its records read then made into
    /// columns; on several, the columns of a batch made (csv_convert.rs)
    /// while the next batch's records are read, and its read's error (if
    /// one) reported after the batch.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, Error> {
        let workers = self.limits.workers;
        if workers <= 1 {
            let Some(rows) = self.read_batch()? else {
                return Ok(None);
            };
            let records = Records {
                text: &self.text[..self.used],
                ends: &self.ends[..self.ended],
                rows,
                last: self.records,
            };
            return csv_convert::batch(&self.path, &self.schema, &records, 1).map(Some);
        }
        let current = match self.pending.take() {
            Some(read) => read,
            None => self.read_owned(),
        };
        let Some(owned) = current? else {
            return Ok(None);
        };
        let (path, schema) = (self.path.clone(), self.schema.clone());
        let (batch, next) = rayon::join(
            || {
                let records = Records {
                    text: &owned.text,
                    ends: &owned.ends,
                    rows: owned.rows,
                    last: owned.last,
                };
                csv_convert::batch(&path, &schema, &records, workers)
            },
            || self.read_owned(),
        );
        self.pending = Some(next);
        batch.map(Some)
    }
}

/// The records of a batch read ahead (see [`Records`]).
struct Owned {
    text: Vec<u8>,
    ends: Vec<usize>,
    rows: usize,
    last: u64,
}

impl Iterator for CsvBatches {
    type Item = Result<RecordBatch, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_batch() {
            Ok(batch) => batch.map(Ok),
            Err(e) => {
                self.done = true;
                self.pending = None;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
#[path = "csv_in_tests.rs"]
mod tests;
