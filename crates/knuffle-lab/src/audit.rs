//! Auditing shuffles produced by any program: read one shuffle per line,
//! test them, give a verdict.
//!
//! Input: elements separated by spaces, tabs or commas; integers (0- or
//! 1-based, detected or given) or card names ([`crate::cards`]). A line is a
//! full permutation of `n`, or a deal of its first `k` items when the
//! universe size `n` is given. Blank lines are skipped (and counted).
//!
//! ```
//! use knuffle_lab::audit::{audit_text, AuditOptions};
//! let text = "1 2 3\n3 1 2\n2 3 1\n";
//! let report = audit_text(text.as_bytes(), &AuditOptions::default()).unwrap();
//! assert_eq!(report.n, 3);
//! assert_eq!(report.base, Some(1));
//! assert_eq!(report.analysis.trials, 3);
//! ```

use std::collections::HashSet;
use std::fmt;
use std::io::BufRead;

use crate::analysis::{self, Analysis};
use crate::cards;
use crate::stats::DEFAULT_ALPHA;
use crate::tally::Tally;

/// The largest universe size (`--deck-size`, `n`) audited: items are
/// numbered with 32-bit integers, so a larger deck could not be named.
/// Nothing is allocated in proportion to `n`: the tally is binned on a grid
/// of at most [`crate::tally::MAX_GRID`]^2 cells (orders are counted one by
/// one only for `n <= 9`), and repeats are found per line (see
/// [`SeenItems`]).
pub const MAX_DECK_SIZE: u64 = 1 << 32;

/// Checks a universe size before anything is allocated or read for it.
pub fn check_deck_size(n: u64) -> Result<(), String> {
    if n > MAX_DECK_SIZE {
        return Err(format!(
            "the deck size {n} is too large: at most {MAX_DECK_SIZE} items (2^32; items are \
             numbered with 32-bit integers)"
        ));
    }
    Ok(())
}

/// Universe sizes up to this keep one slot per item to find repeats (8
/// MiB); larger ones keep the items of the current line only.
const DENSE_SEEN_MAX: usize = 1 << 20;

/// Which items a shuffle has shown so far: finds an item repeated within
/// one shuffle. Memory is `8 n` bytes for `n <= 2^20`, else proportional
/// to the line (so `n` up to [`MAX_DECK_SIZE`] costs nothing up front).
#[derive(Clone, Debug)]
pub struct SeenItems {
    /// Per item, the last shuffle it appeared in (dense form).
    dense: Vec<u64>,
    /// The items of the current shuffle (sparse form).
    sparse: HashSet<usize>,
    shuffle: u64,
}

impl SeenItems {
    /// For items `0..n`.
    pub fn new(n: usize) -> SeenItems {
        SeenItems {
            dense: if n <= DENSE_SEEN_MAX {
                vec![u64::MAX; n]
            } else {
                Vec::new()
            },
            sparse: HashSet::new(),
            shuffle: u64::MAX,
        }
    }

    /// Marks `item` (`< n`) as seen in shuffle number `shuffle`; `false`
    /// when that shuffle has already shown it.
    pub fn insert(&mut self, shuffle: u64, item: usize) -> bool {
        if let Some(slot) = self.dense.get_mut(item) {
            if *slot == shuffle {
                return false;
            }
            *slot = shuffle;
            return true;
        }
        if shuffle != self.shuffle {
            self.sparse.clear();
            self.shuffle = shuffle;
        }
        self.sparse.insert(item)
    }
}

/// How to read the input.
#[derive(Clone, Debug)]
pub struct AuditOptions {
    /// 0 or 1 for integer input; detected when `None`.
    pub base: Option<usize>,
    /// Universe size; when `None` it is the line length (full shuffles), or
    /// 52 for card names.
    pub n: Option<usize>,
    /// Family-wise significance level.
    pub alpha: f64,
    /// An effect size (Cohen's w over the position cells) for the power
    /// statement "shuffles needed to detect it".
    pub effect: Option<f64>,
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            base: None,
            n: None,
            alpha: DEFAULT_ALPHA,
            effect: None,
        }
    }
}

