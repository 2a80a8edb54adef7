//! The record-format options `knuffle sample` and `knuffle split` share
//! (`-d`, `--csv`, `-z`); the sampling engine decides the records'
//! framing and the field delimiter from them.

use clap::Args;

use knuffle_sample::{Framing, RecordFlags};

use super::flag_names::CLI_NAMES;
use super::status::cli_error;
use crate::failure::CliError;

/// `-d CHAR`, `--csv`, `-z`.
#[derive(Args, Debug)]
pub struct RecordFormat {
    /// Field delimiter, one byte or \t (default: TAB; with --csv, a comma).
    #[arg(short = 'd', long, value_name = "CHAR")]
    delimiter: Option<String>,

    /// Records are RFC 4180 CSV (quoted fields may hold delimiters and newlines).
    #[arg(long)]
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

    /// The framing of the records and the field delimiter (the engine's
    /// decision).
    pub fn decide(&self) -> Result<(Framing, u8), CliError> {
        RecordFlags {
            csv: self.csv,
            zero_terminated: self.zero_terminated,
            delimiter: self.delimiter.clone(),
        }
        .decide(CLI_NAMES)
        .map_err(cli_error)
    }
}
