//! gzip and zstd files: `knuffle table`, `sample` and `split` read them by
//! their content, whatever their names (one file, several, directories,
//! standard input), giving exactly the output of the uncompressed input
//! for the same seed; `knuffle table` writes `-o NAME.gz` / `NAME.zst`
//! compressed; a truncated or corrupt stream is an error naming the file
//! that leaves no output; bzip2, xz and compressed Parquet are refused.
//! Shuf mode, GNU shuf's, does not decompress.

use std::fs;
use std::io::{Read, Write};
use std::path::Path;

use knuffle_io::compressed::{Compressed, CompressedWriter, Decompressed};

use crate::support::external::entries;
use crate::support::{TestCommand, code_and_text};

const BOTH: [Compressed; 2] = [Compressed::Gzip, Compressed::Zstd];

fn pack(format: Compressed, bytes: &[u8]) -> Vec<u8> {
    let mut writer = CompressedWriter::new(Vec::new(), Some(format)).unwrap();
    writer.write_all(bytes).unwrap();
    writer.finish().unwrap()
}

fn unpack(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    Decompressed::new(bytes, 1 << 16)
        .unwrap()
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn suffix(format: Compressed) -> &'static str {
    match format {
        Compressed::Gzip => "gz",
        _ => "zst",
    }
}

/// A CSV of rows `ids`: `id`, and a text with a quoted comma and newline
/// in every seventh row.
fn csv(ids: std::ops::Range<u64>) -> Vec<u8> {
    let mut out = b"id,text\n".to_vec();
    for i in ids {
        if i % 7 == 3 {
            writeln!(out, "{i},\"a,b\nc{i}\"").unwrap();
        } else {
            writeln!(out, "{i},text {i}").unwrap();
        }
    }
    out
}

fn jsonl(ids: std::ops::Range<u64>) -> Vec<u8> {
    let mut out = Vec::new();
    for i in ids {
        writeln!(out, "{{\"id\":{i},\"name\":\"n{i}\",\"x\":{}.5}}", i * 3).unwrap();
    }
    out
}

/// `knuffle table ARGS -o OUT` in `dir`: its output file's bytes.
fn table(dir: &Path, args: &[&str], out: &str) -> Vec<u8> {
    let output = TestCommand::knuffle()
        .current_dir(dir)
        .arg("table")
        .args(args)
        .args(["-o", out])
        .output();
    let (code, _, err) = code_and_text(&output);
    assert_eq!(code, 0, "{args:?}: {err}");
    fs::read(dir.join(out)).unwrap()
}

/// The `id` of each row of JSON Lines.
fn json_ids(bytes: &[u8]) -> Vec<u64> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            value["id"].as_u64().unwrap()
        })
        .collect()
}

