//! `knuffle sample` on tables (Parquet, Arrow, CSV, JSON Lines), by the real
//! binary: every mode chooses the same rows, in the same order, as the line
//! mode on the CSV of the same rows (the same law, the same draws); the
//! laws by chi-square over many seeds, with stand-ins of the wrong law that
//! fail; types kept through Parquet; bad weights, unknown columns and
//! modes of lines only refused with a defined status.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use crate::support::{TestCommand, chi_square, code_and_text};

/// `knuffle sample ARGS` in `dir`: status, standard output and error.
fn sample(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = TestCommand::knuffle()
        .arg("sample")
        .args(args)
        .current_dir(dir)
        .output();
    code_and_text(&output)
}

/// `knuffle sample ARGS` in `dir`, which must succeed.
fn ok(dir: &Path, args: &[&str]) -> String {
    let (code, out, err) = sample(dir, args);
    assert_eq!(code, 0, "knuffle sample {args:?}: {err}");
    out
}

/// JSON Lines of `n` rows: an integer id, a user (7 of them), a group
/// (3), an integer or fractional weight, a nullable note.
fn jsonl(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        let weight = if i % 4 == 0 {
            format!("{}.5", i % 9)
        } else {
            format!("{}", 1 + i % 5)
        };
        let note = if i % 3 == 0 {
            "null".to_owned()
        } else {
            format!("\"n{i}\"")
        };
        writeln!(
            text,
            "{{\"id\": {i}, \"user\": \"u{}\", \"grp\": \"g{}\", \"w\": {weight}, \"note\": {note}}}",
            i * 7 % 11 % 7,
            i % 3
        )
        .unwrap();
    }
    text
}

/// `t.parquet` and `t.csv` in `dir`: the same `n` rows in the same order
/// (`-p 1` keeps every row in input order).
fn tables(dir: &Path, n: usize) {
    fs::write(dir.join("t.jsonl"), jsonl(n)).unwrap();
    ok(dir, &["-p", "1", "t.jsonl", "-o", "t.parquet"]);
    ok(dir, &["-p", "1", "t.parquet", "-o", "t.csv"]);
}

#[test]
fn every_mode_samples_a_table_as_the_lines_of_its_csv() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    tables(dir, 300);
    let csv = fs::read_to_string(dir.join("t.csv")).unwrap();
    assert_eq!(csv.lines().count(), 301);
    assert!(
        csv.starts_with("id,user,grp,w,note\n0,u0,g0,0.5,\n1,u"),
        "{csv}"
    );
    let modes: [&[&str]; 11] = [
        &["-p", "0.3"],
        &["-p", "2/7"],
        &["-k", "user", "-p", "0.5"],
        &["-k", "grp,id", "-p", "1/3"],
        &["-n", "7"],
        &["-n", "7", "--inorder"],
        &["-w", "w", "-n", "9"],
        &["-w", "w", "-n", "9", "--inorder"],
        &["-w", "4"],
        &["--per-key", "3", "-k", "user"],
        &[],
    ];
    for mode in modes {
        for seed in ["a", "b", "c"] {
            let mut args = vec!["--seed", seed];
            args.extend_from_slice(mode);
            let mut lines = args.clone();
            lines.extend(["--csv", "--header", "t.csv"]);
            let expected = ok(dir, &lines);
            for input in ["t.parquet", "t.csv"] {
                let mut table = args.clone();
                table.extend(["--format", input.rsplit('.').next().unwrap(), input]);
                table.extend(["-o", "out.csv"]);
                ok(dir, &table);
                let got = fs::read_to_string(dir.join("out.csv")).unwrap();
                assert_eq!(got, expected, "{input} with {args:?}");
            }
        }
    }
}

#[test]
fn rows_keep_their_types_and_every_format_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    tables(dir, 50);
    // JSON Lines through Parquet and Arrow and back: the same values, of
    // the same types.
    let direct = {
        let args = [
            "-p",
            "1",
            "--format",
            "jsonl",
            "t.jsonl",
            "-o",
            "direct.jsonl",
        ];
        ok(dir, &args);
        fs::read_to_string(dir.join("direct.jsonl")).unwrap()
    };
    ok(dir, &["-p", "1", "t.parquet", "-o", "t.arrow"]);
    for table in ["t.parquet", "t.arrow"] {
        ok(dir, &["-p", "1", table, "-o", "back.jsonl"]);
        assert_eq!(fs::read_to_string(dir.join("back.jsonl")).unwrap(), direct);
    }
    // A directory of shards is one table: its files in name order.
    fs::create_dir(dir.join("shards")).unwrap();
    fs::copy(dir.join("t.parquet"), dir.join("shards/a.parquet")).unwrap();
    fs::copy(dir.join("t.parquet"), dir.join("shards/b.parquet")).unwrap();
    ok(dir, &["-k", "user", "-p", "1", "shards", "-o", "both.csv"]);
    let both = fs::read_to_string(dir.join("both.csv")).unwrap();
    assert_eq!(both.lines().count(), 101);
}

