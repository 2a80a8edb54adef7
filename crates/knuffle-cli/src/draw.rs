//! `knuffle draw`: a verifiable draw (format `knuffle-vd/1`) from a file,
//! items or a range, seeded by public text, a drand beacon round, or both;
//! and `--compat`: the samplers election audits and online games already
//! use, re-derived byte for byte with their bias stated exactly.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use knuffle_draw::compat::{consistent, rivest, stake};
use knuffle_draw::{Mode, Population, Source, make_transcript};

use crate::draw_io::{beacon_chain, parse_range, read_beacon, read_population};
use crate::emit::{self, write_stdout};
use crate::failure::{CliError, USAGE};

const LONG_ABOUT: &str = "\
Draw K items so that anyone can re-derive the draw from public inputs with SHA-256 alone.

The seed sources (every --seed text in order, then the --beacon round) are hashed with
the population (every item, in order) into a key; the key's SHA-256 stream drives an
exactly uniform Fisher-Yates draw (with --replace: K independent uniform picks). The
transcript (--transcript FILE, format knuffle-vd/1) holds everything needed to check it:
`knuffle verify FILE`, or the Python reference verifier docs/verifiable/reference_verifier.py.
A larger K extends a smaller draw: the first K items stay the same (audit escalation).

--compat re-derives a draw made by another scheme, byte for byte, and reports its bias:
  rivest2011          Rivest's sampler (ColoradoRLA): -i LO-HI or items, one --seed
  consistent-sampler  Rivest's consistent_sampler (Arlo): items (ids), one --seed;
                      --tickets prints ticket numbers (--digits N significant digits)
  stake               Stake-style provably fair cards: --seed SERVER --client-seed TEXT --nonce N";

const EXAMPLES: &str = "\
Examples:
  knuffle draw -i 1-500 -n 3 --seed '3 6 1 4 5 2 2 6 1 3 4 5 6 1 2 3 4 5 6 1' \\
      --beacon round-5000000.json --transcript lottery.json   a public lottery
  knuffle draw ballots.txt -n 20 --seed 31415926535897932384 --transcript audit.json
  knuffle draw ballots.txt -n 40 --seed 31415926535897932384   escalate: the first 20 stay
  knuffle draw -e Ann Bob Cy Dee -n 1 --seed 'friday'          pick one
  knuffle draw -i 1-1000 -n 3 --replace --seed 1 --compat rivest2011
  knuffle draw ids.txt -n 10 --seed 41 --compat consistent-sampler --tickets
  knuffle draw -n 5 --compat stake --seed 'server seed' --client-seed 'client seed' --nonce 1
  knuffle verify lottery.json                                  check it
  knuffle verify --compat rivest2011 -i 1-876 --replace --seed 3546311556112163624615351222 \\
      --expect published-picks.txt                             check a third-party draw

Exit status: 0 success, 1 a read or write failed, 2 invalid arguments or input.
With --expect: 0 the draw re-derives as published, 1 it does not, 2 trouble.";

/// The third-party schemes `--compat` reproduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Compat {
    /// Rivest's sampler (2011), as in ColoradoRLA.
    Rivest2011,
    /// Rivest's consistent_sampler (2018), as in Arlo.
    ConsistentSampler,
    /// Stake-style "provably fair" cards (HMAC-SHA256, float scaling).
    Stake,
}

#[derive(Parser, Debug)]
#[command(
    name = "knuffle draw",
    bin_name = "knuffle draw",
    about = "Draw items verifiably: anyone can re-derive the draw from public inputs",
    long_about = LONG_ABOUT,
    after_help = EXAMPLES,
    disable_version_flag = true
)]
pub(crate) struct Args {
    /// Treat each ITEM argument as an item of the population.
    #[arg(short, long, conflicts_with = "input_range")]
    echo: bool,

    /// Draw from the integers LO..HI (inclusive).
    #[arg(short, long, value_name = "LO-HI")]
    input_range: Option<String>,

