//! The laws of the one-long-order audit ([`crate::order_audit`]): what each
//! statistic of one order of the rows `0..n` does when the order is an
//! exactly uniform permutation. Every law is derived here, or cited, and
//! checked by exact enumeration or by simulation in the tests below.
//!
//! Most statistics are of Hoeffding's form `T = sum_i a(i, pi(i))` for a
//! uniform permutation `pi` and a fixed score matrix `a` (W. Hoeffding, "A
//! combinatorial central limit theorem", Ann. Math. Statist. 22, 1951):
//! `E T = (1/n) sum_ij a_ij`, `Var T = 1/(n-1) sum_ij d_ij^2` with `d` the
//! doubly centred `a` (`d_ij = a_ij - a_i. - a_.j + a_..`, means over a row,
//! a column, everything), and `T` asymptotically normal. Polarisation
//! (`Var(T_S + T_T)`) gives the covariance of two such statistics:
//! `Cov(T_S, T_T) = 1/(n-1) sum_ij d^S_ij d^T_ij`.

use statrs::distribution::{DiscreteCDF, Poisson};

use crate::stats::chi_square_p;

/// The two-sided p-value of a standard normal `z`: `P(|Z| >= |z|)`, from
/// the chi-square survival function with one degree of freedom (`Z^2`),
/// accurate far into the tail.
pub fn normal_two_sided_p(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    chi_square_p(z * z, 1.0)
}

/// `P(X >= x)` for `X ~ Poisson(mean)`.
pub fn poisson_upper_p(x: u64, mean: f64) -> f64 {
    if x == 0 {
        return 1.0;
    }
    Poisson::new(mean).map_or(f64::NAN, |law| law.sf(x - 1))
}

// ---------------------------------------------------------------------------
// Displacement |position - row|

/// The number of cells `(row, position)` of the `n x n` grid with
/// `|position - row| < x`: `n` on the diagonal and `2 (n - d)` at each
/// distance `d = 1..x-1`, so `n + (x - 1)(2n - x)` (all `n^2` cells for
/// `x >= n`). Under a uniform permutation each row's position is uniform, so
/// `P(|D| = d) = n / n^2` for `d = 0` and `2 (n - d) / n^2` for `d >= 1`, and
/// the expected number of rows displaced by less than `x` is this count
/// divided by `n`.
pub fn cells_below(n: u64, x: u64) -> u128 {
    let (n, x) = (n as u128, x.min(n) as u128);
    if x == 0 {
        return 0;
    }
    n + (x - 1) * (2 * n - x)
}

/// `sum_{i=a}^{b-1} (p + q i)(r + s i)` exactly.
fn sum_affine_product(p: i128, q: i128, r: i128, s: i128, a: i128, b: i128) -> i128 {
    if b <= a {
        return 0;
    }
    let count = b - a;
    // sum i and sum i^2 over a..b, as differences of the closed forms.
    let s1 = |m: i128| m * (m - 1) / 2;
    let s2 = |m: i128| (m - 1) * m * (2 * m - 1) / 6;
    let sum_i = s1(b) - s1(a);
    let sum_i2 = s2(b) - s2(a);
    p * r * count + (p * s + q * r) * sum_i + q * s * sum_i2
}

/// `G(x, y) = sum_i F_i(x) F_i(y)` over the rows `i = 0..n`, where
/// `F_i(x) = #{j in 0..n : |i - j| < x} = 1 + min(i, x-1) + min(n-1-i, x-1)`
/// (0 for `x = 0`). Each `F_i` is affine in `i` between the breakpoints
/// `x - 1` and `n - x`, so the sum is a few sums of quadratics, exactly.
fn row_count_products(n: u64, x: u64, y: u64) -> i128 {
    if x == 0 || y == 0 {
        return 0;
    }
    let n = n as i128;
    let (x, y) = (x as i128, y as i128);
    let mut cuts = vec![0, n, x - 1, n - x, y - 1, n - y];
    cuts.retain(|&c| (0..=n).contains(&c));
    cuts.sort_unstable();
    cuts.dedup();
    // F_i(x) = p + q i on a piece starting at `a` (the piece crosses no cut).
    let affine = |x: i128, a: i128| -> (i128, i128) {
        let (mut p, mut q) = (1, 0);
        if a < x - 1 {
            q += 1; // min(i, x-1) = i
        } else {
            p += x - 1;
        }
        if a >= n - x {
            p += n - 1; // min(n-1-i, x-1) = n-1-i
            q -= 1;
        } else {
            p += x - 1;
        }
        (p, q)
    };
    cuts.windows(2)
        .map(|w| {
            let (p, q) = affine(x, w[0]);
            let (r, s) = affine(y, w[0]);
            sum_affine_product(p, q, r, s, w[0], w[1])
        })
        .sum()
}

