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
use crate::prefetch::{prefetch, prefetch_at};

/// Durstenfeld's loop itself, with batched bounded draws: the small-slice
/// branch of [`shuffle`](crate::shuffle).
#[inline]
pub(crate) fn durstenfeld<T, R: Rng + ?Sized>(slice: &mut [T], rng: &mut R) {
    durstenfeld_fetching_next(slice, rng, 0);
}

/// [`durstenfeld`] that also brings the `next_bytes` bytes after the end of
/// `slice` into the cache, a line at a time spread over its swaps: the
/// scatter's next bucket then arrives while this one is shuffled, instead
/// of being waited for. The lines are only hinted, never read.
#[inline]
pub(crate) fn durstenfeld_fetching_next<T, R: Rng + ?Sized>(
    slice: &mut [T],
    rng: &mut R,
    next_bytes: usize,
) {
    // The draws are exactly those of `for_each_below` with the bounds
    // `n, n-1, ..., 2` (same batches, same words, same rejections); a word
    // is tested for rejection (less than one chance in 2^6) before any of
    // its swaps.
    let fetch = FetchNext::after(slice, next_bytes);
    if slice.len().saturating_mul(size_of::<T>()) >= PREFETCH_MIN_BYTES {
        let mut swaps = (Pipeline::new(slice.len()), fetch);
        draw_partners(slice, rng, &mut swaps);
        swaps.0.finish(slice);
    } else if next_bytes > 0 {
        draw_partners(slice, rng, &mut (SwapAtOnce, fetch));
    } else {
        draw_partners(slice, rng, &mut SwapAtOnce);
    }
}

/// Hints the lines after a slice into the cache, one every `every` swaps
/// (so that they are spread evenly over the slice's shuffle).
struct FetchNext {
    next: *const u8,
    end: *const u8,
    every: usize,
    countdown: usize,
}

impl FetchNext {
    fn after<T>(slice: &[T], bytes: usize) -> FetchNext {
        let start = slice.as_ptr_range().end.cast::<u8>();
        let lines = bytes.div_ceil(64).max(1);
        let every = (slice.len() / lines).max(1);
        FetchNext {
            next: start,
            end: start.wrapping_add(bytes),
            every,
            countdown: every,
        }
    }
}

impl<T> Swaps<T> for FetchNext {
    #[inline(always)]
    fn swap(&mut self, _: &mut [T], _: usize, _: usize) {
        self.countdown -= 1;
        if self.countdown == 0 {
            self.countdown = self.every;
            if self.next < self.end {
                prefetch_at(self.next, 0, 0);
                self.next = self.next.wrapping_add(64);
            }
        }
    }
}

impl<T, A: Swaps<T>, B: Swaps<T>> Swaps<T> for (A, B) {
    #[inline(always)]
    fn swap(&mut self, slice: &mut [T], pos: usize, partner: usize) {
        self.0.swap(slice, pos, partner);
        self.1.swap(slice, pos, partner);
    }
}

/// Where the drawn swaps go: done at once (a slice in the cache), or
/// queued behind prefetches ([`Pipeline`]).
trait Swaps<T> {
    /// Position `pos` (each one once, from the top down) gets `partner`.
    fn swap(&mut self, slice: &mut [T], pos: usize, partner: usize);
}

/// Every swap done as soon as it is drawn.
struct SwapAtOnce;

impl<T> Swaps<T> for SwapAtOnce {
    #[inline(always)]
    fn swap(&mut self, slice: &mut [T], pos: usize, partner: usize) {
        slice.swap(pos, partner);
    }
}

/// From this size on, Durstenfeld's loop draws its partners ahead and
/// prefetches them: the array no longer sits in the level-2 cache, and the
/// bookkeeping pays for itself.
const PREFETCH_MIN_BYTES: usize = 1 << 20;
/// Swaps drawn ahead of the one being done.
const DRAW_AHEAD: usize = 32;

