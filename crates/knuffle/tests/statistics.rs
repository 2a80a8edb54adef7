//! Full-permutation chi-square tests (knuffle-stats' uniformity battery)
//! under fixed seeds: every correct
//! algorithm passes, the naive "swap with any position" shuffle fails.

mod common;

use common::*;
use knuffle::{Seed, choose, partial_shuffle, permutation, sample, sattolo, shuffle, shuffled};
use knuffle_stats::perm::unrank;

/// At least 60,000 trials and about 300 expected counts per order: enough
/// for the naive shuffle's bias to stand out at every n tested.
fn trials_for(cells: usize) -> usize {
    (cells * 300).max(60_000)
}

#[test]
fn shuffle_is_uniform_for_n_3_to_6() {
    for n in 3..=6 {
        let mut rng = Seed::from_text(&format!("shuffle-chi2-{n}")).rng();
        let counts = order_counts(n, trials_for(factorial(n)), |p| shuffle(p, &mut rng));
        let verdict = uniform_counts(&counts, PASS_P);
        assert!(verdict.passed(), "shuffle n={n}: {verdict}");
        assert!(counts.iter().all(|&c| c > 0), "every order must occur");
    }
}

#[test]
fn shuffled_copy_is_uniform_for_n_3_to_6() {
    for n in 3..=6 {
        let mut rng = Seed::from_text(&format!("shuffled-chi2-{n}")).rng();
        let verdict = battery::full_permutation(n, trials_for(factorial(n)), PASS_P, |p| {
            let copy = shuffled(p, &mut rng);
            *p = copy;
        });
        assert!(verdict.passed(), "shuffled n={n}: {verdict}");
    }
}

#[test]
fn permutation_is_uniform_for_n_3_to_6() {
    for n in 3..=6 {
        let mut rng = Seed::from_text(&format!("permutation-chi2-{n}")).rng();
        let verdict = battery::full_permutation(n, trials_for(factorial(n)), PASS_P, |p| {
            *p = permutation(n, &mut rng)
        });
        assert!(verdict.passed(), "permutation n={n}: {verdict}");
    }
}

#[test]
fn full_partial_shuffle_is_uniform_for_n_3_to_6() {
    for n in 3..=6 {
        for k in [n - 1, n] {
            let mut rng = Seed::from_text(&format!("partial-chi2-{n}-{k}")).rng();
            let verdict = battery::full_permutation(n, trials_for(factorial(n)), PASS_P, |p| {
                partial_shuffle(p, k, &mut rng);
            });
            assert!(verdict.passed(), "partial_shuffle n={n} k={k}: {verdict}");
        }
    }
}

/// The dealt prefix of k of n is a uniform ordered k-tuple: n!/(n-k)! cells.
#[test]
fn dealt_prefix_is_uniform() {
    for (n, k) in [(4, 1), (4, 2), (5, 2), (6, 3), (7, 2)] {
        let mut rng = Seed::from_text(&format!("deal-chi2-{n}-{k}")).rng();
        let cells = factorial(n) / factorial(n - k);
        let mut index = std::collections::HashMap::new();
        let mut counts = vec![0u64; cells];
        let mut deck: Vec<usize> = (0..n).collect();
        for _ in 0..trials_for(cells) {
            deck.clear();
            deck.extend(0..n);
            let (hand, _) = partial_shuffle(&mut deck, k, &mut rng);
            let next = index.len();
            let cell = *index.entry(hand.to_vec()).or_insert(next);
            counts[cell] += 1;
        }
        assert_eq!(index.len(), cells, "every ordered hand must occur");
        let verdict = uniform_counts(&counts, PASS_P);
        assert!(verdict.passed(), "deal {k} of {n}: {verdict}");
    }
}

/// Sattolo: only single-cycle permutations, uniform over the (n-1)! of them.
#[test]
fn sattolo_is_uniform_over_cycles() {
    for n in 3..=6 {
        let mut rng = Seed::from_text(&format!("sattolo-chi2-{n}")).rng();
        let cells = factorial(n - 1);
        let counts = order_counts(n, trials_for(cells), |p| sattolo(p, &mut rng));
        let support: Vec<u64> = counts
            .iter()
            .enumerate()
            .filter(|&(rank, &c)| {
                let cyclic = is_single_cycle(&unrank(n, rank as u64));
                assert!(cyclic || c == 0, "sattolo produced a non-cyclic order");
                cyclic
            })
            .map(|(_, &c)| c)
            .collect();
        assert_eq!(support.len(), cells);
        let verdict = uniform_counts(&support, PASS_P);
        assert!(verdict.passed(), "sattolo n={n}: {verdict}");
    }
}

