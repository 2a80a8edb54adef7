//! The table order: the one order of `knuffle table`, `knuffle.dask`,
//! `knuffle.spark` and `knuffle.ray` (docs/table-order.md is its
//! specification, with the proof and test vectors).
//!
//! The algorithm is the external shuffle's (Sandelius 1962, Rao 1961: label
//! every row with an iid uniform bucket, move rows to their buckets, shuffle
//! each bucket), with two choices that make the result depend on the seed
//! and the row sequence only:
//!
//! * **Labels are random-access by global row number.** Row `i` (counted
//!   from 0 over all inputs, in order) gets the label `word_i`, the `i`-th
//!   32-bit word of the ChaCha20 stream keyed by SHA-256 of
//!   `"knuffle table-order/v1 labels\n" + seed`. Any row's label can be
//!   computed without those before it, so every partition of a distributed
//!   table labels its own rows.
//! * **Equal labels are ordered by their own generator.** Rows are ordered
//!   by label; the rows sharing label `b` (in ascending row order) are
//!   permuted by [`crate::shuffle`] of their `u64` row numbers with the
//!   generator keyed by SHA-256 of
//!   `"knuffle table-order/v1 bucket " + b + "\n" + seed`.
//!
//! Any contiguous range of labels can therefore be ordered on its own (a
//! bucket file, a Spark partition), and the concatenation in label order
//! is the same whatever the ranges were.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use crate::Seed;

/// The version text that starts every derived seed of the table order.
pub const VERSION: &str = "knuffle table-order/v1";

/// The number of distinct labels: every 32-bit word is one.
pub const LABELS: u64 = 1 << 32;

/// The table order of one seed text: row labels and the order of the rows
/// that share a label.
#[derive(Clone)]
pub struct TableOrder {
    seed: String,
    labels: Seed,
}

impl TableOrder {
    /// The order of the seed text `seed` (any text, as `--seed`).
    pub fn new(seed: &str) -> TableOrder {
        TableOrder {
            seed: seed.to_string(),
            labels: Seed::from_text(&format!("{VERSION} labels\n{seed}")),
        }
    }

    /// The seed text.
    pub fn seed(&self) -> &str {
        &self.seed
    }

    /// The key of the label stream (step 1 of the definition): SHA-256 of
    /// `"knuffle table-order/v1 labels\n" + seed`, for an engine that
    /// computes labels in its own code (Spark's JVM component).
    pub fn label_key(&self) -> &[u8; 32] {
        self.labels.key()
    }

    /// Fills `out` with the labels of rows `start .. start + out.len()`.
    ///
    /// # Panics
    /// If a row number would pass 2^64 - 1.
    pub fn labels_into(&self, start: u64, out: &mut [u32]) {
        assert!(
            start.checked_add(out.len() as u64).is_some(),
            "row numbers past 2^64 - 1 have no label"
        );
        // Word position = row number: the stream is read from row `start`
        // on without generating the words of the rows before it, many
        // blocks side by side.
        crate::keystream::chacha20_words(self.labels.key(), u128::from(start), out);
    }

    /// The labels of rows `start .. start + count`.
    pub fn labels(&self, start: u64, count: usize) -> Vec<u32> {
        let mut out = vec![0; count];
        self.labels_into(start, &mut out);
        out
    }

    /// Permutes `rows`, the row numbers (ascending) of the rows whose label
    /// is `label`, into their order.
    pub fn order_ties(&self, label: u32, rows: &mut [u64]) {
        debug_assert!(rows.windows(2).all(|w| w[0] < w[1]));
        if rows.len() > 1 {
            let seed = Seed::from_text(&format!("{VERSION} bucket {label}\n{}", self.seed));
            crate::shuffle(rows, &mut seed.rng());
        }
    }

    /// Puts `rows`, pairs of (label, row number) with distinct row numbers,
    /// in the table order: by label, equal labels by [`Self::order_ties`].
    pub fn order_pairs(&self, rows: &mut [(u32, u64)]) {
        rows.sort_unstable();
        self.order_sorted(rows, |r| r.0, |r| r.1);
    }

