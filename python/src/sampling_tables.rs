//! `sample_file` and `split_file` on tables: when the job is on tables (an
//! input is a Parquet or Arrow file or a directory of shards, `format=` or
//! `output_format=` is given, or an output names a Parquet or Arrow file;
//! decided by `knuffle_table::table_job`, as for the command line), the
//! rows are sampled or split by `knuffle_table` with the line modes' laws
//! and decisions, as `knuffle sample` and `knuffle split` do, the GIL
//! released for the run.

use std::path::{Path, PathBuf};

use knuffle_sample::{FieldName, Mode, Parts, RandomValues, SampleOptions};
use knuffle_table::{Format, Options, TableSample, TableSplit};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::files::get;
use crate::table::{format_option, table_error};

/// The table formats of a job on tables.
pub(crate) struct Formats {
    format: Option<Format>,
    output_format: Option<Format>,
}

/// Whether the job on `inputs` writing `outputs` is on tables (`None`:
/// records of text), with the dict's `format`, `output_format`,
/// `delimiter` and `zero_terminated`; `job` names it in messages.
pub(crate) fn table_job(
    inputs: &[PathBuf],
    outputs: &[PathBuf],
    options: &Bound<'_, PyDict>,
    job: &str,
) -> PyResult<Option<Formats>> {
    let format = format_option(options, "format")?;
    let output_format = format_option(options, "output_format")?;
    let delimiter: Option<String> = get(options, "delimiter")?;
    let zero_terminated: bool = get(options, "zero_terminated")?;
    let line_option = if zero_terminated {
        Some("zero_terminated=True")
    } else if delimiter.is_some() {
        Some("delimiter=")
    } else {
        None
    };
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let outputs: Vec<&Path> = outputs.iter().map(PathBuf::as_path).collect();
    let named = format.is_some() || output_format.is_some();
    let tables = knuffle_table::table_job(&inputs, &outputs, named, line_option, job)
        .map_err(table_error)?;
    Ok(tables.map(|_| Formats {
        format,
        output_format,
    }))
}

/// The table engine's options for a job of `seed`, `memory` and `temp_dir`.
fn table_options(formats: &Formats, seed: &str, memory: u64, temp_dir: Option<PathBuf>) -> Options {
    Options {
        seed: seed.to_owned(),
        memory,
        temp_dir,
        format: formats.format,
        output_format: formats.output_format,
        count: None,
        compression: None,
        row_group_rows: None,
        infer_types: false,
    }
}

/// Samples the rows of the tables `inputs` into `output` as `options`
/// (the line sample's, validated) ask; returns the rows skipped for their
/// weight.
pub(crate) fn sample_tables(
    py: Python<'_>,
    inputs: &[PathBuf],
    output: Option<&Path>,
    options: &SampleOptions,
    formats: &Formats,
) -> PyResult<u64> {
    if matches!(options.mode, Mode::Replacement { .. }) {
        return Err(PyValueError::new_err(
            "replace=True is for records of text, not tables",
        ));
    }
    if options.random_values != RandomValues::Off {
        return Err(PyValueError::new_err(
            "print_random=True and gen_random_inorder=True are for records of text, not tables",
        ));
    }
    let Some(output) = output else {
        return Err(PyValueError::new_err(
            "a sample of a table is written to a file: give dst= (its format from \
             output_format=, else its extension, else the input's)",
        ));
    };
    let table_options = table_options(
        formats,
        &options.seed,
        options.memory,
        options.temp_dir.clone(),
    );
    let sample = TableSample {
        mode: options.mode.clone(),
        in_order: options.in_order,
        skip_bad_weights: options.skip_bad_weights,
    };
    let report = py
        .detach(|| knuffle_table::sample_table(inputs, output, &table_options, &sample))
        .map_err(table_error)?;
    Ok(report.skipped)
}

/// What a split of tables is asked, besides its inputs and outputs.
pub(crate) struct SplitAsked {
    pub(crate) parts: Parts,
    pub(crate) key: Option<Vec<FieldName>>,
    pub(crate) seed: String,
    pub(crate) memory: u64,
    pub(crate) temp_dir: Option<PathBuf>,
}

/// Splits the rows of the tables `inputs` into `outputs`.
pub(crate) fn split_tables(
    py: Python<'_>,
    inputs: &[PathBuf],
    outputs: &[PathBuf],
    asked: SplitAsked,
    formats: &Formats,
) -> PyResult<()> {
    let options = table_options(formats, &asked.seed, asked.memory, asked.temp_dir);
    // Every part is an open file until the end (the program's setting,
    // as the command line's main makes it).
    knuffle_io::process::raise_open_file_limit();
    let split = TableSplit {
        parts: asked.parts,
        key: asked.key,
    };
    py.detach(|| knuffle_table::split_table(inputs, outputs, &options, &split))
        .map_err(table_error)?;
    Ok(())
}
