//! Counting shuffles: order counts, the position matrix and the classic
//! statistics, gathered in one [`Tally`] that threads merge.

use crate::perm;

/// Orders are counted one by one (full-permutation test) up to this `n`
/// (9! = 362,880 counters).
pub const MAX_ORDER_N: usize = 9;

/// The position matrix is kept on a grid of at most this many bins per side.
pub const MAX_GRID: usize = 256;

/// Counts of many shuffles of `n` items (or deals of the first `k`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally {
    n: usize,
    k: usize,
    trials: u64,
    /// Per Lehmer rank, when `k == n <= MAX_ORDER_N`.
    orders: Option<Vec<u64>>,
    /// Grid bin of each item (row) and of each position `< k` (column).
    grid: usize,
    positions: Vec<u64>,
    fixed_points: Vec<u64>,
    cycles: Vec<u64>,
    rises: Vec<u64>,
    adjacent: Vec<u64>,
}

/// The (binned) position matrix: `counts[row][col]`, rows binning the items
/// (where they came from), columns binning the final positions (for deals:
/// the dealt positions, then one column "not dealt").
#[derive(Clone, Debug)]
pub struct PositionMatrix {
    /// Items per row bin.
    pub row_sizes: Vec<usize>,
    /// Positions per column bin.
    pub col_sizes: Vec<usize>,
    /// First item of each row bin and first position of each column bin.
    pub row_starts: Vec<usize>,
    /// First position of each column bin.
    pub col_starts: Vec<usize>,
    /// Whether the last column is "not dealt".
    pub has_rest_column: bool,
    /// Counts, row-major.
    pub counts: Vec<Vec<u64>>,
}

fn bin_of(index: usize, n: usize, grid: usize) -> usize {
    index * grid / n
}

impl Tally {
    /// An empty tally of full shuffles of `n` items.
    pub fn new(n: usize) -> Tally {
        Tally::new_deal(n, n)
    }

    /// An empty tally of deals: the first `k` of `n` items.
    pub fn new_deal(n: usize, k: usize) -> Tally {
        let k = k.min(n);
        let full = k == n;
        let grid = n.clamp(1, MAX_GRID);
        let kept_orders = full && n <= MAX_ORDER_N;
        let col_grid = if full { grid } else { grid.min(k.max(1)) };
        let stat_len = if full && !kept_orders { n + 1 } else { 0 };
        Tally {
            n,
            k,
            trials: 0,
            orders: kept_orders.then(|| vec![0; perm::factorial(n).unwrap() as usize]),
            grid,
            positions: vec![0; if kept_orders { 0 } else { grid * col_grid }],
            fixed_points: vec![0; stat_len],
            cycles: vec![0; stat_len],
            rises: vec![0; stat_len],
            adjacent: vec![0; stat_len],
        }
    }

    /// Number of items.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Items dealt per shuffle (`n` for full shuffles).
    pub fn k(&self) -> usize {
        self.k
    }

    /// Shuffles counted.
    pub fn trials(&self) -> u64 {
        self.trials
    }

    /// Whether these are full permutations.
    pub fn is_full(&self) -> bool {
        self.k == self.n
    }

    /// Count of each order by Lehmer rank, when kept (`n <= 9`).
    pub fn order_counts(&self) -> Option<&[u64]> {
        self.orders.as_deref()
    }

    fn col_grid(&self) -> usize {
        if self.is_full() {
            self.grid
        } else {
            self.grid.min(self.k.max(1))
        }
    }

    /// Counts one full shuffle: `p[position]` = item found there. `p` must
    /// be a permutation of `0..n`.
    #[inline]
    pub fn add(&mut self, p: &[usize]) {
        debug_assert_eq!(p.len(), self.n);
        self.trials += 1;
        if let Some(orders) = &mut self.orders {
            orders[perm::rank(p) as usize] += 1;
            return;
        }
        let (n, grid, cols) = (self.n, self.grid, self.col_grid());
        for (to, &from) in p.iter().enumerate() {
            self.positions[bin_of(from, n, grid) * cols + bin_of(to, n, cols)] += 1;
        }
        self.fixed_points[perm::fixed_points(p)] += 1;
        self.cycles[perm::cycles(p)] += 1;
        self.rises[perm::rises(p)] += 1;
        self.adjacent[perm::adjacent_pairs_kept(p)] += 1;
    }

    /// Counts `count` copies of the full shuffle `p` (see [`Tally::add`]).
    pub fn add_many(&mut self, p: &[usize], count: u64) {
        if let Some(orders) = &mut self.orders {
            self.trials += count;
            orders[perm::rank(p) as usize] += count;
        } else {
            for _ in 0..count {
                self.add(p);
            }
        }
    }

