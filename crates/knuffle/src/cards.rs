//! Playing cards: cards, decks, shoes, custom decks and fair deals.
//!
//! A [`Card`] is a [`Rank`] of a [`Suit`], or a joker. A [`Deck`] holds any
//! items (cards by default): the standard 52, with jokers, a shoe of several
//! decks, or a custom list. [`Deck::deal`] deals hands and a board with a
//! partial Fisher–Yates shuffle (as in the 52-card deal write-up with a step
//! table: only the dealt cards are
//! randomised); [`Deck::shuffle`] shuffles the whole deck.
//!
//! Notation works both ways: `Display` writes `A♠ 10♥ 🃏`, the alternate
//! form `{:#}` writes ASCII `AS TH JK`, and `FromStr` reads either (and `10H`),
//! case-insensitively.
//!
//! Every one of the 52! orders of a deck needs log2(52!) ≈ 225.58 bits of
//! randomness ([`Deck::entropy_bits_needed`]); knuffle's
//! [`DefaultRng`](crate::DefaultRng) has a 256-bit key, so it can reach them
//! all.
//!
//! # Example
//! ```
//! use knuffle::cards::{Card, Deck, Rank, Suit};
//! use knuffle::Seed;
//!
//! let mut rng = Seed::from_text("friday poker").rng();
//! let deal = Deck::standard().deal(6, 2, 5, &mut rng).unwrap(); // hold'em
//! assert_eq!(deal.hands.len(), 6);
//! assert_eq!(deal.flop().unwrap().len(), 3);
//! assert_eq!(deal.rest.len(), 52 - 6 * 2 - 5);
//!
//! let ace: Card = "as".parse().unwrap();
//! assert_eq!(ace, Card::new(Rank::Ace, Suit::Spades));
//! assert_eq!(format!("{ace} {ace:#}"), "A♠ AS");
//! ```

use core::fmt;
use core::ops::Deref;
use core::str::FromStr;

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use rand_core::Rng;

/// A suit, ordered as in bridge: clubs < diamonds < hearts < spades.
///
/// # Example
/// ```
/// use knuffle::cards::Suit;
/// assert!(Suit::Spades > Suit::Hearts);
/// assert_eq!(Suit::Hearts.symbol(), '♥');
/// assert_eq!(Suit::Hearts.letter(), 'H');
/// assert!(Suit::Hearts.is_red());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    /// ♣ (C)
    Clubs,
    /// ♦ (D)
    Diamonds,
    /// ♥ (H)
    Hearts,
    /// ♠ (S)
    Spades,
}

impl Suit {
    /// The four suits in ascending (bridge) order.
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::Suit;
    /// assert_eq!(Suit::ALL.len(), 4);
    /// assert_eq!(Suit::ALL[3], Suit::Spades);
    /// ```
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// The Unicode symbol: `♣ ♦ ♥ ♠`.
    ///
    /// # Example
    /// ```
    /// assert_eq!(knuffle::cards::Suit::Clubs.symbol(), '♣');
    /// ```
    pub const fn symbol(self) -> char {
        match self {
            Suit::Clubs => '♣',
            Suit::Diamonds => '♦',
            Suit::Hearts => '♥',
            Suit::Spades => '♠',
        }
    }

    /// The ASCII letter: `C D H S`.
    ///
    /// # Example
    /// ```
    /// assert_eq!(knuffle::cards::Suit::Diamonds.letter(), 'D');
    /// ```
    pub const fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
        }
    }

    /// Whether the suit is red (diamonds, hearts).
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::Suit;
    /// assert!(Suit::Diamonds.is_red() && !Suit::Clubs.is_red());
    /// ```
    pub const fn is_red(self) -> bool {
        matches!(self, Suit::Diamonds | Suit::Hearts)
    }

    /// Reads a suit symbol or letter, case-insensitively: `♠ ♥ ♦ ♣`, the
    /// white forms `♤ ♡ ♢ ♧`, or `S H D C`. `None` for anything else.
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::Suit;
    /// assert_eq!(Suit::from_char('h'), Some(Suit::Hearts));
    /// assert_eq!(Suit::from_char('♤'), Some(Suit::Spades));
    /// assert_eq!(Suit::from_char('x'), None);
    /// ```
    pub fn from_char(c: char) -> Option<Suit> {
        match c {
            '♣' | '♧' | 'c' | 'C' => Some(Suit::Clubs),
            '♦' | '♢' | 'd' | 'D' => Some(Suit::Diamonds),
            '♥' | '♡' | 'h' | 'H' => Some(Suit::Hearts),
            '♠' | '♤' | 's' | 'S' => Some(Suit::Spades),
            _ => None,
        }
    }
}

