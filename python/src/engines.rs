//! The per-partition steps of the engines' shuffles (`knuffle.dask`,
//! `knuffle.spark`, `knuffle.ray`), each one Rust call per batch or
//! partition with the GIL released: the labels of any global row numbers
//! (a batch is usually one run of consecutive rows, read from the stream
//! once), a block's labels and output partitions, a block's rows grouped
//! by output partition, the rows that share a label with their places in
//! its tie order, and the order of one partition's rows, given as 32-bit labels and global row numbers, in the
//! table order (docs/table-order.md); and the key of the label stream, for
//! the Spark component that computes labels in the JVM.

use knuffle_table::{RepeatedRow, TableOrder};
use numpy::{PyArray1, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::threads;

fn contiguous<'a, T: numpy::Element>(
    array: &'a PyReadonlyArray1<'_, T>,
    what: &str,
) -> PyResult<&'a [T]> {
    array
        .as_slice()
        .map_err(|_| PyValueError::new_err(format!("the {what} are not a contiguous array")))
}

fn check_rows(rows: &[i64]) -> PyResult<()> {
    match rows.iter().find(|&&r| r < 0) {
        Some(bad) => Err(PyValueError::new_err(format!("negative row number {bad}"))),
        None => Ok(()),
    }
}

/// The labels of the global rows `rows`, each run of consecutive row
/// numbers read from the label stream in one go.
fn labels_at(order: &TableOrder, rows: &[i64], out: &mut [u32]) {
    let mut i = 0;
    while i < rows.len() {
        let mut j = i + 1;
        while j < rows.len() && rows[j] == rows[j - 1].wrapping_add(1) {
            j += 1;
        }
        order.labels_into(rows[i] as u64, &mut out[i..j]);
        i = j;
    }
}

/// `table_labels_at(seed, rows)`: the labels (uint32) of the global rows
/// `rows` (int64, non-negative, in any order).
#[pyfunction]
fn table_labels_at<'py>(
    py: Python<'py>,
    seed: &str,
    rows: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let rows = contiguous(&rows, "row numbers")?;
    check_rows(rows)?;
    let order = TableOrder::new(seed);
    let mut out: Vec<u32> = Vec::new();
    out.try_reserve_exact(rows.len())
        .map_err(|_| PyMemoryError::new_err(format!("cannot allocate {} labels", rows.len())))?;
    out.resize(rows.len(), 0);
    py.detach(|| labels_at(&order, rows, &mut out));
    Ok(PyArray1::from_vec(py, out))
}

/// The positions that put the rows `(labels[p], rows[p])` in the table
/// order ([`TableOrder::try_order_positions`]: a counting sort by label, O(n)).
fn order_positions(order: &TableOrder, labels: &[u32], rows: &[i64]) -> Result<Vec<i64>, String> {
    let n = labels.len();
    if u32::try_from(n).is_err() {
        return Err(format!(
            "a partition of {n} rows: at most 2^32 - 1 rows are ordered at once \
             (use more partitions)"
        ));
    }
    // The order takes 8 bytes a row while it is sorted and 12 for the
    // positions: a partition that cannot have them is refused here rather
    // than aborting the worker (a first allocation of that size succeeded).
    let mut room: Vec<u64> = Vec::new();
    room.try_reserve_exact(n.saturating_mul(2))
        .map_err(|_| format!("cannot allocate the order of {n} rows"))?;
    drop(room);
    let positions = order
        .try_order_positions(labels, |p| rows[p] as u64)
        .map_err(|RepeatedRow(row)| {
            format!(
                "global row {row} appears twice (did the input change between the pass \
                 that counted its rows and the shuffle?)"
            )
        })?;
    Ok(positions.into_iter().map(i64::from).collect())
}

