//! Durstenfeld's loop (the in-place Fisher–Yates shuffle) with batched
//! bounded draws: the small-slice branch of [`shuffle`](crate::shuffle) and
//! the base case of the scatter.
//!
//! R. Durstenfeld, "Algorithm 235: Random permutation", CACM 7(7), 1964;
//! D. E. Knuth, TAOCP vol. 2, §3.4.2, Algorithm P. The partners are drawn
//! exactly as [`for_each_below`](crate::for_each_below) draws the bounds
//! `n, n-1, ..., 2` (N. Brackett-Rozinsky and D. Lemire, "Batched Ranged
//! Random Integer Generation", 2024).

use rand_core::Rng;

use crate::bounded::{BATCH_LIMIT, MAX_BATCH, accepted_word, below};
use crate::prefetch::prefetch;

/// Durstenfeld's loop itself, with batched bounded draws: the small-slice
/// branch of [`shuffle`](crate::shuffle) and the base case of the scatter.
#[inline]
pub(crate) fn durstenfeld<T, R: Rng + ?Sized>(slice: &mut [T], rng: &mut R) {
    // The draws are exactly those of `for_each_below` with the bounds
    // `n, n-1, ..., 2` (same batches, same words, same rejections), but each
    // batch swaps as it extracts its digits; a word is tested for rejection
    // (less than one chance in 2^6) before any of its swaps.
    if slice.len().saturating_mul(size_of::<T>()) >= PREFETCH_MIN_BYTES {
        durstenfeld_prefetched(slice, rng);
    } else {
        durstenfeld_in_cache(slice, rng);
    }
}

/// [`durstenfeld`] for slices that fit in the cache: each batch swaps as
/// it extracts its digits (a rejected word is tested, from `word *
/// product`, before any swap).
fn durstenfeld_in_cache<T, R: Rng + ?Sized>(slice: &mut [T], rng: &mut R) {
    let Some(mut top) = slice.len().checked_sub(1) else {
        return;
    };
    while top > 0 {
        let first = top as u64 + 1;
        if first > BATCH_LIMIT {
            slice.swap(top, below(first, rng) as usize);
            top -= 1;
            continue;
        }
        let (len, product) = batch_at(top);
        let mut low = accepted_word(product, rng);
        for pos in (top + 1 - len..=top).rev() {
            let wide = u128::from(low) * u128::from(pos as u64 + 1);
            slice.swap(pos, (wide >> 64) as usize);
            low = wide as u64;
        }
        top -= len;
    }
}

/// The batch starting at `top` (tabulated below 256).
#[inline(always)]
fn batch_at(top: usize) -> (usize, u64) {
    match SMALL_BATCHES.get(top) {
        Some(&(len, product)) => (usize::from(len), product),
        None => batch_from(top),
    }
}

/// The digits of an accepted `word` for the bounds `top + 1, top, ...`:
/// the partners of positions `top, top - 1, ...`.
#[inline(always)]
fn batch_partners(word: u64, top: usize, partners: &mut [usize]) {
    let mut low = word;
    for (step, partner) in partners.iter_mut().enumerate() {
        let wide = u128::from(low) * u128::from((top - step) as u64 + 1);
        *partner = (wide >> 64) as usize;
        low = wide as u64;
    }
}

/// From this size on, Durstenfeld's loop draws its partners ahead and
/// prefetches them: the array no longer sits in the level-2 cache, and the
/// bookkeeping pays for itself.
const PREFETCH_MIN_BYTES: usize = 1 << 20;
/// Swaps drawn ahead of the one being done.
const DRAW_AHEAD: usize = 32;

