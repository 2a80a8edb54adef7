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
}

/// The `len` items of `items` in ascending order, where an item's order
/// begins with its label (`label(item)`): grouped by the labels' top 16
/// bits ([`grouped_by_top_bits`]), then each of the 2^16 groups sorted
/// (O(n) for uniform labels; `items` is iterated twice).
fn sorted_by_label<T: Copy + Ord + Default>(
    items: impl Iterator<Item = T> + Clone,
    len: usize,
    label: impl Fn(&T) -> u32,
) -> Vec<T> {
    let (mut sorted, starts) = grouped_by_top_bits(items.map(|item| (label(&item), item)), len);
    for group in starts.windows(2) {
        sorted[group[0]..group[1]].sort_unstable();
    }
    sorted
}

/// The top 16 bits of a label: the group of [`grouped_by_top_bits`].
pub(crate) const TOP_BITS: u32 = 16;

/// The `len` values of `items` (pairs of a label and a value) grouped by
/// the labels' top [`TOP_BITS`] bits, groups in ascending order, each in
/// the items' order; and the 2^16 + 1 bounds of the groups (group `g` is
/// `starts[g]..starts[g + 1]`). A counting sort's scatter (Knuth, TAOCP
/// vol. 3, 5.2, Algorithm D); `items` is iterated twice.
pub(crate) fn grouped_by_top_bits<T: Copy + Default>(
    items: impl Iterator<Item = (u32, T)> + Clone,
    len: usize,
) -> (Vec<T>, Vec<usize>) {
    let group = |label: u32| (label >> (32 - TOP_BITS)) as usize;
    let mut starts = vec![0usize; (1 << TOP_BITS) + 1];
    for (label, _) in items.clone() {
        starts[group(label) + 1] += 1;
    }
    for g in 0..1 << TOP_BITS {
        starts[g + 1] += starts[g];
    }
    let mut next = starts.clone();
    let mut grouped = vec![T::default(); len];
    for (label, value) in items {
        let slot = &mut next[group(label)];
        grouped[*slot] = value;
        *slot += 1;
    }
    (grouped, starts)
}

/// A row number given for two positions ([`TableOrder::try_order_positions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RepeatedRow(pub u64);

/// The end of the run of items that share `items[start]`'s label (items
/// sorted by label; runs are short, so a scan beats a binary search).
pub(crate) fn run_end<T>(items: &[T], start: usize, label: impl Fn(&T) -> u32) -> usize {
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
