//! The two per-partition steps of the engines' shuffles (`knuffle.dask`,
//! `knuffle.spark`, `knuffle.ray`), each one Rust call per batch or
//! partition with the GIL released: the labels of any global row numbers
//! (a batch is usually one run of consecutive rows, read from the stream
//! once), and the order of one partition's rows, given as 32-bit labels and
//! global row numbers, in the table order (docs/table-order.md).

use knuffle_table::TableOrder;
use numpy::{PyArray1, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;

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
/// order: sorted by (label, row), then each run of equal labels in its tie
/// order ([`TableOrder::order_sorted`]). Input already in (label, row)
/// order costs one pass (the sort finds the run).
fn order_positions(order: &TableOrder, labels: &[u32], rows: &[i64]) -> Result<Vec<i64>, String> {
    let n = labels.len();
    let mut keyed: Vec<(u32, u64, usize)> = Vec::new();
    keyed
        .try_reserve_exact(n)
        .map_err(|_| format!("cannot allocate the order of {n} rows"))?;
    keyed.extend(
        labels
            .iter()
            .zip(rows)
            .enumerate()
            .map(|(p, (&label, &row))| (label, row as u64, p)),
    );
    keyed.sort_unstable_by_key(|k| (k.0, k.1));
    // A row's label follows from its number: a row twice is twice in one run.
    if let Some(pair) = keyed.windows(2).find(|w| w[0].1 == w[1].1) {
        return Err(format!(
            "global row {} appears twice (did the input change between the pass \
             that counted its rows and the shuffle?)",
            pair[0].1
        ));
    }
    order.order_sorted(&mut keyed, |k| k.0, |k| k.1);
    Ok(keyed.into_iter().map(|k| k.2 as i64).collect())
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

/// Registers the engines' functions on `knuffle._knuffle`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(table_labels_at, m)?)?;
    m.add_function(wrap_pyfunction!(table_order_partition, m)?)?;
    Ok(())
}
