//! Inputs shared by `draw`, `verify` and `deal --commit/--reveal`:
//! population files, beacon files, `LO-HI` ranges. (Their transcripts and
//! secrets are written by [`knuffle_records::write_file`], the one rule
//! for every file knuffle writes.)

use std::io::Read;

use knuffle_draw::{Beacon, Population};

/// Reads a population: one item per line (`\n`-separated, UTF-8; a final
/// newline is optional); `-` is standard input.
pub fn read_population(path: &str) -> Result<Population, String> {
    let mut bytes = Vec::new();
    let read = if path == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ()))
    };
    let name = if path == "-" { "standard input" } else { path };
    read.map_err(|e| format!("{name}: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "{name}: not UTF-8 text (byte {}): items are text",
            e.utf8_error().valid_up_to()
        )
    })?;
    let body = text.strip_suffix('\n').unwrap_or(&text);
    let items = if text.is_empty() {
        Vec::new()
    } else {
        body.split('\n').map(str::to_owned).collect()
    };
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

/// Reads and checks a drand beacon file (the JSON of `/public/ROUND`).
pub fn read_beacon(path: &str) -> Result<Beacon, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    Beacon::parse(&text).map_err(|e| format!("{path}: {e}"))
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
