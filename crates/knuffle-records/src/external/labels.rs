//! Bucket labels: independent, exactly uniform integers in `0..2^k`.
//!
//! The number of buckets is a power of two, `2^k`, so a label is simply
//! `k` fresh random bits: every bit of the generator's output is uniform and
//! independent of the others, so every `k`-bit field of a 64-bit word is
//! uniform over `0..2^k`, and disjoint fields are independent. No reduction
//! of a wider range happens, so there is nothing to reject and no bias
//! (this is the power-of-two case of Lemire's method, where the rejection
//! zone `2^64 mod 2^k` is empty). One 64-bit word serves `64 / k` labels,
//! 8 per word for 256 buckets.

use rand_core::Rng;

/// A source of bucket labels for `2^bits` buckets.
#[derive(Debug)]
pub struct Labels {
    bits: u32,
    mask: u64,
    word: u64,
    left: u32,
}

impl Labels {
    /// Labels in `0..2^bits` (`1 <= bits <= 16`).
    pub fn new(bits: u32) -> Labels {
        assert!((1..=16).contains(&bits), "label bits out of range: {bits}");
        Labels {
            bits,
            mask: (1u64 << bits) - 1,
            word: 0,
            left: 0,
        }
    }

    /// The next label.
    #[inline]
    pub fn next<R: Rng + ?Sized>(&mut self, rng: &mut R) -> usize {
        if self.left < self.bits {
            self.word = rng.next_u64();
            self.left = 64;
        }
        let label = self.word & self.mask;
        self.word >>= self.bits;
        self.left -= self.bits;
        label as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_fields_of_words_and_roughly_even() {
        let mut rng = knuffle::Seed::from_text("labels").rng();
        let mut labels = Labels::new(3);
        let mut counts = [0u32; 8];
        for _ in 0..80_000 {
            counts[labels.next(&mut rng)] += 1;
        }
        // Expected 10,000 each; 5 standard deviations is about 470.
        assert!(
            counts.iter().all(|&c| c.abs_diff(10_000) < 500),
            "{counts:?}"
        );

        // The first labels are the low 3-bit fields of the first word.
        let word = rand_core::Rng::next_u64(&mut knuffle::Seed::from_text("w").rng());
        let mut labels = Labels::new(3);
        let mut rng = knuffle::Seed::from_text("w").rng();
        for field in 0..21 {
            assert_eq!(labels.next(&mut rng) as u64, (word >> (3 * field)) & 7);
        }
    }
}
