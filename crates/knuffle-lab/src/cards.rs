//! Reading playing-card names for the audit: `AS`, `10h`, `TH`, `A♠`, `q♦`.
//!
//! A card's index is `suit * 13 + rank`, suits in the order ♠ ♥ ♦ ♣ (S H D
//! C), ranks A 2 3 ... 10 J Q K (rank 0 is the ace). Case does not matter;
//! `T` and `10` are both ten.

/// Cards in a deck.
pub const DECK: usize = 52;

const RANKS: [&str; 13] = [
    "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
];
const SUITS: [char; 4] = ['♠', '♥', '♦', '♣'];

/// The index (`0..52`) of a card name, or `None` if it is not one.
///
/// ```
/// use knuffle_lab::cards::parse_card;
/// assert_eq!(parse_card("AS"), Some(0));
/// assert_eq!(parse_card("A♠"), Some(0));
/// assert_eq!(parse_card("10h"), parse_card("TH"));
/// assert_eq!(parse_card("K♣"), Some(51));
/// assert_eq!(parse_card("1S"), None);
/// ```
pub fn parse_card(text: &str) -> Option<usize> {
    let suit_char = text.chars().last()?;
    let rank_text = &text[..text.len() - suit_char.len_utf8()];
    let suit = match suit_char {
        's' | 'S' | '♠' | '♤' => 0,
        'h' | 'H' | '♥' | '♡' => 1,
        'd' | 'D' | '♦' | '♢' => 2,
        'c' | 'C' | '♣' | '♧' => 3,
        _ => return None,
    };
    let rank = match rank_text.to_ascii_uppercase().as_str() {
        "A" => 0,
        "T" | "10" => 9,
        "J" => 10,
        "Q" => 11,
        "K" => 12,
        digit if digit.len() == 1 => match digit.as_bytes()[0] {
            b @ b'2'..=b'9' => usize::from(b - b'1'),
            _ => return None,
        },
        _ => return None,
    };
    Some(suit * 13 + rank)
}

/// The display name of card `index` (`A♠`, `10♥`, ...).
///
/// ```
/// assert_eq!(knuffle_lab::cards::card_name(22), "10♥");
/// ```
pub fn card_name(index: usize) -> String {
    format!("{}{}", RANKS[index % 13], SUITS[index / 13])
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
                RANKS[i % 13].replace("10", "T"),
                ['S', 'H', 'D', 'C'][i / 13]
            );
            assert_eq!(parse_card(&ascii), Some(i));
            assert_eq!(parse_card(&ascii.to_lowercase()), Some(i));
        }
        for bad in ["", "S", "11S", "AX", "ZZ", "0S", "♠"] {
            assert_eq!(parse_card(bad), None, "{bad}");
        }
    }
}
