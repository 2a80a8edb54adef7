//! One uniformity battery for the tests of every crate: a shuffler is run
//! under a fixed seed, its outputs are counted, and Pearson's chi-square
//! with its p-value (from the survival function) says pass or fail at a
//! significance level.
//!
//! * [`full_permutation`]: every one of the `n!` orders of a small `n`
//!   (Lehmer rank, [`crate::perm::rank`]), `n! - 1` degrees of freedom.
//! * [`positions`]: where each item ends (an `n x n` matrix) for any `n`;
//!   X^2 on the sum of permutation matrices is asymptotically `n/(n-1)`
//!   times a chi-square with `(n-1)^2` dof, so it is scaled by `(n-1)/n`.
//! * [`uniform_counts`]: any counts against equal expectations (values
//!   picked with replacement, subsets, cycles), `cells - 1` dof.
//!
//! The shuffler is a closure that receives the identity `0..n` and permutes
//! it (in place, or by assigning a new vector). Every test that uses the
//! battery keeps its negative control: a biased stand-in that must fail.
//!
//! ```
//! use knuffle_stats::battery;
//! // A "shuffler" that never moves anything fails both tests.
//! let orders = battery::full_permutation(3, 600, 1e-3, |_| {});
//! assert!(!orders.passed(), "{orders}");
//! let positions = battery::positions(3, 600, 1e-3, |_| {});
//! assert!(!positions.passed());
//! // Cycling through all six orders in turn is perfectly even.
//! let mut next = 0;
//! let orders = battery::full_permutation(3, 600, 1e-3, |p| {
//!     *p = knuffle_stats::perm::unrank(3, next % 6);
//!     next += 1;
//! });
//! assert!(orders.passed() && orders.statistic == 0.0, "{orders}");
//! ```

use std::fmt;

use crate::perm;
use crate::stats::chi_square_p;

/// The largest `n` for [`full_permutation`] (`10!` cells of 8 bytes).
pub const MAX_ORDER_N: usize = 10;

/// The outcome of one test of the battery.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// Which test: "orders", "positions" or "counts".
    pub test: &'static str,
    /// Pearson's X^2 (scaled for [`positions`]).
    pub statistic: f64,
    /// Degrees of freedom.
    pub dof: f64,
    /// `P(X >= statistic)` from the chi-square survival function.
    pub p_value: f64,
    /// The significance level the verdict was asked for.
    pub alpha: f64,
}

impl Verdict {
    fn new(test: &'static str, statistic: f64, dof: f64, alpha: f64) -> Verdict {
        Verdict {
            test,
            statistic,
            dof,
            p_value: chi_square_p(statistic, dof),
            alpha,
        }
    }

    /// Whether the p-value is above the significance level: uniformity is
    /// not rejected.
    pub fn passed(&self) -> bool {
        self.p_value > self.alpha
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: X2 = {:.1} on {} dof, p = {:.2e} ({} at alpha {:e})",
            self.test,
            self.statistic,
            self.dof,
            self.p_value,
            if self.passed() { "pass" } else { "fail" },
            self.alpha
        )
    }
}

/// Pearson's X^2 of `counts` against equal expected counts, and its
/// p-value with `counts.len() - 1` degrees of freedom.
///
/// ```
/// let (x2, p) = knuffle_stats::battery::uniform_chi_square(&[10, 10, 10]);
/// assert_eq!((x2, p), (0.0, 1.0));
/// ```
pub fn uniform_chi_square(counts: &[u64]) -> (f64, f64) {
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len() as f64;
    let x2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    (x2, chi_square_p(x2, (counts.len() - 1) as f64))
}

/// The chi-square test of `counts` against equal expectations.
pub fn uniform_counts(counts: &[u64], alpha: f64) -> Verdict {
    let (x2, _) = uniform_chi_square(counts);
    Verdict::new("counts", x2, (counts.len() - 1) as f64, alpha)
}

/// How often each of the `n!` orders (by Lehmer rank) comes out of
/// `shuffle`, which is handed the identity `0..n` in each of `trials` runs.
///
/// # Panics
/// When `n` is above [`MAX_ORDER_N`], or `shuffle` returns something that
/// is not a permutation of `0..n`.
pub fn order_counts(n: usize, trials: usize, mut shuffle: impl FnMut(&mut Vec<usize>)) -> Vec<u64> {
    assert!(
        n <= MAX_ORDER_N,
        "full-permutation counts need n <= {MAX_ORDER_N}"
    );
    let cells = perm::factorial(n).expect("n <= 10") as usize;
    let mut counts = vec![0u64; cells];
    let mut p: Vec<usize> = Vec::with_capacity(n);
    for _ in 0..trials {
        p.clear();
        p.extend(0..n);
        shuffle(&mut p);
        assert_permutation(&p, n);
        counts[perm::rank(&p) as usize] += 1;
    }
    counts
}

