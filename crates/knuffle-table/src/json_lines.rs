//! The rows of a JSON Lines file, decoded by Arrow's JSON decoder one line
//! at a time, so that an error names its line (1-based, of the whole file,
//! whatever batch it falls in): a line that is not one whole JSON value, or
//! a value that does not fit its column (found when a batch is assembled:
//! the batch's lines are then decoded one by one to find the first that
//! fails). Blank lines are skipped (and counted).
//!
//! A batch's lines are read on this thread (where a batch ends depends only
//! on its lines: their number and their bytes); its lines are then decoded
//! in parts, one per thread (each by a decoder of its own: a line that is
//! one whole JSON value is decoded alone the same whatever came before),
//! and the parts' rows joined into the batch (Arrow's `concat_batches`).
//! The first line that fails as it is decoded is the first failing part's;
//! any other failure (a value that does not fit its column) decodes the
//! batch again on one decoder, as one part, for the error of that part.

use std::fs::File;
use std::io::{BufRead, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};

use arrow::datatypes::SchemaRef;
use arrow::error::ArrowError;
use arrow::json::reader::Decoder;
use arrow::record_batch::RecordBatch;
use knuffle_io::compressed::Decompressed;

use crate::error::{Error, arrow_error};

/// A JSON Lines file's batches, each error naming its line.
pub(crate) struct LineBatches {
    decoding: Decoding,
    input: Decompressed<File>,
    /// The longest line, and about the most text of one batch.
    max_line: usize,
    /// Threads a batch's lines are decoded on.
    workers: usize,
    /// Lines read so far (the number of the last one).
    lines_read: u64,
    line: Vec<u8>,
    done: bool,
}

/// The lines of a batch: their text, each one's start and number, and the
/// error that ended them (the input's, or a line too long), if one.
#[derive(Default)]
struct Lines {
    text: Vec<u8>,
    starts: Vec<(usize, u64)>,
    then: Option<Error>,
}

impl Lines {
    fn line(&self, index: usize) -> &[u8] {
        let start = self.starts[index].0;
        let end = self
            .starts
            .get(index + 1)
            .map_or(self.text.len(), |&(s, _)| s);
        &self.text[start..end]
    }
}

/// What decodes the lines of a batch (shared by rayon's threads).
struct Decoding {
    path: PathBuf,
    schema: SchemaRef,
    batch_rows: usize,
}

/// Why a part of a batch failed.
enum Fault {
    /// A line that is not one whole JSON value, found as it is decoded.
    Line(Error),
    /// A batch that Arrow cannot assemble (a value that does not fit).
    Batch(ArrowError),
}

impl LineBatches {
    pub(crate) fn new(
        path: &Path,
        input: Decompressed<File>,
        schema: SchemaRef,
        batch_rows: usize,
        max_line: usize,
        workers: usize,
    ) -> Result<LineBatches, Error> {
        // A decoder of the schema can be made (else the error now).
        decoder(&schema, batch_rows).map_err(|e| arrow_error(path, e))?;
        Ok(LineBatches {
            decoding: Decoding {
                path: path.to_path_buf(),
                schema,
                batch_rows,
            },
            input,
            max_line,
            workers: workers.max(1),
            lines_read: 0,
            line: Vec::new(),
            done: false,
        })
    }