    /// Puts `items`, already sorted by (label, row) with distinct rows, in
    /// the table order: each run of equal labels is permuted as
    /// [`Self::order_ties`] permutes its rows (`label` and `row` read an
    /// item's; an item carries whatever else goes with its row).
    pub fn order_sorted<T: Copy>(
        &self,
        items: &mut [T],
        label: impl Fn(&T) -> u32,
        row: impl Fn(&T) -> u64,
    ) {
        let mut ties = Vec::new();
        let mut start = 0;
        while start < items.len() {
            let end = run_end(items, start, &label);
            let run_label = label(&items[start]);
            if end - start > 1 {
                let run = &mut items[start..end];
                ties.clear();
                ties.extend(run.iter().map(&row));
                self.order_ties(run_label, &mut ties);
                // The run is in ascending row order: each row of the tie
                // order finds its item by a binary search.
                let ascending: Vec<T> = run.to_vec();
                for (slot, tied) in run.iter_mut().zip(&ties) {
                    let at = ascending.partition_point(|item| row(item) < *tied);
                    *slot = ascending[at];
                }
            }
            start = end;
        }
    }

    /// The positions `0..labels.len()` of rows with these labels, in the
    /// table order (`row_of(p)` is the row number at position `p`; it is
    /// called only for rows that share a label).
    ///
    /// A counting sort on the top 16 bits of the labels, then each of the
    /// 2^16 groups sorted by (label, position): O(n) for uniform labels, 8
    /// bytes a row. The rows need not ascend with their positions: each run
    /// of equal labels (rare: about n^2 / 2^33 pairs of rows) is put in row
    /// order before its tie order is applied.
    ///
    /// # Panics
    /// With 2^32 positions or more, or a row number given twice
    /// ([`Self::try_order_positions`] reports that instead).
    pub fn order_positions(&self, labels: &[u32], row_of: impl Fn(usize) -> u64) -> Vec<u32> {
        self.try_order_positions(labels, row_of)
            .unwrap_or_else(|RepeatedRow(row)| panic!("row {row} is given twice"))
    }

    /// [`Self::order_positions`], or the first row number found twice (two
    /// positions with one row number have one label, so they meet in one
    /// run).
    ///
    /// # Panics
    /// With 2^32 positions or more.
    pub fn try_order_positions(
        &self,
        labels: &[u32],
        row_of: impl Fn(usize) -> u64,
    ) -> Result<Vec<u32>, RepeatedRow> {
        let n = labels.len();
        assert!(
            u32::try_from(n).is_ok(),
            "at most 2^32 - 1 rows are ordered at once"
        );
        // A key is (label, position).
        let label_of = |k: &u64| (k >> 32) as u32;
        let mut keys = sorted_by_label(
            labels
                .iter()
                .enumerate()
                .map(|(position, &label)| (u64::from(label) << 32) | position as u64),
            n,
            label_of,
        );
        // A run of equal labels goes to (label, row) order, then to its tie
        // order.
        let row_at = |k: u64| row_of(k as u32 as usize);
        let mut start = 0;
        while start < n {
            let end = run_end(&keys, start, label_of);
            if end - start > 1 {
                let run = &mut keys[start..end];
                run.sort_unstable_by_key(|&k| row_at(k));
                if let Some(pair) = run.windows(2).find(|w| row_at(w[0]) == row_at(w[1])) {
                    return Err(RepeatedRow(row_at(pair[0])));
                }
                self.order_sorted(run, label_of, |&k| row_at(k));
            }
            start = end;
        }
        Ok(keys.into_iter().map(|k| k as u32).collect())
    }

