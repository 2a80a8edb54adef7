//! Gathering the columns of a data frame in one order: row `i` of every
//! gathered column is row `order[i]` of its source. `shuffle_frame` draws
//! `order` once (`permutation(n)`) and moves each column here with the GIL
//! released: fixed-width columns (numpy arrays of 1, 2, 4, 8 or 16-byte
//! items, any stride), the offsets and bytes of Arrow string and binary
//! columns, and Arrow validity bitmaps. The kernels are the core library's
//! `knuffle::gather` (tested there); this module checks the numpy arrays,
//! makes the new ones and picks the thread pool.

use knuffle::gather::{self, FixedColumn, GatherError, Order};
use numpy::{
    PyArray1, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray1, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::threads;

fn value_error(error: GatherError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// Runs `gather` (told whether to use the current pool) on the pool of
/// `threads` threads when `bytes` (the data moved) is worth it.
pub(crate) fn on_pool<R: Send>(
    threads: usize,
    bytes: usize,
    gather: impl FnOnce(bool) -> R + Send,
) -> PyResult<R> {
    if threads::use_pool(threads, bytes) {
        let pool = threads::pool(threads).map_err(PyRuntimeError::new_err)?;
        Ok(pool.install(|| gather(true)))
    } else {
        Ok(gather(false))
    }
}

/// `order` as indices of a source of `rows` rows, or a clear error.
pub(crate) fn checked_order<'a>(
    order: &'a PyReadonlyArray1<'_, i64>,
    rows: usize,
) -> PyResult<Order<'a>> {
    let order = order
        .as_slice()
        .map_err(|_| PyValueError::new_err("the order is not contiguous"))?;
    // SAFETY: i64 and u64 have the same layout; a negative index reads as
    // one above every row, which `Order::new` refuses.
    let indices = unsafe { std::slice::from_raw_parts(order.as_ptr().cast::<u64>(), order.len()) };
    Order::new(indices, rows).map_err(value_error)
}

/// The bytes an array spans: `[start, end)` as addresses.
#[derive(Clone, Copy)]
struct Extent {
    start: usize,
    end: usize,
}

impl Extent {
    /// The span of `len` items of `item` bytes from `at`, `stride` bytes
    /// apart (a negative stride runs backwards from `at`).
    fn of(at: *const u8, stride: isize, len: usize, item: usize) -> Extent {
        let at = at as usize;
        if len == 0 {
            return Extent { start: at, end: at };
        }
        let last = at.wrapping_add_signed(stride.wrapping_mul(len as isize - 1));
        Extent {
            start: at.min(last),
            end: at.max(last) + item,
        }
    }

    fn overlaps(&self, other: &Extent) -> bool {
        self.start < other.end && other.start < self.end
    }
}

/// A numpy array's first item and the bytes between items.
fn raw_parts(array: &Bound<'_, PyUntypedArray>) -> (*const u8, isize, i32) {
    // SAFETY: reading the fields of a live numpy array.
    unsafe {
        let fields = &(*array.as_array_ptr()).fields;
        (fields.data as *const u8, *fields.strides, fields.flags)
    }
}

/// Gathers each of `sources` (1-D numpy arrays of `len(order)` items of 1,
/// 2, 4, 8 or 16 bytes, any stride) into the matching one of `outputs`
/// (new contiguous 1-D arrays of the same item size and length):
/// `outputs[c][i] = sources[c][order[i]]`. The GIL is released.
#[pyfunction]
pub fn frame_gather_fixed(
    py: Python<'_>,
    order: PyReadonlyArray1<'_, i64>,
    sources: Vec<Bound<'_, PyUntypedArray>>,
    outputs: Vec<Bound<'_, PyUntypedArray>>,
    threads: usize,
) -> PyResult<()> {
    let n = order.len();
    let order = checked_order(&order, n)?;
    if sources.len() != outputs.len() {
        return Err(PyValueError::new_err("one output per source"));
    }
    let mut reads = vec![Extent::of(order.indices().as_ptr().cast(), 8, n, 8)];
    let mut writes = Vec::with_capacity(outputs.len());
    let mut columns = Vec::with_capacity(sources.len());
    for (src, dst) in sources.iter().zip(&outputs) {
        let item = src.dtype().itemsize();
        if src.ndim() != 1 || src.len() != n || dst.ndim() != 1 || dst.len() != n {
            return Err(PyValueError::new_err(format!(
                "every column must be 1-D with {n} rows"
            )));
        }
        if src.dtype().has_object() || dst.dtype().has_object() {
            return Err(PyValueError::new_err(
                "cannot gather Python objects (references) as bytes",
            ));
        }
        if dst.dtype().itemsize() != item {
            return Err(PyValueError::new_err(format!(
                "cannot gather items of {item} bytes into items of {} bytes",
                dst.dtype().itemsize()
            )));
        }
        let (src_ptr, stride, _) = raw_parts(src);
        let (dst_ptr, _, dst_flags) = raw_parts(dst);
        let writeable = dst_flags & numpy::npyffi::NPY_ARRAY_WRITEABLE != 0;
        if !dst.is_c_contiguous() || !writeable {
            return Err(PyValueError::new_err(
                "the outputs must be new, writeable, contiguous arrays",
            ));
        }
        reads.push(Extent::of(src_ptr, stride, n, item));
        writes.push(Extent::of(dst_ptr, item as isize, n, item));
        // SAFETY: the source spans `n` items at `stride` (a live numpy
        // array, held by the caller; as with numpy's own functions that
        // release the GIL, the caller does not write it from another thread
        // meanwhile), the destination is a writeable contiguous
        // array of `n` items, and no destination shares a byte with a
        // source, another destination or the order (checked below, before
        // the gather).
        columns.push(
            unsafe { FixedColumn::new(src_ptr, stride, item, dst_ptr.cast_mut()) }
                .map_err(value_error)?,
        );
    }
    // Threads write the outputs while others read the sources and the
    // order: no output may share a byte with any other array.
    for (k, output) in writes.iter().enumerate() {
        let clash = reads.iter().any(|read| output.overlaps(read))
            || writes[k + 1..].iter().any(|other| output.overlaps(other));
        if clash {
            return Err(PyValueError::new_err(
                "the outputs must be new, writeable, contiguous arrays",
            ));
        }
    }
    let bytes = n * columns.iter().map(FixedColumn::item).sum::<usize>();
    py.detach(|| {
        on_pool(threads, bytes, |parallel| {
            // SAFETY: the promises made for each column above.
            unsafe { gather::gather_fixed(&columns, order, parallel) }
        })
    })
}