/// The exact mean and covariance of the counts of rows displaced by
/// `|position - row|` in each bin `edges[b]..edges[b+1]` (the edges
/// increasing, from 0 to at least `n`), under a uniform permutation of `n`.
///
/// Each count is Hoeffding's `T_S` with `a^S_ij = 1[|i - j| in S]`. The
/// score matrix is symmetric, its row and column sums are
/// `c^S_i = F_i(hi) - F_i(lo)` ([`row_count_products`]), its total is the
/// number of cells `N_S` ([`cells_below`]); the doubly centred products sum to
/// `sum_ij d^S d^T = [S = T] N_S - (2/n) sum_i c^S_i c^T_i + N_S N_T / n^2`,
/// so `Cov = that / (n - 1)` and `E T_S = N_S / n`.
pub fn displacement_moments(n: u64, edges: &[u64]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let bins = edges.len() - 1;
    let cells: Vec<u128> = edges
        .windows(2)
        .map(|w| cells_below(n, w[1]) - cells_below(n, w[0]))
        .collect();
    let nf = n as f64;
    let mean: Vec<f64> = cells.iter().map(|&c| c as f64 / nf).collect();
    let products = |s: usize, t: usize| -> i128 {
        let g = |x: u64, y: u64| row_count_products(n, x, y);
        g(edges[s + 1], edges[t + 1]) - g(edges[s + 1], edges[t]) - g(edges[s], edges[t + 1])
            + g(edges[s], edges[t])
    };
    let mut cov = vec![vec![0.0; bins]; bins];
    for s in 0..bins {
        for t in s..bins {
            let diagonal = if s == t { cells[s] as f64 } else { 0.0 };
            let centred = diagonal - 2.0 * products(s, t) as f64 / nf
                + cells[s] as f64 * cells[t] as f64 / (nf * nf);
            cov[s][t] = centred / (nf - 1.0);
            cov[t][s] = cov[s][t];
        }
    }
    (mean, cov)
}

/// The quadratic form `v' C^-1 v` by Cholesky's factorisation of the
/// positive definite `C`; `None` when `C` is not (numerically) positive
/// definite.
pub fn mahalanobis(v: &[f64], c: &[Vec<f64>]) -> Option<f64> {
    let k = v.len();
    let mut l = vec![vec![0.0; k]; k];
    for i in 0..k {
        for j in 0..=i {
            let sum = c[i][j] - (0..j).map(|m| l[i][m] * l[j][m]).sum::<f64>();
            if i == j {
                if sum <= 0.0 {
                    return None;
                }
                l[i][i] = sum.sqrt();
            } else {
                l[i][j] = sum / l[j][j];
            }
        }
    }
    // Solve L y = v; the form is |y|^2.
    let mut y = vec![0.0; k];
    for i in 0..k {
        let sum = v[i] - (0..i).map(|m| l[i][m] * y[m]).sum::<f64>();
        y[i] = sum / l[i][i];
    }
    Some(y.iter().map(|a| a * a).sum())
}

// ---------------------------------------------------------------------------
// Neighbours from the same part (block of rows, shard)

/// The exact mean and variance of the number of adjacent pairs
/// `(order[i], order[i+1])`, `i = 0..n-1`, whose two rows lie in the same
/// part of a partition of the `n` rows into parts of the given sizes, under
/// a uniform permutation.
///
/// Each adjacent pair is a uniform ordered pair of distinct rows, so with
/// `A = sum s(s-1)` the indicator's mean is `p = A / (n)_2`. Two
/// overlapping pairs `(i, i+1), (i+1, i+2)` are three distinct uniform rows:
/// both hit with `p3 = sum s(s-1)(s-2) / (n)_3`. Two disjoint pairs are four
/// distinct rows: both hit with `p4 = (A^2 - sum s^2(s-1)^2 + sum
/// s(s-1)(s-2)(s-3)) / (n)_4` (the second pair in another part, or in the
/// same part as the first). With `m = n - 1` pairs, `m - 1` overlapping
/// pairs of pairs and `(m-1)(m-2)/2` disjoint ones:
/// `Var = m p(1-p) + 2(m-1)(p3 - p^2) + (m-1)(m-2)(p4 - p^2)`, where
/// `p4 - p^2 = [A^2 (4n-6) / (n(n-1)) - sum s(s-1)(4s-6)] / (n)_4` (the
/// difference taken exactly in the algebra, not in floating point).
pub fn same_part_moments(n: u64, sizes: impl IntoIterator<Item = u64>) -> (f64, f64) {
    let nf = n as f64;
    if n < 4 {
        return (0.0, 0.0);
    }
    let (mut a, mut b3, mut e) = (0.0f64, 0.0f64, 0.0f64);
    for s in sizes {
        let s = s as f64;
        a += s * (s - 1.0);
        b3 += s * (s - 1.0) * (s - 2.0);
        e += s * (s - 1.0) * (4.0 * s - 6.0);
    }
    let n2 = nf * (nf - 1.0);
    let n3 = n2 * (nf - 2.0);
    let n4 = n3 * (nf - 3.0);
    let p = a / n2;
    let m = nf - 1.0;
    let p3_minus = b3 / n3 - p * p;
    let p4_minus = (a * a * (4.0 * nf - 6.0) / n2 - e) / n4;
    let var = m * p * (1.0 - p) + 2.0 * (m - 1.0) * p3_minus + (m - 1.0) * (m - 2.0) * p4_minus;
    (m * p, var.max(0.0))
}