/// `table_order_partition(seed, labels, rows)`: the positions (int64) that
/// put one partition's rows, given by their labels (uint32) and global row
/// numbers (int64), in the table order. The partition may hold any set of
/// whole buckets; the rows may come in any order.
#[pyfunction]
fn table_order_partition<'py>(
    py: Python<'py>,
    seed: &str,
    labels: PyReadonlyArray1<'py, u32>,
    rows: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    if labels.len() != rows.len() {
        return Err(PyValueError::new_err(format!(
            "{} labels for {} rows",
            labels.len(),
            rows.len()
        )));
    }
    let labels = contiguous(&labels, "labels")?;
    let rows = contiguous(&rows, "row numbers")?;
    check_rows(rows)?;
    let order = TableOrder::new(seed);
    let out = py
        .detach(|| order_positions(&order, labels, rows))
        .map_err(PyValueError::new_err)?;
    Ok(PyArray1::from_vec(py, out))
}

/// Labels (uint32) and output partitions (int32).
type LabelsAndPartitions<'py> = (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<i32>>);

/// `table_labels_partitions(seed, start, count, partitions)`: for one
/// input block of `count` rows whose first global row is `start`, each
/// row's label (uint32) and output partition (int32; partition `p` of
/// `partitions` holds the `p`-th label range, `label * partitions >> 32`),
/// in row order: one pass, where numpy takes five.
#[pyfunction]
fn table_labels_partitions<'py>(
    py: Python<'py>,
    seed: &str,
    start: u64,
    count: usize,
    partitions: u64,
) -> PyResult<LabelsAndPartitions<'py>> {
    check_partitions(partitions)?;
    check_start(start, count)?;
    let order = TableOrder::new(seed);
    let (labels, targets) = py
        .detach(|| -> Result<_, String> {
            let mut labels = zeroed::<u32>(count)?;
            let mut targets = zeroed::<i32>(count)?;
            order.labels_into(start, &mut labels);
            for (target, &label) in targets.iter_mut().zip(&labels) {
                // < partitions <= 2^31: fits an i32.
                *target = partition_of(label, partitions) as i32;
            }
            Ok((labels, targets))
        })
        .map_err(PyMemoryError::new_err)?;
    Ok((
        PyArray1::from_vec(py, labels),
        PyArray1::from_vec(py, targets),
    ))
}

/// The output partition of `label` among `partitions`: partition `p` holds
/// the `p`-th of `partitions` label ranges (`label * partitions >> 32`,
/// below `partitions`).
fn partition_of(label: u32, partitions: u64) -> u64 {
    (u64::from(label) * partitions) >> 32
}

fn check_partitions(partitions: u64) -> PyResult<()> {
    if (1..=1u64 << 31).contains(&partitions) {
        Ok(())
    } else {
        Err(PyValueError::new_err(format!(
            "partitions must be in 1..2**31, got {partitions}"
        )))
    }
}

fn check_start(start: u64, count: usize) -> PyResult<()> {
    match start.checked_add(count as u64) {
        Some(_) => Ok(()),
        None => Err(PyValueError::new_err(
            "row numbers past 2^64 - 1 have no label",
        )),
    }
}

/// The positions `0..count` of one block's rows (global rows `start..`)
/// grouped by output partition (`label * partitions >> 32`), in row order
/// within each, with the labels in that order and where each partition's
/// rows begin: a stable counting sort, O(count + partitions).
fn cut_block(order: &TableOrder, start: u64, count: usize, partitions: u64) -> Result<Cut, String> {
    let mut labels = zeroed::<u32>(count)?;
    order.labels_into(start, &mut labels);
    let target = |label: u32| partition_of(label, partitions) as usize;
    let mut bounds = zeroed::<i64>(partitions as usize + 1)?;
    for &label in &labels {
        bounds[target(label) + 1] += 1;
    }
    for p in 0..partitions as usize {
        bounds[p + 1] += bounds[p];
    }
    let mut next = bounds.clone();
    let mut positions = zeroed::<i64>(count)?;
    let mut cut_labels = zeroed::<u32>(count)?;
    for (position, &label) in labels.iter().enumerate() {
        let slot = &mut next[target(label)];
        positions[*slot as usize] = position as i64;
        cut_labels[*slot as usize] = label;
        *slot += 1;
    }
    Ok(Cut {
        positions,
        labels: cut_labels,
        bounds,
    })
}

