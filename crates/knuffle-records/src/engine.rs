//! The two ways of producing output, shared by every input kind (file
//! lines, `-e` operands, `-i` numbers, reservoir samples): a permutation of
//! the items (`permute_and_write`) and independent draws with replacement
//! (`repeat_and_write`). Items are small handles (`u32`/`u64` offsets or
//! indices); a render function turns a handle into its bytes.

use std::ops::Range;

use crate::error::Error;
use crate::output::{OutputPlan, write_items};
use crate::randomness::Draws;

/// How items become bytes.
pub struct Render<'a, T> {
    /// Appends item `T`'s bytes, delimiter included, to the buffer.
    pub write: &'a (dyn Fn(T, &mut Vec<u8>) + Sync),
    /// The items' average size in bytes when known (0: unknown): it bounds
    /// the memory of the blocks being rendered.
    pub item_bytes: usize,
    /// Asks the CPU to start loading the item's bytes: rendering lines of a
    /// large input in random order waits on memory for every line, and
    /// starting the loads a few lines ahead overlaps those waits.
    pub prefetch: Option<&'a (dyn Fn(T) + Sync)>,
    /// Checks, after the last item is written and before the output is
    /// completed (a temporary file renamed over FILE), that the items'
    /// source is still whole: a mapped file that shrank meanwhile reads as
    /// zeros up to the end of its last page, without a signal.
    pub intact: Option<&'a (dyn Fn() -> Result<(), Error> + Sync)>,
}

/// How many items ahead loads are started.
const PREFETCH_DISTANCE: usize = 16;

/// Visits `items` in order, having asked `prefetch` to start loading each
/// item's bytes [`PREFETCH_DISTANCE`] items before its visit: a gather of
/// records in random order misses the caches on every record, and loads
/// started ahead overlap those misses (software prefetching along a known
/// access sequence; S. Chen, A. Ailamaki, P. Gibbons, T. Mowry, "Improving
/// Hash Join Performance through Prefetching", ICDE 2004).
pub(crate) fn try_for_each_prefetched<T: Copy, E>(
    items: &[T],
    prefetch: impl Fn(T),
    mut visit: impl FnMut(T) -> Result<(), E>,
) -> Result<(), E> {
    items
        .iter()
        .take(PREFETCH_DISTANCE)
        .for_each(|&item| prefetch(item));
    for (i, &item) in items.iter().enumerate() {
        if let Some(&ahead) = items.get(i + PREFETCH_DISTANCE) {
            prefetch(ahead);
        }
        visit(item)?;
    }
    Ok(())
}

impl<T: Copy> Render<'_, T> {
    /// Runs [`Render::intact`], if any.
    fn check_intact(&self) -> Result<(), Error> {
        self.intact.map_or(Ok(()), |intact| intact())
    }

    /// Renders `items` in order into `buffer`.
    pub fn slice(&self, items: &[T], buffer: &mut Vec<u8>) {
        match self.prefetch {
            None => items.iter().for_each(|&item| (self.write)(item, buffer)),
            Some(prefetch) => {
                let written = try_for_each_prefetched(items, prefetch, |item| {
                    (self.write)(item, buffer);
                    Ok::<(), std::convert::Infallible>(())
                });
                let Ok(()) = written;
            }
        }
    }
}

/// Puts a uniformly random selection of `h = min(head_count, items.len())`
/// of `items`, in uniformly random order, at its front, and returns `h`
/// (`notice(h)` is told first). The one choice of [`permute_and_write`] and
/// [`permute_and_write_held`], so that both make the same draws.
fn choose_front<T: Send, D: Draws>(
    items: &mut [T],
    head_count: u64,
    randomness: &mut D,
    notice: &dyn Fn(u64),
) -> Result<usize, Error> {
    let h = usize::try_from(head_count)
        .unwrap_or(usize::MAX)
        .min(items.len());
    notice(h as u64);
    randomness.shuffle_prefix(items, h)?;
    Ok(h)
}

/// Writes `header` in order, then a uniformly random selection of
/// `min(head_count, items.len())` of `items` in uniformly random order.
/// `notice(h)` is told how many items are permuted before any draw. The
/// output is opened only after the permutation is chosen.
pub fn permute_and_write<T: Copy + Send + Sync, D: Draws>(
    header: &[T],
    items: &mut [T],
    head_count: u64,
    randomness: &mut D,
    render: &Render<'_, T>,
    output: &OutputPlan<'_>,
    notice: &dyn Fn(u64),
) -> Result<(), Error> {
    let h = choose_front(items, head_count, randomness, notice)?;
    let chosen: &[T] = &items[..h];
    let mut out = output.open()?;
    let split = header.len();
    let render_range = |range: Range<usize>, buffer: &mut Vec<u8>| {
        if range.start < split {
            render.slice(&header[range.start..range.end.min(split)], buffer);
        }
        if range.end > split {
            render.slice(
                &chosen[range.start.max(split) - split..range.end - split],
                buffer,
            );
        }
    };
    write_items(split + h, &render_range, out.writer(), render.item_bytes).map_err(Error::Write)?;
    render.check_intact()?;
    out.finish()
}

