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
    Destination, FieldName, Framing, Mode, Parts, Probability, RandomValues, SampleError,
    SampleErrorKind, SampleOptions, SplitOptions, parse_delimiter,
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

/// Record framing: CSV, NUL-ended, or lines.
fn framing(csv: bool, zero_terminated: bool) -> PyResult<Framing> {
    match (csv, zero_terminated) {
        (true, true) => Err(PyValueError::new_err(
            "csv=True and zero_terminated=True cannot be combined",
        )),
        (true, false) => Ok(Framing::Csv),
        (false, zero) => Ok(Framing::Lines(if zero { 0 } else { b'\n' })),
    }
}

/// A `ValueError` unless no two of `given` are set: `(name, set)`.
fn exclusive(given: &[(&str, bool)]) -> PyResult<()> {
    let set: Vec<&str> = given.iter().filter(|g| g.1).map(|g| g.0).collect();
    if set.len() > 1 {
        return Err(PyValueError::new_err(format!(
            "{} cannot be combined",
            set.join(" and ")
        )));
    }
    Ok(())
}

/// The sample's options from the dict, by the command line's rules.
fn sample_options(options: &Bound<'_, PyDict>) -> PyResult<SampleOptions> {
    let n: Option<u64> = get(options, "n")?;
    let p: Option<String> = get(options, "p")?;
    let weights: Option<String> = get(options, "weights")?;
    let replace: bool = get(options, "replace")?;
    let key: Option<String> = get(options, "key")?;
    let per_key: Option<u64> = get(options, "per_key")?;
    let inorder: bool = get(options, "inorder")?;
    let skip_bad_weights: bool = get(options, "skip_bad_weights")?;
    let print_random: bool = get(options, "print_random")?;
    let gen_random_inorder: bool = get(options, "gen_random_inorder")?;
    let csv: bool = get(options, "csv")?;
    let delimiter: Option<String> = get(options, "delimiter")?;
    for pair in [
        [("p=", p.is_some()), ("n=", n.is_some())],
        [("p=", p.is_some()), ("weights=", weights.is_some())],
        [("replace=True", replace), ("p=", p.is_some())],
        [("replace=True", replace), ("inorder=True", inorder)],
        [("key=", key.is_some()), ("n=", n.is_some())],
        [("key=", key.is_some()), ("weights=", weights.is_some())],
        [("key=", key.is_some()), ("replace=True", replace)],
        [("key=", key.is_some()), ("inorder=True", inorder)],
        [("per_key=", per_key.is_some()), ("p=", p.is_some())],
        [
            ("print_random=True", print_random),
            ("replace=True", replace),
        ],
        [
            ("print_random=True", print_random),
            ("per_key=", per_key.is_some()),
        ],
        [
            ("gen_random_inorder=True", gen_random_inorder),
            ("replace=True", replace),
        ],
        [
            ("gen_random_inorder=True", gen_random_inorder),
            ("per_key=", per_key.is_some()),
        ],
        [
            ("gen_random_inorder=True", gen_random_inorder),
            ("n=", n.is_some()),
        ],
        [
            ("gen_random_inorder=True", gen_random_inorder),
            ("print_random=True", print_random),
        ],
    ] {
        exclusive(&pair)?;
    }
    let needs = |set: bool, needed: bool, what: &str| {
        if set && !needed {
            Err(PyValueError::new_err(what.to_owned()))
        } else {
            Ok(())
        }
    };
    needs(per_key.is_some(), key.is_some(), "per_key= needs key=")?;
    needs(
        skip_bad_weights,
        weights.is_some(),
        "skip_bad_weights=True needs weights=",
    )?;
    needs(inorder, n.is_some(), "inorder=True needs n=")?;
    if replace && n.is_none() {
        return Err(PyValueError::new_err(
            "replace=True needs n= (a file cannot hold an endless sample)",
        ));
    }
    let invalid = |e: SampleError| to_python(e);
    let mode = if let Some(fields) = &key {
        let fields = FieldName::parse_list("key=", fields).map_err(invalid)?;
        match (&p, per_key) {
            (Some(text), _) => Mode::Distinct {
                fields,
                probability: Probability::parse(text).map_err(invalid)?,
            },
            (None, Some(per_key)) => Mode::Stratified { fields, per_key },
            (None, None) => {
                return Err(PyValueError::new_err(
                    "key= needs p= (distinct sampling) or per_key= (stratified)",
                ));
            }
        }
    } else if replace {
        Mode::Replacement {
            field: match &weights {
                Some(field) => Some(FieldName::parse("weights=", field).map_err(invalid)?),
                None => None,
            },
            count: n,
        }
    } else if let Some(text) = &p {
        Mode::Bernoulli(Probability::parse(text).map_err(invalid)?)
    } else if let Some(field) = &weights {
        Mode::Weighted {
            field: FieldName::parse("weights=", field).map_err(invalid)?,
            count: n,
        }
    } else {
        Mode::Uniform { count: n }
    };
    let framing = framing(csv, get(options, "zero_terminated")?)?;
    let options = SampleOptions {
        mode,
        framing,
        delimiter: parse_delimiter(delimiter.as_deref(), csv).map_err(invalid)?,
        header: get(options, "header")?,
        in_order: inorder,
        skip_bad_weights,
        random_values: match (print_random, gen_random_inorder) {
            (_, true) => RandomValues::Every,
            (true, false) => RandomValues::Sampled,
            (false, false) => RandomValues::Off,
        },
        memory: memory_limit(options)?,
        seed: seed_text(get(options, "seed")?),
        temp_dir: get(options, "temp_dir")?,
    };
    options.validate().map_err(invalid)?;
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
        Some(fields) => Some(FieldName::parse_list("key=", &fields).map_err(to_python)?),
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
    let csv: bool = get(options, "csv")?;
    let delimiter: Option<String> = get(options, "delimiter")?;
    let options = SplitOptions {
        parts,
        key,
        framing: framing(csv, get(options, "zero_terminated")?)?,
        delimiter: parse_delimiter(delimiter.as_deref(), csv).map_err(to_python)?,
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
