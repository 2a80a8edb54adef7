//! Command-line options of shuf mode, parsed exactly like GNU `getopt_long`.
//!
//! Why not clap: GNU shuf's contract is getopt's behaviour and glibc's exact
//! messages (`invalid option -- 'x'`, `option '--h' is ambiguous;
//! possibilities: ...`, `option requires an argument -- 'n'`), option and
//! operand permutation, `--` and `POSIXLY_CORRECT`, bundles such as `-rn3`,
//! unambiguous long prefixes (`--rep`), and errors reported in argument
//! order (the first bad option wins, `--help` wins over later errors). clap
//! reproduces none of that byte for byte, so this small parser does.
//!
//! The flags themselves (names, letters, values, which are GNU's) are the
//! one table in `flags.rs`; this module only reads it. To add a flag: a row
//! there, a field in [`Options`], and a match arm in `apply`.

use std::ffi::{OsStr, OsString};

use knuffle_records::HeadCount;

use super::errors::{CliError, quote};
use super::flags::{FLAGS, Flag, Opt};

/// What the command line asks for.
#[derive(Debug)]
pub enum Command {
    /// `--help`.
    Help,
    /// `--version`.
    Version,
    /// Shuffle with these options.
    Shuffle(Options),
    /// `--generate KIND` (knuffle): the man page or a completion script.
    Generate(OsString),
}

/// Where the input lines come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputSpec {
    /// FILE operands (`-` is standard input); empty means standard input.
    Files(Vec<OsString>),
    /// `-e`: each operand is a line.
    Echo(Vec<OsString>),
    /// `-i LO-HI`: the numbers `lo..=hi`; `hi < lo` is the empty range.
    Range { lo: u64, hi: u64 },
}

/// Parsed shuf-mode options (GNU's plus knuffle's extensions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The input lines.
    pub input: InputSpec,
    /// `-n`: at most this many lines (the record engine's type, carried
    /// as it is to its plan).
    pub head_count: HeadCount,
    /// `-o FILE`.
    pub output: Option<OsString>,
    /// `--random-source FILE`.
    pub random_source: Option<OsString>,
    /// `-r`.
    pub repeat: bool,
    /// The line delimiter: `\n`, or NUL with `-z`.
    pub delimiter: u8,
    /// `--seed TEXT` (knuffle).
    pub seed: Option<String>,
    /// `--header N` (knuffle): the first N lines stay in place at the top.
    pub header: u64,
    /// `--memory SIZE` (knuffle): the memory limit; larger inputs are
    /// shuffled externally.
    pub memory: Option<u64>,
    /// `-T/--temporary-directory DIR` (knuffle): where external mode's
    /// temporary files go.
    pub temp_dir: Option<OsString>,
}

impl Options {
    fn new() -> Self {
        Options {
            input: InputSpec::Files(Vec::new()),
            head_count: HeadCount::All,
            output: None,
            random_source: None,
            repeat: false,
            delimiter: b'\n',
            seed: None,
            header: 0,
            memory: None,
            temp_dir: None,
        }
    }
}

/// Which option set is offered: GNU's exactly (the name `shuf`), or GNU's
/// plus knuffle's extensions and several FILE operands (`knuffle`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Personality {
    /// Invoked as `shuf`: GNU shuf exactly.
    Gnu,
    /// Invoked as `knuffle`.
    Knuffle,
}

/// Parses the arguments after the program name.
///
/// Errors carry GNU's message (without the `program: ` prefix) and whether
/// the "Try '... --help'" hint follows.
pub fn parse(args: &[OsString], personality: Personality) -> Result<Command, CliError> {
    let posixly_correct = std::env::var_os("POSIXLY_CORRECT").is_some();
    let mut parser = Parser {
        args,
        next: 0,
        personality,
        options: Options::new(),
        state: ParseState::default(),
    };
    let mut operands: Vec<OsString> = Vec::new();
    while let Some(arg) = parser.next_arg() {
        let bytes = arg.as_encoded_bytes();
        let command = if bytes == b"--" {
            operands.extend(parser.rest());
            break;
        } else if bytes.len() > 2 && bytes.starts_with(b"--") {
            parser.long_option(&bytes[2..])?
        } else if bytes.len() > 1 && bytes[0] == b'-' {
            parser.short_options(&bytes[1..])?
        } else {
            operands.push(arg.clone());
            if posixly_correct {
                operands.extend(parser.rest());
                break;
            }
            None
        };
        if let Some(command) = command {
            return Ok(command);
        }
    }
    let Parser { options, state, .. } = parser;
    finish(options, state, operands, personality).map(Command::Shuffle)
}