/// What kind of elements the lines held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementKind {
    /// Integers.
    Integers,
    /// Card names.
    Cards,
}

/// The audit's outcome.
#[derive(Clone, Debug)]
pub struct AuditReport {
    /// Universe size.
    pub n: usize,
    /// Items per line.
    pub k: usize,
    /// Integers or cards.
    pub kind: ElementKind,
    /// The integer base used (`None` for cards).
    pub base: Option<usize>,
    /// Whether the base was detected (rather than given).
    pub base_detected: bool,
    /// Blank lines skipped.
    pub blank_lines: u64,
    /// The tests and verdict.
    pub analysis: Analysis,
}

impl AuditReport {
    /// A plain-text report.
    pub fn to_text(&self) -> String {
        let what = match self.kind {
            ElementKind::Cards => "card names".to_string(),
            ElementKind::Integers => format!(
                "integers, {}-based{}",
                self.base.unwrap_or(0),
                if self.base_detected {
                    " (detected)"
                } else {
                    ""
                }
            ),
        };
        let mut s = format!("input: {what}");
        if self.blank_lines > 0 {
            s.push_str(&format!(
                ", {} blank {} skipped",
                self.blank_lines,
                if self.blank_lines == 1 {
                    "line"
                } else {
                    "lines"
                }
            ));
        }
        s.push('\n');
        s.push_str(&self.analysis.to_text());
        s
    }
}

/// Why the input could not be audited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuditError {
    /// A line is malformed (1-based line number).
    Line {
        /// Line number, counting from 1.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// Something about the whole input.
    Input(String),
}

impl fmt::Display for AuditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuditError::Line { line, message } => write!(f, "line {line}: {message}"),
            AuditError::Input(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for AuditError {}

fn line_error(line: u64, message: impl Into<String>) -> AuditError {
    AuditError::Line {
        line,
        message: message.into(),
    }
}

/// The longest line accepted (64 MiB: a shuffle of millions of numbers).
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// Reads one line (with its `\n`) into `buffer`, in memory bounded by
/// [`MAX_LINE_BYTES`]; a NUL byte (never part of an item) fails as soon as
/// it is read, so binary input such as `/dev/zero` is refused at once.
fn read_line_bounded<R: BufRead>(
    input: &mut R,
    buffer: &mut Vec<u8>,
    line_no: u64,
) -> Result<usize, AuditError> {
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(AuditError::Input(format!("read error: {e}"))),
        };
        if chunk.is_empty() {
            return Ok(buffer.len());
        }
        let (taken, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(end) => (&chunk[..=end], true),
            None => (chunk, false),
        };
        if taken.contains(&0) {
            return Err(line_error(
                line_no,
                "holds a NUL byte: not text (one shuffle per line, items separated by spaces, tabs or commas)",
            ));
        }
        if buffer.len() + taken.len() > MAX_LINE_BYTES + 1 {
            return Err(line_error(
                line_no,
                format!("is longer than {} MiB", MAX_LINE_BYTES >> 20),
            ));
        }
        buffer.extend_from_slice(taken);
        let used = taken.len();
        input.consume(used);
        if done {
            return Ok(buffer.len());
        }
    }
}

/// Splits a line into its items (separated by commas or whitespace).
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
}

/// The audit of a stream of lines, one line at a time: memory holds one
/// line, the tally, and (only while integer numbering is still unknown for
/// partial deals) the lines read so far.
struct Auditor<'a> {
    options: &'a AuditOptions,
    kind: ElementKind,
    k: usize,
    n: usize,
    first_line: u64,
    /// The numbering, once known (0 for cards).
    base: Option<u64>,
    base_detected: bool,
    /// Lines waiting for the numbering: values and line numbers.
    pending: Vec<(u64, Vec<u32>)>,
    tally: Tally,
    trials: u64,
    seen: SeenItems,
    line: Vec<usize>,
}

