//! The table order in Python (docs/table-order.md): the reference
//! permutation `knuffle.table_order(seed, n)`; the labels of a range of
//! global rows (the engines' own steps are in `engines.rs`); and
//! `knuffle.shuffle_table` on
//! files, which is `knuffle table` (the engine `knuffle_table`, with the
//! GIL released).

use std::path::PathBuf;

use knuffle_sample::Parts;
use knuffle_table::{Destination, ErrorKind, Format, Options, ShardSplit, TableOrder};
use numpy::PyArray1;
use pyo3::exceptions::{PyMemoryError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};

use crate::files::{get, memory_limit};

/// The table engine's options that its messages name, as the command
/// line spells them; Python's keyword is the same name with `_` for `-`
/// and a `=` (`--row-group-rows`: `row_group_rows=`).
const OPTION_FLAGS: [&str; 13] = [
    "memory",
    "partition-by",
    "infer-types",
    "per-key",
    "format",
    "output-format",
    "skip-bad-weights",
    "parts",
    "shards",
    "rows-per-shard",
    "compression",
    "row-group-rows",
    "inorder",
];

/// An engine message with its options named as Python names them: each
/// `--flag` of [`OPTION_FLAGS`] that ends there (not the start of a
/// longer one, as `--format` is of `--format-x`).
fn python_names(message: &str) -> String {
    let mut text = message.to_owned();
    for flag in OPTION_FLAGS {
        let dashed = format!("--{flag}");
        let keyword = format!("{}=", flag.replace('-', "_"));
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find(&dashed) {
            let after = &rest[at + dashed.len()..];
            let whole = !after
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            out.push_str(&rest[..at]);
            out.push_str(if whole { &keyword } else { &dashed });
            rest = after;
        }
        out.push_str(rest);
        text = out;
    }
    // The outputs are `-o`'s on the command line, `dst` here.
    text.replace("-o once per part", "a dst path per part")
}

/// `knuffle.MemoryLimitError(message)`: a job that needs more than its
/// `memory=` limit.
pub fn memory_limit_error(message: String) -> PyErr {
    Python::attach(|py| {
        let class = py
            .import("knuffle._errors")
            .and_then(|module| module.getattr("MemoryLimitError"))
            .and_then(|class| Ok(class.cast_into::<PyType>()?));
        match class {
            Ok(class) => PyErr::from_type(class, message),
            Err(error) => error,
        }
    })
}

fn check_count(count: usize) -> PyResult<()> {
    if count > isize::MAX as usize / 16 {
        return Err(PyMemoryError::new_err(format!(
            "cannot allocate the order of {count} rows"
        )));
    }
    Ok(())
}

/// `table_order(seed, n)`: the permutation of `0..n` (int64) that the table
/// order gives `n` rows for `seed`.
#[pyfunction]
fn table_order<'py>(py: Python<'py>, seed: &str, n: u64) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let count = usize::try_from(n)
        .ok()
        .filter(|&c| i64::try_from(c).is_ok())
        .ok_or_else(|| PyMemoryError::new_err(format!("cannot allocate the order of {n} rows")))?;
    check_count(count)?;
    if u32::try_from(count).is_err() {
        return Err(PyValueError::new_err(format!(
            "n must be below 2**32, got {n}"
        )));
    }
    let order = TableOrder::new(seed);
    let out = py.detach(|| {
        let labels = order.labels(0, count);
        order
            .order_positions(&labels, |p| p as u64)
            .into_iter()
            .map(i64::from)
            .collect::<Vec<i64>>()
    });
    Ok(PyArray1::from_vec(py, out))
}

/// `table_labels(seed, start, count)`: the labels (int64 in `0..2**32`) of
/// global rows `start .. start + count`.
#[pyfunction]
fn table_labels<'py>(
    py: Python<'py>,
    seed: &str,
    start: u64,
    count: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    if start.checked_add(count as u64).is_none() {
        return Err(PyValueError::new_err(
            "row numbers past 2**64 - 1 have no label",
        ));
    }
    check_count(count)?;
    let order = TableOrder::new(seed);
    let out = py.detach(|| {
        order
            .labels(start, count)
            .into_iter()
            .map(i64::from)
            .collect::<Vec<i64>>()
    });
    Ok(PyArray1::from_vec(py, out))
}

/// The engine's error as Python's: invalid options or data (a corrupt or
/// truncated file, a schema mismatch, a ragged CSV row, a bad weight)
/// `ValueError`, a failed read or write `OSError` (of its subclass:
/// `FileNotFoundError`, ...), more than the memory limit
/// `knuffle.MemoryLimitError` (a `MemoryError` and a `ValueError`), with
/// the engine's message (it names the file).
pub fn table_error(error: knuffle_table::Error) -> PyErr {
    let message = python_names(error.message());
    match error.kind() {
        ErrorKind::Invalid | ErrorKind::Data => PyValueError::new_err(message),
        ErrorKind::Io => match error.os_kind() {
            Some(kind) => PyErr::from(std::io::Error::new(kind, message)),
            None => PyOSError::new_err(message),
        },
        ErrorKind::Memory => memory_limit_error(message),
    }
}

