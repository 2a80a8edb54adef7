//! External mode (inputs larger than `--memory`): the output is always a
//! permutation of the input, whatever the bytes, and reproducible.

use crate::support::external::*;
use tempfile::TempDir;

/// An input of about 3 MB: three times the 1 MiB memory limit used below.
fn three_megabytes() -> Vec<u8> {
    numbered_lines(60_000)
}

#[test]
fn external_mode_really_runs_when_the_input_exceeds_the_limit() {
    // External mode needs its temporary directory; in-memory mode does not.
    let input = three_megabytes();
    let missing = "/nonexistent/knuffle-temp";
    let failed = run(&["--memory", "1M", "-T", missing], &input);
    assert_eq!(failed.status.code(), Some(1));
    let message = String::from_utf8_lossy(&failed.stderr);
    assert!(message.contains(missing), "{message}");
    assert!(failed.stdout.is_empty());
    let small = numbered_lines(100);
    let output = run_ok(&["--memory", "1M", "-T", missing], &small);
    assert_permutation(&output, &small, b'\n');
}

#[test]
fn text_lines_come_out_permuted() {
    let input = three_megabytes();
    let output = run(&["--memory", "1M"], &input);
    assert!(output.status.success());
    // No progress bar or anything else when stderr is not a terminal.
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    assert_ne!(output.stdout, input, "the order must change");
    assert_permutation(&output.stdout, &input, b'\n');
}

#[test]
fn temporary_files_go_to_tmpdir_unless_t_is_given() {
    let input = three_megabytes();
    let missing = "/nonexistent/knuffle-tmpdir";
    let output = knuffle()
        .args(["--memory", "1M"])
        .env("TMPDIR", missing)
        .stdin(std::fs::File::open(write_temp(&input).path()).unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains(missing));
    let dir = TempDir::new().unwrap();
    let output = knuffle()
        .args(["--memory", "1M", "-T"])
        .arg(dir.path())
        .env("TMPDIR", missing)
        .stdin(std::fs::File::open(write_temp(&input).path()).unwrap())
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_permutation(&output.stdout, &input, b'\n');
}

/// A temporary file holding `bytes`.
fn write_temp(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    std::io::Write::write_all(&mut file, bytes).unwrap();
    file
}

#[test]
fn any_bytes_survive_ff_nul_crlf_and_no_final_newline() {
    // Random bytes (0xFF included) cut into lines at every '\n'; CRLF
    // lines; and no newline at the very end.
    let mut input = noise(1, 3 << 20);
    input.extend_from_slice(b"crlf line\r\n\xff\xfe\x00\r\nlast line without newline\xff");
    assert!(input.contains(&0xFF) && input.contains(&0));
    let output = run_ok(&["--memory", "1M", "--seed", "bytes"], &input);
    assert_permutation(&output, &input, b'\n');
}

#[test]
fn nul_delimited_records_with_newlines_inside() {
    let mut input = Vec::new();
    for i in 0..50_000u32 {
        input.extend_from_slice(format!("record {i}\nwith a newline").as_bytes());
        input.push(0xFF);
        input.push(0);
    }
    let output = run_ok(&["-z", "--memory", "1M"], &input);
    assert_permutation(&output, &input, 0);
    let newline_split = run_ok(&["--memory", "1M", "--seed", "s"], &input);
    assert_permutation(&newline_split, &input, b'\n');
}

#[test]
fn lines_longer_than_the_memory_limit() {
    // Lines of 0 bytes up to 2.5 MiB with a 1 MiB limit: buckets holding
    // one giant line are copied through, others are scattered again.
    let mut input = Vec::new();
    for i in 0..40usize {
        let len = [0, 1, 100, 300_000, 2_600_000][i % 5];
        input.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, len));
        input.push(b'\n');
    }
    input.extend(numbered_lines(20_000));
    let output = run_ok(&["--memory", "1M", "--seed", "long"], &input);
    assert_permutation(&output, &input, b'\n');
}

#[test]
fn the_same_seed_and_limit_give_the_same_order_from_a_file_or_a_pipe() {
    let input = three_megabytes();
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("input.txt");
    std::fs::write(&file, &input).unwrap();
    let path = file.to_str().unwrap();
    let args = ["--memory", "1M", "--seed", "same"];
    let from_pipe = run_ok(&args, &input);
    let from_file = run_ok(&[&args[..], &[path]].concat(), b"");
    assert_eq!(from_pipe, from_file);
    assert_permutation(&from_file, &input, b'\n');
    let other_seed = run_ok(&["--memory", "1M", "--seed", "other", path], b"");
    assert_ne!(other_seed, from_file);
}

