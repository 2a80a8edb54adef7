//! knuffle's shuf mode against GNU shuf, side by side, on this machine.
//!
//! ```sh
//! cargo bench -p knuffle-cli --bench shuf_vs_gnu
//! ```
//!
//! Generates once (cached under the target directory) a 1 GB text file of
//! about 15 million lines, then runs GNU `shuf` (`/usr/bin/shuf`, or
//! `$GNU_SHUF`) and `knuffle` alternately, `$KNUFFLE_BENCH_RUNS` times each
//! (default 5) after one warm-up run each, and reports the median wall
//! time, the ratio GNU/knuffle, the median CPU time (user + system) and the
//! peak resident memory of the child (`wait4`'s `ru_maxrss`, `ru_utime`,
//! `ru_stime`). Output goes to /dev/null; `-n 10` reads the file through a
//! pipe from `cat`. On a machine shared with other work, wall times (and
//! the ratio, since knuffle uses both cores and GNU one) depend on the
//! load; CPU times much less so.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const TARGET_BYTES: u64 = 1_000_000_000;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list`: nothing to enumerate
    }
    let gnu = std::env::var_os("GNU_SHUF")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/usr/bin/shuf".into());
    if !gnu.exists() {
        println!(
            "shuf_vs_gnu: skipped: GNU shuf not found at {} (set GNU_SHUF)",
            gnu.display()
        );
        return;
    }
    let knuffle = PathBuf::from(env!("CARGO_BIN_EXE_knuffle"));
    let runs: usize = std::env::var("KNUFFLE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let data = Path::new(env!("CARGO_TARGET_TMPDIR")).join("shuf-bench-1g.txt");
    ensure_input(&data);
    let file = data.to_str().expect("UTF-8 path");
    let lines = count_lines(&data);
    println!(
        "input: {file} ({} bytes, {lines} lines); {runs} runs each, medians\n",
        data.metadata().unwrap().len()
    );
    println!(
        "{:<32} {:>8} {:>10} {:>7} {:>8} {:>10} {:>8} {:>11}",
        "case", "GNU s", "knuffle s", "ratio", "GNU cpu", "knuf. cpu", "GNU MiB", "knuffle MiB"
    );
    let cases: Vec<(&str, Vec<&str>, bool)> = vec![
        ("whole file", vec![file], false),
        ("-n 10 through a pipe", vec!["-n", "10"], true),
        ("-i 1-10000000", vec!["-i", "1-10000000"], false),
        (
            "-i 1-18446744073709551615 -n 3",
            vec!["-i", "1-18446744073709551615", "-n", "3"],
            false,
        ),
        (
            "-r -n 10000000 FILE",
            vec!["-r", "-n", "10000000", file],
            false,
        ),
    ];
    for (name, args, piped) in cases {
        let pipe_from = if piped { Some(data.as_path()) } else { None };
        let mut gnu_runs = Vec::new();
        let mut our_runs = Vec::new();
        for round in 0..=runs {
            let g = measure(&gnu, &args, pipe_from);
            let k = measure(&knuffle, &args, pipe_from);
            if round > 0 {
                gnu_runs.push(g);
                our_runs.push(k);
            }
        }
        let g = summarize(&gnu_runs);
        let k = summarize(&our_runs);
        println!(
            "{:<32} {:>8.3} {:>10.3} {:>6.1}x {:>8.3} {:>10.3} {:>8.1} {:>11.1}",
            name,
            g.wall,
            k.wall,
            g.wall / k.wall.max(1e-9),
            g.cpu,
            k.cpu,
            g.rss_kib as f64 / 1024.0,
            k.rss_kib as f64 / 1024.0
        );
    }
}

/// One run: wall seconds, CPU seconds (user + system), peak RSS (KiB).
#[derive(Clone, Copy)]
struct Sample {
    wall: f64,
    cpu: f64,
    rss_kib: i64,
}

/// The median of each measure.
fn summarize(runs: &[Sample]) -> Sample {
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
fn measure(program: &Path, args: &[&str], pipe_from: Option<&Path>) -> Sample {
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
        .expect("spawn");
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

/// `wait4` for the child: exit status and resource usage.
fn wait_with_rusage(pid: libc::pid_t) -> (i32, libc::rusage) {
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid, "wait4 failed");
    (status, usage)
}

/// Writes the benchmark input once: about 1 GB of lines of 20 to 114
/// random lowercase letters and spaces (mean 67 bytes), from a fixed
/// xorshift seed, so every run of the benchmark sees the same file.
fn ensure_input(path: &Path) {
    if path
        .metadata()
        .map(|m| m.len() >= TARGET_BYTES)
        .unwrap_or(false)
    {
        return;
    }
    eprintln!("generating {} ...", path.display());
    let partial = path.with_extension("partial");
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
    std::fs::rename(&partial, path).expect("rename input");
}

fn count_lines(path: &Path) -> usize {
    use std::io::Read;
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
