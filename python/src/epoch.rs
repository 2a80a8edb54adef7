//! The epoch order in Python (`knuffle.epoch_order`, docs/table-order.md
//! "Epochs"): `knuffle_table::EpochOrder` and the window of rows it last
//! computed, so that reading an epoch in consecutive slices makes one pass
//! over the labels per window, not per slice. The GIL is released while a
//! window is computed.

use std::sync::{Mutex, MutexGuard};

use knuffle_table::{EpochOrder, Window};
use numpy::PyArray1;
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;

use crate::generator::reserve;

/// `EpochOrder(seed, epoch, n)`: positions in, row numbers out.
#[pyclass(module = "knuffle._knuffle", name = "EpochOrder", frozen)]
pub struct PyEpochOrder {
    order: EpochOrder,
    /// The window of the last question (a few MiB to 64 MiB).
    window: Mutex<Option<Window>>,
}

impl PyEpochOrder {
    fn window(&self) -> MutexGuard<'_, Option<Window>> {
        self.window
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The rows at `start`, `start + step`, ... (`count` of them, all
    /// positions below n), into `out`; run with the GIL released.
    fn rows(&self, start: u64, step: i64, count: usize, out: &mut Vec<i64>) {
        let mut cached = self.window();
        let mut position = start;
        let mut left = count;
        while left > 0 {
            let window = match cached.take() {
                Some(w) if w.contains(position) => w,
                _ => self.order.window(position, step > 0),
            };
            if step == 1 {
                let take = ((window.end() - position) as usize).min(left);
                let at = out.len();
                out.resize(at + take, 0);
                let mut rows = vec![0u64; take];
                window.rows_into(position, &mut rows);
                for (slot, row) in out[at..].iter_mut().zip(rows) {
                    *slot = row as i64;
                }
                left -= take;
                position += take as u64;
            } else {
                while left > 0 && window.contains(position) {
                    out.push(window.row(position) as i64);
                    left -= 1;
                    if left > 0 {
                        position = position.wrapping_add_signed(step);
                    }
                }
            }
            *cached = Some(window);
        }
    }
}

#[pymethods]
impl PyEpochOrder {
    #[new]
    fn new(seed: &str, epoch: u64, n: u64) -> PyResult<Self> {
        let order = EpochOrder::new(seed, epoch, n)
            .map_err(|e| PyValueError::new_err(format!("n: {e}")))?;
        Ok(PyEpochOrder {
            order,
            window: Mutex::new(None),
        })
    }

    /// The seed text as given.
    #[getter]
    fn seed(&self) -> &str {
        self.order.seed()
    }

    /// The epoch.
    #[getter]
    fn epoch(&self) -> u64 {
        self.order.epoch()
    }

    fn __len__(&self) -> usize {
        // At most 2^32 rows: fits a 64-bit usize.
        self.order.len() as usize
    }

    /// The row at `position` (`0 <= position < n`).
    fn get(&self, py: Python<'_>, position: u64) -> PyResult<u64> {
        if position >= self.order.len() {
            return Err(PyIndexError::new_err("epoch order index out of range"));
        }
        let mut out = Vec::with_capacity(1);
        py.detach(|| self.rows(position, 1, 1, &mut out));
        Ok(out[0] as u64)
    }

    /// The rows at `start`, `start + step`, ... (`count` of them), as int64:
    /// the positions must all be below n (Python's `slice.indices` gives
    /// such a start and step).
    fn take<'py>(
        &self,
        py: Python<'py>,
        start: u64,
        step: i64,
        count: usize,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let n = i128::from(self.order.len());
        let last = i128::from(start) + i128::from(step) * (count as i128 - 1);
        if count > 0 && (step == 0 || i128::from(start) >= n || !(0..n).contains(&last)) {
            return Err(PyValueError::new_err(format!(
                "positions {start} + k * {step} for k < {count} are not all in 0..{n}"
            )));
        }
        let mut out = reserve::<i64>(count, "epoch order rows")?;
        py.detach(|| self.rows(start, step, count, &mut out));
        Ok(PyArray1::from_vec(py, out))
    }
}

/// `epoch_seed(seed, epoch)`: the seed text of an epoch's table order.
#[pyfunction]
fn epoch_seed(seed: &str, epoch: u64) -> String {
    knuffle_table::epoch_seed(seed, epoch)
}

/// Registers the epoch order on `knuffle._knuffle`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyEpochOrder>()?;
    m.add_function(wrap_pyfunction!(epoch_seed, m)?)?;
    Ok(())
}
