//! The epoch order (docs/table-order.md, "Epochs"): for a seed text, an
//! epoch `e` and `n` rows, the table order of the seed text
//! [`epoch_seed`]`(seed, e)`, answered by position (`get`, a range, a
//! cursor from any position) **without holding `n` row numbers**.
//!
//! # How
//!
//! The label space `0..2^32` is cut into [`BUCKETS`] equal ranges (the top
//! 12 bits of a label). One pass over the labels of all `n` rows counts the
//! rows of each bucket: the position where each bucket starts is then
//! known (8 bytes a bucket: 32 KiB). The rows of a run of consecutive
//! buckets (a **window**) are found by another pass that regenerates every
//! label (ChaCha20's word position is the row number, so the rows are cut
//! into chunks labelled in parallel on rayon's threads) and keeps the rows
//! whose label falls in the window; the window is put in the table order
//! (by label, then row; rows sharing a label by
//! [`TableOrder::order_sorted`]), 8 bytes a row (16 while it is sorted).
//! A window holds whole buckets, as many as fit its budget of rows
//! ([`DEFAULT_WINDOW_ROWS`]), so memory is O(B + window) whatever `n` is.
//!
//! # The trade-off: regenerating labels or an index on disk
//!
//! Every window costs one pass over all `n` labels, so a cursor that runs
//! through an epoch makes about `n / window` passes: it streams
//! `window x (labels per second) / n` rows a second, fast while `n` is a
//! few windows and falling as `1/n` beyond. The alternative, an index
//! written in one pass (each bucket's rows and the low bits of their
//! labels, about 34 bits a row whatever B is: the entropy of a bucket's row
//! set plus the label bits it does not fix), streams at the speed of
//! reading it back but costs about 4.3 GB of disk per epoch at
//! `n = 10^9`, written before the first window can be read from it, and a
//! temporary file to clean up. This module regenerates: no disk, nothing
//! to clean, the first row after one pass (the first window is collected
//! in the pass that counts the buckets).
//!
//! Rows are numbered in `u32`s inside a window, so an epoch order has at
//! most [`MAX_ROWS`] (2^32) rows, as `order_positions` does.

use std::ops::Range;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::order::{TableOrder, epoch_seed};

/// The most rows an epoch order has: 2^32 (row numbers fit in 32 bits).
pub const MAX_ROWS: u64 = 1 << 32;

/// The label-range buckets: the top [`BUCKET_BITS`] bits of a label. 4,096
/// counters of 32 bits fill 16 KiB, so the counting pass counts in the
/// first-level cache (with 65,536, in the second, it took longer than
/// generating the labels); a bucket holds at most 2^20 rows of the largest
/// epoch order, well under a window.
pub const BUCKET_BITS: u32 = 12;

/// The number of buckets, `2^BUCKET_BITS`.
pub const BUCKETS: usize = 1 << BUCKET_BITS;

/// The rows a window holds by default: 8M rows, 64 MiB (128 MiB while it
/// is sorted).
pub const DEFAULT_WINDOW_ROWS: usize = 1 << 23;

/// Rows labelled by one task of a pass.
const CHUNK: usize = 1 << 16;

/// Labels generated at a time, then counted and filtered while they are in
/// the first-level cache.
const LABEL_BLOCK: usize = 1 << 12;

/// The epoch order of `n` rows for a seed text and an epoch.
pub struct EpochOrder {
    seed: String,
    epoch: u64,
    n: u64,
    order: TableOrder,
    window_rows: usize,
    /// `starts[b]` is the position of bucket `b`'s first row; `starts[B]`
    /// is `n`. Counted on first use.
    starts: OnceLock<Vec<u64>>,
}

/// A run of consecutive buckets in the table order: the rows at positions
/// `start .. start + len`.
pub struct Window {
    start: u64,
    /// (label << 32) | row, in the table order.
    keys: Vec<u64>,
}

impl Window {
    /// The position of the window's first row.
    pub fn start(&self) -> u64 {
        self.start
    }

