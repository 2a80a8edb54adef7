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
    let mut out = String::with_capacity(text.len());
    shuffle_graphemes_into(text, rng, &mut out);
    out
}

/// [`shuffle_graphemes`], appending the result to `out` (a buffer reused
/// from line to line). Time and memory are linear in `text.len()`: an ASCII
/// text (without `"\r\n"`, the one two-byte ASCII cluster) is shuffled as
/// its bytes; any other text as an array of `u32` cluster spans, 8 bytes
/// per cluster. The permutation is the one a `Vec<&str>` of the clusters
/// gets from [`crate::shuffle`] (same switch points, same draws), so the
/// output for a seed never depends on which representation was used.
pub fn shuffle_graphemes_into<R: Rng + ?Sized>(text: &str, rng: &mut R, out: &mut String) {
    // The switch points of a `Vec<&str>` (the representation this function
    // has always been defined by): they decide the permutation.
    let config = crate::scatter::ShuffleConfig::for_type::<&str>();
    if text.is_ascii() && !text.contains("\r\n") {
        let mut bytes = text.as_bytes().to_vec();
        crate::scatter::shuffle_with_config(&mut bytes, rng, &config);
        out.push_str(core::str::from_utf8(&bytes).expect("ASCII bytes in any order are UTF-8"));
        return;
    }
    if u32::try_from(text.len()).is_err() {
        let mut clusters: Vec<&str> = text.graphemes(true).collect();
        crate::shuffle(&mut clusters, rng);
        clusters.iter().for_each(|cluster| out.push_str(cluster));
        return;
    }
    // Starts and ends fit in u32 (checked above).
    let mut spans: Vec<[u32; 2]> = text
        .grapheme_indices(true)
        .map(|(start, cluster)| [start as u32, (start + cluster.len()) as u32])
        .collect();
    crate::scatter::shuffle_with_config(&mut spans, rng, &config);
    out.reserve(text.len());
    for [start, end] in spans {
        out.push_str(&text[start as usize..end as usize]);
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Seed;
    use crate::test_prelude::format;

    /// The definition: the clusters as a `Vec<&str>`, shuffled.
    fn reference(text: &str, seed: &str) -> String {
        let mut clusters: Vec<&str> = text.graphemes(true).collect();
        crate::shuffle(&mut clusters, &mut Seed::from_text(seed).rng());
        clusters.concat()
    }

    #[test]
    fn compact_representations_give_the_reference_permutation() {
        // Beyond the direct Durstenfeld switch point of a `Vec<&str>` (1 Mi
        // elements) too, where the scatter takes over.
        let ascii: String = (0..(1usize << 20) + 4321)
            .map(|i| char::from(b'!' + (i % 90) as u8))
            .collect();
        let mixed = format!("e\u{301}🇳🇱a\r\nb{}", &ascii[..5000]);
        let big_mixed = format!("é🇩🇪{ascii}");
        for (text, seed) in [
            ("", "a"),
            ("x", "a"),
            ("ab\r\ncd", "b"),
            (mixed.as_str(), "c"),
            (ascii.as_str(), "d"),
            (big_mixed.as_str(), "e"),
        ] {
            let got = shuffle_graphemes(text, &mut Seed::from_text(seed).rng());
            assert!(got == reference(text, seed), "{} bytes", text.len());
        }
    }
}
