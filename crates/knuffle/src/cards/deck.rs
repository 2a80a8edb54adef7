//! [`Deck`]: an ordered pile of cards or of any other items (the standard
//! 52, with jokers, a shoe of several decks, or a custom list), shuffled
//! whole, written and read in card notation.

use core::fmt;
use core::ops::Deref;
use core::str::FromStr;

use alloc::vec::Vec;

use rand_core::Rng;

use super::card::{Card, Rank, Suit};
use super::notation::ParseCardError;

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
