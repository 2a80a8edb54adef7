//! Unbiased bounded integers: the only place where random bits become indices.
//!
//! Two methods, both exactly uniform (every value of `0..bound` has probability
//! exactly `1/bound`; nothing is ever rounded, scaled through a float or reduced
//! with `% bound` on random bits):
//!
//! * [`below`]: Lemire's nearly-divisionless method (D. Lemire, "Fast Random
//!   Integer Generation in an Interval", ACM TOMACS 29(1), 2019). Multiply a
//!   64-bit random word by the bound; the high half is the result; reject the
//!   rare words whose low half falls below `2^64 mod bound`.
//! * [`for_each_below`]: batched draws (N. Brackett-Rozinsky and D. Lemire,
//!   "Batched Ranged Random Integer Generation", Software: Practice and
//!   Experience, 2024). Several bounds `b1, b2, ..., bk` whose product `p` is
//!   small are served by one 64-bit word: `x * p` is computed one factor at a
//!   time, each high half is one digit, and the final low half is tested
//!   against `2^64 mod p` exactly as in Lemire's method. The digits are the
//!   mixed-radix expansion of a uniform integer below `p`, so each is uniform
//!   and they are independent.

use rand_core::Rng;

/// The largest product of bounds served by one 64-bit word. A batch is
/// rejected with probability `(2^64 mod p) / 2^64 < p / 2^64 <= 2^-6`.
/// At 2^58 a 52-card deck takes 4 words instead of 5 at 2^56; the rare
/// redraw costs far less than the word saved (figures in BENCHMARKS.md).
pub(crate) const BATCH_LIMIT: u64 = 1 << 58;

/// At most this many bounds share one word: a fixed cap (below the 58
/// bounds of 2 that [`BATCH_LIMIT`] would allow, and bounds of 1 would not
/// grow the product at all) so that the digit buffers have a fixed size.
pub(crate) const MAX_BATCH: usize = 56;

/// A uniformly distributed integer in `0..bound`, exactly unbiased.
///
/// Lemire's nearly-divisionless method: one 64x64-bit multiplication per
/// draw, a division only when the low half lands in the rejection zone.
///
/// # Panics
/// When `bound` is 0.
///
/// # Example
/// ```
/// use knuffle::{below, Seed};
/// let mut rng = Seed::from_text("dice").rng();
/// let roll = below(6, &mut rng) + 1;
/// assert!((1..=6).contains(&roll));
/// ```
#[inline]
#[must_use]
pub fn below<R: Rng + ?Sized>(bound: u64, rng: &mut R) -> u64 {
    assert!(bound > 0, "knuffle::below: the bound must be at least 1");
    let mut product = u128::from(rng.next_u64()) * u128::from(bound);
    let mut low = product as u64;
    if low < bound {
        // 2^64 mod bound, computed on the bound, not on random bits.
        let threshold = bound.wrapping_neg() % bound;
        while low < threshold {
            product = u128::from(rng.next_u64()) * u128::from(bound);
            low = product as u64;
        }
    }
    (product >> 64) as u64
}