impl fmt::Display for Suit {
    /// `♠`, or with `{:#}` the letter `S`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = if f.alternate() {
            self.letter()
        } else {
            self.symbol()
        };
        f.pad(c.encode_utf8(&mut [0; 4]))
    }
}

/// A rank, from two (low) to ace (high).
///
/// # Example
/// ```
/// use knuffle::cards::Rank;
/// assert!(Rank::Ace > Rank::King);
/// assert_eq!(Rank::Ten.value(), 10);
/// assert_eq!(Rank::Ten.symbol(), "10");
/// assert_eq!(Rank::Ten.letter(), 'T');
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rank {
    /// 2
    Two = 2,
    /// 3
    Three,
    /// 4
    Four,
    /// 5
    Five,
    /// 6
    Six,
    /// 7
    Seven,
    /// 8
    Eight,
    /// 9
    Nine,
    /// 10 (T in ASCII)
    Ten,
    /// J
    Jack,
    /// Q
    Queen,
    /// K
    King,
    /// A
    Ace,
}

impl Rank {
    /// The thirteen ranks in ascending order, two to ace.
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::Rank;
    /// assert_eq!(Rank::ALL.len(), 13);
    /// assert_eq!(Rank::ALL[0], Rank::Two);
    /// ```
    pub const ALL: [Rank; 13] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// The numeric value: 2 to 10, jack 11, queen 12, king 13, ace 14.
    ///
    /// # Example
    /// ```
    /// assert_eq!(knuffle::cards::Rank::Ace.value(), 14);
    /// ```
    pub const fn value(self) -> u8 {
        self as u8
    }

    /// The rank as printed on a card: `2` … `10`, `J`, `Q`, `K`, `A`.
    ///
    /// # Example
    /// ```
    /// assert_eq!(knuffle::cards::Rank::Queen.symbol(), "Q");
    /// ```
    pub const fn symbol(self) -> &'static str {
        match self {
            Rank::Two => "2",
            Rank::Three => "3",
            Rank::Four => "4",
            Rank::Five => "5",
            Rank::Six => "6",
            Rank::Seven => "7",
            Rank::Eight => "8",
            Rank::Nine => "9",
            Rank::Ten => "10",
            Rank::Jack => "J",
            Rank::Queen => "Q",
            Rank::King => "K",
            Rank::Ace => "A",
        }
    }

    /// The one-character ASCII form: `2` … `9`, `T`, `J`, `Q`, `K`, `A`.
    ///
    /// # Example
    /// ```
    /// assert_eq!(knuffle::cards::Rank::Ten.letter(), 'T');
    /// ```
    pub const fn letter(self) -> char {
        match self {
            Rank::Ten => 'T',
            other => other.symbol().as_bytes()[0] as char,
        }
    }

    /// Reads a rank, case-insensitively: `A K Q J T 10 9 … 2`. `None` for
    /// anything else.
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::Rank;
    /// assert_eq!(Rank::from_text("10"), Some(Rank::Ten));
    /// assert_eq!(Rank::from_text("t"), Some(Rank::Ten));
    /// assert_eq!(Rank::from_text("1"), None);
    /// ```
    pub fn from_text(text: &str) -> Option<Rank> {
        let rank = match text.to_ascii_uppercase().as_str() {
            "2" => Rank::Two,
            "3" => Rank::Three,
            "4" => Rank::Four,
            "5" => Rank::Five,
            "6" => Rank::Six,
            "7" => Rank::Seven,
            "8" => Rank::Eight,
            "9" => Rank::Nine,
            "10" | "T" => Rank::Ten,
            "J" => Rank::Jack,
            "Q" => Rank::Queen,
            "K" => Rank::King,
            "A" => Rank::Ace,
            _ => return None,
        };
        Some(rank)
    }
}

impl fmt::Display for Rank {
    /// `10`, or with `{:#}` the ASCII letter `T`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.pad(self.letter().encode_utf8(&mut [0; 4]))
        } else {
            f.pad(self.symbol())
        }
    }
}

