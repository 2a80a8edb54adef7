//! `knuffle trace`: the step table of the 52-card deal write-up for any algorithm of the zoo.
//!
//! The run is recorded by `knuffle_lab::steps::record` (every draw with the
//! word it came from, rejected words, swaps and notes); this module only
//! parses the arguments and renders the table.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::process::ExitCode;

use clap::Parser;
use knuffle::cards::Deck;
use knuffle_lab::steps::{Source, Step, Trace, record};
use knuffle_lab::zoo::{Algorithm, Fairness};

use crate::emit::{self, ColorWhen, write_stdout};
use crate::failure::CliError;
use crate::seeding::RunSeed;

const ABOUT: &str =
    "Show a shuffle step by step: each random number, the offset it becomes, each swap";

const LONG_ABOUT: &str = "\
Show a shuffle step by step, as the 52-card deal write-up's table does: for each
step, the 64-bit random number drawn, the bound, the offset it becomes, the swap, and the values after the step with
the swapped pair highlighted (colour on a terminal, [brackets] otherwise). A self-swap
(an item swapped with itself) is shown as such: it changes nothing.

Offsets are exactly unbiased: offset = (number × bound) >> 64, the high half of the
128-bit product (Lemire's method); a number whose low half falls in the short biased
zone is rejected and redrawn (shown as a note). 'word' is a fresh 64-bit word from the
generator (ChaCha20 keyed with SHA-256 of the seed text); 'low' is the low half left by
the previous multiplication: knuffle serves several small bounds from one word (batched
draws, Brackett-Rozinsky & Lemire 2024). The trace draws exactly as the library does, so
`--algorithm fisher-yates` ends in the same order as knuffle::shuffle with the same seed,
and as `knuffle -e ITEM... --seed TEXT`.

--algorithm traces any algorithm of the bias lab's zoo, fair or biased, so you can watch
where e.g. the naive swap goes wrong (`knuffle trace --list` describes them all).";

const EXAMPLES: &str = "\
Examples:
  knuffle trace                                  Durstenfeld's shuffle of 0..7
  knuffle trace --seed demo                      the same table every time
  knuffle trace --algorithm naive-swap           the classic biased shuffle, step by step
  knuffle trace --algorithm sattolo --numbers 5  Sattolo's cyclic permutation of 0..4
  knuffle trace --deck --ascii                   a 52-card deck (AS TH ...)
  knuffle trace red green blue yellow            your own items
  knuffle trace --list                           every algorithm, with its fairness

Exit status: 0 success, 1 write error, 2 invalid arguments.";

/// The largest list `trace` draws (the table has one column per item).
const MAX_ITEMS: usize = 1000;

#[derive(Parser, Debug)]
#[command(
    name = "knuffle trace",
    bin_name = "knuffle trace",
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = EXAMPLES,
    disable_version_flag = true
)]
pub(crate) struct Args {
    /// The algorithm (see --list); `naive` is naive-swap, `durstenfeld` fisher-yates.
    #[arg(short, long, value_name = "NAME", default_value = "fisher-yates",
          value_parser = parse_algorithm)]
    algorithm: Algorithm,

    /// List the algorithms with their fairness and exit.
    #[arg(long)]
    list: bool,

    /// Trace the numbers 0..N-1 (how many items the traced deck has).
    #[arg(short = 'n', long = "numbers", alias = "size", value_name = "N", default_value_t = 8,
          conflicts_with_all = ["deck", "items"],
          value_parser = clap::value_parser!(u64).range(0..=MAX_ITEMS as u64))]
    size: u64,

    /// Trace a 52-card deck (2♣ … A♠).
    #[arg(long, conflicts_with = "items")]
    deck: bool,

    /// With --deck: cards in ASCII (AS TH).
    #[arg(long, requires = "deck")]
    ascii: bool,

    /// Seed text (any text); the same seed gives the same table.
    #[arg(long, value_name = "TEXT")]
    seed: Option<String>,

    /// When to highlight with ANSI colour (without colour, square brackets
    /// mark the swapped pair).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    color: ColorWhen,

    /// Refuse a seed that cannot reach every order of the items.
    #[arg(long)]
    strict: bool,

    /// Items to shuffle (default: 0..7).
    #[arg(value_name = "ITEM")]
    items: Vec<String>,
}

