//! `knuffle table`, `sample` and `split` on hostile tables (issue 40), the
//! real binary under `ulimit -v` (4 GB, as the issue's runs): exit 0 with
//! every row, or exit 2 (table) with a message naming the file, in bounded
//! memory, never a panic or an abort, and no output left behind. The
//! formats' cases in depth are in `crates/knuffle-table/tests/hostile.rs`.

use std::fs;
use std::path::Path;
use std::time::Duration;

use crate::support::limited::{End, Limited, Outcome};
use crate::support::{TestCommand, code_and_text, heavy, require_or_skip};

const ADDRESS_SPACE: u64 = 4_000_000 * 1024;

fn limited(dir: &Path, args: &[&str]) -> Outcome {
    let mut all: Vec<String> = Vec::new();
    for arg in args {
        all.push(if arg.contains('.') && !arg.starts_with('-') {
            dir.join(arg).display().to_string()
        } else {
            (*arg).to_owned()
        });
    }
    Limited::new(all)
        .address_space(ADDRESS_SPACE)
        .time_limit(Duration::from_secs(60))
        .run()
}

/// Exit 2 (or `status`), a message with `expected`, no panic text, no
/// output.
fn assert_refused(outcome: &Outcome, status: i32, expected: &str, out: &Path) {
    assert_eq!(outcome.end, End::Exited(status), "{}", outcome.stderr);
    assert!(outcome.stderr.contains(expected), "{}", outcome.stderr);
    assert!(!outcome.stderr.contains("panicked"), "{}", outcome.stderr);
    assert!(!out.exists(), "{out:?} left behind");
}

#[test]
fn an_unclosed_quote_is_an_error_in_table_sample_and_split() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("uq.csv"), "id,a\n1,\"unclosed\n2,b\n3,c\n").unwrap();
    let out = dir.path().join("o.csv");
    let table = limited(dir.path(), &["table", "uq.csv", "-o", "o.csv"]);
    assert_refused(&table, 2, "uq.csv: record 2 opens a quoted field", &out);
    let sample = limited(
        dir.path(),
        &["sample", "--csv", "-n", "5", "uq.csv", "-o", "o.csv"],
    );
    assert_refused(&sample, 1, "never closed", &out);
    let split = limited(
        dir.path(),
        &[
            "split", "--csv", "--parts", "1,1", "uq.csv", "-o", "p0.csv", "-o", "p1.csv",
        ],
    );
    assert_eq!(split.end, End::Exited(1), "{}", split.stderr);
    assert!(split.stderr.contains("never closed"), "{}", split.stderr);
    assert!(!dir.path().join("p0.csv").exists() && !dir.path().join("p1.csv").exists());
}

#[test]
fn wide_tables_are_read_within_the_memory_limit() {
    let _heavy = heavy();
    let dir = tempfile::tempdir().unwrap();
    // 100,000 columns of CSV (1.7 MB) and 20,000 keys of JSON Lines.
    let columns = 100_000;
    let header: Vec<String> = (0..columns).map(|c| format!("c{c}")).collect();
    let row: Vec<String> = (0..columns).map(|c| (c % 10).to_string()).collect();
    fs::write(
        dir.path().join("wide.csv"),
        format!(
            "{}\n{}\n{}\n",
            header.join(","),
            row.join(","),
            row.join(",")
        ),
    )
    .unwrap();
    let keys: Vec<String> = (0..20_000).map(|k| format!("\"key{k}\":{k}")).collect();
    let line = format!("{{{}}}\n", keys.join(","));
    fs::write(dir.path().join("wide.jsonl"), line.repeat(3)).unwrap();
    for (input, output, rows) in [("wide.csv", "w.csv", 2), ("wide.jsonl", "w.jsonl", 3)] {
        let run = limited(
            dir.path(),
            &["table", input, "-o", output, "--memory", "100M", "-v"],
        );
        assert_eq!(run.end, End::Exited(0), "{input}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!("{rows} rows in")),
            "{input}: {}",
            run.stderr
        );
        assert!(run.peak < 600 << 20, "{input}: peak {} MiB", run.peak >> 20);
    }
    // One cell longer than --memory allows a record: exit 2, naming it.
    fs::write(
        dir.path().join("cell.csv"),
        format!("id,v\n1,{}\n", "x".repeat(24 << 20)),
    )
    .unwrap();
    let out = dir.path().join("c.csv");
    let run = limited(
        dir.path(),
        &["table", "cell.csv", "-o", "c.csv", "--memory", "20M"],
    );
    assert_refused(&run, 2, "cell.csv: record 2 is longer than", &out);
    assert!(run.stderr.contains("--memory"), "{}", run.stderr);
    assert!(run.peak < 200 << 20, "peak {} MiB", run.peak >> 20);
}