    /// The position after the window's last row.
    pub fn end(&self) -> u64 {
        self.start + self.keys.len() as u64
    }

    /// Whether `position` is one of the window's.
    pub fn contains(&self, position: u64) -> bool {
        (self.start..self.end()).contains(&position)
    }

    /// The row at `position` (one of the window's).
    ///
    /// # Panics
    /// If the window does not hold `position`.
    pub fn row(&self, position: u64) -> u64 {
        assert!(self.contains(position), "position outside the window");
        u64::from(self.keys[(position - self.start) as usize] as u32)
    }

    /// Copies the rows of positions `from .. from + out.len()` (all the
    /// window's) into `out`.
    ///
    /// # Panics
    /// If the window does not hold all of them.
    pub fn rows_into(&self, from: u64, out: &mut [u64]) {
        assert!(
            from >= self.start && from + out.len() as u64 <= self.end(),
            "positions outside the window"
        );
        let at = (from - self.start) as usize;
        for (slot, &key) in out.iter_mut().zip(&self.keys[at..]) {
            *slot = u64::from(key as u32);
        }
    }
}

/// An error in the arguments of an epoch order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooManyRows(pub u64);

impl std::fmt::Display for TooManyRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "an epoch order has at most 2^32 = {MAX_ROWS} rows, not {}",
            self.0
        )
    }
}

impl std::error::Error for TooManyRows {}

impl EpochOrder {
    /// Epoch `epoch` of the seed text `seed` for `n` rows (at most
    /// [`MAX_ROWS`]). Nothing is computed yet: the first question counts
    /// the buckets (one pass over the labels).
    pub fn new(seed: &str, epoch: u64, n: u64) -> Result<EpochOrder, TooManyRows> {
        if n > MAX_ROWS {
            return Err(TooManyRows(n));
        }
        Ok(EpochOrder {
            seed: seed.to_owned(),
            epoch,
            n,
            order: TableOrder::new(&epoch_seed(seed, epoch)),
            window_rows: DEFAULT_WINDOW_ROWS,
            starts: OnceLock::new(),
        })
    }

    /// The same order with windows of at most `rows` rows (at least one
    /// bucket each, whatever `rows` is): memory for speed.
    pub fn with_window_rows(mut self, rows: usize) -> EpochOrder {
        self.window_rows = rows.max(1);
        self
    }

    /// The seed text (as given, not the epoch's).
    pub fn seed(&self) -> &str {
        &self.seed
    }

    /// The epoch.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The number of rows (and positions).
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The row at `position`: `table_order(epoch_seed(seed, epoch),
    /// n)[position]`. One pass over the labels (two the first time).
    ///
    /// # Panics
    /// If `position >= n`.
    pub fn get(&self, position: u64) -> u64 {
        assert!(position < self.n, "position {position} of {} rows", self.n);
        self.window(position, true).row(position)
    }

    /// Fills `out` with the rows at positions `from .. from + out.len()`.
    ///
    /// # Panics
    /// If the range passes `n`.
    pub fn fill(&self, from: u64, out: &mut [u64]) {
        self.cursor(from).fill(out);
    }