#[test]
fn compressed_tables_are_read_by_content_in_the_order_of_the_plain_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = 3000;
    fs::write(d.join("plain.csv"), csv(0..rows)).unwrap();
    fs::write(d.join("plain.jsonl"), jsonl(0..rows)).unwrap();
    // The reference: every row once, in the table order of the seed.
    let plain = table(d, &["--seed", "z", "plain.jsonl"], "plain-out.jsonl");
    assert_eq!(json_ids(&plain), knuffle_table::table_order("z", rows));
    let plain_csv = table(d, &["--seed", "z", "plain.csv"], "plain-out.csv");
    // Through bucket files too (rows larger than --memory 1M).
    let big = csv(0..60_000);
    fs::write(d.join("big.csv"), &big).unwrap();
    let big_plain = table(
        d,
        &["--seed", "z", "--memory", "1M", "big.csv"],
        "big-out.csv",
    );
    for format in BOTH {
        let ext = suffix(format);
        let name = |stem: &str| format!("{stem}.{ext}");
        fs::write(d.join(name("t.csv")), pack(format, &csv(0..rows))).unwrap();
        fs::write(d.join(name("t.jsonl")), pack(format, &jsonl(0..rows))).unwrap();
        fs::write(d.join(name("big.csv")), pack(format, &big)).unwrap();
        // Misnamed: the content decides how it is read.
        fs::write(d.join("misnamed.csv"), pack(format, &csv(0..rows))).unwrap();
        let cases: [(&str, &[u8], &str); 4] = [
            (&name("t.csv"), &plain_csv, "out.csv"),
            ("misnamed.csv", &plain_csv, "out.csv"),
            (&name("t.jsonl"), &plain, "out.jsonl"),
            (&name("big.csv"), &big_plain, "out.csv"),
        ];
        for (input, expected, out) in cases {
            let mut args = vec!["--seed", "z", input];
            if input.starts_with("big") {
                args.extend(["--memory", "1M"]);
            }
            let got = table(d, &args, out);
            assert!(got == expected, "{format:?} {input}: not the plain order");
        }
    }
    // Several files (JSON Lines read twice: for the merged schema, then
    // the rows) and directories of shards, compressed or not.
    let shards = d.join("shards");
    let plain_shards = d.join("plain-shards");
    fs::create_dir_all(shards.join("sub")).unwrap();
    fs::create_dir_all(plain_shards.join("sub")).unwrap();
    let parts = [(0..1000, "a.jsonl.gz"), (1000..2000, "b.jsonl.zst")];
    for (ids, file) in parts {
        let format = if file.ends_with("gz") {
            BOTH[0]
        } else {
            BOTH[1]
        };
        fs::write(
            shards.join("sub").join(file),
            pack(format, &jsonl(ids.clone())),
        )
        .unwrap();
        let stem = file.split('.').next().unwrap();
        let plain = plain_shards.join("sub").join(format!("{stem}.jsonl"));
        fs::write(plain, jsonl(ids)).unwrap();
    }
    fs::write(shards.join("c.jsonl"), jsonl(2000..3000)).unwrap();
    fs::write(plain_shards.join("c.jsonl"), jsonl(2000..3000)).unwrap();
    let from_plain = table(d, &["--seed", "w", "plain-shards"], "dir-plain.jsonl");
    let from_mixed = table(d, &["--seed", "w", "shards"], "dir-mixed.jsonl");
    assert_eq!(json_ids(&from_plain).len(), 3000);
    assert!(from_mixed == from_plain, "a directory of compressed shards");
    let files = table(
        d,
        &[
            "--seed",
            "w",
            "shards/sub/a.jsonl.gz",
            "shards/sub/b.jsonl.zst",
        ],
        "files.jsonl",
    );
    let plain_files = table(
        d,
        &[
            "--seed",
            "w",
            "plain-shards/sub/a.jsonl",
            "plain-shards/sub/b.jsonl",
        ],
        "plain-files.jsonl",
    );
    assert!(files == plain_files, "several compressed files");
    // Standard input (a pipe) with --format.
    let output = TestCommand::knuffle()
        .current_dir(d)
        .args([
            "table",
            "--seed",
            "z",
            "--format",
            "csv",
            "/dev/stdin",
            "-o",
        ])
        .arg("stdin.csv")
        .stdin(&pack(Compressed::Zstd, &csv(0..rows)))
        .output();
    assert_eq!(code_and_text(&output).0, 0, "{output:?}");
    assert!(fs::read(d.join("stdin.csv")).unwrap() == plain_csv);
}

#[test]
fn outputs_are_compressed_by_their_extension() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("t.csv"), csv(0..2000)).unwrap();
    let plain_csv = table(d, &["--seed", "o", "t.csv"], "out.csv");
    let plain_jsonl = table(d, &["--seed", "o", "t.csv"], "out.jsonl");
    for format in BOTH {
        let ext = suffix(format);
        for (plain, out) in [(&plain_csv, "out.csv"), (&plain_jsonl, "out.jsonl")] {
            let name = format!("{out}.{ext}");
            let packed = table(d, &["--seed", "o", "t.csv"], &name);
            assert_eq!(
                knuffle_io::compressed::recognise(&packed),
                Some(format),
                "{name}"
            );
            assert!(
                unpack(&packed) == *plain,
                "{name}: the plain output compressed"
            );
            // And read back by knuffle: the same rows, in the same order
            // for the same seed.
            let back = table(d, &["--seed", "o", &name], "back.csv");
            let again = table(d, &["--seed", "o", out], "again.csv");
            assert!(back == again, "{name} read back");
        }
    }
    // Parquet and Arrow compress inside; bzip2 and xz are not written.
    for (out, says) in [
        ("out.parquet.gz", "drop the .gz"),
        ("out.arrow.zst", "drop the .zst"),
        (
            "out.csv.bz2",
            "knuffle writes gzip (.gz) and zstd (.zst), not bzip2",
        ),
    ] {
        let output = TestCommand::knuffle()
            .current_dir(d)
            .args(["table", "t.csv", "-o", out])
            .output();
        let (code, _, err) = code_and_text(&output);
        assert_eq!(code, 2, "{out}: {err}");
        assert!(err.contains(out) && err.contains(says), "{out}: {err}");
        assert!(!d.join(out).exists(), "{out}");
    }
}