    /// The rows of `0..n` that share their label with another row, each
    /// with its place in the tie order of its run (0 first), ascending by
    /// row: with these, sorting the rows by (label, place) gives the table
    /// order, for rows given in any order (about `n^2 / 2^32` rows have a
    /// place: 23,000 of 10^7).
    ///
    /// The steps of [`TieSearch`], one after the other; memory: about
    /// `7 * slice_rows` bytes, then 16 bytes per tied row.
    pub fn tied_rows(&self, n: u64, slice_rows: u64) -> Vec<(u64, u32)> {
        let search = self.tie_search(n, slice_rows);
        let mut shared = Vec::new();
        for slice in 0..search.slices() {
            // Ascending: each range's shared labels, the ranges in order.
            shared.extend(search.shared_labels(slice));
        }
        let shared = SharedLabels::new(shared);
        let pairs = search.rows_of(&shared, 0..n);
        let mut tied = search.places(pairs);
        tied.sort_unstable();
        tied
    }

    /// The search for the tied rows of `0..n` in steps that may run side by
    /// side, label ranges of about `slice_rows` rows each.
    pub fn tie_search(&self, n: u64, slice_rows: u64) -> TieSearch<'_> {
        TieSearch {
            order: self,
            n,
            slice_rows: slice_rows.clamp(1, n.max(1)),
            slices: n.div_ceil(slice_rows.max(1)).clamp(1, LABELS),
        }
    }

    /// Calls `visit(first_row, labels)` for the rows `rows` in order, a
    /// chunk of labels at a time.
    fn for_each_chunk(&self, rows: core::ops::Range<u64>, mut visit: impl FnMut(u64, &[u32])) {
        const CHUNK: u64 = 1 << 16;
        let mut chunk = vec![0u32; CHUNK.min(rows.end.saturating_sub(rows.start)) as usize];
        let mut start = rows.start;
        while start < rows.end {
            let len = CHUNK.min(rows.end - start) as usize;
            self.labels_into(start, &mut chunk[..len]);
            visit(start, &chunk[..len]);
            start += len as u64;
        }
    }
}

/// The tied rows of `0..n` ([`TableOrder::tied_rows`]) in steps, each a
/// function of its inputs alone, so that a caller with threads can run the
/// label ranges, then row ranges, then runs of ties side by side:
///
/// 1. [`Self::shared_labels`] for each of [`Self::slices`] label ranges:
///    one pass over the label stream keeps the range's labels (4 bytes
///    each, about `slice_rows` of them) and finds those held twice;
/// 2. [`Self::rows_of`] for any cut of `0..n` into row ranges: the rows
///    whose label is shared (a bitmap filter, then a binary search);
/// 3. [`Self::places`] for any cut of those (label, row) pairs that keeps
///    each label's rows together: each row's place in its run.
pub struct TieSearch<'a> {
    order: &'a TableOrder,
    n: u64,
    slice_rows: u64,
    slices: u64,
}

impl TieSearch<'_> {
    /// The number of label ranges.
    pub fn slices(&self) -> u64 {
        self.slices
    }

    /// The labels of range `slice` (below [`Self::slices`]) that rows of
    /// `0..n` share, ascending.
    pub fn shared_labels(&self, slice: u64) -> Vec<u32> {
        // Labels `lo..hi` (the last `hi` is 2^32).
        let bound = |s: u64| ((u128::from(s) << 32) / u128::from(self.slices)) as u64;
        let (lo, hi) = (bound(slice), bound(slice + 1));
        // A range holds `n / slices <= slice_rows` labels on average, give
        // or take a few standard deviations (sqrt(slice_rows)): an eighth
        // more room is rarely outgrown, and then the vector grows.
        let room = self.slice_rows.saturating_add(self.slice_rows / 8);
        let mut in_range: Vec<u32> = Vec::with_capacity(usize::try_from(room).unwrap_or(0));
        let mut kept = 0;
        self.order.for_each_chunk(0..self.n, |_, labels| {
            // Every label is written, the count moves only for those in the
            // range: no branch to mispredict on a uniform label.
            if in_range.len() < kept + labels.len() {
                in_range.resize(kept + labels.len(), 0);
            }
            for &label in labels {
                in_range[kept] = label;
                kept += usize::from((lo..hi).contains(&u64::from(label)));
            }
        });
        in_range.truncate(kept);
        shared_labels(&in_range)
    }

    /// The rows of `rows` (within `0..n`) whose label is in `shared`, with
    /// their labels.
    pub fn rows_of(&self, shared: &SharedLabels, rows: core::ops::Range<u64>) -> Vec<(u32, u64)> {
        let mut pairs = Vec::new();
        if shared.labels.is_empty() {
            return pairs;
        }
        let end = rows.end.min(self.n);
        self.order
            .for_each_chunk(rows.start.min(end)..end, |first, labels| {
                for (&label, row) in labels.iter().zip(first..) {
                    if shared.filter.may_hold(label) && shared.labels.binary_search(&label).is_ok()
                    {
                        pairs.push((label, row));
                    }
                }
            });
        pairs
    }

    /// Each tied row of `pairs` (label, row), with its place in its run's
    /// tie order; `pairs` must hold every row of each label it holds. In no
    /// particular order.
    pub fn places(&self, mut pairs: Vec<(u32, u64)>) -> Vec<(u64, u32)> {
        pairs.sort_unstable();
        let mut tied = Vec::with_capacity(pairs.len());
        let mut at = 0;
        while at < pairs.len() {
            let end = run_end(&pairs, at, |p| p.0);
            let mut rows: Vec<u64> = pairs[at..end].iter().map(|p| p.1).collect();
            self.order.order_ties(pairs[at].0, &mut rows);
            tied.extend(rows.into_iter().zip(0u32..));
            at = end;
        }
        tied
    }
}