/// The same test must catch the naive shuffle (negative control).
#[test]
fn naive_swap_is_rejected_for_n_3_to_6() {
    for n in 3..=6 {
        let mut rng = Seed::from_text(&format!("naive-chi2-{n}")).rng();
        let verdict = battery::full_permutation(n, trials_for(factorial(n)), FAIL_P, |p| {
            naive_swap(p, &mut rng)
        });
        assert!(!verdict.passed(), "naive n={n} not caught: {verdict}");
    }
}

/// The same test must also catch a Durstenfeld loop with an off-by-one bound
/// (partner drawn from 0..i, i.e. Sattolo used as a shuffle).
#[test]
fn off_by_one_is_rejected() {
    for n in 3..=6 {
        let mut rng = Seed::from_text(&format!("offbyone-chi2-{n}")).rng();
        let verdict = battery::full_permutation(n, trials_for(factorial(n)), FAIL_P, |p| {
            sattolo(p, &mut rng)
        });
        assert!(!verdict.passed(), "off-by-one n={n} not caught: {verdict}");
    }
}

fn is_single_cycle(perm: &[usize]) -> bool {
    let mut at = 0;
    for step in 1..=perm.len() {
        at = perm[at];
        if at == 0 {
            return step == perm.len();
        }
    }
    false
}

/// Counts of each ordered k-tuple of `0..n` drawn by `draw` (n!/(n-k)!
/// cells, every one of which must occur).
fn tuple_counts(n: usize, k: usize, mut draw: impl FnMut(&[usize]) -> Vec<usize>) -> Vec<u64> {
    let cells = factorial(n) / factorial(n - k);
    let items: Vec<usize> = (0..n).collect();
    let mut index = std::collections::HashMap::new();
    let mut counts = vec![0u64; cells];
    for _ in 0..trials_for(cells) {
        let tuple = draw(&items);
        let next = index.len();
        let cell = *index.entry(tuple).or_insert(next);
        counts[cell] += 1;
    }
    assert_eq!(
        index.len(),
        cells,
        "every ordered {k}-tuple of {n} must occur"
    );
    counts
}

/// `sample`: k distinct elements, every ordered k-tuple equally likely, on
/// both of its paths (a partial shuffle when n <= 2k, Floyd's algorithm
/// otherwise); `choose` is the case k = 1.
#[test]
fn sample_and_choose_are_uniform() {
    for (n, k) in [(4, 2), (4, 4), (5, 2), (7, 2), (9, 3)] {
        let mut rng = Seed::from_text(&format!("sample-chi2-{n}-{k}")).rng();
        let counts = tuple_counts(n, k, |items| {
            sample(items, k, &mut rng).into_iter().copied().collect()
        });
        let verdict = uniform_counts(&counts, PASS_P);
        assert!(verdict.passed(), "sample {k} of {n}: {verdict}");
    }
    for n in [2, 3, 7] {
        let mut rng = Seed::from_text(&format!("choose-chi2-{n}")).rng();
        let counts = tuple_counts(n, 1, |items| vec![*choose(items, &mut rng).unwrap()]);
        let verdict = uniform_counts(&counts, PASS_P);
        assert!(verdict.passed(), "choose of {n}: {verdict}");
    }
}

/// The same test rejects a biased sampler: the first k after the naive
/// "swap with any position" shuffle.
#[test]
fn a_biased_sample_is_rejected() {
    for (n, k) in [(4, 2), (5, 2)] {
        let mut rng = Seed::from_text(&format!("biased-sample-{n}-{k}")).rng();
        let counts = tuple_counts(n, k, |items| {
            let mut v = items.to_vec();
            naive_swap(&mut v, &mut rng);
            v.truncate(k);
            v
        });
        let verdict = uniform_counts(&counts, FAIL_P);
        assert!(!verdict.passed(), "naive sample {k} of {n}: {verdict}");
    }
}

/// Beyond the full-permutation test's reach: where each item ends (the
/// battery's position test), with the naive shuffle as negative control.
#[test]
fn positions_are_uniform_for_n_8_and_12_and_the_naive_swap_is_rejected() {
    for n in [8, 12] {
        let mut rng = Seed::from_text(&format!("positions-{n}")).rng();
        let verdict = battery::positions(n, 20_000, PASS_P, |p| shuffle(p, &mut rng));
        assert!(verdict.passed(), "shuffle n={n}: {verdict}");
        let mut rng = Seed::from_text(&format!("naive-positions-{n}")).rng();
        let verdict = battery::positions(n, 20_000, FAIL_P, |p| naive_swap(p, &mut rng));
        assert!(!verdict.passed(), "naive n={n} not caught: {verdict}");
    }
}
