//! The bounds that keep a draw or a verification from doing unbounded work
//! on hostile numbers: every count, size and range read from a command line
//! or a file is checked against these before anything is allocated or
//! iterated. `docs/verifiable-draws.md` ("Limits") states them for other
//! verifiers; the reference verifier mirrors them.

use std::fmt;

/// The most items a range population may have: its digest hashes every
/// item (the format defines it so), about a minute for 10^9 items, so a
/// larger range (a transcript claiming `hi = 10^18`) would make a verifier
/// hash for hours or years.
pub const MAX_RANGE_ITEMS: u64 = 1_000_000_000;

/// The default size limit of a file a draw or a verification reads (a
/// transcript, a population file, a beacon file): 64 MiB. `--max-size`
/// changes it.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 64 << 20;

/// Memory per draw without replacement kept while drawing: the moved
/// positions of Fisher-Yates (at most one hash-map entry of two `u64`s per
/// draw, with the map's spare capacity and the copy made while it grows).
pub const PERM_BYTES_PER_DRAW: u64 = 64;

/// Memory per draw recorded in a transcript, besides the item's text: the
/// index, the item's `String`, their vectors' spare capacity, and the JSON
/// text written (the moved positions of a `perm` draw included).
pub const RECORDED_BYTES_PER_DRAW: u64 = 256;

/// Memory per byte of the longest item, per draw recorded in a transcript:
/// the item's copy, its JSON text and the printed output line (with spare
/// capacity).
pub const RECORDED_BYTES_PER_ITEM_BYTE: u64 = 4;

/// A bound that a request exceeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LimitError {
    /// A range population of more than [`MAX_RANGE_ITEMS`] items.
    RangeTooLarge {
        /// Its number of items.
        count: u64,
    },
    /// A draw that needs more memory than the budget.
    TooMuchMemory {
        /// What needs it (e.g. "drawing 10^15 items without replacement").
        what: String,
        /// Bytes needed (at least).
        needed: u128,
        /// Bytes allowed.
        budget: u64,
        /// The largest count that fits, and what to do.
        hint: String,
    },
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitError::RangeTooLarge { count } => write!(
                f,
                "range population of {count} items is larger than the limit of \
                 {MAX_RANGE_ITEMS}: its digest hashes every item, and 10^9 of them take about half a minute"
            ),
            LimitError::TooMuchMemory {
                what,
                needed,
                budget,
                hint,
            } => write!(
                f,
                "{what} needs about {} of memory, more than the {} this run allows; {hint}",
                human_bytes(*needed),
                human_bytes(u128::from(*budget))
            ),
        }
    }
}

impl std::error::Error for LimitError {}

/// A size in bytes for people: `64 MiB`, `8.0 PiB`, `900 bytes`.
pub fn human_bytes(bytes: u128) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut unit = 0;
    let mut scaled = bytes;
    while scaled >= 1024 * 1024 && unit + 1 < UNITS.len() {
        scaled /= 1024;
        unit += 1;
    }
    let whole = scaled / 1024;
    let tenths = (scaled % 1024) * 10 / 1024;
    if whole >= 100 || (tenths == 0 && bytes.is_multiple_of(1u128 << (10 * (unit + 1)))) {
        format!("{whole} {}", UNITS[unit])
    } else {
        format!("{whole}.{tenths} {}", UNITS[unit])
    }
}

/// Checks that a range of `count` items can be digested.
pub fn check_range_items(count: u64) -> Result<(), LimitError> {
    if count > MAX_RANGE_ITEMS {
        return Err(LimitError::RangeTooLarge { count });
    }
    Ok(())
}

/// Checks that `count` things (`unit`: "draws", "ids") of `per_item` bytes
/// each, for `what` (e.g. "drawing 10 items without replacement"), fit in
/// `budget` bytes.
pub fn check_memory(
    what: String,
    count: u64,
    unit: &str,
    per_item: u64,
    budget: u64,
) -> Result<(), LimitError> {
    let needed = u128::from(count) * u128::from(per_item);
    if needed <= u128::from(budget) {
        return Ok(());
    }
    Err(LimitError::TooMuchMemory {
        what,
        needed,
        budget,
        hint: format!(
            "at most {} {unit} fit",
            u128::from(budget) / u128::from(per_item.max(1))
        ),
    })
}

/// Checks that `k` draws without replacement, kept only as the moved
/// positions (the draws themselves streamed out), fit in `budget` bytes.
pub fn check_perm_draws(k: u64, budget: u64) -> Result<(), LimitError> {
    check_memory(
        format!("drawing {k} items without replacement (Fisher-Yates' moved positions)"),
        k,
        "draws",
        PERM_BYTES_PER_DRAW,
        budget,
    )
}

/// Memory per id of `--compat consistent-sampler`, besides the id's text:
/// its ticket (leading 9s, up to 78 digits, id, generation) in the heap, a
/// resumable SHA-256 state once drawn, and the id's `String`.
pub const CONSISTENT_BYTES_PER_ID: u64 = 384;

