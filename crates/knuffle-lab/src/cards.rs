//! Card names for the audit: `AS`, `10h`, `TH`, `A♠`, `q♦`, read by
//! [`knuffle::cards::Card`]'s parser (case does not matter; `T` and `10`
//! are both ten).
//!
//! The audit numbers the 52 cards `suit * 13 + rank`, suits in the order
//! ♠ ♥ ♦ ♣ (S H D C), ranks A 2 3 ... 10 J Q K (rank 0 is the ace).

use knuffle::cards::{Card, Rank, Suit};

/// Cards in a deck.
pub const DECK: usize = 52;

/// The suit of audit position `index / 13`: ♠ ♥ ♦ ♣, the reverse of
/// [`Suit::ALL`].
fn suit_at(position: usize) -> Suit {
    Suit::ALL[3 - position]
}

/// The audit position of `suit` (`0..4`).
fn suit_position(suit: Suit) -> usize {
    3 - suit as usize
}

/// The rank of audit position `index % 13`: the ace first, then two to king
/// (the order of [`Rank::ALL`], whose ace comes last).
fn rank_at(position: usize) -> Rank {
    if position == 0 {
        Rank::Ace
    } else {
        Rank::ALL[position - 1]
    }
}

/// The audit position of `rank` (`0..13`).
fn rank_position(rank: Rank) -> usize {
    match rank {
        Rank::Ace => 0,
        other => usize::from(other.value()) - 1,
    }
}

/// The index (`0..52`) of a card name, or `None` if it is not the name of
/// one of the 52 cards (a joker is not).
///
/// ```
/// use knuffle_lab::cards::parse_card;
/// assert_eq!(parse_card("AS"), Some(0));
/// assert_eq!(parse_card("A♠"), Some(0));
/// assert_eq!(parse_card("10h"), parse_card("TH"));
/// assert_eq!(parse_card("K♣"), Some(51));
/// assert_eq!(parse_card("1S"), None);
/// assert_eq!(parse_card("JK"), None);
/// ```
pub fn parse_card(text: &str) -> Option<usize> {
    match text.parse::<Card>().ok()? {
        Card::Suited { suit, rank } => Some(suit_position(suit) * 13 + rank_position(rank)),
        Card::Joker => None,
    }
}

/// The display name of card `index` (`A♠`, `10♥`, ...).
///
/// ```
/// assert_eq!(knuffle_lab::cards::card_name(22), "10♥");
/// ```
pub fn card_name(index: usize) -> String {
    Card::new(rank_at(index % 13), suit_at(index / 13)).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_round_trips_in_every_notation() {
        for i in 0..DECK {
            assert_eq!(parse_card(&card_name(i)), Some(i));
            let ascii = format!(
                "{}{}",
                rank_at(i % 13).letter(),
                ['S', 'H', 'D', 'C'][i / 13]
            );
            assert_eq!(parse_card(&ascii), Some(i));
            assert_eq!(parse_card(&ascii.to_lowercase()), Some(i));
        }
        for bad in ["", "S", "11S", "AX", "ZZ", "0S", "♠", "JK", "joker"] {
            assert_eq!(parse_card(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_audit_numbering_is_suit_by_suit_ace_first() {
        assert_eq!(card_name(0), "A♠");
        assert_eq!(card_name(9), "10♠");
        assert_eq!(card_name(13), "A♥");
        assert_eq!(card_name(26), "A♦");
        assert_eq!(card_name(51), "K♣");
    }
}
