//! `knuffle sample` on tables: when the inputs are tables (a Parquet or
//! Arrow file, told by its first bytes; a directory of shards; `--format`),
//! or the output is one (`-o` naming a Parquet or Arrow file,
//! `--output-format`), the sample is of rows, by `knuffle_table::sample_table`
//! (the line modes' laws and decisions on the rows of a table); otherwise
//! records of text, as before. This module decides which (`decide`);
//! `table_sample` runs a sample of tables.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

use knuffle_sample::is_binary_table;
use knuffle_table::{ErrorKind, Format};

use crate::failure::CliError;

/// What a sample of tables needs besides the line options.
#[derive(Debug)]
pub struct TablePlan {
    pub(super) format: Option<Format>,
    pub(super) output_format: Option<Format>,
    pub(super) output: PathBuf,
}

/// The formats `--format` and `--output-format` name, and whether the
/// sample is of tables: `Ok(None)` for records of text. `line_flags` is
/// the first option given that only records of text take (`-z`, `-d`).
pub fn decide(
    files: &[OsString],
    output: Option<&Path>,
    format: Option<&str>,
    output_format: Option<&str>,
    line_flags: Option<&str>,
) -> Result<Option<TablePlan>, CliError> {
    let parse = |text: Option<&str>| text.map(Format::parse).transpose().map_err(table_error);
    let (format, output_format) = (parse(format)?, parse(output_format)?);
    let table_input = files.iter().find_map(|file| table_input(Path::new(file)));
    let tables = format.is_some()
        || output_format.is_some()
        || output.is_some_and(binary_table_name)
        || table_input.is_some();
    if !tables {
        return Ok(None);
    }
    let why = table_input.unwrap_or_else(|| "tables are sampled".to_owned());
    if let Some(flag) = line_flags {
        return Err(CliError::invalid(format!(
            "{why}: {flag} is for records of text (a table's rows have their columns)"
        )));
    }
    let Some(output) = output else {
        return Err(CliError::invalid(format!(
            "{why}: a sample of a table is written to a file, -o OUT (its format from \
             --output-format, else OUT's extension, else the input's)"
        )));
    };
    if files.is_empty() || files.iter().any(|f| f == "-") {
        return Err(CliError::invalid(format!(
            "{why}: a sample of a table reads files or directories, not standard input"
        )));
    }
    Ok(Some(TablePlan {
        format,
        output_format,
        output: output.to_path_buf(),
    }))
}

/// Whether `path` names a Parquet or Arrow file by its extension.
fn binary_table_name(path: &Path) -> bool {
    matches!(
        Format::from_extension(path),
        Some(Format::Parquet | Format::ArrowFile | Format::ArrowStream)
    )
}

/// What `path` is when it is a table input: a directory (of shards), or a
/// file whose first bytes are a Parquet or Arrow table's.
fn table_input(path: &Path) -> Option<String> {
    let name = path.display();
    if path.is_dir() {
        return Some(format!("'{name}' is a directory of tables"));
    }
    // Pipes and devices are not read here: they stay records of text.
    if !path.is_file() {
        return None;
    }
    let mut head = Vec::with_capacity(64);
    std::fs::File::open(path)
        .and_then(|file| file.take(64).read_to_end(&mut head))
        .ok()?;
    is_binary_table(&head).then(|| {
        if head.starts_with(b"PAR1") {
            format!("'{name}' is a Parquet table")
        } else {
            format!("'{name}' is an Arrow IPC (Feather) table")
        }
    })
}

pub(super) fn table_error(error: knuffle_table::Error) -> CliError {
    match error.kind() {
        ErrorKind::Invalid => CliError::invalid(error.message()),
        ErrorKind::Io => CliError::plain(error.message()),
    }
}