/// The shared labels of every range, ascending, and a bitmap filter that
/// answers "not shared" for almost every other label.
pub struct SharedLabels {
    labels: Vec<u32>,
    filter: LabelFilter,
}

impl SharedLabels {
    /// `labels`: ascending, without repeats ([`TieSearch::shared_labels`] of
    /// each range, the ranges in order).
    pub fn new(labels: Vec<u32>) -> SharedLabels {
        debug_assert!(labels.windows(2).all(|w| w[0] < w[1]));
        SharedLabels {
            filter: LabelFilter::new(&labels),
            labels,
        }
    }
}

/// The labels that occur more than once in `labels`, in ascending order.
///
/// The labels are grouped by their top 16 bits (a counting sort's scatter
/// that keeps only the low 16 bits, Knuth, TAOCP vol. 3, 5.2, Algorithm D);
/// in each group, a label whose low 16 bits are already marked in a
/// 2^16-bit bitmap (8 KiB, in the first-level cache) was seen before. O(n),
/// with 2 bytes per label besides `labels`.
fn shared_labels(labels: &[u32]) -> Vec<u32> {
    const GROUPS: usize = 1 << 16;
    let group = |label: u32| (label >> 16) as usize;
    let mut starts = vec![0usize; GROUPS + 1];
    for &label in labels {
        starts[group(label) + 1] += 1;
    }
    for g in 0..GROUPS {
        starts[g + 1] += starts[g];
    }
    let mut low = vec![0u16; labels.len()];
    let mut next = starts.clone();
    for &label in labels {
        let at = &mut next[group(label)];
        low[*at] = label as u16;
        *at += 1;
    }
    let mut seen = vec![0u64; (1 << 16) / 64];
    let mut shared = Vec::new();
    for g in 0..GROUPS {
        let members = &low[starts[g]..starts[g + 1]];
        for &bits in members {
            let (word, bit) = (usize::from(bits >> 6), 1u64 << (bits & 63));
            if seen[word] & bit != 0 {
                shared.push((g as u32) << 16 | u32::from(bits));
            }
            seen[word] |= bit;
        }
        for &bits in members {
            seen[usize::from(bits >> 6)] = 0;
        }
    }
    // A label held three times or more is found more than once.
    shared.sort_unstable();
    shared.dedup();
    shared
}

