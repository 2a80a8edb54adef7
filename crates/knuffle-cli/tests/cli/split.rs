//! `knuffle split`: exact part sizes, every record in exactly one part,
//! headers, CSV records kept whole, a uniformly random assignment (a
//! chi-square test that a biased stand-in fails), group splits that agree
//! across runs and files, and the errors (bad parts, the wrong number of
//! outputs, a missing directory: nothing created, nothing truncated).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::{TestCommand, code_and_text};

/// Runs `knuffle split ARGS -o DIR/p0 -o DIR/p1 ...` (one output per
/// part) with `input` on standard input; returns the parts' bytes.
fn split(dir: &Path, parts: usize, args: &[&str], input: &[u8]) -> Vec<Vec<u8>> {
    let outputs = outputs(dir, parts);
    let mut command = TestCommand::knuffle().arg("split").args(args);
    for output in &outputs {
        command = command.arg("-o").arg(output);
    }
    let (code, _, err) = code_and_text(&command.stdin(input).output());
    assert_eq!(code, 0, "split {args:?}: {err}");
    outputs
        .iter()
        .map(|path| std::fs::read(path).expect("every part is written"))
        .collect()
}

/// `DIR/p0`, `DIR/p1`, ...
fn outputs(dir: &Path, parts: usize) -> Vec<PathBuf> {
    (0..parts).map(|j| dir.join(format!("p{j}"))).collect()
}

/// The lines of `bytes`.
fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8(bytes.to_vec())
        .expect("UTF-8")
        .lines()
        .map(str::to_owned)
        .collect()
}