#[test]
fn several_files_a_header_and_a_count() {
    let dir = TempDir::new().unwrap();
    let first = dir.path().join("a.csv");
    let second = dir.path().join("b.txt");
    let mut a = b"id,name\n".to_vec();
    a.extend(numbered_lines(30_000));
    a.extend_from_slice(b"no newline at the end of a"); // joins nothing
    let b: Vec<u8> = String::from_utf8(numbered_lines(30_000))
        .unwrap()
        .replace("line", "other")
        .into_bytes();
    std::fs::write(&first, &a).unwrap();
    std::fs::write(&second, &b).unwrap();
    let (first, second) = (first.to_str().unwrap(), second.to_str().unwrap());

    let output = run_ok(&["--memory", "1M", "--header", "1", first, second], b"");
    assert!(output.starts_with(b"id,name\n"));
    let mut all = terminated(&a, b'\n');
    all.extend_from_slice(&b);
    assert_permutation(&output, &all, b'\n');

    // -n larger than the reservoir size: the first 100,000 of a uniform
    // order of the 60,001 body lines, i.e. all of them; then a real cut.
    let cut = run_ok(&["--memory", "1M", "-n", "70000", first, second], b"");
    assert_permutation(&cut, &all, b'\n');
    let fewer = run_ok(
        &[
            "--memory", "1M", "-n", "50000", "--header", "1", first, second,
        ],
        b"",
    );
    assert!(fewer.starts_with(b"id,name\n"));
    let records = sorted_records(&fewer, b'\n');
    assert_eq!(records.len(), 50_001);
    let mut distinct = records.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), records.len(), "no line twice");
    let everything = sorted_records(&all, b'\n');
    assert!(records.iter().all(|r| everything.binary_search(r).is_ok()));
}

#[test]
fn bad_memory_sizes_are_refused() {
    for bad in ["lots", "12X", "1.5G", "100"] {
        let output = run(&["--memory", bad], b"a\n");
        assert_eq!(output.status.code(), Some(1), "{bad}");
        let message = String::from_utf8_lossy(&output.stderr);
        assert!(message.contains("memory size"), "{bad}: {message}");
        assert!(output.stdout.is_empty());
    }
    assert_eq!(
        run_ok(&["--memory", "64M", "--seed", "1"], b"b\na\n").len(),
        4
    );
    // Under GNU's name the extensions do not exist.
    let dir = TempDir::new().unwrap();
    let shuf = dir.path().join("shuf");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_knuffle"), &shuf).unwrap();
    for args in [&["-T", "/tmp"][..], &["--memory", "1G"][..]] {
        let output = std::process::Command::new(&shuf)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
    }
}

#[test]
fn output_over_its_own_input_with_a_long_header() {
    // `-o FILE` naming the input, FILE with a second hard link (so it is
    // truncated in place, as GNU does, not replaced by rename), and a
    // header far larger than the output buffer: nothing may be written to
    // FILE before the whole input has been read.
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("data.txt");
    let input = three_megabytes();
    std::fs::write(&file, &input).unwrap();
    std::fs::hard_link(&file, dir.path().join("other-name.txt")).unwrap();
    let path = file.to_str().unwrap();
    let header = 20_000; // about 0.8 MB of header lines
    let stdout = run_ok(
        &["--memory", "1M", "--header", "20000", "-o", path, path],
        b"",
    );
    assert!(stdout.is_empty());
    let output = std::fs::read(&file).unwrap();
    let head_len: usize = input
        .split_inclusive(|&b| b == b'\n')
        .take(header)
        .map(<[u8]>::len)
        .sum();
    assert_eq!(
        output[..head_len],
        input[..head_len],
        "header first, as it was"
    );
    assert_permutation(&output, &input, b'\n');
}

/// FNV-1a, 64 bits: a digest that does not depend on the Rust version
/// (G. Fowler, L. C. Noll, K.-P. Vo, the FNV hash).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[test]
fn the_external_order_for_a_seed_is_pinned() {
    // Recorded with the binary of d603ce5 (before pass 2 gathered on a
    // thread of its own): a change of the external mode's order for a
    // seed must be deliberate, and said in CHANGELOG.md.
    let input = three_megabytes();
    for (args, digest) in [
        (
            &["--memory", "1M", "--seed", "pinned"][..],
            0xf98b_e249_a3b5_714b,
        ),
        (
            &["--memory", "1M", "--seed", "pinned", "-n", "7"],
            0x8b97_0138_9fd3_0243,
        ),
        (
            &["--memory", "2M", "--seed", "pinned"],
            0x862a_6763_0c4e_8d5b,
        ),
        (
            &["--memory", "1M", "--seed", "pinned", "-z"],
            0xb3ba_0d31_c2c4_efe3,
        ),
    ] {
        assert_eq!(fnv1a(&run_ok(args, &input)), digest, "knuffle {args:?}");
    }
}