impl Auditor<'_> {
    /// Whether a value shows the numbering of a partial deal (0 or `n`).
    fn telling(&self, value: u32) -> bool {
        u64::from(value) == 0 || u64::from(value) == self.n as u64
    }

    /// Takes one parsed line: tallies it, or holds it until the numbering
    /// is known.
    fn add(&mut self, line_no: u64, values: &[u32]) -> Result<(), AuditError> {
        if self.base.is_none() && self.k == self.n {
            // A full permutation holds 0 when 0-based; the range check then
            // names any line that does not fit.
            self.base = Some(u64::from(!values.contains(&0)));
        }
        if self.base.is_none() {
            // Partial deals of integers: 0 or n decides.
            match values.iter().find(|&&v| self.telling(v)) {
                Some(&v) => {
                    self.base = Some(u64::from(v != 0));
                    self.base_detected = true;
                    for (held_no, held) in std::mem::take(&mut self.pending) {
                        self.count(held_no, &held)?;
                    }
                }
                None => {
                    self.pending.push((line_no, values.to_vec()));
                    return Ok(());
                }
            }
        }
        self.count(line_no, values)
    }

    /// Checks one line against the numbering and tallies it.
    fn count(&mut self, line_no: u64, values: &[u32]) -> Result<(), AuditError> {
        let base = self.base.expect("numbering known");
        let n = self.n;
        let kind = self.kind;
        let partial_detected = self.base_detected && self.k < n;
        let index = self.trials;
        for (slot, &value) in values.iter().enumerate() {
            let value = u64::from(value);
            if partial_detected && (value == 0 || value == n as u64) && value != base * n as u64 {
                // Both 0 and n occur: neither numbering fits.
                return Err(AuditError::Input(format!(
                    "the input holds both 0 and {n}: neither 0-based nor 1-based numbering of n = {n} items (check --deck-size)"
                )));
            }
            let item = value
                .checked_sub(base)
                .filter(|&v| v < n as u64)
                .ok_or_else(|| {
                    let shown = match kind {
                        ElementKind::Cards => cards::card_name(value as usize),
                        ElementKind::Integers => value.to_string(),
                    };
                    let hint = if self.options.n.is_none() && kind == ElementKind::Integers {
                        "; if the lines are deals from a larger deck, give its size with --deck-size"
                    } else {
                        ""
                    };
                    line_error(
                        line_no,
                        format!(
                            "{shown} is outside {}..={} ({base}-based, n = {n}){hint}",
                            base,
                            base + n as u64 - 1
                        ),
                    )
                })? as usize;
            if !self.seen.insert(index, item) {
                let shown = match kind {
                    ElementKind::Cards => cards::card_name(item),
                    ElementKind::Integers => value.to_string(),
                };
                return Err(line_error(
                    line_no,
                    format!("{shown} appears more than once: not a permutation"),
                ));
            }
            self.line[slot] = item;
        }
        self.tally.add_deal(&self.line);
        self.trials += 1;
        Ok(())
    }
}

/// Reads shuffles from `input` and audits them, one line at a time (time
/// linear in the input; memory bounded by the longest line and the tally,
/// except that partial deals of integers whose numbering is not yet known
/// are held until a 0 or an `n` shows it).
pub fn audit_text<R: BufRead>(
    mut input: R,
    options: &AuditOptions,
) -> Result<AuditReport, AuditError> {
    let mut auditor: Option<Auditor<'_>> = None;
    let mut blank_lines = 0u64;
    let mut buffer = Vec::new();
    let mut values: Vec<u32> = Vec::new();
    let mut line_no = 0u64;
    loop {
        buffer.clear();
        let read = read_line_bounded(&mut input, &mut buffer, line_no + 1)?;
        if read == 0 {
            break;
        }
        line_no += 1;
        let text = std::str::from_utf8(&buffer)
            .map_err(|_| line_error(line_no, "not valid UTF-8"))?
            .trim_end_matches(['\n', '\r']);
        let Some(first) = tokens(text).next() else {
            blank_lines += 1;
            continue;
        };
        let auditor = auditor_for_line(&mut auditor, options, text, first, line_no)?;
        parse_line(auditor, text, line_no, &mut values)?;
        auditor.add(line_no, &values)?;
    }
    finish(auditor, blank_lines, options)
}

