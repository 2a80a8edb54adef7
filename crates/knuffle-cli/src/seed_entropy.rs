//! A conservative estimate of how much entropy a seed text can hold, for
//! `--strict`: a seed that cannot reach every order of the deck is refused.
//!
//! knuffle cannot know how a seed text was chosen, so it estimates from the
//! text's form, never rounding up:
//!
//! - each character counts `log2(A)` bits, where `A` is the size of the
//!   character classes the text uses (lowercase 26, uppercase 26, digits 10,
//!   space 1, other ASCII punctuation 32, anything else 100 per distinct
//!   character seen, capped at 1000): the most a text of that length and
//!   alphabet could hold if every character were drawn uniformly;
//! - a character that repeats the previous one, or continues a run by
//!   steps of +1 or -1 (`aaaa`, `1234`, `zyx`), counts 1 bit;
//! - a decimal integer counts no more than the integer seed space it may
//!   come from (64 bits up to `u64::MAX`: [`knuffle::entropy::seed_text_bits`]);
//! - the total is capped at 256 bits (the generator's key).
//!
//! This is an upper bound for text chosen by people (English prose holds
//! about 1 to 2 bits per character, not 4.7): a seed passing `--strict` is
//! long enough to *allow* every order, which is what the check can promise.
//! The fresh default seed (64 random hex digits, 256 bits) always passes.

/// Classes of characters and their sizes.
fn class_size(c: char) -> (u8, f64) {
    match c {
        'a'..='z' => (0, 26.0),
        'A'..='Z' => (1, 26.0),
        '0'..='9' => (2, 10.0),
        ' ' => (3, 1.0),
        '!'..='~' => (4, 32.0),
        _ => (5, 0.0),
    }
}

/// The estimated entropy of `text` in bits (see the module documentation).
pub fn estimate_bits(text: &str) -> f64 {
    let chars: Vec<char> = text.chars().collect();
    let mut classes = [false; 5];
    let mut others = std::collections::BTreeSet::new();
    for &c in &chars {
        match class_size(c) {
            (5, _) => {
                others.insert(c);
            }
            (class, _) => classes[usize::from(class)] = true,
        }
    }
    let mut alphabet: f64 = [26.0, 26.0, 10.0, 1.0, 32.0]
        .iter()
        .zip(classes)
        .filter(|(_, used)| *used)
        .map(|(size, _)| size)
        .sum();
    alphabet += (others.len() as f64 * 100.0).min(1000.0);
    if alphabet < 2.0 {
        return 0.0;
    }
    let per_char = alphabet.log2();
    let mut bits = 0.0;
    for (i, &c) in chars.iter().enumerate() {
        let predictable = i >= 1 && {
            let step = c as i64 - chars[i - 1] as i64;
            let continues_run = i >= 2 && step == chars[i - 1] as i64 - chars[i - 2] as i64;
            step == 0 || (step.abs() == 1 && (i == 1 || continues_run))
        };
        bits += if predictable { 1.0 } else { per_char };
    }
    if let Some(integer_bits) = knuffle::entropy::seed_text_bits(text) {
        bits = bits.min(integer_bits);
    }
    bits.min(256.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_patterned_texts_hold_little() {
        assert_eq!(estimate_bits(""), 0.0);
        assert!(estimate_bits("a") < 5.0);
        assert!(estimate_bits("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") < 50.0);
        assert!(estimate_bits("abcdefghijklmnopqrstuvwxyz") < 35.0);
        assert!(estimate_bits("12345678901234567890") < 64.1);
        assert!(estimate_bits("friday poker night") < 100.0);
    }

    #[test]
    fn long_varied_texts_and_fresh_seeds_reach_a_deck() {
        let fresh = knuffle::Seed::random_text();
        assert_eq!(estimate_bits(&fresh), 256.0_f64.min(estimate_bits(&fresh)));
        assert!(estimate_bits(&fresh) > 226.0, "{fresh}");
        let phrase = "correct horse battery staple, then 17 more words: quiet river \
                      lantern orbit maple violin cactus ember";
        assert!(estimate_bits(phrase) > 226.0);
    }
}
