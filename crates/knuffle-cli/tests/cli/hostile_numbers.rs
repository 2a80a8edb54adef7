//! Hostile numbers in `draw`, `verify` and `audit` (issue 25): counts,
//! sizes and ranges from the command line or from a transcript someone
//! else wrote, each run under `ulimit -v 4000000` (`RLIMIT_AS`), within a
//! time limit and 1 GiB of resident memory. Each must end with its defined
//! status and a clear message, never a panic or an abort; endless outputs
//! stream and end as soon as their reader goes away.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::support::limited::{End, Limited, Outcome};
use crate::support::{knuffle, stdout};

/// `ulimit -v 4000000` (KiB).
const ADDRESS_SPACE: u64 = 4_000_000 * 1024;

/// How long one run may take (a debug build on a busy 2-core machine).
const TIME_LIMIT: Duration = Duration::from_secs(30);

/// 2^64 - 1.
const U64_MAX: &str = "18446744073709551615";

fn limited(args: &[&str]) -> Limited {
    Limited::new(args.iter().copied())
        .address_space(ADDRESS_SPACE)
        .time_limit(TIME_LIMIT)
}

/// Runs `args` under the limits and checks the exit status and that
/// standard error says `message` (and never panics).
fn ends_with(args: &[&str], status: i32, message: &str) -> Outcome {
    let outcome = limited(args).run();
    assert_clean(&outcome, args);
    assert_eq!(
        outcome.status(),
        Some(status),
        "{args:?}: {:?}\n{}",
        outcome.end,
        outcome.stderr
    );
    let said = format!(
        "{}{}",
        outcome.stderr,
        String::from_utf8_lossy(&outcome.stdout)
    );
    assert!(
        said.contains(message),
        "{args:?}: expected {message:?} in:\n{said}"
    );
    outcome
}

fn assert_clean(outcome: &Outcome, args: &[&str]) {
    assert!(
        !outcome.stderr.contains("panicked") && !outcome.stderr.contains("memory allocation"),
        "{args:?}:\n{}",
        outcome.stderr
    );
    assert!(
        !matches!(outcome.end, End::Signal(libc::SIGABRT | libc::SIGSEGV)),
        "{args:?}: {:?}",
        outcome.end
    );
}

/// Runs `args`, reads the first `lines` lines of standard output and
/// closes it (`| head -n LINES`): the run must end at once.
fn head(args: &[&str], lines: usize) -> Vec<String> {
    let outcome = limited(args)
        .time_limit(Duration::from_secs(10))
        .stdout_cap(1)
        .run();
    assert_clean(&outcome, args);
    assert!(
        outcome.closed_stdout,
        "{args:?} ended before its output was closed: {:?} {}",
        outcome.end, outcome.stderr
    );
    let text = String::from_utf8_lossy(&outcome.stdout);
    let got: Vec<String> = text.lines().take(lines).map(str::to_owned).collect();
    assert_eq!(got.len(), lines, "{args:?}: {text:?}");
    got
}

