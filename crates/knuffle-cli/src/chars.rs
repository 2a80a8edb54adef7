//! `knuffle chars`: shuffle the characters (or words) of strings (the VBA string shuffle,
//! "Visual Basic for Applications/The Knuth String Shuffle", Wikibooks).
//!
//! By default the units are extended grapheme clusters (Unicode UAX #29),
//! so accents, flags and emoji stay whole (`knuffle::text::shuffle_graphemes`);
//! `--chars` shuffles code points, `--words` whitespace-separated words with
//! the whitespace left in place. Strings come from the arguments, or one per
//! line from standard input.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Read, Write};
use std::process::ExitCode;

use clap::Parser;
use unicode_segmentation::UnicodeSegmentation;

use crate::emit;
use crate::failure::{CliError, os_error_text};
use crate::seeding::RunSeed;

const ABOUT: &str = "Shuffle the characters (or words) of strings";

const LONG_ABOUT: &str = "\
Shuffle the characters (or words) of strings: each STRING argument, or each line of
standard input when no STRING is given.

Characters are grapheme clusters (what a reader sees as one character), so an accent,
a flag or a family emoji is never broken apart. Every order is exactly equally likely
(Durstenfeld's Fisher-Yates shuffle with unbiased draws from ChaCha20).

Standard input: every line is shuffled on its own, as it arrives (one line in, one line
out: `yes | knuffle chars | head -1` prints at once); output is flushed after each line
on a terminal or pipe. Memory is bounded by the longest line, at most --max-line bytes
(default 64 MiB): a longer line, or a line that is not UTF-8, stops the run with an
error (status 1) after the lines before it. Line endings (LF or CRLF) and a missing
final newline are kept. A string of 0 or 1 characters is printed unchanged (not an
error; --verbose says so). Time and memory are linear in the line's length.";

const EXAMPLES: &str = "\
Examples:
  knuffle chars ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789   one shuffled version
  knuffle chars --count 5 ABCDEFGHIJKLMNOPQRSTUVWXYZ   five versions, one per line
  knuffle chars 'Crème brûlée 🇳🇱'                      accents and flags stay whole
  knuffle chars --words 'the quick brown fox'          shuffle words, not letters
  printf 'abc\\ndef\\n' | knuffle chars                  each input line shuffled
  knuffle chars --seed demo hello                      replayable: the same every time

Exit status: 0 success, 1 read/write error, a line longer than --max-line or not UTF-8,
2 invalid arguments.";

#[derive(Parser, Debug)]
#[command(
    name = "knuffle chars",
    bin_name = "knuffle chars",
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = EXAMPLES,
    disable_version_flag = true
)]
pub(crate) struct Args {
    /// Shuffled versions to print of each string.
    #[arg(short = 'n', long, value_name = "N", default_value_t = 1)]
    count: u64,

    /// Shuffle Unicode code points instead of grapheme clusters (may detach accents).
    #[arg(long, conflicts_with = "words")]
    chars: bool,

    /// Shuffle whitespace-separated words; the whitespace stays where it was.
    #[arg(short, long)]
    words: bool,

    /// Seed text (any text); the same seed gives the same output.
    #[arg(long, value_name = "TEXT")]
    seed: Option<String>,

    /// Print the seed, and a note for strings too short to shuffle, on standard error.
    #[arg(short, long)]
    verbose: bool,

    /// Refuse a seed that cannot reach every order of the longest string (on standard
    /// input: stop at the first line too long for the seed).
    #[arg(long)]
    strict: bool,

    /// Longest line of standard input accepted, in bytes (suffixes K, M, G: 1024-based);
    /// a longer line stops the run with an error (status 1), so memory stays bounded.
    #[arg(long, value_name = "SIZE", default_value = "64M")]
    max_line: String,

    /// Strings to shuffle (default: each line of standard input).
    #[arg(value_name = "STRING")]
    strings: Vec<String>,
}

/// What is shuffled.
#[derive(Clone, Copy)]
enum Unit {
    Grapheme,
    Char,
    Word,
}

impl Unit {
    fn plural(self) -> &'static str {
        match self {
            Unit::Grapheme => "characters",
            Unit::Char => "code points",
            Unit::Word => "words",
        }
    }
}

