//! How a sample's or split's records end, and the reader of one record to
//! its end: lines ending in `\n` (or NUL with `-z`), or with `--csv`
//! RFC 4180 records, which end at a `\n` outside double quotes (every `"`
//! toggles "inside quotes", so a quoted field may hold delimiters and
//! newlines). [`read_record`] is the general path of
//! [`super::RecordReader`]: every CSV record, and a line its read buffer
//! does not hold whole (a line across the buffer's end, a long line, the
//! end of an input).

use std::io::{BufRead, Read};

use crate::error::SampleError;

/// How records end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// Each record ends at this byte (`\n`, or NUL with `-z`, `Framing::Lines(0)`).
    Lines(u8),
    /// RFC 4180: a record ends at a `\n` outside double quotes.
    Csv,
}

impl Framing {
    /// The byte that ends a record.
    pub fn terminator(self) -> u8 {
        match self {
            Framing::Lines(byte) => byte,
            Framing::Csv => b'\n',
        }
    }

    /// What a record is called in messages.
    pub fn noun(self) -> &'static str {
        match self {
            Framing::Lines(b'\n') => "line",
            _ => "record",
        }
    }
}

/// How [`read_record`] ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Ending {
    /// A record, its terminator included (added when the input ended
    /// without one).
    Record,
    /// The input had ended: no record.
    End,
    /// The record is longer than the limit.
    TooLong,
    /// The input ended inside quotes (CSV): taking the rest as one record
    /// would merge every record after the quote.
    OpenQuote,
}

/// Reads one record of `input` (named `name` in messages) after what
/// `record` holds (nothing, or the start of a line the caller saw), at
/// most `max_record` bytes.
pub(super) fn read_record(
    input: &mut impl BufRead,
    record: &mut Vec<u8>,
    framing: Framing,
    max_record: u64,
    name: &str,
) -> Result<Ending, SampleError> {
    let terminator = framing.terminator();
    let mut quotes_open = false;
    loop {
        let start = record.len();
        let room = max_record.saturating_sub(start as u64).saturating_add(1);
        let read = input
            .by_ref()
            .take(room)
            .read_until(terminator, record)
            .map_err(|err| SampleError::read(name, &err))?;
        if record.len() as u64 > max_record {
            return Ok(Ending::TooLong);
        }
        if read == 0 && start == 0 {
            return Ok(Ending::End);
        }
        let ended = record.last() == Some(&terminator) && read > 0;
        if framing == Framing::Csv {
            let quotes = record[start..].iter().filter(|&&b| b == b'"').count();
            quotes_open ^= quotes % 2 == 1;
            if ended && quotes_open {
                continue; // a newline inside a quoted field
            }
        }
        if !ended {
            if read > 0 && record.last() != Some(&terminator) {
                continue; // the take() ended the read early: read on
            }
            if quotes_open {
                return Ok(Ending::OpenQuote);
            }
            record.push(terminator);
        }
        return Ok(Ending::Record);
    }
}

#[cfg(test)]
mod tests {
    use super::super::RecordReader;
    use super::super::tests::{records_of, write_files};
    use super::*;
    use crate::SampleErrorKind;

    #[test]
    fn csv_records_end_at_newlines_outside_quotes() {
        let (header, records) = records_of(
            &[
                b"h1,h2\r\n\"a\nb\",\"c\"\"\"\r\nx,y",
                b"h1,h2\n\"closed\nquote\"",
            ],
            Framing::Csv,
            true,
        );
        assert_eq!(header.as_deref(), Some(&b"h1,h2\r\n"[..]));
        assert_eq!(
            records,
            [
                b"\"a\nb\",\"c\"\"\"\r\n".to_vec(),
                b"x,y\n".to_vec(),
                b"\"closed\nquote\"\n".to_vec()
            ]
        );
    }

    #[test]
    fn a_csv_input_ending_inside_quotes_is_an_error() {
        // Taken as one record, the quote would swallow records 2 and 3.
        for input in [&b"1,\"unclosed\n2,b\n3,c\n"[..], b"x\n\"open"] {
            let dir = tempfile::tempdir().unwrap();
            let names = write_files(&dir, &[input]);
            let mut reader = RecordReader::open(&names, Framing::Csv, false, 1 << 20).unwrap();
            let mut record = Vec::new();
            let error = loop {
                match reader.next_record(&mut record) {
                    Ok(true) => {}
                    Ok(false) => panic!("{input:?} read to its end"),
                    Err(error) => break error,
                }
            };
            assert_eq!(error.kind(), SampleErrorKind::Data);
            assert!(
                error.message().contains("never closed"),
                "{}",
                error.message()
            );
        }
    }
}
