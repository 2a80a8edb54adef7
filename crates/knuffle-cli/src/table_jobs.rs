//! Whether `knuffle sample` or `knuffle split` works on tables
//! (`knuffle_table::table_job` decides, for the command line and Python
//! alike): with the formats `--format` and `--output-format` name.

use std::ffi::OsString;
use std::path::Path;

use knuffle_table::{ErrorKind, Format, table_job};

use crate::failure::CliError;

/// A job on tables: the formats named, and why it is on tables (for
/// messages).
#[derive(Debug)]
pub(crate) struct TableJob {
    pub(crate) format: Option<Format>,
    pub(crate) output_format: Option<Format>,
    pub(crate) why: String,
}

/// Whether the job on `files` writing `outputs` is on tables (`Ok(None)`:
/// records of text). `line_flags` is the first option given that only
/// records of text take (`-z`, `-d`); `job` names the job in messages ("a
/// sample of a table").
pub(crate) fn decide(
    files: &[OsString],
    outputs: &[&Path],
    format: Option<&str>,
    output_format: Option<&str>,
    line_flags: Option<&str>,
    job: &str,
) -> Result<Option<TableJob>, CliError> {
    let parse = |text: Option<&str>| text.map(Format::parse).transpose().map_err(table_error);
    let (format, output_format) = (parse(format)?, parse(output_format)?);
    let inputs: Vec<&Path> = files.iter().map(Path::new).collect();
    let named = format.is_some() || output_format.is_some();
    let why = table_job(&inputs, outputs, named, line_flags, job).map_err(table_error)?;
    Ok(why.map(|why| TableJob {
        format,
        output_format,
        why,
    }))
}

/// A table library error as `knuffle sample` and `knuffle split` report it,
/// as for lines (invalid options or data: status 2; a failed read or
/// write, rows that cannot be sampled, the memory limit: 1).
pub(crate) fn table_error(error: knuffle_table::Error) -> CliError {
    match error.kind() {
        ErrorKind::Invalid => CliError::invalid(error.message()),
        ErrorKind::Io | ErrorKind::Data | ErrorKind::Memory => CliError::plain(error.message()),
    }
}

/// A table library error as `knuffle table` reports it: a failed read or
/// write status 1; invalid options or data, and an input that the memory
/// limit cannot hold (refused before a row is written), 2.
pub(crate) fn table_command_error(error: knuffle_table::Error) -> CliError {
    match error.kind() {
        ErrorKind::Invalid | ErrorKind::Memory => CliError::invalid(error.message()),
        ErrorKind::Io | ErrorKind::Data => CliError::plain(error.message()),
    }
}
