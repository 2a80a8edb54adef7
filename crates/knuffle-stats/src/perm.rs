//! Permutations as numbers and their classic statistics.
//!
//! A permutation here is a slice `p` of `0..n` in which `p[position]` is the
//! item found at `position` (the item that started at position `p[position]`
//! when shuffling the identity).

/// `n!`, or `None` when it does not fit in a `u64` (n > 20).
///
/// ```
/// assert_eq!(knuffle_stats::perm::factorial(4), Some(24));
/// assert_eq!(knuffle_stats::perm::factorial(21), None);
/// ```
pub fn factorial(n: usize) -> Option<u64> {
    (1..=n as u64).try_fold(1u64, |acc, k| acc.checked_mul(k))
}

/// The Lehmer-code rank of `p` among the `n!` permutations in
/// lexicographic order (the identity is 0, the reversal `n! - 1`).
/// `n` must be at most 20.
///
/// ```
/// use knuffle_stats::perm::{rank, unrank};
/// assert_eq!(rank(&[0, 1, 2, 3]), 0);
/// assert_eq!(rank(&[3, 2, 1, 0]), 23);
/// assert_eq!(unrank(4, rank(&[2, 0, 3, 1])), vec![2, 0, 3, 1]);
/// ```
#[inline]
pub fn rank(p: &[usize]) -> u64 {
    let n = p.len();
    let mut r = 0u64;
    for i in 0..n {
        let mut smaller_after = 0u64;
        for &later in &p[i + 1..] {
            smaller_after += u64::from(later < p[i]);
        }
        r = r * (n - i) as u64 + smaller_after;
    }
    r
}

/// The permutation of `0..n` with Lehmer rank `r` (inverse of [`rank`]).
pub fn unrank(n: usize, mut r: u64) -> Vec<usize> {
    let mut digits = vec![0usize; n];
    for i in (0..n).rev() {
        let radix = (n - i) as u64;
        digits[i] = (r % radix) as usize;
        r /= radix;
    }
    let mut pool: Vec<usize> = (0..n).collect();
    digits.iter().map(|&d| pool.remove(d)).collect()
}

/// Positions where the item did not move.
pub fn fixed_points(p: &[usize]) -> usize {
    p.iter().enumerate().filter(|&(i, &x)| i == x).count()
}

/// Number of cycles (fixed points count as cycles of length 1).
pub fn cycles(p: &[usize]) -> usize {
    let n = p.len();
    let mut seen = vec![false; n];
    let mut count = 0;
    for start in 0..n {
        if seen[start] {
            continue;
        }
        count += 1;
        let mut i = start;
        while !seen[i] {
            seen[i] = true;
            i = p[i];
        }
    }
    count
}

/// Number of rises (ascents): positions `i` with `p[i] < p[i+1]`.
pub fn rises(p: &[usize]) -> usize {
    p.windows(2).filter(|w| w[0] < w[1]).count()
}

/// Adjacent pairs kept together: positions `i` with `p[i+1] == p[i] + 1`
/// (items that were neighbours in the input and still are, in order).
pub fn adjacent_pairs_kept(p: &[usize]) -> usize {
    p.windows(2).filter(|w| w[1] == w[0] + 1).count()
}

/// Exact distributions (probabilities for `k = 0..=n`) of the statistics
/// above under a uniformly random permutation of `n`.
pub mod law {
    /// Fixed points (rencontres): `P(k) = (1/k!) * sum_{j=0}^{n-k} (-1)^j / j!`.
    pub fn fixed_points(n: usize) -> Vec<f64> {
        (0..=n)
            .map(|k| {
                let factorial = factorial_f(k);
                if factorial.is_infinite() {
                    // A finite sum over an infinite k!: exactly 0.
                    return 0.0;
                }
                let mut term = 1.0;
                let mut sum = 0.0;
                for j in 0..=(n - k) {
                    if j > 0 {
                        term /= -(j as f64);
                    }
                    if term == 0.0 {
                        // 1/j! underflowed: every later term adds exactly 0.
                        break;
                    }
                    sum += term;
                }
                sum / factorial
            })
            .collect()
    }