/// How often each id of `t.parquet` is in the samples of `args` over
/// `runs` seeds.
fn inclusions(dir: &Path, args: &[&str], ids: usize, runs: usize) -> Vec<u64> {
    let mut counts = vec![0u64; ids];
    for seed in 0..runs {
        let seed = format!("law {seed}");
        let mut all = vec!["--seed", seed.as_str()];
        all.extend_from_slice(args);
        all.extend(["t.parquet", "-o", "s.csv"]);
        ok(dir, &all);
        let text = fs::read_to_string(dir.join("s.csv")).unwrap();
        for line in text.lines().skip(1) {
            counts[line.split(',').next().unwrap().parse::<usize>().unwrap()] += 1;
        }
    }
    counts
}

#[test]
fn weighted_and_stratified_samples_follow_their_laws() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    // Weights 1, 2, 3, 4; groups x (ids 0-3) and y (ids 4, 5).
    let rows = [(1, "x"), (2, "x"), (3, "x"), (4, "x"), (1, "y"), (1, "y")];
    let text: String = rows
        .iter()
        .enumerate()
        .map(|(i, (w, g))| format!("{{\"id\": {i}, \"w\": {w}, \"g\": \"{g}\"}}\n"))
        .collect();
    fs::write(dir.join("t.jsonl"), text).unwrap();
    ok(dir, &["-p", "1", "t.jsonl", "-o", "t.parquet"]);
    let runs = 240;
    // -w w -n 1 draws row i with probability w_i / 12; chi-square with 5
    // degrees of freedom: 20.52 is its 0.999 quantile.
    let weighted = inclusions(dir, &["-w", "w", "-n", "1"], 6, runs);
    let total = 12.0;
    let expected: Vec<f64> = [1.0, 2.0, 3.0, 4.0, 1.0, 1.0]
        .iter()
        .map(|w| runs as f64 * w / total)
        .collect();
    let statistic = chi_square(&weighted, &expected);
    assert!(
        statistic < 20.52,
        "weighted: {weighted:?}, chi-square {statistic}"
    );
    // A uniform draw (the wrong law) fails the same test.
    let uniform = inclusions(dir, &["-n", "1"], 6, runs);
    let statistic = chi_square(&uniform, &expected);
    assert!(
        statistic > 20.52,
        "uniform passed: {uniform:?}, {statistic}"
    );
    // --per-key 1 -k g: exactly one row of each group, uniform within it
    // (3 degrees of freedom: 16.27).
    let stratified = inclusions(dir, &["--per-key", "1", "-k", "g"], 6, runs);
    assert_eq!(stratified[..4].iter().sum::<u64>(), runs as u64);
    assert_eq!(stratified[4..].iter().sum::<u64>(), runs as u64);
    let quarter = [runs as f64 / 4.0; 4];
    let statistic = chi_square(&stratified[..4], &quarter);
    assert!(statistic < 16.27, "stratified: {stratified:?}, {statistic}");
    // The first row of each group (the wrong law) fails it.
    let first = [runs as u64, 0, 0, 0];
    assert!(chi_square(&first, &quarter) > 16.27);
    // -p 1/2 keeps each row with probability 1/2: Binomial(240, 1/2) per
    // row, and a sampler keeping 60% fails.
    let bernoulli = inclusions(dir, &["-p", "1/2"], 6, runs);
    let half = [runs as f64 / 2.0; 6];
    // (Kept and dropped counts: chi-square with 6 degrees of freedom,
    // 22.46 its 0.999 quantile.)
    let both = |counts: &[u64]| {
        let dropped: Vec<u64> = counts.iter().map(|&c| runs as u64 - c).collect();
        chi_square(counts, &half) + chi_square(&dropped, &half)
    };
    let statistic = both(&bernoulli);
    assert!(statistic < 22.46, "bernoulli: {bernoulli:?}, {statistic}");
    assert!(both(&[144u64; 6]) > 22.46);
}