/// The `len` items of `items` in ascending order, where an item's order
/// begins with its label (`label(item)`): a counting sort on the labels'
/// top 16 bits, then each of the 2^16 groups sorted (O(n) for uniform
/// labels; `items` is iterated twice).
fn sorted_by_label<T: Copy + Ord + Default>(
    items: impl Iterator<Item = T> + Clone,
    len: usize,
    label: impl Fn(&T) -> u32,
) -> Vec<T> {
    const TOP: u32 = 16;
    let group = |item: &T| (label(item) >> (32 - TOP)) as usize;
    let mut starts = vec![0usize; (1 << TOP) + 1];
    for item in items.clone() {
        starts[group(&item) + 1] += 1;
    }
    for g in 0..1 << TOP {
        starts[g + 1] += starts[g];
    }
    let mut next = starts.clone();
    let mut sorted = vec![T::default(); len];
    for item in items {
        let slot = &mut next[group(&item)];
        sorted[*slot] = item;
        *slot += 1;
    }
    for g in 0..1 << TOP {
        sorted[starts[g]..starts[g + 1]].sort_unstable();
    }
    sorted
}

/// A bitmap of hashed labels, about 16 bits per label it holds: a label
/// not in the set passes it with probability about 1/16.
struct LabelFilter {
    bits: Vec<u64>,
    shift: u32,
}

impl LabelFilter {
    fn new(labels: &[u32]) -> LabelFilter {
        let size = (labels.len() * 16).next_power_of_two().max(1 << 16);
        let mut filter = LabelFilter {
            bits: vec![0; size / 64],
            shift: 64 - size.trailing_zeros(),
        };
        for &label in labels {
            let bit = filter.bit(label);
            filter.bits[bit / 64] |= 1 << (bit % 64);
        }
        filter
    }

