//! The rule the README states: for one seed, `knuffle sample` with no mode
//! (every record) writes the records in the table order, the order
//! `knuffle table` gives the same rows, in memory or through temporary
//! files (100,000 records of 32 bytes each in the sort: more than 1M);
//! shuf mode keeps GNU shuf's interface and its own order (the
//! Fisher-Yates order of `knuffle::shuffle`, as arrays in Rust and Python).

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
