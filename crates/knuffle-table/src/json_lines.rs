//! The rows of a JSON Lines file, decoded by Arrow's JSON decoder one line
//! at a time, so that an error names its line (1-based, of the whole file,
//! whatever batch it falls in): a line that is not one whole JSON value, or
//! a value that does not fit its column (found when a batch is assembled:
//! the batch's lines are then decoded one by one to find the first that
//! fails). Blank lines are skipped (and counted).

use std::fs::File;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use arrow::datatypes::SchemaRef;
use arrow::error::ArrowError;
use arrow::json::reader::Decoder;
use arrow::record_batch::RecordBatch;
use knuffle_io::compressed::Decompressed;

use crate::error::{Error, arrow_error};

/// A JSON Lines file's batches, each error naming its line.
pub(crate) struct LineBatches {
    path: PathBuf,
    input: Decompressed<File>,
    schema: SchemaRef,
    decoder: Decoder,
    batch_rows: usize,
    /// The longest line, and about the most text of one batch.
    max_line: usize,
    /// Lines read so far (the number of the last one).
    lines_read: u64,
    /// The text of the lines in the batch being decoded, and each one's
    /// start and number.
    text: Vec<u8>,
    starts: Vec<(usize, u64)>,
    line: Vec<u8>,
    done: bool,
}

impl LineBatches {
    pub(crate) fn new(
        path: &Path,
        input: Decompressed<File>,
        schema: SchemaRef,
        batch_rows: usize,
        max_line: usize,
    ) -> Result<LineBatches, Error> {
        Ok(LineBatches {
            path: path.to_path_buf(),
            input,
            decoder: decoder(&schema, batch_rows).map_err(|e| arrow_error(path, e))?,
            schema,
            batch_rows,
            max_line,
            lines_read: 0,
            text: Vec::new(),
            starts: Vec::new(),
            line: Vec::new(),
            done: false,
        })
    }

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

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, Error> {
        while !self.done && self.decoder.len() < self.batch_rows && self.text.len() < self.max_line
        {
            self.line.clear();
            let read = self
                .input
                .by_ref()
                .take(self.max_line as u64 + 1)
                .read_until(b'\n', &mut self.line)
                .map_err(|e| Error::io_at(&self.path, &e))?;
            if read == 0 {
                self.done = true;
                break;
            }
            self.lines_read += 1;
            let number = self.lines_read;
            if self.line.len() > self.max_line {
                return Err(self.at_line(
                    number,
                    format_args!(
                        "longer than {} KiB, the most the memory limit allows one line; raise \
                         the memory limit (--memory)",
                        self.max_line >> 10
                    ),
                ));
            }
            if self.line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let before = self.decoder.len();
            let line = std::mem::take(&mut self.line);
            let decoded = self.decoder.decode(&line);
            self.line = line;
            let consumed = decoded.map_err(|e| self.arrow_at(number, e))?;
            let rest_blank = self.line[consumed..].iter().all(u8::is_ascii_whitespace);
            if self.decoder.has_partial_record() {
                return Err(self.at_line(number, "the JSON value does not end on its line"));
            }
            if self.decoder.len() != before + 1 || !rest_blank {
                return Err(self.at_line(
                    number,
                    "not one JSON value (JSON Lines holds one object per line)",
                ));
            }
            self.starts.push((self.text.len(), number));
            self.text.extend_from_slice(&self.line);
        }
        let flushed = self.decoder.flush();
        let batch = match flushed {
            Ok(batch) => batch,
            Err(error) => return Err(self.failing_line(error)),
        };
        self.text.clear();
        self.starts.clear();
        Ok(batch)
    }

    /// The first line of the batch that fails alone (decoded by a decoder
    /// of its own), with its error; else the batch's lines and `error`.
    fn failing_line(&self, error: ArrowError) -> Error {
        for (index, &(start, number)) in self.starts.iter().enumerate() {
            let end = self
                .starts
                .get(index + 1)
                .map_or(self.text.len(), |&(s, _)| s);
            let alone = decoder(&self.schema, 1).and_then(|mut decoder| {
                decoder.decode(&self.text[start..end])?;
                decoder.flush()
            });
            if let Err(error) = alone {
                return self.arrow_at(number, error);
            }
        }
        match (self.starts.first(), self.starts.last()) {
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
        if self.done && self.decoder.is_empty() {
            return None;
        }
        match self.next_batch() {
            Ok(batch) => batch.map(Ok),
            Err(e) => {
                self.done = true;
                self.decoder = match decoder(&self.schema, 1) {
                    Ok(fresh) => fresh,
                    Err(_) => return Some(Err(e)),
                };
                Some(Err(e))
            }
        }
    }
}
