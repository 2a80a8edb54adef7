//! `knuffle lab`: the bias lab on the command line.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use knuffle_lab::exact::{self, ExactDistribution};
use knuffle_lab::experiment::{self, DEFAULT_N, DEFAULT_SEED, DEFAULT_TRIALS, LabRun};
use knuffle_lab::ratio::Ratio;
use knuffle_lab::report;
use knuffle_lab::stats::DEFAULT_ALPHA;
use knuffle_lab::zoo::{ALL, Algorithm};

use crate::emit;
use crate::failure::{CliError, os_error_text};

/// The most element moves (trials x items) one run of the sampling lab
/// makes per algorithm: about a day of shuffling on two cores. A larger
/// request is refused before anything runs, rather than left to run for
/// months.
const MAX_MOVES: u128 = 10_000_000_000_000;

/// The largest `--path-limit`: 2^40 paths of random choices, about a day
/// of enumeration.
const MAX_PATH_LIMIT: u64 = 1 << 40;

const EXAMPLES: &str = "\
Examples:
  knuffle lab                               every algorithm, n = 4, 10M shuffles each (the .NET harness's experiment)
  knuffle lab --list                        the zoo: names, descriptions, sources
  knuffle lab -a naive-swap --exact --items 3   exact probabilities: 4/27 and 5/27
  knuffle lab -a fisher-yates,naive-swap --items 10 --trials 1000000
  knuffle lab --report lab-report           also write lab-report/index.html with SVG and PNG charts
  knuffle lab --seed 'my seed'              another reproducible run";

/// Shuffle small decks many times with every algorithm of the zoo and test
/// whether each is biased (the experiment of the .NET harness in "Shuffle things in .Net", 2009,
/// with statistics).
#[derive(Parser, Debug)]
#[command(name = "knuffle lab", after_help = EXAMPLES)]
pub(crate) struct Args {
    /// Algorithms to run (comma-separated or repeated; default: all). See --list.
    #[arg(short, long = "algorithm", value_name = "NAME", value_delimiter = ',')]
    algorithms: Vec<String>,

    /// Items per shuffle (the deck size of every experiment).
    #[arg(short = 'n', long = "items", alias = "cards", value_name = "N",
          default_value_t = DEFAULT_N, value_parser = clap::value_parser!(usize))]
    n: usize,

    /// Shuffles per algorithm (trials x items at most 10^13, about a day).
    #[arg(short, long, default_value_t = DEFAULT_TRIALS)]
    trials: u64,

    /// Seed text: the same seed gives the same counts on any machine and thread count.
    #[arg(short, long, default_value = DEFAULT_SEED)]
    seed: String,

    /// Family-wise significance level of the verdicts (Holm-corrected).
    #[arg(long, default_value_t = DEFAULT_ALPHA)]
    alpha: f64,

    /// Enumerate every path of random choices (small n) and print exact probabilities instead of sampling.
    #[arg(long)]
    exact: bool,

    /// Most paths to enumerate in --exact mode (at least 1, at most 2^40).
    #[arg(long, default_value_t = exact::DEFAULT_PATH_LIMIT, value_name = "PATHS",
          value_parser = clap::value_parser!(u64).range(1..))]
    path_limit: u64,

    /// Write an HTML report with SVG and PNG charts into DIR (created if missing; its parent must exist).
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,

    /// List the algorithms of the zoo and exit.
    #[arg(long)]
    list: bool,
}

/// Runs `knuffle lab` with the arguments after the subcommand name.
pub fn run(args: &[OsString]) -> Result<ExitCode, CliError> {
    emit::end_quietly_on_closed_pipe();
    let args: Args = emit::parse("knuffle lab", args)?;
    lab(&args)?;
    Ok(ExitCode::SUCCESS)
}

fn selected(args: &Args) -> Result<Vec<Algorithm>, String> {
    if args.algorithms.is_empty() || args.algorithms.iter().any(|a| a == "all") {
        return Ok(ALL.to_vec());
    }
    args.algorithms
        .iter()
        .map(|name| {
            Algorithm::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = ALL.iter().map(|a| a.name()).collect();
                format!("unknown algorithm {name:?}; known: {}", names.join(", "))
            })
        })
        .collect()
}

/// Runs the lab: invalid arguments are status 2, a failed write status 1.
fn lab(args: &Args) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    if args.list {
        return list_zoo(&mut out);
    }
    let algorithms = selected(args).map_err(CliError::invalid)?;
    check_items_and_alpha(args)?;
    if args.exact {
        return run_exact(args, &algorithms, &mut out);
    }
    check_sampling(args)?;
    let runs = sample(args, &algorithms);
    print_runs(&mut out, &algorithms, &runs)?;
    if let Some(dir) = &args.report {
        let index = write_report(dir, &runs)?;
        writeln!(out, "report: {}", index.display()).map_err(write_err_str)?;
    }
    Ok(())
}

