//! `knuffle sample` and `knuffle split` against their yardsticks, side by
//! side, on this machine.
//!
//! ```sh
//! cargo bench -p knuffle-cli --bench sample
//! ```
//!
//! Uses the 1 GB text file of the other benches (about 15 million lines,
//! generated once under the target directory) and its TSV form (each line
//! prefixed with an integer weight 1..=100 and a TAB, generated once too).
//! Every round runs each contestant once, in the same order (the first
//! round is a warm-up, not counted), `$KNUFFLE_BENCH_RUNS` rounds (default
//! 5); medians. Standard output goes to /dev/null; the two commands that
//! write files (`split` and the whole-file shuffle it is compared with)
//! write into the same temporary directory. Reported, with the targets of
//! issue 28:
//! - `-p 0.01`: GB/s, and the floor: `wc -l` on the same file (a scan);
//! - `-n 1000` against GNU `shuf -n 1000` (target: at least 3x);
//! - weighted `-w 1 -n 1000` against uniform `-n 1000` on the TSV (target:
//!   within 2x);
//! - `split --parts 80,10,10` against `knuffle FILE -o OUT` (target: within
//!   1.5x).

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

mod support;

use support::{Sample, measure, summarize};

/// The TSV form of `text`: `WEIGHT\tLINE`, the weights 1..=100 from a
/// fixed xorshift stream (data, not a sample).
fn tsv_input(text: &Path) -> PathBuf {
    let path = text.with_extension("tsv");
    if path.exists() {
        return path;
    }
    eprintln!("generating {} ...", path.display());
    let partial = path.with_extension("tsv-partial");
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&partial).expect("create tsv"));
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for line in
        BufReader::with_capacity(1 << 20, File::open(text).expect("open input")).split(b'\n')
    {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        // Multiply-shift onto 1..=100 (data, not a draw).
        let weight = 1 + (((state >> 32) * 100) >> 32);
        write!(out, "{weight}\t").expect("write tsv");
        out.write_all(&line.expect("read input"))
            .expect("write tsv");
        out.write_all(b"\n").expect("write tsv");
    }
    out.flush().expect("flush tsv");
    drop(out);
    std::fs::rename(&partial, &path).expect("rename tsv");
    path
}

struct Contestant {
    name: &'static str,
    program: PathBuf,
    args: Vec<String>,
    runs: Vec<Sample>,
}

fn main() {
    if support::listing() {
        return;
    }
    let gnu = std::env::var_os("GNU_SHUF")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/usr/bin/shuf".into());
    let knuffle = support::knuffle();
    let text = support::input("sample-partial");
    let tsv = tsv_input(&text);
    let out = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a temporary directory");
    let file = text.to_str().expect("UTF-8 path").to_owned();
    let tsv_file = tsv.to_str().expect("UTF-8 path").to_owned();
    let at = |name: &str| out.path().join(name).to_str().expect("UTF-8").to_owned();
    let runs = support::runs();
    let bytes = text.metadata().expect("input").len();
    println!(
        "input: {file} ({bytes} bytes, {} lines) and {tsv_file} ({} bytes); {runs} runs each, medians\n",
        support::count_lines(&text),
        tsv.metadata().expect("tsv").len()
    );
    let own = |name, args: &[&str]| Contestant {
        name,
        program: knuffle.clone(),
        args: args.iter().map(|a| a.to_string()).collect(),
        runs: Vec::new(),
    };
    let mut contestants = vec![
        Contestant {
            name: "wc -l FILE (floor of a scan)",
            program: "wc".into(),
            args: vec!["-l".into(), file.clone()],
            runs: Vec::new(),
        },
        own("sample -p 0.01 FILE", &["sample", "-p", "0.01", &file]),
        Contestant {
            name: "GNU shuf -n 1000 FILE",
            program: gnu.clone(),
            args: vec!["-n".into(), "1000".into(), file.clone()],
            runs: Vec::new(),
        },
        own("sample -n 1000 FILE", &["sample", "-n", "1000", &file]),
        own("sample -n 1000 TSV", &["sample", "-n", "1000", &tsv_file]),
        own(
            "sample -w 1 -n 1000 TSV",
            &["sample", "-w", "1", "-n", "1000", &tsv_file],
        ),
        own("knuffle FILE -o OUT", &[&file, "-o", &at("shuffled")]),
        own(
            "split --parts 80,10,10 FILE",
            &[
                "split",
                "--parts",
                "80,10,10",
                "-o",
                &at("train"),
                "-o",
                &at("valid"),
                "-o",
                &at("test"),
                &file,
            ],
        ),
    ];
    if !gnu.exists() {
        println!(
            "GNU shuf not found at {} (set GNU_SHUF): left out\n",
            gnu.display()
        );
        contestants.retain(|c| c.program != gnu);
    }
    for round in 0..=runs {
        for contestant in &mut contestants {
            let args: Vec<&str> = contestant.args.iter().map(String::as_str).collect();
            let sample = measure(&contestant.program, &args, None);
            if round > 0 {
                contestant.runs.push(sample);
            }
        }
    }
    println!(
        "{:<32} {:>8} {:>8} {:>9}",
        "case", "wall s", "cpu s", "peak MiB"
    );
    let mut medians = std::collections::HashMap::new();
    for contestant in &contestants {
        let m = summarize(&contestant.runs);
        println!(
            "{:<32} {:>8.3} {:>8.3} {:>9.1}",
            contestant.name,
            m.wall,
            m.cpu,
            m.rss_kib as f64 / 1024.0
        );
        medians.insert(contestant.name, m.wall);
    }
    let gb = bytes as f64 / 1e9;
    let wall = |name: &str| medians.get(name).copied();
    println!();
    if let (Some(p), Some(floor)) = (
        wall("sample -p 0.01 FILE"),
        wall("wc -l FILE (floor of a scan)"),
    ) {
        println!(
            "-p 0.01: {:.2} GB/s (target >= 1 GB/s); the floor, wc -l: {:.2} GB/s",
            gb / p,
            gb / floor
        );
    }
    if let (Some(g), Some(k)) = (wall("GNU shuf -n 1000 FILE"), wall("sample -n 1000 FILE")) {
        println!("-n 1000: GNU shuf / knuffle = {:.2}x (target >= 3x)", g / k);
    }
    if let (Some(w), Some(u)) = (wall("sample -w 1 -n 1000 TSV"), wall("sample -n 1000 TSV")) {
        println!("weighted / uniform -n 1000 = {:.2}x (target <= 2x)", w / u);
    }
    if let (Some(s), Some(whole)) = (
        wall("split --parts 80,10,10 FILE"),
        wall("knuffle FILE -o OUT"),
    ) {
        println!(
            "split / whole-file shuffle = {:.2}x (target <= 1.5x)",
            s / whole
        );
    }
}