/// Gathers an Arrow string or binary column (`offsets`: the `len + 1`
/// offsets of the array's slice, int32 or int64; `data`: its bytes) in
/// `order`: returns the new offsets (same type, from 0) and bytes. The GIL
/// is released while the rows move. The new buffers are numpy arrays
/// (numpy asks the kernel for huge pages for them, which makes their first
/// touch several times cheaper than a plain allocation's).
#[pyfunction]
pub fn frame_gather_varlen<'py>(
    py: Python<'py>,
    order: PyReadonlyArray1<'py, i64>,
    offsets: Bound<'py, PyUntypedArray>,
    data: PyReadonlyArray1<'py, u8>,
    threads: usize,
) -> PyResult<(Bound<'py, PyUntypedArray>, Bound<'py, PyArray1<u8>>)> {
    let m = offsets.len().saturating_sub(1);
    let order = checked_order(&order, m)?;
    let data = data
        .as_slice()
        .map_err(|_| PyValueError::new_err("the column's data is not contiguous"))?;
    fn go<'py, O: gather::Offset + numpy::Element>(
        py: Python<'py>,
        order: Order<'_>,
        offsets: &Bound<'py, PyUntypedArray>,
        data: &[u8],
        threads: usize,
    ) -> PyResult<(Bound<'py, PyUntypedArray>, Bound<'py, PyArray1<u8>>)> {
        let offsets = offsets.cast::<PyArray1<O>>()?.try_readonly()?;
        let offsets = offsets
            .as_slice()
            .map_err(|_| PyValueError::new_err("the column's offsets are not contiguous"))?;
        let n = order.len();
        let new_offsets = PyArray1::<O>::zeros(py, n + 1, false);
        let starts = PyArray1::<u64>::zeros(py, n, false);
        let mut ends = new_offsets.try_readwrite()?;
        let ends = &mut ends.as_slice_mut()?[1..];
        let mut starts = starts.try_readwrite()?;
        let starts = starts.as_slice_mut()?;
        let totals = py
            .detach(|| {
                on_pool(threads, n * 16, |parallel| {
                    gather::varlen_lengths(order, offsets, data.len(), ends, starts, parallel)
                })
            })?
            .map_err(value_error)?;
        let size: usize = totals.iter().sum();
        let new_data = PyArray1::<u8>::zeros(py, size, false);
        {
            let mut out = new_data.try_readwrite()?;
            let out = out.as_slice_mut()?;
            py.detach(|| {
                on_pool(threads, size + n * 16, |parallel| {
                    gather::varlen_bytes(data, ends, starts, &totals, out, parallel)
                })
            })?;
        }
        Ok((new_offsets.into_any().cast_into()?, new_data))
    }
    match offsets.dtype().itemsize() {
        4 => go::<i32>(py, order, &offsets, data, threads),
        8 => go::<i64>(py, order, &offsets, data, threads),
        _ => Err(PyValueError::new_err("offsets must be int32 or int64")),
    }
}

/// Gathers a bitmap (an Arrow validity bitmap: bit `offset + r` of `bits`,
/// least significant bit first, is row `r`) in `order`: returns the new
/// bitmap, from bit 0. The GIL is released.
#[pyfunction]
pub fn frame_gather_bits<'py>(
    py: Python<'py>,
    order: PyReadonlyArray1<'py, i64>,
    bits: PyReadonlyArray1<'py, u8>,
    offset: usize,
    len: usize,
    threads: usize,
) -> PyResult<Bound<'py, PyArray1<u8>>> {
    let order = checked_order(&order, len)?;
    let bits = bits
        .as_slice()
        .map_err(|_| PyValueError::new_err("the bitmap is not contiguous"))?;
    let n = order.len();
    let mut out = vec![0u8; n.div_ceil(8)];
    py.detach(|| {
        on_pool(threads, n, |parallel| {
            gather::gather_bits(order, bits, offset, &mut out, parallel)
        })
    })?
    .map_err(value_error)?;
    Ok(PyArray1::from_vec(py, out))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(frame_gather_fixed, m)?)?;
    m.add_function(wrap_pyfunction!(frame_gather_varlen, m)?)?;
    m.add_function(wrap_pyfunction!(frame_gather_bits, m)?)?;
    Ok(())
}
