//! `knuffle audit --order`: one long order from a text or `.npy` file. An
//! exact shuffle passes, a buffer shuffle, blocks, shards read in turn and
//! the same order twice are flagged with their causes, a non-permutation is
//! exit status 1, bad input exit status 2 naming the file and the line.

use std::path::{Path, PathBuf};

fn audit(args: &[&str]) -> (i32, String, String) {
    let output = crate::support::TestCommand::knuffle()
        .arg("audit")
        .args(args)
        .output();
    crate::support::code_and_text(&output)
}

fn write_lines(dir: &Path, name: &str, values: &[u64]) -> String {
    let text: String = values.iter().map(|v| format!("{v}\n")).collect();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// A `.npy` file of little-endian int64.
fn write_npy(dir: &Path, name: &str, values: &[i64]) -> String {
    let mut header = format!(
        "{{'descr': '<i8', 'fortran_order': False, 'shape': ({},), }}",
        values.len()
    );
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    for v in values {
        bytes.extend(v.to_le_bytes());
    }
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

fn permutation(n: usize, seed: &str) -> Vec<u64> {
    let mut rng = knuffle::Seed::from_text(seed).rng();
    knuffle::permutation(n, &mut rng)
        .into_iter()
        .map(|r| r as u64)
        .collect()
}

/// A buffer shuffle: a buffer of `size` rows, each step emits a uniform one
/// and takes the next row in.
fn buffer_shuffle(n: usize, size: usize, seed: &str) -> Vec<u64> {
    let mut rng = knuffle::Seed::from_text(seed).rng();
    let mut buffer: Vec<u64> = Vec::new();
    let mut out = Vec::with_capacity(n);
    for row in 0..n as u64 {
        buffer.push(row);
        if buffer.len() == size {
            let i = knuffle::below(size as u64, &mut rng) as usize;
            out.push(buffer.swap_remove(i));
        }
    }
    knuffle::shuffle(&mut buffer, &mut rng);
    out.extend(buffer);
    out
}

#[test]
fn an_exact_shuffle_passes_in_text_and_npy() {
    let dir = tempfile::tempdir().unwrap();
    let order = permutation(50_000, "cli epoch");
    let text = write_lines(dir.path(), "epoch.txt", &order);
    let (code, out, err) = audit(&["--order", &text]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("one order of n = 50000 rows"), "{out}");
    assert!(out.contains("verdict: no bias found"), "{out}");
    assert!(!out.contains("likely cause"), "{out}");
    let signed: Vec<i64> = order.iter().map(|&r| r as i64).collect();
    let npy = write_npy(dir.path(), "epoch.npy", &signed);
    let (code, out_npy, _) = audit(&["--order", &npy]);
    assert_eq!((code, out_npy), (0, out));
}

#[test]
fn approximate_shuffles_are_flagged_with_their_causes() {
    let dir = tempfile::tempdir().unwrap();
    let n = 100_000;
    let buffered = write_lines(dir.path(), "buffer.txt", &buffer_shuffle(n, 1000, "buffer"));
    let (code, out, _) = audit(&["--order", &buffered]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("verdict: BIASED"), "{out}");
    // The window estimated from the displacements: the buffer's 1,000 rows, to 10%.
    let window: u64 = out
        .split("likely cause: looks like a buffer shuffle of about ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .map(|w| w.replace(',', "").parse().unwrap())
        .unwrap_or_else(|| panic!("{out}"));
    assert!((900..=1100).contains(&window), "{out}");

    let mut blocks: Vec<u64> = (0..100).collect();
    knuffle::shuffle(&mut blocks, &mut knuffle::Seed::from_text("blocks").rng());
    let blocks: Vec<u64> = blocks
        .iter()
        .flat_map(|b| b * 1000..(b + 1) * 1000)
        .collect();
    let path = write_lines(dir.path(), "blocks.txt", &blocks);
    let (code, out, _) = audit(&["--order", &path]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("blocks of about 1,000 rows read in random order"),
        "{out}"
    );

    // Four shards of 25,000 rows, each shuffled, read in turn.
    let shards: Vec<Vec<u64>> = (0..4u64)
        .map(|s| {
            permutation(25_000, &format!("shard {s}"))
                .iter()
                .map(|r| s * 25_000 + r)
                .collect()
        })
        .collect();
    let round_robin: Vec<u64> = (0..25_000)
        .flat_map(|i| shards.iter().map(move |s| s[i]))
        .collect();
    let path = write_lines(dir.path(), "round-robin.txt", &round_robin);
    let shard_of: Vec<u64> = (0..n as u64).map(|r| r / 25_000).collect();
    let shard_path = write_lines(dir.path(), "shards.txt", &shard_of);
    let (code, out, _) = audit(&["--order", &path, "--shards", &shard_path]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("neighbours in the same shard"), "{out}");
    assert!(out.contains("likely cause: shards read in turn"), "{out}");
}

#[test]
fn the_same_order_twice_fails_and_independent_epochs_pass() {
    let dir = tempfile::tempdir().unwrap();
    let first = write_lines(dir.path(), "first.txt", &permutation(30_000, "first"));
    let second = write_lines(dir.path(), "second.txt", &permutation(30_000, "second"));
    let (code, out, _) = audit(&["--order", &first, "--previous", &first]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("likely cause: the same order as the previous epoch"),
        "{out}"
    );
    let (code, out, _) = audit(&["--order", &second, "--previous", &first]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("same position as previous epoch"), "{out}");
}

#[test]
fn a_non_permutation_is_exit_status_1_with_examples() {
    let dir = tempfile::tempdir().unwrap();
    let mut order: Vec<u64> = permutation(1000, "gap");
    let at = order.iter().position(|&r| r == 7).unwrap();
    order[at] = 8;
    let path = write_lines(dir.path(), "gap.txt", &order);
    let (code, out, err) = audit(&["--order", &path]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("1 missing, 1 repeated"), "{out}");
    assert!(out.contains("first missing rows: 7"), "{out}");
    assert!(out.contains("verdict: NOT A PERMUTATION"), "{out}");
}

#[test]
fn bad_input_is_exit_status_2_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases: [(&str, &str, &str); 5] = [
        (
            "letters.txt",
            "0\n1\nx\n",
            "letters.txt: line 3: not a number (found 'x'",
        ),
        ("empty.txt", "", "empty.txt: empty: no rows"),
        ("blank.txt", "0\n\n1\n", "blank.txt: line 2: empty line"),
        (
            "large.txt",
            "0\n1\n3\n",
            "large.txt: line 3: 3 is not a row number below n = 3",
        ),
        (
            "negative.txt",
            "0\n-1\n",
            "negative.txt: line 2: not a number (found '-'",
        ),
    ];
    for (name, text, message) in cases {
        std::fs::write(d.join(name), text).unwrap();
        let (code, out, err) = audit(&["--order", &d.join(name).to_string_lossy()]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(err.contains(message), "{name}: {err}");
        assert!(out.is_empty(), "{name}: {out}");
    }
    let order = write_lines(d, "order.txt", &[2, 0, 1]);
    let (code, _, err) = audit(&["--order", &order, "--n", "2"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("line 1: 2 is not a row number below n = 2"),
        "{err}"
    );
    let npy = write_npy(d, "negative.npy", &[0, -3]);
    let (code, _, err) = audit(&["--order", &npy]);
    assert_eq!(code, 2);
    assert!(
        err.contains("negative.npy: element 1: -3 is negative"),
        "{err}"
    );
    let short = write_lines(d, "short.txt", &[0, 1]);
    let (code, _, err) = audit(&["--order", &order, "--previous", &short]);
    assert_eq!(code, 2);
    assert!(
        err.contains("short.txt: 2 rows, but this epoch's order has n = 3"),
        "{err}"
    );
    let (code, _, err) = audit(&["--order", &order, "--shards", &short]);
    assert_eq!(code, 2);
    assert!(err.contains("short.txt: 2 shard numbers"), "{err}");
    let (code, _, err) = audit(&["--order", "/nonexistent/order.txt"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/order.txt"), "{err}");
    let (code, _, _) = audit(&["--order", &order, "--base", "0"]);
    assert_eq!(code, 2);
    let (code, _, _) = audit(&["--shards", &order]);
    assert_eq!(code, 2);
}

#[test]
fn the_html_report_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let order = write_lines(
        dir.path(),
        "order.txt",
        &buffer_shuffle(20_000, 500, "report"),
    );
    let page = dir.path().join("audit.html");
    let (code, out, err) = audit(&["--order", &order, "--report", &page.to_string_lossy()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("report: "), "{out}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("looks like a buffer shuffle"), "{html}");
    assert_eq!(html.matches("<svg").count(), 2);
    // A report that cannot be written is refused before the work.
    let (code, _, err) = audit(&["--order", &order, "--report", "/nonexistent/dir/audit.html"]);
    assert_eq!(code, 2, "{err}");
}
