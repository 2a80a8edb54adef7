//! `knuffle table --infer-types` (CSV columns typed from every value, only
//! when each comes back as written) and the errors of JSON Lines inputs
//! (the file, the line of the whole file, and for a type conflict the field
//! and both types); the real binary, the typed values seen in its JSON
//! Lines output, the round trip CSV -> Parquet -> CSV byte for byte.

use std::fmt::Write;
use std::fs;
use std::path::Path;

use crate::support::{TestCommand, code_and_text, table_in as table};

/// The lines of a file, sorted (rows compared whatever their order).
fn sorted_lines(path: &Path) -> Vec<String> {
    let mut lines: Vec<String> = fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

/// A CSV whose columns are, in order: integers, floats, booleans, dates,
/// timestamps, text that looks like numbers, integers with an empty field,
/// and floats next to integers.
const TYPED: &str = "\
i,f,b,d,t,zip,sparse,mixed
1,1.5,true,2024-01-31,2024-01-31T08:00:00,007,5,1
-20,-0.25,false,1970-01-01,2024-01-31T08:00:00.250,123,,1.5
9223372036854775807,3.0,true,2000-02-29,1999-12-31T23:59:59,042,-3,2
";

#[test]
fn infer_types_types_a_column_only_when_every_value_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.csv"), TYPED).unwrap();
    let (code, err) = table(
        dir.path(),
        &["in.csv", "-o", "out.jsonl", "--infer-types", "--seed", "t"],
    );
    assert_eq!(code, 0, "{err}");
    let lines = sorted_lines(&dir.path().join("out.jsonl"));
    assert_eq!(
        lines,
        [
            r#"{"i":-20,"f":-0.25,"b":false,"d":"1970-01-01","t":"2024-01-31T08:00:00.250","zip":"123","mixed":"1.5"}"#,
            r#"{"i":1,"f":1.5,"b":true,"d":"2024-01-31","t":"2024-01-31T08:00:00","zip":"007","sparse":5,"mixed":"1"}"#,
            r#"{"i":9223372036854775807,"f":3.0,"b":true,"d":"2000-02-29","t":"1999-12-31T23:59:59","zip":"042","sparse":-3,"mixed":"2"}"#,
        ]
    );
    // Without the flag every column is text.
    let (code, err) = table(dir.path(), &["in.csv", "-o", "text.jsonl", "--seed", "t"]);
    assert_eq!(code, 0, "{err}");
    let text = fs::read_to_string(dir.path().join("text.jsonl")).unwrap();
    assert!(text.contains(r#""i":"1""#), "{text}");
}

#[test]
fn csv_to_typed_parquet_and_back_is_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("id,x,when,flag,name\n");
    for i in 0..3000 {
        let x = if i % 7 == 0 {
            String::new()
        } else {
            format!("{}.{}", i as i64 - 1500, i % 9 + 1)
        };
        writeln!(
            text,
            "{i},{x},2024-{:02}-{:02}T{:02}:30:00.5,{},\"name, {i}\"",
            i % 12 + 1,
            i % 28 + 1,
            i % 24,
            i % 3 == 0
        )
        .unwrap();
    }
    fs::write(dir.path().join("in.csv"), &text).unwrap();
    let (code, err) = table(
        dir.path(),
        &[
            "in.csv",
            "-o",
            "typed.parquet",
            "--infer-types",
            "--seed",
            "a",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, err) = table(
        dir.path(),
        &["typed.parquet", "-o", "back.csv", "--seed", "b"],
    );
    assert_eq!(code, 0, "{err}");
    let back = fs::read_to_string(dir.path().join("back.csv")).unwrap();
    assert!(back.starts_with("id,x,when,flag,name\n"), "{back:.100}");
    assert_eq!(sorted_lines(&dir.path().join("back.csv")), {
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        lines.sort();
        lines
    });
    // The Parquet columns are typed: its JSON Lines has numbers.
    let (code, err) = table(
        dir.path(),
        &["typed.parquet", "-o", "typed.jsonl", "-n", "1"],
    );
    assert_eq!(code, 0, "{err}");
    let json = fs::read_to_string(dir.path().join("typed.jsonl")).unwrap();
    assert!(
        json.starts_with(r#"{"id":"#) && !json.starts_with(r#"{"id":""#),
        "{json}"
    );
}

#[test]
fn several_files_get_one_type_per_column() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.csv"), "n,v\n1,x\n2,y\n").unwrap();
    fs::write(dir.path().join("b.tsv"), "v\tn\nz\t3\nw\t4\n").unwrap();
    fs::write(dir.path().join("c.csv"), "n,v\n5,q\nfive,r\n").unwrap();
    let (code, err) = table(
        dir.path(),
        &["a.csv", "b.tsv", "-o", "ab.jsonl", "--infer-types"],
    );
    assert_eq!(code, 0, "{err}");
    let lines = sorted_lines(&dir.path().join("ab.jsonl"));
    assert_eq!(
        lines,
        [
            r#"{"n":1,"v":"x"}"#,
            r#"{"n":2,"v":"y"}"#,
            r#"{"n":3,"v":"z"}"#,
            r#"{"n":4,"v":"w"}"#
        ]
    );
    // One value of c.csv that is no integer: the column is text in all.
    let (code, err) = table(
        dir.path(),
        &["a.csv", "c.csv", "-o", "ac.jsonl", "--infer-types"],
    );
    assert_eq!(code, 0, "{err}");
    let text = fs::read_to_string(dir.path().join("ac.jsonl")).unwrap();
    assert!(
        text.contains(r#""n":"1""#) && text.contains(r#""n":"five""#),
        "{text}"
    );
}

#[test]
fn infer_types_refuses_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let output = TestCommand::knuffle()
        .current_dir(dir.path())
        .args(["table", "/dev/stdin", "--format", "csv", "-o", "o.parquet"])
        .arg("--infer-types")
        .stdin(b"a\n1\n")
        .output();
    let (code, _, err) = code_and_text(&output);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--infer-types reads the inputs twice"),
        "{err}"
    );
    assert!(!dir.path().join("o.parquet").exists());
}

/// A JSON Lines text of `n` lines `{"id": i, "name": "n<i>"}`, line
/// `at` (1-based) replaced by `bad`.
fn json_lines(n: usize, at: usize, bad: &str) -> String {
    let mut text = String::new();
    for i in 1..=n {
        if i == at {
            text += bad;
            text.push('\n');
        } else {
            writeln!(text, r#"{{"id": {i}, "name": "n{i}"}}"#).unwrap();
        }
    }
    text
}

fn gzip(dir: &Path, name: &str) {
    let status = std::process::Command::new("gzip")
        .arg("-k")
        .arg(dir.join(name))
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn json_lines_errors_name_the_file_and_the_line_of_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "conflict.jsonl",
            json_lines(12_000, 5_123, r#"{"id": "5123", "name": "n"}"#),
            "conflict.jsonl: line 5123: field 'id' is a string here and a number on line 1",
        ),
        (
            "nested.jsonl",
            json_lines(9_000, 8_765, r#"{"id": 1, "name": ["n"]}"#),
            "nested.jsonl: line 8765: field 'name' is an array here and a string on line 1",
        ),
        (
            "broken.jsonl",
            json_lines(20_000, 17_001, r#"{"id": 17001, "name": "#),
            "broken.jsonl: line 17001: not a JSON value",
        ),
    ];
    for (name, text, expected) in &cases {
        fs::write(dir.path().join(name), text).unwrap();
        gzip(dir.path(), name);
        for input in [name.to_string(), format!("{name}.gz")] {
            let (code, err) = table(dir.path(), &[&input, "-o", "out.parquet"]);
            assert_eq!(code, 2, "{input}: {err}");
            let expected = expected.replace(name, &input);
            assert!(err.contains(&expected), "{input}: {err}");
            assert!(!dir.path().join("out.parquet").exists());
        }
    }
}

#[test]
fn a_type_conflict_between_json_lines_files_names_both_lines() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.jsonl"), json_lines(6_000, 0, "")).unwrap();
    let mut b = String::new();
    for i in 1..=7_000 {
        if i < 6_500 {
            writeln!(b, r#"{{"id": null, "name": "m{i}"}}"#).unwrap();
        } else {
            writeln!(b, r#"{{"id": "x{i}", "name": "m{i}"}}"#).unwrap();
        }
    }
    fs::write(dir.path().join("b.jsonl"), b).unwrap();
    let (code, err) = table(dir.path(), &["a.jsonl", "b.jsonl", "-o", "out.parquet"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("field 'id' is Int64 in a.jsonl (line 1) and Utf8 in b.jsonl (line 6500)"),
        "{err}"
    );
}
