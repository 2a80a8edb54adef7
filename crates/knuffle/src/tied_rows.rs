//! The rows of a table that share their label with another row, and each
//! one's place in its run's tie order (docs/table-order.md, step 3): what
//! an engine that sorts by one key per row (Spark) needs besides the
//! labels. About `n^2 / 2^33` pairs of `n` rows share a label.
//!
//! The search reads the label stream once per range of labels (bounded
//! memory whatever `n` is), and once more for the rows; [`TieSearch`]
//! gives its steps to a caller with threads.

use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

use crate::table_order::{LABELS, TOP_BITS, TableOrder, grouped_by_top_bits, run_end};

impl TableOrder {
    /// The rows of `0..n` that share their label with another row, each
    /// with its place in the tie order of its run (0 first), ascending by
    /// row: with these, sorting the rows by (label, place) gives the table
    /// order, for rows given in any order (about `n^2 / 2^32` rows have a
    /// place: 23,000 of 10^7).
    ///
    /// The steps of [`TieSearch`], one after the other; memory: about
    /// `7 * slice_rows` bytes, then about 32 bytes per tied row.
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

    /// [`Self::tied_rows`] on the current rayon pool: the label ranges (at
    /// least one per thread, of at most `slice_rows` rows), then a row
    /// range per thread, then a part of the runs per thread, side by side.
    /// The same list; memory: a label range per thread at once.
    #[cfg(feature = "parallel")]
    pub fn par_tied_rows(&self, n: u64, slice_rows: u64) -> Vec<(u64, u32)> {
        use rayon::prelude::*;

        let threads = rayon::current_num_threads().max(1);
        let search = self.tie_search(n, slice_rows.min(n.div_ceil(threads as u64)));
        let per_range: Vec<Vec<u32>> = (0..search.slices())
            .into_par_iter()
            .map(|slice| search.shared_labels(slice))
            .collect();
        let shared = SharedLabels::new(per_range.concat());
        let found: Vec<Vec<(u32, u64)>> = search
            .row_ranges(threads)
            .into_par_iter()
            .map(|rows| search.rows_of(&shared, rows))
            .collect();
        let pairs = joined(found);
        let placed: Vec<Vec<(u64, u32)>> = TieSearch::parts(pairs, threads)
            .into_par_iter()
            .map(|part| search.places(part))
            .collect();
        let mut tied = joined(placed);
        tied.par_sort_unstable();
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
    fn for_each_chunk(&self, rows: Range<u64>, mut visit: impl FnMut(u64, &[u32])) {
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

/// The items of `parts` in one vector, each part freed once copied.
#[cfg(feature = "parallel")]
fn joined<T>(parts: Vec<Vec<T>>) -> Vec<T> {
    let mut all = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for mut part in parts {
        all.append(&mut part);
    }
    all
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
    pub fn rows_of(&self, shared: &SharedLabels, rows: Range<u64>) -> Vec<(u32, u64)> {
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

    /// `0..n` cut into `parts` ranges (at least one) of about equal
    /// length, in order.
    pub fn row_ranges(&self, parts: usize) -> Vec<Range<u64>> {
        let parts = parts.max(1) as u64;
        let bound =
            |part: u64| ((u128::from(self.n) * u128::from(part)) / u128::from(parts)) as u64;
        (0..parts)
            .map(|part| bound(part)..bound(part + 1))
            .collect()
    }

    /// `pairs` (label, row) sorted and cut into at most `parts` parts of
    /// about equal length, each label's pairs in one part: the inputs of
    /// [`Self::places`] side by side.
    pub fn parts(mut pairs: Vec<(u32, u64)>, parts: usize) -> Vec<Vec<(u32, u64)>> {
        pairs.sort_unstable();
        let mut cut = Vec::new();
        for part in (1..parts.max(1)).rev() {
            // The last cut first: `split_off` leaves the front in `pairs`.
            let mut at = pairs.len() * part / (part + 1);
            while at > 0 && at < pairs.len() && pairs[at].0 == pairs[at - 1].0 {
                at += 1;
            }
            cut.push(pairs.split_off(at));
        }
        cut.push(pairs);
        cut.reverse();
        cut.retain(|part| !part.is_empty());
        cut
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
    /// The shared labels `labels` (in any order; [`TieSearch::shared_labels`]
    /// of each range).
    pub fn new(mut labels: Vec<u32>) -> SharedLabels {
        labels.sort_unstable();
        labels.dedup();
        SharedLabels {
            filter: LabelFilter::new(&labels),
            labels,
        }
    }
}

/// The labels that occur more than once in `labels`, in ascending order.
///
/// The labels' low 16 bits are grouped by their top 16 bits
/// ([`grouped_by_top_bits`]); in each group, a label whose low bits are
/// already marked in a 2^16-bit bitmap (8 KiB, in the first-level cache)
/// was seen before. O(n), with 2 bytes per label besides `labels`.
fn shared_labels(labels: &[u32]) -> Vec<u32> {
    let (low, starts) = grouped_by_top_bits(
        labels.iter().map(|&label| (label, label as u16)),
        labels.len(),
    );
    let mut seen = vec![0u64; (1 << 16) / 64];
    let mut shared = Vec::new();
    for (g, group) in starts.windows(2).enumerate() {
        let members = &low[group[0]..group[1]];
        for &bits in members {
            let (word, bit) = (usize::from(bits >> 6), 1u64 << (bits & 63));
            if seen[word] & bit != 0 {
                shared.push((g as u32) << TOP_BITS | u32::from(bits));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table_order::table_order;

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
        let mut tied = Vec::new();
        for part in TieSearch::parts(pairs, 3) {
            tied.extend(search.places(part));
        }
        tied.sort_unstable();
        assert_eq!(tied, whole);
        let none = SharedLabels::new(Vec::new());
        assert_eq!(search.rows_of(&none, 0..n), vec![]);
    }

    #[test]
    fn parts_keep_each_labels_pairs_together() {
        // Runs of 3 where every even cut lands inside one, a long run, and
        // fewer pairs than parts.
        let threes: Vec<(u32, u64)> = (0..30u64).map(|i| ((i / 3) as u32, 100 - i)).collect();
        let long: Vec<(u32, u64)> = (0..40u64).map(|i| (u32::from(i >= 35) * 9, i)).collect();
        for (pairs, most) in [
            (threes, 4usize),
            (long.clone(), 2),
            (long, 7),
            (vec![(5, 1), (5, 2)], 5),
        ] {
            let mut sorted = pairs.clone();
            sorted.sort_unstable();
            let parts = TieSearch::parts(pairs, most);
            assert!(!parts.is_empty() && parts.len() <= most);
            assert!(parts.iter().all(|part| !part.is_empty()));
            assert_eq!(parts.concat(), sorted);
            for pair in parts.windows(2) {
                assert!(
                    pair[0].last().unwrap().0 < pair[1][0].0,
                    "a label in two parts"
                );
            }
        }
        assert_eq!(
            TieSearch::parts(Vec::new(), 3),
            Vec::<Vec<(u32, u64)>>::new()
        );
        // Runs of 3 in 4 parts: 10 runs, so more than one part.
        let threes: Vec<(u32, u64)> = (0..30u64).map(|i| ((i / 3) as u32, i)).collect();
        assert!(TieSearch::parts(threes, 4).len() > 1);
    }

    #[test]
    fn row_ranges_cover_every_row_once() {
        let order = TableOrder::new("ranges");
        for n in [0u64, 1, 2, 3, 300_001, u64::MAX] {
            let search = order.tie_search(n, 1 << 20);
            for parts in [0usize, 1, 2, 3, 7] {
                let ranges = search.row_ranges(parts);
                assert_eq!(ranges.len(), parts.max(1));
                assert_eq!(ranges[0].start, 0);
                assert_eq!(ranges.last().unwrap().end, n);
                assert!(
                    ranges
                        .windows(2)
                        .all(|w| w[0].end == w[1].start && w[0].start <= w[0].end)
                );
            }
        }
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn tied_rows_side_by_side_are_the_tied_rows() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let order = TableOrder::new("tied rows");
        for n in [0u64, 1, 2, 3, 300_001] {
            let alone = order.tied_rows(n, 77_777);
            for slice_rows in [1u64 << 14, 1 << 24] {
                assert_eq!(
                    pool.install(|| order.par_tied_rows(n, slice_rows)),
                    alone,
                    "n {n}"
                );
            }
        }
        assert!(order.tied_rows(300_001, 77_777).len() >= 4);
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
}
