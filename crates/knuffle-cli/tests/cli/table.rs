//! `knuffle table`: the real binary on real files. The formats and the order
//! are tested in depth by `crates/knuffle-table/tests`; here: exit statuses
//! and messages, no output or temporary file after a failure or a SIGKILL,
//! peak memory on a table ten times larger than `--memory`, the order equal
//! to the reference `table_order`, and uniformity through `knuffle audit`
//! (with a biased stand-in that fails).

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::external::{entries, wait_with_peak_memory};
use crate::support::{TestCommand, binary, code_and_text, heavy};

/// A CSV of `n` rows: `id` (the row number) and a text field of `width`
/// bytes with a quoted comma and newline in every tenth row.
fn csv(n: usize, width: usize) -> Vec<u8> {
    let mut out = b"id,text\n".to_vec();
    let filler = "x".repeat(width);
    for i in 0..n {
        if i % 10 == 3 {
            writeln!(out, "{i},\"a,b\n{filler}\"").unwrap();
        } else {
            writeln!(out, "{i},{filler}").unwrap();
        }
    }
    out
}

/// The `id` column of a CSV written by `knuffle table` (one row per
/// record; a quoted newline continues the record).
fn ids(csv: &[u8]) -> Vec<u64> {
    let text = String::from_utf8(csv.to_vec()).unwrap();
    let mut ids = Vec::new();
    let mut quoted = false;
    let mut record_start = true;
    for line in text.lines().skip(1) {
        if record_start {
            ids.push(line.split(',').next().unwrap().parse().unwrap());
        }
        quoted ^= line.matches('"').count() % 2 == 1;
        record_start = !quoted;
    }
    ids
}

#[test]
fn the_order_is_the_reference_order() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    fs::write(&input, csv(2000, 5)).unwrap();
    let out = dir.path().join("out.csv");
    let output = TestCommand::knuffle()
        .args(["table", "--seed", "reference"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        ids(&fs::read(&out).unwrap()),
        knuffle_table::table_order("reference", 2000)
    );
}

#[test]
fn failures_have_their_exit_status_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("junk.parquet"), vec![7u8; 5000]).unwrap();
    fs::write(dir.path().join("ragged.csv"), "a,b\n1,2\n3\n").unwrap();
    fs::write(dir.path().join("other.csv"), "a,c\n1,2\n").unwrap();
    fs::write(dir.path().join("good.csv"), "a,b\n1,2\n").unwrap();
    fs::write(dir.path().join("x.txt"), "a\n").unwrap();
    let cases: &[(&[&str], i32, &str)] = &[
        (&["junk.parquet"], 2, "junk.parquet: not a Parquet file"),
        (
            &["ragged.csv"],
            2,
            "ragged.csv: incorrect number of fields in record 3, expected 2 got 1",
        ),
        (
            &["good.csv", "other.csv"],
            2,
            "good.csv and other.csv do not have the same schema",
        ),
        (
            &["x.txt"],
            2,
            "x.txt: cannot tell the table format from the name (use --format",
        ),
        (
            &["missing.csv"],
            1,
            "missing.csv: No such file or directory",
        ),
        (
            &["good.csv", "--format", "xlsx"],
            2,
            "unknown table format 'xlsx'",
        ),
        (
            &["good.csv", "--compression", "zip"],
            2,
            "unknown Parquet compression 'zip'",
        ),
        (
            &["good.csv", "--shards", "0"],
            2,
            "--shards must be at least 1",
        ),
        // Checked once, by the engine, before an input is opened.
        (
            &["missing.csv", "--row-group-rows", "0"],
            2,
            "--row-group-rows must be at least 1",
        ),
    ];
    for &(args, status, message) in cases {
        let output = TestCommand::knuffle()
            .current_dir(dir.path())
            .arg("table")
            .args(args)
            .args(["-o", "out.parquet"])
            .output();
        let (code, _, stderr) = code_and_text(&output);
        assert_eq!(code, status, "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!dir.path().join("out.parquet").exists(), "{args:?}");
    }
    // An existing output is not touched by a failing run.
    fs::write(dir.path().join("out.csv"), "precious").unwrap();
    let output = TestCommand::knuffle()
        .current_dir(dir.path())
        .args(["table", "ragged.csv", "-o", "out.csv"])
        .output();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        fs::read_to_string(dir.path().join("out.csv")).unwrap(),
        "precious"
    );
    let mut left = entries(dir.path());
    left.sort();
    assert_eq!(
        left,
        [
            "good.csv",
            "junk.parquet",
            "other.csv",
            "out.csv",
            "ragged.csv",
            "x.txt"
        ]
    );
}

