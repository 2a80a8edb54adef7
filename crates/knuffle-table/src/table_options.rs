//! What a table job (shuffle, sample, split) is told: [`Options`], and
//! their one check before a file is opened.

use std::path::PathBuf;

use parquet::basic::Compression;

use crate::error::Error;
use crate::format::Format;

/// What a table shuffle is told.
#[derive(Clone, Debug)]
pub struct Options {
    /// The seed text: the same seed and rows give the same order.
    pub seed: String,
    /// Bytes the shuffle may hold in memory.
    pub memory: u64,
    /// Where bucket files go (none: `$TMPDIR`, else `/tmp`).
    pub temp_dir: Option<PathBuf>,
    /// The inputs' format, when their names do not tell it.
    pub format: Option<Format>,
    /// The output's format (none: from the output file's extension, else
    /// the first input's; an extension that names no format is an error).
    pub output_format: Option<Format>,
    /// Only the first K rows of the order (a uniform sample in random
    /// order).
    pub count: Option<u64>,
    /// Parquet output compression (none: the first Parquet input's, else
    /// Snappy).
    pub compression: Option<Compression>,
    /// Rows per Parquet row group (none: the first Parquet input's largest,
    /// else 1 Mi).
    pub row_group_rows: Option<usize>,
    /// CSV and TSV columns typed from all their values (csv_types.rs).
    pub infer_types: bool,
}

impl Options {
    /// The one check of the options themselves (before a file is opened),
    /// with the error the user sees; options are named as the command line
    /// spells them (the Python bindings rename them).
    pub fn validate(&self) -> Result<(), Error> {
        if self.row_group_rows == Some(0) {
            return Err(Error::invalid("--row-group-rows must be at least 1"));
        }
        Ok(())
    }
}