fn parse_algorithm(name: &str) -> Result<Algorithm, String> {
    let canonical = match name {
        "naive" => "naive-swap",
        "durstenfeld" | "knuth" | "fy" => "fisher-yates",
        other => other,
    };
    Algorithm::from_name(canonical).ok_or_else(|| {
        let names: Vec<&str> = Algorithm::all().iter().map(|a| a.name()).collect();
        format!("unknown algorithm (expected one of: {})", names.join(", "))
    })
}

/// Runs `knuffle trace` with the arguments after `trace`.
pub fn run(args: &[OsString]) -> Result<ExitCode, CliError> {
    let args: Args = emit::parse("knuffle trace", args)?;
    if args.list {
        write_stdout(&list_algorithms())?;
        return Ok(ExitCode::SUCCESS);
    }
    let labels: Vec<String> = if args.deck {
        Deck::standard()
            .iter()
            .map(|card| {
                if args.ascii {
                    card.to_ascii()
                } else {
                    card.to_string()
                }
            })
            .collect()
    } else if !args.items.is_empty() {
        args.items.clone()
    } else {
        (0..args.size).map(|i| i.to_string()).collect()
    };
    if labels.len() > MAX_ITEMS {
        let message = format!(
            "{} items is too many to trace (at most {MAX_ITEMS}: the table has a column per item)",
            labels.len()
        );
        return Err(CliError::invalid(message));
    }
    let seed = RunSeed::choose(args.seed.clone());
    let what = format!("{} items", labels.len());
    seed.announce_reach("trace", labels.len() as u64, &what, args.strict)?;
    let color = args.color.enabled();
    let trace = record(args.algorithm, labels.len(), seed.rng());
    let table = render(args.algorithm, &seed, &labels, &trace, color);
    write_stdout(&table)?;
    Ok(ExitCode::SUCCESS)
}

