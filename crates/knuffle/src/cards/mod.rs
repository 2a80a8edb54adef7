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
//!
//! The module is split by concept: `card` (suits, ranks, cards), `notation`
//! (reading cards, parse errors), `deck` (decks, shoes, custom decks) and
//! `deal` (fair deals); everything is re-exported here.

mod card;
mod deal;
mod deck;
mod notation;

pub use card::{Card, Rank, Suit};
pub use deal::{Deal, DealError};
pub use deck::Deck;
pub use notation::{ParseCardError, ParseCardErrorKind};

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
