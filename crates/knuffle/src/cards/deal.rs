//! Fair deals: [`Deck::deal`] deals hands round-robin and a board with a
//! partial Fisher–Yates shuffle (only the dealt cards are randomised);
//! [`Deal`] holds the result, [`DealError`] a deal larger than the deck.

use core::fmt;

use alloc::vec::Vec;

use rand_core::Rng;

use super::card::Card;
use super::deck::Deck;

impl<T> Deck<T> {
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
        let available = self.len();
        let needed = (players as u128)
            .saturating_mul(cards_each as u128)
            .saturating_add(board as u128);
        if needed > available as u128 {
            return Err(DealError { needed, available });
        }
        let dealt_count = needed as usize;
        let mut items = self.into_vec();
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
            rest: Deck::new(rest),
        })
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
