//! Gathering: columns put in one order, row `i` of every result being row
//! `order[i]` of its source. Data frames are shuffled this way (the Python
//! module's `shuffle_frame` draws the order once and gathers each column
//! with it): fixed-width columns of 1, 2, 4, 8 or 16-byte items at any
//! stride ([`gather_fixed`]), the offsets and bytes of variable-length
//! columns as Apache Arrow lays them out ([`varlen_lengths`], then
//! [`varlen_bytes`]), and bitmaps such as Arrow's validity
//! ([`gather_bits`]).
//!
//! The rows are cut into pieces of [`PIECE_ROWS`]; with `parallel` (feature
//! `parallel`) the pieces of every column run on rayon's current pool, so
//! the caller picks the pool (`pool.install`) and whether the work is worth
//! it. A gather in random order waits on memory at every row; the loads of
//! the rows a few places ahead are started early (software prefetching:
//! Chen, Ailamaki, Gibbons and Mowry, "Improving hash join performance
//! through prefetching", ICDE 2004), so that several misses overlap.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;
use core::sync::atomic::{AtomicBool, Ordering};

/// Rows in one piece of work (a multiple of 8, so that the pieces of a
/// bitmap are whole bytes).
pub const PIECE_ROWS: usize = 1 << 16;

/// How many rows ahead loads are started (at 10^7 rows, 8 to 64 ahead all
/// gather about 1.5x to 2x faster than none, measured by the Python
/// benchmarks of `shuffle_frame`).
pub const PREFETCH_DISTANCE: usize = 16;

/// Why a gather cannot run; nothing was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GatherError {
    /// An index of the order is not a row of the source.
    OutsideSource {
        /// The source's rows.
        rows: usize,
    },
    /// A variable-length column's offsets go backwards or past its data.
    BadOffsets,
    /// A bitmap holds fewer bits than its rows.
    ShortBitmap,
    /// An item size other than 1, 2, 4, 8 or 16 bytes.
    ItemSize(usize),
    /// The gathered bytes of a variable-length column (an order may
    /// repeat rows) do not fit its offsets' type.
    TooLarge,
}

impl fmt::Display for GatherError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GatherError::OutsideSource { rows } => {
                write!(f, "the order has an index outside 0..{rows}")
            }
            GatherError::BadOffsets => f.write_str("the column's offsets do not fit its data"),
            GatherError::ShortBitmap => f.write_str("the bitmap is shorter than the column"),
            GatherError::ItemSize(item) => write!(f, "cannot gather items of {item} bytes"),
            GatherError::TooLarge => {
                f.write_str("the gathered column is too large for its offsets")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for GatherError {}

/// An order whose every index is a row of a source of `rows` rows: checked
/// once, then used by every column.
#[derive(Clone, Copy, Debug)]
pub struct Order<'a> {
    indices: &'a [u64],
    rows: usize,
}

impl<'a> Order<'a> {
    /// `indices` checked against a source of `rows` rows.
    pub fn new(indices: &'a [u64], rows: usize) -> Result<Order<'a>, GatherError> {
        if indices.iter().all(|&p| p < rows as u64) {
            Ok(Order { indices, rows })
        } else {
            Err(GatherError::OutsideSource { rows })
        }
    }

    /// The indices.
    pub fn indices(&self) -> &'a [u64] {
        self.indices
    }

    /// The rows of the sources it indexes.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The rows of a gathered column.
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Whether nothing is gathered.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }
}

/// Asks the CPU to start loading the cache line at `at` (for reading),
/// where supported. A hint only: it never faults, whatever the address, so
/// it is safe to call with any pointer.
#[inline(always)]
pub fn prefetch(at: *const u8) {
    crate::prefetch::prefetch_read(at);
}

/// The row pieces of `0..n`.
fn pieces(n: usize) -> impl Iterator<Item = Range<usize>> {
    (0..n)
        .step_by(PIECE_ROWS)
        .map(move |start| start..(start + PIECE_ROWS).min(n))
}

/// Runs `work` on every item: on rayon's current pool with `parallel`.
fn run<T: Send>(items: Vec<T>, parallel: bool, work: impl Fn(T) + Send + Sync) {
    #[cfg(feature = "parallel")]
    if parallel {
        use rayon::prelude::*;
        items.into_par_iter().for_each(work);
        return;
    }
    let _ = parallel;
    items.into_iter().for_each(work);
}

/// One fixed-width column: the source's items (`item` bytes, `stride` bytes
/// apart, any sign) and the destination (contiguous, one item per row of the
/// order).
#[derive(Clone, Copy, Debug)]
pub struct FixedColumn {
    src: *const u8,
    stride: isize,
    item: usize,
    dst: *mut u8,
}

// SAFETY: a `FixedColumn` is made only through `FixedColumn::new`, whose
// caller promises that the source is only read and that nothing else reads
// or writes the destination during a gather; each piece writes its own rows.
unsafe impl Send for FixedColumn {}
// SAFETY: as for `Send`.
unsafe impl Sync for FixedColumn {}

impl FixedColumn {
    /// A column of `item`-byte items (1, 2, 4, 8 or 16) at `src`, `stride`
    /// bytes apart, to be gathered into the contiguous items at `dst`.
    ///
    /// # Safety
    /// For the order this column is gathered with: `src + r * stride` is
    /// readable for `item` bytes for every row `r` below `order.rows()`,
    /// `dst` is writable for `order.len() * item` bytes, and until the gather
    /// returns nothing else writes the source or reads or writes the
    /// destination, and the destination overlaps no source, no other
    /// destination and the order. No alignment is needed.
    pub unsafe fn new(
        src: *const u8,
        stride: isize,
        item: usize,
        dst: *mut u8,
    ) -> Result<FixedColumn, GatherError> {
        if !matches!(item, 1 | 2 | 4 | 8 | 16) {
            return Err(GatherError::ItemSize(item));
        }
        Ok(FixedColumn {
            src,
            stride,
            item,
            dst,
        })
    }

