//! External mode keeps its peak resident memory within `--memory` plus a
//! small constant, for an input several times larger than the limit.

use std::io::Write;
use std::process::{Command, Stdio};
use std::thread;

use crate::support::external::*;
use tempfile::TempDir;

/// The limit used here.
const LIMIT: u64 = 8 << 20;

/// What a run may take beyond the limit and the process's fixed memory
/// (`fixed_memory`: the same command on one line, about 8 MiB for the debug
/// binary, most of it pages of tables the loader relocates at start, the
/// time-zone database of the table outputs among them): buffers rounded up,
/// allocator slack, and for standard input the pipe reader's thread and
/// buffers (a pipe peaked about 2 MB above a file here, within 1 MB of a
/// 3 MiB slack).
const SLACK: u64 = 4 << 20;

/// The peak a run of `knuffle --memory 8M` may reach.
fn bound() -> u64 {
    LIMIT + fixed_memory(&["--memory", "8M", "--seed", "memory"]) + SLACK
}

/// About 43 MB of text lines: five times the limit.
fn forty_megabytes() -> Vec<u8> {
    numbered_lines(1_000_000)
}

/// Runs `command` with standard output captured (and `input` written to
/// standard input when given); checks it succeeded and returns its output
/// and peak resident memory.
fn run_with_peak(command: &mut Command, input: Option<&[u8]>) -> (Vec<u8>, u64) {
    command.stdout(Stdio::piped());
    if input.is_some() {
        command.stdin(Stdio::piped());
    }
    let mut child = command.spawn().unwrap();
    let writer = input.map(|bytes| {
        let mut stdin = child.stdin.take().unwrap();
        let copy = bytes.to_vec();
        thread::spawn(move || stdin.write_all(&copy).unwrap())
    });
    let stdout = child.stdout.take().unwrap();
    let reader = thread::spawn(move || read_all(stdout));
    let (status, peak) = wait_with_peak_memory(&mut child);
    if let Some(writer) = writer {
        writer.join().unwrap();
    }
    let output = reader.join().unwrap();
    assert!(status.success());
    (output, peak)
}

/// `output` is a shuffle of `input`, made within the limit plus the constant.
fn assert_shuffled_within_the_limit(output: &[u8], input: &[u8], peak: u64) {
    assert_permutation(output, input, b'\n');
    eprintln!("peak resident memory: {peak} bytes");
    let bound = bound();
    eprintln!("bound: {bound} bytes");
    assert!(
        peak <= bound,
        "peak resident memory {peak} bytes exceeds {bound}: the 8 MiB limit, the process's \
         fixed memory and 4 MiB"
    );
}

#[test]
fn a_file_five_times_the_limit_is_shuffled_within_the_limit() {
    let _heavy = crate::support::heavy();
    let input = forty_megabytes();
    assert!(input.len() as u64 > 4 * LIMIT);
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("input.txt");
    std::fs::write(&file, &input).unwrap();
    let (output, peak) = run_with_peak(
        knuffle()
            .args(["--memory", "8M", "--seed", "memory"])
            .arg(&file),
        None,
    );
    assert_shuffled_within_the_limit(&output, &input, peak);
}

#[test]
fn a_pipe_five_times_the_limit_spills_within_the_limit() {
    let _heavy = crate::support::heavy();
    let input = forty_megabytes();
    let (output, peak) = run_with_peak(
        knuffle().args(["--memory", "8M", "--seed", "memory"]),
        Some(&input),
    );
    assert_shuffled_within_the_limit(&output, &input, peak);
}

#[test]
fn in_memory_mode_would_need_more_which_makes_the_check_meaningful() {
    let _heavy = crate::support::heavy();
    // Without a limit the same input is shuffled in memory: its peak is
    // above the external bound, so the bound above is not vacuous.
    let input = forty_megabytes();
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("input.txt");
    std::fs::write(&file, &input).unwrap();
    let mut child = knuffle()
        .args(["--memory", "1G"])
        .arg(&file)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let (status, peak) = wait_with_peak_memory(&mut child);
    assert!(status.success());
    eprintln!("in-memory peak resident memory: {peak} bytes");
    assert!(peak > bound(), "in-memory peak only {peak} bytes");
}
