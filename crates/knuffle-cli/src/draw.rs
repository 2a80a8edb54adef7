//! `knuffle draw`: a verifiable draw (format `knuffle-vd/1`) from a file,
//! items or a range, seeded by public text, a drand beacon round, or both;
//! and `--compat`: the samplers election audits and online games already
//! use, re-derived byte for byte with their bias stated exactly.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use knuffle_draw::compat::{BiasReport, consistent, rivest, stake};
use knuffle_draw::limits::{
    CONSISTENT_BYTES_PER_ID, DEFAULT_MAX_INPUT_BYTES, PERM_BYTES_PER_DRAW, check_memory,
    check_perm_draws, check_recorded_draws, embedded_items_memory, human_bytes,
};
use knuffle_draw::{DrawError, Mode, Population, Source, derive_key, draws, make_transcript};

use crate::draw_io::{
    beacon_chain, parse_range, read_beacon_within, read_bounded, read_population,
};
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

Without --transcript the draws are written as they are made: with --replace any K (up to
2^64 - 1) streams in constant memory, like shuf -r (`| head` ends it). What a draw must hold
is checked against the memory available before anything is drawn (the moved positions of a
draw without replacement, about 64 bytes each; a transcript's draws, about 256 bytes each),
a range has at most 1000000000 items (its digest hashes every one), and a population file
at most --max-size bytes (default 64M). See the Limits of docs/verifiable-draws.md.

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

    /// The largest population, beacon or --expect file read, in bytes
    /// (suffixes K, M, G as in sort -S); a larger file is refused.
    #[arg(long, value_name = "SIZE", default_value = "64M",
          value_parser = parse_max_size)]
    max_size: u64,

    /// The population file (default: standard input), or with -e the items.
    #[arg(value_name = "FILE|ITEM")]
    args: Vec<String>,
}

