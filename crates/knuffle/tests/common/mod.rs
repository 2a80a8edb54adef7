//! Shared helpers for the statistical tests: ranking permutations and
//! Pearson's chi-square with its p-value.
#![allow(dead_code)]

use statrs::distribution::{ChiSquared, ContinuousCDF};

/// The Lehmer-code rank of a permutation of `0..n`, in `0..n!`.
pub fn lehmer_rank(perm: &[usize]) -> usize {
    let n = perm.len();
    let mut rank = 0;
    for i in 0..n {
        let smaller_after = perm[i + 1..].iter().filter(|&&x| x < perm[i]).count();
        rank = rank * (n - i) + smaller_after;
    }
    rank
}

pub fn factorial(n: usize) -> usize {
    (1..=n).product()
}

/// Pearson's X^2 of `counts` against equal expected counts, and its p-value
/// from the chi-square survival function with `counts.len() - 1` dof.
pub fn chi_square_uniform(counts: &[u64]) -> (f64, f64) {
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len() as f64;
    let x2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    let dof = (counts.len() - 1) as f64;
    let p = ChiSquared::new(dof).expect("dof > 0").sf(x2);
    (x2, p)
}

/// Significance for "this shuffler is fair": a correct shuffler under a
/// fixed seed must not fall below it.
pub const PASS_P: f64 = 1e-3;
/// A known-biased shuffler must fall below this.
pub const FAIL_P: f64 = 1e-9;

/// The classic wrong shuffle ("How not to shuffle #2" in "Shuffle things
/// in .Net", 2009; shuffle.bas in "Random BASIC shuffling revisited"):
/// swap each position with any position. Negative control.
pub fn naive_swap<T, R: knuffle::rand_core::Rng + ?Sized>(slice: &mut [T], rng: &mut R) {
    let n = slice.len() as u64;
    for i in 0..slice.len() {
        let j = knuffle::below(n, rng) as usize;
        slice.swap(i, j);
    }
}

/// Counts how often each of the `n!` orders comes out of `shuffler`.
pub fn order_counts(
    n: usize,
    trials: usize,
    mut shuffler: impl FnMut(&mut Vec<usize>),
) -> Vec<u64> {
    let mut counts = vec![0u64; factorial(n)];
    let mut perm: Vec<usize> = Vec::with_capacity(n);
    for _ in 0..trials {
        perm.clear();
        perm.extend(0..n);
        shuffler(&mut perm);
        counts[lehmer_rank(&perm)] += 1;
    }
    counts
}
