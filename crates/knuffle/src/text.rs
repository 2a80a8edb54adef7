//! Shuffling text without breaking characters (the string shuffle of "Visual Basic for Applications/The Knuth String
//! Shuffle", Wikibooks).
//!
//! A user-perceived character ("é" written as `e` + combining accent, a
//! flag, a family emoji) can be several `char`s; [`shuffle_graphemes`]
//! keeps each extended grapheme cluster (Unicode UAX #29, through
//! `unicode-segmentation`) whole. [`shuffle_chars`] shuffles plain `char`s.

use alloc::string::String;
use alloc::vec::Vec;
use rand_core::Rng;
use unicode_segmentation::UnicodeSegmentation;

/// The string's grapheme clusters in uniformly random order. Strings of 0 or
/// 1 grapheme come back unchanged.
///
/// # Example
/// ```
/// use knuffle::{text::shuffle_graphemes, Seed};
/// let mut rng = Seed::from_text("flags").rng();
/// let mixed = shuffle_graphemes("e\u{301}🇳🇱🇩🇪ab", &mut rng);
/// assert!(mixed.contains("e\u{301}") && mixed.contains("🇳🇱") && mixed.contains("🇩🇪"));
/// assert_eq!(mixed.len(), "e\u{301}🇳🇱🇩🇪ab".len());
/// ```
#[must_use]
pub fn shuffle_graphemes<R: Rng + ?Sized>(text: &str, rng: &mut R) -> String {
    let mut clusters: Vec<&str> = text.graphemes(true).collect();
    crate::shuffle(&mut clusters, rng);
    clusters.concat()
}

/// The string's `char`s (Unicode scalar values) in uniformly random order.
/// Combining marks may end up on other letters: prefer
/// [`shuffle_graphemes`] for text people read.
///
/// # Example
/// ```
/// use knuffle::{text::shuffle_chars, Seed};
/// let mut rng = Seed::from_text("abc").rng();
/// let mixed = shuffle_chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", &mut rng);
/// assert_eq!(mixed.chars().count(), 36);
/// ```
#[must_use]
pub fn shuffle_chars<R: Rng + ?Sized>(text: &str, rng: &mut R) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    crate::shuffle(&mut chars, rng);
    chars.into_iter().collect()
}
