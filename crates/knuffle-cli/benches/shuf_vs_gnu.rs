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

use std::path::PathBuf;

mod support;

use support::{measure, summarize};

fn main() {
    if support::listing() {
        return;
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
    let knuffle = support::knuffle();
    let runs = support::runs();
    let data = support::input("partial");
    let file = data.to_str().expect("UTF-8 path");
    let lines = support::count_lines(&data);
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