    /// A cursor at `position` (`n` for one at the end).
    ///
    /// # Panics
    /// If `position > n`.
    pub fn cursor(&self, position: u64) -> Cursor<'_> {
        assert!(position <= self.n, "position {position} of {} rows", self.n);
        Cursor {
            order: self,
            position,
            window: None,
        }
    }

    /// The window that holds `position`, made of the buckets from its
    /// bucket on (`forward`) or up to its bucket (else), as many as fit
    /// the window's budget. One pass over the labels (the first question
    /// also counts the buckets in that pass, see [`Self::first_window`]).
    ///
    /// # Panics
    /// If `position >= n`.
    pub fn window(&self, position: u64, forward: bool) -> Window {
        assert!(position < self.n, "position {position} of {} rows", self.n);
        if self.starts.get().is_none()
            && let Some(window) = self.first_window(position, forward)
        {
            return window;
        }
        let starts = self.starts();
        // The bucket holding `position`: the last that starts at or before
        // it (empty buckets start where the next one does).
        let bucket = starts.partition_point(|&s| s <= position) - 1;
        let budget = self.window_rows as u64;
        let size = |b: usize| starts[b + 1] - starts[b];
        let (mut lo, mut hi) = (bucket, bucket + 1);
        let mut rows = size(bucket);
        if forward {
            while hi < BUCKETS && rows + size(hi) <= budget {
                rows += size(hi);
                hi += 1;
            }
        } else {
            while lo > 0 && rows + size(lo - 1) <= budget {
                rows += size(lo - 1);
                lo -= 1;
            }
        }
        let pass = self.pass(lo..hi, false, usize::MAX);
        debug_assert_eq!(pass.keys.iter().map(Vec::len).sum::<usize>() as u64, rows);
        self.window_of(lo..hi, starts[lo], pass.keys)
    }

    /// The first question's window, found in the pass that counts the
    /// buckets: its buckets are predicted from the position (a bucket
    /// holds about `n / B` rows; the number of rows below a label is
    /// binomial, its standard deviation at most `sqrt(n) / 2`), with a
    /// margin of 8 standard deviations and two buckets. The prediction only
    /// chooses which rows to keep: the window is used only if the counts
    /// show that it holds `position`, else (`None`) a second pass makes
    /// it. The rows kept are capped at the budget plus the margins.
    fn first_window(&self, position: u64, forward: bool) -> Option<Window> {
        // Rows a bucket holds on average (at least 1 for the arithmetic),
        // and the margin in rows.
        let per_bucket = (self.n >> BUCKET_BITS).max(1);
        let margin = 4 * self.n.isqrt() + 2 * per_bucket;
        // No window holds more than the n rows.
        let budget = (self.window_rows as u64).min(self.n);
        let bucket_of = |p: u64| ((p / per_bucket) as usize).min(BUCKETS - 1);
        let width = (budget.saturating_sub(2 * margin) / per_bucket).max(1) as usize;
        let (lo, hi) = if forward {
            let lo = bucket_of(position.saturating_sub(margin));
            (lo, (lo + width).min(BUCKETS))
        } else {
            let hi = bucket_of(position + margin) + 1;
            (hi.saturating_sub(width), hi)
        };
        let cap = usize::try_from(budget + 2 * margin).unwrap_or(usize::MAX);
        let pass = self.pass(lo..hi, true, cap);
        let counts = pass.counts.expect("counted");
        let starts = self.starts.get_or_init(|| starts_of(&counts));
        if pass.overflowed || !(starts[lo]..starts[hi]).contains(&position) {
            return None;
        }
        Some(self.window_of(lo..hi, starts[lo], pass.keys))
    }

    /// The window of the buckets `buckets` from their keys (in any order).
    fn window_of(&self, buckets: Range<usize>, start: u64, parts: Vec<Vec<u64>>) -> Window {
        let lo = (buckets.start as u64) << (32 - BUCKET_BITS);
        let hi = (buckets.end as u64) << (32 - BUCKET_BITS);
        let mut keys = sort_keys(&parts, lo, hi - lo);
        drop(parts);
        self.order_runs_of_ties(&mut keys);
        Window { start, keys }
    }

    /// The positions where the buckets start (counted once).
    fn starts(&self) -> &[u64] {
        self.starts
            .get_or_init(|| starts_of(&self.pass(0..0, true, 0).counts.expect("counted")))
    }

    /// One pass over the labels of all rows, in chunks on rayon's threads:
    /// the keys of the rows in `buckets` (at most `cap` of them: past it,
    /// none, and `overflowed`), and with `count` the rows of every bucket.
    fn pass(&self, buckets: Range<usize>, count: bool, cap: usize) -> Pass {
        let lo = (buckets.start as u64) << (32 - BUCKET_BITS);
        let hi = (buckets.end as u64) << (32 - BUCKET_BITS);
        let kept = AtomicUsize::new(0);
        let chunks: Vec<Range<u64>> = (0..self.n)
            .step_by(CHUNK)
            .map(|start| start..(start + CHUNK as u64).min(self.n))
            .collect();
        let empty = || Pass {
            counts: count.then(|| vec![0u64; BUCKETS]),
            keys: Vec::new(),
            overflowed: false,
        };
        chunks
            .into_par_iter()
            .fold(
                || (vec![0u32; LABEL_BLOCK], Counter::new(count), empty()),
                |(mut labels, mut counter, mut pass), rows| {
                    let mut keys = Vec::new();
                    let mut at = rows.start;
                    while at < rows.end {
                        let len = (rows.end - at).min(LABEL_BLOCK as u64) as usize;
                        let block = &mut labels[..len];
                        self.order.labels_into(at, block);
                        counter.count(block);
                        if lo < hi {
                            for (row, &label) in (at..).zip(block.iter()) {
                                if (lo..hi).contains(&u64::from(label)) {
                                    keys.push((u64::from(label) << 32) | row);
                                }
                            }
                        }
                        at += len as u64;
                    }
                    if lo < hi {
                        let before = kept.fetch_add(keys.len(), Ordering::Relaxed);
                        if before.saturating_add(keys.len()) > cap {
                            pass.overflowed = true;
                        } else if !keys.is_empty() {
                            pass.keys.push(keys);
                        }
                    }
                    (labels, counter, pass)
                },
            )
            .map(|(_, counter, mut pass)| {
                pass.counts = counter.totals();
                pass
            })
            .reduce(&empty, |mut a, b| {
                if let (Some(x), Some(y)) = (&mut a.counts, b.counts) {
                    for (x, y) in x.iter_mut().zip(y) {
                        *x += y;
                    }
                }
                a.keys.extend(b.keys);
                a.overflowed |= b.overflowed;
                if a.overflowed {
                    a.keys = Vec::new();
                }
                a
            })
    }

    /// Puts each run of keys sharing a label in its tie order.
    fn order_runs_of_ties(&self, keys: &mut [u64]) {
        let label = |k: &u64| (k >> 32) as u32;
        let mut start = 0;
        while start < keys.len() {
            let mut end = start + 1;
            while end < keys.len() && label(&keys[end]) == label(&keys[start]) {
                end += 1;
            }
            if end - start > 1 {
                self.order
                    .order_sorted(&mut keys[start..end], label, |&k| u64::from(k as u32));
            }
            start = end;
        }
    }
}