fn numbered(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| format!("{i}\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn part_sizes_are_exact_and_every_record_is_in_exactly_one_part() {
    let dir = tempfile::tempdir().unwrap();
    // (N, parts, sizes by the largest remainder, ties to the earlier part)
    let cases: &[(usize, &str, &[usize])] = &[
        (10, "80,10,10", &[8, 1, 1]),
        (7, "80,10,10", &[5, 1, 1]),
        (7, "0.8,0.1,0.1", &[5, 1, 1]),
        (2, "1,1,1", &[1, 1, 0]),
        (3, "1,0,1", &[2, 0, 1]),
        (101, "3,3,2,1.5", &[32, 32, 21, 16]),
        (0, "80,20", &[0, 0]),
        (1, "80,20", &[1, 0]),
    ];
    for &(n, parts, sizes) in cases {
        let input = numbered(n);
        for seed in ["a", "b", "c"] {
            let got = split(
                dir.path(),
                sizes.len(),
                &["--parts", parts, "--seed", seed],
                &input,
            );
            let got: Vec<Vec<String>> = got.iter().map(|p| lines(p)).collect();
            let counts: Vec<usize> = got.iter().map(Vec::len).collect();
            assert_eq!(counts, sizes, "--parts {parts}, N = {n}");
            let mut all: Vec<usize> = got.iter().flatten().map(|l| l.parse().unwrap()).collect();
            for part in &got {
                let values: Vec<usize> = part.iter().map(|l| l.parse().unwrap()).collect();
                assert!(values.is_sorted(), "input order within a part: {values:?}");
            }
            all.sort_unstable();
            assert_eq!(all, (0..n).collect::<Vec<_>>(), "a multiset of the input");
        }
    }
}

#[test]
fn standard_input_and_files_give_the_same_parts() {
    let dir = tempfile::tempdir().unwrap();
    let input = numbered(50);
    let file = dir.path().join("in.txt");
    std::fs::write(&file, &input).unwrap();
    let from_stdin = split(
        dir.path(),
        3,
        &["--parts", "5,3,2", "--seed", "same"],
        &input,
    );
    let from_file = split(
        dir.path(),
        3,
        &["--parts", "5,3,2", "--seed", "same", file.to_str().unwrap()],
        b"",
    );
    assert_eq!(from_stdin, from_file);
    let again = split(
        dir.path(),
        3,
        &["--parts", "5,3,2", "--seed", "other"],
        &input,
    );
    assert_ne!(from_stdin, again, "another seed, another assignment");
}

#[test]
fn the_header_heads_every_part_and_csv_records_stay_whole() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.csv");
    let b = dir.path().join("b.csv");
    std::fs::write(&a, "id,text\r\n1,\"two\nlines\"\r\n2,plain\r\n").unwrap();
    std::fs::write(&b, "id,text\r\n3,\"a,\"\"quoted\"\"\nnewline\"\r\n4,x\n5,y").unwrap();
    let parts = split(
        dir.path(),
        2,
        &[
            "--parts",
            "1,1",
            "--csv",
            "--header",
            "--seed",
            "h",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
        b"",
    );
    let mut records = Vec::new();
    for part in &parts {
        let text = String::from_utf8(part.clone()).unwrap();
        let rest = text.strip_prefix("id,text\r\n").expect("the header on top");
        // Records of this input end in "\r\n" or "\n" outside quotes.
        for record in rest
            .split_inclusive('\n')
            .fold(Vec::<String>::new(), |mut acc, piece| {
                match acc.last_mut() {
                    Some(last) if last.matches('"').count() % 2 == 1 => last.push_str(piece),
                    _ => acc.push(piece.to_owned()),
                }
                acc
            })
        {
            records.push(record);
        }
    }
    records.sort();
    assert_eq!(
        records,
        [
            "1,\"two\nlines\"\r\n",
            "2,plain\r\n",
            "3,\"a,\"\"quoted\"\"\nnewline\"\r\n",
            "4,x\n",
            "5,y\n"
        ]
    );
}

/// The significance level of the uniformity check (a correct split fails
/// it with probability 0.001; fixed seeds: always or never). X^2 on 5
/// degrees of freedom above 20.515 (its 0.999 quantile) fails.
const ALPHA: f64 = 1e-3;

#[test]
fn the_assignment_is_uniform_and_first_records_to_train_fails() {
    // 4 records into parts of sizes 2 and 2: which 2-subset lands in part
    // 0 must be uniform over the 6 subsets.
    let dir = tempfile::tempdir().unwrap();
    let subsets: Vec<[u8; 2]> = vec![[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];
    let trials = 600;
    let mut counts = vec![0u64; 6];
    for trial in 0..trials {
        let parts = split(
            dir.path(),
            2,
            &["--parts", "1,1", "--seed", &format!("u{trial}")],
            b"0\n1\n2\n3\n",
        );
        let first: Vec<u8> = lines(&parts[0])
            .iter()
            .map(|l| l.parse().unwrap())
            .collect();
        let at = subsets
            .iter()
            .position(|s| s[..] == first[..])
            .expect("a 2-subset in order");
        counts[at] += 1;
    }
    let verdict = knuffle_stats::battery::uniform_counts(&counts, ALPHA);
    assert!(verdict.passed(), "{verdict}, counts {counts:?}");
    // The stand-in: the first records to the first part (a cut without a
    // shuffle), the same check.
    let mut biased = vec![0u64; 6];
    biased[0] = trials;
    assert!(!knuffle_stats::battery::uniform_counts(&biased, ALPHA).passed());
}

#[test]
fn a_group_split_agrees_across_runs_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.tsv");
    let b = dir.path().join("b.tsv");
    let make = |offset: usize| {
        (0..200)
            .map(|i| format!("user{}\t{}\n", (i * 7 + offset) % 60, i))
            .collect::<String>()
    };
    std::fs::write(&a, format!("user\tn\n{}", make(0))).unwrap();
    std::fs::write(&b, format!("user\tn\n{}", make(3))).unwrap();
    let run = |files: &[&Path], seed: &str| {
        let mut args = vec!["--parts", "70,30", "-k", "user", "--header", "--seed", seed];
        args.extend(files.iter().map(|f| f.to_str().unwrap()));
        let parts = split(dir.path(), 2, &args, b"");
        let mut part_of: BTreeMap<String, usize> = BTreeMap::new();
        for (j, part) in parts.iter().enumerate() {
            let part = lines(part);
            assert_eq!(part[0], "user\tn", "the header on top");
            for line in &part[1..] {
                let user = line.split('\t').next().unwrap().to_owned();
                let before = part_of.insert(user.clone(), j);
                assert!(before.is_none_or(|b| b == j), "{user} in two parts");
            }
        }
        (parts, part_of)
    };
    let (first, of_a) = run(&[&a], "g");
    let (second, _) = run(&[&a], "g");
    assert_eq!(first, second, "the same run twice");
    let (_, of_b) = run(&[&b], "g");
    let (_, of_both) = run(&[&a, &b], "g");
    for (user, part) in &of_both {
        for other in [&of_a, &of_b] {
            if let Some(p) = other.get(user) {
                assert_eq!(p, part, "{user} goes to one part in every file");
            }
        }
    }
    let in_first: BTreeSet<usize> = of_both.values().copied().collect();
    assert_eq!(in_first.len(), 2, "60 keys do not all land in one part");
    let (_, other_seed) = run(&[&a, &b], "another");
    assert_ne!(other_seed, of_both, "another seed, another split");
}

#[test]
fn bad_parts_and_the_wrong_number_of_outputs_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    for parts in [
        "-1,2",
        "0,0",
        "a,b",
        "",
        "1e3,1",
        "1/2,1/2",
        "18446744073709551615,1",
    ] {
        let output = TestCommand::knuffle()
            .args(["split", "--parts", parts, "-o", &out("x"), "-o", &out("y")])
            .stdin(b"a\n")
            .output();
        let (code, _, err) = code_and_text(&output);
        assert_eq!(code, 2, "--parts {parts:?}: {err}");
        assert!(err.contains("invalid parts"), "{err}");
    }
    let output = TestCommand::knuffle()
        .args([
            "split",
            "--parts",
            "80,10,10",
            "-o",
            &out("x"),
            "-o",
            &out("y"),
        ])
        .stdin(b"a\n")
        .output();
    let (code, _, err) = code_and_text(&output);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("3 parts but 2 outputs"), "{err}");
    assert!(!dir.path().join("x").exists(), "nothing written");
}

