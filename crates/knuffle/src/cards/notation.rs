//! Reading cards: `FromStr` for [`Card`] in either notation (`A♠`, `AS`,
//! `10H`, jokers), case-insensitively, and [`ParseCardError`] saying what
//! is wrong.

use core::fmt;
use core::str::FromStr;

use alloc::borrow::ToOwned;
use alloc::string::String;

use super::card::{Card, Rank, Suit};

/// Why a text is not a card: the text and the [`ParseCardErrorKind`].
///
/// # Example
/// ```
/// use knuffle::cards::{Card, ParseCardError, ParseCardErrorKind};
/// let err = "1S".parse::<Card>().unwrap_err();
/// assert_eq!(err.input(), "1S");
/// assert_eq!(err.kind(), &ParseCardErrorKind::UnknownRank("1".to_owned()));
/// assert!(err.to_string().contains("unknown rank '1'"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseCardError {
    input: String,
    kind: ParseCardErrorKind,
}

/// What is wrong with a text that is not a card.
///
/// # Example
/// ```
/// use knuffle::cards::{Card, ParseCardErrorKind as Kind};
/// let kind = |text: &str| text.parse::<Card>().unwrap_err().kind().clone();
/// assert_eq!(kind("  "), Kind::Empty);
/// assert_eq!(kind("Q"), Kind::MissingSuit);
/// assert_eq!(kind("QX"), Kind::UnknownSuit('X'));
/// assert_eq!(kind("♠"), Kind::MissingRank);
/// assert_eq!(kind("11H"), Kind::UnknownRank("11".to_owned()));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseCardErrorKind {
    /// The text is empty (or only whitespace).
    Empty,
    /// A rank without a suit (`Q`, `10`).
    MissingSuit,
    /// The last character is not a suit letter or symbol.
    UnknownSuit(char),
    /// A suit without a rank (`S`, `♠`).
    MissingRank,
    /// The text before the suit is not a rank.
    UnknownRank(String),
}

impl fmt::Display for ParseCardErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseCardErrorKind::Empty => f.write_str("it is empty"),
            ParseCardErrorKind::MissingSuit => {
                f.write_str("the suit is missing (expected S, H, D, C or ♠ ♥ ♦ ♣ after the rank)")
            }
            ParseCardErrorKind::UnknownSuit(suit) => {
                write!(f, "unknown suit '{suit}' (expected S, H, D, C or ♠ ♥ ♦ ♣)")
            }
            ParseCardErrorKind::MissingRank => f.write_str(
                "the rank is missing (expected A, K, Q, J, T or 10, 9 … 2 before the suit)",
            ),
            ParseCardErrorKind::UnknownRank(rank) => write!(
                f,
                "unknown rank '{rank}' (expected A, K, Q, J, T or 10, 9 … 2; JK for a joker)"
            ),
        }
    }
}

impl ParseCardError {
    /// The text that failed to parse.
    ///
    /// # Example
    /// ```
    /// let err = "ZZ".parse::<knuffle::cards::Card>().unwrap_err();
    /// assert_eq!(err.input(), "ZZ");
    /// ```
    pub fn input(&self) -> &str {
        &self.input
    }

    /// What is wrong with it.
    pub fn kind(&self) -> &ParseCardErrorKind {
        &self.kind
    }
}

impl fmt::Display for ParseCardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is not a card: {}", self.input, self.kind)
    }
}

impl core::error::Error for ParseCardError {}

/// Texts read as a joker (compared case-insensitively).
const JOKER_NAMES: [&str; 5] = ["JK", "JOKER", "🃏", "🂿", "🃟"];

impl FromStr for Card {
    type Err = ParseCardError;

    /// Reads `AS`, `as`, `A♠`, `TH`, `10H`, `10♥`, `♥10` is *not* accepted
    /// (rank first); a joker is `JK`, `joker` or `🃏`. Surrounding
    /// whitespace is ignored; an emoji variation selector after the suit
    /// symbol (`♥️`) is accepted.
    fn from_str(text: &str) -> Result<Card, ParseCardError> {
        let fail = |kind: ParseCardErrorKind| ParseCardError {
            input: text.to_owned(),
            kind,
        };
        let trimmed = text.trim().trim_end_matches('\u{FE0F}');
        if trimmed.is_empty() {
            return Err(fail(ParseCardErrorKind::Empty));
        }
        if JOKER_NAMES
            .iter()
            .any(|name| name.eq_ignore_ascii_case(trimmed))
        {
            return Ok(Card::Joker);
        }
        let mut chars = trimmed.chars();
        let last = chars.next_back().expect("not empty");
        let rank_text = chars.as_str();
        let Some(suit) = Suit::from_char(last) else {
            return Err(fail(if Rank::from_text(trimmed).is_some() {
                ParseCardErrorKind::MissingSuit
            } else {
                ParseCardErrorKind::UnknownSuit(last)
            }));
        };
        if rank_text.is_empty() {
            return Err(fail(ParseCardErrorKind::MissingRank));
        }
        let Some(rank) = Rank::from_text(rank_text) else {
            return Err(fail(ParseCardErrorKind::UnknownRank(rank_text.to_owned())));
        };
        Ok(Card::new(rank, suit))
    }
}
