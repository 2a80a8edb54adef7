//! The two ways of producing output, shared by every input kind (file
//! lines, `-e` operands, `-i` numbers, reservoir samples): a permutation of
//! the items (`permute_and_write`) and independent draws with replacement
//! (`repeat_and_write`). Items are small handles (`u32`/`u64` offsets or
//! indices); a render function turns a handle into its bytes.

use std::ops::Range;

use super::errors::ShufError;
use super::output::{OutputPlan, write_items};
use super::randomness::Randomness;

/// Appends item `T`'s bytes, delimiter included, to the buffer.
pub type RenderItem<'a, T> = dyn Fn(T, &mut Vec<u8>) + Sync + 'a;

/// Writes `header` in order, then a uniformly random selection of
/// `min(head_count, items.len())` of `items` in uniformly random order.
/// `notice(h)` is told how many items are permuted before any draw. The
/// output is opened only after the permutation is chosen.
pub fn permute_and_write<T: Copy + Send + Sync>(
    header: &[T],
    items: &mut [T],
    head_count: u64,
    randomness: &mut Randomness,
    render: &RenderItem<'_, T>,
    output: &OutputPlan<'_>,
    notice: &dyn Fn(u64),
) -> Result<(), ShufError> {
    let h = usize::try_from(head_count)
        .unwrap_or(usize::MAX)
        .min(items.len());
    notice(h as u64);
    randomness.shuffle_prefix(items, h)?;
    let chosen: &[T] = &items[..h];
    let mut out = output.open()?;
    let split = header.len();
    let render_range = |range: Range<usize>, buffer: &mut Vec<u8>| {
        for i in range {
            let item = if i < split {
                header[i]
            } else {
                chosen[i - split]
            };
            render(item, buffer);
        }
    };
    write_items(split + h, &render_range, out.writer()).map_err(|e| ShufError::write(&e))?;
    out.finish()
}

/// Writes `items` in their order (a selection that is already random).
pub fn write_in_order<T: Copy + Sync>(
    items: &[T],
    render: &RenderItem<'_, T>,
    output: &OutputPlan<'_>,
) -> Result<(), ShufError> {
    let mut out = output.open()?;
    let render_range = |range: Range<usize>, buffer: &mut Vec<u8>| {
        for &item in &items[range] {
            render(item, buffer);
        }
    };
    write_items(items.len(), &render_range, out.writer()).map_err(|e| ShufError::write(&e))?;
    out.finish()
}

/// Lines written per batch in repeat mode.
const REPEAT_BATCH: usize = 8 * 1024;

/// Writes `header` in order, then `head_count` items drawn independently
/// and uniformly from `n` (`u64::MAX`: without end). `render_nth(j)` renders
/// item `j`. GNU's order of checks: nothing to do for `-n 0`; "no lines to
/// repeat" when there are none. When a random source runs out, the lines
/// drawn so far are written before the error, as GNU does.
pub fn repeat_and_write<T: Copy + Sync>(
    header: &[T],
    render: &RenderItem<'_, T>,
    n: u64,
    render_nth: &(dyn Fn(u64, &mut Vec<u8>) + Sync),
    head_count: u64,
    randomness: &mut Randomness,
    output: &OutputPlan<'_>,
) -> Result<(), ShufError> {
    if head_count > 0 && n == 0 {
        return Err(ShufError::plain("no lines to repeat"));
    }
    let mut out = output.open()?;
    let writer = out.writer();
    let mut buffer: Vec<u8> = Vec::with_capacity(1 << 20);
    for &item in header {
        render(item, &mut buffer);
    }
    let mut remaining = head_count;
    let mut draws: Vec<u64> = Vec::with_capacity(REPEAT_BATCH);
    while remaining > 0 {
        let batch = remaining.min(REPEAT_BATCH as u64);
        draws.clear();
        let mut failure = None;
        for _ in 0..batch {
            match randomness.choose(n) {
                Ok(j) => draws.push(j),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        for &j in &draws {
            render_nth(j, &mut buffer);
        }
        use std::io::Write;
        writer
            .write_all(&buffer)
            .map_err(|e| ShufError::write(&e))?;
        buffer.clear();
        if let Some(e) = failure {
            return Err(e);
        }
        if head_count != u64::MAX {
            remaining -= batch;
        }
    }
    if !buffer.is_empty() {
        use std::io::Write;
        writer
            .write_all(&buffer)
            .map_err(|e| ShufError::write(&e))?;
    }
    out.finish()
}