/// `len` zeros, or a message when they do not fit in memory.
fn zeroed<T: Clone + Default>(len: usize) -> Result<Vec<T>, String> {
    let mut out = Vec::new();
    out.try_reserve_exact(len)
        .map_err(|_| format!("cannot allocate {len} values"))?;
    out.resize(len, T::default());
    Ok(out)
}

struct Cut {
    positions: Vec<i64>,
    labels: Vec<u32>,
    bounds: Vec<i64>,
}

/// `table_cut(seed, start, count, partitions)`: for one input block of
/// `count` rows whose first global row is `start`, the positions (int64)
/// that group its rows by output partition (partition `p` of `partitions`
/// holds the `p`-th label range; rows in input order within each), their
/// labels (uint32) in that order, and the `partitions + 1` bounds (int64)
/// of each partition's positions.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn table_cut<'py>(
    py: Python<'py>,
    seed: &str,
    start: u64,
    count: usize,
    partitions: u64,
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<i64>>,
)> {
    check_partitions(partitions)?;
    check_start(start, count)?;
    let order = TableOrder::new(seed);
    let cut = py
        .detach(|| cut_block(&order, start, count, partitions))
        .map_err(PyMemoryError::new_err)?;
    Ok((
        PyArray1::from_vec(py, cut.positions),
        PyArray1::from_vec(py, cut.labels),
        PyArray1::from_vec(py, cut.bounds),
    ))
}

/// The rows per label range of [`TableOrder::par_tied_rows`]: 72 MiB of
/// labels (with room to spare) and 32 MiB of their low bits, grouped, while
/// they are searched for shared ones.
const TIED_SLICE_ROWS: u64 = 1 << 24;

/// The threads that list the tied rows: each label range being searched
/// holds about 104 MiB; then about 48 bytes per tied row at the peak (the
/// pairs found, their places, and the arrays returned).
const TIED_THREADS: usize = 2;

/// Tied rows (int64) and their places (int64).
type RowsAndPlaces<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

/// The most rows [`table_tied_rows`] searches.
const TIED_MAX_ROWS: u64 = 1 << 28;

/// `table_tied_rows(seed, n)`: the rows (int64, ascending) of `0..n` that
/// share their label with another row, and each one's place (int64) in its
/// run's tie order: sorting rows by (label, place), other rows' place
/// being 0, gives the table order.
#[pyfunction]
fn table_tied_rows<'py>(py: Python<'py>, seed: &str, n: u64) -> PyResult<RowsAndPlaces<'py>> {
    // About n^2 / 2^32 rows are listed, and the label stream is read
    // n / 2^24 + 1 times: at 2^28 rows, 16.8 million rows and 17 reads.
    if n > TIED_MAX_ROWS {
        return Err(PyValueError::new_err(format!(
            "the tied rows of {n} rows: at most 2^28 rows are searched for ties"
        )));
    }
    let order = TableOrder::new(seed);
    let pool = threads::pool(TIED_THREADS).map_err(PyRuntimeError::new_err)?;
    let tied = py.detach(|| pool.install(|| order.par_tied_rows(n, TIED_SLICE_ROWS)));
    let rows = tied.iter().map(|&(row, _)| row as i64).collect();
    let places = tied.iter().map(|&(_, place)| i64::from(place)).collect();
    Ok((PyArray1::from_vec(py, rows), PyArray1::from_vec(py, places)))
}

/// `table_label_key(seed)`: the 32-byte key of the seed's label stream
/// (ChaCha20, word `row` is row `row`'s label), for the Spark JVM component.
#[pyfunction]
fn table_label_key<'py>(py: Python<'py>, seed: &str) -> Bound<'py, PyBytes> {
    PyBytes::new(py, TableOrder::new(seed).label_key())
}

/// Registers the engines' functions on `knuffle._knuffle`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(table_labels_at, m)?)?;
    m.add_function(wrap_pyfunction!(table_order_partition, m)?)?;
    m.add_function(wrap_pyfunction!(table_labels_partitions, m)?)?;
    m.add_function(wrap_pyfunction!(table_cut, m)?)?;
    m.add_function(wrap_pyfunction!(table_tied_rows, m)?)?;
    m.add_function(wrap_pyfunction!(table_label_key, m)?)?;
    Ok(())
}
