//! Helpers shared by the integration tests (each test file has `mod
//! support;`): run the real `knuffle` binary, with or without standard
//! input, and compare its output with a golden file. [`external`] and
//! [`shuf`] hold the helpers of the external-mode and `shuf` tests.

#![allow(dead_code)]

pub mod external;
pub mod shuf;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// The `knuffle` binary built by Cargo.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_knuffle"))
}

/// Called when something a test needs is missing (GNU shuf, strace, a
/// readable file): says "skipped: WHAT" and lets the test return, except
/// under `CI=true`, where a skipped check is a failure (a gap, not a pass).
pub fn require_or_skip(what: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("required under CI=true, but {what}");
    }
    eprintln!("skipped: {what}");
}

/// Runs `command` with `input` on its standard input, capturing standard
/// output and error. The input is written from a thread, so a child that
/// writes much before it has read everything cannot deadlock the test.
pub fn run_with_input(command: &mut Command, input: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {:?}: {e}", command.get_program()));
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().expect("the child finishes");
    writer.join().expect("stdin writer");
    output
}

/// Runs `knuffle ARGS` (standard input empty).
pub fn knuffle(args: &[&str]) -> Output {
    Command::new(binary())
        .args(args)
        .output()
        .expect("the knuffle binary runs")
}

/// Runs `knuffle ARGS` with `input` on standard input.
pub fn knuffle_with_input(args: &[&str], input: &[u8]) -> Output {
    run_with_input(Command::new(binary()).args(args), input)
}

/// Standard output, which must be UTF-8.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

/// Standard error, which must be UTF-8.
pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("UTF-8 errors")
}

/// The exit code (-1 when killed by a signal), standard output and
/// standard error.
pub fn code_and_text(output: &Output) -> (i32, String, String) {
    (
        output.status.code().unwrap_or(-1),
        stdout(output),
        stderr(output),
    )
}

/// Runs `knuffle ARGS` and compares its standard output with
/// `tests/golden/NAME`. With `KNUFFLE_BLESS` set, the file is rewritten
/// first (after an intended change).
pub fn golden(name: &str, args: &[&str]) {
    check_golden(name, args, &knuffle(args));
}

/// [`golden`] with `input` on standard input.
pub fn golden_with_input(name: &str, args: &[&str], input: &[u8]) {
    check_golden(name, args, &knuffle_with_input(args, input));
}

fn check_golden(name: &str, args: &[&str], output: &Output) {
    assert!(output.status.success(), "{args:?}: {}", stderr(output));
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    let actual = stdout(output);
    if std::env::var_os("KNUFFLE_BLESS").is_some() {
        std::fs::write(&path, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with KNUFFLE_BLESS=1)", path.display()));
    assert_eq!(actual, expected, "knuffle {args:?} differs from {name}");
}
