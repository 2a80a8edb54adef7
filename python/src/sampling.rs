//! `sample_file` and `split_file`: `knuffle sample` and `knuffle split`
//! through the record library's sampling engine
//! (`knuffle_sample`; on tables, `sampling_tables`), with the
//! GIL released for the whole run:
//! the same options and seed give the command line's bytes. The options
//! travel as one dict (built and type-checked by `knuffle/_sampling.py`);
//! here they become the engine's `SampleOptions`/`SplitOptions` by the
//! command line's rules (which options go together, which mode they ask
//! for).

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use knuffle::Seed;
use knuffle_sample::{
    Destination, FieldName, Flag, FlagNames, Framing, Parts, RecordFlags, SampleError,
    SampleErrorKind, SampleFlags, SampleOptions, SplitOptions,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::files::memory_limit;
use crate::sampling_tables::{SplitAsked, sample_tables, split_tables, table_job};
use crate::table::memory_limit_error;

/// The engine's error as the Python exception a user expects: bad options
/// or data `ValueError`, I/O the `OSError` subclass of its kind, more than
/// the memory limit `knuffle.MemoryLimitError` (a `MemoryError` and a
/// `ValueError`).
fn to_python(error: SampleError) -> PyErr {
    match error.kind() {
        SampleErrorKind::Io(kind) => PyErr::from(io::Error::new(kind, error.to_string())),
        SampleErrorKind::Memory => memory_limit_error(error.to_string()),
        _ => PyValueError::new_err(error.to_string()),
    }
}

/// `options[key]`, which the Python layer always passes.
fn get<'py, T: for<'a> FromPyObject<'a, 'py>>(
    options: &Bound<'py, PyDict>,
    key: &str,
) -> PyResult<T> {
    let value = options
        .get_item(key)?
        .ok_or_else(|| PyValueError::new_err(format!("missing option {key}")))?;
    value
        .extract::<T>()
        .map_err(|_| PyValueError::new_err(format!("invalid value for {key}=")))
}

/// Paths as the engine reads them.
fn os_strings(paths: Vec<PathBuf>) -> Vec<OsString> {
    paths.into_iter().map(PathBuf::into_os_string).collect()
}

/// The seed text given, or a fresh 256-bit one (64 hex digits).
fn seed_text(seed: Option<String>) -> String {
    seed.unwrap_or_else(Seed::random_text)
}

/// The options as Python names them in messages.
const PY_NAMES: FlagNames = FlagNames {
    name: python_name,
    with_value: python_name,
};

/// A keyword as given: `key=`, `replace=True`.
fn python_name(flag: Flag) -> &'static str {
    match flag {
        Flag::Count => "n=",
        Flag::Prob => "p=",
        Flag::Weights => "weights=",
        Flag::Replace => "replace=True",
        Flag::Key => "key=",
        Flag::PerKey => "per_key=",
        Flag::SkipBadWeights => "skip_bad_weights=True",
        Flag::InOrder => "inorder=True",
        Flag::PrintRandom => "print_random=True",
        Flag::GenRandomInorder => "gen_random_inorder=True",
        Flag::Csv => "csv=True",
        Flag::ZeroTerminated => "zero_terminated=True",
    }
}

/// The record format from the dict: the engine's framing and delimiter.
fn record_format(options: &Bound<'_, PyDict>) -> PyResult<(Framing, u8)> {
    RecordFlags {
        csv: get(options, "csv")?,
        zero_terminated: get(options, "zero_terminated")?,
        delimiter: get(options, "delimiter")?,
    }
    .decide(PY_NAMES)
    .map_err(to_python)
}

