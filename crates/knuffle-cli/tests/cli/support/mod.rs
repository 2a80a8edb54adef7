//! Helpers of the integration tests: [`TestCommand`], the one way a test
//! runs a program (the real `knuffle` binary, GNU shuf, a shell), golden
//! files, and [`heavy`] for tests that must not overlap. [`external`] and
//! [`shuf`] hold the helpers of the external-mode and `shuf` tests;
//! [`limited`] runs knuffle under resource limits (hostile values).

pub mod external;
pub mod limited;
pub mod shuf;

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};

/// A command to run, in the style of ripgrep's `TestCommand`: arguments,
/// standard input, directory and environment, then [`TestCommand::output`].
///
/// ```ignore
/// let out = TestCommand::knuffle().args(["-n", "2"]).stdin(b"a\nb\nc\n").output();
/// ```
pub struct TestCommand {
    command: Command,
    stdin: Vec<u8>,
}

impl TestCommand {
    /// `program`, with an empty standard input.
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        TestCommand {
            command: Command::new(program),
            stdin: Vec::new(),
        }
    }

    /// The `knuffle` binary under test.
    pub fn knuffle() -> Self {
        TestCommand::new(binary())
    }

    /// Adds an argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.command.arg(arg);
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command.args(args);
        self
    }

    /// Standard input (written from a thread, so a child that writes much
    /// before it has read everything cannot deadlock the test).
    pub fn stdin(mut self, bytes: &[u8]) -> Self {
        self.stdin = bytes.to_vec();
        self
    }

    /// Runs in `dir`.
    pub fn current_dir(mut self, dir: &Path) -> Self {
        self.command.current_dir(dir);
        self
    }

    /// Sets an environment variable.
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Self {
        self.command.env(key, value);
        self
    }

    /// Runs to the end, capturing standard output and error.
    pub fn output(mut self) -> Output {
        let mut child = self
            .command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {:?}: {e}", self.command.get_program()));
        let mut stdin = child.stdin.take().expect("stdin");
        let input = std::mem::take(&mut self.stdin);
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let output = child.wait_with_output().expect("the child finishes");
        writer.join().expect("stdin writer");
        output
    }
}

/// Held by tests that measure a child's peak memory or time, or whose
/// outcome depends on the machine's load: they run one at a time (the
/// other tests go on in parallel). A test that failed while holding it does
/// not poison it.
pub fn heavy() -> MutexGuard<'static, ()> {
    static HEAVY: Mutex<()> = Mutex::new(());
    HEAVY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

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

/// The path of `tests/data/draw/NAME` (beacon rounds, ballots, secrets).
pub fn draw_data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/draw")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The independent Python verifier, `docs/verifiable/reference_verifier.py`.
pub fn reference_verifier_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/verifiable/reference_verifier.py")
}

/// The interpreter that `python3` starts, found once: the name on `PATH`
/// may be a version manager's shell script (pyenv's shim takes about 80 ms
/// to start the interpreter), which the reference verifier's few hundred
/// runs would pay each time.
pub fn python3() -> Option<&'static Path> {
    static FOUND: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| {
            let out = Command::new("python3")
                .args(["-c", "import sys; sys.stdout.write(sys.executable)"])
                .output()
                .ok()?;
            let path = PathBuf::from(String::from_utf8(out.stdout).ok()?);
            (out.status.success() && path.is_absolute()).then_some(path)
        })
        .as_deref()
}

/// Whether `python3` runs: else the reference verifier's checks are
/// skipped, which under `CI=true` fails the test ([`require_or_skip`]).
pub fn python3_works() -> bool {
    let works = python3().is_some();
    if !works {
        require_or_skip("python3 is missing: the reference verifier cannot run");
    }
    works
}

/// Runs `knuffle ARGS` (standard input empty).
pub fn knuffle(args: &[&str]) -> Output {
    TestCommand::knuffle().args(args).output()
}

/// Runs `knuffle ARGS` with `input` on standard input.
pub fn knuffle_with_input(args: &[&str], input: &[u8]) -> Output {
    TestCommand::knuffle().args(args).stdin(input).output()
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

/// `knuffle table ARGS` run in `dir`: its exit code and standard error.
pub fn table_in(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let output = TestCommand::knuffle()
        .current_dir(dir)
        .arg("table")
        .args(args)
        .output();
    let (code, _, stderr) = code_and_text(&output);
    (code, stderr)
}

/// Runs `knuffle ARGS` and compares its standard output with
/// `tests/golden/NAME`. With `KNUFFLE_BLESS` set, the file is rewritten
/// first (after an intended change).
pub fn golden(name: &str, args: &[&str]) {
    check_golden(name, args, &knuffle(args));
}

/// Pearson's chi-square statistic of `counts` against `expected`.
pub fn chi_square(counts: &[u64], expected: &[f64]) -> f64 {
    counts
        .iter()
        .zip(expected)
        .map(|(&c, &e)| (c as f64 - e).powi(2) / e)
        .sum()
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