/// The auditor for the shuffle on line `line_no` (`first` is its first
/// token): started by the first shuffle, which decides integers or cards
/// and the number of items; every later line must have as many items.
fn auditor_for_line<'s, 'o>(
    auditor: &'s mut Option<Auditor<'o>>,
    options: &'o AuditOptions,
    text: &str,
    first: &str,
    line_no: u64,
) -> Result<&'s mut Auditor<'o>, AuditError> {
    let count = tokens(text).count();
    Ok(match auditor {
        Some(auditor) => {
            if count != auditor.k {
                return Err(line_error(
                    line_no,
                    format!(
                        "has {count} items, but line {} has {} (every line must have the same number)",
                        auditor.first_line, auditor.k
                    ),
                ));
            }
            auditor
        }
        None => {
            let kind = if first.bytes().all(|b| b.is_ascii_digit()) {
                ElementKind::Integers
            } else {
                ElementKind::Cards
            };
            auditor.insert(start(options, kind, count, line_no)?)
        }
    })
}

/// Parses the items of line `line_no` into `values`, as integers or card
/// names as the auditor's first line decided.
fn parse_line(
    auditor: &Auditor<'_>,
    text: &str,
    line_no: u64,
    values: &mut Vec<u32>,
) -> Result<(), AuditError> {
    // The first line decided integers or cards; say so after it.
    let earlier = |what: &str| {
        if line_no == auditor.first_line {
            String::new()
        } else {
            format!(" (earlier lines hold {what})")
        }
    };
    values.clear();
    for token in tokens(text) {
        let value = match auditor.kind {
            ElementKind::Integers if token.bytes().all(|b| b.is_ascii_digit()) => {
                token.parse::<u64>().unwrap_or(u64::MAX)
            }
            ElementKind::Integers => {
                return Err(line_error(
                    line_no,
                    format!(
                        "{token:?} is not a non-negative integer{}",
                        earlier("integers")
                    ),
                ));
            }
            ElementKind::Cards => cards::parse_card(token).map(|c| c as u64).ok_or_else(|| {
                line_error(
                    line_no,
                    format!(
                        "{token:?} is not a card name like AS, 10h, TH or A♠{}",
                        earlier("card names")
                    ),
                )
            })?,
        };
        let value = u32::try_from(value).map_err(|_| {
            line_error(
                line_no,
                format!("{token} is too large to be an item number"),
            )
        })?;
        values.push(value);
    }
    Ok(())
}

/// The report once the input is read: its errors are no shuffle at all, or
/// a numbering that neither a 0 nor an `n` showed.
fn finish(
    auditor: Option<Auditor<'_>>,
    blank_lines: u64,
    options: &AuditOptions,
) -> Result<AuditReport, AuditError> {
    let Some(auditor) = auditor else {
        return Err(AuditError::Input("no shuffles in the input".into()));
    };
    let Some(base) = auditor.base else {
        let n = auditor.n;
        return Err(AuditError::Input(format!(
            "cannot tell whether the numbers are 0-based or 1-based (neither 0 nor {n} occurs); pass --base 0 or --base 1"
        )));
    };
    Ok(AuditReport {
        n: auditor.n,
        k: auditor.k,
        kind: auditor.kind,
        base: (auditor.kind == ElementKind::Integers).then_some(base as usize),
        base_detected: auditor.base_detected,
        blank_lines,
        analysis: with_effect(
            analysis::analyze(&auditor.tally, options.alpha),
            options.effect,
        ),
    })
}

