//! What is drawn from: a list of items (text) or a range of integers, and
//! its digest `P = H("knuffle-vd/1 population" || u64be(n) || lp(item_0) ||
//! ... || lp(item_{n-1}))`. The order of the items is part of the
//! population: the same items in another order give another digest.

use crate::encode::Encoder;
use crate::limits::{LimitError, check_range_items};

/// The domain tag of the population digest.
pub const POPULATION_TAG: &str = "knuffle-vd/1 population";

/// A population: items by index `0..n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Population {
    /// Items given as text, in this order.
    Items(Vec<String>),
    /// The integers `lo..=hi`; item `i` is the decimal text of `lo + i`.
    Range {
        /// The first integer.
        lo: u64,
        /// The last integer (inclusive).
        hi: u64,
    },
}

impl Population {
    /// The integers `lo..=hi`; `None` when `hi < lo` or the count does not
    /// fit in 64 bits.
    pub fn range(lo: u64, hi: u64) -> Option<Population> {
        (hi >= lo && hi - lo < u64::MAX).then_some(Population::Range { lo, hi })
    }

    /// The number of items.
    pub fn count(&self) -> u64 {
        match self {
            Population::Items(items) => items.len() as u64,
            Population::Range { lo, hi } => hi - lo + 1,
        }
    }

    /// Item `index` (`index < count`).
    pub fn item(&self, index: u64) -> String {
        match self {
            Population::Items(items) => items[index as usize].clone(),
            Population::Range { lo, .. } => (lo + index).to_string(),
        }
    }

    /// Checks that the digest is bounded work: a range of at most
    /// [`crate::limits::MAX_RANGE_ITEMS`] items (a list is already in memory).
    pub fn check_size(&self) -> Result<(), LimitError> {
        match self {
            Population::Items(_) => Ok(()),
            Population::Range { .. } => check_range_items(self.count()),
        }
    }

    /// The population digest `P`. A range hashes every one of its items:
    /// call [`Population::check_size`] first on a range from untrusted input.
    pub fn digest(&self) -> [u8; 32] {
        let mut enc = Encoder::tagged(POPULATION_TAG);
        enc.u64(self.count());
        match self {
            Population::Items(items) => {
                for item in items {
                    enc.lp(item.as_bytes());
                }
            }
            Population::Range { lo, hi } => {
                let mut digits = [0u8; 20];
                for value in *lo..=*hi {
                    enc.lp(decimal(value, &mut digits));
                }
            }
        }
        enc.finish()
    }
}

/// The decimal text of `value`, written at the end of `buffer` (no
/// allocation: a range's digest formats up to 10^9 of them).
fn decimal(mut value: u64, buffer: &mut [u8; 20]) -> &[u8] {
    let mut at = buffer.len();
    loop {
        at -= 1;
        buffer[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            return &buffer[at..];
        }
    }
}

/// The card list a committed deal draws from, fixed by the format: for each
/// of `decks` decks, the suits ♣ ♦ ♥ ♠ in turn, each with the ranks
/// `2 3 4 5 6 7 8 9 10 J Q K A`, then `jokers` jokers written `🃏`.
pub fn card_deck(decks: usize, jokers: usize) -> Population {
    const SUITS: [&str; 4] = ["♣", "♦", "♥", "♠"];
    const RANKS: [&str; 13] = [
        "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
    ];
    let mut items = Vec::with_capacity(decks * (52 + jokers));
    for _ in 0..decks {
        for suit in SUITS {
            items.extend(RANKS.iter().map(|rank| format!("{rank}{suit}")));
        }
        items.extend(std::iter::repeat_n("🃏".to_owned(), jokers));
    }
    Population::Items(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_digests_as_its_decimal_items() {
        let range = Population::range(1, 12).unwrap();
        let items = Population::Items((1..=12).map(|i| i.to_string()).collect());
        assert_eq!(range.digest(), items.digest());
        assert_eq!(range.item(11), "12");
        assert!(Population::range(5, 4).is_none());
    }

    #[test]
    fn decimal_texts_are_to_string() {
        let mut buffer = [0u8; 20];
        for value in [0, 1, 9, 10, 99, 100, 12345, u64::MAX - 1, u64::MAX] {
            assert_eq!(decimal(value, &mut buffer), value.to_string().as_bytes());
        }
    }

    #[test]
    fn ranges_above_the_limit_are_refused_before_digesting() {
        use crate::limits::MAX_RANGE_ITEMS;
        assert_eq!(
            Population::range(1, MAX_RANGE_ITEMS).unwrap().check_size(),
            Ok(())
        );
        assert_eq!(
            Population::range(0, MAX_RANGE_ITEMS).unwrap().check_size(),
            Err(LimitError::RangeTooLarge {
                count: MAX_RANGE_ITEMS + 1
            })
        );
        assert!(
            Population::range(0, u64::MAX - 1)
                .unwrap()
                .check_size()
                .is_err()
        );
        assert_eq!(Population::Items(vec![]).check_size(), Ok(()));
    }

    #[test]
    fn the_card_deck_is_the_documented_list() {
        let Population::Items(deck) = card_deck(2, 1) else {
            panic!("a list")
        };
        assert_eq!(deck.len(), 106);
        assert_eq!(&deck[..3], ["2♣", "3♣", "4♣"]);
        assert_eq!(&deck[12..14], ["A♣", "2♦"]);
        assert_eq!(&deck[51..54], ["A♠", "🃏", "2♣"]);
    }

    #[test]
    fn order_is_bound_into_the_digest() {
        let ab = Population::Items(vec!["a".into(), "b".into()]);
        let ba = Population::Items(vec!["b".into(), "a".into()]);
        assert_ne!(ab.digest(), ba.digest());
        // Length prefixes: ["ab", ""] is not ["a", "b"].
        let joined = Population::Items(vec!["ab".into(), String::new()]);
        assert_ne!(ab.digest(), joined.digest());
    }
}