/// A playing card: a rank of a suit, or a joker.
///
/// Ordered by suit, then rank, jokers last, so a sorted standard deck runs
/// 2♣ … A♣ 2♦ … A♠. `Display` writes `A♠`, `10♥`, `🃏`; `{:#}` writes the
/// ASCII form `AS`, `TH`, `JK`. Parsing accepts both, case-insensitively.
///
/// # Example
/// ```
/// use knuffle::cards::{Card, Rank, Suit};
/// let ten: Card = "10h".parse().unwrap();
/// assert_eq!(ten, "TH".parse().unwrap());
/// assert_eq!(ten, "10♥".parse().unwrap());
/// assert_eq!(ten.to_string(), "10♥");
/// assert_eq!(format!("{ten:#}"), "TH");
/// assert_eq!(ten.rank(), Some(Rank::Ten));
/// assert_eq!(Card::Joker.to_string(), "🃏");
/// assert_eq!("joker".parse::<Card>().unwrap(), Card::Joker);
/// // `Debug` is the ASCII form too: short in assertions and logs.
/// assert_eq!(format!("{:?}", [ten, Card::Joker]), "[TH, JK]");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Card {
    /// A rank of a suit.
    Suited {
        /// The suit (compared first when sorting).
        suit: Suit,
        /// The rank.
        rank: Rank,
    },
    /// A joker.
    Joker,
}

impl Card {
    /// The card of this rank and suit.
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::{Card, Rank, Suit};
    /// assert_eq!(Card::new(Rank::Ace, Suit::Spades).to_string(), "A♠");
    /// ```
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card::Suited { suit, rank }
    }

    /// The rank, or `None` for a joker.
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::{Card, Rank};
    /// assert_eq!("KD".parse::<Card>().unwrap().rank(), Some(Rank::King));
    /// assert_eq!(Card::Joker.rank(), None);
    /// ```
    pub const fn rank(self) -> Option<Rank> {
        match self {
            Card::Suited { rank, .. } => Some(rank),
            Card::Joker => None,
        }
    }

    /// The suit, or `None` for a joker.
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::{Card, Suit};
    /// assert_eq!("KD".parse::<Card>().unwrap().suit(), Some(Suit::Diamonds));
    /// ```
    pub const fn suit(self) -> Option<Suit> {
        match self {
            Card::Suited { suit, .. } => Some(suit),
            Card::Joker => None,
        }
    }

    /// Whether this is a joker.
    ///
    /// # Example
    /// ```
    /// assert!(knuffle::cards::Card::Joker.is_joker());
    /// ```
    pub const fn is_joker(self) -> bool {
        matches!(self, Card::Joker)
    }

    /// The ASCII form, `AS`, `TH`, `JK` (the same as `format!("{card:#}")`).
    ///
    /// # Example
    /// ```
    /// let card: knuffle::cards::Card = "10♣".parse().unwrap();
    /// assert_eq!(card.to_ascii(), "TC");
    /// ```
    pub fn to_ascii(self) -> String {
        format!("{self:#}")
    }
}

impl fmt::Debug for Card {
    /// The ASCII form, `AS`, `TH`, `JK`: a hand prints as `[AS, KD]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:#}")
    }
}

impl fmt::Display for Card {
    /// `A♠`, `10♥`, `🃏`; with `{:#}`: `AS`, `TH`, `JK`. Honours width and
    /// alignment (`{:>3}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match (*self, f.alternate()) {
            (Card::Suited { suit, rank }, false) => format!("{}{}", rank.symbol(), suit.symbol()),
            (Card::Suited { suit, rank }, true) => format!("{}{}", rank.letter(), suit.letter()),
            (Card::Joker, false) => "🃏".to_owned(),
            (Card::Joker, true) => "JK".to_owned(),
        };
        f.pad(&text)
    }
}

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