/// The auditor for input whose first shuffle (line `line_no`) has `k`
/// items of `kind`: the universe size, the numbering when it is already
/// known, an empty tally.
fn start(
    options: &AuditOptions,
    kind: ElementKind,
    k: usize,
    line_no: u64,
) -> Result<Auditor<'_>, AuditError> {
    let n = match (options.n, kind) {
        (Some(n), _) => n,
        (None, ElementKind::Cards) => cards::DECK,
        (None, ElementKind::Integers) => k,
    };
    check_deck_size(n as u64).map_err(AuditError::Input)?;
    if k == 1 && options.n.is_none() && kind == ElementKind::Integers {
        return Err(AuditError::Input(
            "each line holds one number, but a shuffle is a line of 2 or more items (one \
             shuffle per line, items separated by spaces, tabs or commas); for draws of one item \
             from a larger deck, give its size with --deck-size"
                .into(),
        ));
    }
    if k > n {
        return Err(AuditError::Input(format!(
            "lines have {k} items but the universe size is n = {n}"
        )));
    }
    if n < 2 {
        return Err(AuditError::Input("a shuffle needs at least 2 items".into()));
    }
    let (base, base_detected) = match (kind, options.base) {
        (ElementKind::Cards, _) => (Some(0), false),
        (ElementKind::Integers, Some(b)) => (Some(b as u64), false),
        // Full permutations: decided by the first line (below).
        (ElementKind::Integers, None) => (None, true),
    };
    Ok(Auditor {
        options,
        kind,
        k,
        n,
        first_line: line_no,
        base,
        base_detected,
        pending: Vec::new(),
        tally: if k == n {
            Tally::new(n)
        } else {
            Tally::new_deal(n, k)
        },
        trials: 0,
        seen: SeenItems::new(n),
        line: vec![0; k],
    })
}

/// Adds "shuffles needed to detect effect `w`" to the power statements
/// (also used by the Python binding's `knuffle.audit`).
pub fn with_effect(mut analysis: Analysis, effect: Option<f64>) -> Analysis {
    let Some(w) = effect else {
        return analysis;
    };
    if let Some(t) = analysis.tests.iter().find(|t| t.name.contains("positions")) {
        let lambda = crate::stats::noncentrality_for_power(t.dof, analysis.alpha, analysis::POWER);
        analysis.power.push(format!(
            "a bias of effect size w = {w} needs about {} shuffles to be caught {:.0}% of the time by the position test at alpha = {}",
            (lambda / (w * w)).ceil(),
            analysis::POWER * 100.0,
            analysis.alpha
        ));
    }
    analysis
}