    /// The item size in bytes.
    pub fn item(&self) -> usize {
        self.item
    }

    /// Gathers the destination rows `rows`.
    ///
    /// # Safety
    /// Every value of `order` is a row of the source, `rows` are rows of
    /// the destination, and the promises of [`FixedColumn::new`] hold.
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
    /// As [`FixedColumn::gather`], and `T` is `item` bytes.
    #[inline(always)]
    unsafe fn gather_typed<T: Copy>(self, order: &[u64], rows: Range<usize>) {
        let dst = self.dst.cast::<T>();
        let at = |p: u64| self.src.wrapping_offset(p as isize * self.stride);
        for i in rows {
            if let Some(&ahead) = order.get(i + PREFETCH_DISTANCE) {
                prefetch(at(ahead));
            }
            // SAFETY: `order[i]` is a row of the source and `i` one of the
            // destination (the caller's promise); items may be unaligned.
            unsafe {
                dst.add(i)
                    .write_unaligned(at(order[i]).cast::<T>().read_unaligned())
            };
        }
    }
}

/// Gathers every column in `order`: row `i` of each destination becomes
/// row `order[i]` of its source.
///
/// # Safety
/// Each column was made by [`FixedColumn::new`] for sources of
/// `order.rows()` rows and destinations of `order.len()` items, and its
/// promises hold until this returns.
pub unsafe fn gather_fixed(columns: &[FixedColumn], order: Order<'_>, parallel: bool) {
    let n = order.len();
    let work: Vec<(FixedColumn, Range<usize>)> = columns
        .iter()
        .flat_map(|&c| pieces(n).map(move |rows| (c, rows)))
        .collect();
    run(work, parallel, |(column, rows)| {
        // SAFETY: `order` is checked against the sources' rows, the pieces
        // are rows of the destinations, and the caller keeps `new`'s
        // promises.
        unsafe { column.gather(order.indices, rows) }
    });
}

/// The offsets of a variable-length column: `i32` (Arrow's string and
/// binary) or `i64` (large_string and large_binary).
pub trait Offset: Copy + Send + Sync + TryFrom<usize> + TryInto<usize> {
    /// Zero.
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

/// The first pass of a variable-length gather. The source's row `r` is the
/// bytes `offsets[r]..offsets[r + 1]` of its data (`data_len` bytes;
/// `offsets` holds `order.rows() + 1` values). Writes the length of every
/// gathered row into `lens` and where its bytes start into `starts` (both
/// `order.len()` long), and returns the bytes of each piece of
/// [`PIECE_ROWS`] rows, for [`varlen_bytes`].
pub fn varlen_lengths<O: Offset>(
    order: Order<'_>,
    offsets: &[O],
    data_len: usize,
    lens: &mut [O],
    starts: &mut [u64],
    parallel: bool,
) -> Result<Vec<usize>, GatherError> {
    let n = order.len();
    assert!(offsets.len() > order.rows() && lens.len() == n && starts.len() == n);
    let mut totals = vec![0usize; n.div_ceil(PIECE_ROWS)];
    let failed = AtomicBool::new(false);
    let work: Vec<_> = lens
        .chunks_mut(PIECE_ROWS)
        .zip(starts.chunks_mut(PIECE_ROWS))
        .zip(totals.iter_mut())
        .enumerate()
        .collect();
    run(work, parallel, |(piece, ((lens, starts), total))| {
        let order = &order.indices[piece * PIECE_ROWS..][..lens.len()];
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
    });
    if failed.into_inner() {
        return Err(GatherError::BadOffsets);
    }
    let size = totals.iter().try_fold(0usize, |sum, &t| sum.checked_add(t));
    if size.is_none_or(|size| O::try_from(size).is_err()) {
        return Err(GatherError::TooLarge);
    }
    Ok(totals)
}

/// The second pass: the bytes of every gathered row (`lens` and `starts`
/// from [`varlen_lengths`]) into `out` (the sum of `totals` bytes), and
/// `lens` turned into the rows' end offsets (from 0; the gathered offsets
/// are a 0 followed by them).
pub fn varlen_bytes<O: Offset>(
    data: &[u8],
    lens: &mut [O],
    starts: &[u64],
    totals: &[usize],
    out: &mut [u8],
    parallel: bool,
) {
    assert_eq!(out.len(), totals.iter().sum::<usize>());
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
    run(work, parallel, |(lens, starts, bytes, base)| {
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
    });
}

/// Gathers a bitmap (bit `offset + r` of `bits`, least significant bit
/// first, is row `r` of the source, as in Arrow's validity bitmaps) into
/// `out` (`order.len()` bits from bit 0; its last byte's spare bits are 0).
pub fn gather_bits(
    order: Order<'_>,
    bits: &[u8],
    offset: usize,
    out: &mut [u8],
    parallel: bool,
) -> Result<(), GatherError> {
    if offset
        .checked_add(order.rows())
        .is_none_or(|end| bits.len().saturating_mul(8) < end)
    {
        return Err(GatherError::ShortBitmap);
    }
    assert_eq!(out.len(), order.len().div_ceil(8));
    let work: Vec<_> = out.chunks_mut(PIECE_ROWS / 8).enumerate().collect();
    run(work, parallel, |(piece, bytes)| {
        let order = &order.indices[piece * PIECE_ROWS..];
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
    });
    Ok(())
}

#[cfg(test)]
mod tests;
