//! Fields of a record: `-w FIELD` (and later `-k FIELDS`) name one by its
//! 1-based number or, with `--header`, by its name in the header. A line's
//! fields are split at the delimiter byte (TAB by default; a `\r` before
//! the `\n` is not part of the last field); a `--csv` record's are parsed
//! by `csv-core` (the parser of the `csv` crate: quoted fields unquoted,
//! `""` read as `"`).

use super::error::SampleError;

/// A field as the command line names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldName {
    /// 1-based.
    Number(usize),
    /// A name in the header.
    Name(String),
}

impl FieldName {
    /// `3` is field 3; anything else not all digits is a name; `0` is an
    /// error (fields count from 1).
    pub fn parse(option: &str, text: &str) -> Result<FieldName, SampleError> {
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            return match text.parse::<usize>() {
                Ok(number) if number >= 1 => Ok(FieldName::Number(number)),
                _ => Err(SampleError::invalid(format!(
                    "invalid field for {option}: '{text}' (fields are numbered from 1)"
                ))),
            };
        }
        if text.is_empty() {
            return Err(SampleError::invalid(format!("{option} needs a field")));
        }
        Ok(FieldName::Name(text.to_string()))
    }

    /// Parses a list of fields separated by commas (`-k 1,3`, `-k user,day`).
    pub fn parse_list(option: &str, text: &str) -> Result<Vec<FieldName>, SampleError> {
        text.split(',')
            .map(|field| FieldName::parse(option, field))
            .collect()
    }

    /// The 0-based index of this field, looking names up in `header`'s
    /// fields (`None`: no `--header`).
    pub fn resolve(&self, option: &str, header: Option<&[Vec<u8>]>) -> Result<usize, SampleError> {
        match self {
            FieldName::Number(number) => Ok(number - 1),
            FieldName::Name(name) => {
                let Some(header) = header else {
                    return Err(SampleError::invalid(format!(
                        "{option} '{name}' names a field: field names need --header \
                         (or give the field's number)"
                    )));
                };
                header
                    .iter()
                    .position(|field| field == name.as_bytes())
                    .ok_or_else(|| {
                        let known: Vec<String> = header
                            .iter()
                            .map(|f| String::from_utf8_lossy(f).into_owned())
                            .collect();
                        // One field holding commas: a CSV file read with
                        // the TAB delimiter.
                        let hint = match header {
                            [only] if only.contains(&b',') => {
                                "; the header is one field with commas in it: for \
                                 comma-separated records, add --csv (or -d ',')"
                            }
                            _ => "",
                        };
                        SampleError::invalid(format!(
                            "{option} '{name}': no field of that name in the header ({}){hint}",
                            known.join(", ")
                        ))
                    })
            }
        }
    }
}

/// Splits records into fields, reusing its buffers.
pub struct Splitter {
    csv: Option<csv_core::Reader>,
    delimiter: u8,
    terminator: u8,
    unquoted: Vec<u8>,
    ends: Vec<usize>,
    /// Field boundaries of the last split: `(start, end)` into the record
    /// (lines) or into `unquoted` (CSV).
    spans: Vec<(usize, usize)>,
}

impl Splitter {
    /// A splitter for lines ending in `terminator` with fields separated
    /// by `delimiter`, or for CSV records (`csv`) with that delimiter.
    pub fn new(csv: bool, delimiter: u8, terminator: u8) -> Splitter {
        Splitter {
            csv: csv.then(|| csv_core::ReaderBuilder::new().delimiter(delimiter).build()),
            delimiter,
            terminator,
            unquoted: Vec::new(),
            ends: Vec::new(),
            spans: Vec::new(),
        }
    }

    /// Splits `record` (terminator included); returns the number of fields.
    pub fn split(&mut self, record: &[u8]) -> usize {
        self.spans.clear();
        let content = record.strip_suffix(&[self.terminator]).unwrap_or(record);
        match self.csv.as_mut() {
            None => {
                let content = if self.terminator == b'\n' {
                    content.strip_suffix(b"\r").unwrap_or(content)
                } else {
                    content
                };
                let mut start = 0;
                for at in memchr::memchr_iter(self.delimiter, content) {
                    self.spans.push((start, at));
                    start = at + 1;
                }
                self.spans.push((start, content.len()));
            }
            Some(reader) => {
                reader.reset();
                self.unquoted.resize(content.len() + 1, 0);
                self.ends.resize(content.len() + 2, 0);
                // The content, then (for a record without terminator) the
                // end of input, ends the record.
                let (result, _, nout, mut nend) =
                    reader.read_record(content, &mut self.unquoted, &mut self.ends);
                if !matches!(result, csv_core::ReadRecordResult::Record) {
                    let (_, _, _, more) =
                        reader.read_record(&[], &mut self.unquoted[nout..], &mut self.ends[nend..]);
                    nend += more;
                }
                let mut start = 0;
                for &end in &self.ends[..nend] {
                    self.spans.push((start, end));
                    start = end;
                }
                if self.spans.is_empty() {
                    self.spans.push((0, 0)); // an empty line: one empty field
                }
            }
        }
        self.spans.len()
    }