/// Runs `knuffle chars` with the arguments after `chars`.
pub fn run(args: &[OsString]) -> Result<ExitCode, CliError> {
    let args: Args = emit::parse("knuffle chars", args)?;
    let unit = if args.words {
        Unit::Word
    } else if args.chars {
        Unit::Char
    } else {
        Unit::Grapheme
    };
    let max_line = match knuffle_io::parse_size(&args.max_line) {
        Ok(size) if size >= 1 => size,
        _ => {
            return Err(CliError::invalid(format!(
                "invalid --max-line size: '{}' (a size such as 4096, 64K, 64M or 1G)",
                args.max_line
            )));
        }
    };
    let seed = RunSeed::choose(args.seed.clone());
    let mut shuffler = Shuffler {
        unit,
        count: args.count,
        verbose: args.verbose,
        strict: args.strict,
        seed_checked_up_to: 1,
        rng: seed.rng(),
        seed,
        mixed: String::new(),
        flush_each_line: emit::stdout_is_interactive_or_pipe(),
    };
    if args.verbose {
        eprintln!("knuffle chars: seed: {}", shuffler.seed.quoted());
    }
    // A reader that goes away ends the run quietly.
    emit::end_quietly_on_closed_pipe();
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let result = if args.strings.is_empty() {
        shuffle_stdin_lines(&mut shuffler, max_line, &mut out)
    } else {
        shuffle_arguments(&mut shuffler, &args.strings, &mut out)
    };
    let flushed = out.flush().map_err(write_error);
    result.and(flushed)?;
    Ok(ExitCode::SUCCESS)
}

/// The state of a run: the seed, its generator, and a reused output buffer.
struct Shuffler {
    unit: Unit,
    count: u64,
    verbose: bool,
    strict: bool,
    /// Every string of up to this many units has had its reach checked.
    seed_checked_up_to: usize,
    seed: RunSeed,
    rng: knuffle::DefaultRng,
    mixed: String,
    flush_each_line: bool,
}

impl Shuffler {
    /// Checks (once per new longest string) that the seed reaches every
    /// order of `units` units: a warning, or with `--strict` a refusal.
    fn check_reach(&mut self, units: usize) -> Result<(), CliError> {
        if units <= self.seed_checked_up_to {
            return Ok(());
        }
        self.seed_checked_up_to = units;
        let what = format!("a string of {units} {}", self.unit.plural());
        self.seed
            .announce_reach("chars", units as u64, &what, self.strict)?;
        if self.verbose {
            eprintln!("knuffle chars: {}", self.seed.describe_reach(units as u64));
        }
        Ok(())
    }

    /// Writes `--count` shuffled versions of `text`, each followed by
    /// `ending`; `origin` names the string in notes and errors.
    fn shuffle_one(
        &mut self,
        text: &str,
        ending: &[u8],
        origin: &str,
        out: &mut impl Write,
    ) -> Result<(), CliError> {
        let units = units_in(text, self.unit);
        self.check_reach(units)?;
        if units < 2 && self.verbose {
            eprintln!(
                "knuffle chars: {origin} has {units} {}: printed unchanged",
                if units == 1 {
                    self.unit.plural().trim_end_matches('s')
                } else {
                    self.unit.plural()
                }
            );
        }
        for _ in 0..self.count {
            self.mixed.clear();
            match self.unit {
                Unit::Grapheme => {
                    knuffle::text::shuffle_graphemes_into(text, &mut self.rng, &mut self.mixed)
                }
                Unit::Char => self
                    .mixed
                    .push_str(&knuffle::text::shuffle_chars(text, &mut self.rng)),
                Unit::Word => self.mixed.push_str(&shuffle_words(text, &mut self.rng)),
            }
            out.write_all(self.mixed.as_bytes())
                .and_then(|()| out.write_all(ending))
                .map_err(write_error)?;
        }
        if self.flush_each_line {
            out.flush().map_err(write_error)?;
        }
        Ok(())
    }
}

/// Shuffles each STRING argument.
fn shuffle_arguments(
    shuffler: &mut Shuffler,
    strings: &[String],
    out: &mut impl Write,
) -> Result<(), CliError> {
    // The longest argument is checked first, so that a refusal comes
    // before any output.
    let longest = strings
        .iter()
        .map(|text| units_in(text, shuffler.unit))
        .max()
        .unwrap_or(0);
    shuffler.check_reach(longest)?;
    for (i, text) in strings.iter().enumerate() {
        shuffler.shuffle_one(text, b"\n", &format!("argument {}", i + 1), out)?;
    }
    Ok(())
}