#[test]
fn sigkill_mid_run_leaves_no_output_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let temp = dir.path().join("tmp");
    fs::create_dir(&temp).unwrap();
    let fifo = dir.path().join("in.csv");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    for output in [dir.path().join("out.parquet"), dir.path().join("shards")] {
        let mut command = Command::new(binary());
        command
            .args(["table", "--memory", "1M", "-T"])
            .arg(&temp)
            .arg(&fifo)
            .arg("-o")
            .arg(&output)
            .stderr(Stdio::piped());
        if output.ends_with("shards") {
            command.args(["--shards", "3"]);
        }
        let mut child = command.spawn().unwrap();
        let mut writer = fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        // Enough rows to be moving them to bucket files, then a kill.
        writer.write_all(&csv(60_000, 40)).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        child.kill().unwrap();
        child.wait().unwrap();
        drop(writer);
        assert_eq!(entries(&temp), Vec::<String>::new(), "bucket files left");
        let mut left = entries(dir.path());
        left.sort();
        assert_eq!(left, ["in.csv", "tmp"], "{output:?}");
    }
}

#[test]
fn peak_memory_stays_under_the_limit_on_a_table_ten_times_larger() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    // About 100 MB of rows for an 8 MiB limit.
    fs::write(&input, csv(800_000, 120)).unwrap();
    let out = dir.path().join("out.parquet");
    let _heavy = heavy();
    let mut child = Command::new(binary())
        .args(["table", "--seed", "peak", "--memory", "8M", "-v"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (status, peak) = wait_with_peak_memory(&mut child);
    let stderr = crate::support::external::read_all(child.stderr.take().unwrap());
    assert!(status.success(), "{}", String::from_utf8_lossy(&stderr));
    assert!(String::from_utf8_lossy(&stderr).contains("bucket files"));
    // The limit plus the program itself (code, allocator, thread stacks).
    let bound = (8 << 20) + (24 << 20);
    assert!(peak < bound, "peak {} MiB", peak >> 20);
    // And the output is the order of the reference.
    let csv_out = dir.path().join("out.csv");
    let output = TestCommand::knuffle()
        .args(["table", "--seed", "peak"])
        .arg(&input)
        .arg("-o")
        .arg(&csv_out)
        .output();
    assert!(output.status.success());
    let written = fs::read(&csv_out).unwrap();
    assert_eq!(ids(&written), knuffle_table::table_order("peak", 800_000));
}

/// `knuffle audit`'s verdict (its exit status) on these shuffles of
/// `0..n`, one per line.
fn audit(shuffles: &[Vec<u64>]) -> i32 {
    let mut lines = String::new();
    for shuffle in shuffles {
        let text: Vec<String> = shuffle.iter().map(u64::to_string).collect();
        lines.push_str(&text.join(" "));
        lines.push('\n');
    }
    let output = TestCommand::knuffle()
        .args(["audit", "--base", "0"])
        .stdin(lines.as_bytes())
        .output();
    output.status.code().unwrap()
}

fn write_rows(path: &Path, n: usize) {
    let mut text = String::from("id\n");
    for i in 0..n {
        text.push_str(&format!("{i}\n"));
    }
    fs::write(path, text).unwrap();
}

#[test]
fn audit_finds_no_bias_in_the_table_order_and_finds_a_biased_stand_in() {
    let dir = tempfile::tempdir().unwrap();
    // Full permutation law at n = 4, through the binary (each seed a run).
    let input = dir.path().join("four.csv");
    write_rows(&input, 4);
    let out = dir.path().join("out.csv");
    let mut shuffles = Vec::new();
    for seed in 0..1200 {
        let output = TestCommand::knuffle()
            .args(["table", "--seed", &format!("audit {seed}")])
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .output();
        assert!(output.status.success());
        shuffles.push(ids(&fs::read(&out).unwrap()));
    }
    assert_eq!(audit(&shuffles), 0, "knuffle table looks biased");
    // The stand-in: 2-bit labels with ties kept in row order (no tie
    // shuffle), the mistake the bucket generators prevent.
    let biased: Vec<Vec<u64>> = (0..1200)
        .map(|seed| {
            let order = knuffle_table::TableOrder::new(&format!("audit {seed}"));
            let mut rows: Vec<(u32, u64)> = order
                .labels(0, 4)
                .into_iter()
                .map(|l| l >> 30)
                .zip(0..)
                .collect();
            rows.sort();
            rows.into_iter().map(|(_, r)| r).collect()
        })
        .collect();
    assert_eq!(audit(&biased), 1, "the biased stand-in passed");

    // Positions at n = 10^4 (the reference order, which the binary was
    // shown above and in the_order_is_the_reference_order to write).
    let big: Vec<Vec<u64>> = (0..200)
        .map(|seed| knuffle_table::table_order(&format!("p {seed}"), 10_000))
        .collect();
    assert_eq!(audit(&big), 0, "the table order at 10^4 looks biased");
    let biased_big: Vec<Vec<u64>> = (0..200)
        .map(|seed| {
            let order = knuffle_table::TableOrder::new(&format!("p {seed}"));
            let mut rows: Vec<(u32, u64)> = order
                .labels(0, 10_000)
                .into_iter()
                .map(|l| l >> 26)
                .zip(0..)
                .collect();
            rows.sort();
            rows.into_iter().map(|(_, r)| r).collect()
        })
        .collect();
    assert_eq!(audit(&biased_big), 1, "the biased stand-in at 10^4 passed");
}