    /// Counts one deal: `hand[position]` = item dealt there (`k` distinct
    /// items of `0..n`).
    pub fn add_deal(&mut self, hand: &[usize]) {
        if self.is_full() {
            self.add(hand);
            return;
        }
        debug_assert_eq!(hand.len(), self.k);
        self.trials += 1;
        let (n, grid, k, cols) = (self.n, self.grid, self.k, self.col_grid());
        for (to, &from) in hand.iter().enumerate() {
            self.positions[bin_of(from, n, grid) * cols + bin_of(to, k, cols)] += 1;
        }
    }

    /// Adds another tally of the same shape.
    ///
    /// # Panics
    /// When the shapes differ.
    pub fn merge(&mut self, other: &Tally) {
        assert_eq!(
            (self.n, self.k),
            (other.n, other.k),
            "tallies of different shapes"
        );
        self.trials += other.trials;
        let add = |a: &mut Vec<u64>, b: &Vec<u64>| {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        };
        if let (Some(a), Some(b)) = (&mut self.orders, &other.orders) {
            add(a, b);
        }
        add(&mut self.positions, &other.positions);
        add(&mut self.fixed_points, &other.fixed_points);
        add(&mut self.cycles, &other.cycles);
        add(&mut self.rises, &other.rises);
        add(&mut self.adjacent, &other.adjacent);
    }

    /// Histograms of fixed points, cycles, rises and adjacent pairs kept
    /// (index = value), for full shuffles.
    pub fn statistic_histograms(&self) -> Option<[Vec<u64>; 4]> {
        if !self.is_full() {
            return None;
        }
        let Some(orders) = &self.orders else {
            return Some([
                self.fixed_points.clone(),
                self.cycles.clone(),
                self.rises.clone(),
                self.adjacent.clone(),
            ]);
        };
        let n = self.n;
        let mut h = [
            vec![0; n + 1],
            vec![0; n + 1],
            vec![0; n + 1],
            vec![0; n + 1],
        ];
        for (r, &c) in orders.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let p = perm::unrank(n, r as u64);
            h[0][perm::fixed_points(&p)] += c;
            h[1][perm::cycles(&p)] += c;
            h[2][perm::rises(&p)] += c;
            h[3][perm::adjacent_pairs_kept(&p)] += c;
        }
        Some(h)
    }

    /// The position matrix on the tally's grid (unbinned when `n <= 256`).
    pub fn position_matrix(&self) -> PositionMatrix {
        let n = self.n;
        let rows = self.grid;
        let cols = self.col_grid();
        let mut counts = vec![vec![0u64; cols]; rows];
        if let Some(orders) = &self.orders {
            for (r, &c) in orders.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                for (to, &from) in perm::unrank(n, r as u64).iter().enumerate() {
                    counts[from][to] += c;
                }
            }
        } else {
            for (row, line) in counts.iter_mut().enumerate() {
                line.copy_from_slice(&self.positions[row * cols..(row + 1) * cols]);
            }
        }
        let starts = |len: usize, bins: usize| -> Vec<usize> {
            (0..bins).map(|b| (b * len).div_ceil(bins)).collect()
        };
        let sizes = |s: &[usize], len: usize| -> Vec<usize> {
            s.iter()
                .enumerate()
                .map(|(i, &a)| s.get(i + 1).copied().unwrap_or(len) - a)
                .collect()
        };
        let row_starts = starts(n, rows);
        let col_span = if self.is_full() { n } else { self.k };
        let col_starts = starts(col_span, cols);
        let row_sizes = sizes(&row_starts, n);
        let mut col_sizes = sizes(&col_starts, col_span);
        let mut col_starts = col_starts;
        let has_rest_column = !self.is_full();
        if has_rest_column {
            // Items not dealt: each row bin's remaining count.
            for (row, line) in counts.iter_mut().enumerate() {
                let dealt: u64 = line.iter().sum();
                line.push(self.trials * row_sizes[row] as u64 - dealt);
            }
            col_starts.push(self.k);
            col_sizes.push(n - self.k);
        }
        PositionMatrix {
            row_sizes,
            col_sizes,
            row_starts,
            col_starts,
            has_rest_column,
            counts,
        }
    }
}