/// The arguments being parsed, and what they said so far.
struct Parser<'a> {
    args: &'a [OsString],
    /// The index of the next argument to read.
    next: usize,
    personality: Personality,
    options: Options,
    state: ParseState,
}

impl<'a> Parser<'a> {
    /// The next argument (an option's value or the next option), if any.
    fn next_arg(&mut self) -> Option<&'a OsString> {
        let arg = self.args.get(self.next)?;
        self.next += 1;
        Some(arg)
    }

    /// Every argument not read yet (operands after `--`, or after the
    /// first operand under `POSIXLY_CORRECT`).
    fn rest(&mut self) -> impl Iterator<Item = OsString> + 'a {
        let rest = &self.args[self.next..];
        self.next = self.args.len();
        rest.iter().cloned()
    }

    /// `--name`, `--name=VALUE` or `--name VALUE` (`body`: after `--`);
    /// a command when the option ends parsing.
    fn long_option(&mut self, body: &[u8]) -> Result<Option<Command>, CliError> {
        let (name, inline_value) = match body.iter().position(|&b| b == b'=') {
            Some(eq) => (&body[..eq], Some(&body[eq + 1..])),
            None => (body, None),
        };
        let found = find_long(name, body, self.personality)?;
        let value = match (found.takes_value(), inline_value) {
            (true, Some(value)) => Some(os(value)),
            (true, None) => Some(self.next_arg().cloned().ok_or_else(|| {
                CliError::usage(format!("option '--{}' requires an argument", found.long))
            })?),
            (false, Some(_)) => {
                return Err(CliError::usage(format!(
                    "option '--{}' doesn't allow an argument",
                    found.long
                )));
            }
            (false, None) => None,
        };
        apply(found.opt, value, &mut self.options, &mut self.state)
    }

    /// A bundle of short options (`-rn3`; `letters`: after `-`); a command
    /// when an option ends parsing.
    fn short_options(&mut self, letters: &[u8]) -> Result<Option<Command>, CliError> {
        let gnu = self.personality == Personality::Gnu;
        let mut pos = 0;
        while pos < letters.len() {
            let letter = letters[pos];
            pos += 1;
            let Some(flag) = FLAGS.iter().find(|f| f.short_letter(gnu) == Some(letter)) else {
                let mut message = b"invalid option -- '".to_vec();
                message.extend([letter, b'\'']);
                return Err(CliError::usage_bytes(message));
            };
            let value = if !flag.takes_value() {
                None
            } else if pos < letters.len() {
                let value = os(&letters[pos..]);
                pos = letters.len();
                Some(value)
            } else {
                Some(self.next_arg().cloned().ok_or_else(|| {
                    CliError::usage(format!(
                        "option requires an argument -- '{}'",
                        letter as char
                    ))
                })?)
            };
            if let Some(command) = apply(flag.opt, value, &mut self.options, &mut self.state)? {
                return Ok(Some(command));
            }
        }
        Ok(None)
    }
}

/// Facts gathered while parsing that the final checks need.
#[derive(Default)]
struct ParseState {
    echo: bool,
    input_range: Option<(u64, u64)>,
}

fn os(bytes: &[u8]) -> OsString {
    // SAFETY: `bytes` is a sub-slice of an `OsStr`'s encoded bytes, split
    // only at ASCII characters ('=' or after a one-byte option letter)
    // or taken whole, which `from_encoded_bytes_unchecked` allows.
    unsafe { OsStr::from_encoded_bytes_unchecked(bytes) }.to_os_string()
}

