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
//!   permuted by [`knuffle::shuffle`] of their `u64` row numbers with the
//!   generator keyed by SHA-256 of
//!   `"knuffle table-order/v1 bucket " + b + "\n" + seed`.
//!
//! Any contiguous range of labels can therefore be ordered on its own (a
//! bucket file, a Spark partition), and the concatenation in label order
//! is the same whatever the ranges were.

use knuffle::Seed;
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

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
            seed: seed.to_owned(),
            labels: Seed::from_text(&format!("{VERSION} labels\n{seed}")),
        }
    }

    /// The seed text.
    pub fn seed(&self) -> &str {
        &self.seed
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
        let mut rng = ChaCha20Rng::from_seed(*self.labels.key());
        // Word position = row number: the stream is read from row `start`
        // on without generating the words of the rows before it.
        rng.set_word_pos(u128::from(start));
        for label in out {
            *label = rng.next_u32();
        }
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
            knuffle::shuffle(rows, &mut seed.rng());
        }
    }

    /// Puts `rows`, pairs of (label, row number) with distinct row numbers,
    /// in the table order: by label, equal labels by [`Self::order_ties`].
    pub fn order_pairs(&self, rows: &mut [(u32, u64)]) {
        rows.sort_unstable();
        let mut ties = Vec::new();
        let mut start = 0;
        while start < rows.len() {
            let label = rows[start].0;
            let end = start + rows[start..].partition_point(|r| r.0 == label);
            if end - start > 1 {
                ties.clear();
                ties.extend(rows[start..end].iter().map(|r| r.1));
                self.order_ties(label, &mut ties);
                for (slot, &row) in rows[start..end].iter_mut().zip(&ties) {
                    slot.1 = row;
                }
            }
            start = end;
        }
    }

    /// The positions `0..labels.len()` of consecutive rows `first..` with
    /// these labels, in the table order (position `p` is row `first + p`).
    ///
    /// A counting sort on the top 16 bits of the labels, then each of the
    /// 2^16 groups ordered by (label, row): O(n) for uniform labels.
    pub fn order_run(&self, first: u64, labels: &[u32]) -> Vec<u64> {
        let n = labels.len();
        const TOP: u32 = 16;
        let groups = 1usize << TOP;
        let mut starts = vec![0usize; groups + 1];
        for &label in labels {
            starts[(label >> (32 - TOP)) as usize + 1] += 1;
        }
        for g in 0..groups {
            starts[g + 1] += starts[g];
        }
        let mut next = starts.clone();
        let mut placed = vec![(0u32, 0u64); n];
        for (position, &label) in labels.iter().enumerate() {
            let g = (label >> (32 - TOP)) as usize;
            placed[next[g]] = (label, first + position as u64);
            next[g] += 1;
        }
        for g in 0..groups {
            let group = &mut placed[starts[g]..starts[g + 1]];
            if group.len() > 1 {
                self.order_pairs(group);
            }
        }
        placed.into_iter().map(|(_, row)| row - first).collect()
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
    fn labels_are_random_access() {
        let order = TableOrder::new("s");
        let all = order.labels(0, 100);
        assert_eq!(order.labels(37, 20), all[37..57]);
        assert_ne!(TableOrder::new("t").labels(0, 100), all);
    }

    #[test]
    fn order_run_is_the_reference_order() {
        for n in [0u64, 1, 2, 5, 1000, 70_000] {
            let order = TableOrder::new("run");
            let labels = order.labels(0, n as usize);
            assert_eq!(order.order_run(0, &labels), table_order("run", n));
        }
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
        let mut seen = std::collections::HashSet::new();
        for label in 0..2000u32 {
            let mut rows = [10u64, 11, 12, 13];
            order.order_ties(label, &mut rows);
            seen.insert(rows);
        }
        assert_eq!(seen.len(), 24);
    }
}