    /// The lines of the next batch: at most `batch_rows` that are not
    /// blank, until their text reaches `max_line` bytes.
    fn read_lines(&mut self) -> Lines {
        let mut lines = Lines::default();
        while !self.done
            && lines.starts.len() < self.decoding.batch_rows
            && lines.text.len() < self.max_line
        {
            self.line.clear();
            let read = self
                .input
                .by_ref()
                .take(self.max_line as u64 + 1)
                .read_until(b'\n', &mut self.line);
            let read = match read {
                Ok(read) => read,
                Err(e) => {
                    lines.then = Some(Error::io_at(&self.decoding.path, &e));
                    break;
                }
            };
            if read == 0 {
                self.done = true;
                break;
            }
            self.lines_read += 1;
            let number = self.lines_read;
            if self.line.len() > self.max_line {
                lines.then = Some(self.decoding.at_line(
                    number,
                    format_args!(
                        "longer than {} KiB, the most the memory limit allows one line; raise \
                         the memory limit (--memory)",
                        self.max_line >> 10
                    ),
                ));
                break;
            }
            if self.line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            lines.starts.push((lines.text.len(), number));
            lines.text.extend_from_slice(&self.line);
        }
        lines
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, Error> {
        let lines = self.read_lines();
        let decoding = &self.decoding;
        let count = lines.starts.len();
        let parts = self.workers.min(count).max(1);
        if parts == 1 {
            let decoded = match decoding.decode_part(&lines, 0..count) {
                Err(Fault::Line(error)) => return Err(error),
                other => other,
            };
            if let Some(then) = lines.then {
                return Err(then);
            }
            return match decoded {
                Err(Fault::Batch(error)) => Err(decoding.failing_line(&lines, error)),
                Err(Fault::Line(error)) => Err(error),
                Ok(batch) => Ok(batch),
            };
        }
        let per_part = count.div_ceil(parts);
        let decoded: Vec<Result<Option<RecordBatch>, Fault>> = {
            use rayon::prelude::*;
            (0..parts)
                .into_par_iter()
                .map(|part| {
                    let start = part * per_part;
                    decoding.decode_part(&lines, start..(start + per_part).min(count))
                })
                .collect()
        };
        let mut batches = Vec::with_capacity(parts);
        let mut whole = false;
        for part in decoded {
            match part {
                Err(Fault::Line(error)) => return Err(error),
                Err(Fault::Batch(_)) => whole = true,
                Ok(batch) => batches.extend(batch),
            }
        }
        if let Some(then) = lines.then {
            return Err(then);
        }
        if !whole && let Ok(batch) = arrow::compute::concat_batches(&decoding.schema, &batches) {
            return Ok(Some(batch));
        }
        decoding.decode_whole(&lines)
    }
}

impl Decoding {
    fn at_line(&self, line: u64, text: impl std::fmt::Display) -> Error {
        Error::invalid(format!("{}: line {line}: {text}", self.path.display()))
    }

    /// An Arrow error at `line`: invalid data names the line, an I/O error
    /// stays one.
    fn arrow_at(&self, line: u64, error: ArrowError) -> Error {
        match error {
            ArrowError::JsonError(text) => self.at_line(line, text),
            other => arrow_error(&self.path, other),
        }
    }

    /// Lines `range` of `lines` decoded by one decoder, each checked to be
    /// one whole JSON value.
    fn decode_part(
        &self,
        lines: &Lines,
        range: Range<usize>,
    ) -> Result<Option<RecordBatch>, Fault> {
        let mut decoder = decoder(&self.schema, self.batch_rows)
            .map_err(|e| Fault::Line(arrow_error(&self.path, e)))?;
        for index in range {
            let (line, number) = (lines.line(index), lines.starts[index].1);
            let before = decoder.len();
            let consumed = decoder
                .decode(line)
                .map_err(|e| Fault::Line(self.arrow_at(number, e)))?;
            let rest_blank = line[consumed..].iter().all(u8::is_ascii_whitespace);
            if decoder.has_partial_record() {
                return Err(Fault::Line(
                    self.at_line(number, "the JSON value does not end on its line"),
                ));
            }
            if decoder.len() != before + 1 || !rest_blank {
                return Err(Fault::Line(self.at_line(
                    number,
                    "not one JSON value (JSON Lines holds one object per line)",
                )));
            }
        }
        decoder.flush().map_err(Fault::Batch)
    }

    /// The batch of `lines`, decoded on one decoder (an error of the
    /// batch names its first line that fails alone, [`Self::failing_line`]).
    fn decode_whole(&self, lines: &Lines) -> Result<Option<RecordBatch>, Error> {
        match self.decode_part(lines, 0..lines.starts.len()) {
            Ok(batch) => Ok(batch),
            Err(Fault::Line(error)) => Err(error),
            Err(Fault::Batch(error)) => Err(self.failing_line(lines, error)),
        }
    }

    /// The first line of the batch that fails alone (decoded by a decoder
    /// of its own), with its error; else the batch's lines and `error`.
    fn failing_line(&self, lines: &Lines, error: ArrowError) -> Error {
        for (index, &(_, number)) in lines.starts.iter().enumerate() {
            let alone = decoder(&self.schema, 1).and_then(|mut decoder| {
                decoder.decode(lines.line(index))?;
                decoder.flush()
            });
            if let Err(error) = alone {
                return self.arrow_at(number, error);
            }
        }
        match (lines.starts.first(), lines.starts.last()) {
            (Some(&(_, first)), Some(&(_, last))) => Error::invalid(format!(
                "{}: lines {first} to {last}: {error}",
                self.path.display()
            )),
            _ => arrow_error(&self.path, error),
        }
    }
}

fn decoder(schema: &SchemaRef, batch_rows: usize) -> Result<Decoder, ArrowError> {
    arrow::json::ReaderBuilder::new(schema.clone())
        .with_batch_size(batch_rows)
        .build_decoder()
}

impl Iterator for LineBatches {
    type Item = Result<RecordBatch, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_batch() {
            Ok(Some(batch)) => Some(Ok(batch)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
#[path = "json_lines_tests.rs"]
mod tests;
