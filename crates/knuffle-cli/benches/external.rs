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

mod support;

use support::{Sample, measure, summarize};

/// terashuf, `MEMORY=0.1`, 1 GB / 15M lines, this machine (given).
const TERASHUF_SECONDS: f64 = 10.6;
const TERASHUF_PEAK_MIB: f64 = 122.0;

fn main() {
    if support::listing() {
        return;
    }
    let knuffle = support::knuffle();
    let runs = support::runs().max(1);
    let data = support::input("partial-external");
    let file = data.to_str().expect("UTF-8 path");
    let bytes = data.metadata().expect("input").len();
    let lines = support::count_lines(&data);
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
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); cases.len()];
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
    let in_memory = summarize(&samples[0]).wall;
    for ((name, _, _), runs) in cases.iter().zip(&samples) {
        let median = summarize(runs);
        let seconds = median.wall;
        println!(
            "{:<44} {:>8.2} {:>8.0} {:>9.1} {:>9.2}x {:>10.1}x",
            name,
            seconds,
            bytes as f64 / 1e6 / seconds,
            median.rss_kib as f64 / 1024.0,
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
