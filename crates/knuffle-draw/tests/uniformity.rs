//! Uniformity of the draw (the exact procedure `knuffle draw` runs): a
//! chi-square test over every order of a small population, under fixed
//! seeds, passes for the draw and fails for a biased negative control fed
//! the very same SHA-256 stream (the naive "swap each position with any
//! position" loop of the BASIC write-up, n^n equally likely paths onto n!
//! orders). The tests are knuffle-stats' uniformity battery.

use knuffle_draw::{Mode, Population, Sha256Stream, Source, derive_key, draw_indices};
use knuffle_stats::battery::{self, Verdict};

const N: u64 = 4;
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
    let as_order = |drawn: Vec<u64>| drawn.into_iter().map(|i| i as usize).collect();
    let mut trial = 0;
    let fair = battery::full_permutation(N as usize, TRIALS, ALPHA, |p| {
        *p = as_order(draw_indices(key(trial, Mode::Perm), Mode::Perm, N, N).unwrap());
        trial += 1;
    });
    let mut trial = 0;
    let naive = battery::full_permutation(N as usize, TRIALS, ALPHA, |p| {
        *p = as_order(naive_swap(key(trial, Mode::Perm)));
        trial += 1;
    });
    assert!(fair.passed(), "the draw looks biased: {fair}");
    assert!(
        !naive.passed(),
        "the negative control was not flagged: {naive}"
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
    let verdict = |counts: &[u64]| -> Verdict { battery::uniform_counts(counts, ALPHA) };
    assert!(verdict(&fair).passed(), "{fair:?}: {}", verdict(&fair));
    assert!(
        verdict(&via_draw).passed(),
        "{via_draw:?}: {}",
        verdict(&via_draw)
    );
    assert!(
        !verdict(&modulo).passed(),
        "{modulo:?}: {}",
        verdict(&modulo)
    );
}