/// Swaps for slices beyond the level-2 cache. Which partner each position
/// gets depends on the generator only, never on the data, so the partners
/// are drawn [`DRAW_AHEAD`] swaps early (the very same words, batches and
/// rejections, hence the same permutation) and their cache lines
/// requested at once: the misses overlap instead of coming one after the
/// other. The positions come from the top down, one each, so the queue
/// holds only the partners.
struct Pipeline {
    partners: [usize; DRAW_AHEAD],
    /// Swaps queued so far, and done so far.
    queued: usize,
    done: usize,
    /// The first position queued (the slice's last).
    top: usize,
}

impl Pipeline {
    fn new(len: usize) -> Self {
        Self {
            partners: [0; DRAW_AHEAD],
            queued: 0,
            done: 0,
            top: len.saturating_sub(1),
        }
    }

    #[inline(always)]
    fn swap_oldest<T>(&mut self, slice: &mut [T]) {
        let partner = self.partners[self.done % DRAW_AHEAD];
        slice.swap(self.top - self.done, partner);
        self.done += 1;
    }

    /// Does the swaps still queued.
    fn finish<T>(mut self, slice: &mut [T]) {
        while self.done < self.queued {
            self.swap_oldest(slice);
        }
    }
}

impl<T> Swaps<T> for Pipeline {
    #[inline(always)]
    fn swap(&mut self, slice: &mut [T], pos: usize, partner: usize) {
        debug_assert_eq!(pos, self.top - self.queued);
        prefetch(slice, partner, 0);
        if self.queued - self.done == DRAW_AHEAD {
            self.swap_oldest(slice);
        }
        self.partners[self.queued % DRAW_AHEAD] = partner;
        self.queued += 1;
    }
}

/// Durstenfeld's loop: draws each position's partner, from the top down,
/// and hands the pair to `swaps`.
///
/// Above the table (positions 256 and up) the batch length only grows as
/// the position falls, so the loop runs in stretches of one length `L`
/// (given by [`TOP_LIMITS`]), each compiled for its `L`: no batch sizing
/// per word, and the rejection test reads the low half left by the digits
/// (see [`draw_batch`]). Below 256 the batches come from the table.
#[inline(always)]
fn draw_partners<T, R: Rng + ?Sized, S: Swaps<T>>(slice: &mut [T], rng: &mut R, swaps: &mut S) {
    let Some(mut top) = slice.len().checked_sub(1) else {
        return;
    };
    while top as u64 >= BATCH_LIMIT {
        let partner = below(top as u64 + 1, rng) as usize;
        swaps.swap(slice, top, partner);
        top -= 1;
    }
    while top >= SMALL_BATCHES.len() {
        let len = stretch_len(top);
        let stop = (TOP_LIMITS[len + 1] as usize).max(SMALL_BATCHES.len() - 1);
        top = match len {
            1 => stretch::<1, T, R, S>(slice, top, stop, rng, swaps),
            2 => stretch::<2, T, R, S>(slice, top, stop, rng, swaps),
            3 => stretch::<3, T, R, S>(slice, top, stop, rng, swaps),
            4 => stretch::<4, T, R, S>(slice, top, stop, rng, swaps),
            5 => stretch::<5, T, R, S>(slice, top, stop, rng, swaps),
            6 => stretch::<6, T, R, S>(slice, top, stop, rng, swaps),
            _ => stretch::<7, T, R, S>(slice, top, stop, rng, swaps),
        };
    }
    while top > 0 {
        let (len, product) = SMALL_BATCHES[top];
        let mut low = accepted_word(product, rng);
        for pos in (top + 1 - usize::from(len)..=top).rev() {
            let wide = u128::from(low) * u128::from(pos as u64 + 1);
            swaps.swap(slice, pos, (wide >> 64) as usize);
            low = wide as u64;
        }
        top -= usize::from(len);
    }
}