/// Finds a long option by exact name or unambiguous prefix, as glibc does.
/// `name` is the part before any `=`; `body` the whole argument after `--`,
/// which glibc's messages show (`option '--he=5' is ambiguous`).
fn find_long(
    name: &[u8],
    body: &[u8],
    personality: Personality,
) -> Result<&'static Flag, CliError> {
    let offered = |o: &&Flag| o.gnu || personality == Personality::Knuffle;
    if let Some(exact) = FLAGS
        .iter()
        .filter(offered)
        .find(|o| o.long.as_bytes() == name)
    {
        return Ok(exact);
    }
    // GNU options first: an extension never makes a GNU prefix ambiguous.
    for gnu in [true, false] {
        let matches: Vec<&Flag> = FLAGS
            .iter()
            .filter(offered)
            .filter(|o| o.gnu == gnu && o.long.as_bytes().starts_with(name))
            .collect();
        match matches.as_slice() {
            [] => continue,
            [one] => return Ok(one),
            many => {
                let possibilities: Vec<String> =
                    many.iter().map(|o| format!("'--{}'", o.long)).collect();
                let mut message = b"option '--".to_vec();
                message.extend(body);
                message.extend(b"' is ambiguous; possibilities: ");
                message.extend(possibilities.join(" ").as_bytes());
                return Err(CliError::usage_bytes(message));
            }
        }
    }
    let mut message = b"unrecognized option '--".to_vec();
    message.extend(body);
    message.push(b'\'');
    Err(CliError::usage_bytes(message))
}

/// Applies one option; returns a command when the option ends parsing
/// (`--help`, `--version`).
fn apply(
    opt: Opt,
    value: Option<OsString>,
    options: &mut Options,
    state: &mut ParseState,
) -> Result<Option<Command>, CliError> {
    let value = value.unwrap_or_default();
    match opt {
        Opt::Echo => state.echo = true,
        Opt::InputRange => {
            if state.input_range.is_some() {
                return Err(CliError::plain("multiple -i options specified"));
            }
            state.input_range = Some(parse_range(&value)?);
        }
        Opt::HeadCount => match parse_count(&value) {
            CountParse::Value(count) => options.head_count = options.head_count.and(count),
            // GNU ignores a count too large for size_t: "no limit" is right.
            CountParse::Overflow => {}
            CountParse::Invalid => {
                return Err(CliError::plain(format!(
                    "invalid line count: {}",
                    quote(&value)
                )));
            }
        },
        Opt::Output => {
            if options.output.as_ref().is_some_and(|o| *o != value) {
                return Err(CliError::plain("multiple output files specified"));
            }
            options.output = Some(value);
        }
        Opt::RandomSource => {
            if options.random_source.as_ref().is_some_and(|o| *o != value) {
                return Err(CliError::plain("multiple random sources specified"));
            }
            options.random_source = Some(value);
        }
        Opt::Repeat => options.repeat = true,
        Opt::ZeroTerminated => options.delimiter = 0,
        Opt::Help => return Ok(Some(Command::Help)),
        Opt::Version => return Ok(Some(Command::Version)),
        Opt::Generate => return Ok(Some(Command::Generate(value))),
        Opt::Seed => {
            let text = value.into_string().map_err(|v| {
                CliError::plain(format!(
                    "invalid seed: {} is not valid UTF-8 text",
                    quote(&v)
                ))
            })?;
            if options.seed.as_ref().is_some_and(|s| *s != text) {
                return Err(CliError::plain("multiple seeds specified"));
            }
            options.seed = Some(text);
        }
        Opt::Memory => options.memory = Some(super::memory_option::parse_memory(&value)?),
        Opt::TempDir => options.temp_dir = Some(value),
        Opt::Header => match parse_count(&value) {
            CountParse::Value(n) => options.header = n,
            CountParse::Overflow => options.header = u64::MAX,
            CountParse::Invalid => {
                return Err(CliError::plain(format!(
                    "invalid header line count: {}",
                    quote(&value)
                )));
            }
        },
    }
    Ok(None)
}