    /// How many items to draw (with --expect: by default, as many as it lists).
    #[arg(
        short = 'n',
        long = "count",
        value_name = "K",
        required_unless_present = "expect"
    )]
    count: Option<u64>,

    /// A seed source: any text (dice rolls, a phrase); repeat for several, in order.
    #[arg(long, value_name = "TEXT")]
    seed: Vec<String>,

    /// A drand beacon round (the JSON drand serves at /public/ROUND) as a seed source.
    #[arg(long, value_name = "FILE")]
    beacon: Option<String>,

    /// The beacon's chain hash, when the beacon file does not name it
    /// (default: drand mainnet).
    #[arg(long, value_name = "HASH", requires = "beacon")]
    beacon_chain: Option<String>,

    /// Draw with replacement (an item can be drawn more than once).
    #[arg(short, long)]
    replace: bool,

    /// Write the knuffle-vd/1 transcript to FILE.
    #[arg(long, value_name = "FILE")]
    transcript: Option<String>,

    /// Do not copy the population's items into the transcript (verify then
    /// needs the population file).
    #[arg(long, requires = "transcript")]
    omit_items: bool,

    /// Re-derive a draw of another scheme instead, and report its bias.
    #[arg(long, value_enum, value_name = "SCHEME",
          conflicts_with_all = ["beacon", "transcript"])]
    compat: Option<Compat>,

    /// consistent-sampler: print each ticket number, id and generation.
    #[arg(long)]
    tickets: bool,

    /// consistent-sampler: significant digits of printed tickets (after the leading 9s).
    #[arg(long, value_name = "N", default_value_t = 9,
          value_parser = clap::value_parser!(u64).range(1..=80))]
    digits: u64,

    /// With --compat: check that the draw re-derives as the published one in
    /// FILE (one item per line, as printed): exit 0 if it does, 1 if not.
    #[arg(long, value_name = "FILE", requires = "compat")]
    expect: Option<String>,

    /// stake: the client seed.
    #[arg(long, value_name = "TEXT")]
    client_seed: Option<String>,

    /// stake: the nonce (the game's number).
    #[arg(long, value_name = "N", default_value_t = 0)]
    nonce: u64,

    /// The population file (default: standard input), or with -e the items.
    #[arg(value_name = "FILE|ITEM")]
    args: Vec<String>,
}

/// Runs `knuffle draw`.
pub fn run(args: &[OsString]) -> Result<ExitCode, CliError> {
    let args: Args = emit::parse("knuffle draw", args)?;
    run_parsed(&args)
}

/// Invalid input or arguments (exit status 2).
fn usage(message: impl Into<String>) -> CliError {
    CliError::invalid(message)
}

/// The population the arguments name.
fn population(args: &Args) -> Result<Population, CliError> {
    if let Some(range) = &args.input_range {
        if !args.args.is_empty() {
            return Err(usage(format!("extra operand {:?} with -i", args.args[0])));
        }
        return parse_range(range).map_err(usage);
    }
    if args.echo {
        return Ok(Population::Items(args.args.clone()));
    }
    // Text that is not UTF-8 is bad input (2); a failed read is an I/O failure (1).
    let read = |path: &str| {
        read_population(path).map_err(|e| {
            if e.contains("not UTF-8") {
                CliError::invalid(e)
            } else {
                CliError::plain(e)
            }
        })
    };
    match args.args.as_slice() {
        [] => read("-"),
        [file] => read(file),
        [_, extra, ..] => Err(usage(format!("extra operand {extra:?}"))),
    }
}

fn one_seed(args: &Args, scheme: &str) -> Result<String, CliError> {
    match args.seed.as_slice() {
        [seed] => Ok(seed.clone()),
        _ => Err(usage(format!("--compat {scheme} takes exactly one --seed"))),
    }
}