fn list_algorithms() -> String {
    let width = Algorithm::all()
        .iter()
        .map(|a| a.name().len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for algorithm in Algorithm::all() {
        let _ = writeln!(
            out,
            "{:<width$}  {}: {}",
            algorithm.name(),
            algorithm.fairness().label(),
            algorithm.description()
        );
    }
    out
}

/// A value cell: `[v]` or ` v ` (brackets), or the value in reverse video.
/// Numbers are right-aligned, other labels left-aligned.
fn cell(label: &str, width: usize, highlight: bool, color: bool) -> String {
    let pad = " ".repeat(width.saturating_sub(label.chars().count()));
    let padded = if label.bytes().all(|b| b.is_ascii_digit()) {
        format!("{pad}{label}")
    } else {
        format!("{label}{pad}")
    };
    match (highlight, color) {
        (false, _) => format!(" {padded} "),
        (true, false) => format!("[{padded}]"),
        (true, true) => format!(" \x1b[1;7m{padded}\x1b[0m "),
    }
}

fn values_line(
    labels: &[String],
    order: &[usize],
    marked: &BTreeSet<usize>,
    width: usize,
    color: bool,
) -> String {
    order
        .iter()
        .enumerate()
        .map(|(position, &item)| cell(&labels[item], width, marked.contains(&position), color))
        .collect::<Vec<_>>()
        .join("")
}

/// The notes under a step: its rejected words first, then the algorithm's
/// own notes.
fn step_notes(step: &Step) -> Vec<String> {
    let rejected = step.draw.iter().flat_map(|draw| &draw.rejected);
    rejected
        .map(|word| match word {
            Some(w) => format!(
                "rejected 0x{w:016x}: its low half fell in the biased zone, so a new word was drawn"
            ),
            None => "the generator was also used for other output".to_owned(),
        })
        .chain(step.notes.iter().cloned())
        .collect()
}

fn swap_text(swaps: &[(usize, usize)]) -> String {
    match swaps {
        [] => "no swap".to_owned(),
        [(i, j)] if i == j => format!("{i} ↔ {j} (self-swap: no change)"),
        [(i, j)] => format!("{i} ↔ {j}"),
        [(a, b), (c, d)] => format!("{a} ↔ {b}, {c} ↔ {d}"),
        more => format!("{} swaps", more.len()),
    }
}

fn fairness_text(algorithm: Algorithm, n: usize) -> String {
    match algorithm.fairness() {
        Fairness::Uniform => format!(
            "fair: every one of the {n}! orders is exactly equally likely (given a perfect generator)"
        ),
        Fairness::UniformUpToTies => {
            "fair except for ties between random keys (see the description)".to_owned()
        }
        Fairness::UniformOverCycles => format!(
            "not a fair shuffle: only the ({n}-1)! single-cycle orders can occur, each equally likely"
        ),
        Fairness::Biased => format!(
            "BIASED: some of the {n}! orders are more likely than others (`knuffle lab` measures how much)"
        ),
    }
}

fn render(
    algorithm: Algorithm,
    seed: &RunSeed,
    labels: &[String],
    trace: &Trace,
    color: bool,
) -> String {
    let mut out = header(algorithm, seed, labels.len());
    let table = Table::of(labels, trace, color);
    table.write(&mut out);
    out.push('\n');
    out.push_str(&summary(labels, trace, &table.counts));
    out
}

/// The lines above the table: the algorithm, the seed, its source and
/// fairness, and how an offset is made.
fn header(algorithm: Algorithm, seed: &RunSeed, n: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "knuffle trace: {} on {n} item{}, seed: {}",
        algorithm.name(),
        if n == 1 { "" } else { "s" },
        seed.quoted()
    );
    let _ = writeln!(out, "  {}", algorithm.description());
    let _ = writeln!(out, "  source: {}", algorithm.source());
    let _ = writeln!(out, "  {}", fairness_text(algorithm, n));
    let _ = writeln!(
        out,
        "  offset = (number × bound) >> 64; number: 'word' = fresh 64-bit word, 'low' = low half left by the previous draw"
    );
    out.push('\n');
    out
}

/// What the last line counts.
#[derive(Default, Clone, Copy)]
struct Counts {
    draws: usize,
    swaps: usize,
    self_swaps: usize,
}

/// The step table: for each row, its five text columns (step, number,
/// bound, offset, swap), the values after it (`None`: a row of notes
/// only) and its notes.
struct Table {
    rows: Vec<[String; 5]>,
    values: Vec<Option<String>>,
    notes: Vec<Vec<String>>,
    counts: Counts,
}

