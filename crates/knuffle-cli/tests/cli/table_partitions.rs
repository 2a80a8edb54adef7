//! `knuffle table --partition-by COL`: a Hive layout written by the real
//! binary. Each `COL=VALUE` directory holds that value's rows in the order
//! of the unpartitioned output of the same seed (across several files when
//! files are closed to bound the open ones), names escaped as pyarrow
//! escapes them, the column read back by knuffle's Hive reader; mistakes
//! are exit 2 with nothing left behind.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::fs;
use std::path::{Path, PathBuf};

use crate::support::table_in as table;

/// The labels of the test table: escaped characters, non-ASCII, an empty
/// field (null in a CSV).
const LABELS: [&str; 6] = ["cat", "a/b", "50%", "é x", "", "k=v"];

/// A CSV of `n` rows `id,label,note`, the label of row `i` the `i % 6`-th.
fn input(dir: &Path, n: usize) -> PathBuf {
    let mut text = String::from("id,label,note\n");
    for i in 0..n {
        writeln!(text, "{i},{},note {i}", LABELS[i % LABELS.len()]).unwrap();
    }
    let path = dir.join("in.csv");
    fs::write(&path, text).unwrap();
    path
}

/// The records (without header) of each directory of a partitioned CSV
/// output, its files read in name order, by directory name.
fn partitions(out: &Path) -> BTreeMap<String, (usize, Vec<String>)> {
    let mut found = BTreeMap::new();
    for entry in fs::read_dir(out).unwrap() {
        let dir = entry.unwrap().path();
        let mut files: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let mut rows = Vec::new();
        for file in &files {
            let text = fs::read_to_string(file).unwrap();
            let mut lines = text.lines();
            assert_eq!(lines.next(), Some("id,note"), "{}", file.display());
            rows.extend(lines.map(str::to_owned));
        }
        let name = dir.file_name().unwrap().to_str().unwrap().to_owned();
        found.insert(name, (files.len(), rows));
    }
    found
}

/// The directory name of each label, as pyarrow 26 writes it.
fn directory_of(label: &str) -> &'static str {
    match label {
        "cat" => "label=cat",
        "a/b" => "label=a%2Fb",
        "50%" => "label=50%25",
        "é x" => "label=%C3%A9%20x",
        "" => "label=__HIVE_DEFAULT_PARTITION__",
        "k=v" => "label=k%3Dv",
        other => panic!("{other}"),
    }
}

/// Checks `out` against the unpartitioned output `flat` (a CSV of
/// `id,label,note`): each label's rows, in order; returns the most files
/// of one directory.
fn check_against_flat(out: &Path, flat: &Path) -> usize {
    let text = fs::read_to_string(flat).unwrap();
    let mut expected: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let (id, rest) = line.split_once(',').unwrap();
        let (label, note) = rest.rsplit_once(',').unwrap();
        let label = label.trim_matches('"');
        expected
            .entry(directory_of(label).to_owned())
            .or_default()
            .push(format!("{id},{note}"));
    }
    let found = partitions(out);
    assert_eq!(
        found.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (name, rows) in &expected {
        assert_eq!(&found[name].1, rows, "{name}");
    }
    found.values().map(|(files, _)| *files).max().unwrap_or(0)
}

#[test]
fn each_directory_holds_its_rows_in_the_table_order() {
    let dir = tempfile::tempdir().unwrap();
    input(dir.path(), 5000);
    let (code, err) = table(dir.path(), &["in.csv", "-o", "flat.csv", "--seed", "p"]);
    assert_eq!(code, 0, "{err}");
    let (code, err) = table(
        dir.path(),
        &[
            "in.csv",
            "-o",
            "out",
            "--partition-by",
            "label",
            "--seed",
            "p",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let files = check_against_flat(&dir.path().join("out"), &dir.path().join("flat.csv"));
    assert_eq!(files, 1);
    // Nothing else next to it (the hidden directory was renamed).
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["flat.csv", "in.csv", "out"]);
    // Read back by knuffle's Hive reader: every row, the label a column
    // after the file's own (the null directory a null label).
    let (code, err) = table(dir.path(), &["out", "-o", "back.csv", "--seed", "q"]);
    assert_eq!(code, 0, "{err}");
    let mut back: Vec<String> = fs::read_to_string(dir.path().join("back.csv"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(back.remove(0), "id,note,label");
    back.sort();
    let mut expected: Vec<String> = (0..5000)
        .map(|i| {
            // No label needs quoting in a CSV.
            format!("{i},note {i},{}", LABELS[i % LABELS.len()])
        })
        .collect();
    expected.sort();
    assert_eq!(back, expected);
}

#[test]
fn few_open_files_split_a_directory_into_files_in_order() {
    let dir = tempfile::tempdir().unwrap();
    input(dir.path(), 30_000);
    let (code, err) = table(dir.path(), &["in.csv", "-o", "flat.csv", "--seed", "f"]);
    assert_eq!(code, 0, "{err}");
    // Under 1M of memory one file is open at a time.
    let (code, err) = table(
        dir.path(),
        &[
            "in.csv",
            "-o",
            "out",
            "--partition-by",
            "label",
            "--seed",
            "f",
            "--memory",
            "1M",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let files = check_against_flat(&dir.path().join("out"), &dir.path().join("flat.csv"));
    assert!(files > 1, "{files}");
}

#[test]
fn mistakes_are_refused_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    input(dir.path(), 10);
    let cases: [(&[&str], &str); 4] = [
        (
            &["--partition-by", "nope"],
            "--partition-by nope: no such column",
        ),
        (
            &["--partition-by", "label", "--shards", "2"],
            "cannot be used with",
        ),
        (
            &["--partition-by", "label", "-n", "3", "--parts", "1,1"],
            "cannot be used with",
        ),
        (
            &["--partition-by", "label", "-o", "other"],
            "2 outputs (-o) given",
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["in.csv", "-o", "out"];
        all.extend_from_slice(args);
        let (code, err) = table(dir.path(), &all);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
    // Too many values: refused after 10,000 directories, none left.
    let mut text = String::from("id,key\n");
    for i in 0..10_001 {
        writeln!(text, "{i},k{i}").unwrap();
    }
    fs::write(dir.path().join("many.csv"), text).unwrap();
    let (code, err) = table(
        dir.path(),
        &["many.csv", "-o", "out", "--partition-by", "key"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("more than 10000 distinct values"), "{err}");
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["in.csv", "many.csv"]);
}
