//! Inputs shared by `draw`, `verify` and `deal --commit/--reveal`:
//! population files, beacon files, `LO-HI` ranges. (Their transcripts and
//! secrets are written by [`knuffle_io::write_file`], the one rule
//! for every file knuffle writes.)

use std::io::Read;

use knuffle_draw::limits::{DEFAULT_MAX_INPUT_BYTES, human_bytes};
use knuffle_draw::{Beacon, Population};

/// Why an input file could not be used.
#[derive(Debug)]
pub struct InputError {
    /// The message, naming the file.
    pub message: String,
    /// Whether the input itself is bad (too large, not UTF-8, too many
    /// items), rather than unreadable.
    pub bad_input: bool,
}

impl InputError {
    fn unreadable(message: String) -> InputError {
        InputError {
            message,
            bad_input: false,
        }
    }

    fn bad(message: String) -> InputError {
        InputError {
            message,
            bad_input: true,
        }
    }
}

/// Memory per item of a population held in memory, besides its text: the
/// `String` and its allocation (and the copy a draw may make).
const BYTES_PER_POPULATION_ITEM: u64 = 64;

/// Reads at most `max` bytes of `path` (`-`: standard input): a larger file
/// is refused after reading `max + 1` bytes, naming it as `what` ("population
/// file", "transcript", ...).
pub fn read_bounded(path: &str, max: u64, what: &str) -> Result<Vec<u8>, InputError> {
    let name = if path == "-" { "standard input" } else { path };
    let mut bytes = Vec::new();
    let read = if path == "-" {
        std::io::stdin()
            .lock()
            .take(max.saturating_add(1))
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path)
            .and_then(|f| f.take(max.saturating_add(1)).read_to_end(&mut bytes))
    };
    read.map_err(|e| {
        InputError::unreadable(format!("{name}: {}", crate::failure::os_error_text(&e)))
    })?;
    if bytes.len() as u64 > max {
        return Err(InputError::bad(format!(
            "{name}: {what} larger than {} (raise with --max-size)",
            human_bytes(u128::from(max))
        )));
    }
    Ok(bytes)
}

/// Reads a population: one item per line (`\n`-separated, UTF-8; a final
/// newline is optional); `-` is standard input. At most `max` bytes (the
/// `--max-size` limit), and no more items than the memory budget holds.
pub fn read_population(path: &str, max: u64) -> Result<Population, InputError> {
    let name = if path == "-" { "standard input" } else { path };
    let bytes = read_bounded(path, max, "population file")?;
    let text = String::from_utf8(bytes).map_err(|e| {
        InputError::bad(format!(
            "{name}: not UTF-8 text (byte {}): items are text",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let body = text.strip_suffix('\n').unwrap_or(&text);
    let lines = if text.is_empty() {
        0
    } else {
        memchr::memchr_iter(b'\n', body.as_bytes()).count() as u64 + 1
    };
    let needed = u128::from(lines) * u128::from(BYTES_PER_POPULATION_ITEM) + text.len() as u128;
    let budget = knuffle_io::default_limit();
    if needed > u128::from(budget) {
        return Err(InputError::bad(format!(
            "{name}: {lines} items need about {} of memory, more than the {} this run allows",
            human_bytes(needed),
            human_bytes(u128::from(budget))
        )));
    }
    let mut items = Vec::with_capacity(lines as usize);
    if !text.is_empty() {
        for (line, item) in body.split('\n').enumerate() {
            if u32::try_from(item.len()).is_err() {
                return Err(InputError::bad(format!(
                    "{name}: line {} is 4 GiB or longer (an item is at most 4 GiB - 1 bytes)",
                    line + 1
                )));
            }
            items.push(item.to_owned());
        }
    }
    Ok(Population::Items(items))
}

/// Parses `LO-HI` (inclusive, `LO <= HI`).
pub fn parse_range(text: &str) -> Result<Population, String> {
    let bad = || format!("invalid input range {text:?} (expected LO-HI, e.g. 1-100)");
    let (lo, hi) = text.split_once('-').ok_or_else(bad)?;
    let lo: u64 = lo.trim().parse().map_err(|_| bad())?;
    let hi: u64 = hi.trim().parse().map_err(|_| bad())?;
    Population::range(lo, hi).ok_or_else(bad)
}

/// Reads and checks a drand beacon file (the JSON of `/public/ROUND`), of
/// at most 64 MiB.
pub fn read_beacon(path: &str) -> Result<Beacon, String> {
    read_beacon_within(path, DEFAULT_MAX_INPUT_BYTES).map_err(|e| e.message)
}

/// Reads and checks a drand beacon file of at most `max` bytes.
pub fn read_beacon_within(path: &str, max: u64) -> Result<Beacon, InputError> {
    let bytes = read_bounded(path, max, "beacon file")?;
    let text = String::from_utf8(bytes)
        .map_err(|_| InputError::bad(format!("{path}: not UTF-8 text: not a drand beacon file")))?;
    Beacon::parse(&text).map_err(|e| InputError::bad(format!("{path}: {e}")))
}

/// The chain of a beacon: the file's own, which must agree with `--beacon-chain`
/// when both are given; else `--beacon-chain`; else drand's mainnet.
pub fn beacon_chain(beacon: &Beacon, flag: Option<&str>) -> Result<String, String> {
    match (&beacon.chain, flag) {
        (Some(file), Some(flag)) if !file.eq_ignore_ascii_case(flag) => Err(format!(
            "the beacon file is from chain {file}, not {flag} (--beacon-chain)"
        )),
        (Some(file), _) => Ok(file.to_ascii_lowercase()),
        (None, Some(flag)) => Ok(flag.to_ascii_lowercase()),
        (None, None) => Ok(knuffle_draw::DRAND_MAINNET.to_owned()),
    }
}