/// `--list`: every algorithm of the zoo with its fairness, description and
/// source.
fn list_zoo(out: &mut impl Write) -> Result<(), CliError> {
    for a in ALL {
        writeln!(
            out,
            "{:<21} {}\n{:<21} {}\n{:<21} source: {}\n",
            a.name(),
            a.fairness().label(),
            "",
            a.description(),
            "",
            a.source()
        )
        .map_err(write_err_str)?;
    }
    Ok(())
}

/// The checks of both modes: at least 2 items, alpha strictly between 0
/// and 1 (status 2).
fn check_items_and_alpha(args: &Args) -> Result<(), CliError> {
    let usage = CliError::invalid;
    if args.n < 2 {
        return Err(usage(format!(
            "--items (-n) must be at least 2 (got {})",
            args.n
        )));
    }
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        return Err(usage(format!(
            "--alpha must be between 0 and 1 (got {})",
            args.alpha
        )));
    }
    Ok(())
}

/// `--exact`: checks its arguments, prints the exact probabilities, and
/// reports the algorithms it could not enumerate (an error when none was).
fn run_exact(args: &Args, algorithms: &[Algorithm], out: &mut impl Write) -> Result<(), CliError> {
    let usage = CliError::invalid;
    if args.path_limit > MAX_PATH_LIMIT {
        return Err(usage(format!(
            "--path-limit {} is more than exact mode enumerates (at most 2^40 = \
             {MAX_PATH_LIMIT} paths, about a day at 10 million paths a second)",
            args.path_limit
        )));
    }
    if args.report.is_some() {
        return Err(CliError::invalid(
            "--report works with sampling, not with --exact",
        ));
    }
    let failures = exact_mode(args, algorithms, out).map_err(write_err_str)?;
    if failures.len() == algorithms.len() {
        // Nothing was computed: that is an error, not a result.
        return Err(usage(format!(
            "--exact computed nothing: {}",
            failures.join("; ")
        )));
    }
    for failure in &failures {
        eprintln!("knuffle lab: not enumerated: {failure}");
    }
    Ok(())
}

/// The checks of sampling mode: at least one trial, at most 100000 items,
/// at most MAX_MOVES element moves, and a usable report directory.
fn check_sampling(args: &Args) -> Result<(), CliError> {
    let usage = CliError::invalid;
    if args.trials == 0 {
        return Err(CliError::invalid("--trials must be at least 1"));
    }
    if args.n > 100_000 {
        return Err(usage(format!(
            "-n {} is too large for the lab (at most 100000)",
            args.n
        )));
    }
    let moves = u128::from(args.trials) * args.n as u128;
    if moves > MAX_MOVES {
        return Err(usage(format!(
            "--trials {} of {} items is {moves} element moves per algorithm: more than the lab \
             runs at once (at most {MAX_MOVES}, about a day on two cores); use fewer trials, \
             or run several seeds and add up the counts",
            args.trials, args.n
        )));
    }
    if let Some(dir) = &args.report {
        check_report_dir(dir)?;
    }
    Ok(())
}

/// Samples every algorithm in turn, with a progress bar on a terminal.
fn sample(args: &Args, algorithms: &[Algorithm]) -> Vec<LabRun> {
    let total = args.trials.saturating_mul(algorithms.len() as u64);
    let bar = progress_bar(total);
    let mut runs: Vec<LabRun> = Vec::new();
    for &algorithm in algorithms {
        bar.set_message(algorithm.name());
        let run = experiment::run(
            algorithm,
            args.n,
            args.trials,
            &args.seed,
            args.alpha,
            &|done| bar.inc(done),
        );
        runs.push(run);
    }
    bar.finish_and_clear();
    runs
}

/// A progress bar over `total` shuffles when standard error is a terminal,
/// else a hidden one.
fn progress_bar(total: u64) -> ProgressBar {
    if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {percent:>3}% {msg} (eta {eta})")
                .expect("a valid template"),
        );
        bar
    } else {
        ProgressBar::hidden()
    }
}

/// The summary table, and the full analysis when one algorithm ran.
fn print_runs(
    out: &mut impl Write,
    algorithms: &[Algorithm],
    runs: &[LabRun],
) -> Result<(), CliError> {
    write!(out, "{}", experiment::table(runs)).map_err(write_err_str)?;
    if algorithms.len() == 1 {
        writeln!(out).map_err(write_err_str)?;
        write!(out, "{}", runs[0].analysis.to_text()).map_err(write_err_str)?;
    }
    Ok(())
}

/// A failed write to standard output (status 1).
fn write_err_str(e: std::io::Error) -> CliError {
    CliError::plain(format!("cannot write the output: {}", os_error_text(&e)))
}

