//! Hostile surroundings never crash knuffle (issue 25): a process
//! address-space limit (`ulimit -v`) with a line as long as half of it, a
//! directory given as input, and a parent that ignores SIGPIPE. Each run
//! ends with a defined exit status and a clear message: never an abort, a
//! panic, or a signal the parent did not ask for.

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::support::shuf::{gnu_shuf, shuf_dir};
use crate::support::{binary, require_or_skip};

/// `ulimit -v 4000000` (KiB), as in the issue: room for a 2 GiB line, not
/// for a buffer doubled past it.
const ADDRESS_SPACE: u64 = 4_000_000 << 10;

/// The length of the line: `head -c 2G /dev/zero` (no newline at all).
const LINE: u64 = 2 << 30;

struct Outcome {
    status: ExitStatus,
    /// Bytes written on standard output (counted, not kept).
    written: u64,
    /// The zero bytes among them.
    zeros: u64,
    stderr: String,
}

/// Runs `knuffle ARGS` under `RLIMIT_AS` = [`ADDRESS_SPACE`], its standard
/// input [`LINE`] zero bytes from `head -c`, killed after `limit`.
fn under_address_limit(args: &[&str], limit: Duration) -> Outcome {
    let mut head = Command::new("head")
        .args(["-c", &LINE.to_string(), "/dev/zero"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("head runs");
    let mut command = Command::new(binary());
    command
        .args(args)
        .stdin(head.stdout.take().expect("head's output"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe; the struct is initialised.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: ADDRESS_SPACE,
                rlim_max: ADDRESS_SPACE,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().expect("knuffle starts");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let counter = std::thread::spawn(move || {
        let mut buffer = vec![0u8; 1 << 20];
        let (mut written, mut zeros) = (0u64, 0u64);
        loop {
            match stdout.read(&mut buffer) {
                Ok(0) | Err(_) => break (written, zeros),
                Ok(n) => {
                    written += n as u64;
                    zeros += buffer[..n].iter().filter(|&&b| b == 0).count() as u64;
                }
            }
        }
    });
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let _ = head.kill();
            let _ = head.wait();
            panic!("knuffle {args:?} ran longer than {limit:?} under ulimit -v");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = head.kill();
    let _ = head.wait();
    let (written, zeros) = counter.join().expect("stdout counter");
    Outcome {
        status,
        written,
        zeros,
        stderr: errors.join().expect("stderr reader"),
    }
}

/// Exit status 0 with the whole line written (its newline added; twice
/// with `-r -n 2`), or 1 with a message about memory; never a signal (an
/// abort) or a panic.
fn succeeded_or_refused_clearly(args: &[&str], outcome: &Outcome) -> bool {
    let copies = if args.contains(&"-r") { 2 } else { 1 };
    assert_eq!(
        outcome.status.signal(),
        None,
        "knuffle {args:?} was killed by a signal: {}",
        outcome.stderr
    );
    assert!(
        !outcome.stderr.contains("panicked") && !outcome.stderr.contains("memory allocation of"),
        "knuffle {args:?}: {}",
        outcome.stderr
    );
    match outcome.status.code() {
        Some(0) => {
            assert_eq!(
                outcome.written,
                copies * (LINE + 1),
                "knuffle {args:?}: the line and its newline"
            );
            assert_eq!(
                outcome.zeros,
                copies * LINE,
                "knuffle {args:?}: the line's bytes"
            );
            assert!(outcome.stderr.is_empty(), "{}", outcome.stderr);
            true
        }
        Some(1) => {
            assert!(
                outcome.stderr.contains("memory limit of")
                    || outcome.stderr.contains("memory exhausted"),
                "knuffle {args:?}: unclear error: {}",
                outcome.stderr
            );
            assert_eq!(outcome.stderr.lines().count(), 1, "{}", outcome.stderr);
            false
        }
        other => panic!(
            "knuffle {args:?}: exit status {other:?}: {}",
            outcome.stderr
        ),
    }
}

#[test]
fn a_2_gib_line_under_ulimit_v_is_shuffled_or_refused_never_aborted() {
    // Not under `heavy()`: each run's outcome is its exit status and its
    // output (the address space limit is the child's own), within a time
    // limit far above the few seconds a run takes; and this is the longest
    // test (about 45 s), which the tests that do measure memory waited for.
    let limit = Duration::from_secs(240);
    // The default limit takes RLIMIT_AS into account, and the line's buffer
    // never doubles past it: on a machine with a few GiB available, knuffle
    // succeeds here, as GNU shuf does.
    for args in [
        &["-n", "3"][..],
        &[],
        &["-n", "3", "--seed", "s"],
        &["-r", "-n", "2"],
    ] {
        let outcome = under_address_limit(args, limit);
        succeeded_or_refused_clearly(args, &outcome);
    }
    // An explicit limit below the line: `-n` refuses it by name, the
    // default mode shuffles it through temporary files.
    let refused = under_address_limit(&["-n", "3", "--memory", "1G"], limit);
    assert!(!succeeded_or_refused_clearly(
        &["-n", "3", "--memory", "1G"],
        &refused
    ));
    assert!(
        refused.stderr.contains("memory limit of 1G") && refused.stderr.contains("--memory"),
        "{}",
        refused.stderr
    );
    let external = under_address_limit(&["--memory", "1G"], limit);
    assert!(succeeded_or_refused_clearly(&["--memory", "1G"], &external));
    // A limit above what the address space allows: refused in words, or
    // done, but never an abort.
    for args in [&["-n", "3", "--memory", "8G"][..], &["--memory", "8G"]] {
        let outcome = under_address_limit(args, limit);
        succeeded_or_refused_clearly(args, &outcome);
    }
}

/// `PATH` for running `program` by its file name (as GNU tools name
/// themselves by `argv[0]`, messages then compare byte for byte).
fn search_path(program: &Path) -> std::ffi::OsString {
    let mut path = program
        .parent()
        .expect("a directory")
        .as_os_str()
        .to_owned();
    path.push(":/usr/local/bin:/usr/bin:/bin");
    path
}

/// The file name of `program`.
fn name(program: &Path) -> &std::ffi::OsStr {
    program.file_name().expect("a file name")
}

/// Runs `program ARGS` (by its name) in `dir`; returns (status, stderr).
fn status_and_stderr(program: &Path, dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(name(program))
        .env("PATH", search_path(program))
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_directory_as_input_is_gnus_read_error_and_named_among_several() {
    let dir = shuf_dir();
    let shuf = dir.path().join("shuf");
    std::fs::create_dir(dir.path().join("a-directory")).expect("a directory");
    std::fs::write(dir.path().join("lines"), "a\nb\n").expect("a file");
    // One FILE: GNU's words exactly (coreutils 9.1 names no file here).
    for args in [
        &["a-directory"][..],
        &["-n", "3", "a-directory"],
        &["-r", "-n", "2", "a-directory"],
    ] {
        let (status, stderr) = status_and_stderr(&shuf, dir.path(), args);
        assert_eq!(status, Some(1), "{args:?}");
        assert_eq!(stderr, "shuf: read error: Is a directory\n", "{args:?}");
        match gnu_shuf() {
            Some(gnu) => {
                let (gnu_status, gnu_stderr) = status_and_stderr(&gnu, dir.path(), args);
                assert_eq!((status, &stderr), (gnu_status, &gnu_stderr), "{args:?}");
            }
            None => require_or_skip("GNU shuf is not installed"),
        }
    }
    // Several FILEs (knuffle's own): the message names the directory,
    // wherever it is and whichever way the lines go.
    for args in [
        &["a-directory", "lines"][..],
        &["lines", "a-directory"],
        &["-n", "1", "lines", "a-directory"],
        &["--memory", "1M", "lines", "a-directory"],
        &["-r", "-n", "2", "lines", "a-directory"],
    ] {
        let (status, stderr) = status_and_stderr(&binary(), dir.path(), args);
        assert_eq!(status, Some(1), "{args:?}");
        assert_eq!(
            stderr, "knuffle: read error: a-directory: Is a directory\n",
            "{args:?}"
        );
    }
}

/// Runs `program ARGS` through `sh`, SIGPIPE ignored (`trap '' PIPE`) when
/// `ignore`, writing to a pipe whose reader is already gone; returns its
/// status and standard error.
fn into_a_closed_pipe(
    program: &Path,
    dir: &Path,
    args: &[&str],
    ignore: bool,
) -> (ExitStatus, String) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two descriptors, each owned just below.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: the descriptors are new and ours alone.
    let (reader, writer) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(reader); // no reader: every write fails (EPIPE, or SIGPIPE)
    let trap = if ignore { "trap '' PIPE; " } else { "" };
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("{trap}exec \"$0\" \"$@\""))
        .arg(name(program))
        .env("PATH", search_path(program))
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("sh runs");
    (
        output.status,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn sigpipe_ignored_by_the_parent_is_gnus_write_error_and_status_1() {
    let dir = shuf_dir();
    let shuf = dir.path().join("shuf");
    let numbers: String = (1..=100_000).map(|i| format!("{i}\n")).collect();
    std::fs::write(dir.path().join("numbers"), numbers).expect("a file");
    std::fs::write(dir.path().join("three"), "a\nb\nc\n").expect("a file");
    // (arguments, whether the output fits GNU's 4 KiB stdio buffer)
    let cases: &[(&[&str], bool)] = &[
        (&["three"], true),
        (&["-e", "a", "b"], true),
        (&["-i", "1-3"], true),
        (&["numbers"], false),
        (&["-n", "5", "numbers"], true),
        (&["--memory", "1M", "numbers"], false),
        (&["-i", "1-100000"], false),
        (&["-r", "-i", "1-3"], false), // endless: it must stop at the first failed write
        (&["-r", "numbers"], false),
    ];
    let gnu = gnu_shuf();
    for &(args, short) in cases {
        // `--memory` is knuffle's own: not an option of the name `shuf`.
        let own = args.contains(&"--memory");
        let (program, name) = if own {
            (binary(), "knuffle")
        } else {
            (shuf.clone(), "shuf")
        };
        let started = Instant::now();
        let (status, stderr) = into_a_closed_pipe(&program, dir.path(), args, true);
        assert!(started.elapsed() < Duration::from_secs(60), "{args:?}");
        assert_eq!(status.code(), Some(1), "{args:?}: {status:?} {stderr}");
        assert_eq!(
            stderr,
            format!("{name}: write error: Broken pipe\n"),
            "{args:?}"
        );
        // Inherited at its default, SIGPIPE ends the run quietly, as it ends
        // GNU shuf.
        let (status, stderr) = into_a_closed_pipe(&program, dir.path(), args, false);
        assert_eq!(status.signal(), Some(libc::SIGPIPE), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
        let Some(gnu) = &gnu else {
            continue;
        };
        if own {
            continue;
        }
        let (gnu_status, gnu_stderr) = into_a_closed_pipe(gnu, dir.path(), args, true);
        assert_eq!(gnu_status.code(), Some(1), "GNU {args:?}");
        // GNU's first line is knuffle's. When its output passes its 4 KiB
        // stdio buffer, GNU fails in the middle and its exit-time check of
        // standard output adds a second "shuf: write error" (without a
        // reason); for the short outputs the two agree byte for byte.
        assert_eq!(
            gnu_stderr.lines().next(),
            Some("shuf: write error: Broken pipe"),
            "GNU {args:?}"
        );
        if short {
            assert_eq!(stderr_of(&shuf, dir.path(), args), gnu_stderr, "{args:?}");
        }
        let (gnu_status, _) = into_a_closed_pipe(gnu, dir.path(), args, false);
        assert_eq!(gnu_status.signal(), Some(libc::SIGPIPE), "GNU {args:?}");
    }
    if gnu.is_none() {
        require_or_skip("GNU shuf is not installed");
    }
}

/// Standard error of `program ARGS` into a closed pipe, SIGPIPE ignored.
fn stderr_of(program: &Path, dir: &Path, args: &[&str]) -> String {
    into_a_closed_pipe(program, dir, args, true).1
}

#[test]
fn the_subcommands_report_a_closed_pipe_when_sigpipe_is_ignored() {
    let dir = tempfile::tempdir().expect("a directory");
    for (args, prefix) in [
        (&["deal", "--seed", "s"][..], "knuffle deal"),
        (
            &["chars", "--seed", "s", "--count", "99999999999999", "ab"],
            "knuffle chars",
        ),
        (&["trace", "--seed", "s"], "knuffle trace"),
    ] {
        let (status, stderr) = into_a_closed_pipe(&binary(), dir.path(), args, true);
        assert_eq!(status.code(), Some(1), "{args:?}: {status:?} {stderr}");
        assert_eq!(
            stderr,
            format!("{prefix}: write error: Broken pipe\n"),
            "{args:?}"
        );
        // SIGPIPE at its default: quiet (dead of it, or done).
        let (status, stderr) = into_a_closed_pipe(&binary(), dir.path(), args, false);
        assert!(
            status.success() || status.signal() == Some(libc::SIGPIPE),
            "{args:?}: {status:?}"
        );
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

/// Lines too long for the output's blocks are written from where they are
/// held: the same bytes as the blocks give (a small `--memory` against the
/// default), and GNU's bytes with its random source.
#[test]
fn lines_written_from_where_they_are_held_are_the_same_bytes() {
    let dir = tempfile::tempdir().expect("a directory");
    let path = dir.path().join("long-lines");
    let mut text = Vec::new();
    for i in 0..120usize {
        let len = [1, 10, 70_000, 200_000][i % 4] + i;
        text.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, len));
        text.push(b'\n');
    }
    text.extend_from_slice(b"no final newline");
    std::fs::write(&path, &text).expect("the input");
    let path = path.to_str().expect("UTF-8");
    let source = dir.path().join("random-source");
    std::fs::write(
        &source,
        (0..200_000u32)
            .map(|i| (i * 7919 % 251) as u8)
            .collect::<Vec<u8>>(),
    )
    .expect("a random source");
    let source = source.to_str().expect("UTF-8");
    let run = |program: &Path, args: &[&str]| {
        let output = Command::new(program).args(args).output().expect("runs");
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output.stdout
    };
    for options in [
        &["-r", "-n", "40"][..],
        &["-r", "-n", "40", "--header", "2"],
    ] {
        let mut held = vec!["--seed", "s", "--memory", "1M"];
        held.extend_from_slice(options);
        held.push(path);
        let mut blocks = vec!["--seed", "s"];
        blocks.extend_from_slice(options);
        blocks.push(path);
        assert_eq!(
            run(&binary(), &held),
            run(&binary(), &blocks),
            "{options:?}"
        );
    }
    for options in [&["-r", "-n", "40"][..], &[], &["-n", "3"]] {
        let mut held = vec!["--random-source", source, "--memory", "1M"];
        held.extend_from_slice(options);
        held.push(path);
        let mut gnu_args = vec!["--random-source", source];
        gnu_args.extend_from_slice(options);
        gnu_args.push(path);
        let ours = run(&binary(), &held);
        assert_eq!(ours, run(&binary(), &gnu_args), "{options:?}");
        match gnu_shuf() {
            Some(gnu) => assert!(ours == run(&gnu, &gnu_args), "{options:?}: not GNU's bytes"),
            None => require_or_skip("GNU shuf is not installed"),
        }
    }
}