#[test]
fn a_sample_of_a_wide_table_keeps_few_small_batches() {
    let _heavy = heavy();
    let dir = tempfile::tempdir().unwrap();
    // 2,000 columns, 3,000 rows: `-p` keeps a few rows of each small batch
    // read at a small limit; merged as they wait, they peaked at 220 MB
    // (a few thousand arrays of each column) before.
    let columns = 2_000;
    let mut text: String = (0..columns)
        .map(|c| format!("c{c}"))
        .collect::<Vec<_>>()
        .join(",");
    text.push('\n');
    for r in 0..3_000 {
        let row: Vec<String> = (0..columns).map(|c| ((c * r) % 10).to_string()).collect();
        text.push_str(&row.join(","));
        text.push('\n');
    }
    fs::write(dir.path().join("w.csv"), text).unwrap();
    let small = limited(
        dir.path(),
        &[
            "sample", "--seed", "s", "-p", "1/2", "--format", "csv", "w.csv", "-o", "a.csv",
            "--memory", "4M",
        ],
    );
    assert_eq!(small.end, End::Exited(0), "{}", small.stderr);
    // The rows waiting for the output are cut at what fits the limit, not
    // at 8,192 rows (1,500 sampled rows of 2,000 columns peaked at 47 MB).
    assert!(small.peak < 32 << 20, "peak {} MiB", small.peak >> 20);
    let large = limited(
        dir.path(),
        &[
            "sample", "--seed", "s", "-p", "1/2", "--format", "csv", "w.csv", "-o", "b.csv",
        ],
    );
    assert_eq!(large.end, End::Exited(0), "{}", large.stderr);
    let (a, b) = (
        fs::read(dir.path().join("a.csv")).unwrap(),
        fs::read(dir.path().join("b.csv")).unwrap(),
    );
    assert!(a == b, "the same sample whatever the limit");
    // Its columns alone take more than a 1M limit: refused before a row is
    // read, naming the file.
    let out = dir.path().join("t.csv");
    let tiny = limited(
        dir.path(),
        &["table", "w.csv", "-o", "t.csv", "--memory", "1M"],
    );
    assert_refused(&tiny, 2, "w.csv: a table of 2000 columns", &out);
    // Through bucket files at 16M: the rows gathered for the output fit
    // the limit, and a bucket's pieces of a few rows each are merged (an
    // 80 MB table of these columns peaked at 203 MB, in 312 s).
    let through = limited(
        dir.path(),
        &[
            "table", "w.csv", "-o", "s.csv", "--memory", "16M", "-v", "--seed", "s",
        ],
    );
    assert_eq!(through.end, End::Exited(0), "{}", through.stderr);
    assert!(
        through.stderr.contains("bucket files"),
        "{}",
        through.stderr
    );
    assert!(through.peak < 56 << 20, "peak {} MiB", through.peak >> 20);
    let held = limited(
        dir.path(),
        &["table", "w.csv", "-o", "h.csv", "--seed", "s"],
    );
    assert_eq!(held.end, End::Exited(0), "{}", held.stderr);
    let (s, h) = (
        fs::read(dir.path().join("s.csv")).unwrap(),
        fs::read(dir.path().join("h.csv")).unwrap(),
    );
    assert!(s == h, "the same bytes through bucket files and in memory");
}