/// The checks GNU makes after option parsing, in GNU's order.
fn finish(
    mut options: Options,
    state: ParseState,
    operands: Vec<OsString>,
    personality: Personality,
) -> Result<Options, CliError> {
    if state.echo && state.input_range.is_some() {
        return Err(CliError::usage("cannot combine -e and -i options"));
    }
    let extra = match (state.input_range, state.echo) {
        (Some(_), _) => operands.first(),
        (None, false) if personality == Personality::Gnu => operands.get(1),
        _ => None,
    };
    if let Some(extra) = extra {
        return Err(CliError::usage(format!("extra operand {}", quote(extra))));
    }
    if options.seed.is_some() && options.random_source.is_some() {
        return Err(CliError::usage(
            "--seed and --random-source cannot be combined",
        ));
    }
    options.input = match state.input_range {
        Some((lo, hi)) => {
            if options.header > 0 {
                return Err(CliError::usage("--header cannot be combined with -i"));
            }
            InputSpec::Range { lo, hi }
        }
        None if state.echo => InputSpec::Echo(operands),
        None => InputSpec::Files(operands),
    };
    Ok(options)
}

/// The outcome of GNU's `xstrtoumax (s, NULL, 10, &v, "")`.
#[derive(Debug, PartialEq, Eq)]
pub enum CountParse {
    /// A valid number.
    Value(u64),
    /// Digits only, but more than fits in 64 bits.
    Overflow,
    /// Anything else.
    Invalid,
}

/// Parses a decimal count as GNU's `xstrtoumax` with no suffixes does:
/// leading white space and one `+` are allowed, a `-` (after white space)
/// is invalid, and nothing may follow the digits.
pub fn parse_count(text: &OsStr) -> CountParse {
    let bytes = text.as_encoded_bytes();
    let mut pos = bytes.iter().take_while(|b| is_c_space(**b)).count();
    if bytes.get(pos) == Some(&b'-') {
        return CountParse::Invalid;
    }
    if bytes.get(pos) == Some(&b'+') {
        pos += 1;
    }
    let digits = &bytes[pos..];
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return CountParse::Invalid;
    }
    let mut value: u64 = 0;
    let mut overflow = false;
    for &d in digits {
        match value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d - b'0')))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
    }
    if overflow {
        CountParse::Overflow
    } else {
        CountParse::Value(value)
    }
}

