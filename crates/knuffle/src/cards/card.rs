//! The cards themselves: [`Suit`], [`Rank`] and [`Card`] (a rank of a suit,
//! or a joker), with their symbols, letters and `Display` in both notations.

use core::fmt;

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;

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
