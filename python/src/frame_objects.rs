//! Gathering a column of Python objects (a numpy array of object dtype:
//! pandas' `object` columns and the Python storage of its `string` dtype)
//! in one order. Each row of the result is a new reference to the object of
//! its source row, as numpy's `take` makes them.
//!
//! numpy's `take` copies a reference and increments its object's count row
//! by row, in the new order, so each row waits on two cache misses: the
//! source slot and the object's header. Here the references are copied as
//! 8-byte items by the core library's fixed-width gather (prefetched, on the
//! pool), and then the counts are incremented in one pass with the objects
//! a few places ahead prefetched (software prefetching: Chen, Ailamaki,
//! Gibbons and Mowry, ICDE 2004); when the order is a permutation (every
//! source row taken once, as `shuffle_frame`'s is) that pass walks the
//! source in its own order, where the objects usually lie in memory in the
//! order they were made.
//!
//! The GIL is held throughout: with it released, another thread could
//! replace a source slot and free the object it held between the copy of the
//! reference and the increment. The pool's threads only copy pointers.

use numpy::{
    PyArray1, PyArrayDescrMethods, PyReadonlyArray1, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;

use knuffle::gather::{self, FixedColumn, PREFETCH_DISTANCE, prefetch};

use crate::frame::{checked_order, on_pool};

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
        // SAFETY: the caller's contract; a slot of a structured array may be
        // unaligned.
        unsafe { self.at(row).read_unaligned() }
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
    threads: usize,
) -> PyResult<Bound<'py, PyArray1<Py<PyAny>>>> {
    let slots = Slots::of(&source)?;
    let order = checked_order(&order, slots.len)?;
    if order.len() != slots.len {
        return Err(PyValueError::new_err(format!(
            "the order has {} rows and the source {}",
            order.len(),
            slots.len
        )));
    }
    let n = order.len();
    let mut gathered: Vec<*mut ffi::PyObject> = vec![std::ptr::null_mut(); n];
    // The references are copied as 8-byte items, on the pool when worth it:
    // the other threads only copy pointers (no count changes), and the GIL,
    // held by this thread meanwhile, keeps the source unchanged.
    // SAFETY: the source has `n` slots `stride` bytes apart (a live numpy
    // array), `gathered` is a new vector of `n` pointers, and nothing else
    // touches either until the gather returns.
    let column = unsafe {
        FixedColumn::new(
            slots.base,
            slots.stride,
            size_of::<*mut ffi::PyObject>(),
            gathered.as_mut_ptr().cast(),
        )
    }
    .map_err(|e| PyValueError::new_err(e.to_string()))?;
    on_pool(threads, n * 8, |parallel| {
        // SAFETY: as promised to `FixedColumn::new`; `order` is checked.
        unsafe { gather::gather_fixed(&[column], order, parallel) }
    })?;
    if gathered.iter().any(|p| p.is_null()) {
        // numpy reads an empty slot as None; a new array cannot hold one.
        return Err(PyValueError::new_err("the source has an empty slot"));
    }
    // The objects whose counts go up, in the order they are visited: the
    // source's own order when it is all of them once.
    let permutation = is_permutation(order.indices());
    let visit = |k: usize| {
        if permutation {
            // SAFETY: `k < len`; the GIL is held.
            unsafe { slots.get(k) }
        } else {
            gathered[k]
        }
    };
    for k in 0..n {
        if k + PREFETCH_DISTANCE < n {
            prefetch(visit(k + PREFETCH_DISTANCE).cast());
        }
        // SAFETY: every visited pointer is a live object (none is null:
        // each is in `gathered`, which is every slot when `permutation`);
        // the GIL is held.
        unsafe { ffi::Py_IncRef(visit(k)) };
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