    /// Field `index` (0-based) of the record last split, if it has one.
    pub fn field<'a>(&'a self, record: &'a [u8], index: usize) -> Option<&'a [u8]> {
        let &(start, end) = self.spans.get(index)?;
        Some(match self.csv {
            Some(_) => &self.unquoted[start..end],
            None => &record[start..end],
        })
    }

    /// Field `index` (0-based) of `record` (terminator included), splitting
    /// lines no further than that field; `None` when the record has fewer
    /// fields ([`Splitter::split`] then counts them). The same field as
    /// [`Splitter::split`] then [`Splitter::field`].
    pub fn field_at<'a>(&'a mut self, record: &'a [u8], index: usize) -> Option<&'a [u8]> {
        if self.csv.is_some() {
            self.split(record);
            return self.field(record, index);
        }
        let content = record.strip_suffix(&[self.terminator]).unwrap_or(record);
        let content = if self.terminator == b'\n' {
            content.strip_suffix(b"\r").unwrap_or(content)
        } else {
            content
        };
        let mut start = 0;
        let mut ends = memchr::memchr_iter(self.delimiter, content);
        for _ in 0..index {
            start = ends.next()? + 1;
        }
        let end = ends.next().unwrap_or(content.len());
        Some(&content[start..end])
    }

    /// Every field of `record`, owned (for the header).
    pub fn all_fields(&mut self, record: &[u8]) -> Vec<Vec<u8>> {
        let count = self.split(record);
        (0..count)
            .map(|i| self.field(record, i).unwrap_or_default().to_vec())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_at_is_the_field_of_a_whole_split() {
        let records: [&[u8]; 8] = [
            b"a\tb\tc\n",
            b"a\tb\tc\r\n",
            b"\t\t\n",
            b"one\n",
            b"no terminator\tx",
            b"\n",
            b"",
            b"x,\"y\tz\",w\n",
        ];
        for csv in [false, true] {
            for delimiter in [b'\t', b','] {
                let mut whole = Splitter::new(csv, delimiter, b'\n');
                let mut lazy = Splitter::new(csv, delimiter, b'\n');
                for record in records {
                    let count = whole.split(record);
                    for index in 0..count + 2 {
                        let expected = whole.field(record, index).map(<[u8]>::to_vec);
                        let got = lazy.field_at(record, index).map(<[u8]>::to_vec);
                        assert_eq!(got, expected, "{record:?} field {index} csv {csv}");
                    }
                }
            }
        }
    }

    #[test]
    fn lines_split_at_the_delimiter_and_csv_unquotes() {
        let mut tabs = Splitter::new(false, b'\t', b'\n');
        assert_eq!(
            tabs.all_fields(b"a\tb c\t\r\n"),
            [b"a".to_vec(), b"b c".to_vec(), Vec::new()]
        );
        let mut csv = Splitter::new(true, b',', b'\n');
        assert_eq!(
            csv.all_fields(b"x,\"y,\n\"\"z\"\"\",3\r\n"),
            [b"x".to_vec(), b"y,\n\"z\"".to_vec(), b"3".to_vec()]
        );
        assert_eq!(csv.all_fields(b"1,2"), [b"1".to_vec(), b"2".to_vec()]);
        assert_eq!(csv.all_fields(b"\n"), [Vec::<u8>::new()]);
    }

    #[test]
    fn fields_are_numbers_from_one_or_header_names() {
        assert_eq!(FieldName::parse("-w", "2").unwrap(), FieldName::Number(2));
        assert!(FieldName::parse("-w", "0").is_err());
        let name = FieldName::parse("-w", "weight").unwrap();
        let header = [b"id".to_vec(), b"weight".to_vec()];
        assert_eq!(name.resolve("-w", Some(&header)).unwrap(), 1);
        assert!(name.resolve("-w", None).is_err());
        let missing = FieldName::Name("size".into())
            .resolve("-w", Some(&header))
            .unwrap_err();
        assert!(
            !missing.message().contains("--csv"),
            "{}",
            missing.message()
        );
        // A CSV header read with the TAB delimiter is one field with commas.
        let comma_header = [b"id,weight".to_vec()];
        let message = name.resolve("-w", Some(&comma_header)).unwrap_err();
        assert_eq!(
            message.message(),
            "-w 'weight': no field of that name in the header (id,weight); the header is \
             one field with commas in it: for comma-separated records, add --csv (or -d ',')"
        );
    }
}
