//! The rule the README states: for one seed, `knuffle sample` with no mode
//! (every record) writes the records in the table order, the order
//! `knuffle table` gives the same rows, in memory or through temporary
//! files (100,000 records of 32 bytes each in the sort: more than 1M);
//! shuf mode keeps GNU shuf's interface and its own order (the
//! Fisher-Yates order of `knuffle::shuffle`, as arrays in Rust and Python).
//! And a run without --seed says with -v which seed it used.

use std::fs;
use std::io::Write;

use crate::support::{TestCommand, code_and_text};

fn numbered(n: u64) -> Vec<u8> {
    let mut text = Vec::new();
    for i in 0..n {
        writeln!(text, "{i}").unwrap();
    }
    text
}

fn numbers(out: &str) -> Vec<u64> {
    out.lines().map(|l| l.parse().unwrap()).collect()
}

#[test]
fn sample_without_a_mode_is_the_table_order_and_shuf_mode_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let lines = dir.path().join("lines.txt");
    fs::write(&lines, numbered(100_000)).unwrap();
    let order = knuffle_table::table_order("one order", 100_000);
    for memory in ["1G", "1M"] {
        let output = TestCommand::knuffle()
            .args(["sample", "--seed", "one order", "--memory", memory])
            .arg(&lines)
            .output();
        let (code, out, err) = code_and_text(&output);
        assert_eq!(code, 0, "{err}");
        assert_eq!(numbers(&out), order, "--memory {memory}");
    }
    // The same rows as a table, through knuffle table.
    let csv = dir.path().join("rows.csv");
    fs::write(&csv, [b"n\n".to_vec(), numbered(100_000)].concat()).unwrap();
    let shuffled = dir.path().join("shuffled.csv");
    let output = TestCommand::knuffle()
        .args(["table", "--seed", "one order"])
        .arg(&csv)
        .arg("-o")
        .arg(&shuffled)
        .output();
    assert!(output.status.success(), "{output:?}");
    let text = fs::read_to_string(&shuffled).unwrap();
    assert_eq!(numbers(text.strip_prefix("n\n").unwrap()), order);
    // Shuf mode: the Fisher-Yates order of the seed, another order.
    let output = TestCommand::knuffle()
        .args(["--seed", "one order"])
        .arg(&lines)
        .output();
    let (code, out, _) = code_and_text(&output);
    assert_eq!(code, 0);
    let mut expected: Vec<u64> = (0..100_000).collect();
    knuffle::shuffle(
        &mut expected,
        &mut knuffle::Seed::from_text("one order").rng(),
    );
    assert_eq!(numbers(&out), expected);
    assert_ne!(expected, order);
}

/// The seed `-v` prints after an unseeded run, given back as `--seed`.
fn replayed(subcommand: &str, args: &[&str], dir: &std::path::Path) -> (String, String) {
    let output = TestCommand::knuffle()
        .current_dir(dir)
        .arg(subcommand)
        .args(args)
        .arg("-v")
        .output();
    let (code, out, err) = code_and_text(&output);
    assert_eq!(code, 0, "{err}");
    let prefix = format!("knuffle {subcommand}: --seed ");
    let seed = err.trim_end().strip_prefix(&prefix).expect(&err).to_owned();
    assert_eq!(seed.len(), 64, "a fresh seed is 64 hex digits: {seed}");
    (seed, out)
}

#[test]
fn an_unseeded_sample_or_split_says_its_seed_and_the_seed_replays_it() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.txt"), numbered(1000)).unwrap();
    let (seed, first) = replayed("sample", &["-n", "5", "in.txt"], dir.path());
    let output = TestCommand::knuffle()
        .current_dir(dir.path())
        .args(["sample", "-n", "5", "--seed", &seed, "in.txt"])
        .output();
    assert_eq!(code_and_text(&output).1, first);
    let parts = ["--parts", "1,1", "-o", "a.txt", "-o", "b.txt", "in.txt"];
    let (seed, _) = replayed("split", &parts, dir.path());
    let a = fs::read(dir.path().join("a.txt")).unwrap();
    let output = TestCommand::knuffle()
        .current_dir(dir.path())
        .args([
            "split", "--seed", &seed, "--parts", "1,1", "-o", "c.txt", "-o", "d.txt", "in.txt",
        ])
        .output();
    assert!(output.status.success());
    assert_eq!(fs::read(dir.path().join("c.txt")).unwrap(), a);
}
