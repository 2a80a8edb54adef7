//! A reader that goes away (`knuffle ... | head -1`) ends every subcommand
//! quietly and at once: no error message, no panic, no endless work.

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

/// Runs `knuffle ARGS`, reads one line of its output, closes the pipe and
/// returns (the line, the exit status, what it wrote on stderr).
fn first_line_then_close(args: &[&str]) -> (String, std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_knuffle"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("knuffle starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout is piped"))
        .read_line(&mut line)
        .expect("one line");
    // The reader is dropped here: the pipe is closed.
    let output = child.wait_with_output().expect("knuffle ends");
    (
        line,
        output.status,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn ended_quietly(status: std::process::ExitStatus, stderr: &str) {
    assert!(
        status.success() || status.signal() == Some(libc::SIGPIPE),
        "status {status:?}"
    );
    assert!(stderr.is_empty(), "stderr: {stderr}");
}

#[test]
fn lab_exact_ends_quietly_when_its_reader_goes_away() {
    // n = 8: every algorithm's enumeration together takes long (the naive
    // swap alone has 8^8 paths), so the pipe closes while lines are due.
    let (line, status, stderr) = first_line_then_close(&["lab", "--items", "8", "--exact"]);
    assert!(line.starts_with("exact distributions"), "{line}");
    ended_quietly(status, &stderr);
}

#[test]
fn chars_with_a_huge_count_streams_and_stops() {
    // 10^14 versions would never fit in memory: the output must stream.
    let (line, status, stderr) =
        first_line_then_close(&["chars", "--count", "99999999999999", "ab"]);
    assert!(line == "ab\n" || line == "ba\n", "{line:?}");
    ended_quietly(status, &stderr);
}

#[test]
fn order_of_ten_million_rows_stops_when_its_reader_goes_away() {
    // 10^7 lines (about 80 MB) never fit in the pipe: the writer must stop.
    let (line, status, stderr) = first_line_then_close(&["order", "-n", "10000000", "--seed", "s"]);
    assert!(
        line.trim_end().parse::<u64>().unwrap() < 10_000_000,
        "{line:?}"
    );
    ended_quietly(status, &stderr);
}

/// Files whose reported size is not their content (as under /sys) are read
/// whole, like GNU shuf does.
#[test]
fn a_file_shorter_than_its_reported_size_is_shuffled() {
    let path = "/sys/kernel/mm/transparent_hugepage/enabled";
    let Ok(content) = std::fs::read(path) else {
        crate::support::require_or_skip(&format!("{path} is not readable on this machine"));
        return;
    };
    let output = Command::new(env!("CARGO_BIN_EXE_knuffle"))
        .arg(path)
        .output()
        .expect("knuffle runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.stdout, content);
}