/// Counts of the labels' buckets on one thread: in 32-bit counters (16 KiB,
/// the first-level cache), added to 64-bit totals before any could
/// overflow.
struct Counter {
    /// Counts since the last flush (none: not counting).
    recent: Option<Vec<u32>>,
    /// Labels counted since the last flush.
    since: u64,
    /// Flush when `since` is past this (no 32-bit count can overflow).
    flush_after: u64,
    totals: Vec<u64>,
}

impl Counter {
    fn new(count: bool) -> Counter {
        Counter {
            recent: count.then(|| vec![0u32; BUCKETS]),
            since: 0,
            // The next block could take a counter past u32::MAX.
            flush_after: u64::from(u32::MAX) - LABEL_BLOCK as u64,
            totals: Vec::new(),
        }
    }

    fn count(&mut self, labels: &[u32]) {
        let Some(recent) = &mut self.recent else {
            return;
        };
        for &label in labels {
            recent[(label >> (32 - BUCKET_BITS)) as usize] += 1;
        }
        self.since += labels.len() as u64;
        if self.since > self.flush_after {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if let Some(recent) = &mut self.recent {
            self.totals.resize(BUCKETS, 0);
            for (total, count) in self.totals.iter_mut().zip(recent.iter_mut()) {
                *total += u64::from(std::mem::take(count));
            }
            self.since = 0;
        }
    }

    /// The counts of every bucket (none: not counting).
    fn totals(mut self) -> Option<Vec<u64>> {
        self.recent.as_ref()?;
        self.flush();
        Some(self.totals)
    }
}

/// What one pass over the labels found.
struct Pass {
    /// The rows of each bucket, if counted.
    counts: Option<Vec<u64>>,
    /// The keys of the rows of the buckets asked for, in parts.
    keys: Vec<Vec<u64>>,
    /// Whether there were more keys than the cap (then `keys` is not
    /// complete).
    overflowed: bool,
}

/// The positions where the buckets start, from their counts (and `n`
/// last).
fn starts_of(counts: &[u64]) -> Vec<u64> {
    let mut starts = Vec::with_capacity(counts.len() + 1);
    let mut at = 0u64;
    for &count in counts {
        starts.push(at);
        at += count;
    }
    starts.push(at);
    starts
}

/// The keys of `parts` (labels in `lo .. lo + span`), sorted: a counting
/// sort on the label's high bits, about 8 keys a group, then each group
/// sorted.
fn sort_keys(parts: &[Vec<u64>], lo: u64, span: u64) -> Vec<u64> {
    let rows: usize = parts.iter().map(Vec::len).sum();
    let span_bits = 64 - (span - 1).leading_zeros();
    let group_bits = (usize::BITS - (rows / 8).max(1).leading_zeros()).min(span_bits);
    let shift = span_bits - group_bits;
    let group = |key: u64| (((key >> 32) - lo) >> shift) as usize;
    let groups = ((span - 1) >> shift) as usize + 1;
    let mut starts = vec![0usize; groups + 1];
    for part in parts {
        for &key in part {
            starts[group(key) + 1] += 1;
        }
    }
    for g in 0..groups {
        starts[g + 1] += starts[g];
    }
    let mut keys = vec![0u64; rows];
    let mut next = starts.clone();
    for part in parts {
        for &key in part {
            let g = group(key);
            keys[next[g]] = key;
            next[g] += 1;
        }
    }
    drop(next);
    // Each group sorted; the groups in up to 64 runs of consecutive groups,
    // the runs on rayon's threads.
    let runs = groups.min(64);
    let mut tasks = Vec::with_capacity(runs);
    let mut rest: &mut [u64] = &mut keys;
    let mut first = 0;
    for run in 1..=runs {
        let end = run * groups / runs;
        let (head, tail) = rest.split_at_mut(starts[end] - starts[first]);
        tasks.push((head, first..end));
        rest = tail;
        first = end;
    }
    tasks.into_par_iter().for_each(|(run, groups)| {
        let base = starts[groups.start];
        for g in groups {
            let slice = &mut run[starts[g] - base..starts[g + 1] - base];
            if slice.len() > 1 {
                slice.sort_unstable();
            }
        }
    });
    keys
}

/// A position in an epoch order that moves forward through it, one window
/// at a time.
pub struct Cursor<'a> {
    order: &'a EpochOrder,
    position: u64,
    window: Option<Window>,
}