    /// Cycle count (unsigned Stirling numbers of the first kind over `n!`).
    ///
    /// The recurrence `P_m(k) = P_{m-1}(k) (m-1)/m + P_{m-1}(k-1)/m` runs in
    /// place over the entries that are not exactly 0 (the upper tail
    /// underflows after a few hundred cycles), so the cost is O(n) times
    /// that width, not O(n^2); every value is the one the full recurrence
    /// gives, bit for bit (a zero entry only ever adds +0.0).
    pub fn cycles(n: usize) -> Vec<f64> {
        let mut p = vec![0.0; n + 1];
        p[0] = 1.0;
        // Entries at `live..` are exactly 0.
        let mut live = 1;
        for m in 1..=n {
            let mf = m as f64;
            let stay = (m - 1) as f64;
            // Downwards, so that p[k - 1] is still the previous step's.
            let top = live.min(m);
            p[top] = p[top - 1] / mf;
            for k in (1..top).rev() {
                p[k] = p[k - 1] / mf + p[k] * stay / mf;
            }
            p[0] = p[0] * stay / mf;
            live = top + 1;
            while live > 1 && p[live - 1] == 0.0 {
                live -= 1;
            }
        }
        p
    }

    /// Rises (Eulerian numbers over `n!`).
    ///
    /// Up to [`EXACT_RISES_MAX_N`] items the recurrence is run (O(n^2));
    /// above it, where the Eulerian distribution is normal to within a
    /// relative O(1/n) (mean `(n-1)/2`, variance `(n+1)/12`; Bender 1973,
    /// "Central and local limit theorems applied to asymptotic
    /// enumeration"), the normal law with continuity correction (O(n)).
    pub fn rises(n: usize) -> Vec<f64> {
        if n > EXACT_RISES_MAX_N {
            return rises_normal(n);
        }
        if n == 0 {
            return vec![1.0];
        }
        let mut p = vec![1.0];
        for m in 2..=n {
            let mut next = vec![0.0; m];
            for k in 0..m {
                let stay = if k < p.len() {
                    (k + 1) as f64 * p[k]
                } else {
                    0.0
                };
                let up = if k >= 1 && k - 1 < p.len() {
                    (m - k) as f64 * p[k - 1]
                } else {
                    0.0
                };
                next[k] = (stay + up) / m as f64;
            }
            p = next;
        }
        p.resize(n + 1, 0.0);
        p
    }

    /// Adjacent pairs kept (successions): `P(k) = r(n-k) (n-k) / (n k!)`,
    /// `r(m)` the probability that a permutation of `m` has none.
    pub fn adjacent_pairs_kept(n: usize) -> Vec<f64> {
        if n == 0 {
            return vec![1.0];
        }
        // r(m) = R(m)/m!, R(m) = (m-1)R(m-1) + (m-2)R(m-2), R(1) = R(2) = 1.
        let mut r = vec![1.0; n + 1];
        if n >= 2 {
            r[2] = 0.5;
        }
        for m in 3..=n {
            r[m] =
                ((m - 1) as f64 * r[m - 1] + (m - 2) as f64 * r[m - 2] / (m - 1) as f64) / m as f64;
        }
        (0..=n)
            .map(|k| {
                if k == n {
                    0.0
                } else {
                    r[n - k] * (n - k) as f64 / (n as f64 * factorial_f(k))
                }
            })
            .collect()
    }

    /// Above this many items [`rises`] uses the normal law.
    pub const EXACT_RISES_MAX_N: usize = 5000;

