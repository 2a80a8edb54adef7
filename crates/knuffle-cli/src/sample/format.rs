//! The record-format options `knuffle sample` and `knuffle split` share
//! (`-d`, `--csv`, `-z`), and the one decision made from them: the
//! records' framing and the field delimiter.

use clap::Args;

use knuffle_sample::{Framing, parse_delimiter};

use super::status::cli_error;
use crate::failure::CliError;

/// `-d CHAR`, `--csv`, `-z`.
#[derive(Args, Debug)]
pub struct RecordFormat {
    /// Field delimiter, one byte or \t (default: TAB; with --csv, a comma).
    #[arg(short = 'd', long, value_name = "CHAR")]
    delimiter: Option<String>,

    /// Records are RFC 4180 CSV (quoted fields may hold delimiters and newlines).
    #[arg(long, conflicts_with = "zero_terminated")]
    csv: bool,

    /// Records end with NUL, not newline.
    #[arg(short = 'z', long)]
    zero_terminated: bool,
}

impl RecordFormat {
    /// The first option given that only records of text take (`-z`, `-d`).
    pub fn line_flags(&self) -> Option<&'static str> {
        if self.zero_terminated {
            Some("-z")
        } else if self.delimiter.is_some() {
            Some("-d")
        } else {
            None
        }
    }

    /// The framing of the records and the field delimiter (which cannot
    /// be the records' terminator).
    pub fn decide(&self) -> Result<(Framing, u8), CliError> {
        let framing = if self.csv {
            Framing::Csv
        } else {
            Framing::Lines(if self.zero_terminated { 0 } else { b'\n' })
        };
        let delimiter = parse_delimiter(self.delimiter.as_deref(), self.csv).map_err(cli_error)?;
        if delimiter == framing.terminator() {
            return Err(CliError::invalid(
                "the delimiter cannot be the record terminator",
            ));
        }
        Ok((framing, delimiter))
    }
}
