//! `knuffle split` on tables (Parquet, Arrow, CSV, JSON Lines), by the real
//! binary: exact-size and group splits put every row where the line split
//! puts the same record of the table's CSV (the same draws), types are
//! kept, no row is lost or doubled; the exact law by chi-square over many
//! seeds (a stand-in of the wrong law fails); refusals and failures leave
//! no part.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use crate::support::{TestCommand, chi_square, code_and_text};

/// `knuffle COMMAND ARGS` in `dir`: status, standard output and error.
fn knuffle(dir: &Path, command: &str, args: &[&str]) -> (i32, String, String) {
    let output = TestCommand::knuffle()
        .arg(command)
        .args(args)
        .current_dir(dir)
        .output();
    code_and_text(&output)
}

/// `knuffle COMMAND ARGS` in `dir`, which must succeed; its standard error.
fn ok(dir: &Path, command: &str, args: &[&str]) -> String {
    let (code, _, err) = knuffle(dir, command, args);
    assert_eq!(code, 0, "knuffle {command} {args:?}: {err}");
    err
}

fn read(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).unwrap()
}

/// `t.parquet` and `t.csv` in `dir`: the same `n` rows (an integer id, a
/// user of 7, a group of 3, a float, a nullable note) in the same order.
fn tables(dir: &Path, n: usize) {
    let mut text = String::new();
    for i in 0..n {
        let note = if i % 3 == 0 {
            "null".to_owned()
        } else {
            format!("\"n{i}\"")
        };
        writeln!(
            text,
            "{{\"id\": {i}, \"user\": \"u{}\", \"grp\": \"g{}\", \"x\": {}.25, \"note\": {note}}}",
            i * 7 % 11 % 7,
            i % 3,
            i % 5
        )
        .unwrap();
    }
    fs::write(dir.join("t.jsonl"), text).unwrap();
    ok(dir, "sample", &["-p", "1", "t.jsonl", "-o", "t.parquet"]);
    ok(dir, "sample", &["-p", "1", "t.parquet", "-o", "t.csv"]);
}

#[test]
fn a_table_is_split_as_the_lines_of_its_csv() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    tables(dir, 300);
    let splits: [(&str, &[&str]); 6] = [
        ("80,10,10", &[]),
        ("1,1", &[]),
        ("3,0,2", &[]),
        ("0.7,0.3", &["-k", "user"]),
        ("1,1,1", &["-k", "grp,id"]),
        ("5,1", &["-k", "5"]),
    ];
    for (parts, more) in splits {
        let count = parts.split(',').count();
        for seed in ["a", "b", "c"] {
            let mut args = vec!["--seed", seed, "--parts", parts];
            args.extend_from_slice(more);
            let names: Vec<String> = (0..count).map(|j| format!("p{j}.csv")).collect();
            let mut lines = args.clone();
            for name in &names {
                lines.extend(["-o", name.as_str()]);
            }
            lines.extend(["--csv", "--header", "t.csv"]);
            ok(dir, "split", &lines);
            let expected: Vec<String> = names.iter().map(|n| read(dir, n)).collect();
            let total: usize = expected.iter().map(|p| p.lines().count() - 1).sum();
            assert_eq!(total, 300, "{args:?}");
            for input in ["t.parquet", "t.csv"] {
                let mut table = args.clone();
                table.extend(["--format", input.rsplit('.').next().unwrap(), input]);
                for name in &names {
                    table.extend(["-o", name.as_str()]);
                }
                ok(dir, "split", &table);
                for (name, expected) in names.iter().zip(&expected) {
                    assert_eq!(&read(dir, name), expected, "{input} {name} with {args:?}");
                }
            }
        }
    }
}

