//! Gathering a column of Python objects (a numpy array of object dtype:
//! pandas' `object` columns and the Python storage of its `string` dtype)
//! in one order. Each row of the result is a new reference to the object of
//! its source row, as numpy's `take` makes them.
//!
//! numpy's `take` copies a reference and increments its object's count row
//! by row, in the new order, so each row waits on two cache misses: the
//! source slot and the object's header. Here the slots are read in order with
//! the loads of the rows ahead started early (software prefetching: Chen,
//! Ailamaki, Gibbons and Mowry, ICDE 2004), and when the order is a
//! permutation (every source row taken once, as `shuffle_frame`'s is) the
//! counts are incremented walking the source in its own order, where the
//! objects usually lie in memory in the order they were made.
//!
//! The GIL is held throughout: with it released, another thread could
//! replace a source slot and free the object it held between the copy of the
//! reference and the increment.

use numpy::{
    PyArray1, PyArrayDescrMethods, PyReadonlyArray1, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;

use knuffle::gather::{PREFETCH_DISTANCE, prefetch};

use crate::frame::checked_order;

/// One 1-D numpy array of object references: its first slot and the bytes
/// between slots.
struct Slots {
    base: *const u8,
    stride: isize,
    len: usize,
}

impl Slots {
    fn of(source: &Bound<'_, PyUntypedArray>) -> PyResult<Slots> {
        let dtype = source.dtype();
        if source.ndim() != 1
            || dtype.kind() != b'O'
            || dtype.itemsize() != size_of::<*mut ffi::PyObject>()
        {
            return Err(PyValueError::new_err(
                "the source must be a 1-D array of Python objects",
            ));
        }
        // SAFETY: reading the fields of a live numpy array.
        let (base, stride) = unsafe {
            let fields = &(*source.as_array_ptr()).fields;
            (fields.data as *const u8, *fields.strides)
        };
        Ok(Slots {
            base,
            stride,
            len: source.len(),
        })
    }

    /// The address of slot `row` (below `len`).
    fn at(&self, row: usize) -> *const *mut ffi::PyObject {
        self.base.wrapping_offset(row as isize * self.stride).cast()
    }

    /// The reference in slot `row` (below `len`).
    ///
    /// # Safety
    /// `row < len`, and the array is alive and unchanged (the GIL is held).
    unsafe fn get(&self, row: usize) -> *mut ffi::PyObject {
        // SAFETY: the caller's contract; numpy aligns object slots.
        unsafe { *self.at(row) }
    }
}

/// Whether `order` (indices below `order.len()`) takes every row exactly
/// once.
fn is_permutation(order: &[u64]) -> bool {
    let mut seen = vec![0u64; order.len().div_ceil(64)];
    order.iter().all(|&row| {
        let (word, bit) = ((row / 64) as usize, 1u64 << (row % 64));
        let first = seen[word] & bit == 0;
        seen[word] |= bit;
        first
    })
}

/// Gathers `source` (a 1-D numpy array of `len(order)` Python objects, any
/// stride) in `order`: returns a new object array whose row `i` is a new
/// reference to `source[order[i]]`.
#[pyfunction]
pub fn frame_gather_objects<'py>(
    py: Python<'py>,
    order: PyReadonlyArray1<'py, i64>,
    source: Bound<'py, PyUntypedArray>,
) -> PyResult<Bound<'py, PyArray1<Py<PyAny>>>> {
    let slots = Slots::of(&source)?;
    let order = checked_order(&order, slots.len)?.indices();
    if order.len() != slots.len {
        return Err(PyValueError::new_err(format!(
            "the order has {} rows and the source {}",
            order.len(),
            slots.len
        )));
    }
    let mut gathered: Vec<*mut ffi::PyObject> = Vec::with_capacity(order.len());
    for (i, &row) in order.iter().enumerate() {
        if let Some(&ahead) = order.get(i + PREFETCH_DISTANCE) {
            prefetch(slots.at(ahead as usize).cast());
        }
        // SAFETY: `row` was checked below `len`; the GIL is held.
        gathered.push(unsafe { slots.get(row as usize) });
    }
    if gathered.iter().any(|p| p.is_null()) {
        // numpy reads an empty slot as None; a new array cannot hold one.
        return Err(PyValueError::new_err("the source has an empty slot"));
    }
    if is_permutation(order) {
        for row in 0..slots.len {
            // SAFETY: every slot holds a live object (none is null: each
            // is in `gathered`); the GIL is held.
            unsafe { ffi::Py_IncRef(slots.get(row)) };
        }
    } else {
        for &object in &gathered {
            // SAFETY: as above.
            unsafe { ffi::Py_IncRef(object) };
        }
    }
    let owned: Vec<Py<PyAny>> = gathered
        .into_iter()
        // SAFETY: each pointer is non-null and carries the reference just
        // taken for it.
        .map(|object| unsafe { Bound::from_owned_ptr(py, object) }.unbind())
        .collect();
    Ok(PyArray1::from_vec(py, owned))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(frame_gather_objects, m)?)?;
    Ok(())
}