#[test]
fn crafted_parquet_and_arrow_files_are_invalid_data() {
    let dir = tempfile::tempdir().unwrap();
    // A footer whose schema root claims 2^31-1 children (Thrift compact).
    let mut footer = vec![0x15, 0x02, 0x19, 0x1c, 0x48, 0x04];
    footer.extend_from_slice(b"root");
    footer.extend_from_slice(&[0x15, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0x00]);
    footer.extend_from_slice(&[0x16, 0x00, 0x19, 0x0c, 0x00]);
    let mut file = b"PAR1".to_vec();
    file.extend_from_slice(&footer);
    file.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    file.extend_from_slice(b"PAR1");
    fs::write(dir.path().join("children.parquet"), &file).unwrap();
    let out = dir.path().join("o.csv");
    let run = limited(dir.path(), &["table", "children.parquet", "-o", "o.csv"]);
    assert_refused(&run, 2, "children.parquet: corrupt Parquet footer", &out);

    // A truncated Arrow stream, made from a CSV by knuffle itself.
    let rows: String = (0..5000).map(|i| format!("{i},{i}\n")).collect();
    fs::write(dir.path().join("rows.csv"), format!("a,b\n{rows}")).unwrap();
    let made = limited(dir.path(), &["table", "rows.csv", "-o", "rows.arrows"]);
    assert_eq!(made.end, End::Exited(0), "{}", made.stderr);
    let bytes = fs::read(dir.path().join("rows.arrows")).unwrap();
    fs::write(dir.path().join("cut.arrows"), &bytes[..bytes.len() / 2]).unwrap();
    let run = limited(dir.path(), &["table", "cut.arrows", "-o", "o.csv"]);
    assert_refused(&run, 2, "cut.arrows: not a complete Arrow IPC", &out);

    // Any bytes flipped in an Arrow file or a Parquet file: exit 0 or 2,
    // never a panic or a signal.
    for (made_from, name) in [
        ("rows.arrow", "flip.arrow"),
        ("rows.parquet", "flip.parquet"),
    ] {
        let made = limited(dir.path(), &["table", "rows.csv", "-o", made_from]);
        assert_eq!(made.end, End::Exited(0), "{}", made.stderr);
        let bytes = fs::read(dir.path().join(made_from)).unwrap();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..40 {
            let mut flipped = bytes.clone();
            for _ in 0..1 + round % 4 {
                // xorshift64 (Marsaglia 2003): positions and bytes.
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let at = (state >> 32) as usize % flipped.len();
                flipped[at] ^= (state as u8) | 1;
            }
            fs::write(dir.path().join(name), &flipped).unwrap();
            let run = limited(dir.path(), &["table", name, "-o", "o.csv"]);
            assert!(
                matches!(run.end, End::Exited(0 | 2)),
                "{name} round {round}: {:?} {}",
                run.end,
                run.stderr
            );
            assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
            let _ = fs::remove_file(&out);
        }
    }
}

#[test]
fn compression_lzo_and_duplicate_columns_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("good.csv"), "a,b\n1,2\n").unwrap();
    fs::write(dir.path().join("dup.csv"), "a,b,a\n1,2,3\n").unwrap();
    let out = dir.path().join("o.parquet");
    let run = limited(
        dir.path(),
        &[
            "table",
            "good.csv",
            "-o",
            "o.parquet",
            "--compression",
            "lzo",
        ],
    );
    assert_refused(&run, 2, "'lzo' cannot be written", &out);
    let run = limited(dir.path(), &["table", "dup.csv", "-o", "o.parquet"]);
    assert_refused(&run, 2, "dup.csv: the column name 'a' appears twice", &out);
}

#[test]
fn a_sample_of_one_row_needs_little_memory() {
    let dir = tempfile::tempdir().unwrap();
    let rows: String = (0..10_000)
        .map(|i| format!("{i},{}\n", "y".repeat(100)))
        .collect();
    fs::write(dir.path().join("rows.csv"), format!("id,text\n{rows}")).unwrap();
    let made = limited(dir.path(), &["table", "rows.csv", "-o", "rows.parquet"]);
    assert_eq!(made.end, End::Exited(0), "{}", made.stderr);
    let run = limited(
        dir.path(),
        &[
            "table",
            "rows.parquet",
            "-o",
            "one.csv",
            "-n",
            "1",
            "--memory",
            "2M",
        ],
    );
    assert_eq!(run.end, End::Exited(0), "{}", run.stderr);
    let written = fs::read_to_string(dir.path().join("one.csv")).unwrap();
    assert_eq!(written.lines().count(), 2, "{written}");
}

#[test]
fn a_fifo_parquet_input_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("in.parquet");
    let writer = fifo_with(&fifo, b"PAR1 not really");
    let output = TestCommand::knuffle()
        .current_dir(dir.path())
        .args(["table", "in.parquet", "-o", "o.csv"])
        .output();
    writer.join().unwrap();
    let (code, _, stderr) = code_and_text(&output);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("in.parquet: a Parquet file is read from its end"),
        "{stderr}"
    );
}

/// A FIFO at `path` that a thread fills with `bytes` once.
fn fifo_with(path: &Path, bytes: &'static [u8]) -> std::thread::JoinHandle<()> {
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-ended path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        if let Ok(mut pipe) = fs::OpenOptions::new().write(true).open(&path) {
            let _ = std::io::Write::write_all(&mut pipe, bytes);
        }
    })
}

