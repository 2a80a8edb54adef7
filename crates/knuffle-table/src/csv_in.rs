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
//! The text is cut into parts of whole records as it is read
//! (csv_parts.rs, which follows the quoting from the start of the file).
//! The parts of a round ([`PARTS_PER_ROUND`]) are parsed and made into
//! columns (csv_convert.rs) on several threads at once (text_chunks.rs)
//! while the next round is read; a wide table's parts come one at a time,
//! each about a batch, its columns made on several threads ([`Cutting`]).
//! Their batches come out in file order, and the first error in file order
//! is the one reported, numbered in the whole file (a batch's records are
//! all parsed before its columns are made: a record that does not parse is
//! reported before an earlier one of the same batch whose value is not
//! UTF-8 or not of its type). Where a part or a batch ends depends on the
//! text and the limits alone: one thread gives the same batches and the
//! same first error as several. A part's size counts its fields as a batch
//! does, so what its batches take is bounded whatever the fields' lengths;
//! a record longer than a batch's memory, counted in the bytes of its text
//! as written (quotes included), is refused.

use std::collections::VecDeque;
use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use csv_core::{ReadRecordResult, Reader, ReaderBuilder};
use knuffle_io::compressed::Decompressed;

use crate::csv_convert::{self, Records};
use crate::csv_parts::{Part, PartEnd, PartSize, RecordParts};
use crate::csv_types;
use crate::error::Error;

/// Bytes a batch takes per field beyond the field's text: its end while
/// parsing (8), its offset (4) and validity bit in the array, rounded up.
pub(crate) const BYTES_PER_FIELD: usize = 16;

/// Parts read, then parsed at once, in a round.
const PARTS_PER_ROUND: usize = 4;

/// The text of a narrow table's part, at most (a part holds at least one
/// record): a few batches of `batch_rows` rows, so that a round's parts
/// keep the threads busy.
const PART_BYTES: usize = 1 << 20;

/// What a column's array in a batch takes at least (its structs and its
/// buffers' smallest allocations), whatever its rows.
const ARRAY_BYTES: usize = 1 << 10;

/// How the text is cut and parsed, from the table's width and the limits
/// alone (so that any number of threads makes the same batches).
#[derive(Clone, Copy, Debug)]
struct Cutting {
    /// A part's size: its batches take about a round's share of a batch's
    /// memory, in text and fields.
    size: PartSize,
    /// Parts parsed at once.
    parts_per_round: usize,
    /// Threads a batch's columns are made on (a wide table's).
    column_workers: usize,
}