/// `--max-size SIZE`: a size as `sort -S` takes it, at least 1 byte.
pub(crate) fn parse_max_size(text: &str) -> Result<u64, String> {
    match knuffle_io::parse_size(text)? {
        0 => Err(format!("--max-size must be at least 1 byte (got {text:?})")),
        size => Ok(size),
    }
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
    // Text that is not UTF-8, a file over --max-size or too many items for
    // memory is bad input (2); a failed read is an I/O failure (1).
    let read = |path: &str| {
        read_population(path, args.max_size).map_err(|e| {
            if e.bad_input {
                CliError::invalid(e.message)
            } else {
                CliError::plain(e.message)
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
        let beacon = read_beacon_within(path, args.max_size).map_err(|e| usage(e.message))?;
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
    // Every bound before any work: the range's digest, then what the draw
    // keeps in memory.
    population.check_size().map_err(|e| usage(e.to_string()))?;
    let n = population.count();
    if count > 0 && n == 0 {
        return Err(usage(DrawError::EmptyPopulation.to_string()));
    }
    if mode == Mode::Perm && count > n {
        return Err(usage(DrawError::TooMany { k: count, n }.to_string()));
    }
    let budget = knuffle_io::default_limit();
    if args.transcript.is_some() {
        let embedded = match &population {
            Population::Items(items) if !args.omit_items => embedded_items_memory(
                items.len() as u64,
                items.iter().map(|item| item.len() as u64).sum(),
            ),
            _ => 0,
        };
        check_recorded_draws(count, longest_item(&population), embedded, budget)
            .map_err(|e| usage(e.to_string()))?;
    } else if mode == Mode::Perm {
        check_perm_draws(count, budget).map_err(|e| usage(e.to_string()))?;
    }
    warn_about_reach(mode, n, count);
    let Some(transcript_path) = &args.transcript else {
        // No transcript: the draws go out as they are made (with
        // replacement in constant memory, like `shuf -r`).
        let key = derive_key(mode, &population.digest(), &sources);
        let draws = draws(key, mode, n, count).map_err(|e| usage(e.to_string()))?;
        return stream_lines(draws.map(|index| population.item(index)));
    };
    let transcript = make_transcript(mode, &population, !args.omit_items, &sources, count)
        .map_err(|e| usage(e.to_string()))?;
    if let Some(path) = &args.transcript {
        knuffle_io::write_file(std::path::Path::new(path), transcript.to_json().as_bytes())
            .map_err(|e| CliError::plain(e.to_string()))?;
    }
    note_transcript_size(transcript_path);
    stream_lines(transcript.result.items.into_iter())
}

/// A note when the transcript written is larger than `knuffle verify`
/// reads by default.
fn note_transcript_size(path: &str) {
    let Ok(size) = std::fs::metadata(path).map(|m| m.len()) else {
        return;
    };
    if size > DEFAULT_MAX_INPUT_BYTES {
        eprintln!(
            "knuffle draw: note: {path} is {}, more than knuffle verify reads by default ({}): \
             verify it with --max-size {}M",
            human_bytes(u128::from(size)),
            human_bytes(u128::from(DEFAULT_MAX_INPUT_BYTES)),
            size.div_ceil(1 << 20)
        );
    }
}

/// The published draw of `--expect`: its text (at most `--max-size`),
/// read as lines.
fn expected_text(args: &Args) -> Result<Option<String>, CliError> {
    let Some(path) = &args.expect else {
        return Ok(None);
    };
    let bytes = read_bounded(path, args.max_size, "--expect file")
        .map_err(|e| CliError::invalid(e.message))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| CliError::invalid(format!("{path}: not UTF-8 text")))
}

/// The longest item of `population`, in bytes.
fn longest_item(population: &Population) -> u64 {
    match population {
        Population::Items(items) => items.iter().map(String::len).max().unwrap_or(0) as u64,
        Population::Range { hi, .. } => hi.to_string().len() as u64,
    }
}

/// Writes `lines` to standard output as they come, each ended by a
/// newline: buffered (flushed after each line on a terminal), in constant
/// memory. A reader that goes away (`| head`) ends the run at once.
fn stream_lines<I: Iterator<Item = String>>(lines: I) -> Result<ExitCode, CliError> {
    emit::end_quietly_on_closed_pipe();
    let terminal = std::io::stdout().is_terminal();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let written = || -> std::io::Result<()> {
        for line in lines {
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
            if terminal {
                out.flush()?;
            }
        }
        out.flush()
    };
    match written() {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::write(&e)),
        _ => Ok(ExitCode::SUCCESS),
    }
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
        let bits = if bits < 1e9 {
            format!("{bits:.1}")
        } else {
            format!("{bits:.3e}")
        };
        eprintln!(
            "knuffle draw: note: this draw has 2^{bits} possible outcomes, more than the \
             2^256 keys: not every outcome is reachable"
        );
    }
}

/// The lines a compat scheme derives, one at a time (nothing is collected:
/// any -n streams, and --expect stops at the first difference).
type Lines = Box<dyn Iterator<Item = String>>;

fn run_compat(args: &Args, scheme: Compat) -> Result<ExitCode, CliError> {
    let expected = expected_text(args)?;
    let count = match (args.count, &expected) {
        (Some(count), _) => count,
        (None, Some(text)) => text.lines().count() as u64,
        (None, None) => unreachable!("clap requires -n or --expect"),
    };
    let (lines, report) = compat_lines(args, scheme, count)?;
    for line in &report.lines {
        eprintln!("knuffle draw: bias of {}: {line}", report.scheme);
    }
    let Some(expected) = expected else {
        return stream_lines(lines);
    };
    compare_with_expected(args, lines, &expected)
}

/// The lines of `scheme`'s draw of `count`, and its bias report.
fn compat_lines(args: &Args, scheme: Compat, count: u64) -> Result<(Lines, BiasReport), CliError> {
    match scheme {
        Compat::Rivest2011 => rivest_lines(args, count),
        Compat::ConsistentSampler => consistent_sampler_lines(args, count),
        Compat::Stake => stake_lines(args, count),
    }
}

/// `--compat rivest2011`: ColoradoRLA's sampler.
fn rivest_lines(args: &Args, count: u64) -> Result<(Lines, BiasReport), CliError> {
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
    let picks = rivest::picks(&seed, lo, hi, count, args.replace).map_err(usage)?;
    if !args.replace {
        // The picks so far are kept to skip repeats.
        check_memory(
            format!("picking {count} distinct values"),
            count,
            "picks",
            PERM_BYTES_PER_DRAW,
            knuffle_io::default_limit(),
        )
        .map_err(|e| usage(e.to_string()))?;
    }
    let lines: Lines = match population {
        Population::Items(items) => {
            Box::new(picks.map(move |pick| items[(pick - 1) as usize].clone()))
        }
        Population::Range { .. } => Box::new(picks.map(|pick| pick.to_string())),
    };
    Ok((lines, rivest::bias(hi - lo + 1)))
}

/// `--compat consistent-sampler`: every id's ticket, smallest first.
fn consistent_sampler_lines(args: &Args, count: u64) -> Result<(Lines, BiasReport), CliError> {
    let seed = one_seed(args, "consistent-sampler")?;
    let population = population(args)?;
    let n = population.count();
    if !args.replace && count > n {
        return Err(usage(format!(
            "cannot draw {count} ids without replacement from {n} (use --replace)"
        )));
    }
    if n == 0 && count > 0 {
        return Err(usage("the population is empty"));
    }
    // Every id has a ticket in memory: checked before any is made.
    check_memory(
        format!("keeping the tickets of {n} ids"),
        n,
        "ids",
        CONSISTENT_BYTES_PER_ID + 2 * longest_item(&population),
        knuffle_io::default_limit(),
    )
    .map_err(|e| usage(e.to_string()))?;
    let ids: Vec<String> = match population {
        Population::Items(items) => items,
        range => (0..n).map(|i| range.item(i)).collect(),
    };
    let sampler = consistent::Sampler::new(&ids, &seed, args.replace);
    let (tickets, digits) = (args.tickets, args.digits as usize);
    let lines = sampler
        .take(usize::try_from(count).unwrap_or(usize::MAX))
        .map(move |ticket| {
            if tickets {
                format!(
                    "{} {} {}",
                    ticket.trimmed(digits),
                    ids[ticket.id],
                    ticket.generation
                )
            } else {
                ids[ticket.id].clone()
            }
        });
    Ok((Box::new(lines), consistent::bias()))
}

/// `--compat stake`: cards from its own unlimited 52-card deck.
fn stake_lines(args: &Args, count: u64) -> Result<(Lines, BiasReport), CliError> {
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
    let cards = stake::deal(&seed, client, args.nonce, count).map(stake::card);
    Ok((Box::new(cards), stake::bias()))
}

/// Where the derived lines and the published file first differ: the
/// number of equal lines before it, our line and theirs (`None` where a
/// side ended first); `None` when they agree throughout.
type Difference = (u64, Option<String>, Option<String>);

/// Line by line against the published file: the first difference (a line
/// that differs, or one side ending first) decides.
fn first_difference(lines: Lines, expected: &str) -> (u64, Option<Difference>) {
    let mut published = expected.lines();
    let mut derived_count: u64 = 0;
    let mut first_difference = None;
    for line in lines {
        match published.next() {
            Some(theirs) if theirs == line => derived_count += 1,
            theirs => {
                first_difference = Some((derived_count, Some(line), theirs.map(str::to_owned)));
                break;
            }
        }
    }
    if first_difference.is_none()
        && let Some(theirs) = published.next()
    {
        first_difference = Some((derived_count, None, Some(theirs.to_owned())));
    }
    (derived_count, first_difference)
}

/// `--expect FILE`: compares, writes the verdict and gives its exit status.
fn compare_with_expected(args: &Args, lines: Lines, expected: &str) -> Result<ExitCode, CliError> {
    let (derived_count, first_difference) = first_difference(lines, expected);
    let path = args.expect.as_deref().unwrap_or_default();
    let verdict = match &first_difference {
        None => format!(
            "verified: {path}: the {derived_count} line{} re-derive exactly\n",
            if derived_count == 1 { "" } else { "s" }
        ),
        Some((at, ours, theirs)) => format!(
            "does not verify: {path}: line {} re-derives as {:?}, the file has {:?}\n",
            at + 1,
            ours.as_deref().unwrap_or("(nothing)"),
            theirs.as_deref().unwrap_or("(nothing)")
        ),
    };
    // A verdict that cannot be written is trouble (2), not a verdict.
    write_stdout(&verdict).map_err(|e| e.with_status(USAGE))?;
    Ok(match first_difference {
        None => ExitCode::SUCCESS,
        Some(_) => ExitCode::from(1),
    })
}