#[test]
fn a_missing_directory_is_named_and_nothing_is_created_or_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let kept = dir.path().join("kept.txt");
    std::fs::write(&kept, "old content\n").unwrap();
    let missing = dir.path().join("nodir").join("test.txt");
    let output = TestCommand::knuffle()
        .arg("split")
        .args(["--parts", "1,1", "-o"])
        .arg(&kept)
        .arg("-o")
        .arg(&missing)
        .stdin(b"a\nb\n")
        .output();
    let (code, _, err) = code_and_text(&output);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("nodir"), "{err}");
    assert_eq!(
        std::fs::read(&kept).unwrap(),
        b"old content\n",
        "not truncated"
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["kept.txt"], "nothing created");
    // A missing input: the existing outputs stay as they were.
    let fresh = dir.path().join("fresh.txt");
    let output = TestCommand::knuffle()
        .arg("split")
        .args(["--parts", "1,1", "-o"])
        .arg(&kept)
        .arg("-o")
        .arg(&fresh)
        .arg(dir.path().join("no-such-input"))
        .output();
    let (code, _, err) = code_and_text(&output);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cannot open"), "{err}");
    assert_eq!(
        std::fs::read(&kept).unwrap(),
        b"old content\n",
        "not truncated"
    );
    assert!(!fresh.exists(), "no partial output");
}

#[test]
fn standard_input_is_copied_into_the_temporary_directory_given() {
    let dir = tempfile::tempdir().unwrap();
    let parts = split(
        dir.path(),
        2,
        &[
            "--parts",
            "1,1",
            "--seed",
            "t",
            "-T",
            dir.path().to_str().unwrap(),
        ],
        b"a\nb\nc\n",
    );
    assert_eq!(
        parts.iter().map(|p| lines(p).len()).collect::<Vec<_>>(),
        [2, 1]
    );
    let missing = dir.path().join("no-such-dir");
    let output = TestCommand::knuffle()
        .args(["split", "--parts", "1,1", "-o"])
        .arg(dir.path().join("x"))
        .arg("-o")
        .arg(dir.path().join("y"))
        .arg("-T")
        .arg(&missing)
        .stdin(b"a\n")
        .output();
    let (code, _, err) = code_and_text(&output);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no-such-dir"), "{err}");
    assert!(!dir.path().join("x").exists(), "no partial output");
}

/// An exact split of 64 MiB of lines from standard input (copied to a
/// temporary file, read twice) and a group split of the same file: peak
/// memory a few MiB above the binary's own, whatever the input's size.
#[test]
fn a_split_holds_one_record_and_a_counter_per_part() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let _heavy = crate::support::heavy();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.tsv");
    {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
        for i in 0..2_000_000u32 {
            writeln!(
                file,
                "{i}\tuser{}\t{}",
                i % 1000,
                "x".repeat((i % 40) as usize)
            )
            .unwrap();
        }
    }
    let size = std::fs::metadata(&input).unwrap().len();
    assert!(size > 60 << 20, "{size}");
    for key in [&[][..], &["-k", "2"][..]] {
        let mut child = Command::new(crate::support::binary())
            .args(["split", "--parts", "80,10,10", "--seed", "m"])
            .args(key)
            .args(["-T", dir.path().to_str().unwrap()])
            .arg("-o")
            .arg(dir.path().join("a"))
            .arg("-o")
            .arg(dir.path().join("b"))
            .arg("-o")
            .arg(dir.path().join("c"))
            .stdin(std::fs::File::open(&input).unwrap())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let (status, peak) = crate::support::external::wait_with_peak_memory(&mut child);
        assert!(status.success(), "{key:?}");
        assert!(
            peak < 24 << 20,
            "{key:?}: peak {peak} bytes for {size} bytes of input"
        );
        let written: u64 = ["a", "b", "c"]
            .iter()
            .map(|p| std::fs::metadata(dir.path().join(p)).unwrap().len())
            .sum();
        assert_eq!(written, size, "{key:?}: every byte in one part");
    }
}