/// A deck: an ordered pile of cards or of any other items.
///
/// `Deck<Card>` (the default) has constructors for the standard 52, jokers
/// and shoes; [`Deck::new`] makes a custom deck of anything. A deck
/// dereferences to a slice, so `deck.len()`, `deck[0]` and `deck.iter()`
/// work. `Display` separates the items with spaces (and passes `{:#}` on,
/// so cards print in ASCII).
///
/// # Example
/// ```
/// use knuffle::cards::{Card, Deck};
/// use knuffle::Seed;
///
/// let mut deck = Deck::standard();
/// assert_eq!(deck.len(), 52);
/// assert_eq!(deck[0].to_string(), "2♣");
/// deck.shuffle(&mut Seed::from_text("example").rng());
///
/// let names = Deck::new(vec!["Ann", "Bob", "Cy"]);
/// assert_eq!(names.to_string(), "Ann Bob Cy");
///
/// let hand: Deck = "AS KS QS JS TS".parse().unwrap();
/// assert_eq!(format!("{hand}"), "A♠ K♠ Q♠ J♠ 10♠");
/// assert_eq!(format!("{hand:#}"), "AS KS QS JS TS");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Deck<T = Card> {
    items: Vec<T>,
}

impl Deck<Card> {
    /// The 52 cards in sorted order: clubs, diamonds, hearts, spades, each
    /// from 2 up to the ace.
    ///
    /// # Example
    /// ```
    /// let deck = knuffle::cards::Deck::standard();
    /// assert_eq!(deck.len(), 52);
    /// assert_eq!(deck[51].to_string(), "A♠");
    /// ```
    pub fn standard() -> Deck<Card> {
        Deck::shoe(1, 0)
    }

    /// The standard 52 followed by `jokers` jokers.
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::{Card, Deck};
    /// let deck = Deck::with_jokers(2);
    /// assert_eq!(deck.len(), 54);
    /// assert_eq!(deck[53], Card::Joker);
    /// ```
    pub fn with_jokers(jokers: usize) -> Deck<Card> {
        Deck::shoe(1, jokers)
    }

    /// A shoe: `decks` standard decks, each followed by `jokers_per_deck`
    /// jokers. `Deck::shoe(6, 0)` is a six-deck blackjack shoe of 312 cards.
    ///
    /// # Example
    /// ```
    /// let shoe = knuffle::cards::Deck::shoe(6, 0);
    /// assert_eq!(shoe.len(), 312);
    /// ```
    pub fn shoe(decks: usize, jokers_per_deck: usize) -> Deck<Card> {
        let one_deck = Suit::ALL
            .iter()
            .flat_map(|&suit| Rank::ALL.iter().map(move |&rank| Card::new(rank, suit)))
            .chain(core::iter::repeat_n(Card::Joker, jokers_per_deck));
        let items = (0..decks).flat_map(|_| one_deck.clone()).collect();
        Deck { items }
    }
}

impl<T> Deck<T> {
    /// A custom deck of any items, in the given order.
    ///
    /// # Example
    /// ```
    /// let deck = knuffle::cards::Deck::new((1..=6).collect());
    /// assert_eq!(deck.to_string(), "1 2 3 4 5 6");
    /// ```
    pub fn new(items: Vec<T>) -> Deck<T> {
        Deck { items }
    }

    /// The items, in the deck's current order.
    ///
    /// # Example
    /// ```
    /// let deck = knuffle::cards::Deck::new(vec!['x', 'y']);
    /// assert_eq!(deck.into_vec(), vec!['x', 'y']);
    /// ```
    pub fn into_vec(self) -> Vec<T> {
        self.items
    }