impl PositionMatrix {
    /// Merges rows and columns into at most `max_rows` x `max_cols` bins of
    /// consecutive items/positions (the "not dealt" column stays apart).
    pub fn rebinned(&self, max_rows: usize, max_cols: usize) -> PositionMatrix {
        let group = |len: usize, max: usize| -> Vec<usize> {
            // group index of each existing bin
            let g = len.min(max.max(1));
            (0..len).map(|i| i * g / len).collect()
        };
        let dealt_cols = self.col_sizes.len() - usize::from(self.has_rest_column);
        let rg = group(self.row_sizes.len(), max_rows);
        let mut cg = group(
            dealt_cols,
            max_cols
                .saturating_sub(usize::from(self.has_rest_column))
                .max(1),
        );
        let groups_r = rg.last().map_or(0, |&g| g + 1);
        let mut groups_c = cg.last().map_or(0, |&g| g + 1);
        if self.has_rest_column {
            cg.push(groups_c);
            groups_c += 1;
        }
        let mut counts = vec![vec![0u64; groups_c]; groups_r];
        let mut row_sizes = vec![0; groups_r];
        let mut col_sizes = vec![0; groups_c];
        let mut row_starts = vec![usize::MAX; groups_r];
        let mut col_starts = vec![usize::MAX; groups_c];
        for (r, line) in self.counts.iter().enumerate() {
            row_sizes[rg[r]] += self.row_sizes[r];
            row_starts[rg[r]] = row_starts[rg[r]].min(self.row_starts[r]);
            for (c, &v) in line.iter().enumerate() {
                counts[rg[r]][cg[c]] += v;
            }
        }
        for (c, &g) in cg.iter().enumerate() {
            col_sizes[g] += self.col_sizes[c];
            col_starts[g] = col_starts[g].min(self.col_starts[c]);
        }
        PositionMatrix {
            row_sizes,
            col_sizes,
            row_starts,
            col_starts,
            has_rest_column: self.has_rest_column,
            counts,
        }
    }

    /// Total items (sum of row sizes).
    pub fn n(&self) -> usize {
        self.row_sizes.iter().sum()
    }

    /// Expected count of a cell under a uniform shuffle after `trials`.
    pub fn expected(&self, trials: u64, row: usize, col: usize) -> f64 {
        trials as f64 * self.row_sizes[row] as f64 * self.col_sizes[col] as f64 / self.n() as f64
    }

    /// Pearson's X^2 scaled by `(n-1)/n` and its degrees of freedom
    /// `(rows-1)(cols-1)`. (X^2 on sums of permutation matrices is
    /// asymptotically `n/(n-1)` times a chi-square, binned or not: each
    /// shuffle's table has fixed margins, a hypergeometric covariance.)
    pub fn scaled_chi_square(&self, trials: u64) -> (f64, f64) {
        let n = self.n() as f64;
        let mut x2 = 0.0;
        for (r, line) in self.counts.iter().enumerate() {
            for (c, &o) in line.iter().enumerate() {
                let e = self.expected(trials, r, c);
                if e > 0.0 {
                    x2 += (o as f64 - e).powi(2) / e;
                }
            }
        }
        let rows = self.counts.len() as f64;
        let cols = self.counts.first().map_or(0, Vec::len) as f64;
        (x2 * (n - 1.0) / n, (rows - 1.0) * (cols - 1.0))
    }

    /// Relative deviation of each cell from its expectation:
    /// `observed / expected - 1`.
    pub fn relative_deviation(&self, trials: u64) -> Vec<Vec<f64>> {
        self.counts
            .iter()
            .enumerate()
            .map(|(r, line)| {
                line.iter()
                    .enumerate()
                    .map(|(c, &o)| {
                        let e = self.expected(trials, r, c);
                        if e > 0.0 { o as f64 / e - 1.0 } else { 0.0 }
                    })
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_orders_and_direct_counting_agree() {
        let mut rng = knuffle::Seed::from_text("tally").rng();
        let mut small = Tally::new(5);
        let mut direct = Tally {
            orders: None,
            positions: vec![0; 25],
            fixed_points: vec![0; 6],
            cycles: vec![0; 6],
            rises: vec![0; 6],
            adjacent: vec![0; 6],
            ..Tally::new(5)
        };
        for _ in 0..1000 {
            let p = knuffle::permutation(5, &mut rng);
            small.add(&p);
            direct.add(&p);
        }
        assert_eq!(small.statistic_histograms(), direct.statistic_histograms());
        assert_eq!(
            small.position_matrix().counts,
            direct.position_matrix().counts
        );
    }

    #[test]
    fn deals_get_a_not_dealt_column_and_large_n_is_binned() {
        let mut t = Tally::new_deal(52, 5);
        t.add_deal(&[0, 1, 2, 3, 4]);
        let m = t.position_matrix();
        assert!(m.has_rest_column);
        assert_eq!(m.counts[0], vec![1, 0, 0, 0, 0, 0]);
        assert_eq!(m.counts[7], vec![0, 0, 0, 0, 0, 1]);
        let r = m.rebinned(4, 3);
        assert_eq!(r.counts.len(), 4);
        assert_eq!(r.col_sizes.iter().sum::<usize>(), 52);
        assert_eq!(r.counts.iter().flatten().sum::<u64>(), 52);
        let big = Tally::new(1000);
        assert_eq!(big.position_matrix().counts.len(), MAX_GRID);
        assert_eq!(big.position_matrix().row_sizes.iter().sum::<usize>(), 1000);
    }
}