/// A transcript of `knuffle draw ARGS --transcript` in `dir`, as JSON.
fn transcript(dir: &Path, args: &[&str]) -> Value {
    let path = dir.join("made.json");
    let mut all = vec!["draw"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--transcript", path.to_str().unwrap()]);
    let out = knuffle(&all);
    assert!(out.status.success(), "{all:?}: {out:?}");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn write_json(dir: &Path, name: &str, value: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(value).unwrap()).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn verify_refuses_a_k_its_result_does_not_hold() {
    let dir = tempfile::tempdir().unwrap();
    for mode in [&["--replace"][..], &[]] {
        let mut args = vec!["-i", "1-1000000", "-n", "3", "--seed", "k"];
        args.extend_from_slice(mode);
        let made = transcript(dir.path(), &args);
        for k in [u64::MAX, 1_000_000_000_000_000, 400_000_000, 4] {
            let mut claimed = made.clone();
            claimed["k"] = Value::from(k);
            let path = write_json(dir.path(), "claimed.json", &claimed);
            let outcome = ends_with(&["verify", &path], 1, "the k check failed");
            let text = String::from_utf8_lossy(&outcome.stdout);
            assert!(
                text.contains("FAIL result: not re-derived: the k check failed"),
                "{text}"
            );
        }
    }
}

#[test]
fn verify_refuses_a_range_too_large_to_digest() {
    let dir = tempfile::tempdir().unwrap();
    let mut claimed = transcript(dir.path(), &["-i", "1-10", "-n", "2", "--seed", "r"]);
    claimed["population"]["range"]["hi"] = Value::from(1_000_000_000_000u64);
    claimed["population"]["count"] = Value::from(1_000_000_000_000u64);
    let path = write_json(dir.path(), "range.json", &claimed);
    ends_with(
        &["verify", &path],
        2,
        "range population of 1000000000000 items is larger than the limit of 1000000000",
    );
}

#[test]
fn verify_reads_at_most_max_size() {
    let dir = tempfile::tempdir().unwrap();
    // 200 MB of zeros: refused after 64 MiB + 1 bytes, quickly.
    let zeros = dir.path().join("zeros.json");
    let file = std::fs::File::create(&zeros).unwrap();
    file.set_len(200_000_000).unwrap();
    let zeros = zeros.to_str().unwrap();
    let outcome = limited(&["verify", zeros])
        .time_limit(Duration::from_secs(10))
        .resident_limit(256 << 20)
        .run();
    assert_clean(&outcome, &["verify", zeros]);
    assert_eq!(outcome.status(), Some(2), "{}", outcome.stderr);
    assert!(
        outcome
            .stderr
            .contains("transcript larger than 64 MiB (raise with --max-size)"),
        "{}",
        outcome.stderr
    );

    // The limit is a flag; the population file and the beacon file obey it too.
    let made = transcript(dir.path(), &["-e", "a", "b", "c", "-n", "2", "--seed", "m"]);
    let path = write_json(dir.path(), "t.json", &made);
    ends_with(
        &["verify", &path, "--max-size", "100"],
        2,
        "transcript larger than 100 bytes",
    );
    ends_with(&["verify", &path, "--max-size", "1M"], 0, "verified");
    let population = dir.path().join("population.txt");
    std::fs::write(&population, "a\nb\nc\n".repeat(1000)).unwrap();
    ends_with(
        &[
            "verify",
            &path,
            population.to_str().unwrap(),
            "--max-size",
            "1K",
        ],
        2,
        "population file larger than 1 KiB (raise with --max-size)",
    );
    ends_with(&["verify", &path, "--max-size", "0"], 2, "at least 1 byte");
}

#[test]
fn verify_reports_deep_nesting_as_malformed() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("deep.json");
    std::fs::write(
        &deep,
        format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
    )
    .unwrap();
    ends_with(
        &["verify", deep.to_str().unwrap()],
        2,
        "malformed transcript JSON: recursion limit exceeded",
    );
    // Deep nesting where a field is expected, or under a key that is
    // skipped: malformed, never a stack overflow.
    for (name, text) in [
        (
            "field.json",
            format!(
                "{{\"format\": \"knuffle-vd/1\", \"k\": {}0{}}}",
                "[".repeat(10_000),
                "]".repeat(10_000)
            ),
        ),
        (
            "skipped.json",
            format!(
                "{{\"zzz\": {}{}, \"format\": \"knuffle-vd/1\"}}",
                "[".repeat(1_000_000),
                "]".repeat(1_000_000)
            ),
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        ends_with(
            &["verify", path.to_str().unwrap()],
            2,
            "malformed knuffle-vd/1 transcript",
        );
    }
}

#[test]
fn draw_with_replacement_streams_any_count() {
    let first = head(
        &[
            "draw",
            "-i",
            "1-10",
            "-n",
            U64_MAX,
            "--replace",
            "--seed",
            "s",
        ],
        3,
    );
    let small = knuffle(&["draw", "-i", "1-10", "-n", "3", "--replace", "--seed", "s"]);
    assert_eq!(stdout(&small).lines().collect::<Vec<_>>(), first);
    // The same from a population file, and with the compat schemes that stream.
    head(
        &[
            "draw",
            "-e",
            "a",
            "b",
            "-n",
            U64_MAX,
            "--replace",
            "--seed",
            "s",
        ],
        3,
    );
    let cards = head(
        &[
            "draw",
            "--compat",
            "stake",
            "-n",
            U64_MAX,
            "--seed",
            "server",
            "--client-seed",
            "client",
        ],
        3,
    );
    let few = knuffle(&[
        "draw",
        "--compat",
        "stake",
        "-n",
        "3",
        "--seed",
        "server",
        "--client-seed",
        "client",
    ]);
    assert_eq!(stdout(&few).lines().collect::<Vec<_>>(), cards);
    head(
        &[
            "draw",
            "--compat",
            "rivest2011",
            "-i",
            "1-1000000000000000000",
            "-n",
            U64_MAX,
            "--replace",
            "--seed",
            "12345678901234567890",
        ],
        3,
    );
    head(
        &[
            "draw",
            "--compat",
            "consistent-sampler",
            "-e",
            "a",
            "b",
            "-n",
            U64_MAX,
            "--replace",
            "--seed",
            "1",
        ],
        3,
    );
}

#[test]
fn draw_bounds_what_it_must_hold() {
    // A transcript holds every draw: bounded by memory.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.json");
    let path = path.to_str().unwrap();
    for n in [U64_MAX, "1000000000000000"] {
        ends_with(
            &[
                "draw",
                "-i",
                "1-10",
                "-n",
                n,
                "--replace",
                "--seed",
                "s",
                "--transcript",
                path,
            ],
            2,
            "draws fit in a transcript",
        );
    }
    assert!(!Path::new(path).exists());
    // Without replacement the moved positions grow with the count.
    ends_with(
        &[
            "draw",
            "-i",
            "1-1000000000",
            "-n",
            "1000000000",
            "--seed",
            "s",
        ],
        2,
        "without replacement (Fisher-Yates' moved positions) needs about",
    );
    ends_with(
        &["draw", "-i", "1-10", "-n", U64_MAX, "--seed", "s"],
        2,
        "cannot draw 18446744073709551615 items without replacement from a population of 10",
    );
    // Rivest's sampler without replacement keeps its picks.
    ends_with(
        &[
            "draw",
            "--compat",
            "rivest2011",
            "-i",
            "1-1000000000000000000",
            "-n",
            "1000000000000000",
            "--seed",
            "12345678901234567890",
        ],
        2,
        "picking 1000000000000000 distinct values needs about",
    );
    // consistent-sampler keeps a ticket per id.
    ends_with(
        &[
            "draw",
            "--compat",
            "consistent-sampler",
            "-i",
            "1-1000000000000",
            "-n",
            "3",
            "--seed",
            "1",
        ],
        2,
        "keeping the tickets of 1000000000000 ids needs about",
    );
    // A population file larger than --max-size.
    let big = dir.path().join("big.txt");
    std::fs::write(&big, "item\n".repeat(1000)).unwrap();
    ends_with(
        &[
            "draw",
            big.to_str().unwrap(),
            "-n",
            "1",
            "--seed",
            "s",
            "--max-size",
            "4K",
        ],
        2,
        "population file larger than 4 KiB (raise with --max-size)",
    );
}

#[test]
fn draw_refuses_ranges_too_large_to_digest() {
    for args in [
        &["draw", "-i", "1-1000000000000", "-n", "3", "--seed", "s"][..],
        &[
            "draw",
            "-i",
            "1-1000000000000000000",
            "-n",
            "1000000000000000",
            "--seed",
            "s",
        ],
        &[
            "draw",
            "-i",
            "0-18446744073709551614",
            "-n",
            "1",
            "-r",
            "--seed",
            "s",
        ],
    ] {
        ends_with(args, 2, "is larger than the limit of 1000000000");
    }
}

#[test]
fn consistent_sampler_with_replacement_is_not_quadratic() {
    let args = [
        "draw",
        "--compat",
        "consistent-sampler",
        "-e",
        "a",
        "b",
        "-n",
        "100000",
        "--replace",
        "--seed",
        "1",
    ];
    let outcome = limited(&args).resident_limit(200 << 20).run();
    assert_clean(&outcome, &args);
    assert_eq!(outcome.status(), Some(0), "{}", outcome.stderr);
    assert_eq!(
        outcome.stdout.iter().filter(|&&b| b == b'\n').count(),
        100_000
    );
}

#[test]
fn audit_refuses_a_deck_size_too_large() {
    for n in [U64_MAX, "1000000000000", "4294967297"] {
        let outcome = limited(&["audit", "--deck-size", n])
            .stdin(b"1 2 3\n")
            .run();
        assert_clean(&outcome, &["audit", "--deck-size", n]);
        assert_eq!(outcome.status(), Some(2), "{}", outcome.stderr);
        assert!(
            outcome
                .stderr
                .contains("is too large: at most 4294967296 items"),
            "{}",
            outcome.stderr
        );
    }
    // The largest deck costs nothing up front: deals of 3 from 2^32.
    let outcome = limited(&["audit", "--deck-size", "4294967296", "--base", "0"])
        .stdin(b"0 4294967295 7\n5 6 8\n")
        .resident_limit(64 << 20)
        .run();
    assert_eq!(outcome.status(), Some(0), "{}", outcome.stderr);
    // A bare column of numbers is explained.
    let outcome = limited(&["audit"]).stdin(b"1\n2\n3\n").run();
    assert_eq!(outcome.status(), Some(2));
    assert!(
        outcome.stderr.contains("each line holds one number"),
        "{}",
        outcome.stderr
    );
}