#[test]
fn truncated_or_corrupt_streams_are_errors_that_leave_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = csv(0..5000);
    let mut inputs = Vec::new();
    for format in BOTH {
        let packed = pack(format, &text);
        let cut = format!("cut.csv.{}", suffix(format));
        fs::write(d.join(&cut), &packed[..packed.len() * 2 / 3]).unwrap();
        // A byte of the text's checksum flipped (gzip's CRC-32 before the
        // length that ends a member, zstd's last four bytes): the text
        // decompresses, and the stream's end says it is not what was
        // compressed.
        let checksum_byte = |len: usize| match format {
            Compressed::Gzip => len - 6,
            _ => len - 2,
        };
        let mut flipped = packed.clone();
        flipped[checksum_byte(packed.len())] ^= 0x5a;
        let bad = format!("flipped.jsonl.{}", suffix(format));
        let mut json = pack(format, &jsonl(0..5000));
        let at = checksum_byte(json.len());
        json[at] ^= 0x5a;
        fs::write(d.join(&bad), json).unwrap();
        let lines = format!("flipped.txt.{}", suffix(format));
        fs::write(d.join(&lines), flipped).unwrap();
        inputs.push((cut, format));
        inputs.push((bad, format));
        inputs.push((lines, format));
    }
    fs::write(d.join("kept.csv"), "precious").unwrap();
    for (input, format) in &inputs {
        let says = format!("the {} data is corrupt or truncated", format.name());
        if !input.starts_with("flipped.txt") {
            // A table: exit 2, the file named, the output untouched.
            for out in ["new.csv", "kept.csv"] {
                let output = TestCommand::knuffle()
                    .current_dir(d)
                    .args(["table", "--seed", "1", input, "-o", out])
                    .output();
                let (code, _, err) = code_and_text(&output);
                assert_eq!(code, 2, "{input}: {err}");
                assert!(err.contains(input.as_str()) && err.contains(&says), "{err}");
            }
        }
        // Lines: a data error (exit 1) naming the input, nothing written.
        let runs = [
            TestCommand::knuffle()
                .current_dir(d)
                .args(["sample", "-n", "3", input, "-o", "sample.txt"])
                .output(),
            TestCommand::knuffle()
                .current_dir(d)
                .args(["split", "--parts", "50,50", "-o", "p0", "-o", "p1", input])
                .output(),
            TestCommand::knuffle()
                .current_dir(d)
                .args(["sample", "-p", "0.5"])
                .stdin(&fs::read(d.join(input)).unwrap())
                .output(),
        ];
        for output in &runs {
            let (code, _, err) = code_and_text(output);
            assert_eq!(code, 1, "{input}: {err}");
            assert!(err.contains(&says), "{input}: {err}");
        }
        assert!(code_and_text(&runs[0]).2.contains(input.as_str()));
        assert!(code_and_text(&runs[2]).2.contains("standard input"));
    }
    assert_eq!(fs::read_to_string(d.join("kept.csv")).unwrap(), "precious");
    let mut left = entries(d);
    left.sort();
    let mut expected: Vec<String> = inputs.iter().map(|(name, _)| name.clone()).collect();
    expected.push("kept.csv".into());
    expected.sort();
    assert_eq!(left, expected, "no output, part or temporary file left");
}