fn run_parsed(args: &Args) -> Result<ExitCode, CliError> {
    if let Some(scheme) = args.compat {
        return run_compat(args, scheme);
    }
    if args.tickets || args.client_seed.is_some() {
        return Err(usage(
            "--tickets and --client-seed belong to --compat consistent-sampler and stake",
        ));
    }
    let population = population(args)?;
    let mut sources: Vec<Source> = args.seed.iter().cloned().map(Source::Text).collect();
    if let Some(path) = &args.beacon {
        let beacon = read_beacon(path).map_err(usage)?;
        let chain = beacon_chain(&beacon, args.beacon_chain.as_deref()).map_err(usage)?;
        sources.push(Source::from_beacon(&chain, &beacon));
    }
    if sources.is_empty() {
        return Err(usage(
            "no seed source: give --seed TEXT (public dice rolls, a phrase) and/or --beacon FILE",
        ));
    }
    let mode = if args.replace {
        Mode::Replace
    } else {
        Mode::Perm
    };
    let count = args.count.expect("clap requires -n without --expect");
    warn_about_reach(mode, population.count(), count);
    let transcript = make_transcript(mode, &population, !args.omit_items, &sources, count)
        .map_err(|e| usage(e.to_string()))?;
    if let Some(path) = &args.transcript {
        knuffle_records::write_file(std::path::Path::new(path), transcript.to_json().as_bytes())
            .map_err(|e| CliError::plain(e.to_string()))?;
    }
    let mut out = String::new();
    for item in &transcript.result.items {
        out.push_str(item);
        out.push('\n');
    }
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// The published draw of `--expect`: its lines.
fn expected_lines(args: &Args) -> Result<Option<Vec<String>>, CliError> {
    let Some(path) = &args.expect else {
        return Ok(None);
    };
    let text =
        std::fs::read_to_string(path).map_err(|e| CliError::invalid(format!("{path}: {e}")))?;
    Ok(Some(text.lines().map(str::to_owned).collect()))
}

/// Entropy honesty: the key has 256 bits, so a draw whose outcomes number
/// more than 2^256 cannot reach them all (each reachable one is still
/// equally likely to come from an unknown key). Said on standard error.
fn warn_about_reach(mode: Mode, n: u64, k: u64) {
    if n == 0 || k == 0 || (mode == Mode::Perm && k > n) {
        return;
    }
    let bits = match mode {
        Mode::Perm => {
            knuffle::entropy::entropy_bits_needed(n) - knuffle::entropy::entropy_bits_needed(n - k)
        }
        Mode::Replace => k as f64 * (n as f64).log2(),
    };
    if bits > 256.0 {
        eprintln!(
            "knuffle draw: note: this draw has 2^{bits:.1} possible outcomes, more than the \
             2^256 keys: not every outcome is reachable"
        );
    }
}

fn run_compat(args: &Args, scheme: Compat) -> Result<ExitCode, CliError> {
    let expected = expected_lines(args)?;
    let count = match (args.count, &expected) {
        (Some(count), _) => count,
        (None, Some(lines)) => lines.len() as u64,
        (None, None) => unreachable!("clap requires -n or --expect"),
    };
    let mut out = String::new();
    let report = match scheme {
        Compat::Rivest2011 => {
            let seed = one_seed(args, "rivest2011")?;
            if seed.len() < 20 || !seed.bytes().all(|b| b.is_ascii_digit()) {
                eprintln!(
                    "knuffle draw: warning: ColoradoRLA requires a seed of at least 20 decimal \
                     digits (public dice rolls); {seed:?} is not one"
                );
            }
            let population = population(args)?;
            let (lo, hi) = match &population {
                Population::Range { lo, hi } => (*lo, *hi),
                Population::Items(items) if !items.is_empty() => (1, items.len() as u64),
                Population::Items(_) => return Err(usage("the population is empty")),
            };
            let picks = rivest::sample(&seed, lo, hi, count, args.replace).map_err(usage)?;
            for pick in picks {
                match &population {
                    Population::Items(items) => out.push_str(&items[(pick - 1) as usize]),
                    Population::Range { .. } => out.push_str(&pick.to_string()),
                }
                out.push('\n');
            }
            rivest::bias(hi - lo + 1)
        }
        Compat::ConsistentSampler => {
            let seed = one_seed(args, "consistent-sampler")?;
            let population = population(args)?;
            let ids: Vec<String> = (0..population.count())
                .map(|i| population.item(i))
                .collect();
            if !args.replace && count > ids.len() as u64 {
                return Err(usage(format!(
                    "cannot draw {count} ids without replacement from {} (use --replace)",
                    ids.len()
                )));
            }
            if ids.is_empty() && count > 0 {
                return Err(usage("the population is empty"));
            }
            for ticket in consistent::sample(&ids, &seed, args.replace, count) {
                if args.tickets {
                    let _ = writeln!(
                        out,
                        "{} {} {}",
                        consistent::trim(&ticket.number, args.digits as usize),
                        ids[ticket.id],
                        ticket.generation
                    );
                } else {
                    let _ = writeln!(out, "{}", ids[ticket.id]);
                }
            }
            consistent::bias()
        }
        Compat::Stake => {
            let seed = one_seed(args, "stake")?;
            if args.echo || args.input_range.is_some() || !args.args.is_empty() {
                return Err(usage(
                    "--compat stake draws from its own unlimited 52-card deck: no population",
                ));
            }
            let client = args
                .client_seed
                .as_deref()
                .ok_or_else(|| usage("--compat stake needs --client-seed TEXT"))?;
            for index in stake::cards(&seed, client, args.nonce, count) {
                let _ = writeln!(out, "{}", stake::card(index));
            }
            stake::bias()
        }
    };
    for line in &report.lines {
        eprintln!("knuffle draw: bias of {}: {line}", report.scheme);
    }
    let Some(expected) = expected else {
        write_stdout(&out)?;
        return Ok(ExitCode::SUCCESS);
    };
    let derived: Vec<&str> = out.lines().collect();
    let first_difference = derived
        .iter()
        .zip(&expected)
        .position(|(a, b)| a != b)
        .or((derived.len() != expected.len()).then(|| derived.len().min(expected.len())));
    let path = args.expect.as_deref().unwrap_or_default();
    let verdict = match first_difference {
        None => format!(
            "verified: {path}: the {} line{} re-derive exactly\n",
            derived.len(),
            if derived.len() == 1 { "" } else { "s" }
        ),
        Some(at) => format!(
            "does not verify: {path}: line {} re-derives as {:?}, the file has {:?}\n",
            at + 1,
            derived.get(at).copied().unwrap_or("(nothing)"),
            expected.get(at).map_or("(nothing)", String::as_str)
        ),
    };
    // A verdict that cannot be written is trouble (2), not a verdict.
    write_stdout(&verdict).map_err(|e| e.with_status(USAGE))?;
    Ok(match first_difference {
        None => ExitCode::SUCCESS,
        Some(_) => ExitCode::from(1),
    })
}