/// Lines at least this long are written straight from where they are
/// held, never copied into a block (a line near the memory limit must not
/// be held twice).
pub const DIRECT_LINE: usize = 64 << 10;

/// A line as it is held: its bytes, and whether the delimiter must follow
/// them on output (a last line that lacks one).
pub type HeldLine<'l> = (&'l [u8], bool);

/// Writes lines from where they are held: short ones gathered into blocks
/// of [`BLOCK_BYTES`](crate::output::BLOCK_BYTES), long ones written as
/// they are, so that writing costs at most a block of memory whatever the
/// lines' length.
struct DirectWriter<'w> {
    writer: &'w mut dyn std::io::Write,
    block: Vec<u8>,
    delimiter: u8,
}

impl DirectWriter<'_> {
    fn line(&mut self, (bytes, add_delimiter): HeldLine<'_>) -> Result<(), Error> {
        let len = bytes.len() + usize::from(add_delimiter);
        if len >= DIRECT_LINE || self.block.len() + len > crate::output::BLOCK_BYTES {
            self.flush()?;
        }
        if len >= DIRECT_LINE {
            self.writer.write_all(bytes).map_err(Error::Write)?;
            if add_delimiter {
                self.writer
                    .write_all(&[self.delimiter])
                    .map_err(Error::Write)?;
            }
        } else {
            self.block.extend_from_slice(bytes);
            if add_delimiter {
                self.block.push(self.delimiter);
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Error> {
        if !self.block.is_empty() {
            self.writer.write_all(&self.block).map_err(Error::Write)?;
            self.block.clear();
        }
        Ok(())
    }
}

/// How held lines are written: where item `T`'s bytes are, the delimiter
/// added to a last line that lacks one, and the source's check before the
/// output is completed (see [`Render::intact`]).
pub struct Held<'a, 'l, T> {
    /// Item `T`'s bytes where they are held.
    pub line: &'a dyn Fn(T) -> HeldLine<'l>,
    /// The delimiter.
    pub delimiter: u8,
    /// As [`Render::intact`].
    pub intact: Option<&'a (dyn Fn() -> Result<(), Error> + Sync)>,
}

impl<T> Held<'_, '_, T> {
    fn check_intact(&self) -> Result<(), Error> {
        self.intact.map_or(Ok(()), |intact| intact())
    }
}

/// [`permute_and_write`] for lines written from where they are held (a
/// `-n` sample, each line in its own buffer, or lines so long that a copy
/// would not fit the memory limit): the same draws, the same bytes, with
/// at most a block of memory for the output.
#[allow(clippy::too_many_arguments)]
pub fn permute_and_write_held<T: Copy + Send, D: Draws>(
    header: &[T],
    items: &mut [T],
    head_count: u64,
    randomness: &mut D,
    held: &Held<'_, '_, T>,
    output: &OutputPlan<'_>,
    notice: &dyn Fn(u64),
) -> Result<(), Error> {
    let h = choose_front(items, head_count, randomness, notice)?;
    let mut out = output.open()?;
    let mut writer = DirectWriter {
        writer: out.writer(),
        block: Vec::new(),
        delimiter: held.delimiter,
    };
    for &item in header.iter().chain(&items[..h]) {
        writer.line((held.line)(item))?;
    }
    writer.flush()?;
    held.check_intact()?;
    out.finish()
}

/// [`repeat_and_write`] for lines written from where they are held: the
/// same draws, the same bytes (the lines drawn before a random source runs
/// out are written before the error, as GNU does).
pub fn repeat_and_write_held<T: Copy, D: Draws>(
    header: &[T],
    n: u64,
    nth: &dyn Fn(u64) -> T,
    held: &Held<'_, '_, T>,
    head_count: u64,
    randomness: &mut D,
    output: &OutputPlan<'_>,
) -> Result<(), Error> {
    if head_count > 0 && n == 0 {
        output.probe()?;
        return Err(Error::NoRecordsToRepeat);
    }
    let mut out = output.open()?;
    let mut writer = DirectWriter {
        writer: out.writer(),
        block: Vec::new(),
        delimiter: held.delimiter,
    };
    for &item in header {
        writer.line((held.line)(item))?;
    }
    let mut remaining = head_count;
    while remaining > 0 {
        let item = match randomness.choose(n) {
            Ok(j) => nth(j),
            Err(e) => {
                writer.flush()?;
                return Err(e);
            }
        };
        writer.line((held.line)(item))?;
        if head_count != u64::MAX {
            remaining -= 1;
        }
    }
    writer.flush()?;
    held.check_intact()?;
    out.finish()
}

/// Writes `items` in their order (a selection that is already random).
pub fn write_in_order<T: Copy + Sync>(
    items: &[T],
    render: &Render<'_, T>,
    output: &OutputPlan<'_>,
) -> Result<(), Error> {
    let mut out = output.open()?;
    let render_range =
        |range: Range<usize>, buffer: &mut Vec<u8>| render.slice(&items[range], buffer);
    write_items(items.len(), &render_range, out.writer(), render.item_bytes)
        .map_err(Error::Write)?;
    render.check_intact()?;
    out.finish()
}

/// Lines written per batch in repeat mode.
const REPEAT_BATCH: usize = 256 * 1024;

/// Bytes per batch in repeat mode when the lines' size is known.
const REPEAT_BATCH_BYTES: usize = 8 << 20;

/// Writes `header` in order, then `head_count` items drawn independently
/// and uniformly from `n` (`u64::MAX`: without end); `nth(j)` is item `j`.
/// GNU's order of checks: the output is opened, then nothing to do for
/// `-n 0`; "no lines to repeat" when there are none. When a random source
/// runs out, the lines drawn so far are written before the error, as GNU
/// does.
pub fn repeat_and_write<T: Copy + Sync, D: Draws>(
    header: &[T],
    n: u64,
    nth: &dyn Fn(u64) -> T,
    render: &Render<'_, T>,
    head_count: u64,
    randomness: &mut D,
    output: &OutputPlan<'_>,
) -> Result<(), Error> {
    if head_count > 0 && n == 0 {
        // GNU opens the output first: `-r -o DIR` with no lines is "DIR: Is
        // a directory", not "no lines to repeat" (FILE itself is left alone).
        output.probe()?;
        return Err(Error::NoRecordsToRepeat);
    }
    let mut out = output.open()?;
    let writer = out.writer();
    let mut buffer: Vec<u8> = Vec::new();
    render.slice(header, &mut buffer);
    writer.write_all(&buffer).map_err(Error::Write)?;
    // Lines per batch: fewer when they are long, so that a batch stays a
    // few MiB (the batch size never changes the output: draws are made in
    // order and every batch is written before the next is drawn).
    let repeat_batch = REPEAT_BATCH_BYTES
        .checked_div(render.item_bytes)
        .map_or(REPEAT_BATCH, |lines| lines.clamp(1, REPEAT_BATCH));
    let mut remaining = head_count;
    let mut draws: Vec<T> = Vec::new();
    while remaining > 0 {
        // Draw a batch (sequential: one generator), render it on all cores.
        let batch = remaining.min(repeat_batch as u64);
        draws.clear();
        let mut failure = None;
        for _ in 0..batch {
            match randomness.choose(n) {
                Ok(j) => draws.push(nth(j)),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        let render_range =
            |range: Range<usize>, buffer: &mut Vec<u8>| render.slice(&draws[range], buffer);
        write_items(draws.len(), &render_range, writer, render.item_bytes).map_err(Error::Write)?;
        if let Some(e) = failure {
            return Err(e);
        }
        if head_count != u64::MAX {
            remaining -= batch;
        }
    }
    render.check_intact()?;
    out.finish()
}

/// Starts loading the cache lines of the
/// [`LINE_WINDOW`](crate::line_index::LINE_WINDOW) bytes from `at`
/// (three lines unless `at` is 64-byte aligned: all that
/// [`append_line`](crate::line_index::append_line) reads), where supported.
#[inline]
pub fn prefetch_bytes(data: &[u8], at: usize) {
    for offset in [0, 64, crate::line_index::LINE_WINDOW - 1] {
        if let Some(byte) = data.get(at + offset) {
            knuffle::gather::prefetch(byte);
        }
    }
}

/// Writes `header`, then `body`: with `repeat`, `head_count` draws from it
/// (with replacement), otherwise a permutation of it (`head_count` of them
/// at most). `notice(h)` is told how many items are permuted.
#[allow(clippy::too_many_arguments)]
pub fn write_shuffled<T: Copy + Send + Sync, D: Draws>(
    header: &[T],
    body: &mut [T],
    render: &Render<'_, T>,
    randomness: &mut D,
    output: &OutputPlan<'_>,
    repeat: bool,
    head_count: u64,
    notice: &dyn Fn(u64),
) -> Result<(), Error> {
    if repeat {
        let body: &[T] = body;
        let nth = |j: u64| body[j as usize];
        return repeat_and_write(
            header,
            body.len() as u64,
            &nth,
            render,
            head_count,
            randomness,
            output,
        );
    }
    permute_and_write(header, body, head_count, randomness, render, output, notice)
}
