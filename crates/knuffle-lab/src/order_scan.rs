//! One pass over a long order of the rows `0..n`, counting everything the
//! one-long-order audit tests ([`crate::order_audit`]): squared
//! displacements, a binned displacement histogram, a grid of row number
//! against position, adjacent pairs from the same block of `2^k` rows, from
//! the same shard, consecutive rows kept in order, and, against the previous
//! epoch, the same for the permutation "position in the previous epoch".
//!
//! The pass runs on all cores (rayon, chunks of the order with their own
//! counters, added up at the end); its memory is the counters (a few hundred
//! kilobytes a thread), nothing per row. Bins are powers of two wide, so a
//! row's bin is a shift, never a division. The permutation check
//! ([`check_permutation`]) is a separate pass with one bit a row.

use rayon::prelude::*;

/// A row number as stored in an order: `u32` (files), `i64` (numpy), ...
/// Values are checked to lie in `0..n` before a scan
/// ([`first_out_of_range`]).
pub trait RowNumber: Copy + Send + Sync {
    /// The value, or `None` when it is negative.
    fn value(self) -> Option<u64>;
}

impl RowNumber for u32 {
    fn value(self) -> Option<u64> {
        Some(u64::from(self))
    }
}

impl RowNumber for u64 {
    fn value(self) -> Option<u64> {
        Some(self)
    }
}

impl RowNumber for i64 {
    fn value(self) -> Option<u64> {
        u64::try_from(self).ok()
    }
}

/// The most bins of the displacement histogram and per side of the grid.
pub const MAX_DISPLACEMENT_BINS: u64 = 4096;
/// The most cells per side of the row-number x position grid.
pub const MAX_GRID_SIDE: u64 = 64;
/// Rows per chunk of the parallel pass.
const CHUNK: usize = 1 << 16;

/// The smallest shift `s` with `(n - 1) >> s < bins`: bins `2^s` wide cover
/// `0..n` in at most `bins` bins.
pub fn shift_for(n: u64, bins: u64) -> u32 {
    let mut s = 0;
    while n.saturating_sub(1) >> s >= bins {
        s += 1;
    }
    s
}

/// The first index whose value is negative or not below `n`, with the
/// value as text.
pub fn first_out_of_range<T: RowNumber + std::fmt::Display>(
    order: &[T],
    n: u64,
) -> Option<(usize, String)> {
    let bad = |x: &T| x.value().is_none_or(|v| v >= n);
    let index = order.par_iter().position_first(bad)?;
    Some((index, order[index].to_string()))
}

/// Whether an order of the rows `0..n` (values already in range) is a
/// permutation, and if not, what is wrong.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PermutationCheck {
    /// Rows that never appear.
    pub missing: u64,
    /// Appearances beyond the first of a row.
    pub repeated: u64,
    /// The first few missing rows, smallest first.
    pub first_missing: Vec<u64>,
    /// The first few repeats: (row, its first position, the repeat's position).
    pub first_repeated: Vec<(u64, u64, u64)>,
}

impl PermutationCheck {
    /// Every row exactly once.
    pub fn is_permutation(&self) -> bool {
        self.missing == 0 && self.repeated == 0
    }
}

/// How many examples of missing or repeated rows are named.
pub const EXAMPLES: usize = 5;

/// Checks that `order` holds every row of `0..n` exactly once, with one bit
/// a row. Parallel over ranges of row numbers (each task reads the whole
/// order, sequentially, and marks its own rows). Examples of repeats come
/// from a second, sequential pass, only when there are repeats.
pub fn check_permutation<T: RowNumber>(order: &[T], n: u64) -> PermutationCheck {
    let words = n.div_ceil(64) as usize;
    let tasks = rayon::current_num_threads().max(1);
    let per_task = words.div_ceil(tasks).max(1);
    let mut bits = vec![0u64; words];
    let repeated: u64 = bits
        .par_chunks_mut(per_task)
        .enumerate()
        .map(|(task, slice)| {
            let first_row = (task * per_task * 64) as u64;
            let rows = slice.len() as u64 * 64;
            let mut repeats = 0u64;
            for x in order {
                let local = x.value().unwrap_or(u64::MAX).wrapping_sub(first_row);
                if local < rows {
                    let (w, b) = ((local >> 6) as usize, local & 63);
                    repeats += (slice[w] >> b) & 1;
                    slice[w] |= 1 << b;
                }
            }
            repeats
        })
        .sum();
    let seen: u64 = bits.iter().map(|w| u64::from(w.count_ones())).sum();
    let mut check = PermutationCheck {
        missing: n - seen,
        repeated,
        ..PermutationCheck::default()
    };
    for (w, &word) in bits.iter().enumerate() {
        let mut absent = !word;
        while absent != 0 && check.first_missing.len() < EXAMPLES {
            let row = w as u64 * 64 + u64::from(absent.trailing_zeros());
            if row >= n {
                break;
            }
            check.first_missing.push(row);
            absent &= absent - 1;
        }
        if check.first_missing.len() == EXAMPLES {
            break;
        }
    }
    if repeated > 0 {
        check.first_repeated = first_repeats(order, n);
    }
    check
}