#[test]
fn split_and_sample_with_replacement_read_a_fifo_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("lines.fifo");
    let writer = fifo_with(&fifo, b"a\nb\nc\n");
    let split = limited(
        dir.path(),
        &[
            "split",
            "--parts",
            "1,2",
            "--seed",
            "f",
            "lines.fifo",
            "-o",
            "p0.txt",
            "-o",
            "p1.txt",
        ],
    );
    writer.join().unwrap();
    assert_eq!(split.end, End::Exited(0), "{}", split.stderr);
    let mut lines: Vec<String> = ["p0.txt", "p1.txt"]
        .iter()
        .flat_map(|p| {
            fs::read_to_string(dir.path().join(p))
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    lines.sort();
    assert_eq!(lines, ["a", "b", "c"]);
    fs::remove_file(&fifo).unwrap();
    let writer = fifo_with(&fifo, b"a\nb\nc\n");
    let sample = limited(
        dir.path(),
        &[
            "sample",
            "-r",
            "-n",
            "5",
            "--seed",
            "f",
            "lines.fifo",
            "-o",
            "s.txt",
        ],
    );
    writer.join().unwrap();
    assert_eq!(sample.end, End::Exited(0), "{}", sample.stderr);
    let drawn = fs::read_to_string(dir.path().join("s.txt")).unwrap();
    assert_eq!(drawn.lines().count(), 5, "{drawn}");
    assert!(
        drawn.lines().all(|l| ["a", "b", "c"].contains(&l)),
        "{drawn}"
    );
}

#[test]
fn parquet_row_groups_of_a_million_rows_are_read_within_a_small_limit() {
    let _heavy = heavy();
    let dir = tempfile::tempdir().unwrap();
    let rows = 1_100_000;
    let text: String = (0..rows).map(|i| format!("{i},{}\n", i % 1000)).collect();
    fs::write(dir.path().join("big.csv"), format!("id,x\n{text}")).unwrap();
    let made = limited(
        dir.path(),
        &[
            "table",
            "big.csv",
            "-o",
            "big.parquet",
            "--row-group-rows",
            "1000000",
        ],
    );
    assert_eq!(made.end, End::Exited(0), "{}", made.stderr);
    let run = limited(
        dir.path(),
        &[
            "table",
            "big.parquet",
            "-o",
            "out.csv",
            "--memory",
            "10M",
            "-v",
        ],
    );
    assert_eq!(run.end, End::Exited(0), "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("{rows} rows in, {rows} rows out")),
        "{}",
        run.stderr
    );
    // 2.5 GB before the reader chose its batches from the limit.
    assert!(run.peak < 64 << 20, "peak {} MiB", run.peak >> 20);
}

/// A CSV table of `columns` columns and `rows` rows of one-digit values.
fn wide_csv(path: &Path, columns: usize, rows: usize) {
    let header: Vec<String> = (0..columns).map(|c| format!("c{c}")).collect();
    let row: Vec<String> = (0..columns).map(|c| (c % 10).to_string()).collect();
    let mut text = header.join(",");
    text.push('\n');
    for _ in 0..rows {
        text.push_str(&row.join(","));
        text.push('\n');
    }
    fs::write(path, text).unwrap();
}

#[test]
fn ten_thousand_columns_within_fifty_megabytes() {
    let _heavy = heavy();
    let dir = tempfile::tempdir().unwrap();
    wide_csv(&dir.path().join("wide.csv"), 10_000, 8);
    // As CSV and Arrow IPC: read and written within the limit (1.3 GB
    // before).
    for out in ["w.csv", "w.arrow"] {
        let run = limited(
            dir.path(),
            &["table", "wide.csv", "-o", out, "--memory", "50M", "-v"],
        );
        assert_eq!(run.end, End::Exited(0), "{out}: {}", run.stderr);
        assert!(run.stderr.contains("8 rows in"), "{}", run.stderr);
        assert!(run.peak < 96 << 20, "{out}: peak {} MiB", run.peak >> 20);
    }
    // 200 rows do not fit in 20M, and 10,000 columns through bucket files
    // take about 80 MiB (it peaked at 118 MB): refused, saying what to raise.
    wide_csv(&dir.path().join("long.csv"), 10_000, 200);
    let out = dir.path().join("l.csv");
    let run = limited(
        dir.path(),
        &["table", "long.csv", "-o", "l.csv", "--memory", "20M"],
    );
    assert_refused(
        &run,
        2,
        "take about 79 MiB to go through bucket files",
        &out,
    );
    assert!(run.peak < 64 << 20, "peak {} MiB", run.peak >> 20);
    // Parquet's readers and writers take about 10 KiB a column whatever
    // the rows: more than 50M allows is refused, saying what to raise.
    let out = dir.path().join("w.parquet");
    let run = limited(
        dir.path(),
        &["table", "wide.csv", "-o", "w.parquet", "--memory", "50M"],
    );
    assert_refused(&run, 2, "10000 columns takes about", &out);
    assert!(run.stderr.contains("--memory"), "{}", run.stderr);
    let made = limited(dir.path(), &["table", "wide.csv", "-o", "w.parquet"]);
    assert_eq!(made.end, End::Exited(0), "{}", made.stderr);
    let back = dir.path().join("back.csv");
    let run = limited(
        dir.path(),
        &["table", "w.parquet", "-o", "back.csv", "--memory", "50M"],
    );
    assert_refused(&run, 2, "w.parquet: 10000 columns take about", &back);
    assert!(run.peak < 96 << 20, "peak {} MiB", run.peak >> 20);
}

#[test]
fn a_hundred_thousand_columns_need_the_memory_their_arrays_take() {
    let _heavy = heavy();
    let dir = tempfile::tempdir().unwrap();
    wide_csv(&dir.path().join("wide.csv"), 100_000, 4);
    // The arrays of a batch take about 1 KiB a column whatever the rows
    // (at 30M this ran at 273 MiB before): refused before a row is read,
    // saying what to raise.
    let out = dir.path().join("w.csv");
    let run = limited(
        dir.path(),
        &["table", "wide.csv", "-o", "w.csv", "--memory", "30M", "-v"],
    );
    assert_refused(
        &run,
        2,
        "wide.csv: a table of 100000 columns takes about 98 MiB",
        &out,
    );
    assert!(run.stderr.contains("--memory"), "{}", run.stderr);
    assert!(run.peak < 64 << 20, "peak {} MiB", run.peak >> 20);
    let run = limited(
        dir.path(),
        &["table", "wide.csv", "-o", "w.csv", "--memory", "200M", "-v"],
    );
    assert_eq!(run.end, End::Exited(0), "{}", run.stderr);
    assert!(run.stderr.contains("4 rows in"), "{}", run.stderr);
    let written = fs::read_to_string(dir.path().join("w.csv")).unwrap();
    assert_eq!(written.lines().count(), 5);
    assert!(run.peak < 200 << 20, "peak {} MiB", run.peak >> 20);
}

#[test]
fn json_lines_errors_integers_and_rows_without_columns_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines: String = (0..999).map(|i| format!("{{\"a\":{i}}}\n")).collect();
    lines.push_str("{\"a\": oops}\n");
    fs::write(dir.path().join("bad.jsonl"), lines).unwrap();
    let out = dir.path().join("o.csv");
    let run = limited(dir.path(), &["table", "bad.jsonl", "-o", "o.csv"]);
    assert_refused(&run, 2, "bad.jsonl: line 1000:", &out);

    fs::write(
        dir.path().join("big.jsonl"),
        "{\"v\":18446744073709551615}\n{\"v\":1}\n",
    )
    .unwrap();
    let run = limited(
        dir.path(),
        &["table", "big.jsonl", "-o", "big-out.jsonl", "--seed", "u"],
    );
    assert_eq!(run.end, End::Exited(0), "{}", run.stderr);
    let mut written: Vec<String> = fs::read_to_string(dir.path().join("big-out.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    written.sort();
    assert_eq!(written, ["{\"v\":18446744073709551615}", "{\"v\":1}"]);

    fs::write(dir.path().join("none.jsonl"), "{}\n".repeat(5)).unwrap();
    let run = limited(
        dir.path(),
        &["table", "none.jsonl", "-o", "none.arrows", "-v"],
    );
    assert_eq!(run.end, End::Exited(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("5 rows in, 5 rows out"),
        "{}",
        run.stderr
    );
    let back = limited(
        dir.path(),
        &["table", "none.arrows", "-o", "again.arrows", "-v"],
    );
    assert!(back.stderr.contains("5 rows in"), "{}", back.stderr);
}

#[test]
fn sample_and_split_write_errors_name_the_file() {
    if !Path::new("/dev/full").exists() {
        require_or_skip("/dev/full is missing");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.txt"), "a\nb\nc\n").unwrap();
    let sample = limited(
        dir.path(),
        &["sample", "-n", "2", "in.txt", "-o", "/dev/full"],
    );
    assert_eq!(sample.end, End::Exited(1), "{}", sample.stderr);
    assert!(
        sample.stderr.contains("cannot write '/dev/full'"),
        "{}",
        sample.stderr
    );
    let split = limited(
        dir.path(),
        &[
            "split",
            "--parts",
            "1,1",
            "in.txt",
            "-o",
            "/dev/full",
            "-o",
            "other.txt",
        ],
    );
    assert_eq!(split.end, End::Exited(1), "{}", split.stderr);
    assert!(
        split.stderr.contains("cannot write '/dev/full'"),
        "{}",
        split.stderr
    );
}