/// The sample's options from the dict, decided by the engine.
fn sample_options(options: &Bound<'_, PyDict>) -> PyResult<SampleOptions> {
    let flags = SampleFlags {
        count: get(options, "n")?,
        prob: get(options, "p")?,
        weights: get(options, "weights")?,
        replace: get(options, "replace")?,
        key: get(options, "key")?,
        per_key: get(options, "per_key")?,
        skip_bad_weights: get(options, "skip_bad_weights")?,
        in_order: get(options, "inorder")?,
        print_random: get(options, "print_random")?,
        gen_random_inorder: get(options, "gen_random_inorder")?,
    };
    flags.check_combination(PY_NAMES).map_err(to_python)?;
    if flags.replace && flags.count.is_none() {
        // The command line's endless sample has no file to go to here.
        return Err(PyValueError::new_err(
            "replace=True needs n= (a file cannot hold an endless sample)",
        ));
    }
    let mode = flags.mode(PY_NAMES).map_err(to_python)?;
    let (framing, delimiter) = record_format(options)?;
    let random_values = flags.random_values(&mode, PY_NAMES).map_err(to_python)?;
    let options = SampleOptions {
        mode,
        framing,
        delimiter,
        header: get(options, "header")?,
        in_order: flags.in_order,
        skip_bad_weights: flags.skip_bad_weights,
        random_values,
        memory: memory_limit(options)?,
        seed: seed_text(get(options, "seed")?),
        temp_dir: get(options, "temp_dir")?,
    };
    options.validate().map_err(to_python)?;
    Ok(options)
}

/// `knuffle sample` on `inputs` to `output` (`None`: returned as bytes);
/// returns the seed text used and the bytes.
#[pyfunction]
pub fn sample_paths(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    output: Option<PathBuf>,
    options: &Bound<'_, PyDict>,
) -> PyResult<(String, Option<Py<PyBytes>>)> {
    let tables = table_job(&inputs, output.as_slice(), options, "a sample of a table")?;
    let options = sample_options(options)?;
    if let Some(formats) = tables {
        let skipped = sample_tables(py, &inputs, output.as_deref(), &options, &formats)?;
        warn_skipped(py, skipped)?;
        return Ok((options.seed, None));
    }
    let inputs = os_strings(inputs);
    let mut skipped = 0u64;
    let mut bytes = Vec::new();
    let result = py.detach(|| {
        let destination = match &output {
            Some(path) => Destination::File(path),
            None => Destination::Writer(&mut bytes),
        };
        knuffle_sample::sample(&inputs, &options, destination, &mut |note| {
            if let knuffle_sample::Note::SkippedBadWeights(count) = note {
                skipped += count;
            }
        })
    });
    result.map_err(to_python)?;
    warn_skipped(py, skipped)?;
    let bytes = output.is_none().then(|| PyBytes::new(py, &bytes).unbind());
    Ok((options.seed, bytes))
}

/// Warns of the records (or rows) skipped for their weight, if any.
fn warn_skipped(py: Python<'_>, skipped: u64) -> PyResult<()> {
    if skipped > 0 {
        let warnings = py.import("warnings")?;
        warnings.call_method1(
            "warn",
            (format!(
                "{skipped} record{} without a positive finite weight skipped \
                 (skip_bad_weights=True)",
                if skipped == 1 { "" } else { "s" }
            ),),
        )?;
    }
    Ok(())
}

/// `knuffle split` of `inputs` into `outputs`; returns the seed text used.
#[pyfunction]
pub fn split_paths(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    outputs: Vec<PathBuf>,
    options: &Bound<'_, PyDict>,
) -> PyResult<String> {
    let tables = table_job(&inputs, &outputs, options, "a split of a table")?;
    let parts: String = get(options, "parts")?;
    let key: Option<String> = get(options, "key")?;
    let parts = Parts::parse(&parts).map_err(to_python)?;
    let key = match key {
        Some(fields) => {
            Some(FieldName::parse_list(python_name(Flag::Key), &fields).map_err(to_python)?)
        }
        None => None,
    };
    if let Some(formats) = tables {
        let asked = SplitAsked {
            parts,
            key,
            seed: seed_text(get(options, "seed")?),
            memory: memory_limit(options)?,
            temp_dir: get(options, "temp_dir")?,
        };
        let seed = asked.seed.clone();
        split_tables(py, &inputs, &outputs, asked, &formats)?;
        return Ok(seed);
    }
    let (framing, delimiter) = record_format(options)?;
    let options = SplitOptions {
        parts,
        key,
        framing,
        delimiter,
        header: get(options, "header")?,
        memory: memory_limit(options)?,
        seed: seed_text(get(options, "seed")?),
        temp_dir: get(options, "temp_dir")?,
    };
    let inputs = os_strings(inputs);
    let outputs_ref: Vec<&Path> = outputs.iter().map(PathBuf::as_path).collect();
    py.detach(|| knuffle_sample::split(&inputs, &options, &outputs_ref))
        .map_err(to_python)?;
    Ok(options.seed)
}
