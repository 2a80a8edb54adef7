//! Whether a job of the commands that also take records of text
//! (`knuffle sample`, `knuffle split`, Python's `sample_file` and
//! `split_file`) is on tables, decided once for all of them: when an input
//! is a table (a directory of shards, or a file whose first bytes are a
//! Parquet or Arrow IPC table's), or a table format is named, or an output's
//! name is a Parquet or Arrow file's.

use std::io::Read;
use std::path::Path;

use knuffle_sample::is_binary_table;

use crate::error::Error;
use crate::format::Format;

/// Whether the job (`job` names it in messages: "a sample of a table")
/// on `inputs` writing `outputs` is on tables: `Some(why)` (for messages),
/// `None` for records of text. `format_named`: a table format was named
/// (`--format`, `--output-format`). Refused, on tables: `line_option`, the
/// first option given that only records of text take (`-z`, `-d`);
/// standard input (no input, or `-`).
pub fn table_job(
    inputs: &[&Path],
    outputs: &[&Path],
    format_named: bool,
    line_option: Option<&str>,
    job: &str,
) -> Result<Option<String>, Error> {
    let table_input = inputs.iter().find_map(|path| table_input(path));
    let tables = format_named
        || outputs.iter().any(|path| names_binary_table(path))
        || table_input.is_some();
    if !tables {
        return Ok(None);
    }
    let why = table_input.unwrap_or_else(|| "tables are read".to_owned());
    if let Some(option) = line_option {
        return Err(Error::invalid(format!(
            "{why}: {option} is for records of text (a table's rows have their columns)"
        )));
    }
    if inputs.is_empty() || inputs.iter().any(|path| path.as_os_str() == "-") {
        return Err(Error::invalid(format!(
            "{why}: {job} reads files or directories, not standard input"
        )));
    }
    Ok(Some(why))
}

/// Why `path` is a table input ("'x' is a Parquet table"), or `None` when
/// it is text (or not there: its reader reports that). Pipes and devices
/// are not read here: they stay records of text.
pub fn table_input(path: &Path) -> Option<String> {
    let name = path.display();
    if path.is_dir() {
        return Some(format!("'{name}' is a directory of tables"));
    }
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

/// Whether `path` names a Parquet or Arrow file by its extension.
pub fn names_binary_table(path: &Path) -> bool {
    matches!(
        Format::from_extension(path),
        Some(Format::Parquet | Format::ArrowFile | Format::ArrowStream)
    )
}