#[test]
fn bad_weights_unknown_columns_and_line_options_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    fs::write(
        dir.join("w.jsonl"),
        "{\"id\": 0, \"w\": 1}\n{\"id\": 1, \"w\": null}\n{\"id\": 2, \"w\": -3}\n",
    )
    .unwrap();
    ok(dir, &["-p", "1", "w.jsonl", "-o", "w.parquet"]);
    let (code, _, err) = sample(dir, &["-w", "w", "-n", "2", "w.parquet", "-o", "o.csv"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("row 2 of 'w.parquet'") && err.contains("null"),
        "{err}"
    );
    assert!(!dir.join("o.csv").exists());
    let (code, _, err) = sample(
        dir,
        &["-w", "w", "--skip-bad-weights", "w.parquet", "-o", "o.csv"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("2 rows without a positive finite weight skipped"),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(dir.join("o.csv")).unwrap(),
        "id,w\n0,1\n"
    );
    let refused: [(&[&str], &str); 7] = [
        (
            &["-k", "nope", "-p", "0.5", "w.parquet", "-o", "o.csv"],
            "no column of that name",
        ),
        (
            &["-w", "9", "w.parquet", "-o", "o.csv"],
            "the table has 2 columns",
        ),
        (&["-p", "0.5", "w.parquet"], "-o OUT"),
        (&["-r", "-n", "2", "w.parquet", "-o", "o.csv"], "-r"),
        (
            &["-p", "0.5", "--print-random", "w.parquet", "-o", "o.csv"],
            "--print-random",
        ),
        (&["-p", "0.5", "-z", "w.parquet", "-o", "o.csv"], "-z"),
        (
            &["-p", "0.5", "--format", "xls", "w.parquet", "-o", "o.csv"],
            "unknown table format",
        ),
    ];
    for (args, says) in refused {
        let (code, _, err) = sample(dir, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // A sample that holds more than --memory stops (status 1), leaving
    // nothing.
    weighted_rows(dir, 60_000);
    let (code, _, err) = sample(
        dir,
        &[
            "-n",
            "50000",
            "--memory",
            "1M",
            "big.jsonl",
            "-o",
            "big.parquet",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("memory limit"), "{err}");
    assert!(!dir.join("big.parquet").exists());
}

/// `big.jsonl` in `dir`: `n` rows of an id, a weight from 1 to 7 and a
/// 40-digit text.
fn weighted_rows(dir: &Path, n: usize) {
    let mut big = String::new();
    for i in 0..n {
        writeln!(
            big,
            "{{\"id\": {i}, \"w\": {}, \"s\": \"{:040}\"}}",
            1 + i % 7,
            i
        )
        .unwrap();
    }
    fs::write(dir.join("big.jsonl"), big).unwrap();
}

#[test]
fn a_weighted_shuffle_beyond_memory_sorts_runs_on_disk_in_the_same_order() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    weighted_rows(dir, 60_000);
    ok(dir, &["-p", "1", "big.jsonl", "-o", "big.parquet"]);
    ok(dir, &["-p", "1", "big.parquet", "-o", "big.csv"]);
    let lines = ok(
        dir,
        &["--seed", "w", "-w", "w", "--csv", "--header", "big.csv"],
    );
    // About 6 MB of rows: in memory, and in runs under 1M (several merge
    // passes) and 3M; the same rows in the same order as the lines'.
    for memory in ["1G", "1M", "3M"] {
        let args = [
            "--seed",
            "w",
            "-w",
            "w",
            "--memory",
            memory,
            "big.parquet",
            "-o",
            "out.csv",
        ];
        ok(dir, &args);
        let got = fs::read_to_string(dir.join("out.csv")).unwrap();
        assert!(
            got == lines,
            "--memory {memory}: differs from the lines' order"
        );
    }
    let tmp = dir.join("tmp");
    fs::create_dir(&tmp).unwrap();
    let tmp_arg = tmp.to_str().unwrap();
    let args = [
        "--seed",
        "w",
        "-w",
        "w",
        "--memory",
        "1M",
        "-T",
        tmp_arg,
        "big.parquet",
        "-o",
        "t.csv",
    ];
    ok(dir, &args);
    assert_eq!(fs::read_to_string(dir.join("t.csv")).unwrap(), lines);
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0, "nothing left in -T");
}