/// The first [`EXAMPLES`] repeats in order: (row, first position, repeat).
fn first_repeats<T: RowNumber>(order: &[T], n: u64) -> Vec<(u64, u64, u64)> {
    let mut bits = vec![0u64; n.div_ceil(64) as usize];
    let mut found = Vec::new();
    for (pos, x) in order.iter().enumerate() {
        let row = x.value().unwrap_or(u64::MAX);
        if row >= n {
            continue;
        }
        let (w, b) = ((row >> 6) as usize, row & 63);
        if (bits[w] >> b) & 1 == 1 {
            let first = order
                .iter()
                .position(|y| y.value() == Some(row))
                .unwrap_or(pos) as u64;
            found.push((row, first, pos as u64));
            if found.len() == EXAMPLES {
                break;
            }
        }
        bits[w] |= 1 << b;
    }
    found
}

/// What the scan looks at besides the order.
pub struct ScanPlan<'a> {
    /// The number of rows.
    pub n: u64,
    /// Levels `k` of the blocks `row >> k` whose adjacent pairs are counted.
    pub block_levels: Vec<u32>,
    /// The shard of every row.
    pub shard_of: Option<&'a [u32]>,
    /// The position of every row in the previous epoch.
    pub previous_position: Option<&'a [u32]>,
}

/// The counts against the previous epoch: the permutation `pi(i)` = the
/// previous position of the row at position `i`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreviousCounts {
    /// `sum (pi(i) - i)^2`.
    pub squared_displacement: u128,
    /// Rows at the same position in both epochs.
    pub same_position: u64,
    /// Adjacent pairs that follow each other in the previous epoch too.
    pub pairs_kept: u64,
}

/// Everything the audit tests, from one pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderCounts {
    /// The number of rows.
    pub n: u64,
    /// `sum (position - row)^2`.
    pub squared_displacement: u128,
    /// Bins of `|position - row|` are `2^displacement_shift` wide.
    pub displacement_shift: u32,
    /// The displacement histogram.
    pub displacement: Vec<u64>,
    /// Grid cells are `2^grid_shift` rows by as many positions.
    pub grid_shift: u32,
    /// Cells per side of the grid.
    pub grid_side: usize,
    /// `grid[row bin * grid_side + position bin]`.
    pub grid: Vec<u64>,
    /// The levels `k` counted (as planned).
    pub block_levels: Vec<u32>,
    /// Adjacent pairs from the same block of `2^k` rows, per level.
    pub same_block: Vec<u64>,
    /// Adjacent pairs `(r, r + 1)`: consecutive rows kept in order.
    pub consecutive: u64,
    /// Adjacent pairs from the same shard.
    pub same_shard: Option<u64>,
    /// Against the previous epoch.
    pub previous: Option<PreviousCounts>,
}

impl OrderCounts {
    fn empty(plan: &ScanPlan<'_>) -> OrderCounts {
        let n = plan.n;
        let displacement_shift = shift_for(n, MAX_DISPLACEMENT_BINS);
        let grid_shift = shift_for(n, MAX_GRID_SIDE);
        let grid_side = (n.saturating_sub(1) >> grid_shift) as usize + 1;
        OrderCounts {
            n,
            squared_displacement: 0,
            displacement_shift,
            displacement: vec![0; (n.saturating_sub(1) >> displacement_shift) as usize + 1],
            grid_shift,
            grid_side,
            grid: vec![0; grid_side * grid_side],
            block_levels: plan.block_levels.clone(),
            same_block: vec![0; plan.block_levels.len()],
            consecutive: 0,
            same_shard: plan.shard_of.map(|_| 0),
            previous: plan.previous_position.map(|_| PreviousCounts::default()),
        }
    }

    fn add(mut self, other: OrderCounts) -> OrderCounts {
        self.squared_displacement += other.squared_displacement;
        for (a, b) in self.displacement.iter_mut().zip(&other.displacement) {
            *a += b;
        }
        for (a, b) in self.grid.iter_mut().zip(&other.grid) {
            *a += b;
        }
        for (a, b) in self.same_block.iter_mut().zip(&other.same_block) {
            *a += b;
        }
        self.consecutive += other.consecutive;
        if let (Some(a), Some(b)) = (&mut self.same_shard, other.same_shard) {
            *a += b;
        }
        if let (Some(a), Some(b)) = (&mut self.previous, other.previous) {
            a.squared_displacement += b.squared_displacement;
            a.same_position += b.same_position;
            a.pairs_kept += b.pairs_kept;
        }
        self
    }

