//! `knuffle verify`: re-derive a `knuffle-vd/1` transcript and check every
//! step (population digest, beacon randomness, commitment opening, key, k,
//! result). Exit status 0 verified, 1 does not verify, 2 trouble.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use knuffle_draw::{Check, Population, Report, Source, Transcript, population_of, verify};

use crate::draw_io::{read_beacon_within, read_bounded, read_population};
use crate::emit::{self, write_stdout};
use crate::failure::CliError;

/// Exit status: the transcript does not verify.
const NOT_VERIFIED: u8 = 1;
/// Exit status: it cannot be checked (unreadable, malformed, unknown format).
const TROUBLE: u8 = 2;

const LONG_ABOUT: &str = "\
Verify a draw: re-derive a knuffle-vd/1 transcript from its inputs and check every step.

Checks, in order: the population digest (the items, in order, from the transcript or
from FILE), the beacon randomness (SHA-256 of the round's signature), the commitment
opening (the secret and beacon round hash to the published commitment, and the draw used
that round), the key (every seed source), k, and the result (the indices and items drawn).
The beacon's BLS signature is not checked: the output says so.

Limits (checked before any work, each trouble, exit 2): a file larger than --max-size
(default 64M: the transcript, the population FILE, the --beacon file); a range population
of more than 1000000000 items (its digest hashes every item). When k differs from the
number of recorded indices or items, the k check fails (exit 1) and nothing is re-derived.

The same checks, written independently in Python with only the standard library:
docs/verifiable/reference_verifier.py.";

const EXAMPLES: &str = "\
Examples:
  knuffle verify lottery.json                   a transcript with its items embedded
  knuffle verify audit.json ballots.txt         the population from its file
  knuffle verify lottery.json --beacon round-5000000.json
                                                also check the beacon file is the round used
  knuffle verify deal.json --quiet && echo fair
  knuffle verify --compat consistent-sampler ids.txt --seed 41 --expect sample.txt
                                                a third-party draw (options of knuffle draw)

Exit status: 0 verified, 1 does not verify (the failed check is named), 2 trouble
(unreadable or malformed transcript, unknown format, unreadable file).";

#[derive(Parser, Debug)]
#[command(
    name = "knuffle verify",
    bin_name = "knuffle verify",
    about = "Verify a draw: re-derive a knuffle-vd/1 transcript and check every step",
    long_about = LONG_ABOUT,
    after_help = EXAMPLES,
    disable_version_flag = true
)]
pub(crate) struct Args {
    /// The transcript (JSON, format knuffle-vd/1).
    #[arg(value_name = "TRANSCRIPT")]
    transcript: String,

    /// The population file, one item per line (needed when the transcript does not embed it).
    #[arg(value_name = "FILE")]
    population: Option<String>,

    /// A drand beacon file: check that it is the round the draw used.
    #[arg(long, value_name = "FILE")]
    beacon: Option<String>,

    /// Print only the verdict line.
    #[arg(short, long)]
    quiet: bool,

    /// The largest transcript, population or beacon file read, in bytes
    /// (suffixes K, M, G as in sort -S); a larger file is trouble (exit 2).
    #[arg(long, value_name = "SIZE", default_value = "64M",
          value_parser = crate::draw::parse_max_size)]
    max_size: u64,
}

/// Trouble (exit status 2): a transcript or file that cannot be read.
fn trouble(message: &str) -> CliError {
    CliError::plain(message).with_status(TROUBLE)
}