/// Checks, before the long computation and without creating anything,
/// that the report can be written: DIR is a directory whose page could be
/// written, or DIR does not exist yet and its parent does (the error
/// names the parent) and takes new entries.
fn check_report_dir(dir: &Path) -> Result<(), CliError> {
    let plain = |e: knuffle_io::FileError| CliError::plain(e.to_string());
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {
            knuffle_io::check_writable(&dir.join(report::INDEX)).map_err(plain)
        }
        Ok(_) => Err(CliError::plain(format!(
            "{}: not a directory",
            dir.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            knuffle_io::check_writable(dir).map_err(plain)
        }
        Err(e) => Err(CliError::plain(format!(
            "{}: {}",
            dir.display(),
            os_error_text(&e)
        ))),
    }
}

/// Builds the report and writes its files into `dir` (made if missing,
/// the user named it; nothing else is created), each by knuffle's rule
/// for files it writes ([`knuffle_io::write_file`]), the page last;
/// returns the page's path.
fn write_report(dir: &Path, runs: &[LabRun]) -> Result<PathBuf, CliError> {
    let built = report::build_report(runs)
        .map_err(|e| CliError::plain(format!("cannot draw the report's charts: {e}")))?;
    check_report_dir(dir)?;
    if !dir.is_dir() {
        std::fs::create_dir(dir)
            .map_err(|e| CliError::plain(format!("{}: {}", dir.display(), os_error_text(&e))))?;
    }
    for file in &built.files {
        knuffle_io::write_file(&dir.join(&file.name), &file.bytes)
            .map_err(|e| CliError::plain(e.to_string()))?;
    }
    Ok(dir.join(report::INDEX))
}

fn order_text(n: usize, rank: usize) -> String {
    let order = knuffle_lab::perm::unrank(n, rank as u64);
    if n <= 9 {
        order.iter().map(|x| (x + 1).to_string()).collect()
    } else {
        order
            .iter()
            .map(|x| (x + 1).to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Prints the exact distribution of each algorithm that can be enumerated;
/// returns why the others could not (one sentence each).
fn exact_mode(
    args: &Args,
    algorithms: &[Algorithm],
    out: &mut impl Write,
) -> std::io::Result<Vec<String>> {
    let detailed = algorithms.len() == 1;
    let mut failures = Vec::new();
    if !detailed {
        writeln!(
            out,
            "exact distributions for n = {} (every path of random choices enumerated)",
            args.n
        )?;
        writeln!(
            out,
            "{:<21} {:>10} {:>9} {:>24} {:>24}  uniform?",
            "algorithm", "paths", "orders", "least likely", "most likely"
        )?;
    }
    for &algorithm in algorithms {
        match exact::enumerate(algorithm, args.n, args.path_limit) {
            Ok(d) if detailed => print_detailed(&d, out)?,
            Ok(d) => {
                let (lo, hi) = d.extremes();
                let den = d.common_denominator();
                let show = |r: Ratio| fraction(r, den, false);
                writeln!(
                    out,
                    "{:<21} {:>10} {:>9} {:>24} {:>24}  {}",
                    algorithm.name(),
                    d.paths,
                    format!("{}/{}", d.reachable(), d.probabilities.len()),
                    show(lo),
                    show(hi),
                    if d.is_uniform() { "yes" } else { "NO" }
                )?;
            }
            Err(e) => failures.push(format!("{}: {e}", algorithm.name())),
        }
    }
    Ok(failures)
}

fn print_detailed(d: &ExactDistribution, out: &mut impl Write) -> std::io::Result<()> {
    let den = d.common_denominator();
    writeln!(
        out,
        "{}: exact probabilities of the {} orders of n = {} ({} paths of random choices)",
        d.algorithm.name(),
        d.probabilities.len(),
        d.n,
        d.paths
    )?;
    writeln!(out, "{:<12} {:>22} {:>12}", "order", "probability", "x n!")?;
    let n_fact = d.probabilities.len() as f64;
    for (rank, p) in d.probabilities.iter().enumerate() {
        let over = fraction(*p, den, true);
        writeln!(
            out,
            "{:<12} {:>22} {:>12.4}",
            order_text(d.n, rank),
            over,
            p.to_f64() * n_fact
        )?;
    }
    let (lo, hi) = d.extremes();
    let show = |r: Ratio| fraction(r, den, true);
    writeln!(out, "least likely: {}; most likely: {}", show(lo), show(hi))?;
    writeln!(
        out,
        "{}: {} of {} orders reachable; {}",
        d.algorithm.name(),
        d.reachable(),
        d.probabilities.len(),
        if d.is_uniform() {
            "exactly uniform".to_string()
        } else {
            format!("NOT uniform (uniform would be 1/{})", d.probabilities.len())
        }
    )?;
    Ok(())
}

/// `r` over the common denominator `den` (e.g. `8/256`), with the reduced
/// form added when `reduced` and different; `0` for zero.
fn fraction(r: Ratio, den: Option<u128>, reduced: bool) -> String {
    if r.numer() == 0 {
        return "0".into();
    }
    match den.and_then(|den| r.numer_over(den).map(|num| (num, den))) {
        Some((num, den)) if den != r.denom() && reduced => format!("{num}/{den} (= {r})"),
        Some((num, den)) => format!("{num}/{den}"),
        None => r.to_string(),
    }
}
