//! Shared helpers for the statistical tests: significance levels and the
//! negative control; ranking, counting and the chi-square tests are
//! knuffle-stats' uniformity battery.
#![allow(dead_code)]

#[allow(unused_imports)] // not every test binary uses every helper
pub use knuffle_stats::battery::{self, order_counts, uniform_counts};

/// `n!` as a count of cells (`n <= 20`).
pub fn factorial(n: usize) -> usize {
    knuffle_stats::perm::factorial(n).expect("n <= 20") as usize
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