/// The full-permutation test: [`order_counts`] against `trials / n!` each.
pub fn full_permutation(
    n: usize,
    trials: usize,
    alpha: f64,
    shuffle: impl FnMut(&mut Vec<usize>),
) -> Verdict {
    let verdict = uniform_counts(&order_counts(n, trials, shuffle), alpha);
    Verdict {
        test: "orders",
        ..verdict
    }
}

/// `counts[item][position]`: how often each item of `0..n` ends at each
/// position, over `trials` runs of `shuffle` on the identity.
pub fn position_counts(
    n: usize,
    trials: usize,
    mut shuffle: impl FnMut(&mut Vec<usize>),
) -> Vec<Vec<u64>> {
    let mut counts = vec![vec![0u64; n]; n];
    let mut p: Vec<usize> = Vec::with_capacity(n);
    for _ in 0..trials {
        p.clear();
        p.extend(0..n);
        shuffle(&mut p);
        assert_permutation(&p, n);
        for (position, &item) in p.iter().enumerate() {
            counts[item][position] += 1;
        }
    }
    counts
}

/// The position test: Pearson's X^2 of [`position_counts`] against
/// `trials / n` per cell, scaled by `(n-1)/n`, with `(n-1)^2` dof.
pub fn positions(
    n: usize,
    trials: usize,
    alpha: f64,
    shuffle: impl FnMut(&mut Vec<usize>),
) -> Verdict {
    assert!(n >= 2, "the position test needs n >= 2");
    let counts = position_counts(n, trials, shuffle);
    let expected = trials as f64 / n as f64;
    let x2: f64 = counts
        .iter()
        .flatten()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    let m = n as f64;
    Verdict::new(
        "positions",
        x2 * (m - 1.0) / m,
        (m - 1.0) * (m - 1.0),
        alpha,
    )
}

fn assert_permutation(p: &[usize], n: usize) {
    let mut seen = vec![false; n];
    assert_eq!(p.len(), n, "the shuffler changed the length");
    for &x in p {
        assert!(
            x < n && !seen[x],
            "the shuffler's output is not a permutation: {p:?}"
        );
        seen[x] = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift generator: the battery's own tests need no crate.
    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    fn below(n: usize, state: &mut u64) -> usize {
        ((u128::from(xorshift(state)) * n as u128) >> 64) as usize
    }

    #[test]
    fn a_fair_shuffle_passes_and_the_naive_swap_fails() {
        let mut state = 0x9E37_79B9_7F4A_7C15;
        let fair = |p: &mut Vec<usize>, s: &mut u64| {
            for i in (1..p.len()).rev() {
                let j = below(i + 1, s);
                p.swap(i, j);
            }
        };
        let orders = full_permutation(4, 24 * 500, 1e-3, |p| fair(p, &mut state));
        assert!(orders.passed(), "{orders}");
        assert_eq!(orders.dof, 23.0);
        let pos = positions(6, 6000, 1e-3, |p| fair(p, &mut state));
        assert!(pos.passed(), "{pos}");
        assert_eq!(pos.dof, 25.0);
        // Negative control: swap each position with any position.
        let naive = |p: &mut Vec<usize>, s: &mut u64| {
            for i in 0..p.len() {
                let j = below(p.len(), s);
                p.swap(i, j);
            }
        };
        let orders = full_permutation(4, 24 * 500, 1e-3, |p| naive(p, &mut state));
        assert!(!orders.passed(), "{orders}");
        let pos = positions(6, 60_000, 1e-3, |p| naive(p, &mut state));
        assert!(!pos.passed(), "{pos}");
    }

    #[test]
    fn counts_and_display() {
        let v = uniform_counts(&[100, 0, 0], 1e-3);
        assert!(!v.passed());
        assert!(
            v.to_string().starts_with("counts: X2 = 200.0 on 2 dof"),
            "{v}"
        );
        assert!(v.to_string().ends_with("(fail at alpha 1e-3)"), "{v}");
    }

    #[test]
    #[should_panic(expected = "not a permutation")]
    fn a_shuffler_that_loses_an_item_is_refused() {
        order_counts(3, 1, |p| p[0] = p[1]);
    }
}