#[test]
fn parts_keep_types_and_every_row_once() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    tables(dir, 500);
    ok(
        dir,
        "sample",
        &["-p", "1", "--format", "jsonl", "t.jsonl", "-o", "all.jsonl"],
    );
    let all = read(dir, "all.jsonl");
    for more in [&[][..], &["-k", "user"]] {
        let mut args = vec![
            "--seed",
            "types",
            "--parts",
            "6,3,1",
            "t.parquet",
            "-o",
            "a.parquet",
            "-o",
            "b.arrow",
            "-o",
            "c.parquet",
        ];
        args.extend_from_slice(more);
        // Arrow among Parquet parts: one format for every part.
        let (code, _, err) = knuffle(dir, "split", &args);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("one format for every part"), "{err}");
        args[8] = "b.parquet";
        let err = ok(dir, "split", &[&args[..], &["-v"]].concat());
        let mut rows = Vec::new();
        let mut sizes = Vec::new();
        for part in ["a.parquet", "b.parquet", "c.parquet"] {
            ok(dir, "sample", &["-p", "1", part, "-o", "part.jsonl"]);
            let text = read(dir, "part.jsonl");
            let ids: Vec<u64> = text
                .lines()
                .map(|l| {
                    l[l.find(':').unwrap() + 1..l.find(',').unwrap()]
                        .parse()
                        .unwrap()
                })
                .collect();
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "input order: {ids:?}");
            sizes.push(ids.len().to_string());
            rows.extend(text.lines().map(str::to_owned));
        }
        rows.sort();
        let mut expected: Vec<String> = all.lines().map(str::to_owned).collect();
        expected.sort();
        assert_eq!(rows, expected, "every row once, with its types");
        if more.is_empty() {
            assert_eq!(sizes, ["300", "150", "50"]);
        }
        assert!(
            err.contains(&format!("500 rows in, {} out", sizes.join(" + "))),
            "{err}"
        );
    }
    // A directory of Hive shards: the partition column is kept.
    fs::create_dir_all(dir.join("hive/label=cat")).unwrap();
    fs::create_dir_all(dir.join("hive/label=dog")).unwrap();
    fs::copy(dir.join("t.parquet"), dir.join("hive/label=cat/0.parquet")).unwrap();
    fs::copy(dir.join("t.parquet"), dir.join("hive/label=dog/0.parquet")).unwrap();
    ok(
        dir,
        "split",
        &["--parts", "1,1", "hive", "-o", "h1.csv", "-o", "h2.csv"],
    );
    let (h1, h2) = (read(dir, "h1.csv"), read(dir, "h2.csv"));
    assert!(h1.starts_with("id,user,grp,x,note,label\n"), "{h1}");
    assert_eq!(h1.lines().count() + h2.lines().count(), 2 + 1000);
    assert_eq!(
        h1.matches(",dog\n").count() + h2.matches(",dog\n").count(),
        500
    );
}

#[test]
fn an_exact_split_gives_every_row_each_part_by_its_share() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    tables(dir, 6);
    // Parts 1,2 of 6 rows: sizes 2 and 4, each row in part 1 with
    // probability exactly 1/3.
    let runs = 300;
    let mut in_first = vec![0u64; 6];
    for seed in 0..runs {
        let seed = format!("law {seed}");
        let args = [
            "--seed",
            &seed,
            "--parts",
            "1,2",
            "t.parquet",
            "-o",
            "a.csv",
            "-o",
            "b.csv",
        ];
        ok(dir, "split", &args);
        let first = read(dir, "a.csv");
        assert_eq!(first.lines().count(), 3, "{first}");
        assert_eq!(read(dir, "b.csv").lines().count(), 5);
        for line in first.lines().skip(1) {
            in_first[line.split(',').next().unwrap().parse::<usize>().unwrap()] += 1;
        }
    }
    let expected = vec![runs as f64 / 3.0; 6];
    // 5 degrees of freedom: 20.52 is the 0.999 quantile.
    let statistic = chi_square(&in_first, &expected);
    assert!(statistic < 20.52, "{in_first:?}: {statistic}");
    // A stand-in that cuts the input (the first rows to the first part)
    // fails the same test.
    let cut: Vec<u64> = (0..6).map(|i| if i < 2 { runs } else { 0 }).collect();
    assert!(chi_square(&cut, &expected) > 20.52);
}