/// Runs `knuffle verify`. With `--compat`, it is `knuffle draw --compat
/// ... --expect FILE`: a third-party draw is re-derived and compared.
pub fn run(args: &[OsString]) -> Result<ExitCode, CliError> {
    if args
        .iter()
        .any(|a| a == "--compat" || a.to_string_lossy().starts_with("--compat="))
    {
        return crate::draw::run(args);
    }
    let args: Args = emit::parse("knuffle verify", args)?;
    // Every file is read up to --max-size (reading stops at one byte more),
    // so the work below is bounded by what was read.
    let mut transcript = read_transcript(&args)?;
    let population = population_for(&args, &mut transcript)?;
    let mut report = match verify(&transcript, &population) {
        Ok(report) => report,
        Err(e) => return Err(trouble(&format!("{}: {e}", args.transcript))),
    };
    if let Some(path) = &args.beacon {
        check_beacon_file(&mut report, &transcript, path, args.max_size)?;
    }
    let (out, code) = verdict(&args, &transcript, &report);
    write_stdout(&out).map_err(|e| e.with_status(TROUBLE))?;
    Ok(code)
}

/// The transcript file, read and parsed (unreadable or malformed: trouble).
fn read_transcript(args: &Args) -> Result<Transcript, CliError> {
    let bytes = read_bounded(&args.transcript, args.max_size, "transcript")
        .map_err(|e| trouble(&e.message))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        trouble(&format!(
            "{}: malformed transcript JSON: not UTF-8 (byte {})",
            args.transcript,
            e.utf8_error().valid_up_to()
        ))
    })?;
    match Transcript::parse(&text) {
        Ok(t) => Ok(t),
        Err(e) => Err(trouble(&format!("{}: {e}", args.transcript))),
    }
}

/// The population to verify against: the FILE given, else the items the
/// transcript embeds, else its range.
fn population_for(args: &Args, transcript: &mut Transcript) -> Result<Population, CliError> {
    let given = match args.population.as_deref() {
        Some(path) => Some(read_population(path, args.max_size).map_err(|e| trouble(&e.message))?),
        // Embedded items are moved out, not copied (verify uses the count
        // and digest of the record, and the population given to it).
        None => transcript.population.items.take().map(Population::Items),
    };
    match population_of(transcript, given) {
        Ok(p) => Ok(p),
        Err(e) => Err(trouble(&e.0)),
    }
}

/// The `beacon file` check (--beacon): the file is the round, with its
/// signature, that the draw used.
fn check_beacon_file(
    report: &mut Report,
    transcript: &Transcript,
    path: &str,
    max_size: u64,
) -> Result<(), CliError> {
    let beacon = match read_beacon_within(path, max_size) {
        Ok(b) => b,
        Err(e) => return Err(trouble(&e.message)),
    };
    let used = transcript
        .sources
        .iter()
        .filter_map(|s| match s.to_source() {
            Ok(Source::Drand {
                round, signature, ..
            }) => Some((round, signature)),
            _ => None,
        });
    let matches = used
        .clone()
        .any(|(round, sig)| round == beacon.round && sig == beacon.signature);
    let rounds: Vec<String> = used.map(|(r, _)| r.to_string()).collect();
    report.checks.push(Check {
        name: "beacon file",
        passed: matches,
        detail: if matches {
            format!("{path} is round {}, the round the draw used", beacon.round)
        } else if rounds.is_empty() {
            format!(
                "{path} is round {}, but the draw used no beacon",
                beacon.round
            )
        } else {
            format!(
                "{path} is round {} (signature included), but the draw used round {} with \
                 another signature",
                beacon.round,
                rounds.join(", ")
            )
        },
    });
    Ok(())
}

/// What is printed (the checks unless --quiet, then the verdict line) and
/// the exit status.
fn verdict(args: &Args, transcript: &Transcript, report: &Report) -> (String, ExitCode) {
    let mut out = String::new();
    if !args.quiet {
        out.push_str(&report.to_string());
    }
    let code = match report.first_failure() {
        None => {
            out.push_str(&format!(
                "verified: {} ({} item{} drawn from {})\n",
                args.transcript,
                transcript.k,
                if transcript.k == 1 { "" } else { "s" },
                transcript.population.count
            ));
            ExitCode::SUCCESS
        }
        Some(check) => {
            out.push_str(&format!(
                "does not verify: {}: the {} check failed: {}\n",
                args.transcript, check.name, check.detail
            ));
            ExitCode::from(NOT_VERIFIED)
        }
    };
    (out, code)
}
