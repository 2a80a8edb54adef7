//! Helpers of the `shuf_*` integration tests: run the real binary,
//! as `knuffle` or under the name `shuf`, on real files.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::TestCommand;

/// The `knuffle` binary built by Cargo.
pub fn knuffle() -> PathBuf {
    super::binary()
}

/// A directory holding a symlink named `shuf` to the binary (argv[0]'s file
/// name then selects exact GNU behaviour).
pub fn shuf_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink(knuffle(), dir.path().join("shuf")).expect("symlink shuf");
    dir
}

/// The installed GNU shuf, if any (`$GNU_SHUF` or `/usr/bin/shuf`).
pub fn gnu_shuf() -> Option<PathBuf> {
    let path = std::env::var_os("GNU_SHUF")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/usr/bin/shuf".into());
    let works = Command::new(&path).arg("--version").output().map(|o| {
        o.status.success() && String::from_utf8_lossy(&o.stdout).contains("GNU coreutils")
    });
    works.unwrap_or(false).then_some(path)
}

/// Runs `program args` in `dir` with `stdin` bytes; returns the output.
pub fn run_in(program: &Path, dir: &Path, args: &[&OsStr], stdin: &[u8]) -> Output {
    TestCommand::new(program)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(stdin)
        .output()
}

/// `run_in` with string arguments.
pub fn run(program: &Path, dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    run_in(program, dir, &args, stdin)
}

/// Runs a shell command line (`$SHUF` is the program) in `dir`.
pub fn sh(program: &Path, dir: &Path, script: &str) -> Output {
    TestCommand::new("sh")
        .args(["-c", script])
        .current_dir(dir)
        .env("SHUF", program)
        .env("LC_ALL", "C.UTF-8")
        .output()
}

/// Reads the first `lines` lines of an endless output, then closes the pipe;
/// returns them and whether the program then ended (it must, quietly).
pub fn first_lines(
    program: &Path,
    dir: &Path,
    args: &[&str],
    stdin: &[u8],
    lines: usize,
) -> (Vec<u8>, bool) {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin).expect("write stdin");
    drop(input);
    let mut stdout = child.stdout.take().expect("stdout");
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    while got.iter().filter(|&&b| b == b'\n').count() < lines {
        if stdout.read(&mut byte).expect("read") == 0 {
            break;
        }
        got.push(byte[0]);
    }
    drop(stdout);
    let status = child.wait().expect("wait");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("stderr");
    (
        got,
        !status.success() && stderr.is_empty() || status.success(),
    )
}

/// The lines of an output, as strings.
pub fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(str::to_string)
        .collect()
}

/// `seq 1 n` as bytes.
pub fn seq(n: u64) -> Vec<u8> {
    (1..=n)
        .map(|i| format!("{i}\n"))
        .collect::<String>()
        .into_bytes()
}
