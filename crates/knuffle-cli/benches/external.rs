//! External mode (`--memory`) against knuffle's own in-memory shuffle,
//! side by side, and against the terashuf anchor figure.
//!
//! ```sh
//! cargo bench -p knuffle-cli --bench external
//! ```
//!
//! Uses the 1 GB, ~15-million-line text file of the `shuf_vs_gnu` bench
//! (generated once, cached under the target directory, same generator and
//! seed). Runs, alternately, `$KNUFFLE_BENCH_RUNS` times each (default 5)
//! after one warm-up round: knuffle in memory, knuffle `--memory 100M` on
//! the file, and knuffle `--memory 100M` reading a pipe from `cat`. Output
//! goes to /dev/null; temporary files go to `$TMPDIR` (else /tmp). Reports
//! median wall time, throughput (input MB / s), median peak resident
//! memory of the child (`wait4`'s `ru_maxrss`), the ratio to the in-memory
//! time, and the speed-up over terashuf with `MEMORY=0.1` on the same kind
//! of file, measured on this machine at 10.6 s wall and 122 MiB peak (a
//! given figure: terashuf is not installable here).

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TARGET_BYTES: u64 = 1_000_000_000;

/// terashuf, `MEMORY=0.1`, 1 GB / 15M lines, this machine (given).
const TERASHUF_SECONDS: f64 = 10.6;
const TERASHUF_PEAK_MIB: f64 = 122.0;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list`: nothing to enumerate
    }
    let knuffle = PathBuf::from(env!("CARGO_BIN_EXE_knuffle"));
    let runs: usize = std::env::var("KNUFFLE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
        .max(1);
    let data = Path::new(env!("CARGO_TARGET_TMPDIR")).join("shuf-bench-1g.txt");
    ensure_input(&data);
    let file = data.to_str().expect("UTF-8 path");
    let bytes = data.metadata().expect("input").len();
    let lines = count_lines(&data);
    println!("input: {file} ({bytes} bytes, {lines} lines); {runs} runs each, medians\n");

    let cases: [(&str, Vec<&str>, bool); 3] = [
        ("in memory: knuffle FILE", vec![file], false),
        (
            "external: knuffle --memory 100M FILE",
            vec!["--memory", "100M", file],
            false,
        ),
        (
            "external: cat FILE | knuffle --memory 100M",
            vec!["--memory", "100M"],
            true,
        ),
    ];
    let mut samples: Vec<Vec<(Duration, i64)>> = vec![Vec::new(); cases.len()];
    for round in 0..=runs {
        for (case, (_, args, piped)) in cases.iter().enumerate() {
            let sample = measure(&knuffle, args, piped.then_some(data.as_path()));
            if round > 0 {
                samples[case].push(sample);
            }
        }
    }
    println!(
        "{:<44} {:>8} {:>8} {:>9} {:>10} {:>11}",
        "case", "wall s", "MB/s", "peak MiB", "/ in-mem", "terashuf /"
    );
    let in_memory = median(&samples[0]).0.as_secs_f64();
    for ((name, _, _), runs) in cases.iter().zip(&samples) {
        let (time, peak_kib) = median(runs);
        let seconds = time.as_secs_f64();
        println!(
            "{:<44} {:>8.2} {:>8.0} {:>9.1} {:>9.2}x {:>10.1}x",
            name,
            seconds,
            bytes as f64 / 1e6 / seconds,
            peak_kib as f64 / 1024.0,
            seconds / in_memory,
            TERASHUF_SECONDS / seconds,
        );
    }
    println!(
        "{:<44} {:>8.2} {:>8.0} {:>9.1} {:>10} {:>10.1}x   (given figure, not run here)",
        "terashuf MEMORY=0.1 (anchor)",
        TERASHUF_SECONDS,
        1e3 / TERASHUF_SECONDS,
        TERASHUF_PEAK_MIB,
        "",
        1.0
    );
}

/// Median wall time and median peak RSS (KiB).
fn median(runs: &[(Duration, i64)]) -> (Duration, i64) {
    let mut times: Vec<Duration> = runs.iter().map(|r| r.0).collect();
    let mut rss: Vec<i64> = runs.iter().map(|r| r.1).collect();
    times.sort();
    rss.sort();
    (times[times.len() / 2], rss[rss.len() / 2])
}

/// Runs `program args > /dev/null` (stdin from `cat FILE` when piped);
/// returns the wall time and the child's peak RSS in KiB.
fn measure(program: &Path, args: &[&str], pipe_from: Option<&Path>) -> (Duration, i64) {
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
        .expect("spawn knuffle");
    let (status, rss) = wait_with_rusage(child.id() as libc::pid_t);
    if let Some(mut cat) = feeder {
        let _ = cat.wait();
    }
    let elapsed = start.elapsed();
    assert!(status == 0, "knuffle {args:?} failed with status {status}");
    (elapsed, rss)
}

/// `wait4` for the child: exit status and `ru_maxrss` (KiB). The bench
/// process itself stays small, so the parent's memory folded in at `exec`
/// does not matter.
fn wait_with_rusage(pid: libc::pid_t) -> (i32, i64) {
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet reaped; the pointers are valid.
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid, "wait4 failed");
    (status, usage.ru_maxrss)
}

/// Writes the benchmark input once, exactly as the `shuf_vs_gnu` bench
/// does (same file name, generator and seed): about 1 GB of lines of 20 to
/// 114 random lowercase letters and spaces.
fn ensure_input(path: &Path) {
    if path
        .metadata()
        .map(|m| m.len() >= TARGET_BYTES)
        .unwrap_or(false)
    {
        return;
    }
    eprintln!("generating {} ...", path.display());
    let partial = path.with_extension("partial-external");
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
        // Multiply-shift maps 32 random bits onto 0..m (test data only).
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