/// The sizes of the blocks `row >> k` of the rows `0..n`: `n >> k` blocks of
/// `2^k`, then the rest.
pub fn block_sizes(n: u64, k: u32) -> impl Iterator<Item = u64> {
    let size = 1u64 << k;
    let full = n >> k;
    let rest = n - (full << k);
    std::iter::repeat_n(size, full as usize).chain((rest > 0).then_some(rest))
}

// ---------------------------------------------------------------------------
// Rank correlation and coarse tables

/// Spearman's rank correlation of row number and position, from the sum of
/// the squared displacements: `rho = 1 - 6 sum d^2 / (n (n^2 - 1))`. Under a
/// uniform permutation `E rho = 0` and `Var rho = 1 / (n - 1)` exactly, and
/// `rho sqrt(n - 1)` is asymptotically standard normal (M. G. Kendall, Rank
/// Correlation Methods, 1948, ch. 2; a case of Hoeffding's theorem with
/// `a_ij = i j`).
pub fn spearman(n: u64, squared_displacements: u128) -> (f64, f64) {
    let nf = n as f64;
    let rho = 1.0 - 6.0 * squared_displacements as f64 / (nf * (nf * nf - 1.0));
    (rho, rho * (nf - 1.0).sqrt())
}

/// Pearson's `X^2` of an `r x c` table of counts against the independence
/// of its fixed margins (`rows[u]` rows in row bin `u`, `cols[v]` positions
/// in position bin `v`), scaled by `(n-1)/n`: each cell of a permutation's
/// table is hypergeometric and the table has both margins fixed, so
/// `E X^2 = (r-1)(c-1) n/(n-1)` and the scaled statistic is asymptotically
/// chi-square with `(r-1)(c-1)` degrees of freedom (Hoeffding's theorem on
/// the cells; the same scaling as the lab's position test). Returns the
/// statistic and its degrees of freedom.
pub fn scaled_table_chi_square(counts: &[Vec<u64>], rows: &[u64], cols: &[u64]) -> (f64, f64) {
    let n: u64 = rows.iter().sum();
    let nf = n as f64;
    let mut x2 = 0.0;
    for (u, line) in counts.iter().enumerate() {
        for (v, &o) in line.iter().enumerate() {
            let e = rows[u] as f64 * cols[v] as f64 / nf;
            if e > 0.0 {
                x2 += (o as f64 - e).powi(2) / e;
            }
        }
    }
    let dof = ((rows.len() - 1) * (cols.len() - 1)) as f64;
    (x2 * (nf - 1.0) / nf, dof)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every permutation of `0..n` (Heap's algorithm).
    fn all_permutations(n: usize) -> Vec<Vec<usize>> {
        let mut p: Vec<usize> = (0..n).collect();
        let mut c = vec![0; n];
        let mut out = vec![p.clone()];
        let mut i = 0;
        while i < n {
            if c[i] < i {
                if i % 2 == 0 {
                    p.swap(0, i);
                } else {
                    p.swap(c[i], i);
                }
                out.push(p.clone());
                c[i] += 1;
                i = 0;
            } else {
                c[i] = 0;
                i += 1;
            }
        }
        out
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
    }

    #[test]
    fn cells_below_counts_the_grid() {
        for n in 1..12u64 {
            for x in 0..=n + 2 {
                let brute = (0..n)
                    .flat_map(|i| (0..n).map(move |j| (i, j)))
                    .filter(|&(i, j)| i.abs_diff(j) < x)
                    .count() as u128;
                assert_eq!(cells_below(n, x), brute, "n={n} x={x}");
            }
        }
    }

    #[test]
    fn row_count_products_match_brute_force() {
        for n in 1..15u64 {
            let f = |i: u64, x: u64| (0..n).filter(|&j| i.abs_diff(j) < x).count() as i128;
            for x in 0..=n + 1 {
                for y in 0..=n + 1 {
                    let brute: i128 = (0..n).map(|i| f(i, x) * f(i, y)).sum();
                    assert_eq!(row_count_products(n, x, y), brute, "n={n} x={x} y={y}");
                }
            }
        }
    }

    #[test]
    fn displacement_moments_are_exact_by_enumeration() {
        let n = 7usize;
        let edges = [0u64, 1, 2, 4, 7];
        let (mean, cov) = displacement_moments(n as u64, &edges);
        let bins = edges.len() - 1;
        let perms = all_permutations(n);
        let m = perms.len() as f64;
        let counts: Vec<Vec<f64>> = perms
            .iter()
            .map(|p| {
                let mut c = vec![0.0; bins];
                for (pos, &row) in p.iter().enumerate() {
                    let d = pos.abs_diff(row) as u64;
                    let b = edges
                        .windows(2)
                        .position(|w| w[0] <= d && d < w[1])
                        .unwrap();
                    c[b] += 1.0;
                }
                c
            })
            .collect();
        for s in 0..bins {
            let ms: f64 = counts.iter().map(|c| c[s]).sum::<f64>() / m;
            assert!(close(ms, mean[s]), "mean {s}: {ms} vs {}", mean[s]);
            for t in 0..bins {
                let mt: f64 = counts.iter().map(|c| c[t]).sum::<f64>() / m;
                let cst = counts
                    .iter()
                    .map(|c| (c[s] - ms) * (c[t] - mt))
                    .sum::<f64>()
                    / m;
                assert!(close(cst, cov[s][t]), "cov {s},{t}: {cst} vs {}", cov[s][t]);
            }
        }
    }

    #[test]
    fn same_part_moments_are_exact_by_enumeration() {
        for sizes in [vec![3u64, 2, 2], vec![4, 3], vec![2, 2, 2, 1], vec![7]] {
            let n: u64 = sizes.iter().sum();
            let part: Vec<usize> = sizes
                .iter()
                .enumerate()
                .flat_map(|(b, &s)| std::iter::repeat_n(b, s as usize))
                .collect();
            let perms = all_permutations(n as usize);
            let counts: Vec<f64> = perms
                .iter()
                .map(|p| p.windows(2).filter(|w| part[w[0]] == part[w[1]]).count() as f64)
                .collect();
            let m = counts.len() as f64;
            let mean = counts.iter().sum::<f64>() / m;
            let var = counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / m;
            let (em, ev) = same_part_moments(n, sizes.iter().copied());
            assert!(close(mean, em), "{sizes:?}: mean {mean} vs {em}");
            assert!(close(var, ev), "{sizes:?}: var {var} vs {ev}");
        }
    }

    #[test]
    fn spearman_has_variance_one_over_n_minus_one() {
        let n = 7u64;
        let perms = all_permutations(n as usize);
        let rhos: Vec<f64> = perms
            .iter()
            .map(|p| {
                let d2: u128 = p
                    .iter()
                    .enumerate()
                    .map(|(i, &r)| (i.abs_diff(r) as u128).pow(2))
                    .sum();
                spearman(n, d2).0
            })
            .collect();
        let m = rhos.len() as f64;
        let mean = rhos.iter().sum::<f64>() / m;
        let var = rhos.iter().map(|r| r * r).sum::<f64>() / m;
        assert!(mean.abs() < 1e-12);
        assert!(close(var, 1.0 / (n as f64 - 1.0)));
    }

    #[test]
    fn block_sizes_partition_the_rows() {
        assert_eq!(block_sizes(10, 2).collect::<Vec<_>>(), [4, 4, 2]);
        assert_eq!(block_sizes(8, 2).collect::<Vec<_>>(), [4, 4]);
        assert_eq!(block_sizes(3, 2).collect::<Vec<_>>(), [3]);
    }

    #[test]
    fn tails() {
        assert!((normal_two_sided_p(1.959963984540054) - 0.05).abs() < 1e-9);
        assert_eq!(poisson_upper_p(0, 1.0), 1.0);
        // P(X >= 1) = 1 - e^-1.
        assert!((poisson_upper_p(1, 1.0) - (1.0 - (-1.0f64).exp())).abs() < 1e-12);
        assert!(poisson_upper_p(1000, 1.0) < 1e-300);
    }
}