impl Cursor<'_> {
    /// The position of the next row.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Moves to `position` (`n` for the end); the window held stays for
    /// the positions it holds.
    ///
    /// # Panics
    /// If `position > n`.
    pub fn seek(&mut self, position: u64) {
        assert!(
            position <= self.order.n,
            "position {position} of {} rows",
            self.order.n
        );
        self.position = position;
    }

    /// The rows left.
    pub fn remaining(&self) -> u64 {
        self.order.n - self.position
    }

    /// Fills `out` with the next `out.len()` rows.
    ///
    /// # Panics
    /// If fewer rows are left.
    pub fn fill(&mut self, out: &mut [u64]) {
        assert!(
            out.len() as u64 <= self.remaining(),
            "{} rows asked, {} left",
            out.len(),
            self.remaining()
        );
        let mut done = 0;
        while done < out.len() {
            let position = self.position;
            let window = self.window_here();
            let take = ((window.end() - position) as usize).min(out.len() - done);
            window.rows_into(position, &mut out[done..done + take]);
            done += take;
            self.position += take as u64;
        }
    }

    /// The window holding the current position (which is before `n`).
    fn window_here(&mut self) -> &Window {
        let position = self.position;
        if !self.window.as_ref().is_some_and(|w| w.contains(position)) {
            self.window = Some(self.order.window(position, true));
        }
        self.window.as_ref().expect("just made")
    }
}