/// `isspace` in the C locale.
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// Parses `-i LO-HI` with GNU's rules and messages: each part must be a
/// valid count (the failing part is quoted), `LO-HI` with `HI = LO - 1` is
/// the empty range, anything else with `HI < LO` (or a range of 2^64
/// numbers) is invalid (the whole argument is quoted).
fn parse_range(text: &OsStr) -> Result<(u64, u64), CliError> {
    let bytes = text.as_encoded_bytes();
    let part = |b: &[u8]| -> Result<u64, CliError> {
        let piece = os(b);
        match parse_count(&piece) {
            CountParse::Value(v) => Ok(v),
            CountParse::Overflow => Err(CliError::plain(format!(
                "invalid input range: {}: Value too large for defined data type",
                quote(&piece)
            ))),
            CountParse::Invalid => Err(CliError::plain(format!(
                "invalid input range: {}",
                quote(&piece)
            ))),
        }
    };
    let invalid = || CliError::plain(format!("invalid input range: {}", quote(text)));
    let Some(dash) = bytes.iter().position(|&b| b == b'-') else {
        // GNU parses the whole argument as HI (so its errors come first),
        // then rejects the missing dash.
        part(bytes)?;
        return Err(invalid());
    };
    let lo = part(&bytes[..dash])?;
    let hi = part(&bytes[dash + 1..])?;
    let count = hi.wrapping_sub(lo).wrapping_add(1);
    // GNU: invalid when (lo <= hi) == (count == 0).
    if (lo <= hi) == (count == 0) {
        return Err(invalid());
    }
    Ok((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    fn shuffle(list: &[&str]) -> Options {
        match parse(&args(list), Personality::Knuffle) {
            Ok(Command::Shuffle(o)) => o,
            other => panic!("{list:?}: {other:?}"),
        }
    }

    fn error(list: &[&str]) -> String {
        match parse(&args(list), Personality::Knuffle) {
            Err(e) => e.message,
            other => panic!("{list:?}: {other:?}"),
        }
    }

    #[test]
    fn bundles_values_and_permutation() {
        let o = shuffle(&["a", "-rn3", "-z", "--head-count=5", "-n", "4", "b"]);
        assert!(o.repeat);
        assert_eq!(o.delimiter, 0);
        assert_eq!(o.head_count, HeadCount::AtMost(3));
        assert_eq!(o.input, InputSpec::Files(args(&["a", "b"])));
        let o = shuffle(&["-e", "x", "--", "-n", "-"]);
        assert_eq!(o.input, InputSpec::Echo(args(&["x", "-n", "-"])));
    }

    #[test]
    fn long_prefixes_prefer_gnu_options() {
        assert!(shuffle(&["--rep"]).repeat);
        assert_eq!(shuffle(&["--head", "7"]).head_count, HeadCount::AtMost(7));
        assert_eq!(shuffle(&["--header", "1"]).header, 1);
        assert_eq!(shuffle(&["--se", "x"]).seed.as_deref(), Some("x"));
        assert_eq!(
            error(&["--h"]),
            "option '--h' is ambiguous; possibilities: '--head-count' '--help'"
        );
        assert_eq!(error(&["--foo"]), "unrecognized option '--foo'");
        // glibc shows the whole argument, `=value` included.
        assert_eq!(
            error(&["--he=5"]),
            "option '--he=5' is ambiguous; possibilities: '--head-count' '--help'"
        );
        assert_eq!(error(&["--x=1"]), "unrecognized option '--x=1'");
        assert!(error(&["--="]).starts_with("option '--=' is ambiguous; possibilities: '--echo'"));
        assert_eq!(
            error(&["--zero="]),
            "option '--zero-terminated' doesn't allow an argument"
        );
        assert_eq!(
            error(&["--ec=1"]),
            "option '--echo' doesn't allow an argument"
        );
        assert_eq!(
            error(&["--head"]),
            "option '--head-count' requires an argument"
        );
        assert_eq!(error(&["-n"]), "option requires an argument -- 'n'");
        assert_eq!(error(&["-x"]), "invalid option -- 'x'");
        // Bytes that are not UTF-8 are shown as given, as glibc does.
        let bad = |arg: &[u8]| {
            use std::os::unix::ffi::OsStrExt;
            let arg = OsStr::from_bytes(arg).to_os_string();
            parse(&[arg], Personality::Gnu)
                .unwrap_err()
                .message_bytes()
                .to_vec()
        };
        assert_eq!(bad(b"--\xff"), b"unrecognized option '--\xff'");
        assert_eq!(bad(b"-\xff"), b"invalid option -- '\xff'");
        assert!(bad(b"--h\xff=1").starts_with(b"unrecognized option '--h\xff=1'"));
    }

    #[test]
    fn gnu_personality_has_no_extensions() {
        let e = parse(&args(&["--seed", "1"]), Personality::Gnu).unwrap_err();
        assert_eq!(e.message, "unrecognized option '--seed'");
        let e = parse(&args(&["a", "b"]), Personality::Gnu).unwrap_err();
        assert!(e.message.starts_with("extra operand"));
    }

    #[test]
    fn counts_follow_xstrtoumax() {
        assert_eq!(parse_count(OsStr::new(" +12")), CountParse::Value(12));
        assert_eq!(parse_count(OsStr::new(" -1")), CountParse::Invalid);
        assert_eq!(parse_count(OsStr::new("3k")), CountParse::Invalid);
        assert_eq!(parse_count(OsStr::new("")), CountParse::Invalid);
        assert_eq!(
            parse_count(OsStr::new("99999999999999999999")),
            CountParse::Overflow
        );
        assert_eq!(
            shuffle(&["-n", "99999999999999999999"]).head_count,
            HeadCount::All
        );
    }

    #[test]
    fn ranges_follow_gnu() {
        assert_eq!(
            shuffle(&["-i", "3-2"]).input,
            InputSpec::Range { lo: 3, hi: 2 }
        );
        assert!(error(&["-i", "5-3"]).contains("5-3"));
        assert!(error(&["-i", "0-18446744073709551615"]).contains("0-18446744073709551615"));
        assert!(error(&["-i", "1-"]).starts_with("invalid input range: "));
        assert!(error(&["-i", "1"]).starts_with("invalid input range: "));
        assert_eq!(error(&["-i1-2", "-i3-4"]), "multiple -i options specified");
        assert!(error(&["-i", "1-2", "x"]).starts_with("extra operand"));
        assert_eq!(error(&["-e", "-i1-2"]), "cannot combine -e and -i options");
    }
}