/// Durstenfeld's loop for slices beyond the level-1 cache. Which partner
/// each position gets depends on the generator only, never on the data, so
/// the partners are drawn [`DRAW_AHEAD`] swaps early (the very same words,
/// batches and rejections as [`durstenfeld`], hence the same permutation)
/// and their cache lines requested at once: the misses overlap instead of
/// coming one after the other.
fn durstenfeld_prefetched<T, R: Rng + ?Sized>(slice: &mut [T], rng: &mut R) {
    const RING: usize = 128; // > DRAW_AHEAD + MAX_BATCH
    let mut ring = [(0usize, 0usize); RING];
    let (mut head, mut tail) = (0usize, 0usize);
    let mut digits = [0usize; MAX_BATCH];
    let mut top = slice.len().saturating_sub(1);
    loop {
        while tail - head < DRAW_AHEAD && top > 0 {
            let first = top as u64 + 1;
            let len = if first > BATCH_LIMIT {
                digits[0] = below(first, rng) as usize;
                1
            } else {
                let (len, product) = batch_at(top);
                let word = accepted_word(product, rng);
                batch_partners(word, top, &mut digits[..len]);
                len
            };
            for (step, &partner) in digits[..len].iter().enumerate() {
                prefetch(slice, partner, 0);
                ring[tail % RING] = (top - step, partner);
                tail += 1;
            }
            top -= len;
        }
        if head == tail {
            return;
        }
        let (pos, partner) = ring[head % RING];
        head += 1;
        slice.swap(pos, partner);
    }
}

/// The batch that starts at position `top` of Durstenfeld's loop: how many
/// positions (`top`, `top - 1`, ...) share one word, and the product of
/// their bounds (`top + 1`, `top`, ...), at most [`BATCH_LIMIT`] and
/// [`MAX_BATCH`] long, never reaching position 0.
const fn batch_from(top: usize) -> (usize, u64) {
    let mut product = top as u64 + 1;
    let mut len = 1;
    while len < MAX_BATCH && len < top {
        match product.checked_mul((top - len) as u64 + 1) {
            Some(p) if p <= BATCH_LIMIT => {
                product = p;
                len += 1;
            }
            _ => break,
        }
    }
    (len, product)
}

/// [`batch_from`] for the tops below 256, computed at compile time: small
/// decks skip the chain of multiplications that sizes each batch.
static SMALL_BATCHES: [(u8, u64); 256] = {
    let mut table = [(0u8, 0u64); 256];
    let mut top = 1;
    while top < 256 {
        let (len, product) = batch_from(top);
        table[top] = (len as u8, product);
        top += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Seed;
    use crate::bounded::for_each_below;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    /// Durstenfeld's loop written plainly on top of `for_each_below`.
    fn reference<T>(slice: &mut [T], rng: &mut crate::DefaultRng) {
        let n = slice.len();
        if n >= 2 {
            for_each_below(
                n - 1,
                |step| (n - step) as u64,
                rng,
                |step, j| slice.swap(n - 1 - step, j as usize),
            );
        }
    }

    #[test]
    fn both_loops_match_the_plain_batched_loop_rejections_included() {
        // Thousands of seeds: a few hundred batches are rejected on the
        // way, so the rejection path runs too.
        for seed in 0..3000 {
            for n in [0, 1, 2, 3, 52, 100, 300] {
                let mut rng = Seed::from_text(&format!("loops-{seed}")).rng();
                let mut expected: Vec<u16> = (0..n).collect();
                let mut rng_ref = rng.clone();
                reference(&mut expected, &mut rng_ref);
                let mut a: Vec<u16> = (0..n).collect();
                let mut b = a.clone();
                let mut rng_b = rng.clone();
                durstenfeld_in_cache(&mut a, &mut rng);
                durstenfeld_prefetched(&mut b, &mut rng_b);
                assert!(a == expected && b == expected, "seed {seed} n={n}");
                // The same words consumed, no more and no fewer.
                let next = rng_ref.next_u64();
                assert_eq!((rng.next_u64(), rng_b.next_u64()), (next, next));
            }
        }
    }

    #[test]
    fn prefetched_and_in_cache_loops_give_the_same_permutation() {
        for n in [2, 3, 57, 4096, 300_001] {
            let mut a: Vec<u64> = (0..n).collect();
            let mut b = a.clone();
            let mut rng_a = Seed::from_text("two loops").rng();
            let mut rng_b = rng_a.clone();
            durstenfeld_in_cache(&mut a, &mut rng_a);
            durstenfeld_prefetched(&mut b, &mut rng_b);
            assert!(a == b, "n={n}");
            assert_eq!(rng_a.next_u64(), rng_b.next_u64());
        }
    }
}
