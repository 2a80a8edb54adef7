//! The epoch order (`EpochOrder`): every order of 4 and 5 rows equally
//! likely over many seeds and epochs (a stand-in without tie shuffles must
//! fail the same test), equal to the table order of the epoch's seed text
//! at every position, range and window size, and one consumer's share
//! (`r::R`) of every split merging back into the order.

use knuffle_stats::battery::uniform_counts;
use knuffle_stats::perm;
use knuffle_table::{EpochOrder, MAX_ROWS, TableOrder, epoch_seed, table_order};

/// Significance for "this order is fair": a correct one must not fall
/// below it with these fixed seeds.
const PASS_P: f64 = 1e-3;
/// The stand-in must fall below this.
const FAIL_P: f64 = 1e-9;

/// The counts of each of the `n!` orders (by Lehmer rank) among `orders`.
fn counts(n: usize, orders: impl Iterator<Item = Vec<u64>>) -> Vec<u64> {
    let mut counts = vec![0u64; perm::factorial(n).unwrap() as usize];
    for order in orders {
        let p: Vec<usize> = order.into_iter().map(|r| r as usize).collect();
        counts[perm::rank(&p) as usize] += 1;
    }
    counts
}

/// Epoch `epoch` of `seed` for `n` rows, read through a cursor.
fn epoch(seed: &str, epoch: u64, n: u64) -> Vec<u64> {
    EpochOrder::new(seed, epoch, n).unwrap().cursor(0).collect()
}

/// A wrong epoch order: labels of 2 bits and ties left in row order (no
/// tie shuffle), so rows that share a label keep their input order.
fn without_tie_shuffles(seed: &str, epoch: u64, n: u64) -> Vec<u64> {
    let labels = TableOrder::new(&epoch_seed(seed, epoch)).labels(0, n as usize);
    let mut pairs: Vec<(u32, u64)> = labels.into_iter().map(|l| l >> 30).zip(0..).collect();
    pairs.sort_unstable();
    pairs.into_iter().map(|(_, row)| row).collect()
}

#[test]
fn every_order_of_four_rows_is_equally_likely_over_seeds() {
    // 24 orders, 250 expected each: Pearson's chi-square with 23 degrees
    // of freedom (knuffle_stats::battery::uniform_counts).
    let orders = (0..6000).map(|t| epoch(&format!("seed {t}"), 1, 4));
    let verdict = uniform_counts(&counts(4, orders), PASS_P);
    assert!(verdict.passed(), "{verdict}");
    let wrong = (0..6000).map(|t| without_tie_shuffles(&format!("seed {t}"), 1, 4));
    let verdict = uniform_counts(&counts(4, wrong), FAIL_P);
    assert!(!verdict.passed(), "the stand-in passed: {verdict}");
}

#[test]
fn every_order_of_five_rows_is_equally_likely_over_epochs() {
    // 120 orders, 100 expected each, over the epochs of one seed: the
    // epochs' orders are independent draws.
    let orders = (0..12_000).map(|e| epoch("one seed", e, 5));
    let verdict = uniform_counts(&counts(5, orders), PASS_P);
    assert!(verdict.passed(), "{verdict}");
    let wrong = (0..12_000).map(|e| without_tie_shuffles("one seed", e, 5));
    let verdict = uniform_counts(&counts(5, wrong), FAIL_P);
    assert!(!verdict.passed(), "the stand-in passed: {verdict}");
}

#[test]
fn equals_the_table_order_of_the_epoch_seed() {
    for (seed, epoch, n) in [
        ("", 0u64, 0u64),
        ("a", 0, 1),
        ("friday poker", 0, 10),
        ("friday poker", 1, 10),
        ("42", 7, 20),
        ("medium", 2, 123_457),
    ] {
        let reference = table_order(&epoch_seed(seed, epoch), n);
        let order = EpochOrder::new(seed, epoch, n).unwrap();
        let rows: Vec<u64> = order.cursor(0).collect();
        assert_eq!(rows, reference, "{seed:?} epoch {epoch}, n = {n}");
        if n > 0 {
            assert_eq!(order.get(n / 2), reference[n as usize / 2]);
        }
    }
    // Epoch 0 is the seed's own table order.
    assert_eq!(
        epoch("friday poker", 0, 10),
        table_order("friday poker", 10)
    );
}

#[test]
fn ranges_across_windows_and_buckets_agree() {
    let n = 1_000_003u64;
    let reference = table_order(&epoch_seed("ranges", 3), n);
    // Windows of 1 row (one bucket each: about 15 rows), 1000 rows and the
    // default: ranges start and end inside and across them.
    for window in [1usize, 1000, usize::MAX] {
        let order = EpochOrder::new("ranges", 3, n)
            .unwrap()
            .with_window_rows(window);
        for (from, len) in [(0u64, 40usize), (14, 3), (999_990, 13), (500_000, 5000)] {
            let mut out = vec![0; len];
            order.fill(from, &mut out);
            assert_eq!(out, reference[from as usize..][..len], "{window} {from}");
        }
        let mut cursor = order.cursor(123_456);
        let tail: Vec<u64> = cursor.by_ref().take(3000).collect();
        assert_eq!(tail, reference[123_456..126_456]);
        assert_eq!(cursor.position(), 126_456);
    }
}

#[test]
fn every_consumer_split_merges_back_into_the_order() {
    let n = 10_007u64;
    let order = EpochOrder::new("split", 5, n)
        .unwrap()
        .with_window_rows(700);
    let whole: Vec<u64> = order.cursor(0).collect();
    for consumers in 1..=12u64 {
        let mut merged = vec![u64::MAX; n as usize];
        for c in 0..consumers {
            let mut cursor = order.cursor(0);
            let mut position = c;
            while position < n {
                cursor.seek(position);
                merged[position as usize] = cursor.next().unwrap();
                position += consumers;
            }
        }
        assert_eq!(merged, whole, "{consumers} consumers");
    }
}

#[test]
fn too_many_rows_is_refused() {
    assert!(EpochOrder::new("s", u64::MAX, MAX_ROWS).is_ok());
    assert!(EpochOrder::new("s", 0, MAX_ROWS + 1).is_err());
    assert!(EpochOrder::new("s", 0, u64::MAX).is_err());
}
