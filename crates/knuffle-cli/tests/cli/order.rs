//! `knuffle order`: the rows of an epoch order, equal to the reference
//! `table_order` of the epoch's seed text; ranges of positions; every
//! split into ranks merging back into the range; bad arguments refused
//! with exit status 2 and a message.

use crate::support::{TestCommand, code_and_text};

/// The rows `knuffle order ARGS` prints.
fn rows(args: &[&str]) -> Vec<u64> {
    let output = TestCommand::knuffle().arg("order").args(args).output();
    let (code, stdout, stderr) = code_and_text(&output);
    assert_eq!(code, 0, "{args:?}: {stderr}");
    stdout.lines().map(|line| line.parse().unwrap()).collect()
}

fn reference(seed: &str, epoch: u64, n: u64) -> Vec<u64> {
    knuffle_table::table_order(&knuffle_table::epoch_seed(seed, epoch), n)
}

#[test]
fn prints_the_table_order_of_the_epoch_seed() {
    assert_eq!(
        rows(&["-n", "10", "--seed", "friday poker"]),
        [6, 4, 1, 8, 3, 2, 0, 5, 7, 9]
    );
    assert_eq!(
        rows(&["-n", "5000", "--seed", "train", "--epoch", "3"]),
        reference("train", 3, 5000)
    );
    assert_eq!(rows(&["-n", "0", "--seed", "s"]), Vec::<u64>::new());
}

#[test]
fn ranges_and_ranks_split_the_order() {
    let whole = reference("split", 1, 1003);
    let range = |from: usize, count: usize| whole[from..from + count].to_vec();
    assert_eq!(
        rows(&[
            "-n", "1003", "--seed", "split", "--epoch", "1", "--from", "17", "--count", "40"
        ]),
        range(17, 40)
    );
    assert_eq!(
        rows(&[
            "-n", "1003", "--seed", "split", "--epoch", "1", "--from", "990"
        ]),
        range(990, 13)
    );
    assert!(
        rows(&[
            "-n", "1003", "--seed", "split", "--epoch", "1", "--from", "1003"
        ])
        .is_empty()
    );
    // Rank r of R gets positions from+r, from+r+R, ...: merged by position
    // the ranks' rows are the range, for every R (more ranks than rows too).
    for (from, count) in [(0usize, 1003usize), (5, 100), (1000, 3)] {
        for world in [1usize, 2, 3, 4, 7, 8] {
            let mut merged = vec![u64::MAX; count];
            for rank in 0..world {
                let mine = rows(&[
                    "-n",
                    "1003",
                    "--seed",
                    "split",
                    "--epoch",
                    "1",
                    "--from",
                    &from.to_string(),
                    "--count",
                    &count.to_string(),
                    "--rank",
                    &rank.to_string(),
                    "--world-size",
                    &world.to_string(),
                ]);
                assert_eq!(mine.len(), count.saturating_sub(rank).div_ceil(world));
                for (k, row) in mine.into_iter().enumerate() {
                    merged[rank + k * world] = row;
                }
            }
            assert_eq!(merged, range(from, count), "from {from}, {world} ranks");
        }
    }
}

#[test]
fn bad_arguments_are_refused() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["-n", "-5", "--seed", "s"],
            "invalid value '-5' for '--rows <N>'",
        ),
        (
            &["-n", "4294967297", "--seed", "s"],
            "at most 2^32 = 4294967296 rows",
        ),
        (
            &["-n", "99999999999999999999", "--seed", "s"],
            "invalid value '99999999999999999999' for '--rows <N>'",
        ),
        (
            &["-n", "10", "--seed", "s", "--from", "11"],
            "--from 11 is past the end of the order (10 rows)",
        ),
        (
            &["-n", "10", "--seed", "s", "--from", "4", "--count", "7"],
            "--from 4 --count 7 passes the end of the order (10 rows)",
        ),
        (
            &[
                "-n",
                "10",
                "--seed",
                "s",
                "--rank",
                "4",
                "--world-size",
                "4",
            ],
            "--rank 4 is not below --world-size 4 (ranks are 0 to 3)",
        ),
        (
            &[
                "-n",
                "10",
                "--seed",
                "s",
                "--rank",
                "0",
                "--world-size",
                "0",
            ],
            "--world-size must be at least 1",
        ),
        (&["-n", "10", "--seed", "s", "--rank", "1"], "--world-size"),
        (
            &["-n", "10", "--seed", "s", "--epoch", "-1"],
            "invalid value '-1' for '--epoch <EPOCH>'",
        ),
        (&["-n", "10"], "--seed"),
    ];
    for &(args, message) in cases {
        let output = TestCommand::knuffle().arg("order").args(args).output();
        let (code, stdout, stderr) = code_and_text(&output);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
    }
}
