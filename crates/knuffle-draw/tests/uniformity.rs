//! Uniformity of the draw (the exact procedure `knuffle draw` runs): a
//! chi-square test over every order of a small population, under fixed
//! seeds, passes for the draw and fails for a biased negative control fed
//! the very same SHA-256 stream (the naive "swap each position with any
//! position" loop of the BASIC write-up, n^n equally likely paths onto n!
//! orders).

use knuffle_draw::{Mode, Population, Sha256Stream, Source, derive_key, draw_indices};
use knuffle_stats::stats::chi_square_p;

const N: u64 = 4;
const ORDERS: usize = 24;
const TRIALS: usize = 24 * 400;
/// A correct draw fails this with probability 0.001 (fixed seeds: it
/// either always passes or always fails).
const ALPHA: f64 = 1e-3;

fn key(trial: usize, mode: Mode) -> [u8; 32] {
    let population = Population::range(1, N).unwrap();
    derive_key(
        mode,
        &population.digest(),
        &[Source::Text(format!("uniformity trial {trial}"))],
    )
}

/// The Lehmer rank of a permutation of `0..n`.
fn rank(perm: &[u64]) -> usize {
    let mut rank = 0;
    for i in 0..perm.len() {
        let smaller_after = perm[i + 1..].iter().filter(|&&x| x < perm[i]).count();
        rank = rank * (perm.len() - i) + smaller_after;
    }
    rank
}

fn p_value(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len() as f64;
    let x2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    chi_square_p(x2, (counts.len() - 1) as f64)
}

/// The naive loop: for every position i, swap with below(n) (any position).
fn naive_swap(key: [u8; 32]) -> Vec<u64> {
    let mut stream = Sha256Stream::new(key);
    let mut a: Vec<u64> = (0..N).collect();
    for i in 0..N as usize {
        let j = knuffle::below(N, &mut stream) as usize;
        a.swap(i, j);
    }
    a
}

#[test]
fn every_order_of_four_items_is_equally_likely_and_the_naive_swap_is_caught() {
    let mut fair = vec![0u64; ORDERS];
    let mut naive = vec![0u64; ORDERS];
    for trial in 0..TRIALS {
        let k = key(trial, Mode::Perm);
        fair[rank(&draw_indices(k, Mode::Perm, N, N).unwrap())] += 1;
        naive[rank(&naive_swap(k))] += 1;
    }
    let p_fair = p_value(&fair);
    let p_naive = p_value(&naive);
    assert!(
        p_fair > ALPHA,
        "the draw looks biased: p = {p_fair}, counts {fair:?}"
    );
    assert!(
        p_naive < ALPHA,
        "the negative control was not flagged: p = {p_naive}, counts {naive:?}"
    );
}

#[test]
fn picks_with_replacement_are_uniform_and_a_modulo_reduction_is_caught() {
    // Three values. The control is the classic `% n` on too few random
    // bits: the top two bits of each word (0..4) modulo 3, so value 0 gets
    // 2 chances in 4.
    let mut fair = vec![0u64; 3];
    let mut modulo = vec![0u64; 3];
    let mut stream_fair = Sha256Stream::new(key(0, Mode::Replace));
    let mut stream_mod = Sha256Stream::new(key(0, Mode::Replace));
    for _ in 0..3000 {
        fair[knuffle::below(3, &mut stream_fair) as usize] += 1;
        let two_bits = rand_core::Rng::next_u64(&mut stream_mod) >> 62;
        modulo[(two_bits % 3) as usize] += 1;
    }
    let drawn = draw_indices(key(1, Mode::Replace), Mode::Replace, 3, 3000).unwrap();
    let mut via_draw = vec![0u64; 3];
    for i in drawn {
        via_draw[i as usize] += 1;
    }
    assert!(p_value(&fair) > ALPHA, "{fair:?}");
    assert!(p_value(&via_draw) > ALPHA, "{via_draw:?}");
    assert!(p_value(&modulo) < ALPHA, "{modulo:?}");
}
