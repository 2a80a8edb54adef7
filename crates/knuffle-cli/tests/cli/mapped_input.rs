//! A single regular FILE is read straight from the page cache (a map, no
//! copy): the same order as any other way of reading it, never a map when
//! the output could overwrite the input, and a file that shrinks under
//! the map is a clear read error with status 1, not a "Bus error".

use std::io::Read;
use std::process::Stdio;

use crate::support::external::{knuffle, numbered_lines, read_all, run_ok};
use crate::support::heavy;
use tempfile::TempDir;

#[test]
fn a_mapped_file_gives_the_order_of_a_pipe_and_survives_being_its_own_output() {
    let dir = TempDir::new().unwrap();
    let input = numbered_lines(300_000);
    let file = dir.path().join("lines.txt");
    std::fs::write(&file, &input).unwrap();
    let name = file.to_str().unwrap();
    let piped = run_ok(&["--seed", "map"], &input);
    assert_ne!(piped, input);
    assert_eq!(run_ok(&["--seed", "map", name], b""), piped);
    // `-o FILE FILE`: FILE is read as a copy, and replaced at the end.
    run_ok(&["--seed", "map", "-o", name, name], b"");
    assert_eq!(std::fs::read(&file).unwrap(), piped);
}

#[test]
fn a_file_that_shrinks_while_mapped_is_a_read_error() {
    shrink_while_mapped(false, |_| 10, "shrinking.txt: read error: the file shrank");
}

#[test]
fn standard_input_from_a_file_that_shrinks_is_a_read_error() {
    shrink_while_mapped(true, |_| 10, "standard input: read error: the file shrank");
}

/// Shrinking by a byte leaves every page in place (no `SIGBUS`): the last
/// page's tail reads as zeros, and the size check before the output is
/// completed reports it.
#[test]
fn a_file_that_shrinks_inside_its_last_page_is_a_read_error() {
    shrink_while_mapped(
        false,
        |len| len - 1,
        "shrinking.txt: read error: the file shrank",
    );
}

/// The handler only answers faults in the mapped input: a `SIGBUS` sent by
/// another process kills knuffle as it would kill GNU shuf.
#[test]
fn a_sigbus_from_another_process_is_not_reported_as_a_shrink() {
    use std::os::unix::process::ExitStatusExt;
    let mut child = knuffle()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, b"a\n").unwrap();
    // Let it install its handler and block reading standard input.
    std::thread::sleep(std::time::Duration::from_millis(300));
    // SAFETY: kill has no memory-safety preconditions.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGBUS) }, 0);
    let status = child.wait().unwrap();
    drop(stdin);
    let stderr = String::from_utf8_lossy(&read_all(child.stderr.take().unwrap())).into_owned();
    assert_eq!(
        status.signal(),
        Some(libc::SIGBUS),
        "{status:?}, stderr: {stderr}"
    );
    assert!(!stderr.contains("shrank"), "{stderr}");
}

/// Starts knuffle on a 60 MB file (as FILE, or as standard input), waits
/// for its first output byte, truncates the file to `new_len(len)` bytes,
/// and checks the error.
fn shrink_while_mapped(as_stdin: bool, new_len: fn(u64) -> u64, expected: &str) {
    let _heavy = heavy();
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("shrinking.txt");
    // 60 MB: far more output than a pipe and the writer's blocks hold, so
    // knuffle is still reading lines from the map when the file shrinks.
    let input = numbered_lines(1_400_000);
    assert!(input.len() > 60_000_000);
    std::fs::write(&file, &input).unwrap();
    let mut command = knuffle();
    if as_stdin {
        command.stdin(std::fs::File::open(&file).unwrap());
    } else {
        command.arg(&file);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).unwrap(); // mapped, and writing
    let shrunk = new_len(input.len() as u64);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(shrunk)
        .unwrap();
    let written = read_all(stdout);
    let status = child.wait().unwrap();
    let stderr = String::from_utf8_lossy(&read_all(child.stderr.take().unwrap())).into_owned();
    assert_eq!(status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.contains(expected), "{stderr}");
    if shrunk < 10_000_000 {
        // Pages went away: the process stopped at the first missing one.
        assert!(written.len() < input.len(), "the whole output was written");
    }
}
