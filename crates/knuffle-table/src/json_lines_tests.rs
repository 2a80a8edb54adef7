//! A JSON Lines file's batches decoded in parts on several threads are
//! the batches decoded line after line on one (the reader before parts,
//! kept here as the reference): the same rows in the same batches, and the
//! same first error.

use std::io::Write;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema};
use proptest::prelude::*;

use super::*;

/// A JSON Lines file's batches, each error naming its line.
struct Reference {
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

impl Reference {
    fn new(
        path: &Path,
        input: Decompressed<File>,
        schema: SchemaRef,
        batch_rows: usize,
        max_line: usize,
    ) -> Result<Reference, Error> {
        Ok(Reference {
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

impl Iterator for Reference {
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

fn text_file(text: &[u8]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(text).unwrap();
    file
}

fn open(file: &tempfile::NamedTempFile, buffer: usize) -> Decompressed<File> {
    Decompressed::new(File::open(file.path()).unwrap(), buffer).unwrap()
}

/// Batches until the first error (its message).
fn outcome(
    batches: impl Iterator<Item = Result<RecordBatch, Error>>,
) -> Vec<Result<RecordBatch, String>> {
    let mut out = Vec::new();
    for batch in batches {
        let failed = batch.is_err();
        out.push(batch.map_err(|e| e.message().to_owned()));
        if failed {
            break;
        }
    }
    out
}

fn line() -> impl Strategy<Value = String> {
    let a = prop::sample::select(vec!["1", "-7", "\"x\"", "null", "2.5", "[1]"]);
    let b = prop::sample::select(vec!["\"\u{e9}\u{20ac}\\n\"", "\"\"", "3", "null"]);
    let object = (a, b, any::<bool>(), any::<bool>()).prop_map(|(a, b, with_a, with_c)| {
        let mut fields = vec![format!("\"b\": {b}")];
        if with_a {
            fields.insert(0, format!("\"a\": {a}"));
        }
        if with_c {
            fields.push("\"c\": {\"d\": [true]}".to_owned());
        }
        format!("{{{}}}", fields.join(", "))
    });
    prop_oneof![
        20 => object,
        1 => Just(String::new()),
        1 => Just(" \t".to_owned()),
        1 => Just("{\"a\": 1} {\"a\": 2}".to_owned()),
        1 => Just("{\"a\": ".to_owned()),
        1 => Just("nope".to_owned()),
        1 => Just(format!("{{\"b\": \"{}\"}}", "z".repeat(70))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn parts_decode_what_one_decoder_does(
        lines in prop::collection::vec(line(), 0..40),
        last_newline in any::<bool>(),
        batch_rows in 1usize..9,
        workers in 1usize..4,
        buffer in 1usize..16,
        max_line in prop::sample::select(vec![60usize, 100, 4096]),
    ) {
        let mut text = lines.join("\n");
        if last_newline {
            text.push('\n');
        }
        let file = text_file(text.as_bytes());
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("b", DataType::Utf8, true),
        ]));
        let path = file.path();
        let expected = outcome(
            Reference::new(path, open(&file, buffer), schema.clone(), batch_rows, max_line).unwrap(),
        );
        let got = outcome(
            LineBatches::new(path, open(&file, buffer), schema, batch_rows, max_line, workers)
                .unwrap(),
        );
        prop_assert_eq!(got, expected);
    }
}