    /// Fibonacci hashing (Knuth, TAOCP vol. 3, 6.4): the top bits of the
    /// label times 2^64 / phi.
    fn bit(&self, label: u32) -> usize {
        (u64::from(label).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn may_hold(&self, label: u32) -> bool {
        let bit = self.bit(label);
        self.bits[bit / 64] & (1 << (bit % 64)) != 0
    }
}

/// A row number given for two positions ([`TableOrder::try_order_positions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RepeatedRow(pub u64);

/// The end of the run of items that share `items[start]`'s label (items
/// sorted by label; runs are short, so a scan beats a binary search).
fn run_end<T>(items: &[T], start: usize, label: impl Fn(&T) -> u32) -> usize {
    let run_label = label(&items[start]);
    let mut end = start + 1;
    while end < items.len() && label(&items[end]) == run_label {
        end += 1;
    }
    end
}

/// The seed text of epoch `epoch` of the epoch order for the seed text
/// `seed` (docs/table-order.md, "Epochs"): epoch 0 is `seed` itself, so
/// that epoch 0 is the order of `knuffle table --seed SEED`; epoch `e >= 1`
/// is `"knuffle epoch {e}: {seed}"`.
pub fn epoch_seed(seed: &str, epoch: u64) -> String {
    if epoch == 0 {
        seed.to_string()
    } else {
        format!("knuffle epoch {epoch}: {seed}")
    }
}

/// The reference function of the table order: the permutation of `0..n`
/// that the table order gives `n` rows for `seed` (element `k` is the row
/// number that goes to position `k`).
pub fn table_order(seed: &str, n: u64) -> Vec<u64> {
    let order = TableOrder::new(seed);
    let count = usize::try_from(n).expect("n rows fit in memory");
    let mut pairs: Vec<(u32, u64)> = order.labels(0, count).into_iter().zip(0..).collect();
    order.order_pairs(&mut pairs);
    pairs.into_iter().map(|(_, row)| row).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_seeds() {
        assert_eq!(epoch_seed("friday", 0), "friday");
        assert_eq!(epoch_seed("friday", 1), "knuffle epoch 1: friday");
        assert_eq!(
            epoch_seed("", 18446744073709551615),
            "knuffle epoch 18446744073709551615: "
        );
    }

    #[test]
    fn labels_are_random_access() {
        let order = TableOrder::new("s");
        let all = order.labels(0, 100);
        assert_eq!(order.labels(37, 20), all[37..57]);
        assert_ne!(TableOrder::new("t").labels(0, 100), all);
    }

    #[test]
    fn order_positions_is_the_reference_order() {
        for n in [0u64, 1, 2, 5, 1000, 70_000] {
            let order = TableOrder::new("run");
            let labels = order.labels(0, n as usize);
            let positions = order.order_positions(&labels, |p| p as u64);
            let rows: Vec<u64> = positions.into_iter().map(u64::from).collect();
            assert_eq!(rows, table_order("run", n));
        }
    }

    #[test]
    fn ties_follow_their_rows_not_their_positions() {
        // Four rows, all with one label, at positions 0..4 but rows 10, 20,
        // 30, 40: the order is that of the rows' tie shuffle.
        let order = TableOrder::new("tied");
        let positions = order.order_positions(&[7, 7, 7, 7], |p| 10 * (p as u64 + 1));
        let mut rows = [10u64, 20, 30, 40];
        order.order_ties(7, &mut rows);
        let expected: Vec<u32> = rows.iter().map(|r| (r / 10 - 1) as u32).collect();
        assert_eq!(positions, expected);
        // With a generator that moves them (some label does).
        let moved = (0..50u32).any(|l| {
            let p = order.order_positions(&[l; 4], |p| p as u64);
            p != [0, 1, 2, 3]
        });
        assert!(moved);
    }

    #[test]
    fn rows_in_any_order_give_the_order_of_their_numbers() {
        // 4,000 rows on 64 labels (runs of about 60 ties), given in row
        // order, reversed and scattered: the same rows come out, in the
        // order of (label, row) pairs.
        let n = 4000u64;
        let order = TableOrder::new("scattered");
        let label_of = |row: u64| ((row.wrapping_mul(2_654_435_761) >> 7) % 64) as u32;
        let mut pairs: Vec<(u32, u64)> = (0..n).map(|r| (label_of(r), r)).collect();
        order.order_pairs(&mut pairs);
        let reference: Vec<u64> = pairs.into_iter().map(|(_, r)| r).collect();
        let ascending: Vec<u64> = (0..n).collect();
        let reversed: Vec<u64> = (0..n).rev().collect();
        let scattered: Vec<u64> = (0..n).map(|i| (i * 7919) % n).collect();
        for rows in [ascending, reversed, scattered] {
            let labels: Vec<u32> = rows.iter().map(|&r| label_of(r)).collect();
            let positions = order.order_positions(&labels, |p| rows[p]);
            let got: Vec<u64> = positions.iter().map(|&p| rows[p as usize]).collect();
            assert_eq!(got, reference);
        }
    }

    #[test]
    fn shared_labels_are_the_labels_held_more_than_once() {
        // Distinct labels (an odd multiplier is a bijection of u32), then a
        // pair, a triple, and labels whose low 16 bits meet in other groups.
        let mut labels: Vec<u32> = (0..50_000u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        labels.extend([labels[7], labels[7], labels[100]]);
        labels.extend([0x0001_0005, 0x0002_0005, 0x0001_0005, 0xFFFF_0005]);
        let mut sorted = labels.clone();
        sorted.sort_unstable();
        let mut expected: Vec<u32> = sorted
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| w[0])
            .collect();
        expected.dedup();
        assert!(expected.len() >= 3);
        assert_eq!(shared_labels(&labels), expected);
        assert_eq!(shared_labels(&[]), Vec::<u32>::new());
        assert_eq!(shared_labels(&[9, 9]), vec![9]);
    }

    #[test]
    fn the_steps_of_a_tie_search_cut_anyhow_give_the_tied_rows() {
        // Label ranges, row ranges and parts of runs as threads would take
        // them: the same list as tied_rows.
        let n = 300_000u64;
        let order = TableOrder::new("tied rows");
        let whole = order.tied_rows(n, n);
        let search = order.tie_search(n, 70_000);
        assert_eq!(search.slices(), 5);
        let shared: Vec<u32> = (0..search.slices())
            .flat_map(|s| search.shared_labels(s))
            .collect();
        let shared = SharedLabels::new(shared);
        let mut pairs = Vec::new();
        for rows in [0..1, 1..123_457, 123_457..200_000, 200_000..n, n..n + 10] {
            pairs.extend(search.rows_of(&shared, rows));
        }
        pairs.sort_unstable();
        let mut at = pairs.len() / 2;
        while at < pairs.len() && pairs[at].0 == pairs[at - 1].0 {
            at += 1;
        }
        let second = pairs.split_off(at);
        let mut tied = search.places(second);
        tied.extend(search.places(pairs));
        tied.sort_unstable();
        assert_eq!(tied, whole);
        let none = SharedLabels::new(Vec::new());
        assert_eq!(search.rows_of(&none, 0..n), vec![]);
    }

    #[test]
    fn tied_rows_and_their_places_give_the_reference_order() {
        // 300,000 rows: about 10 pairs of equal labels. Sorting by (label,
        // place) with the tied rows' places (others 0) is the reference
        // order, whatever the number of label ranges.
        let n = 300_000u64;
        let order = TableOrder::new("tied rows");
        let reference = table_order("tied rows", n);
        let labels = order.labels(0, n as usize);
        let whole = order.tied_rows(n, n);
        assert!(whole.len() >= 4, "{} tied rows", whole.len());
        assert!(whole.windows(2).all(|w| w[0].0 < w[1].0));
        for slice_rows in [1u64 << 14, 77_777, n] {
            let tied = order.tied_rows(n, slice_rows);
            assert_eq!(tied, whole, "slice_rows {slice_rows}");
        }
        let mut keys: Vec<(u32, u32, u64)> = (0..n).map(|r| (labels[r as usize], 0, r)).collect();
        for &(row, place) in &whole {
            keys[row as usize].1 = place;
        }
        keys.sort_unstable();
        let got: Vec<u64> = keys.into_iter().map(|k| k.2).collect();
        assert_eq!(got, reference);
        assert_eq!(order.tied_rows(0, 1 << 20), vec![]);
        assert_eq!(order.tied_rows(1, 1 << 20), vec![]);
    }

    #[test]
    fn a_row_given_twice_is_reported() {
        let order = TableOrder::new("twice");
        let rows = [5u64, 9, 5, 2];
        let labels: Vec<u32> = rows.iter().map(|&r| order.labels(r, 1)[0]).collect();
        assert_eq!(
            order.try_order_positions(&labels, |p| rows[p]),
            Err(RepeatedRow(5))
        );
        let distinct = [5u64, 9, 6, 2];
        let labels: Vec<u32> = distinct.iter().map(|&r| order.labels(r, 1)[0]).collect();
        assert!(order.try_order_positions(&labels, |p| distinct[p]).is_ok());
    }

    #[test]
    fn ranges_of_labels_ordered_apart_give_the_same_order() {
        let n = 5000u64;
        let order = TableOrder::new("ranges");
        let labels = order.labels(0, n as usize);
        let mut pairs: Vec<(u32, u64)> = labels.iter().copied().zip(0..).collect();
        // Three label ranges, each ordered on its own, then concatenated.
        let cuts = [0u64, 1 << 30, 3 << 30, LABELS];
        let mut joined = Vec::new();
        for w in cuts.windows(2) {
            let mut part: Vec<(u32, u64)> = pairs
                .iter()
                .copied()
                .filter(|&(l, _)| (w[0]..w[1]).contains(&u64::from(l)))
                .collect();
            part.reverse(); // any input order
            order.order_pairs(&mut part);
            joined.extend(part.into_iter().map(|(_, r)| r));
        }
        order.order_pairs(&mut pairs);
        assert_eq!(joined, pairs.iter().map(|p| p.1).collect::<Vec<_>>());
    }

    #[test]
    fn ties_are_shuffled_by_their_bucket_generator() {
        let order = TableOrder::new("ties");
        // Every order of 4 tied rows comes out over many labels.
        let mut seen = alloc::collections::BTreeSet::new();
        for label in 0..2000u32 {
            let mut rows = [10u64, 11, 12, 13];
            order.order_ties(label, &mut rows);
            seen.insert(rows);
        }
        assert_eq!(seen.len(), 24);
    }
}
