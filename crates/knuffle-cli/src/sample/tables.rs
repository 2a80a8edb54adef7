//! `knuffle sample` on tables: when the job is on tables
//! (`table_jobs::decide`), the sample is of rows, by
//! `knuffle_table::sample_table` (the line modes' laws and decisions on the
//! rows of a table), written to `-o`; otherwise records of text, as
//! before. `table_sample` runs a sample of tables.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use knuffle_table::Format;

use crate::failure::CliError;
use crate::table_jobs;

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
    let outputs: Vec<&Path> = output.into_iter().collect();
    let Some(job) = table_jobs::decide(
        files,
        &outputs,
        format,
        output_format,
        line_flags,
        "a sample of a table",
    )?
    else {
        return Ok(None);
    };
    let Some(output) = output else {
        return Err(CliError::invalid(format!(
            "{}: a sample of a table is written to a file, -o OUT (its format from \
             --output-format, else OUT's extension, else the input's)",
            job.why
        )));
    };
    Ok(Some(TablePlan {
        format: job.format,
        output_format: job.output_format,
        output: output.to_path_buf(),
    }))
}