    /// Shuffles the whole deck in place with [`crate::shuffle`]: every
    /// order equally likely.
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::Deck;
    /// let mut deck = Deck::standard();
    /// deck.shuffle(&mut knuffle::Seed::from_text("x").rng());
    /// let mut sorted = deck.clone().into_vec();
    /// sorted.sort();
    /// assert_eq!(sorted, Deck::standard().into_vec());
    /// ```
    pub fn shuffle<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        crate::shuffle(&mut self.items, rng);
    }

    /// `log2(n!)` for this deck's `n` items: the bits of randomness needed
    /// to reach every order (about 225.58 for 52 cards).
    ///
    /// # Example
    /// ```
    /// let bits = knuffle::cards::Deck::standard().entropy_bits_needed();
    /// assert!((bits - 225.58).abs() < 0.01);
    /// ```
    #[cfg(feature = "std")]
    #[must_use]
    pub fn entropy_bits_needed(&self) -> f64 {
        crate::entropy::entropy_bits_needed(self.items.len() as u64)
    }

    /// Deals `cards_each` cards to each of `players` hands, then `board`
    /// cards to the table, as a dealer does: round-robin, one card per
    /// player per round, then the board. Only the dealt cards are
    /// randomised ([`crate::partial_shuffle`], O(dealt)): the dealt sequence
    /// is a uniformly random selection, in uniformly random order, of the
    /// deck's cards. The undealt cards are returned in [`Deal::rest`] (their
    /// order is not random; shuffle them before dealing from them again).
    ///
    /// # Errors
    /// [`DealError`] when the deck has fewer cards than `players ×
    /// cards_each + board`.
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::Deck;
    /// let mut rng = knuffle::Seed::from_text("bridge").rng();
    /// let bridge = Deck::standard().deal(4, 13, 0, &mut rng).unwrap();
    /// assert!(bridge.hands.iter().all(|hand| hand.len() == 13));
    /// assert!(bridge.rest.is_empty());
    ///
    /// let err = Deck::standard().deal(10, 6, 0, &mut rng).unwrap_err();
    /// assert_eq!(err.to_string(), "cannot deal 60 cards from a deck of 52");
    /// ```
    pub fn deal<R: Rng + ?Sized>(
        self,
        players: usize,
        cards_each: usize,
        board: usize,
        rng: &mut R,
    ) -> Result<Deal<T>, DealError> {
        let available = self.items.len();
        let needed = (players as u128)
            .saturating_mul(cards_each as u128)
            .saturating_add(board as u128);
        if needed > available as u128 {
            return Err(DealError { needed, available });
        }
        let dealt_count = needed as usize;
        let mut items = self.items;
        crate::partial_shuffle(&mut items, dealt_count, rng);
        let rest = items.split_off(dealt_count);
        let mut hands: Vec<Vec<T>> = (0..players)
            .map(|_| Vec::with_capacity(cards_each))
            .collect();
        let mut dealt = items.into_iter();
        for _round in 0..cards_each {
            for hand in hands.iter_mut() {
                hand.push(dealt.next().expect("counted above"));
            }
        }
        let board = dealt.collect();
        Ok(Deal {
            hands,
            board,
            rest: Deck { items: rest },
        })
    }
}

impl<T> Deref for Deck<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.items
    }
}

impl<T> AsRef<[T]> for Deck<T> {
    fn as_ref(&self) -> &[T] {
        &self.items
    }
}

impl<T> From<Vec<T>> for Deck<T> {
    fn from(items: Vec<T>) -> Deck<T> {
        Deck { items }
    }
}

impl<T> FromIterator<T> for Deck<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Deck<T> {
        Deck {
            items: iter.into_iter().collect(),
        }
    }
}

impl<T> IntoIterator for Deck<T> {
    type Item = T;
    type IntoIter = alloc::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<T: fmt::Display> fmt::Display for Deck<T> {
    /// The items separated by single spaces; `{:#}` is passed on to each.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, item) in self.items.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            if f.alternate() {
                write!(f, "{item:#}")?;
            } else {
                write!(f, "{item}")?;
            }
        }
        Ok(())
    }
}

impl FromStr for Deck<Card> {
    type Err = ParseCardError;

    /// Cards separated by whitespace and/or commas, in either notation:
    /// `"AS, 10♥ jk"`.
    fn from_str(text: &str) -> Result<Deck<Card>, ParseCardError> {
        text.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|token| !token.is_empty())
            .map(str::parse)
            .collect()
    }
}

/// The result of [`Deck::deal`]: the hands, the board and the undealt rest.
///
/// # Example
/// ```
/// use knuffle::cards::Deck;
/// let mut rng = knuffle::Seed::from_text("holdem").rng();
/// let deal = Deck::standard().deal(2, 2, 5, &mut rng).unwrap();
/// assert_eq!(deal.flop().unwrap().len(), 3);
/// assert!(deal.turn().is_some() && deal.river().is_some());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deal<T = Card> {
    /// One hand per player, in seat order.
    pub hands: Vec<Vec<T>>,
    /// The community cards, in the order they were dealt.
    pub board: Vec<T>,
    /// The cards not dealt.
    pub rest: Deck<T>,
}

impl<T> Deal<T> {
    /// The first three board cards, when the board has at least three.
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::Deck;
    /// let mut rng = knuffle::Seed::from_text("f").rng();
    /// assert!(Deck::standard().deal(2, 2, 2, &mut rng).unwrap().flop().is_none());
    /// ```
    pub fn flop(&self) -> Option<&[T]> {
        self.board.get(..3)
    }