    /// The normal approximation of [`rises`] for large `n`.
    pub(crate) fn rises_normal(n: usize) -> Vec<f64> {
        use statrs::distribution::{ContinuousCDF, Normal};
        let mean = (n as f64 - 1.0) / 2.0;
        let sd = ((n as f64 + 1.0) / 12.0).sqrt();
        let normal = Normal::new(mean, sd).expect("a positive standard deviation");
        let mut p: Vec<f64> = (0..=n)
            .map(|k| {
                if k == n {
                    0.0
                } else {
                    normal.cdf(k as f64 + 0.5) - normal.cdf(k as f64 - 0.5)
                }
            })
            .collect();
        let total: f64 = p.iter().sum();
        p.iter_mut().for_each(|x| *x /= total);
        p
    }

    /// `k!` as a float: infinite from 171 on (where the product overflows),
    /// without multiplying further.
    fn factorial_f(k: usize) -> f64 {
        if k > 170 {
            return f64::INFINITY;
        }
        (1..=k).map(|x| x as f64).product()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_perms(n: usize) -> Vec<Vec<usize>> {
        (0..factorial(n).unwrap()).map(|r| unrank(n, r)).collect()
    }

    #[test]
    fn rank_and_unrank_are_inverse_and_lexicographic() {
        let perms = all_perms(5);
        for (r, p) in perms.iter().enumerate() {
            assert_eq!(rank(p), r as u64);
        }
        let mut sorted = perms.clone();
        sorted.sort();
        assert_eq!(sorted, perms);
    }

    /// The quadratic recurrences these laws replaced, kept as references.
    fn cycles_quadratic(n: usize) -> Vec<f64> {
        let mut p = vec![1.0];
        for m in 1..=n {
            let mut next = vec![0.0; m + 1];
            for (k, &q) in p.iter().enumerate() {
                next[k] += q * (m - 1) as f64 / m as f64;
                next[k + 1] += q / m as f64;
            }
            p = next;
        }
        p.resize(n + 1, 0.0);
        p
    }

    fn fixed_points_quadratic(n: usize) -> Vec<f64> {
        (0..=n)
            .map(|k| {
                let mut term = 1.0;
                let mut sum = 0.0;
                for j in 0..=(n - k) {
                    if j > 0 {
                        term /= -(j as f64);
                    }
                    sum += term;
                }
                sum / (1..=k).map(|x| x as f64).product::<f64>()
            })
            .collect()
    }

    #[test]
    fn linear_laws_equal_the_quadratic_recurrences_bit_for_bit() {
        for n in [0, 1, 2, 5, 52, 170, 171, 172, 400, 2500] {
            assert_eq!(law::cycles(n), cycles_quadratic(n), "cycles n = {n}");
            assert_eq!(
                law::fixed_points(n),
                fixed_points_quadratic(n),
                "fixed n = {n}"
            );
        }
    }

    #[test]
    fn the_normal_rises_law_is_close_to_the_exact_one() {
        let n = law::EXACT_RISES_MAX_N;
        let exact = law::rises(n);
        let normal = law::rises_normal(n);
        let distance: f64 = exact.iter().zip(&normal).map(|(a, b)| (a - b).abs()).sum();
        assert!(distance < 1e-3, "total variation {distance}");
        let big = law::rises(100_000);
        assert_eq!(big.len(), 100_001);
        assert!((big.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn laws_match_enumeration() {
        for n in 1..=6 {
            let perms = all_perms(n);
            let total = perms.len() as f64;
            let check = |f: fn(&[usize]) -> usize, law: Vec<f64>| {
                let mut counts = vec![0.0; n + 1];
                for p in &perms {
                    counts[f(p)] += 1.0;
                }
                for k in 0..=n {
                    assert!((counts[k] / total - law[k]).abs() < 1e-12, "n={n} k={k}");
                }
            };
            check(fixed_points, law::fixed_points(n));
            check(cycles, law::cycles(n));
            check(rises, law::rises(n));
            check(adjacent_pairs_kept, law::adjacent_pairs_kept(n));
        }
    }
}
