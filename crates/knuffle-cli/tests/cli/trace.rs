//! `knuffle trace` through the real binary: golden tables under fixed
//! seeds, every offset checked against its random number, highlighting.
//!
//! Regenerate the golden files after an intended change with
//! `KNUFFLE_BLESS=1 cargo test -p knuffle-cli --test cli trace::`.

use crate::support::{golden, knuffle, stdout};

#[test]
fn golden_tables_under_fixed_seeds() {
    golden("trace-fisher-yates.txt", &["trace", "--seed", "golden"]);
    golden(
        "trace-naive.txt",
        &[
            "trace",
            "--seed",
            "golden",
            "--algorithm",
            "naive",
            "--size",
            "4",
        ],
    );
    golden(
        "trace-sattolo.txt",
        &[
            "trace",
            "--seed",
            "golden",
            "--algorithm",
            "sattolo",
            "red",
            "green",
            "blue",
            "cyan",
        ],
    );
    golden(
        "trace-deck-method.txt",
        &[
            "trace",
            "--seed",
            "golden",
            "--algorithm",
            "deck-method",
            "--size",
            "6",
        ],
    );
    golden(
        "trace-deck-ascii.txt",
        &["trace", "--seed", "golden", "--deck", "--ascii"],
    );
}

/// The table rows of a trace: (number, source, bound, offset, swap, values).
fn rows(table: &str) -> Vec<(u64, String, u64, u64, String)> {
    table
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let hex = fields.get(1)?.strip_prefix("0x")?;
            let number = u64::from_str_radix(hex, 16).ok()?;
            let source = fields[2].to_owned();
            assert_eq!(fields[3], "×");
            let bound = fields[4].parse().unwrap();
            assert_eq!(fields[5], "=");
            let offset = fields[6].parse().unwrap();
            let swap = fields[7..10].join(" ");
            Some((number, source, bound, offset, swap))
        })
        .collect()
}

#[test]
fn every_offset_is_the_high_half_of_number_times_bound() {
    for algorithm in [
        "fisher-yates",
        "naive-swap",
        "sattolo",
        "inside-out",
        "basic-jj",
    ] {
        let table = stdout(&knuffle(&[
            "trace", "--seed", "check", "-a", algorithm, "-n", "12",
        ]));
        let rows = rows(&table);
        assert!(rows.len() >= 10, "{algorithm}: {table}");
        let mut previous_low: Option<u64> = None;
        for (number, source, bound, offset, _) in rows {
            let wide = u128::from(number) * u128::from(bound);
            assert_eq!(
                (wide >> 64) as u64,
                offset,
                "{algorithm}: 0x{number:x} × {bound}"
            );
            assert!(offset < bound);
            if source == "low" {
                assert_eq!(
                    Some(number),
                    previous_low,
                    "{algorithm}: low half carried over"
                );
            } else {
                assert_eq!(source, "word");
            }
            previous_low = Some(wide as u64);
        }
    }
}

#[test]
fn fisher_yates_ends_in_the_order_knuffle_shuffle_gives() {
    let table = stdout(&knuffle(&["trace", "--seed", "same", "--size", "20"]));
    let result = table
        .lines()
        .find_map(|l| l.strip_prefix("result: "))
        .unwrap();
    let mut expected: Vec<u32> = (0..20).collect();
    knuffle::shuffle(&mut expected, &mut knuffle::Seed::from_text("same").rng());
    let expected: Vec<String> = expected.iter().map(u32::to_string).collect();
    assert_eq!(result, expected.join(" "));
}

#[test]
fn fisher_yates_ends_in_the_order_shuf_mode_gives_for_the_same_seed() {
    let items = [
        "ace", "bee", "cat", "dog", "elk", "fox", "gnu", "hen", "ibis",
    ];
    let mut args = vec!["trace", "--seed", "shuf"];
    args.extend(items);
    let table = stdout(&knuffle(&args));
    let result = table
        .lines()
        .find_map(|l| l.strip_prefix("result: "))
        .unwrap();
    let mut shuf_args = vec!["-e"];
    shuf_args.extend(items);
    shuf_args.extend(["--seed", "shuf"]);
    let shuf = stdout(&knuffle(&shuf_args));
    assert_eq!(result, shuf.lines().collect::<Vec<_>>().join(" "));
}

#[test]
fn fisher_yates_swaps_position_i_with_the_offset_from_the_end() {
    let table = stdout(&knuffle(&["trace", "--seed", "steps", "--size", "8"]));
    let rows = rows(&table);
    assert_eq!(rows.len(), 7);
    for (step, (_, _, bound, offset, swap)) in rows.iter().enumerate() {
        let i = 7 - step as u64;
        assert_eq!(*bound, i + 1);
        assert_eq!(swap, &format!("{i} ↔ {offset}"));
    }
}

#[test]
fn self_swaps_are_named_and_pairs_are_highlighted() {
    // Find a seed whose trace has a self-swap; the seed list is fixed.
    let table = (0..50)
        .map(|k| {
            stdout(&knuffle(&[
                "trace",
                "--seed",
                &format!("self {k}"),
                "-n",
                "6",
            ]))
        })
        .find(|t| t.contains("(self-swap: no change)"))
        .expect("a self-swap within 50 seeds (each has chance 1 - 5!/... > 0.8)");
    let line = table.lines().find(|l| l.contains("self-swap")).unwrap();
    assert_eq!(line.matches('[').count(), 1, "one position marked: {line}");
    let pair = table
        .lines()
        .find(|l| l.contains(" ↔ ") && !l.contains("self"))
        .unwrap();
    assert_eq!(pair.matches('[').count(), 2, "{pair}");
    assert!(!table.contains('\x1b'), "no colour when not a terminal");
    let colored = stdout(&knuffle(&["trace", "--seed", "c", "--color", "always"]));
    assert!(colored.contains("\x1b[1;7m"));
    assert_eq!(
        colored.matches('[').count(),
        colored.matches("\x1b[").count(),
        "colour replaces the brackets"
    );
}

#[test]
fn biased_algorithms_are_labelled_and_unknown_ones_refused() {
    let naive = stdout(&knuffle(&["trace", "-a", "naive", "--seed", "b"]));
    assert!(naive.contains("BIASED"));
    let list = stdout(&knuffle(&["trace", "--list"]));
    assert_eq!(
        list.lines().count(),
        knuffle_lab::zoo::Algorithm::all().len()
    );
    let unknown = knuffle(&["trace", "-a", "bogosort"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown algorithm"));
}

#[test]
fn help_has_examples_and_explains_the_offsets() {
    let help = stdout(&knuffle(&["trace", "--help"]));
    assert!(help.contains("Usage: knuffle trace"));
    assert!(help.contains("knuffle trace --algorithm naive-swap"));
    assert!(help.contains("(number × bound) >> 64"));
}

#[test]
fn numbers_is_the_long_name_and_size_still_works() {
    let new = knuffle(&[
        "trace",
        "--seed",
        "names",
        "--numbers",
        "6",
        "--color",
        "never",
    ]);
    let old = knuffle(&[
        "trace", "--seed", "names", "--size", "6", "--color", "never",
    ]);
    assert!(new.status.success());
    assert_eq!(new.stdout, old.stdout);
}