/// Shuffles standard input line by line, as it arrives: one line is read,
/// its versions written (and flushed on a terminal or pipe), then the next
/// line. Memory is bounded by `max_line` (the longest line's content, in
/// bytes). Line endings (`\n`, `\r\n`, or none for a last line without
/// newline) are kept.
fn shuffle_stdin_lines(
    shuffler: &mut Shuffler,
    max_line: u64,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprintln!("knuffle chars: reading lines from standard input (end with Ctrl-D)");
    }
    let mut reader = BufReader::with_capacity(1 << 16, stdin.lock());
    let mut line = Vec::new();
    let mut number: u64 = 0;
    loop {
        line.clear();
        number += 1;
        // At most the content, `\r` and `\n`: one byte more means too long.
        let read = (&mut reader)
            .take(max_line.saturating_add(2))
            .read_until(b'\n', &mut line)
            .map_err(|err| {
                CliError::plain(format!(
                    "cannot read standard input: {}",
                    os_error_text(&err)
                ))
            })?;
        if read == 0 {
            return Ok(());
        }
        let (content, ending): (&[u8], &[u8]) = match line.strip_suffix(b"\n") {
            Some(rest) => match rest.strip_suffix(b"\r") {
                Some(rest) => (rest, b"\r\n"),
                None => (rest, b"\n"),
            },
            None => (&line, b""),
        };
        if content.len() as u64 > max_line {
            return Err(CliError::plain(format!(
                "line {number} of standard input is longer than --max-line ({}); \
                 lines before it were printed",
                describe_size(max_line)
            )));
        }
        let text = std::str::from_utf8(content).map_err(|_| {
            CliError::plain(format!(
                "line {number} of standard input is not valid UTF-8; lines before it \
                 were printed"
            ))
        })?;
        shuffler.shuffle_one(text, ending, &format!("line {number}"), out)?;
    }
}

/// `size` bytes for a message: "67108864 bytes = 64 MiB".
fn describe_size(size: u64) -> String {
    const UNITS: [(u32, &str); 3] = [(30, "GiB"), (20, "MiB"), (10, "KiB")];
    for (shift, name) in UNITS {
        if size >= 1 << shift && size.is_multiple_of(1 << shift) {
            return format!("{size} bytes = {} {name}", size >> shift);
        }
    }
    format!("{size} bytes")
}

/// A failed write to standard output (a closed pipe never gets here: it
/// ends the process).
fn write_error(err: std::io::Error) -> CliError {
    CliError::write(&err)
}

/// How many units `text` has.
fn units_in(text: &str, unit: Unit) -> usize {
    match unit {
        Unit::Grapheme => text.graphemes(true).count(),
        Unit::Char => text.chars().count(),
        Unit::Word => text.split_whitespace().count(),
    }
}

/// The words of `text` in uniformly random order, each whitespace run left
/// exactly where it was (`"  a\tb c "` keeps its two leading spaces, the
/// tab and the trailing space).
fn shuffle_words<R: knuffle::rand_core::Rng + ?Sized>(text: &str, rng: &mut R) -> String {
    let mut words: Vec<&str> = text.split_whitespace().collect();
    knuffle::shuffle(&mut words, rng);
    let mut next_word = words.into_iter();
    let mut out = String::with_capacity(text.len());
    let mut in_word = false;
    for c in text.chars() {
        if c.is_whitespace() {
            out.push(c);
            in_word = false;
        } else if !in_word {
            out.push_str(next_word.next().expect("as many words as word starts"));
            in_word = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_move_and_whitespace_stays() {
        let mut rng = knuffle::Seed::from_text("words").rng();
        for _ in 0..20 {
            let mixed = shuffle_words("  one\ttwo  three four ", &mut rng);
            let spaces: Vec<usize> = mixed
                .char_indices()
                .filter(|(_, c)| c.is_whitespace())
                .map(|(i, _)| i)
                .collect();
            assert!(mixed.starts_with("  ") && mixed.ends_with(' '), "{mixed:?}");
            assert_eq!(mixed.len(), "  one\ttwo  three four ".len());
            assert_eq!(spaces.len(), 7, "{mixed:?}");
            let mut words: Vec<&str> = mixed.split_whitespace().collect();
            words.sort();
            assert_eq!(words, ["four", "one", "three", "two"]);
        }
        assert_eq!(shuffle_words("", &mut rng), "");
        assert_eq!(shuffle_words("   ", &mut rng), "   ");
    }
}
