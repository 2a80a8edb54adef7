//! `knuffle.stream_table`'s engine: the table library's `TableStream` (the
//! epoch order as a stream of record batches), its batches handed to
//! Python through the Arrow C data interface (the PyCapsule protocol,
//! `__arrow_c_array__`, which `pyarrow.record_batch` takes without copying
//! the rows).

use std::path::PathBuf;
use std::sync::Mutex;

use arrow::array::{Array, RecordBatch, StructArray};
use arrow::datatypes::SchemaRef;
use arrow::ffi::{FFI_ArrowSchema, to_ffi};
use knuffle_table::{
    Consumer, Pass1, Prefetch, PrefetchReader, Prefetching, StatsReader, StreamOptions,
    StreamStats, TableStream, prefetch_stream,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};

use crate::files::{MemoryLimit, get};
use crate::table::{format_option, table_error};

/// The memory a stream holds when `memory=` is not given: at most 1 GiB
/// (every consumer on a machine holds its own).
const DEFAULT_MEMORY: u64 = 1 << 30;

/// One record batch, to be taken by `pyarrow.record_batch(batch)` (the
/// Arrow PyCapsule protocol); it can be taken once.
#[pyclass(module = "knuffle._knuffle", name = "ArrowBatch")]
struct ArrowBatch {
    batch: Mutex<Option<RecordBatch>>,
}

fn schema_capsule<'py>(py: Python<'py>, schema: &SchemaRef) -> PyResult<Bound<'py, PyCapsule>> {
    let ffi = FFI_ArrowSchema::try_from(schema.as_ref())
        .map_err(|e| PyValueError::new_err(format!("the schema cannot be exported: {e}")))?;
    PyCapsule::new_with_value(py, ffi, c"arrow_schema")
}

#[pymethods]
impl ArrowBatch {
    /// `(schema capsule, array capsule)`: the batch as a struct array, its
    /// buffers moved to the consumer (pyarrow); `requested_schema` is not
    /// supported (None).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        if requested_schema.is_some_and(|s| !s.is_none()) {
            return Err(PyValueError::new_err(
                "a stream's batch is exported in its own schema only",
            ));
        }
        let batch = self
            .batch
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the batch's lock was poisoned"))?
            .take()
            .ok_or_else(|| PyValueError::new_err("this batch was already taken"))?;
        let rows = batch.num_rows();
        let array = StructArray::from(batch);
        debug_assert_eq!(array.len(), rows);
        let (array, schema) = to_ffi(&array.to_data())
            .map_err(|e| PyValueError::new_err(format!("the batch cannot be exported: {e}")))?;
        Ok((
            PyCapsule::new_with_value(py, schema, c"arrow_schema")?,
            PyCapsule::new_with_value(py, array, c"arrow_array")?,
        ))
    }
}

/// The stream of `stream_table_paths`: an iterator of `ArrowBatch`es; the
/// next batch is waited for with the GIL released, holding the stream's
/// lock; its stats are read without that lock (a thread that holds the GIL
/// never waits for a batch).
#[pyclass(module = "knuffle._knuffle", name = "TableStream")]
struct PyTableStream {
    schema: SchemaRef,
    stream: Mutex<TableStream>,
    stats: StatsReader,
}

#[pymethods]
impl PyTableStream {
    /// The schema of the batches, as a capsule (`__arrow_c_schema__`).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.schema)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// What the stream did so far (see `stats_dict`).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        stats_dict(py, &self.stats.stats())
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<ArrowBatch>> {
        let next = py.detach(|| match self.stream.lock() {
            Ok(mut stream) => Ok(stream.next()),
            Err(_) => Err(()),
        });
        match next {
            Err(()) => Err(PyRuntimeError::new_err("the stream's lock was poisoned")),
            Ok(None) => Ok(None),
            Ok(Some(Err(e))) => Err(table_error(e)),
            Ok(Some(Ok(batch))) => Ok(Some(ArrowBatch {
                batch: Mutex::new(Some(batch)),
            })),
        }
    }
}

