//! `knuffle audit`: test shuffles produced by any program for bias; with
//! `--order`, one long order (a data loader's epoch) instead
//! ([`crate::audit_order`]).
//!
//! Exit status as with `diff`: 0 when no bias is found (or too few
//! shuffles to test anything: the verdict then says "inconclusive"), 1 when
//! bias is found, 2 on trouble (bad input, unreadable file, bad arguments).

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use knuffle_lab::audit::{AuditOptions, audit_text, check_deck_size};
use knuffle_lab::stats::DEFAULT_ALPHA;

use crate::emit;
use crate::failure::CliError;

const EXAMPLES: &str = "\
Input: one shuffle per line; elements separated by spaces, tabs or commas;
integers (0- or 1-based, detected) or card names (AS, 10h, TH, A♠).

Examples:
  for i in $(seq 10000); do shuf -i 1-5 | paste -sd' '; done > shuffles.txt
  knuffle audit shuffles.txt             test 10,000 permutations of 5
  my-dealer --hands 100000 | knuffle audit --deck-size 52
                                         deals of k cards from a 52-card deck
  knuffle audit --base 0 --deck-size 100 deals.csv
  knuffle audit --order epoch.txt        one long order of the rows 0..n-1 (a loader's epoch)
  knuffle audit --order epoch.npy --previous last-epoch.npy --shards shards.txt --report audit.html

With --order: one row number a line (or a .npy array of integers); n is the number of rows
unless --n gives it. The tests: rank correlation and displacement, neighbours from the same
block of rows (and shard), a coarse row x position table, and with --previous the
independence of the two epochs; the report names likely causes (a buffer shuffle, blocks,
shards read in turn, the same order again). Not a permutation: reported, exit status 1.

Lines are at most 64 MiB; a NUL byte (binary input) is refused at once. The deck size is
at most 4294967296 (2^32: items are 32-bit numbers); memory does not grow with it.
With fewer than 2 shuffles, or too few for any test, the verdict is \"inconclusive\".

Exit status: 0 no bias found or inconclusive, 1 bias found, 2 trouble.";

/// Audit shuffles from any program: is every order equally likely?
#[derive(Parser, Debug)]
#[command(name = "knuffle audit", after_help = EXAMPLES)]
pub(crate) struct Args {
    /// File with one shuffle per line ('-' or absent: standard input).
    file: Option<PathBuf>,

    /// Audit one long order instead: FILE holds the row at each position, one
    /// row number (0..n-1) a line, or a .npy array of integers ('-': standard input).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["file", "base", "effect"])]
    order: Option<PathBuf>,

    /// With --order: the shard of every row, one number a line in row order (or .npy).
    #[arg(long, value_name = "FILE", requires = "order")]
    shards: Option<PathBuf>,

    /// With --order: the previous epoch's order, to test that the two are independent.
    #[arg(long, value_name = "FILE", requires = "order")]
    previous: Option<PathBuf>,

    /// With --order: also write an HTML report (heat map, displacement histogram) to FILE.
    #[arg(long, value_name = "FILE", requires = "order")]
    report: Option<PathBuf>,

    /// Universe size (items in the deck); needed when lines are partial deals
    /// of integers. Default: the line length (52 for card names). With
    /// --order: the number of rows (default: the order's length).
    #[arg(long = "deck-size", alias = "n", value_name = "N")]
    n: Option<usize>,

    /// Numbering of integer items: 0 or 1 (default: detected).
    #[arg(long, value_name = "0|1", value_parser = clap::value_parser!(u8).range(0..=1))]
    base: Option<u8>,

    /// Family-wise significance level (Holm-corrected over all tests).
    #[arg(long, default_value_t = DEFAULT_ALPHA)]
    alpha: f64,

    /// Also say how many shuffles would reveal a bias of this effect size
    /// (Cohen's w over the position cells, e.g. 0.01).
    #[arg(long, value_name = "W")]
    effect: Option<f64>,
}

/// Runs `knuffle audit` with the arguments after the subcommand name.
pub fn run(args: &[OsString]) -> Result<ExitCode, CliError> {
    emit::end_quietly_on_closed_pipe();
    let args: Args = emit::parse("knuffle audit", args)?;
    // Exit status 1 is the verdict "biased", not a failure.
    let biased = audit(&args).map_err(CliError::invalid)?;
    Ok(ExitCode::from(u8::from(biased)))
}

fn audit(args: &Args) -> Result<bool, String> {
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        return Err(format!(
            "--alpha must be between 0 and 1 (got {})",
            args.alpha
        ));
    }
    if let Some(w) = args.effect
        && !(w > 0.0 && w.is_finite())
    {
        return Err(format!("--effect must be a positive number (got {w})"));
    }
    if let Some(order) = &args.order {
        return crate::audit_order::audit(&crate::audit_order::OrderArgs {
            order,
            n: args.n.map(|n| n as u64),
            shards: args.shards.as_ref(),
            previous: args.previous.as_ref(),
            report: args.report.as_ref(),
            alpha: args.alpha,
        });
    }
    // Before any input is read: what the deck size implies.
    if let Some(n) = args.n {
        check_deck_size(n as u64).map_err(|e| format!("--deck-size: {e}"))?;
    }
    let options = AuditOptions {
        base: args.base.map(usize::from),
        n: args.n,
        alpha: args.alpha,
        effect: args.effect,
    };
    let (report, name) = match &args.file {
        Some(path) if path.as_os_str() != "-" => {
            let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let report = audit_text(BufReader::new(file), &options);
            (report, path.display().to_string())
        }
        _ => (
            audit_text(std::io::stdin().lock(), &options),
            "standard input".to_string(),
        ),
    };
    let report = report.map_err(|e| format!("{name}: {e}"))?;
    let mut out = std::io::stdout().lock();
    write!(out, "{}", report.to_text()).map_err(|e| format!("cannot write the output: {e}"))?;
    Ok(report.analysis.biased())
}
