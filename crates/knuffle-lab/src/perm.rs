//! Permutations as numbers and their classic statistics.
//!
//! A permutation here is a slice `p` of `0..n` in which `p[position]` is the
//! item found at `position` (the item that started at position `p[position]`
//! when shuffling the identity).

/// `n!`, or `None` when it does not fit in a `u64` (n > 20).
///
/// ```
/// assert_eq!(knuffle_lab::perm::factorial(4), Some(24));
/// assert_eq!(knuffle_lab::perm::factorial(21), None);
/// ```
pub fn factorial(n: usize) -> Option<u64> {
    (1..=n as u64).try_fold(1u64, |acc, k| acc.checked_mul(k))
}

/// The Lehmer-code rank of `p` among the `n!` permutations in
/// lexicographic order (the identity is 0, the reversal `n! - 1`).
/// `n` must be at most 20.
///
/// ```
/// use knuffle_lab::perm::{rank, unrank};
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
                let mut term = 1.0;
                let mut sum = 0.0;
                for j in 0..=(n - k) {
                    if j > 0 {
                        term /= -(j as f64);
                    }
                    sum += term;
                }
                sum / factorial_f(k)
            })
            .collect()
    }

    /// Cycle count (unsigned Stirling numbers of the first kind over `n!`).
    pub fn cycles(n: usize) -> Vec<f64> {
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

    /// Rises (Eulerian numbers over `n!`).
    pub fn rises(n: usize) -> Vec<f64> {
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

    fn factorial_f(k: usize) -> f64 {
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
