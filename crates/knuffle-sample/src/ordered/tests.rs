use super::*;
use crate::output::Destination;

/// The records `(key, bytes)` through a sorter of `budget` bytes (tiny
/// budgets force runs and merges in several levels); the output and
/// whether runs were written.
fn sorted(records: &[(u64, Vec<u8>)], budget: u64, shuffled: bool, seed: &str) -> (Vec<u8>, bool) {
    let ties = if shuffled {
        Ties::Table(TableOrder::new(seed))
    } else {
        Ties::InputOrder
    };
    let mut sort = KeyedSort::with_budget(budget, 64, None, ties);
    for (key, bytes) in records {
        sort.push(*key, bytes).unwrap();
    }
    let spilled = !sort.runs.is_empty();
    let mut bytes = Vec::new();
    let mut out = Output::open(Destination::Writer(&mut bytes), 1 << 30).unwrap();
    sort.finish(&mut out, &|key| Some((key.to_string(), b':')))
        .unwrap();
    out.finish().unwrap();
    (bytes, spilled)
}

/// `n` records with keys below `keys` (many ties when small) and
/// lengths up to `long`.
fn records(n: usize, keys: u64, long: usize, seed: u64) -> Vec<(u64, Vec<u8>)> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|i| {
            // Multiply-shift onto 0..keys (test data, not a draw).
            let key = ((u128::from(next()) * u128::from(keys)) >> 64) as u64;
            let len = ((u128::from(next()) * long as u128) >> 64) as usize;
            let mut bytes = format!("{i} ").into_bytes();
            bytes.extend(std::iter::repeat_n(b'x', len));
            bytes.push(b'\n');
            (key, bytes)
        })
        .collect()
}

#[test]
fn merged_runs_give_exactly_the_in_memory_order() {
    for (case, &(n, keys, long)) in [
        (2000usize, 5u64, 40usize),
        (3000, 1 << 40, 200),
        (500, 1, 10),
        (300, 3, 5000),
    ]
    .iter()
    .enumerate()
    {
        let input = records(n, keys, long, case as u64 + 7);
        for shuffled in [true, false] {
            for seed in ["a", "b"] {
                let (held, spilled) = sorted(&input, 1 << 30, shuffled, seed);
                assert!(!spilled);
                let need: u64 = input.iter().map(|r| r.1.len() as u64 + ENTRY_BYTES).sum();
                for budget in [100, 600, 4 << 10, 16 << 10, 64 << 10] {
                    let (merged, spilled) = sorted(&input, budget, shuffled, seed);
                    assert!(spilled || need <= budget, "case {case}: budget {budget}");
                    assert!(
                        merged == held,
                        "case {case} shuffled {shuffled} seed {seed} budget {budget}: the merge differs"
                    );
                }
            }
        }
        // A permutation, ordered by key.
        let (held, _) = sorted(&input, 1 << 30, false, "c");
        let lines: Vec<&[u8]> = held.split_inclusive(|&b| b == b'\n').collect();
        assert_eq!(lines.len(), n);
        let key_of = |line: &[u8]| -> u64 {
            let colon = line.iter().position(|&b| b == b':').unwrap();
            std::str::from_utf8(&line[..colon])
                .unwrap()
                .parse()
                .unwrap()
        };
        assert!(lines.windows(2).all(|w| key_of(w[0]) <= key_of(w[1])));
        let mut got: Vec<Vec<u8>> = lines
            .iter()
            .map(|l| l[l.iter().position(|&b| b == b':').unwrap() + 1..].to_vec())
            .collect();
        let mut want: Vec<Vec<u8>> = input.iter().map(|r| r.1.clone()).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want);
    }
}

#[test]
fn ties_in_input_order_keep_it() {
    let input = records(1000, 4, 8, 3);
    let (held, _) = sorted(&input, 2 << 10, false, "t");
    let numbers: Vec<(u64, u64)> = held
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let text = std::str::from_utf8(l).unwrap();
            let (key, rest) = text.split_once(':').unwrap();
            let index = rest.split(' ').next().unwrap();
            (key.parse().unwrap(), index.parse().unwrap())
        })
        .collect();
    let mut expected = numbers.clone();
    expected.sort_unstable();
    assert_eq!(numbers, expected);
}

/// The index of an order of 4 records (Lehmer code).
fn rank(order: &[u8]) -> usize {
    let mut rank = 0;
    for i in 0..order.len() {
        let smaller = order[i + 1..].iter().filter(|&&x| x < order[i]).count();
        rank = rank * (order.len() - i) + smaller;
    }
    rank
}

fn chi_square(counts: &[u64]) -> f64 {
    let expected = counts.iter().sum::<u64>() as f64 / counts.len() as f64;
    counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum()
}

#[test]
fn shuffled_ties_take_every_order_equally_often_and_input_order_fails() {
    // 4 records of one key: their order is the ties' shuffle alone.
    // 2,400 runs through the merge (a budget of one record: four
    // runs), 100 per order expected; chi-square with 23 degrees of
    // freedom at p = 0.001: 49.73. Fixed seeds: deterministic.
    const CRITICAL: f64 = 49.73;
    let input: Vec<(u64, Vec<u8>)> = (b'a'..=b'd').map(|c| (9, vec![c, b'\n'])).collect();
    for (shuffled, fair) in [(true, true), (false, false)] {
        let mut counts = [0u64; 24];
        for run in 0..2400 {
            let (out, spilled) = sorted(&input, 100, shuffled, &format!("tie {run}"));
            assert!(spilled);
            let order: Vec<u8> = out
                .iter()
                .copied()
                .filter(|b| b.is_ascii_lowercase())
                .collect();
            counts[rank(&order)] += 1;
        }
        let statistic = chi_square(&counts);
        assert_eq!(
            statistic < CRITICAL,
            fair,
            "shuffled {shuffled}: {statistic} {counts:?}"
        );
    }
}

#[test]
fn a_record_longer_than_the_budget_is_a_run_of_its_own() {
    let mut input = records(200, 1 << 20, 30, 5);
    input[77].1 = [vec![b'L'; 100_000], vec![b'\n']].concat();
    let (held, _) = sorted(&input, 1 << 30, true, "long");
    let (merged, spilled) = sorted(&input, 8 << 10, true, "long");
    assert!(spilled);
    assert!(merged == held);
}

#[test]
fn ties_within_one_run_are_ordered_as_in_memory() {
    // Pairs of records sharing a key, next to each other in the input, so
    // that most pairs sort into one run and no other run's head has their
    // key: the merge must still see the pair as a tie (a record's own run
    // may hold the next record of its key).
    let input: Vec<(u64, Vec<u8>)> = (0..400u64)
        .map(|i| ((i / 2) << 32, format!("{i}\n").into_bytes()))
        .collect();
    let mut moved = false;
    for seed in ["a", "b", "c", "d"] {
        let (held, spilled) = sorted(&input, 1 << 30, true, seed);
        assert!(!spilled);
        moved |= held != sorted(&input, 1 << 30, false, seed).0;
        for budget in [600, 1500, 4000] {
            let (merged, spilled) = sorted(&input, budget, true, seed);
            assert!(spilled, "budget {budget}");
            assert!(
                merged == held,
                "seed {seed} budget {budget}: the merge differs"
            );
        }
    }
    assert!(moved, "some tie order differs from input order");
}