/// Durstenfeld's loop from position `top` down to (not including) `stop`,
/// `L` positions per word; returns the position reached (the last batch
/// may end below `stop`, as [`batch_from`] would have sized it too).
#[inline(always)]
fn stretch<const L: usize, T, R: Rng + ?Sized, S: Swaps<T>>(
    slice: &mut [T],
    mut top: usize,
    stop: usize,
    rng: &mut R,
    swaps: &mut S,
) -> usize {
    while top > stop {
        if let Some(partners) = draw_batch::<L, R>(top, rng) {
            for (step, partner) in partners.into_iter().enumerate() {
                swaps.swap(slice, top - step, partner);
            }
            top -= L;
        }
    }
    top
}

/// The partners of positions `top, top - 1, ..., top - L + 1` from one
/// word, or `None` when Lemire's test rejects the word (the caller draws
/// again). After the digits the low half is `word * product mod 2^64`;
/// the threshold `2^64 mod product` is below `product <= BATCH_LIMIT`, so
/// a low half of at least [`BATCH_LIMIT`] passes without computing either
/// (all but one word in 2^6).
#[inline(always)]
fn draw_batch<const L: usize, R: Rng + ?Sized>(top: usize, rng: &mut R) -> Option<[usize; L]> {
    let mut low = rng.next_u64();
    let mut partners = [0usize; L];
    for (step, partner) in partners.iter_mut().enumerate() {
        let wide = u128::from(low) * u128::from((top - step) as u64 + 1);
        *partner = (wide >> 64) as usize;
        low = wide as u64;
    }
    if low < BATCH_LIMIT {
        let product: u64 = (0..L).map(|step| (top - step) as u64 + 1).product();
        if low < product.wrapping_neg() % product {
            return None;
        }
    }
    Some(partners)
}

/// `TOP_LIMITS[len]`: the largest position whose batch holds `len`
/// positions, i.e. the largest `t` with `(t + 1) t ... (t + 2 - len) <=
/// BATCH_LIMIT`. Decreasing in `len`; `TOP_LIMITS[8]` is below 256, so
/// above the table a batch holds 1 to 7 positions.
static TOP_LIMITS: [u64; 9] = {
    let mut limits = [0u64; 9];
    let mut len = 1;
    while len < 9 {
        let (mut low, mut high) = (0u64, BATCH_LIMIT);
        while low < high {
            let mid = low + (high - low).div_ceil(2);
            let mut product: u128 = 1;
            let mut factor = 0;
            while factor < len && product <= BATCH_LIMIT as u128 {
                product *= (mid + 1 - factor as u64) as u128;
                factor += 1;
            }
            if product <= BATCH_LIMIT as u128 {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        limits[len] = low;
        len += 1;
    }
    limits
};

/// The batch length at position `top` (at least 256, below
/// [`BATCH_LIMIT`]): the largest `len` with `top <= TOP_LIMITS[len]`.
#[inline]
fn stretch_len(top: usize) -> usize {
    (2..=7)
        .take_while(|&len| top as u64 <= TOP_LIMITS[len])
        .last()
        .unwrap_or(1)
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

    fn durstenfeld_in_cache<T>(slice: &mut [T], rng: &mut crate::DefaultRng) {
        draw_partners(slice, rng, &mut SwapAtOnce);
    }

    fn durstenfeld_prefetched<T>(slice: &mut [T], rng: &mut crate::DefaultRng) {
        let mut pipeline = Pipeline::new(slice.len());
        draw_partners(slice, rng, &mut pipeline);
        pipeline.finish(slice);
    }

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
    fn stretch_lengths_are_the_batch_lengths() {
        assert_eq!(
            &TOP_LIMITS[1..],
            &[
                (1 << 58) - 1,
                536_870_911,
                660_561,
                23_170,
                3_105,
                814,
                314,
                154
            ]
        );
        let edges = TOP_LIMITS[2..8].iter().flat_map(|&t| [t - 1, t, t + 1]);
        for top in (256..5000).chain(edges.map(|t| t as usize)) {
            assert_eq!(stretch_len(top), batch_from(top).0, "top {top}");
        }
    }

    #[test]
    fn prefetched_and_in_cache_loops_give_the_same_permutation() {
        for n in [2, 3, 57, 257, 316, 4096, 23_172, 300_001, 700_000] {
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