#[test]
fn bzip2_xz_and_compressed_parquet_are_refused_naming_what_decompresses_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("t.csv"), csv(0..10)).unwrap();
    table(d, &["t.csv"], "t.parquet");
    let parquet = fs::read(d.join("t.parquet")).unwrap();
    fs::write(d.join("t.parquet.gz"), pack(Compressed::Gzip, &parquet)).unwrap();
    // The first bytes of a bzip2 and an xz stream (enough to tell them).
    fs::write(d.join("t.csv.bz2"), b"BZh91AY&SY\x01\x02\x03").unwrap();
    fs::write(d.join("t.csv.xz"), b"\xfd7zXZ\x00\x00\x04\xe6").unwrap();
    for (input, says) in [
        (
            "t.parquet.gz",
            "t.parquet.gz is gzip-compressed; a Parquet file",
        ),
        (
            "t.csv.bz2",
            "t.csv.bz2 is bzip2-compressed; knuffle reads gzip and zstd",
        ),
        (
            "t.csv.xz",
            "t.csv.xz is xz-compressed; knuffle reads gzip and zstd",
        ),
    ] {
        let output = TestCommand::knuffle()
            .current_dir(d)
            .args(["table", input, "-o", "out.csv"])
            .output();
        let (code, _, err) = code_and_text(&output);
        assert_eq!(code, 2, "{input}: {err}");
        assert!(err.contains(says), "{input}: {err}");
        assert!(!d.join("out.csv").exists());
    }
    // The line tools: a table inside gzip is still a table.
    let output = TestCommand::knuffle()
        .current_dir(d)
        .args(["sample", "-n", "2", "t.parquet.gz"])
        .output();
    let (code, _, err) = code_and_text(&output);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("is a Parquet table") && err.contains("knuffle table"),
        "{err}"
    );
}

#[test]
fn sample_and_split_read_gzip_and_zstd_as_the_plain_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text: Vec<u8> = (0..5000)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    fs::write(d.join("plain.txt"), &text).unwrap();
    let run = |args: &[&str], stdin: &[u8]| {
        let output = TestCommand::knuffle()
            .current_dir(d)
            .args(args)
            .stdin(stdin)
            .output();
        let (code, out, err) = code_and_text(&output);
        assert_eq!(code, 0, "{args:?}: {err}");
        out
    };
    let split_parts = |input: &str, stdin: &[u8]| {
        run(
            &[
                "split", "--seed", "s", "--parts", "80,10,10", "-o", "a", "-o", "b", "-o", "c",
                input,
            ],
            stdin,
        );
        ["a", "b", "c"].map(|p| fs::read(d.join(p)).unwrap())
    };
    let modes: [&[&str]; 3] = [
        &["sample", "--seed", "s", "-n", "40"],
        &["sample", "--seed", "s", "-p", "0.01"],
        &["sample", "--seed", "s"],
    ];
    let plain: Vec<String> = modes
        .iter()
        .map(|m| run(&[*m, &["plain.txt"]].concat(), b""))
        .collect();
    let plain_parts = split_parts("plain.txt", b"");
    let sizes: Vec<usize> = plain_parts.iter().map(Vec::len).collect();
    assert_eq!(sizes.iter().sum::<usize>(), text.len());
    for format in BOTH {
        let packed = pack(format, &text);
        // Two members / frames: one stream.
        let (head, tail) = text.split_at(20_000);
        let mut two = pack(format, head);
        two.extend(pack(format, tail));
        let name = format!("in.{}", suffix(format));
        fs::write(d.join(&name), &packed).unwrap();
        fs::write(d.join("two.txt"), &two).unwrap();
        for (mode, expected) in modes.iter().zip(&plain) {
            for input in [name.as_str(), "two.txt"] {
                assert_eq!(&run(&[*mode, &[input]].concat(), b""), expected, "{input}");
            }
            assert_eq!(&run(mode, &packed), expected, "{format:?} standard input");
        }
        assert_eq!(split_parts(&name, b""), plain_parts, "{format:?}");
        assert_eq!(split_parts("-", &packed), plain_parts, "{format:?} stdin");
        // Shuf mode is GNU shuf's: it does not decompress (the compressed
        // bytes' lines, shuffled).
        let output = TestCommand::knuffle().arg(d.join(&name)).output();
        assert_eq!(output.status.code(), Some(0));
        let lines = |bytes: &[u8]| {
            let mut lines: Vec<Vec<u8>> = bytes
                .split_inclusive(|&b| b == b'\n')
                .map(|line| line.strip_suffix(b"\n").unwrap_or(line).to_vec())
                .collect();
            lines.sort();
            lines
        };
        assert_eq!(
            lines(&output.stdout),
            lines(&packed),
            "{format:?} shuf mode"
        );
    }
}
