//! What the `shuf_vs_gnu` and `external` benches share: the 1 GB input file
//! (generated once, cached under the target directory) and the measurement
//! of one child process (wall time, CPU time and peak RSS from `wait4`).

#![allow(dead_code)]

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The size of the benchmark input.
const TARGET_BYTES: u64 = 1_000_000_000;

/// Whether `cargo bench -- --list` asked for the benchmarks (there is
/// nothing to enumerate).
pub fn listing() -> bool {
    std::env::args().any(|a| a == "--list")
}

/// The `knuffle` binary built by Cargo.
pub fn knuffle() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_knuffle"))
}

/// Measured runs per case: `$KNUFFLE_BENCH_RUNS`, default 5.
pub fn runs() -> usize {
    std::env::var("KNUFFLE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
}

/// The benchmark input, written first if missing: about 1 GB (~15 million
/// lines) of lines of 20 to 114 random lowercase letters and spaces (mean
/// 67 bytes), from a fixed xorshift seed, so every run of either bench sees
/// the same file. It is written to `NAME.<partial>` and renamed when
/// complete (each bench uses its own `partial` extension).
pub fn input(partial: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("shuf-bench-1g.txt");
    if path
        .metadata()
        .map(|m| m.len() >= TARGET_BYTES)
        .unwrap_or(false)
    {
        return path;
    }
    eprintln!("generating {} ...", path.display());
    let partial = path.with_extension(partial);
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&partial).expect("create input"));
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut written = 0u64;
    let mut line = Vec::with_capacity(128);
    while written < TARGET_BYTES {
        line.clear();
        // Multiply-shift maps 32 random bits onto 0..m (data, not a shuffle).
        let len = 20 + (((next() >> 32) * 95) >> 32) as usize;
        for _ in 0..len {
            let r = ((next() >> 32) * 28) >> 32;
            line.push(if r >= 26 { b' ' } else { b'a' + r as u8 });
        }
        line.push(b'\n');
        out.write_all(&line).expect("write input");
        written += line.len() as u64;
    }
    out.flush().expect("flush input");
    drop(out);
    std::fs::rename(&partial, &path).expect("rename input");
    path
}

/// The number of `\n` in the file at `path`.
pub fn count_lines(path: &Path) -> usize {
    let mut file = File::open(path).expect("open input");
    let mut buffer = vec![0u8; 1 << 20];
    let mut lines = 0;
    loop {
        let n = file.read(&mut buffer).expect("read input");
        if n == 0 {
            return lines;
        }
        lines += buffer[..n].iter().filter(|&&b| b == b'\n').count();
    }
}

/// One run: wall seconds, CPU seconds (user + system), peak RSS (KiB).
#[derive(Clone, Copy)]
pub struct Sample {
    pub wall: f64,
    pub cpu: f64,
    pub rss_kib: i64,
}

/// The median of each measure.
pub fn summarize(runs: &[Sample]) -> Sample {
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let mut rss: Vec<i64> = runs.iter().map(|r| r.rss_kib).collect();
    rss.sort_unstable();
    Sample {
        wall: median(runs.iter().map(|r| r.wall).collect()),
        cpu: median(runs.iter().map(|r| r.cpu).collect()),
        rss_kib: rss[rss.len() / 2],
    }
}

/// Runs `program args > /dev/null` (stdin from `cat FILE` when piped);
/// returns the wall time, the child's CPU time and its peak RSS.
pub fn measure(program: &Path, args: &[&str], pipe_from: Option<&Path>) -> Sample {
    let start = Instant::now();
    let mut feeder = pipe_from.map(|path| {
        Command::new("cat")
            .arg(path)
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn cat")
    });
    let stdin = match feeder.as_mut() {
        Some(cat) => Stdio::from(cat.stdout.take().expect("cat stdout")),
        None => Stdio::null(),
    };
    // Reaped by wait4 below (for its rusage), not by Child::wait.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(program)
        .args(args)
        .stdin(stdin)
        .stdout(File::create("/dev/null").expect("/dev/null"))
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {}: {e}", program.display()));
    let (status, usage) = wait_with_rusage(child.id() as libc::pid_t);
    if let Some(mut cat) = feeder {
        let _ = cat.wait();
    }
    let elapsed = start.elapsed();
    assert!(
        status == 0,
        "{} {:?} failed with status {status}",
        program.display(),
        args
    );
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Sample {
        wall: elapsed.as_secs_f64(),
        cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        rss_kib: usage.ru_maxrss,
    }
}

/// `wait4` for the child: exit status and resource usage (`ru_maxrss` in
/// KiB). The bench process itself stays small, so the parent's memory
/// folded in at `exec` does not matter.
fn wait_with_rusage(pid: libc::pid_t) -> (i32, libc::rusage) {
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet reaped; the pointers are valid.
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid, "wait4 failed");
    (status, usage)
}
