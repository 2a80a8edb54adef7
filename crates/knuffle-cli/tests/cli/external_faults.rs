//! External mode under faults: temporary space running out, signals,
//! SIGKILL, a reader that goes away. Temporary files never outlive the
//! process (they are unlinked at creation), an existing `-o` file is never
//! damaged by a failing run, and errors are clear.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::support::external::*;
use tempfile::TempDir;

/// The directories of a run with `-o`: its temporary space, the output's
/// directory holding `result.txt` (an earlier result) and the input's
/// directory with the path `big.txt` in it.
struct Dirs {
    temp: TempDir,
    out_dir: TempDir,
    out: PathBuf,
    /// Kept so that the directory lives as long as the fixture.
    _input_dir: TempDir,
    input: PathBuf,
}

impl Dirs {
    fn new(earlier_result: &[u8]) -> Dirs {
        let temp = TempDir::new().unwrap();
        let out_dir = TempDir::new().unwrap();
        let out = out_dir.path().join("result.txt");
        std::fs::write(&out, earlier_result).unwrap();
        let input_dir = TempDir::new().unwrap();
        let input = input_dir.path().join("big.txt");
        Dirs {
            temp,
            out_dir,
            out,
            _input_dir: input_dir,
            input,
        }
    }
}

/// Starts `knuffle --memory 1M -T DIR ARGS` with its three standard streams
/// piped.
fn start_piped(temp: &Path, args: &[&str]) -> Child {
    let mut command = knuffle();
    command
        .args(["--memory", "1M", "-T"])
        .arg(temp)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // A test run started in the background (`cargo test &`, nohup) ignores
    // SIGINT, and the child would inherit that: give it the default
    // actions a user's knuffle has.
    // SAFETY: signal(2) is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            Ok(())
        });
    }
    command.spawn().unwrap()
}

/// Starts `knuffle --memory 1M -T DIR ARGS` reading a pipe, writes `first`
/// to it and keeps it open: the run is then certainly in the middle of
/// its scatter pass.
fn start_mid_run(temp: &Path, args: &[&str], first: &[u8]) -> (Child, std::process::ChildStdin) {
    let mut child = start_piped(temp, args);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(first).unwrap();
    (child, stdin)
}

/// Waits until the process holds an open temporary file in `temp` (the
/// `/proc/PID/fd` link of an unlinked file reads `DIR/... (deleted)` or
/// `DIR/#NNN (deleted)`), proving external mode is running and that the
/// file has no name left in the directory.
fn wait_for_unlinked_temp_file(pid: u32, temp: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let dir = temp.canonicalize().unwrap();
    loop {
        let held = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .map(|fds| {
                fds.filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
                    .any(|target| target.starts_with(&dir))
            })
            .unwrap_or(false);
        if held {
            assert!(
                entries(temp).is_empty(),
                "temporary files must have no name"
            );
            return;
        }
        assert!(Instant::now() < deadline, "no temporary file appeared");
        thread::sleep(Duration::from_millis(20));
    }
}

fn signal_mid_run(signal: libc::c_int) {
    let temp = TempDir::new().unwrap();
    let (mut child, stdin) = start_mid_run(temp.path(), &[], &numbered_lines(100_000));
    wait_for_unlinked_temp_file(child.id(), temp.path());
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
    let status = child.wait().unwrap();
    drop(stdin);
    assert_eq!(status.signal(), Some(signal), "{status:?}");
    assert!(
        entries(temp.path()).is_empty(),
        "temporary files left behind"
    );
}

#[test]
fn sigint_mid_run_leaves_no_temporary_files() {
    let _heavy = crate::support::heavy();
    signal_mid_run(libc::SIGINT);
}

#[test]
fn sigterm_mid_run_leaves_no_temporary_files() {
    let _heavy = crate::support::heavy();
    signal_mid_run(libc::SIGTERM);
}

#[test]
fn sigkill_mid_run_leaves_no_temporary_files() {
    let _heavy = crate::support::heavy();
    signal_mid_run(libc::SIGKILL);
}

#[test]
fn a_reader_that_goes_away_ends_the_run_quietly() {
    let _heavy = crate::support::heavy();
    let temp = TempDir::new().unwrap();
    let input = numbered_lines(200_000);
    let mut child = start_piped(temp.path(), &[]);
    let mut stdin = child.stdin.take().unwrap();
    let writer = thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    // Like `knuffle ... | head -c 1000`: read a little, then close.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1000];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let mut stderr = child.stderr.take().unwrap();
    let mut message = String::new();
    stderr.read_to_string(&mut message).unwrap();
    let status = child.wait().unwrap();
    writer.join().unwrap();
    // GNU tools die of SIGPIPE here, silently; a clean exit would do too.
    assert!(
        status.signal() == Some(libc::SIGPIPE) || status.success(),
        "{status:?}"
    );
    assert_eq!(message, "", "no message for a closed pipe");
    assert!(
        entries(temp.path()).is_empty(),
        "temporary files left behind"
    );
}