    /// The fourth board card, if any.
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::Deck;
    /// let mut rng = knuffle::Seed::from_text("t").rng();
    /// let deal = Deck::standard().deal(2, 2, 4, &mut rng).unwrap();
    /// assert_eq!(deal.turn(), deal.board.get(3));
    /// ```
    pub fn turn(&self) -> Option<&T> {
        self.board.get(3)
    }

    /// The fifth board card, if any.
    ///
    /// # Example
    /// ```
    /// use knuffle::cards::Deck;
    /// let mut rng = knuffle::Seed::from_text("r").rng();
    /// let deal = Deck::standard().deal(2, 2, 4, &mut rng).unwrap();
    /// assert!(deal.river().is_none());
    /// ```
    pub fn river(&self) -> Option<&T> {
        self.board.get(4)
    }
}

impl<T: fmt::Display> fmt::Display for Deal<T> {
    /// One line per hand, `1: A♠ 10♥`, then `board: ...` when there is a
    /// board; the undealt rest is not written. `{:#}` writes the cards in
    /// ASCII (`1: AS TH`).
    ///
    /// ```
    /// use knuffle::cards::{Deal, Deck};
    /// let deal = Deal {
    ///     hands: vec!["AS KS".parse::<Deck>().unwrap().into_vec(), "2C 2D".parse::<Deck>().unwrap().into_vec()],
    ///     board: "TH JH QH".parse::<Deck>().unwrap().into_vec(),
    ///     rest: Deck::new(vec![]),
    /// };
    /// assert_eq!(deal.to_string(), "1: A♠ K♠\n2: 2♣ 2♦\nboard: 10♥ J♥ Q♥");
    /// assert_eq!(format!("{deal:#}"), "1: AS KS\n2: 2C 2D\nboard: TH JH QH");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cards = |f: &mut fmt::Formatter<'_>, cards: &[T]| -> fmt::Result {
            for (i, card) in cards.iter().enumerate() {
                let sep = if i == 0 { "" } else { " " };
                if f.alternate() {
                    write!(f, "{sep}{card:#}")?;
                } else {
                    write!(f, "{sep}{card}")?;
                }
            }
            Ok(())
        };
        for (seat, hand) in self.hands.iter().enumerate() {
            if seat > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{}: ", seat + 1)?;
            cards(f, hand)?;
        }
        if !self.board.is_empty() {
            if !self.hands.is_empty() {
                f.write_str("\n")?;
            }
            f.write_str("board: ")?;
            cards(f, &self.board)?;
        }
        Ok(())
    }
}

/// A deal that asks for more cards than the deck holds.
///
/// # Example
/// ```
/// use knuffle::cards::Deck;
/// let mut rng = knuffle::Seed::from_text("e").rng();
/// let err = Deck::standard().deal(1, 53, 0, &mut rng).unwrap_err();
/// assert_eq!((err.needed(), err.available()), (53, 52));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DealError {
    needed: u128,
    available: usize,
}

impl DealError {
    /// How many cards the deal asked for (`players × cards_each + board`).
    ///
    /// # Example
    /// ```
    /// let mut rng = knuffle::Seed::from_text("n").rng();
    /// let err = knuffle::cards::Deck::standard().deal(9, 9, 0, &mut rng).unwrap_err();
    /// assert_eq!(err.needed(), 81);
    /// ```
    pub fn needed(&self) -> u128 {
        self.needed
    }

    /// How many cards the deck held.
    ///
    /// # Example
    /// ```
    /// let mut rng = knuffle::Seed::from_text("a").rng();
    /// let err = knuffle::cards::Deck::with_jokers(2).deal(1, 55, 0, &mut rng).unwrap_err();
    /// assert_eq!(err.available(), 54);
    /// ```
    pub fn available(&self) -> usize {
        self.available
    }
}

impl fmt::Display for DealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot deal {} cards from a deck of {}",
            self.needed, self.available
        )
    }
}