#[test]
fn tables_go_to_the_table_engines_and_bzip2_or_xz_files_are_refused_naming_what_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, "id,name\n1,a\n2,b\n3,c\n").unwrap();
    let parquet = dir.path().join("t.parquet");
    let (code, _, err) = code_and_text(
        &TestCommand::knuffle()
            .args(["table", "--seed", "1"])
            .arg(&csv)
            .arg("-o")
            .arg(&parquet)
            .output(),
    );
    assert_eq!(code, 0, "{err}");
    // gzip and zstd are read (tests/cli/compressed.rs); the first bytes of
    // an xz and a bzip2 stream are enough to be refused.
    let xz = dir.path().join("app.log.xz");
    std::fs::write(&xz, b"\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46").unwrap();
    let bz2 = dir.path().join("app.log.bz2");
    std::fs::write(&bz2, b"BZh91AY&SY\x4e\xec\xe8\x36").unwrap();
    // A table file is split by the table engine (tests/cli/split_tables.rs):
    // parts without an extension are the input's format.
    let parts = outputs(dir.path(), 2);
    let (code, _, err) = code_and_text(
        &TestCommand::knuffle()
            .args(["split", "--parts", "1,1", "-o"])
            .arg(&parts[0])
            .arg("-o")
            .arg(&parts[1])
            .arg(&parquet)
            .output(),
    );
    assert_eq!(code, 0, "{err}");
    for output in &parts {
        assert!(std::fs::read(output).unwrap().starts_with(b"PAR1"));
        std::fs::remove_file(output).unwrap();
    }
    // A sample of a table needs -o; a table on standard input is refused,
    // naming what reads it.
    let runs = [
        TestCommand::knuffle()
            .args(["sample", "-n", "2"])
            .arg(&parquet)
            .output(),
        TestCommand::knuffle()
            .args(["sample", "-p", "0.5"])
            .stdin(&std::fs::read(&parquet).unwrap())
            .output(),
    ];
    for (output, says) in runs.iter().zip(["-o OUT", "take tables given as files"]) {
        let (code, out, err) = code_and_text(output);
        assert_eq!(code, 2, "{err}");
        assert!(out.is_empty(), "nothing written: {out:?}");
        assert!(
            err.contains("is a Parquet table") && err.contains(says),
            "{err}"
        );
    }
    for (input, says) in [(&xz, "is xz-compressed"), (&bz2, "is bzip2-compressed")] {
        let outputs = outputs(dir.path(), 3);
        let mut split = TestCommand::knuffle().args(["split", "--parts", "80,10,10"]);
        for output in &outputs {
            split = split.arg("-o").arg(output);
        }
        let runs = [
            split.arg(input).output(),
            TestCommand::knuffle()
                .args(["sample", "-n", "2"])
                .arg(input)
                .output(),
            // Standard input is recognised too.
            TestCommand::knuffle()
                .args(["sample", "-p", "0.5"])
                .stdin(&std::fs::read(input).unwrap())
                .output(),
        ];
        for output in &runs {
            let (code, out, err) = code_and_text(output);
            assert_eq!(code, 2, "{input:?}: {err}");
            assert!(out.is_empty(), "nothing written: {out:?}");
            assert!(err.contains(says), "{err}");
        }
        assert!(err_names_the_reader(&code_and_text(&runs[0]).2, input));
        for output in &outputs {
            assert!(!output.exists(), "no part written: {output:?}");
        }
    }
}

fn err_names_the_reader(err: &str, input: &Path) -> bool {
    match input.extension().and_then(|e| e.to_str()) {
        Some("xz") => err.contains("xz -dc"),
        _ => err.contains("bzip2 -dc"),
    }
}

#[test]
fn two_names_of_one_output_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.txt"), "a\nb\nc\nd\n").unwrap();
    std::fs::write(d.join("kept.txt"), "kept\n").unwrap();
    std::fs::hard_link(d.join("kept.txt"), d.join("also.txt")).unwrap();
    std::os::unix::fs::symlink("new.txt", d.join("dangling.txt")).unwrap();
    for (a, b) in [
        ("kept.txt", "also.txt"),
        ("new.txt", "dangling.txt"),
        ("new.txt", "./new.txt"),
    ] {
        let output = TestCommand::knuffle()
            .current_dir(d)
            .args(["split", "--parts", "1,1", "-o", a, "-o", b, "in.txt"])
            .output();
        let (code, _, err) = code_and_text(&output);
        assert_eq!(code, 2, "{a} {b}: {err}");
        assert!(err.contains("given twice"), "{err}");
    }
    assert_eq!(
        std::fs::read_to_string(d.join("kept.txt")).unwrap(),
        "kept\n"
    );
    assert!(!d.join("new.txt").exists());
}