/// Audits a shuffle function directly: `shuffle` receives the identity
/// `[0, 1, ..., n-1]` and rearranges it in place, `trials` times.
///
/// # Errors
/// When `shuffle` returns something that is not a permutation.
///
/// ```
/// use knuffle_lab::audit::audit_shuffler;
/// let mut rng = knuffle::Seed::from_text("mine").rng();
/// let fair = audit_shuffler(5, 20_000, |items| knuffle::shuffle(items, &mut rng), 0.001).unwrap();
/// assert!(!fair.biased());
/// let mut rng = knuffle::Seed::from_text("naive").rng();
/// let naive = audit_shuffler(5, 20_000, |items| {
///     for i in 0..items.len() {
///         let j = knuffle::below(items.len() as u64, &mut rng) as usize;
///         items.swap(i, j);
///     }
/// }, 0.001).unwrap();
/// assert!(naive.biased());
/// ```
pub fn audit_shuffler<F: FnMut(&mut [usize])>(
    n: usize,
    trials: u64,
    mut shuffle: F,
    alpha: f64,
) -> Result<Analysis, AuditError> {
    let mut tally = Tally::new(n);
    let identity: Vec<usize> = (0..n).collect();
    let mut items = identity.clone();
    let mut seen = SeenItems::new(n);
    for trial in 0..trials {
        items.copy_from_slice(&identity);
        shuffle(&mut items);
        for &x in &items {
            if x >= n || !seen.insert(trial, x) {
                return Err(AuditError::Input(format!(
                    "shuffle number {} returned {items:?}, not a permutation of 0..{n}",
                    trial + 1
                )));
            }
        }
        tally.add(&items);
    }
    Ok(analysis::analyze(&tally, alpha))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str, options: &AuditOptions) -> String {
        audit_text(text.as_bytes(), options)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn huge_deck_sizes_are_refused_before_anything_is_allocated() {
        for n in [usize::MAX, 1_000_000_000_000, (MAX_DECK_SIZE + 1) as usize] {
            let options = AuditOptions {
                n: Some(n),
                ..AuditOptions::default()
            };
            let message = err("1 2\n", &options);
            assert!(
                message.contains("too large: at most 4294967296 items"),
                "{message}"
            );
        }
        assert!(check_deck_size(MAX_DECK_SIZE).is_ok());
    }

    #[test]
    fn a_deck_of_2_pow_32_costs_nothing_up_front() {
        // Deals of 3 from a deck of 2^32: repeats are found per line.
        let options = AuditOptions {
            n: Some(MAX_DECK_SIZE as usize),
            base: Some(0),
            ..AuditOptions::default()
        };
        let report = audit_text("0 4294967295 7\n5 6 8\n".as_bytes(), &options).unwrap();
        assert_eq!(report.analysis.trials, 2);
        let message = err("1 2 1\n", &options);
        assert!(message.contains("1 appears more than once"), "{message}");
    }

    #[test]
    fn seen_items_find_repeats_dense_and_sparse() {
        for n in [10, DENSE_SEEN_MAX + 1] {
            let mut seen = SeenItems::new(n);
            assert!(seen.insert(0, 3) && seen.insert(0, 4));
            assert!(!seen.insert(0, 3));
            assert!(seen.insert(1, 3));
            assert!(!seen.insert(1, 3));
        }
    }

    #[test]
    fn a_column_of_numbers_is_explained() {
        let message = err("1\n2\n3\n", &AuditOptions::default());
        assert!(message.contains("each line holds one number"), "{message}");
        assert!(message.contains("--deck-size"), "{message}");
    }

    #[test]
    fn malformed_lines_are_named() {
        let o = AuditOptions::default();
        assert_eq!(
            err("1 2 3\n1 2 x\n", &o),
            "line 2: \"x\" is not a non-negative integer (earlier lines hold integers)"
        );
        assert!(err("1 2 3\n1 2\n", &o).starts_with("line 2: has 2 items, but line 1 has 3"));
        assert_eq!(
            err("1 2 3\n\n2 2 3\n", &o),
            "line 3: 2 appears more than once: not a permutation"
        );
        assert_eq!(
            err("0 1 2\n1 2 3\n", &o),
            "line 2: 3 is outside 0..=2 (0-based, n = 3); if the lines are deals from a larger \
             deck, give its size with --deck-size"
        );
        assert!(err("1 2 7\n", &o).contains("7 is outside 1..=3"));
        assert!(
            err(
                "AS KS\nAS AS\n",
                &AuditOptions {
                    n: Some(52),
                    ..o.clone()
                }
            )
            .contains("A♠ appears more than once")
        );
        assert!(err("", &o).contains("no shuffles"));
    }

    #[test]
    fn the_numbering_of_partial_deals_is_found_however_late() {
        let deals = |text: &str| {
            audit_text(
                text.as_bytes(),
                &AuditOptions {
                    n: Some(6),
                    ..AuditOptions::default()
                },
            )
        };
        // Held until line 3 shows a 6: 1-based, and every line counted.
        let r = deals("1 2\n3 4\n\n5 6\n2 1\n").unwrap();
        assert_eq!((r.base, r.analysis.trials, r.blank_lines), (Some(1), 4, 1));
        let r = deals("1 2\n0 4\n").unwrap();
        assert_eq!(r.base, Some(0));
        assert!(
            deals("1 2\n0 4\n6 1\n")
                .unwrap_err()
                .to_string()
                .contains("both 0 and 6")
        );
        assert!(
            deals("6 2\n0 4\n")
                .unwrap_err()
                .to_string()
                .contains("both 0 and 6")
        );
        assert!(
            deals("1 2\n3 4\n")
                .unwrap_err()
                .to_string()
                .contains("cannot tell")
        );
        // A held line is still checked once the numbering is known.
        assert_eq!(
            deals("1 1\n6 2\n").unwrap_err().to_string(),
            "line 1: 1 appears more than once: not a permutation"
        );
    }

    #[test]
    fn cards_commas_and_deals_are_read() {
        let r = audit_text("AS, 10h\nT♥ as\n".as_bytes(), &AuditOptions::default()).unwrap();
        assert_eq!((r.n, r.k, r.kind), (52, 2, ElementKind::Cards));
        let r = audit_text(
            "3,1\n0,2\n".as_bytes(),
            &AuditOptions {
                n: Some(4),
                ..AuditOptions::default()
            },
        )
        .unwrap();
        assert_eq!((r.n, r.k, r.base), (4, 2, Some(0)));
    }
}