/// A stream's stats as a dict: `pass1` (None until pass 1 is done,
/// "private", "wrote" or "reused"), `waited`, `writer_pid`,
/// `written_in_background`, `bucket_bytes`, `prefetch` ("off", "running",
/// "done", "ready", "busy", "no room", "failed") with `prefetch_detail`,
/// and `removed`.
fn stats_dict<'py>(py: Python<'py>, stats: &StreamStats) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let pass1 = stats.pass1.map(|p| match p {
        Pass1::Private => "private",
        Pass1::Wrote => "wrote",
        Pass1::Reused => "reused",
    });
    dict.set_item("pass1", pass1)?;
    dict.set_item("waited", stats.waited)?;
    dict.set_item("writer_pid", stats.writer_pid)?;
    dict.set_item("written_in_background", stats.written_in_background)?;
    dict.set_item("bucket_bytes", stats.bucket_bytes)?;
    let (prefetch, detail) = match &stats.prefetch {
        Prefetch::Off => ("off", None),
        Prefetch::Running => ("running", None),
        Prefetch::Done => ("done", None),
        Prefetch::Ready => ("ready", None),
        Prefetch::Busy => ("busy", None),
        Prefetch::NoRoom { free, needed } => (
            "no room",
            Some(format!(
                "the cache's file system has {free} bytes free, {needed} needed"
            )),
        ),
        Prefetch::Failed(message) => ("failed", Some(message.clone())),
    };
    dict.set_item("prefetch", prefetch)?;
    dict.set_item("prefetch_detail", detail)?;
    dict.set_item("removed", stats.removed)?;
    Ok(dict)
}

/// The `StreamOptions` of the options dict that `knuffle.stream_table`
/// builds (every key present: `seed`, `epoch`, `columns`, `batch_size`,
/// `memory`, `temp_dir`, `cache_dir`, `prefetch`, `format`, `consumer`,
/// `consumers`, `start`; types checked there).
fn stream_options(options: &Bound<'_, PyDict>) -> PyResult<StreamOptions> {
    let memory: Option<Bound<'_, PyAny>> = get(options, "memory")?;
    let memory = match memory {
        Some(value) if !value.is_none() => MemoryLimit::from_python(&value)?.bytes()?,
        _ => knuffle_io::default_limit().min(DEFAULT_MEMORY),
    };
    Ok(StreamOptions {
        seed: get(options, "seed")?,
        epoch: get(options, "epoch")?,
        columns: get(options, "columns")?,
        batch_rows: get(options, "batch_size")?,
        memory,
        temp_dir: get(options, "temp_dir")?,
        cache_dir: get(options, "cache_dir")?,
        prefetch: get(options, "prefetch")?,
        format: format_option(options, "format")?,
        consumer: Consumer {
            index: get(options, "consumer")?,
            count: get(options, "consumers")?,
            start: get(options, "start")?,
        },
    })
}

/// `stream_table_paths(inputs, options)`: the stream of the tables
/// `inputs` in the epoch order (options: see `stream_options`). The schema
/// is read now, the rows on the stream's own thread.
#[pyfunction]
fn stream_table_paths(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    options: &Bound<'_, PyDict>,
) -> PyResult<PyTableStream> {
    let options = stream_options(options)?;
    let stream = py
        .detach(|| TableStream::open(&inputs, &options))
        .map_err(table_error)?;
    Ok(PyTableStream {
        schema: stream.schema(),
        stats: stream.stats_reader(),
        stream: Mutex::new(stream),
    })
}

/// Pass 1s in the background (`stream_prefetch`): `wait` holds the lock
/// with the GIL released; `done` and `stats` read without it.
#[pyclass(module = "knuffle._knuffle", name = "StreamPrefetch")]
struct PyPrefetching {
    inner: Mutex<Prefetching>,
    reader: PrefetchReader,
}

#[pymethods]
impl PyPrefetching {
    /// Whether they are done.
    fn done(&self) -> bool {
        self.reader.is_finished()
    }

    /// What they did so far (see `stats_dict`).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        stats_dict(py, &self.reader.stats())
    }

    /// Waits for them (the GIL released); raises if the epoch's pass 1
    /// failed.
    fn wait<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let stats = py.detach(|| match self.inner.lock() {
            Ok(mut inner) => Ok(inner.wait()),
            Err(_) => Err(()),
        });
        match stats {
            Err(()) => Err(PyRuntimeError::new_err("the lock was poisoned")),
            Ok(Err(e)) => Err(table_error(e)),
            Ok(Ok(stats)) => stats_dict(py, &stats),
        }
    }
}

/// `stream_prefetch(inputs, options)`: the epoch's pass 1 into the cache
/// directory, then the next epoch's, on a thread of their own (options as
/// for `stream_table_paths`).
#[pyfunction]
fn stream_prefetch(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    options: &Bound<'_, PyDict>,
) -> PyResult<PyPrefetching> {
    let options = stream_options(options)?;
    let prefetching = py
        .detach(|| prefetch_stream(&inputs, &options))
        .map_err(table_error)?;
    Ok(PyPrefetching {
        reader: prefetching.reader(),
        inner: Mutex::new(prefetching),
    })
}

/// Registers the stream on `knuffle._knuffle`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ArrowBatch>()?;
    m.add_class::<PyTableStream>()?;
    m.add_class::<PyPrefetching>()?;
    m.add_function(wrap_pyfunction!(stream_table_paths, m)?)?;
    m.add_function(wrap_pyfunction!(stream_prefetch, m)?)?;
    Ok(())
}