impl Iterator for Cursor<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.position == self.order.n {
            return None;
        }
        let position = self.position;
        let row = self.window_here().row(position);
        self.position += 1;
        Some(row)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.remaining()).unwrap_or(usize::MAX);
        (left, usize::try_from(self.remaining()).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::table_order;

    fn reference(seed: &str, epoch: u64, n: u64) -> Vec<u64> {
        table_order(&epoch_seed(seed, epoch), n)
    }

    #[test]
    fn equals_the_table_order_of_the_epoch_seed() {
        for (n, epoch) in [(0u64, 0u64), (1, 0), (2, 3), (5, 1), (1000, 0), (70_000, 2)] {
            let order = EpochOrder::new("epochs", epoch, n).unwrap();
            let rows: Vec<u64> = order.cursor(0).collect();
            assert_eq!(rows, reference("epochs", epoch, n), "n = {n}");
            assert_eq!(order.len(), n);
        }
    }

    #[test]
    fn small_windows_span_buckets_and_agree() {
        let n = 300_000;
        let whole = reference("windows", 4, n);
        // Windows of about 100 rows: many buckets (4.6 rows each) a window.
        for window in [1usize, 100, 5000] {
            let order = EpochOrder::new("windows", 4, n)
                .unwrap()
                .with_window_rows(window);
            for from in [0u64, 1, 4567, 123_456, n - 3] {
                let mut out = vec![0; 2000.min((n - from) as usize)];
                order.fill(from, &mut out);
                assert_eq!(out, whole[from as usize..][..out.len()], "{window} {from}");
            }
            assert_eq!(order.get(n - 1), whole[n as usize - 1]);
            let back = order.window(200_000, false);
            assert!(back.contains(200_000) && back.end() <= 200_100 + window as u64);
            assert_eq!(back.row(200_000), whole[200_000]);
        }
    }

    #[test]
    fn ties_are_in_their_tie_order() {
        // docs/table-order.md: in table_order("friday poker", 200000), rows
        // 158816 and 108118 share a label, at positions 24036 and 24037.
        let order = EpochOrder::new("friday poker", 0, 200_000)
            .unwrap()
            .with_window_rows(10);
        let mut out = [0u64; 2];
        order.fill(24_036, &mut out);
        assert_eq!(out, [158_816, 108_118]);
    }

    #[test]
    fn counts_flushed_to_64_bits_are_the_counts() {
        let labels: Vec<u32> = (0..10_000u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let mut plain = vec![0u64; BUCKETS];
        for &label in &labels {
            plain[(label >> (32 - BUCKET_BITS)) as usize] += 1;
        }
        for flush_after in [0, 1, 999, u64::MAX] {
            let mut counter = Counter::new(true);
            counter.flush_after = flush_after;
            for block in labels.chunks(1000) {
                counter.count(block);
            }
            assert_eq!(
                counter.totals().unwrap(),
                plain,
                "flush after {flush_after}"
            );
        }
        assert_eq!(Counter::new(false).totals(), None);
    }

    #[test]
    fn too_many_rows_is_an_error() {
        assert!(EpochOrder::new("s", 0, MAX_ROWS).is_ok());
        let error = EpochOrder::new("s", 0, MAX_ROWS + 1).err().unwrap();
        assert_eq!(
            error.to_string(),
            "an epoch order has at most 2^32 = 4294967296 rows, not 4294967297"
        );
    }

    #[test]
    fn cursor_counts_down() {
        let order = EpochOrder::new("c", 0, 10).unwrap();
        let mut cursor = order.cursor(7);
        assert_eq!((cursor.position(), cursor.remaining()), (7, 3));
        assert_eq!(cursor.by_ref().count(), 3);
        assert_eq!(cursor.next(), None);
        assert_eq!(order.cursor(10).next(), None);
    }
}