#[test]
fn temporary_space_running_out_is_a_clear_error_and_harms_nothing() {
    let _heavy = crate::support::heavy();
    // A size-limited temporary space: RLIMIT_FSIZE makes every write
    // beyond 64 KiB in a file fail with EFBIG (SIGXFSZ ignored, so the
    // write returns the error as a full disk's ENOSPC would).
    let dirs = Dirs::new(b"precious earlier result\n");
    std::fs::write(&dirs.input, numbered_lines(100_000)).unwrap(); // 5 MB

    let mut command = knuffle();
    command
        .args(["--memory", "1M", "-T"])
        .arg(dirs.temp.path())
        .arg("-o")
        .arg(&dirs.out)
        .arg(&dirs.input);
    // SAFETY: only async-signal-safe calls (signal, setrlimit) between
    // fork and exec.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 64 << 10,
                rlim_max: 64 << 10,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(
        message.contains("temporary") && message.contains("File too large"),
        "unclear message: {message}"
    );
    assert!(
        message.contains(dirs.temp.path().to_str().unwrap()),
        "{message}"
    );
    assert_eq!(
        std::fs::read(&dirs.out).unwrap(),
        b"precious earlier result\n"
    );
    assert!(
        entries(dirs.temp.path()).is_empty(),
        "temporary files left behind"
    );
    assert_eq!(
        entries(dirs.out_dir.path()),
        ["result.txt"],
        "stray output temp file"
    );
}

#[test]
fn a_missing_temporary_directory_is_reported_before_any_output() {
    let _heavy = crate::support::heavy();
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("keep.txt");
    std::fs::write(&out, b"keep\n").unwrap();
    let output = run(
        &[
            "--memory",
            "1M",
            "-T",
            "/nonexistent/dir",
            "-o",
            out.to_str().unwrap(),
        ],
        &numbered_lines(100_000),
    );
    assert_eq!(output.status.code(), Some(1));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(
        message.contains("/nonexistent/dir") && message.contains("No such file"),
        "{message}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"keep\n");
}

#[test]
fn sigterm_while_writing_the_output_leaves_the_old_output_and_nothing_else() {
    let _heavy = crate::support::heavy();
    // `-o FILE` is written to a nameless file in FILE's directory, named
    // only at the very end: killing the run while it writes leaves FILE as
    // it was and no stray file next to it.
    let dirs = Dirs::new(b"earlier result\n");
    let mut hit = false;
    for lines in [1_000_000usize, 3_000_000, 9_000_000] {
        std::fs::write(&dirs.input, numbered_lines(lines)).unwrap();
        let mut child = knuffle()
            .args(["--memory", "2M", "-T"])
            .arg(dirs.temp.path())
            .arg("-o")
            .arg(&dirs.out)
            .arg(&dirs.input)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Wait until the output is open (pass 2 writing), then SIGTERM.
        let out_dir_path = dirs.out_dir.path().canonicalize().unwrap();
        let mut writing = false;
        while child.try_wait().unwrap().is_none() {
            let fds = std::fs::read_dir(format!("/proc/{}/fd", child.id()));
            writing = fds
                .map(|fds| {
                    fds.filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
                        .any(|target| target.starts_with(&out_dir_path))
                })
                .unwrap_or(false);
            if writing {
                // SAFETY: kill(2) on our own child's pid.
                unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
                break;
            }
            thread::sleep(Duration::from_millis(1));
        }
        let status = child.wait().unwrap();
        assert_eq!(entries(dirs.out_dir.path()), ["result.txt"], "stray file");
        assert!(
            entries(dirs.temp.path()).is_empty(),
            "temporary files left behind"
        );
        if writing && status.signal() == Some(libc::SIGTERM) {
            assert_eq!(std::fs::read(&dirs.out).unwrap(), b"earlier result\n");
            hit = true;
            break;
        }
        // The run finished before the signal: the output was replaced.
        assert!(status.success());
        std::fs::write(&dirs.out, b"earlier result\n").unwrap();
    }
    assert!(hit, "never caught the run while it was writing its output");
}
