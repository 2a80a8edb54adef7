//! `knuffle chars`: shuffle the characters (or words) of strings (the VBA string shuffle,
//! "Visual Basic for Applications/The Knuth String Shuffle", Wikibooks).
//!
//! By default the units are extended grapheme clusters (Unicode UAX #29),
//! so accents, flags and emoji stay whole (`knuffle::text::shuffle_graphemes`);
//! `--chars` shuffles code points, `--words` whitespace-separated words with
//! the whitespace left in place. Strings come from the arguments, or one per
//! line from standard input.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;

use clap::Parser;
use unicode_segmentation::UnicodeSegmentation;

use crate::emit::{self, IO_FAILURE, fail};
use crate::seeding::RunSeed;

const ABOUT: &str = "Shuffle the characters (or words) of strings";

const LONG_ABOUT: &str = "\
Shuffle the characters (or words) of strings: each STRING argument, or each line of
standard input when no STRING is given.

Characters are grapheme clusters (what a reader sees as one character), so an accent,
a flag or a family emoji is never broken apart. Every order is exactly equally likely
(Durstenfeld's Fisher-Yates shuffle with unbiased draws from ChaCha20).

Standard input: every line is shuffled on its own; line endings (LF or CRLF) and a
missing final newline are kept, so the output has exactly the input's lines. A string
of 0 or 1 characters is printed unchanged (not an error; --verbose says so).";

const EXAMPLES: &str = "\
Examples:
  knuffle chars ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789   one shuffled version
  knuffle chars --count 5 ABCDEFGHIJKLMNOPQRSTUVWXYZ   five versions, one per line
  knuffle chars 'Crème brûlée 🇳🇱'                      accents and flags stay whole
  knuffle chars --words 'the quick brown fox'          shuffle words, not letters
  printf 'abc\\ndef\\n' | knuffle chars                  each input line shuffled
  knuffle chars --seed demo hello                      replayable: the same every time

Exit status: 0 success, 1 read/write error or input that is not UTF-8, 2 invalid arguments.";

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

    /// Refuse a seed that cannot reach every order of the longest string.
    #[arg(long)]
    strict: bool,

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

/// One string to shuffle, with the line ending it came with.
struct Piece {
    text: String,
    ending: &'static str,
    origin: String,
}

/// Runs `knuffle chars` with the arguments after `chars`.
pub fn run(args: &[OsString]) -> ExitCode {
    let args: Args = match emit::parse("knuffle chars", args) {
        Ok(args) => args,
        Err(code) => return code,
    };
    let unit = if args.words {
        Unit::Word
    } else if args.chars {
        Unit::Char
    } else {
        Unit::Grapheme
    };
    let pieces = if args.strings.is_empty() {
        match read_stdin_lines() {
            Ok(pieces) => pieces,
            Err(message) => return fail("chars", &message, IO_FAILURE),
        }
    } else {
        args.strings
            .iter()
            .enumerate()
            .map(|(i, text)| Piece {
                text: text.clone(),
                ending: "\n",
                origin: format!("argument {}", i + 1),
            })
            .collect()
    };

    let seed = RunSeed::choose(args.seed.clone());
    let longest = pieces
        .iter()
        .map(|piece| units_in(&piece.text, unit))
        .max()
        .unwrap_or(0);
    let what = format!("a string of {longest} {}", unit.plural());
    if let Err(code) = seed.announce_reach("chars", longest as u64, &what, args.strict) {
        return code;
    }
    if args.verbose {
        eprintln!("knuffle chars: seed: {}", seed.quoted());
        if longest >= 2 {
            eprintln!("knuffle chars: {}", seed.describe_reach(longest as u64));
        }
    }

    let mut rng = seed.rng();
    // Each version is written as soon as it is made (`--count` may be
    // huge); a reader that goes away ends the run quietly.
    emit::end_quietly_on_closed_pipe();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    for piece in &pieces {
        let count = units_in(&piece.text, unit);
        if count < 2 && args.verbose {
            eprintln!(
                "knuffle chars: {} has {count} {}: printed unchanged",
                piece.origin,
                if count == 1 {
                    unit.plural().trim_end_matches('s')
                } else {
                    unit.plural()
                }
            );
        }
        for _ in 0..args.count {
            let mixed = match unit {
                Unit::Grapheme => knuffle::text::shuffle_graphemes(&piece.text, &mut rng),
                Unit::Char => knuffle::text::shuffle_chars(&piece.text, &mut rng),
                Unit::Word => shuffle_words(&piece.text, &mut rng),
            };
            if let Err(err) = out
                .write_all(mixed.as_bytes())
                .and_then(|()| out.write_all(piece.ending.as_bytes()))
            {
                return write_error(err);
            }
        }
    }
    match out.flush() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => write_error(err),
    }
}

/// A failed write to standard output (a closed pipe never gets here: it
/// ends the process).
fn write_error(err: std::io::Error) -> ExitCode {
    fail("chars", &format!("write error: {err}"), IO_FAILURE)
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

/// Standard input split into lines, each with its ending (`\n`, `\r\n`, or
/// none for a last line without newline). Fails, before anything is
/// printed, when a line is not UTF-8.
fn read_stdin_lines() -> Result<Vec<Piece>, String> {
    let mut stdin = std::io::stdin().lock();
    if stdin.is_terminal() {
        eprintln!("knuffle chars: reading lines from standard input (end with Ctrl-D)");
    }
    let mut bytes = Vec::new();
    stdin
        .read_to_end(&mut bytes)
        .map_err(|err| format!("cannot read standard input: {err}"))?;
    let mut pieces = Vec::new();
    let mut rest: &[u8] = &bytes;
    let mut number = 0;
    while !rest.is_empty() {
        number += 1;
        let (line, ending, after): (&[u8], &'static str, &[u8]) =
            match rest.iter().position(|&b| b == b'\n') {
                Some(end) if end > 0 && rest[end - 1] == b'\r' => {
                    (&rest[..end - 1], "\r\n", &rest[end + 1..])
                }
                Some(end) => (&rest[..end], "\n", &rest[end + 1..]),
                None => (rest, "", &[]),
            };
        let text = std::str::from_utf8(line).map_err(|_| {
            format!("line {number} of standard input is not valid UTF-8 (nothing was printed)")
        })?;
        pieces.push(Piece {
            text: text.to_owned(),
            ending,
            origin: format!("line {number}"),
        });
        rest = after;
    }
    Ok(pieces)
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