/// The memory of `k` draws held for a transcript whose longest item has
/// `longest_item` bytes.
pub fn recorded_draws_memory(k: u64, longest_item: u64) -> u128 {
    let per = u128::from(RECORDED_BYTES_PER_DRAW)
        + u128::from(RECORDED_BYTES_PER_ITEM_BYTE) * u128::from(longest_item);
    u128::from(k).saturating_mul(per)
}

/// Memory per item of a population copied into a transcript
/// (`population.items`), besides its text: the copy and its JSON line.
pub const EMBEDDED_BYTES_PER_ITEM: u64 = 96;

/// Memory per byte of the items copied into a transcript: the copy and its
/// JSON text (with spare capacity).
pub const EMBEDDED_BYTES_PER_ITEM_BYTE: u64 = 3;

/// The memory of copying `items` items of `bytes` bytes in all into a
/// transcript.
pub fn embedded_items_memory(items: u64, bytes: u64) -> u128 {
    u128::from(items) * u128::from(EMBEDDED_BYTES_PER_ITEM)
        + u128::from(bytes) * u128::from(EMBEDDED_BYTES_PER_ITEM_BYTE)
}

/// Checks that `k` draws recorded in a transcript (items of at most
/// `longest_item` bytes), besides `embedded` bytes for the population's
/// items copied into it ([`embedded_items_memory`]), fit in `budget` bytes.
pub fn check_recorded_draws(
    k: u64,
    longest_item: u64,
    embedded: u128,
    budget: u64,
) -> Result<(), LimitError> {
    let needed = recorded_draws_memory(k, longest_item).saturating_add(embedded);
    if needed <= u128::from(budget) {
        return Ok(());
    }
    let per = recorded_draws_memory(1, longest_item);
    let room = u128::from(budget).saturating_sub(embedded);
    Err(LimitError::TooMuchMemory {
        what: if embedded > 0 {
            format!("a transcript of {k} draws with the population's items")
        } else {
            format!("a transcript of {k} draws")
        },
        needed,
        budget,
        hint: format!(
            "at most {} draws fit in a transcript{} (without --transcript, --replace streams any \
             number of draws)",
            room / per,
            if embedded > 0 {
                " (--omit-items leaves the items out)"
            } else {
                ""
            }
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_above_the_limit_are_refused() {
        assert_eq!(check_range_items(MAX_RANGE_ITEMS), Ok(()));
        let err = check_range_items(MAX_RANGE_ITEMS + 1).unwrap_err();
        assert_eq!(
            err,
            LimitError::RangeTooLarge {
                count: MAX_RANGE_ITEMS + 1
            }
        );
        assert!(
            err.to_string()
                .contains("larger than the limit of 1000000000")
        );
        assert!(check_range_items(u64::MAX).is_err());
    }

    #[test]
    fn perm_draws_are_bounded_by_the_budget() {
        let budget = 1 << 30;
        assert_eq!(
            check_perm_draws(budget / PERM_BYTES_PER_DRAW, budget),
            Ok(())
        );
        let err = check_perm_draws(budget / PERM_BYTES_PER_DRAW + 1, budget).unwrap_err();
        assert!(
            err.to_string().contains("at most 16777216 draws fit"),
            "{err}"
        );
        // No overflow at the top of u64.
        let err = check_perm_draws(u64::MAX, u64::MAX).unwrap_err();
        assert!(err.to_string().contains("without replacement"), "{err}");
    }

    #[test]
    fn recorded_draws_count_their_items() {
        let budget = 1 << 30;
        let per = RECORDED_BYTES_PER_DRAW + 10 * RECORDED_BYTES_PER_ITEM_BYTE;
        assert_eq!(check_recorded_draws(budget / per, 10, 0, budget), Ok(()));
        assert!(check_recorded_draws(budget / per + 1, 10, 0, budget).is_err());
        // The population's items copied in take their share.
        let embedded = embedded_items_memory(1 << 20, 10 << 20);
        assert_eq!(embedded, (96 << 20) + (30 << 20));
        let err = check_recorded_draws(budget / per, 10, embedded, budget).unwrap_err();
        assert!(err.to_string().contains("--omit-items"), "{err}");
        let err = check_recorded_draws(1, 0, u128::MAX, budget).unwrap_err();
        assert!(err.to_string().contains("at most 0 draws"), "{err}");
        let err = check_recorded_draws(u64::MAX, u64::MAX, 0, 1 << 30).unwrap_err();
        assert!(
            err.to_string()
                .contains("transcript of 18446744073709551615 draws")
        );
        assert!(err.to_string().contains("at most 0 draws"), "{err}");
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human_bytes(900), "900 bytes");
        assert_eq!(human_bytes(64 << 20), "64 MiB");
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
        assert_eq!(human_bytes(8 << 50), "8 PiB");
        assert_eq!(human_bytes(u128::from(u64::MAX) * 64), "1023 EiB");
    }
}
