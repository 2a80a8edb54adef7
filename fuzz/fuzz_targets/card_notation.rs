//! knuffle's card notation: any text parses to a card or fails cleanly;
//! a parsed card written out (Unicode or ASCII) parses back to itself; a
//! deck written out parses back to the same deck. The lab's reader
//! (`knuffle_lab::cards::parse_card`) agrees with its own names.
#![no_main]

use knuffle::cards::{Card, Deck};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(card) = text.parse::<Card>() {
        assert_eq!(card.to_string().parse::<Card>().ok(), Some(card), "{text:?}");
        assert_eq!(card.to_ascii().parse::<Card>().ok(), Some(card), "{text:?}");
    }
    if let Ok(deck) = text.parse::<Deck<Card>>() {
        let again: Deck<Card> = deck.to_string().parse().expect("a written deck parses");
        assert_eq!(&*again, &*deck, "{text:?}");
    }
    if let Some(index) = knuffle_lab::cards::parse_card(text) {
        let name = knuffle_lab::cards::card_name(index);
        assert_eq!(knuffle_lab::cards::parse_card(&name), Some(index), "{text:?}");
    }
});
