//! Resources on hostile inputs: each run under a time limit, with its exit
//! status and its peak memory (the child's own high-water mark `VmHWM`,
//! polled every 2 ms until it exits) checked. `/dev/zero` (no newline, ever) and a 100 MB line with `-n` and
//! `--memory` fail with a clear error within the limit plus the documented
//! constant; thousands of FILEs pass under a low `ulimit -n`.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use crate::support::limited::{Limited, Outcome};

/// What the process needs beyond `--memory` (README, "Files larger than
/// memory"): the program, its threads' stacks, the read buffer.
const CONSTANT: u64 = 16 << 20;

/// Runs `knuffle ARGS` with at most `open_files` descriptors (when given),
/// failing the test after `limit`.
fn run(args: &[OsString], open_files: Option<u64>, limit: Duration) -> Outcome {
    let run = Limited::new(args).time_limit(limit);
    match open_files {
        Some(count) => run.open_files(count),
        None => run,
    }
    .run()
}

fn args(list: &[&str]) -> Vec<OsString> {
    list.iter().map(OsString::from).collect()
}

fn assert_refused_within(outcome: &Outcome, limit: u64) {
    assert_eq!(outcome.status(), Some(1), "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains("memory limit of"),
        "unclear error: {}",
        outcome.stderr
    );
    assert!(
        outcome.peak <= limit + CONSTANT,
        "peak memory {} MiB above the limit {} MiB plus {} MiB",
        outcome.peak >> 20,
        limit >> 20,
        CONSTANT >> 20
    );
}

#[test]
fn dev_zero_with_a_count_stays_within_the_memory_limit() {
    let _heavy = crate::support::heavy();
    let outcome = run(
        &args(&["-n", "3", "--memory", "64M", "/dev/zero"]),
        None,
        Duration::from_secs(20),
    );
    assert_refused_within(&outcome, 64 << 20);
    assert!(outcome.stdout.is_empty());
}

#[test]
fn a_100_mb_line_with_a_count_stays_within_the_memory_limit() {
    let _heavy = crate::support::heavy();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("one-line");
    let mut file = std::fs::File::create(&path).expect("the input");
    let piece = vec![b'a'; 1 << 20];
    for _ in 0..100 {
        file.write_all(&piece).expect("the input");
    }
    drop(file);
    let path = path.to_str().expect("UTF-8").to_string();
    let outcome = run(
        &args(&["-n", "1", "--memory", "8M", &path]),
        None,
        Duration::from_secs(20),
    );
    assert_refused_within(&outcome, 8 << 20);
    assert!(outcome.stdout.is_empty());
}

fn many_files(dir: &Path, count: usize, lines_each: usize) -> Vec<OsString> {
    (0..count)
        .map(|i| {
            let path = dir.join(format!("f{i}"));
            let text: String = (0..lines_each)
                .map(|j| format!("file {i} line {j} padding padding padding\n"))
                .collect();
            std::fs::write(&path, text).expect("an input");
            path.into_os_string()
        })
        .collect()
}

#[test]
fn thousands_of_files_under_a_low_open_file_limit() {
    let _heavy = crate::support::heavy();
    let dir = tempfile::tempdir().expect("a temporary directory");
    // 3,000 files of 20 lines (about 3 MB): above a 1 MiB limit.
    let files = many_files(dir.path(), 3000, 20);
    for options in [
        &["--seed", "many"][..],
        &["--seed", "many", "-n", "5"],
        &["--seed", "many", "-n", "100000"],
        &["--seed", "many", "--memory", "1M"],
        &["--seed", "many", "--memory", "1M", "-n", "5000"],
    ] {
        let mut all = args(options);
        all.extend(files.iter().cloned());
        let free = run(&all, None, Duration::from_secs(20));
        assert_eq!(free.status(), Some(0), "{options:?}: {}", free.stderr);
        let limited = run(&all, Some(256), Duration::from_secs(20));
        assert_eq!(limited.status(), Some(0), "{options:?}: {}", limited.stderr);
        assert!(
            limited.stdout == free.stdout,
            "{options:?}: the output changed under ulimit -n 256"
        );
        if options.len() == 2 {
            assert_eq!(
                limited.stdout.iter().filter(|&&b| b == b'\n').count(),
                60_000
            );
        }
    }
}

#[test]
fn repeat_says_that_the_memory_limit_cannot_apply() {
    let _heavy = crate::support::heavy();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("three");
    std::fs::write(&path, "a\nb\nc\n").expect("the input");
    let path = path.to_str().expect("UTF-8").to_string();
    let limited = run(
        &args(&["-r", "-n", "4", "--memory", "8M", &path]),
        None,
        Duration::from_secs(20),
    );
    assert_eq!(limited.status(), Some(0), "{}", limited.stderr);
    assert_eq!(limited.stdout.iter().filter(|&&b| b == b'\n').count(), 4);
    assert!(
        limited
            .stderr
            .contains("--memory does not apply with -r: the input is read into memory"),
        "{}",
        limited.stderr
    );
    let plain = run(
        &args(&["-r", "-n", "4", &path]),
        None,
        Duration::from_secs(20),
    );
    assert!(plain.stderr.is_empty(), "{}", plain.stderr);
}