impl core::error::Error for DealError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Seed;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    #[test]
    fn every_card_round_trips_through_both_notations() {
        for card in Deck::with_jokers(1).iter() {
            assert_eq!(card.to_string().parse::<Card>().unwrap(), *card);
            assert_eq!(card.to_ascii().parse::<Card>().unwrap(), *card);
            assert_eq!(
                card.to_ascii().to_lowercase().parse::<Card>().unwrap(),
                *card
            );
        }
        assert_eq!("10h".parse::<Card>().unwrap().to_ascii(), "TH");
        assert_eq!(" Q♥\u{FE0F} ".parse::<Card>().unwrap().to_ascii(), "QH");
    }

    #[test]
    fn parse_errors_say_what_is_wrong() {
        let msg = |s: &str| s.parse::<Card>().unwrap_err().to_string();
        assert_eq!(msg(""), "'' is not a card: it is empty");
        assert!(msg("AX").contains("unknown suit 'X'"), "{}", msg("AX"));
        assert!(msg("10").contains("the suit is missing"), "{}", msg("10"));
        assert!(msg("S").contains("the rank is missing"), "{}", msg("S"));
        assert!(msg("11S").contains("unknown rank '11'"), "{}", msg("11S"));
        assert!("AS 2X".parse::<Deck>().is_err());
    }

    #[test]
    fn shoe_holds_each_card_once_per_deck() {
        let shoe = Deck::shoe(3, 2);
        assert_eq!(shoe.len(), 3 * 54);
        let aces = shoe
            .iter()
            .filter(|c| **c == Card::new(Rank::Ace, Suit::Spades))
            .count();
        assert_eq!(aces, 3);
        assert_eq!(shoe.iter().filter(|c| c.is_joker()).count(), 6);
        let mut sorted = Deck::standard().into_vec();
        sorted.sort();
        assert_eq!(sorted, Deck::standard().into_vec(), "standard() is sorted");
    }

    #[test]
    fn deal_is_a_partition_of_the_deck_dealt_round_robin() {
        let mut rng = Seed::from_text("partition").rng();
        let deal = Deck::standard().deal(6, 2, 5, &mut rng).unwrap();
        let mut all: Vec<Card> = deal.hands.concat();
        all.extend(&deal.board);
        all.extend(deal.rest.iter());
        all.sort();
        assert_eq!(all, Deck::standard().into_vec());

        // Round-robin: the same generator's partial shuffle, read in seat order.
        let mut rng = Seed::from_text("partition").rng();
        let mut items = Deck::standard().into_vec();
        crate::partial_shuffle(&mut items, 17, &mut rng);
        assert_eq!(deal.hands[0], vec![items[0], items[6]]);
        assert_eq!(deal.hands[5], vec![items[5], items[11]]);
        assert_eq!(deal.board, items[12..17].to_vec());
    }

    /// Counts of the 6 ordered (first, second) pairs dealt from 3 items in
    /// 60,000 deals; a fair deal gives each 1/6 (10,000, sd about 91).
    fn pair_counts(mut deal_two: impl FnMut() -> (usize, usize)) -> [u32; 6] {
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            let (a, b) = deal_two();
            let pair = [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)];
            counts[pair.iter().position(|&p| p == (a, b)).unwrap()] += 1;
        }
        counts
    }

    fn looks_uniform(counts: &[u32; 6]) -> bool {
        // +-450 is about 5 standard deviations.
        counts.iter().all(|&c| (9_550..=10_450).contains(&c))
    }

    #[test]
    fn dealt_pairs_are_uniform_and_the_check_catches_a_biased_deal() {
        let mut rng = Seed::from_text("uniform").rng();
        let fair = pair_counts(|| {
            let deal = Deck::new(vec![0usize, 1, 2])
                .deal(2, 1, 0, &mut rng)
                .unwrap();
            (deal.hands[0][0], deal.hands[1][0])
        });
        assert!(looks_uniform(&fair), "{fair:?}");

        // The naive swap (every position with any position; the BASIC write-up's first
        // loop) gives the 6 orders of 3 items probabilities 4/27 or 5/27.
        let mut rng = Seed::from_text("biased").rng();
        let naive = pair_counts(|| {
            let mut items = [0usize, 1, 2];
            for i in 0..3 {
                items.swap(i, crate::below(3, &mut rng) as usize);
            }
            (items[0], items[1])
        });
        assert!(!looks_uniform(&naive), "{naive:?}");
    }

    #[test]
    fn impossible_deals_are_refused_even_when_the_product_overflows() {
        let mut rng = Seed::from_text("overflow").rng();
        let err = Deck::standard()
            .deal(usize::MAX, usize::MAX, 1, &mut rng)
            .unwrap_err();
        assert!(err.needed() > u64::MAX as u128);
        assert_eq!(err.available(), 52);
        let exact = Deck::standard().deal(1, 52, 0, &mut rng).unwrap();
        assert_eq!(exact.hands[0].len(), 52);
    }
}
