//! `shuffle_file`: the command line's line shuffle (`knuffle --seed S
//! --memory M --header H -z -n N -r -T DIR FILE... -o OUT`) through the
//! record library `knuffle_records`, with the GIL released for the whole run.
//! The same seed, memory limit and options give the command's bytes.

use std::io;
use std::path::PathBuf;

use knuffle::DefaultRng;
use knuffle_io::{LimitError, check_limit, parse_limit};
use knuffle_records::{
    Destination, Error, HeadCount, Input, NoProgress, Options, Randomness, shuffle_records_to,
};
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt};

/// `memory=`: bytes, or a size as `--memory` takes it (`"512M"`, `"25%"`).
pub enum MemoryLimit {
    Bytes(u64),
    Text(String),
}

/// The accepted forms of `memory=`, for its errors.
const MEMORY_FORMS: &str =
    "a number of bytes (at least 1048576, below 2**64) or a size such as '512M', '4G' or '25%'";

impl MemoryLimit {
    /// `memory=` as Python gives it: an `int` or a `str` (a `bool` is no
    /// size). Anything else is a `TypeError`, an `int` out of range a
    /// `ValueError`, both naming the parameter and the accepted forms.
    pub fn from_python(value: &Bound<'_, PyAny>) -> PyResult<MemoryLimit> {
        if value.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err(format!(
                "memory= takes {MEMORY_FORMS}, not bool"
            )));
        }
        if value.is_instance_of::<PyInt>() {
            return value.extract::<u64>().map(MemoryLimit::Bytes).map_err(|_| {
                PyValueError::new_err(format!(
                    "memory={value} is out of range: memory= takes {MEMORY_FORMS}"
                ))
            });
        }
        if let Ok(text) = value.extract::<String>() {
            return Ok(MemoryLimit::Text(text));
        }
        let kind = value
            .get_type()
            .name()
            .map_or_else(|_| "this type".to_string(), |n| n.to_string());
        Err(PyTypeError::new_err(format!(
            "memory= takes {MEMORY_FORMS}, not {kind}"
        )))
    }

    /// The limit in bytes (at least 1M), or a `ValueError`.
    pub fn bytes(&self) -> PyResult<u64> {
        let (limit, shown) = match self {
            MemoryLimit::Bytes(bytes) => (check_limit(*bytes), bytes.to_string()),
            MemoryLimit::Text(text) => (parse_limit(text), format!("'{text}'")),
        };
        limit.map_err(|error| match error {
            LimitError::Invalid(e) => {
                PyValueError::new_err(format!("memory=: {e}; memory= takes {MEMORY_FORMS}"))
            }
            LimitError::TooSmall => PyValueError::new_err(format!(
                "memory size {shown} is too small: at least 1M (1048576 bytes) is needed"
            )),
        })
    }
}

/// `options["memory"]` (`memory=` of `sample_file`, `split_file` and
/// `shuffle_table`): the limit in bytes, or the default (a share of the
/// memory available, as the command line's).
pub fn memory_limit(options: &Bound<'_, PyDict>) -> PyResult<u64> {
    match options.get_item("memory")? {
        Some(value) if !value.is_none() => MemoryLimit::from_python(&value)?.bytes(),
        _ => Ok(knuffle_io::default_limit()),
    }
}

/// What to shuffle, where to, and how (`Options` of the record library).
pub struct FileJob {
    pub inputs: Vec<PathBuf>,
    pub output: PathBuf,
    pub options: Options,
}

impl FileJob {
    /// The job from the options dict that `Generator.shuffle_file` builds
    /// (`zero_terminated`, `header`, `count`, `repeat`, `memory`,
    /// `temp_dir`, all present), translated into the record library's
    /// [`Options`] as the command line translates its flags.
    pub fn new(
        inputs: Vec<PathBuf>,
        output: PathBuf,
        options: &Bound<'_, PyDict>,
    ) -> PyResult<FileJob> {
        let zero_terminated: bool = get(options, "zero_terminated")?;
        let header: u64 = get(options, "header")?;
        let count: Option<u64> = get(options, "count")?;
        let repeat: bool = get(options, "repeat")?;
        let memory: Option<Bound<'_, PyAny>> = get(options, "memory")?;
        let memory = memory.as_ref().map(MemoryLimit::from_python).transpose()?;
        let temp_dir: Option<PathBuf> = get(options, "temp_dir")?;
        let mut options = Options {
            delimiter: if zero_terminated { 0 } else { b'\n' },
            header,
            count: HeadCount::from(count),
            repeat,
            memory: None,
            temp_dir,
            // Python has no SIGBUS handler: a private copy.
            map_input: false,
        };
        if options.endless() {
            return Err(PyValueError::new_err(
                "repeat=True needs count= (a file cannot hold an endless output)",
            ));
        }
        options.memory = memory.as_ref().map(MemoryLimit::bytes).transpose()?;
        Ok(FileJob {
            inputs,
            output,
            options,
        })
    }

    /// Runs the job with `rng` (the generator's stream, advanced by the
    /// draws the shuffle makes), the GIL released.
    pub fn run(self, py: Python<'_>, rng: &mut DefaultRng) -> PyResult<()> {
        let stream = std::mem::replace(rng, DefaultRng::from_seed_text(""));
        let mut randomness = Randomness::Knuffle(Box::new(stream));
        let FileJob {
            inputs,
            output,
            options,
        } = self;
        // The process-wide settings an external shuffle needs, applied by
        // the module (the record library never changes the process).
        knuffle_io::process::raise_open_file_limit();
        knuffle_io::process::return_freed_memory_at_once();
        let result = py.detach(|| {
            shuffle_records_to(
                inputs.into_iter().map(Input::Path),
                &options,
                &mut randomness,
                Destination::File(&output),
                &NoProgress,
            )
        });
        if let Randomness::Knuffle(stream) = randomness {
            *rng = *stream;
        }
        result.map_err(to_python)
    }
}

/// `options[key]` (the Python layer passes every key), extracted as a
/// positional argument would be.
pub fn get<'py, T: for<'a> FromPyObject<'a, 'py>>(
    options: &Bound<'py, PyDict>,
    key: &str,
) -> PyResult<T> {
    match options.get_item(key)? {
        Some(value) => value.extract::<T>().map_err(Into::into),
        None => Err(PyValueError::new_err(format!("missing option {key}"))),
    }
}

/// An `OSError` of the subclass Python gives `kind` (FileNotFoundError,
/// PermissionError, ...), with the library's message (it names the file).
fn os_error(kind: io::ErrorKind, message: String) -> PyErr {
    PyErr::from(io::Error::new(kind, message))
}

fn to_python(error: Error) -> PyErr {
    let message = error.to_string();
    match &error {
        Error::File { error: io, .. }
        | Error::Read(io)
        | Error::Write(io)
        | Error::Temp { error: io, .. }
        | Error::RandomSourceRead { error: io, .. } => os_error(io.kind(), message),
        Error::OutOfMemory => PyMemoryError::new_err(message),
        Error::RecordTooLong { .. } | Error::NoRecordsToRepeat => PyValueError::new_err(message),
        Error::Entropy(_) | Error::RandomSourceEnded { .. } => {
            os_error(io::ErrorKind::Other, message)
        }
        _ => PyRuntimeError::new_err(message),
    }
}
