//! The table order in Python (docs/table-order.md): the reference
//! permutation `knuffle.table_order(seed, n)`, and the two steps the
//! engines (`knuffle.dask`, `knuffle.spark`, `knuffle.ray`) run on their
//! partitions: the labels of a range of global rows, and the order of the
//! rows of one contiguous range of labels.

use knuffle_table::{LABELS, TableOrder};
use numpy::{PyArray1, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;

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
    let order = TableOrder::new(seed);
    let out = py.detach(|| {
        let labels = order.labels(0, count);
        order
            .order_run(0, &labels)
            .into_iter()
            .map(|p| p as i64)
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

/// The positions that put rows with these labels and global row numbers
/// in the table order.
fn order_rows(order: &TableOrder, labels: &[i64], rows: &[i64]) -> Result<Vec<i64>, String> {
    let mut keyed: Vec<(u32, u64)> = Vec::new();
    keyed
        .try_reserve_exact(labels.len())
        .map_err(|_| format!("cannot allocate the order of {} rows", labels.len()))?;
    // Labels and rows were checked to be in range by the caller.
    keyed.extend(
        labels
            .iter()
            .zip(rows)
            .map(|(&label, &row)| (label as u32, row as u64)),
    );
    let mut by_row: Vec<(u64, i64)> = keyed.iter().map(|k| k.1).zip(0i64..).collect();
    by_row.sort_unstable();
    if let Some(pair) = by_row.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!(
            "global row {} appears twice (did the input change between the pass that \
             counted the rows and the shuffle?)",
            pair[0].0
        ));
    }
    order.order_pairs(&mut keyed);
    Ok(keyed
        .into_iter()
        .map(|(_, row)| {
            let i = by_row.partition_point(|p| p.0 < row);
            by_row[i].1
        })
        .collect())
}

/// `table_order_rows(seed, labels, rows)`: the positions (int64) that put
/// these rows (their labels and global row numbers) in the table order.
#[pyfunction]
fn table_order_rows<'py>(
    py: Python<'py>,
    seed: &str,
    labels: PyReadonlyArray1<'py, i64>,
    rows: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    if labels.len() != rows.len() {
        return Err(PyValueError::new_err(format!(
            "{} labels for {} rows",
            labels.len(),
            rows.len()
        )));
    }
    let labels = labels
        .as_slice()
        .map_err(|_| PyValueError::new_err("the labels are not a contiguous array"))?;
    let rows = rows
        .as_slice()
        .map_err(|_| PyValueError::new_err("the row numbers are not a contiguous array"))?;
    if let Some(bad) = labels.iter().find(|&&l| !(0..LABELS as i64).contains(&l)) {
        return Err(PyValueError::new_err(format!(
            "label {bad} is outside 0..2**32"
        )));
    }
    if let Some(bad) = rows.iter().find(|&&r| r < 0) {
        return Err(PyValueError::new_err(format!("negative row number {bad}")));
    }
    let order = TableOrder::new(seed);
    let out = py
        .detach(|| order_rows(&order, labels, rows))
        .map_err(PyValueError::new_err)?;
    Ok(PyArray1::from_vec(py, out))
}

/// Registers the table order's functions on `knuffle._knuffle`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(table_order, m)?)?;
    m.add_function(wrap_pyfunction!(table_labels, m)?)?;
    m.add_function(wrap_pyfunction!(table_order_rows, m)?)?;
    Ok(())
}
