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

use std::fmt;
use std::io::BufRead;

use crate::analysis::{self, Analysis};
use crate::cards;
use crate::stats::DEFAULT_ALPHA;
use crate::tally::Tally;

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
            s.push_str(&format!(", {} blank lines skipped", self.blank_lines));
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

/// Raw parsed lines: values (integers as written, or card indices) and
/// their line numbers.
struct Parsed {
    kind: ElementKind,
    k: usize,
    values: Vec<u32>,
    line_numbers: Vec<u64>,
    blank_lines: u64,
}

fn parse_lines<R: BufRead>(mut input: R) -> Result<Parsed, AuditError> {
    let mut parsed = Parsed {
        kind: ElementKind::Integers,
        k: 0,
        values: Vec::new(),
        line_numbers: Vec::new(),
        blank_lines: 0,
    };
    let mut kind: Option<ElementKind> = None;
    let mut first_line = 0;
    let mut buffer = Vec::new();
    let mut line_no = 0u64;
    loop {
        buffer.clear();
        let read = input
            .read_until(b'\n', &mut buffer)
            .map_err(|e| AuditError::Input(format!("read error: {e}")))?;
        if read == 0 {
            break;
        }
        line_no += 1;
        let text = std::str::from_utf8(&buffer)
            .map_err(|_| line_error(line_no, "not valid UTF-8"))?
            .trim_end_matches(['\n', '\r']);
        let tokens: Vec<&str> = text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .collect();
        if tokens.is_empty() {
            parsed.blank_lines += 1;
            continue;
        }
        let line_kind = *kind.get_or_insert_with(|| {
            if tokens[0].bytes().all(|b| b.is_ascii_digit()) {
                ElementKind::Integers
            } else {
                ElementKind::Cards
            }
        });
        if parsed.line_numbers.is_empty() {
            parsed.k = tokens.len();
            first_line = line_no;
        } else if tokens.len() != parsed.k {
            return Err(line_error(
                line_no,
                format!(
                    "has {} items, but line {first_line} has {} (every line must have the same number)",
                    tokens.len(),
                    parsed.k
                ),
            ));
        }
        // Earlier lines decided integers or cards; say so when they did.
        let earlier = |what: &str| {
            if parsed.line_numbers.is_empty() {
                String::new()
            } else {
                format!(" (earlier lines hold {what})")
            }
        };
        for token in tokens {
            let value = match line_kind {
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
                ElementKind::Cards => {
                    cards::parse_card(token).map(|c| c as u64).ok_or_else(|| {
                        line_error(
                            line_no,
                            format!(
                                "{token:?} is not a card name like AS, 10h, TH or A♠{}",
                                earlier("card names")
                            ),
                        )
                    })?
                }
            };
            let value = u32::try_from(value).map_err(|_| {
                line_error(
                    line_no,
                    format!("{token} is too large to be an item number"),
                )
            })?;
            parsed.values.push(value);
        }
        parsed.line_numbers.push(line_no);
    }
    parsed.kind = kind.unwrap_or(ElementKind::Integers);
    Ok(parsed)
}

/// Reads shuffles from `input` and audits them.
pub fn audit_text<R: BufRead>(input: R, options: &AuditOptions) -> Result<AuditReport, AuditError> {
    let parsed = parse_lines(input)?;
    if parsed.line_numbers.is_empty() {
        return Err(AuditError::Input("no shuffles in the input".into()));
    }
    let k = parsed.k;
    let n = match (options.n, parsed.kind) {
        (Some(n), _) => n,
        (None, ElementKind::Cards) => cards::DECK,
        (None, ElementKind::Integers) => k,
    };
    if k > n {
        return Err(AuditError::Input(format!(
            "lines have {k} items but the universe size is n = {n}"
        )));
    }
    if n < 2 {
        return Err(AuditError::Input("a shuffle needs at least 2 items".into()));
    }
    let (base, base_detected) = match parsed.kind {
        ElementKind::Cards => (0, false),
        ElementKind::Integers => match options.base {
            Some(b) => (b as u64, false),
            None => (detect_base(&parsed.values, n as u64, k == n)?, true),
        },
    };
    let mut tally = if k == n {
        Tally::new(n)
    } else {
        Tally::new_deal(n, k)
    };
    let mut line = vec![0usize; k];
    let mut seen = vec![u64::MAX; n];
    for (index, chunk) in parsed.values.chunks_exact(k).enumerate() {
        let line_no = parsed.line_numbers[index];
        for (slot, &value) in line.iter_mut().zip(chunk) {
            let value = u64::from(value);
            let item = value
                .checked_sub(base)
                .filter(|&v| v < n as u64)
                .ok_or_else(|| {
                    let shown = match parsed.kind {
                        ElementKind::Cards => cards::card_name(value as usize),
                        ElementKind::Integers => value.to_string(),
                    };
                    line_error(
                        line_no,
                        format!(
                            "{shown} is outside {}..={} ({base}-based, n = {n})",
                            base,
                            base + n as u64 - 1
                        ),
                    )
                })? as usize;
            if seen[item] == index as u64 {
                let shown = match parsed.kind {
                    ElementKind::Cards => cards::card_name(item),
                    ElementKind::Integers => value.to_string(),
                };
                return Err(line_error(
                    line_no,
                    format!("{shown} appears more than once: not a permutation"),
                ));
            }
            seen[item] = index as u64;
            *slot = item;
        }
        tally.add_deal(&line);
    }
    Ok(AuditReport {
        n,
        k,
        kind: parsed.kind,
        base: (parsed.kind == ElementKind::Integers).then_some(base as usize),
        base_detected,
        blank_lines: parsed.blank_lines,
        analysis: with_effect(analysis::analyze(&tally, options.alpha), options.effect),
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

/// 0 if any value is 0; 1 if the value `n` occurs (or, for full
/// permutations, if 0 does not); otherwise ambiguous.
fn detect_base(values: &[u32], n: u64, full: bool) -> Result<u64, AuditError> {
    let has_zero = values.contains(&0);
    if full {
        // A full permutation holds 0 when 0-based; the range check then
        // names any line that does not fit.
        return Ok(u64::from(!has_zero));
    }
    let has_n = values.iter().any(|&v| u64::from(v) == n);
    match (has_zero, has_n) {
        (true, true) => Err(AuditError::Input(format!(
            "the input holds both 0 and {n}: neither 0-based nor 1-based numbering of n = {n} items (check --n)"
        ))),
        (true, false) => Ok(0),
        (false, true) => Ok(1),
        (false, false) => Err(AuditError::Input(format!(
            "cannot tell whether the numbers are 0-based or 1-based (neither 0 nor {n} occurs); pass --base 0 or --base 1"
        ))),
    }
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
///         let j = knuffle::below(&mut rng, items.len() as u64) as usize;
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
    let mut seen = vec![u64::MAX; n];
    for trial in 0..trials {
        items.copy_from_slice(&identity);
        shuffle(&mut items);
        for &x in &items {
            if x >= n || seen[x] == trial {
                return Err(AuditError::Input(format!(
                    "shuffle number {} returned {items:?}, not a permutation of 0..{n}",
                    trial + 1
                )));
            }
            seen[x] = trial;
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
            "line 2: 3 is outside 0..=2 (0-based, n = 3)"
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