#[test]
fn bad_splits_are_refused_and_a_failing_split_leaves_no_part() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    tables(dir, 20);
    fs::write(dir.join("keep.csv"), "kept\n").unwrap();
    let refused: [(&[&str], &str); 7] = [
        (
            &["--parts", "1,1", "t.parquet", "-o", "a.csv"],
            "2 parts but 1 output: give one output per part",
        ),
        (
            &[
                "--parts",
                "1,1",
                "t.parquet",
                "-o",
                "a.csv",
                "-o",
                "./a.csv",
            ],
            "named twice",
        ),
        (
            &[
                "--parts",
                "1,1",
                "-k",
                "nope",
                "t.parquet",
                "-o",
                "a.csv",
                "-o",
                "b.csv",
            ],
            "no column of that name",
        ),
        (
            &[
                "--parts",
                "1,1",
                "-z",
                "t.parquet",
                "-o",
                "a.csv",
                "-o",
                "b.csv",
            ],
            "-z is for records of text",
        ),
        (
            &[
                "--parts", "1,1", "--format", "csv", "-o", "a.csv", "-o", "b.csv",
            ],
            "not standard input",
        ),
        (
            &["--parts", "1,1", "t.parquet", "-o", "a.txt", "-o", "b.csv"],
            "not the extension of a table format",
        ),
        (
            &["--parts", "1,-1", "t.parquet", "-o", "a.csv", "-o", "b.csv"],
            "invalid parts",
        ),
    ];
    for (args, says) in refused {
        let (code, _, err) = knuffle(dir, "split", args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!dir.join("a.csv").exists() && !dir.join("b.csv").exists());
    }
    // An exact split reads its input twice: a FIFO is refused, not read.
    let fifo = dir.join("pipe.csv");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let (code, _, err) = knuffle(
        dir,
        "split",
        &[
            "--parts", "1,1", "--format", "csv", "pipe.csv", "-o", "a.csv", "-o", "keep.csv",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    // A missing directory for the last part: nothing is written, the
    // existing file is not touched.
    let (code, _, err) = knuffle(
        dir,
        "split",
        &[
            "--parts",
            "1,1",
            "t.parquet",
            "-o",
            "keep.csv",
            "-o",
            "no/b.csv",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert_eq!(read(dir, "keep.csv"), "kept\n");
    // Two names of one file (a symbolic link not there yet, a hard link):
    // refused, not written over each other.
    std::os::unix::fs::symlink("new.csv", dir.join("dangling.csv")).unwrap();
    fs::hard_link(dir.join("keep.csv"), dir.join("also-keep.csv")).unwrap();
    for (a, b) in [("new.csv", "dangling.csv"), ("keep.csv", "also-keep.csv")] {
        let (code, _, err) = knuffle(
            dir,
            "split",
            &["--parts", "1,1", "t.parquet", "-o", a, "-o", b],
        );
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("named twice"), "{err}");
    }
    assert!(!dir.join("new.csv").exists());
    assert_eq!(read(dir, "keep.csv"), "kept\n");
    fs::remove_file(dir.join("dangling.csv")).unwrap();
    fs::remove_file(dir.join("also-keep.csv")).unwrap();
    // A bad row in the middle of a split by key, once both parts have
    // rows: no part, the existing file not replaced.
    let mut ragged = String::from("id,user\n");
    for i in 0..20_000 {
        writeln!(ragged, "{i},u{}", i % 13).unwrap();
    }
    ragged.push_str("20000,u1,extra\n");
    fs::write(dir.join("ragged.csv"), ragged).unwrap();
    let (code, _, err) = knuffle(
        dir,
        "split",
        &[
            "--parts",
            "1,1",
            "-k",
            "user",
            "--format",
            "csv",
            "ragged.csv",
            "-o",
            "keep.csv",
            "-o",
            "b.csv",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("ragged.csv"), "{err}");
    assert_eq!(read(dir, "keep.csv"), "kept\n");
    assert!(!dir.join("b.csv").exists());
    // A corrupt input after a good one: no part, nothing replaced.
    fs::write(dir.join("bad.parquet"), b"PAR1\0\0\0\0garbage").unwrap();
    let (code, _, err) = knuffle(
        dir,
        "split",
        &[
            "--parts",
            "1,1",
            "-k",
            "user",
            "t.parquet",
            "bad.parquet",
            "-o",
            "keep.csv",
            "-o",
            "b.csv",
        ],
    );
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("bad.parquet"), "{err}");
    assert_eq!(read(dir, "keep.csv"), "kept\n");
    assert!(!dir.join("b.csv").exists());
    let leftovers: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