/// Draws `count` independent uniform integers, the `step`-th one in
/// `0..bound_at(step)`, and hands each to `emit(step, value)` in order of
/// `step`. Consecutive small bounds share one 64-bit word (batched draws,
/// Brackett-Rozinsky & Lemire 2024); a bound above 2^58 gets a word of its
/// own through [`below`]. Every value is exactly uniform and independent of
/// the others.
///
/// This is the draw engine under every shuffle of the library; it is public
/// so that instrumented re-implementations (the bias lab's zoo, step traces)
/// consume the generator word for word as the library does. The words
/// consumed, and so the output, depend only on the generator and the
/// bounds: part of knuffle's value-stability promise (golden vectors pin it).
///
/// # Example
/// ```
/// use knuffle::{for_each_below, Seed};
/// // Durstenfeld's loop, written out: bounds n, n-1, ..., 2.
/// let mut rng = Seed::from_text("golden-10").rng();
/// let mut v: Vec<usize> = (0..10).collect();
/// let n = v.len();
/// for_each_below(n - 1, |step| (n - step) as u64, &mut rng, |step, j| {
///     v.swap(n - 1 - step, j as usize)
/// });
/// assert_eq!(v, knuffle::permutation(10, &mut Seed::from_text("golden-10").rng()));
/// ```
#[inline]
pub fn for_each_below<R, B, F>(count: usize, bound_at: B, rng: &mut R, mut emit: F)
where
    R: Rng + ?Sized,
    B: Fn(usize) -> u64,
    F: FnMut(usize, u64),
{
    let mut step = 0;
    while step < count {
        let first = bound_at(step);
        debug_assert!(first > 0, "bounds must be at least 1");
        if first > BATCH_LIMIT {
            emit(step, below(first, rng));
            step += 1;
            continue;
        }
        let mut product = first;
        let mut len = 1;
        while len < MAX_BATCH && step + len < count {
            match product.checked_mul(bound_at(step + len)) {
                Some(p) if p <= BATCH_LIMIT => {
                    product = p;
                    len += 1;
                }
                _ => break,
            }
        }
        let mut low = accepted_word(product, rng);
        for offset in 0..len {
            let wide = u128::from(low) * u128::from(bound_at(step + offset));
            emit(step + offset, (wide >> 64) as u64);
            low = wide as u64;
        }
        step += len;
    }
}

/// The first word that passes Lemire's test for a batch whose bounds
/// multiply to `product`: a word `x` is rejected when
/// `x * product mod 2^64 < 2^64 mod product`. The low half left after
/// multiplying by every bound in turn is `x * product mod 2^64`, so the
/// test needs no digits; the exact threshold is below `product`, so it is
/// only computed when the low half is.
#[inline(always)]
pub(crate) fn accepted_word<R: Rng + ?Sized>(product: u64, rng: &mut R) -> u64 {
    let mut word = rng.next_u64();
    if word.wrapping_mul(product) < product {
        let threshold = product.wrapping_neg() % product;
        while word.wrapping_mul(product) < threshold {
            word = rng.next_u64();
        }
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Seed;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    /// A generator that replays fixed words, to drive the rejection branch.
    struct Replay(Vec<u64>, usize);
    impl rand_core::TryRng for Replay {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok(self.try_next_u64()? as u32)
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            let word = self.0[self.1];
            self.1 += 1;
            Ok(word)
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
            for byte in dst {
                *byte = self.try_next_u64()? as u8;
            }
            Ok(())
        }
    }

    #[test]
    fn below_rejects_the_biased_zone() {
        // bound 3: 2^64 mod 3 == 1, so the word 0 (low half 0 < 1) is rejected.
        let mut rng = Replay(vec![0, u64::MAX], 0);
        assert_eq!(below(3, &mut rng), 2);
        assert_eq!(rng.1, 2, "the first word must have been rejected");
    }

    #[test]
    fn below_covers_every_value_and_only_those() {
        let mut rng = Seed::from_text("below").rng();
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[below(7, &mut rng) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800), "{seen:?}");
        assert_eq!(below(1, &mut rng), 0);
        let big = below(u64::MAX, &mut rng);
        assert!(big < u64::MAX);
    }

    #[test]
    fn batched_digits_are_the_mixed_radix_expansion() {
        // One word w; bounds 6, 5, 4 (product 120). Compare with a direct
        // Lemire draw on 120 from the same word, decomposed by hand.
        let word = 0x9E37_79B9_7F4A_7C15u64;
        let mut direct = Replay(vec![word], 0);
        let d = below(120, &mut direct);
        let mut batched = Replay(vec![word], 0);
        let mut got = Vec::new();
        for_each_below(3, |s| [6, 5, 4][s], &mut batched, |_, v| got.push(v));
        assert_eq!(got, vec![d / 20, (d / 4) % 5, d % 4]);
    }

    #[test]
    fn batches_reject_and_retry_as_a_whole() {
        // bounds 3,3: product 9, 2^64 mod 9 == 7. Word 0 leaves low 0 < 7: rejected.
        let mut rng = Replay(vec![0, u64::MAX], 0);
        let mut got = Vec::new();
        for_each_below(2, |_| 3, &mut rng, |s, v| got.push((s, v)));
        assert_eq!(rng.1, 2);
        assert_eq!(got, vec![(0, 2), (1, 2)]);
    }
}