impl Table {
    /// The table of `trace`: a heading row, the start, then each step.
    fn of(labels: &[String], trace: &Trace, color: bool) -> Table {
        let width = labels
            .iter()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(1)
            .max(1);
        let mut table = Table {
            rows: Vec::new(),
            values: Vec::new(),
            notes: Vec::new(),
            counts: Counts::default(),
        };
        table.push(
            [
                "step".into(),
                "random number".into(),
                "× bound".into(),
                "= offset".into(),
                "swap".into(),
            ],
            Some("values after the step".into()),
            Vec::new(),
        );
        let start: Vec<usize> = (0..labels.len()).collect();
        table.push(
            [
                "start".into(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ],
            Some(values_line(labels, &start, &BTreeSet::new(), width, color)),
            Vec::new(),
        );
        let mut number = 0;
        for step in &trace.steps {
            let Some(after) = &step.after else {
                table.push(Default::default(), None, step.notes.clone());
                continue;
            };
            number += 1;
            table.counts.count(step);
            let marked: BTreeSet<usize> = step.swaps.iter().flat_map(|&(i, j)| [i, j]).collect();
            let [random, bound, offset] = draw_columns(step);
            table.push(
                [
                    number.to_string(),
                    random,
                    bound,
                    offset,
                    swap_text(&step.swaps),
                ],
                Some(values_line(labels, after, &marked, width, color)),
                step_notes(step),
            );
        }
        table
    }

    fn push(&mut self, row: [String; 5], values: Option<String>, notes: Vec<String>) {
        self.rows.push(row);
        self.values.push(values);
        self.notes.push(notes);
    }

    /// Writes the rows, columns padded to their widest text (the step
    /// number right-aligned), each followed by its notes.
    fn write(&self, out: &mut String) {
        let widths: Vec<usize> = (0..5)
            .map(|c| {
                self.rows
                    .iter()
                    .map(|r| r[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for ((row, value), row_notes) in self.rows.iter().zip(&self.values).zip(&self.notes) {
            if let Some(value) = value {
                out.push_str(row_line(row, &widths, value).trim_end());
                out.push('\n');
            }
            for note in row_notes {
                let _ = writeln!(out, "{}  · {note}", " ".repeat(widths[0]));
            }
        }
    }
}

impl Counts {
    /// Counts the draw and swaps of a step that moved the values.
    fn count(&mut self, step: &Step) {
        if step.draw.is_some() {
            self.draws += 1;
        }
        self.swaps += step.swaps.len();
        self.self_swaps += step.swaps.iter().filter(|(i, j)| i == j).count();
    }
}

/// The number, bound and offset columns of a step (empty without a draw).
fn draw_columns(step: &Step) -> [String; 3] {
    let Some(draw) = &step.draw else {
        return [String::new(), String::new(), String::new()];
    };
    let random = match draw.number {
        Some((word, Source::Word)) => format!("0x{word:016x} word"),
        Some((low, Source::Low)) => format!("0x{low:016x} low"),
        None => "(not shown)".to_owned(),
    };
    [
        random,
        format!("× {}", draw.bound),
        format!("= {}", draw.value),
    ]
}

/// One table line: the columns padded to `widths`, then the values.
fn row_line(row: &[String; 5], widths: &[usize], value: &str) -> String {
    let mut line = String::new();
    for (c, text) in row.iter().enumerate() {
        let pad = widths[c] - text.chars().count();
        if c == 0 {
            let _ = write!(line, "{}{text}  ", " ".repeat(pad));
        } else {
            let _ = write!(line, "{text}{}  ", " ".repeat(pad));
        }
    }
    line.push_str(value);
    line
}

/// The lines below the table: the order reached, then the counts.
fn summary(labels: &[String], trace: &Trace, counts: &Counts) -> String {
    let Counts {
        draws,
        swaps,
        self_swaps,
    } = *counts;
    let mut out = String::new();
    let result: Vec<&str> = trace.result.iter().map(|&i| labels[i].as_str()).collect();
    let _ = writeln!(out, "result: {}", result.join(" "));
    let _ = writeln!(
        out,
        "{draws} draw{} from {} random word{}, {swaps} swap{}{}",
        if draws == 1 { "" } else { "s" },
        trace.words,
        if trace.words == 1 { "" } else { "s" },
        if swaps == 1 { "" } else { "s" },
        match self_swaps {
            0 => String::new(),
            1 => " (1 self-swap)".to_owned(),
            k => format!(" ({k} self-swaps)"),
        }
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_zoo_algorithm_can_be_traced() {
        for &algorithm in Algorithm::all() {
            let trace = record(algorithm, 5, knuffle::Seed::from_text("all").rng());
            let mut sorted = trace.result.clone();
            sorted.sort();
            assert_eq!(sorted, vec![0, 1, 2, 3, 4], "{algorithm}");
            let labels: Vec<String> = (0..5).map(|i| i.to_string()).collect();
            let seed = RunSeed::choose(Some("all".into()));
            let table = render(algorithm, &seed, &labels, &trace, false);
            assert!(table.contains("result: "), "{algorithm}");
        }
    }
}