impl Cutting {
    /// A narrow table: parts of at most [`PART_BYTES`], [`PARTS_PER_ROUND`]
    /// of them parsed at once, their batches a batch's memory in all. A
    /// wide one (whose parts' batches would take more in arrays alone than
    /// half a batch's memory): one part of a batch at a time, its columns
    /// made on several threads, as the next part is read.
    fn of(columns: usize, limits: &CsvLimits) -> Cutting {
        let round_arrays = PARTS_PER_ROUND
            .saturating_mul(columns)
            .saturating_mul(ARRAY_BYTES);
        let batch = limits.batch_bytes.max(1);
        let (parts_per_round, most, column_workers) = if round_arrays <= batch / 2 {
            (PARTS_PER_ROUND, PART_BYTES, 1)
        } else {
            (1, batch, limits.workers)
        };
        Cutting {
            size: PartSize {
                memory: (batch / parts_per_round).max(1),
                field_bytes: BYTES_PER_FIELD,
                most,
            },
            parts_per_round,
            column_workers,
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
    /// Threads the parts are parsed on (text_chunks.rs).
    pub workers: usize,
}

/// What parses a part (shared by the threads).
struct Parsing {
    path: PathBuf,
    schema: SchemaRef,
    delimiter: u8,
    limits: CsvLimits,
    cutting: Cutting,
}

/// A CSV (`delimiter` `,`) or TSV (TAB, no quoting) table's batches.
pub(crate) struct CsvBatches {
    parsing: Parsing,
    /// The file's text (decompressed, when it is gzip or zstd), in parts.
    parts: RecordParts<Decompressed<File>>,
    /// The first part's records after the header.
    first: Option<Part>,
    /// Records before the next part's (the header counted: messages
    /// number it record 1).
    records: u64,
    ready: VecDeque<RecordBatch>,
    /// The error after the ready batches.
    failure: Option<Error>,
    /// The next round, read while this one was parsed (several workers).
    pending: Option<Round>,
    done: bool,
}

/// Parts read together, and the input's error after them, if one.
#[derive(Default)]
struct Round {
    parts: Vec<Part>,
    error: Option<Error>,
}

/// A part parsed: its batches, its records, and what stopped it early.
struct Parsed {
    batches: Vec<RecordBatch>,
    records: u64,
    fault: Option<Fault>,
}

/// Why a part stopped; `record` counts the part's records from 1.
enum Fault {
    Ragged {
        record: u64,
        got: usize,
    },
    TooLong {
        record: u64,
    },
    Unclosed {
        record: u64,
    },
    /// A batch whose columns could not be made: made again with the
    /// numbers its records have in the file, for the error.
    Columns(OwnedRecords),
}

/// The records of a batch, kept (see [`Records`]).
struct OwnedRecords {
    text: Vec<u8>,
    ends: Vec<usize>,
    rows: usize,
    last: u64,
}

/// The fields of the records read, their text one after another and the
/// end of each (see [`Records`]), as `csv-core` writes them.
struct Fields {
    text: Vec<u8>,
    ends: Vec<usize>,
    used: usize,
    ended: usize,
}

impl Fields {
    /// Room for `text` bytes and `ends` fields to start with (more as
    /// needed).
    fn new(text: usize, ends: usize) -> Fields {
        Fields {
            text: vec![0; text],
            ends: vec![0; ends.max(1)],
            used: 0,
            ended: 0,
        }
    }

    /// Reads the next record of `input` (of a part that ends as `end`)
    /// after the records held: its number of fields (those past `columns`
    /// counted, not kept), none when the part holds no more, or an error
    /// when it takes more than `limit` bytes (its text and a `usize` a
    /// field).
    fn read(
        &mut self,
        reader: &mut Reader,
        input: &mut &[u8],
        end: PartEnd,
        columns: usize,
        limit: usize,
    ) -> Result<Option<usize>, RecordTooLong> {
        let (record_start, first_end) = (self.used, self.ended);
        let mut extra = 0;
        loop {
            let (result, read, written, count) = reader.read_record(
                input,
                &mut self.text[self.used..],
                &mut self.ends[self.ended..],
            );
            *input = &input[read..];
            self.used += written;
            self.ended += count;
            if self.ended - first_end > columns {
                extra += self.ended - first_end - columns;
                self.ended = first_end + columns;
            }
            let record_bytes =
                self.used - record_start + (self.ended - first_end) * size_of::<usize>();
            if record_bytes > limit {
                return Err(RecordTooLong);
            }
            match result {
                // A part that ends at a record's end holds no more (the
                // end of the input is read only at the end of the input,
                // for a reader that goes on to the next part).
                ReadRecordResult::InputEmpty if input.is_empty() && end == PartEnd::Record => {
                    return Ok(None);
                }
                ReadRecordResult::InputEmpty => {}
                ReadRecordResult::OutputFull => self.text.resize(self.text.len() * 2 + 1, 0),
                ReadRecordResult::OutputEndsFull => self.ends.resize(self.ends.len() * 2, 0),
                ReadRecordResult::End => return Ok(None),
                ReadRecordResult::Record => {
                    for end in &mut self.ends[first_end..self.ended] {
                        *end += record_start;
                    }
                    return Ok(Some(self.ended - first_end + extra));
                }
            }
        }
    }
}

/// A record longer than the most one may take.
struct RecordTooLong;

/// A reader of `delimiter`'s CSV (TSV without quoting).
fn parser(delimiter: u8) -> Reader {
    ReaderBuilder::new()
        .delimiter(delimiter)
        .quoting(delimiter != b'\t')
        .build()
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
    let quoting = (delimiter != b'\t').then_some(delimiter);
    // The header is cut alone (the parts' size depends on its width).
    let mut parts = RecordParts::new(input, quoting, PartSize::ONE_RECORD, limits.batch_bytes);
    let mut parsing = Parsing {
        path,
        schema: Arc::new(Schema::empty()),
        delimiter,
        limits,
        cutting: Cutting::of(0, &limits),
    };
    // The header: a record of names (none at all: a table of no columns),
    // after any blank lines.
    let mut names = Vec::new();
    let mut first = None;
    // One reader for the parts up to the header: a byte order mark is
    // skipped only at the file's start.
    let mut reader = parser(delimiter);
    while let Some(part) = parts.next_part() {
        let mut part = part.map_err(|e| Error::io_at(&parsing.path, &e))?;
        let (header, read) = parsing.header(&mut reader, &part)?;
        if let Some(header) = header {
            names = header;
            part.text.drain(..read);
            first = (!part.text.is_empty()).then_some(part);
            break;
        }
    }
    let width = names.len().max(1);
    if width.saturating_mul(BYTES_PER_FIELD) > limits.batch_bytes {
        return Err(parsing.invalid(format!(
            "{} columns: one row takes more than the memory limit allows a batch being \
             read ({} KiB); raise the memory limit (--memory)",
            names.len(),
            limits.batch_bytes >> 10
        )));
    }
    parsing.limits.batch_rows = limits
        .batch_rows
        .min(limits.batch_bytes / (width * BYTES_PER_FIELD))
        .max(1);
    parsing.cutting = Cutting::of(names.len(), &limits);
    parts.set_size(parsing.cutting.size);
    // A column typed by --infer-types (csv_types.rs) in the schema the
    // reader is given is converted from its text; any other is text.
    let type_of = |name: &str| {
        typed
            .and_then(|schema| schema.field_with_name(name).ok())
            .map(|field| field.data_type().clone())
            .filter(csv_types::is_inferred)
            .unwrap_or(DataType::Utf8)
    };
    parsing.schema = Arc::new(Schema::new(
        names
            .iter()
            .map(|name| Field::new(name, type_of(name), true))
            .collect::<Vec<_>>(),
    ));
    let schema = parsing.schema.clone();
    Ok((
        schema,
        CsvBatches {
            parsing,
            parts,
            done: names.is_empty(),
            first,
            records: 1,
            ready: VecDeque::new(),
            failure: None,
            pending: None,
        },
    ))
}

impl Parsing {
    fn invalid(&self, text: impl std::fmt::Display) -> Error {
        Error::invalid(format!("{}: {text}", self.path.display()))
    }

    fn too_long(&self, record: u64) -> Error {
        self.invalid(format!(
            "record {record} is longer than {} KiB, the most the memory limit allows one \
             record; raise the memory limit (--memory)",
            self.limits.batch_bytes >> 10
        ))
    }

    fn unclosed(&self, record: u64) -> Error {
        self.invalid(format!(
            "record {record} opens a quoted field that is never closed (the file ends \
             inside quotes)"
        ))
    }

    /// The header in a part at the file's start: its names (none when the
    /// part holds no record, only blank lines), and the bytes it takes.
    fn header(
        &self,
        reader: &mut Reader,
        part: &Part,
    ) -> Result<(Option<Vec<String>>, usize), Error> {
        if part.end == PartEnd::TooLong {
            return Err(self.too_long(1));
        }
        let mut input = &part.text[..];
        let mut fields = Fields::new(part.text.len(), 64);
        let limit = self.limits.batch_bytes;
        let read = fields.read(reader, &mut input, part.end, usize::MAX, limit);
        let Some(_) = read.map_err(|RecordTooLong| self.too_long(1))? else {
            // Only blank lines.
            return Ok((None, part.text.len()));
        };
        if input.is_empty() && part.end == (PartEnd::Input { in_quotes: true }) {
            return Err(self.unclosed(1));
        }
        let mut names = Vec::with_capacity(fields.ended);
        let mut start = 0;
        for &end in &fields.ends[..fields.ended] {
            let name = std::str::from_utf8(&fields.text[start..end])
                .map_err(|_| self.invalid("the CSV header is not UTF-8 text"))?;
            names.push(name.to_owned());
            start = end;
        }
        Ok((Some(names), part.text.len() - input.len()))
    }

    /// The records of a part that is not the file's start, parsed into
    /// batches (at most `batch_rows` rows, and `batch_bytes` of text and
    /// fields each) until the part ends or a record is wrong.
    fn parse(&self, part: &Part) -> Parsed {
        let mut parsed = Parsed {
            batches: Vec::new(),
            records: 0,
            fault: None,
        };
        if part.end == PartEnd::TooLong {
            parsed.fault = Some(Fault::TooLong { record: 1 });
            return parsed;
        }
        let columns = self.schema.fields().len();
        let limits = self.limits;
        let mut reader = parser(self.delimiter);
        // `csv-core` skips a byte order mark at the start of what it reads
        // first: here that is a record's start, where it is text. A line
        // end read first (an empty record, skipped) makes it so.
        let (result, ..) = reader.read_record(b"\n", &mut [0; 1], &mut [0; 1]);
        debug_assert_eq!(result, ReadRecordResult::InputEmpty);
        let mut input = &part.text[..];
        // A record's text is never longer than its input.
        let mut fields = Fields::new(part.text.len(), columns + 1);
        let mut rows = 0;
        loop {
            let read = fields.read(
                &mut reader,
                &mut input,
                part.end,
                columns,
                limits.batch_bytes,
            );
            let count = match read {
                Ok(Some(count)) => count,
                Ok(None) => break,
                Err(RecordTooLong) => {
                    parsed.fault = Some(Fault::TooLong {
                        record: parsed.records + 1,
                    });
                    return parsed;
                }
            };
            parsed.records += 1;
            let record = parsed.records;
            // The input ended inside quotes: its last record holds the
            // quote never closed.
            if input.is_empty() && part.end == (PartEnd::Input { in_quotes: true }) {
                parsed.fault = Some(Fault::Unclosed { record });
                return parsed;
            }
            if count != columns {
                parsed.fault = Some(Fault::Ragged { record, got: count });
                return parsed;
            }
            rows += 1;
            if rows >= limits.batch_rows
                || fields.used + rows * columns * BYTES_PER_FIELD >= limits.batch_bytes
            {
                if let Err(fault) = self.batch(&mut parsed, &fields, rows) {
                    parsed.fault = Some(fault);
                    return parsed;
                }
                (fields.used, fields.ended, rows) = (0, 0, 0);
            }
        }
        if rows > 0
            && let Err(fault) = self.batch(&mut parsed, &fields, rows)
        {
            parsed.fault = Some(fault);
        }
        parsed
    }

    /// The batch of `rows` records, the part's last so far, made into
    /// columns.
    fn batch(&self, parsed: &mut Parsed, fields: &Fields, rows: usize) -> Result<(), Fault> {
        let (text, ends) = (&fields.text[..fields.used], &fields.ends[..fields.ended]);
        let records = Records {
            text,
            ends,
            rows,
            last: parsed.records,
        };
        match csv_convert::batch(
            &self.path,
            &self.schema,
            &records,
            self.cutting.column_workers,
        ) {
            Ok(batch) => {
                parsed.batches.push(batch);
                Ok(())
            }
            Err(_) => Err(Fault::Columns(OwnedRecords {
                text: text.to_vec(),
                ends: ends.to_vec(),
                rows,
                last: parsed.records,
            })),
        }
    }

    /// `fault`'s error, its record numbered in the file (`before`
    /// records before the part's).
    fn error(&self, fault: Fault, before: u64) -> Error {
        match fault {
            Fault::Ragged { record, got } => self.invalid(format!(
                "incorrect number of fields in record {}, expected {} got {got}",
                before + record,
                self.schema.fields().len()
            )),
            Fault::TooLong { record } => self.too_long(before + record),
            Fault::Unclosed { record } => self.unclosed(before + record),
            Fault::Columns(owned) => {
                let records = Records {
                    text: &owned.text,
                    ends: &owned.ends,
                    rows: owned.rows,
                    last: before + owned.last,
                };
                match csv_convert::batch(&self.path, &self.schema, &records, 1) {
                    Err(error) => error,
                    Ok(_) => self.invalid(format!(
                        "records {} to {}: their columns could not be made",
                        records.last + 1 - owned.rows as u64,
                        records.last
                    )),
                }
            }
        }
    }
}

impl CsvBatches {
    /// The next round: the first part's records after the header, then
    /// parts up to the round's number, or the input's error.
    fn read_round(
        parts: &mut RecordParts<Decompressed<File>>,
        first: &mut Option<Part>,
        parsing: &Parsing,
    ) -> Round {
        let mut round = Round::default();
        round.parts.extend(first.take());
        while round.parts.len() < parsing.cutting.parts_per_round {
            match parts.next_part() {
                None => break,
                Some(Ok(part)) => round.parts.push(part),
                Some(Err(e)) => {
                    round.error = Some(Error::io_at(&parsing.path, &e));
                    break;
                }
            }
        }
        round
    }

    /// Parses the next round (on several threads, the one after read
    /// meanwhile) into `ready`, and its first error into `failure`.
    fn parse_round(&mut self) {
        let parsing = &self.parsing;
        let round = match self.pending.take() {
            Some(round) => round,
            None => Self::read_round(&mut self.parts, &mut self.first, parsing),
        };
        if round.parts.is_empty() && round.error.is_none() {
            self.done = true;
            return;
        }
        let parsed: Vec<Parsed> = if parsing.limits.workers > 1 {
            use rayon::prelude::*;
            let (parts, first) = (&mut self.parts, &mut self.first);
            let (parsed, next) = rayon::join(
                || {
                    round
                        .parts
                        .par_iter()
                        .map(|part| parsing.parse(part))
                        .collect()
                },
                || Self::read_round(parts, first, parsing),
            );
            self.pending = Some(next);
            parsed
        } else {
            round.parts.iter().map(|part| parsing.parse(part)).collect()
        };
        for part in parsed {
            self.ready.extend(part.batches);
            if let Some(fault) = part.fault {
                self.failure = Some(parsing.error(fault, self.records));
                break;
            }
            self.records += part.records;
        }
        if self.failure.is_none() {
            self.failure = round.error;
        }
        if self.failure.is_some() {
            self.pending = None;
            self.done = true;
        }
    }
}

impl Iterator for CsvBatches {
    type Item = Result<RecordBatch, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(batch) = self.ready.pop_front() {
                return Some(Ok(batch));
            }
            if let Some(failure) = self.failure.take() {
                return Some(Err(failure));
            }
            if self.done {
                return None;
            }
            self.parse_round();
        }
    }
}

#[cfg(test)]
#[path = "csv_in_tests.rs"]
mod tests;