/// A format named by `format=` or `output_format=`.
pub fn format_option(options: &Bound<'_, PyDict>, key: &str) -> PyResult<Option<Format>> {
    let name: Option<String> = get(options, key)?;
    name.as_deref()
        .map(Format::parse)
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("{key}=: {}", e.message())))
}

/// The output of `shuffle_table`: one file, shards (`shards=` or
/// `rows_per_shard=`), or one file per part (`parts=`).
fn destination(mut outputs: Vec<PathBuf>, options: &Bound<'_, PyDict>) -> PyResult<Destination> {
    let shards: Option<u64> = get(options, "shards")?;
    let rows_per_shard: Option<u64> = get(options, "rows_per_shard")?;
    let parts: Option<String> = get(options, "parts")?;
    let partition_by: Option<String> = get(options, "partition_by")?;
    if partition_by.is_some() && (parts.is_some() || shards.is_some() || rows_per_shard.is_some()) {
        return Err(PyValueError::new_err(
            "partition_by= cannot be combined with parts=, shards= or rows_per_shard=",
        ));
    }
    if let Some(shares) = parts {
        if shards.is_some() || rows_per_shard.is_some() {
            return Err(PyValueError::new_err(
                "parts= cannot be combined with shards= or rows_per_shard=",
            ));
        }
        let parts = Parts::parse(&shares)
            .map_err(|e| PyValueError::new_err(format!("parts=: {}", e.message())))?;
        return Ok(Destination::Parts(outputs, parts));
    }
    if outputs.len() != 1 {
        return Err(PyValueError::new_err(
            "dst= is one path; a list of paths (one per part) needs parts=",
        ));
    }
    let output = outputs.remove(0);
    let destination = match (shards, rows_per_shard) {
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err(
                "shards= and rows_per_shard= cannot be combined",
            ));
        }
        (Some(n), None) => Destination::Shards(output, ShardSplit::Count(n)),
        (None, Some(k)) => Destination::Shards(output, ShardSplit::RowsEach(k)),
        (None, None) => match partition_by {
            Some(column) => Destination::Partitioned(output, column),
            None => Destination::File(output),
        },
    };
    if let Destination::Shards(_, split) = &destination {
        split.sizes(0).map_err(table_error)?;
    }
    Ok(destination)
}

/// `shuffle_table_paths(inputs, outputs, options)`: `knuffle table INPUT...
/// -o OUTPUT...` with the options dict that `knuffle.shuffle_table` builds
/// (every key present: `seed`, `memory`, `temp_dir`, `format`,
/// `output_format`, `count`, `shards`, `rows_per_shard`, `parts`,
/// `compression`, `row_group_rows`, `infer_types`, `partition_by`; types
/// checked there), translated into the engine's
/// `Options` as the command line translates its flags, the GIL released for
/// the run. Returns `(rows_in, rows_out, buckets)`.
#[pyfunction]
fn shuffle_table_paths(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    outputs: Vec<PathBuf>,
    options: &Bound<'_, PyDict>,
) -> PyResult<(u64, u64, usize)> {
    let destination = destination(outputs, options)?;
    let row_group_rows: Option<usize> = get(options, "row_group_rows")?;
    let compression: Option<String> = get(options, "compression")?;
    let compression = compression
        .as_deref()
        .map(knuffle_table::parse_compression)
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("compression=: {e}")))?;
    let options = Options {
        seed: get(options, "seed")?,
        memory: memory_limit(options)?,
        temp_dir: get(options, "temp_dir")?,
        format: format_option(options, "format")?,
        output_format: format_option(options, "output_format")?,
        count: get(options, "count")?,
        compression,
        row_group_rows,
        infer_types: get(options, "infer_types")?,
    };
    // The engine contains its readers' panics (invalid data); a panic
    // anywhere else is still a ValueError naming the inputs, never pyo3's
    // PanicException (which `except Exception` does not catch).
    // Shards and partitions are written at once: the module raises the
    // open-file limit (the table library only checks it).
    knuffle_io::process::raise_open_file_limit();
    let run = || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            knuffle_table::shuffle_table(&inputs, &destination, &options)
        }))
    };
    let report = py
        .detach(run)
        .map_err(|_| {
            PyValueError::new_err(format!(
                "shuffle_table failed on {}: an internal error (please report it with the input)",
                inputs
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?
        .map_err(table_error)?;
    Ok((report.rows_in, report.rows_out, report.buckets))
}

/// Registers the table order's functions on `knuffle._knuffle`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(table_order, m)?)?;
    m.add_function(wrap_pyfunction!(table_labels, m)?)?;
    m.add_function(wrap_pyfunction!(shuffle_table_paths, m)?)?;
    Ok(())
}
