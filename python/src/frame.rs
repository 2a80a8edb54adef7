//! Gathering the columns of a data frame in one order: row `i` of every
//! gathered column is row `order[i]` of its source. `shuffle_frame` draws
//! `order` once (`permutation(n)`) and moves each column here with the GIL
//! released: fixed-width columns (numpy arrays of 1, 2, 4, 8 or 16-byte
//! items, any stride), the offsets and bytes of Arrow string and binary
//! columns, and Arrow validity bitmaps. The rows are cut into pieces, and
//! the pieces of all columns run on the thread pool.
//!
//! A gather in random order waits on memory at every row; the loads of the
//! rows a few places ahead are started early (software prefetching: Chen,
//! Ailamaki, Gibbons and Mowry, "Improving hash join performance through
//! prefetching", ICDE 2004), so that several misses overlap.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use numpy::{
    PyArray1, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray1, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::threads;

/// Rows in one piece of work (a multiple of 8, so that the pieces of a
/// bitmap are whole bytes).
const PIECE_ROWS: usize = 1 << 16;

/// How many rows ahead loads are started (at 10^7 rows, 8 to 64 ahead
/// all gather about 1.5x to 2x faster than none: BENCHMARKS.md).
const PREFETCH_DISTANCE: usize = 16;

/// Asks the CPU to start loading the cache line at `at`, where supported.
#[inline(always)]
fn prefetch(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, whatever the address.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(at.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// The row pieces of `0..n`.
fn pieces(n: usize) -> impl Iterator<Item = Range<usize>> {
    (0..n)
        .step_by(PIECE_ROWS)
        .map(move |start| start..(start + PIECE_ROWS).min(n))
}

/// Runs `work` on every item, on the pool of `threads` threads when `bytes`
/// (the data moved) is worth it.
fn run<T: Send>(
    items: Vec<T>,
    bytes: usize,
    threads: usize,
    work: impl Fn(T) + Send + Sync,
) -> Result<(), String> {
    if threads::use_pool(threads, bytes) {
        threads::pool(threads)?.install(|| items.into_par_iter().for_each(work));
    } else {
        items.into_iter().for_each(work);
    }
    Ok(())
}

/// `order` as indices below `len`, or a clear error.
fn checked_order<'a>(order: &'a PyReadonlyArray1<'_, i64>, len: usize) -> PyResult<&'a [u64]> {
    let order = order
        .as_slice()
        .map_err(|_| PyValueError::new_err("the order is not contiguous"))?;
    if !order.iter().all(|&p| (p as u64) < len as u64) {
        return Err(PyValueError::new_err(format!(
            "the order has an index outside 0..{len}"
        )));
    }
    // SAFETY: i64 and u64 have the same layout; every value is non-negative.
    Ok(unsafe { std::slice::from_raw_parts(order.as_ptr().cast::<u64>(), order.len()) })
}

/// One fixed-width column: the source's items (`len` of `item` bytes,
/// `stride` bytes apart) and the destination (contiguous, one item per row
/// of the order).
#[derive(Clone, Copy)]
struct Fixed {
    src: *const u8,
    stride: isize,
    item: usize,
    dst: *mut u8,
}

// SAFETY: the arrays outlive the gather (their Python objects are held by
// the caller), the sources are only read, and each piece writes its own rows
// of a destination that nothing else reads or writes meanwhile.
unsafe impl Send for Fixed {}
unsafe impl Sync for Fixed {}

impl Fixed {
    /// Gathers the rows `rows` of the destination.
    ///
    /// # Safety
    /// Every `order` value is a row of the source, and `rows` are rows of the
    /// destination.
    unsafe fn gather(self, order: &[u64], rows: Range<usize>) {
        // SAFETY: as the caller promises.
        unsafe {
            match self.item {
                1 => self.gather_typed::<u8>(order, rows),
                2 => self.gather_typed::<u16>(order, rows),
                4 => self.gather_typed::<u32>(order, rows),
                8 => self.gather_typed::<u64>(order, rows),
                _ => self.gather_typed::<[u64; 2]>(order, rows),
            }
        }
    }

    /// # Safety
    /// As [`Fixed::gather`], and `T` is `item` bytes.
    #[inline(always)]
    unsafe fn gather_typed<T: Copy>(self, order: &[u64], rows: Range<usize>) {
        let dst = self.dst.cast::<T>();
        let at = |p: u64| self.src.wrapping_offset(p as isize * self.stride);
        for i in rows {
            if let Some(&ahead) = order.get(i + PREFETCH_DISTANCE) {
                prefetch(at(ahead));
            }
            // SAFETY: `order[i]` is a row of the source and `i` one of the
            // destination (the caller's promise); unaligned numpy arrays exist.
            unsafe {
                dst.add(i)
                    .write_unaligned(at(order[i]).cast::<T>().read_unaligned())
            };
        }
    }
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
        if !matches!(item, 1 | 2 | 4 | 8 | 16) || dst.dtype().itemsize() != item {
            return Err(PyValueError::new_err(format!(
                "cannot gather items of {item} bytes"
            )));
        }
        // SAFETY: reading the fields of live numpy arrays.
        let (src_ptr, stride, dst_ptr, dst_flags) = unsafe {
            let (s, d) = (&(*src.as_array_ptr()).fields, &(*dst.as_array_ptr()).fields);
            (
                s.data as *const u8,
                *s.strides,
                d.data.cast::<u8>(),
                d.flags,
            )
        };
        let writeable = dst_flags & numpy::npyffi::NPY_ARRAY_WRITEABLE != 0;
        if !dst.is_c_contiguous() || !writeable {
            return Err(PyValueError::new_err(
                "the outputs must be new, writeable, contiguous arrays",
            ));
        }
        columns.push(Fixed {
            src: src_ptr,
            stride,
            item,
            dst: dst_ptr,
        });
    }
    // Threads write the outputs while others read the sources and the
    // order: no output may share a byte with any other array.
    let order_bytes = Extent::of(order.as_ptr().cast(), 8, n, 8);
    let outputs: Vec<Extent> = columns
        .iter()
        .map(|c| Extent::of(c.dst, c.item as isize, n, c.item))
        .collect();
    let reads = columns
        .iter()
        .map(|c| Extent::of(c.src, c.stride, n, c.item))
        .chain([order_bytes]);
    for (k, output) in outputs.iter().enumerate() {
        let clash = reads.clone().any(|read| output.overlaps(&read))
            || outputs[k + 1..].iter().any(|other| output.overlaps(other));
        if clash {
            return Err(PyValueError::new_err(
                "the outputs must be new, writeable, contiguous arrays",
            ));
        }
    }
    let bytes = n * columns.iter().map(|c| c.item).sum::<usize>();
    let work: Vec<(Fixed, Range<usize>)> = columns
        .iter()
        .flat_map(|&c| pieces(n).map(move |rows| (c, rows)))
        .collect();
    py.detach(|| {
        run(work, bytes, threads, |(column, rows)| {
            // SAFETY: `order` was checked against the sources' length, and
            // the pieces are rows of the destinations.
            unsafe { column.gather(order, rows) }
        })
    })
    .map_err(PyRuntimeError::new_err)
}

/// The offsets of Arrow variable-length columns (`int32` for string and
/// binary, `int64` for large_string and large_binary).
trait Offset: Copy + Send + Sync + numpy::Element + TryFrom<usize> + TryInto<usize> {
    const ZERO: Self;
}
impl Offset for i32 {
    const ZERO: Self = 0;
}
impl Offset for i64 {
    const ZERO: Self = 0;
}

fn to_usize<O: Offset>(o: O) -> usize {
    o.try_into().unwrap_or(usize::MAX)
}

/// The first pass over an Arrow variable-length column (string, binary
/// and their large forms; `offsets`, `m + 1` of them, index `data` of
/// `data_len` bytes): the length of every gathered row into `lens` and
/// where its bytes start into `starts`, by pieces of rows on the pool.
/// Returns each piece's byte count, so that the second pass knows where
/// each piece's bytes go.
fn varlen_lengths<O: Offset>(
    order: &[u64],
    offsets: &[O],
    data_len: usize,
    lens: &mut [O],
    starts: &mut [u64],
    threads: usize,
) -> Result<Vec<usize>, String> {
    let n = order.len();
    let mut totals = vec![0usize; n.div_ceil(PIECE_ROWS)];
    let failed = AtomicBool::new(false);
    let work: Vec<_> = lens
        .chunks_mut(PIECE_ROWS)
        .zip(starts.chunks_mut(PIECE_ROWS))
        .zip(totals.iter_mut())
        .enumerate()
        .collect();
    run(work, n * 16, threads, |(piece, ((lens, starts), total))| {
        let order = &order[piece * PIECE_ROWS..][..lens.len()];
        let mut sum = 0usize;
        for (i, (&p, (len, start))) in order.iter().zip(lens.iter_mut().zip(starts)).enumerate() {
            if let Some(&ahead) = order.get(i + PREFETCH_DISTANCE) {
                prefetch(offsets[ahead as usize..].as_ptr().cast());
            }
            let (s, e) = (
                to_usize(offsets[p as usize]),
                to_usize(offsets[p as usize + 1]),
            );
            if s > e || e > data_len {
                failed.store(true, Ordering::Relaxed);
                return;
            }
            *start = s as u64;
            sum += e - s;
            // A row is never longer than the whole column, whose size fits `O`.
            *len = O::try_from(e - s).unwrap_or(O::ZERO);
        }
        *total = sum;
    })?;
    if failed.into_inner() {
        return Err("the column's offsets do not fit its data".to_string());
    }
    Ok(totals)
}

/// The second pass: the bytes of every gathered row (`lens`, `starts` of
/// the first pass) into `out` (the sum of `totals` bytes), and `lens`
/// turned into the rows' end offsets, by pieces of rows on the pool.
fn varlen_bytes<O: Offset>(
    data: &[u8],
    lens: &mut [O],
    starts: &[u64],
    totals: &[usize],
    out: &mut [u8],
    threads: usize,
) -> Result<(), String> {
    let mut work = Vec::with_capacity(totals.len());
    let (mut rest, mut base) = (out, 0usize);
    for ((lens, starts), &total) in lens
        .chunks_mut(PIECE_ROWS)
        .zip(starts.chunks(PIECE_ROWS))
        .zip(totals)
    {
        let (bytes, tail) = rest.split_at_mut(total);
        rest = tail;
        work.push((lens, starts, bytes, base));
        base += total;
    }
    let moved = base + starts.len() * 16;
    run(work, moved, threads, |(lens, starts, bytes, base)| {
        let mut at = 0usize;
        for (i, (len, &s)) in lens.iter_mut().zip(starts).enumerate() {
            if let Some(&ahead) = starts.get(i + PREFETCH_DISTANCE) {
                prefetch(data[ahead as usize..].as_ptr());
            }
            let (s, l) = (s as usize, to_usize(*len));
            bytes[at..at + l].copy_from_slice(&data[s..s + l]);
            at += l;
            // The end of this row, counted from the start of the column.
            *len = O::try_from(base + at).unwrap_or(O::ZERO);
        }
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
    fn go<'py, O: Offset>(
        py: Python<'py>,
        order: &[u64],
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
            .detach(|| varlen_lengths(order, offsets, data.len(), ends, starts, threads))
            .map_err(PyValueError::new_err)?;
        let size: usize = totals.iter().sum();
        if O::try_from(size).is_err() {
            return Err(PyValueError::new_err(
                "the gathered column is too large for its offsets",
            ));
        }
        let new_data = PyArray1::<u8>::zeros(py, size, false);
        {
            let mut out = new_data.try_readwrite()?;
            let out = out.as_slice_mut()?;
            py.detach(|| varlen_bytes(data, ends, starts, &totals, out, threads))
                .map_err(PyRuntimeError::new_err)?;
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
    if offset
        .checked_add(len)
        .is_none_or(|end| bits.len().saturating_mul(8) < end)
    {
        return Err(PyValueError::new_err(
            "the bitmap is shorter than the column",
        ));
    }
    let n = order.len();
    let mut out = vec![0u8; n.div_ceil(8)];
    py.detach(|| {
        let work: Vec<_> = out.chunks_mut(PIECE_ROWS / 8).enumerate().collect();
        run(work, n, threads, |(piece, bytes)| {
            let order = &order[piece * PIECE_ROWS..];
            for (b, byte) in bytes.iter_mut().enumerate() {
                *byte = order[b * 8..]
                    .iter()
                    .take(8)
                    .enumerate()
                    .fold(0u8, |acc, (k, &p)| {
                        let at = offset + p as usize;
                        acc | (((bits[at / 8] >> (at % 8)) & 1) << k)
                    });
            }
        })
    })
    .map_err(PyRuntimeError::new_err)?;
    Ok(PyArray1::from_vec(py, out))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(frame_gather_fixed, m)?)?;
    m.add_function(wrap_pyfunction!(frame_gather_varlen, m)?)?;
    m.add_function(wrap_pyfunction!(frame_gather_bits, m)?)?;
    Ok(())
}
