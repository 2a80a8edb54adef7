//! [`Limited`]: runs `knuffle` under resource limits (address space, open
//! files, wall time, resident memory) and reports how it ended, its output
//! and its peak memory. The one runner of the tests that feed knuffle
//! hostile values (`resources`, `extreme_values`): a regression fails the
//! test, never the machine.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a limited run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// It exited with this status.
    Exited(i32),
    /// A signal ended it.
    Signal(i32),
}

/// The outcome of a [`Limited`] run.
pub struct Outcome {
    /// How it ended.
    pub end: End,
    /// Standard output (at most the cap).
    pub stdout: Vec<u8>,
    /// Standard error (lossy UTF-8).
    pub stderr: String,
    /// Peak resident memory in bytes (`VmHWM`, polled every 2 ms).
    pub peak: u64,
    /// Whether the test closed standard output after reading the cap (as
    /// `| head -c CAP` does): a SIGPIPE is then the expected end.
    pub closed_stdout: bool,
}

impl Outcome {
    /// The exit status, `None` when a signal ended the run.
    pub fn status(&self) -> Option<i32> {
        match self.end {
            End::Exited(code) => Some(code),
            End::Signal(_) => None,
        }
    }
}

/// A run of `knuffle ARGS` under limits.
pub struct Limited {
    args: Vec<OsString>,
    stdin: Vec<u8>,
    address_space: Option<u64>,
    open_files: Option<u64>,
    time_limit: Duration,
    resident_limit: u64,
    stdout_cap: Option<usize>,
}

impl Limited {
    /// `knuffle ARGS`, empty standard input, 60 s, 1 GiB resident at most,
    /// standard output read to its end.
    pub fn new<I, S>(args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Limited {
            args: args.into_iter().map(Into::into).collect(),
            stdin: Vec::new(),
            address_space: None,
            open_files: None,
            time_limit: Duration::from_secs(60),
            resident_limit: 1 << 30,
            stdout_cap: None,
        }
    }

    /// Standard input's bytes.
    pub fn stdin(mut self, bytes: &[u8]) -> Self {
        self.stdin = bytes.to_vec();
        self
    }

    /// `RLIMIT_AS` (as `ulimit -v`), in bytes.
    pub fn address_space(mut self, bytes: u64) -> Self {
        self.address_space = Some(bytes);
        self
    }

    /// `RLIMIT_NOFILE` (as `ulimit -n`).
    pub fn open_files(mut self, count: u64) -> Self {
        self.open_files = Some(count);
        self
    }

    /// The run fails the test when it lasts longer.
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = limit;
        self
    }

    /// The run fails the test when its resident memory passes `bytes`.
    pub fn resident_limit(mut self, bytes: u64) -> Self {
        self.resident_limit = bytes;
        self
    }

    /// Reads at most `bytes` of standard output, then closes it (as
    /// `| head -c BYTES` would).
    pub fn stdout_cap(mut self, bytes: usize) -> Self {
        self.stdout_cap = Some(bytes);
        self
    }

    /// Runs to the end; panics (after killing the child) when it runs past
    /// the time limit or the resident limit.
    #[allow(clippy::zombie_processes)] // reaped by waitpid (or `kill`) below
    pub fn run(self) -> Outcome {
        let mut command = Command::new(env!("CARGO_BIN_EXE_knuffle"));
        command
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let (address_space, open_files) = (self.address_space, self.open_files);
        // SAFETY: only setrlimit (async-signal-safe) runs between fork and
        // exec; the structs are initialised.
        unsafe {
            command.pre_exec(move || {
                for (resource, value) in [
                    (libc::RLIMIT_AS, address_space),
                    (libc::RLIMIT_NOFILE, open_files),
                ] {
                    if let Some(value) = value {
                        let limit = libc::rlimit {
                            rlim_cur: value,
                            rlim_max: value,
                        };
                        if libc::setrlimit(resource, &limit) != 0 {
                            return Err(std::io::Error::last_os_error());
                        }
                    }
                }
                Ok(())
            });
        }
        let described = format!("knuffle {:?}", self.args);
        let mut child = command.spawn().expect("knuffle starts");
        let mut stdin = child.stdin.take().expect("stdin");
        let input = self.stdin;
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let stdout = child.stdout.take().expect("stdout");
        let cap = self.stdout_cap;
        let out_reader = std::thread::spawn(move || read_capped(stdout, cap));
        let mut stderr = child.stderr.take().expect("stderr");
        let err_reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stderr.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        });
        let pid = child.id() as libc::pid_t;
        let started = Instant::now();
        let mut peak = 0;
        let end = loop {
            peak = peak.max(status_field(pid, "VmHWM:"));
            let mut status = 0;
            // SAFETY: waitpid on our own, not yet reaped child.
            let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if done == pid {
                break if libc::WIFEXITED(status) {
                    End::Exited(libc::WEXITSTATUS(status))
                } else {
                    End::Signal(libc::WTERMSIG(status))
                };
            }
            if status_field(pid, "VmRSS:") > self.resident_limit {
                kill(pid);
                panic!(
                    "{described} passed {} MiB of resident memory",
                    self.resident_limit >> 20
                );
            }
            if started.elapsed() > self.time_limit {
                kill(pid);
                panic!("{described} ran longer than {:?}", self.time_limit);
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        writer.join().expect("stdin writer");
        let (stdout, closed_stdout) = out_reader.join().expect("stdout reader");
        Outcome {
            end,
            stdout,
            stderr: err_reader.join().expect("stderr reader"),
            peak,
            closed_stdout,
        }
    }
}

/// Reads `reader` to its end, or `cap` bytes and then drops it; returns the
/// bytes and whether it was dropped early.
fn read_capped(mut reader: impl Read, cap: Option<usize>) -> (Vec<u8>, bool) {
    let mut bytes = Vec::new();
    let Some(cap) = cap else {
        let _ = reader.read_to_end(&mut bytes);
        return (bytes, false);
    };
    let mut chunk = [0u8; 8192];
    while bytes.len() < cap {
        match reader.read(&mut chunk) {
            Ok(0) | Err(_) => return (bytes, false),
            Ok(read) => bytes.extend_from_slice(&chunk[..read]),
        }
    }
    (bytes, true)
}

/// Stops and reaps the child `pid`.
fn kill(pid: libc::pid_t) {
    // SAFETY: the child has not been reaped, so the pid is ours; waitpid
    // then reaps it.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, std::ptr::null_mut(), 0);
    }
}

/// A memory field of a running process's status (`VmRSS:`, `VmHWM:`) in
/// bytes, 0 when unknown (the process is gone).
pub fn status_field(pid: libc::pid_t, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with(field))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kib| kib * 1024)
}