    /// Counts positions `start..start + chunk.len()`; `before` is the row
    /// at position `start - 1` (for the adjacent pair across the boundary).
    fn count<T: RowNumber>(
        &mut self,
        plan: &ScanPlan<'_>,
        start: usize,
        chunk: &[T],
        before: Option<T>,
    ) {
        let mut last = before.map(|x| x.value().unwrap_or(0));
        let mut last_previous = last.and_then(|r| plan.previous_position.map(|p| p[r as usize]));
        let mut d2 = 0u128;
        for (offset, x) in chunk.iter().enumerate() {
            let row = x.value().unwrap_or(0);
            let pos = (start + offset) as u64;
            let d = pos.abs_diff(row);
            d2 += u128::from(d * d);
            self.displacement[(d >> self.displacement_shift) as usize] += 1;
            let cell = (row >> self.grid_shift) as usize * self.grid_side
                + (pos >> self.grid_shift) as usize;
            self.grid[cell] += 1;
            if let Some(prev_row) = last {
                let differ = prev_row ^ row;
                for (count, &k) in self.same_block.iter_mut().zip(&plan.block_levels) {
                    *count += u64::from(differ >> k == 0);
                }
                self.consecutive += u64::from(row == prev_row + 1);
                if let (Some(same), Some(shards)) = (&mut self.same_shard, plan.shard_of) {
                    *same += u64::from(shards[row as usize] == shards[prev_row as usize]);
                }
            }
            if let (Some(counts), Some(positions)) = (&mut self.previous, plan.previous_position) {
                let then = positions[row as usize];
                let moved = u64::from(then).abs_diff(pos);
                counts.squared_displacement += u128::from(moved * moved);
                counts.same_position += u64::from(u64::from(then) == pos);
                if let Some(before) = last_previous {
                    counts.pairs_kept += u64::from(u64::from(then) == u64::from(before) + 1);
                }
                last_previous = Some(then);
            }
            last = Some(row);
        }
        self.squared_displacement += d2;
    }
}

/// Counts everything in one parallel pass over `order`, a permutation of
/// `0..n` (checked before: [`check_permutation`]).
pub fn scan<T: RowNumber>(order: &[T], plan: &ScanPlan<'_>) -> OrderCounts {
    order
        .par_chunks(CHUNK)
        .enumerate()
        .fold(
            || OrderCounts::empty(plan),
            |mut counts, (index, chunk)| {
                let start = index * CHUNK;
                let before = start.checked_sub(1).map(|i| order[i]);
                counts.count(plan, start, chunk, before);
                counts
            },
        )
        .reduce(|| OrderCounts::empty(plan), OrderCounts::add)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_permutation_check_names_missing_and_repeated_rows() {
        let check = check_permutation(&[3u32, 1, 0, 2], 4);
        assert!(check.is_permutation());
        let check = check_permutation(&[3u32, 1, 3, 2, 1, 1], 6);
        assert_eq!((check.missing, check.repeated), (3, 3));
        assert_eq!(check.first_missing, [0, 4, 5]);
        assert_eq!(check.first_repeated, [(3, 0, 2), (1, 1, 4), (1, 1, 5)]);
        // Many rows: the ranges of the parallel tasks.
        let n = 100_000u64;
        let mut order: Vec<u64> = (0..n).rev().collect();
        order[70_000] = 5;
        let check = check_permutation(&order, n);
        assert_eq!((check.missing, check.repeated), (1, 1));
        assert_eq!(check.first_missing, [n - 1 - 70_000]);
    }

    #[test]
    fn the_scan_counts_match_a_plain_loop() {
        let n = 300_000u64;
        let mut rng = knuffle::Seed::from_text("scan").rng();
        let order: Vec<u32> = knuffle::permutation(n as usize, &mut rng)
            .into_iter()
            .map(|x| x as u32)
            .collect();
        let previous: Vec<u32> = knuffle::permutation(n as usize, &mut rng)
            .into_iter()
            .map(|x| x as u32)
            .collect();
        let mut position = vec![0u32; n as usize];
        for (i, &r) in previous.iter().enumerate() {
            position[r as usize] = i as u32;
        }
        let shards: Vec<u32> = (0..n).map(|r| (r % 7) as u32).collect();
        let plan = ScanPlan {
            n,
            block_levels: vec![3, 9],
            shard_of: Some(&shards),
            previous_position: Some(&position),
        };
        let counts = scan(&order, &plan);
        let mut plain = OrderCounts::empty(&plan);
        plain.count(&plan, 0, &order, None);
        assert_eq!(counts, plain);
        assert_eq!(counts.displacement.iter().sum::<u64>(), n);
        assert_eq!(counts.grid.iter().sum::<u64>(), n);
        let d2: u128 = order
            .iter()
            .enumerate()
            .map(|(i, &r)| (i as u64).abs_diff(u64::from(r)).pow(2) as u128)
            .sum();
        assert_eq!(counts.squared_displacement, d2);
        let same: u64 = order
            .windows(2)
            .filter(|w| shards[w[0] as usize] == shards[w[1] as usize])
            .count() as u64;
        assert_eq!(counts.same_shard, Some(same));
    }

    #[test]
    fn shifts_cover_the_rows() {
        assert_eq!(shift_for(1, 64), 0);
        assert_eq!(shift_for(64, 64), 0);
        assert_eq!(shift_for(65, 64), 1);
        assert_eq!(shift_for(100_000, 64), 11);
    }
}
