//! The Fisher–Yates family: in-place shuffle, deal (partial shuffle),
//! shuffled copy (inside-out), Sattolo's cyclic permutation.
//!
//! Every function draws its indices through [`for_each_below`], so each
//! swap partner is exactly uniform, and several small draws share one
//! 64-bit word.

use rand_core::Rng;

use crate::bounded::{BATCH_LIMIT, MAX_BATCH, accepted_word, below, for_each_below};

/// Shuffles `slice` in place; every one of the `n!` orders is equally likely.
///
/// Durstenfeld's form of the Fisher–Yates shuffle (R. Durstenfeld, "Algorithm
/// 235: Random permutation", CACM 7(7), 1964; Knuth, TAOCP vol. 2, §3.4.2,
/// Algorithm P): for `i` from `n-1` down to 1, swap element `i` with a
/// uniformly chosen element of `0..=i`. Each of the `n!` sequences of choices
/// gives a different order, so each order has probability exactly `1/n!`
/// (given a perfect generator).
///
/// # Example
/// ```
/// use knuffle::{shuffle, Seed};
/// let mut rng = Seed::from_text("example").rng();
/// let mut deck: Vec<u32> = (0..52).collect();
/// shuffle(&mut deck, &mut rng);
/// let mut sorted = deck.clone();
/// sorted.sort();
/// assert_eq!(sorted, (0..52).collect::<Vec<_>>());
/// ```
///
/// # Large slices
/// Slices larger than 16 MiB (of elements up to 1 KiB) are shuffled by an
/// in-place scatter into random buckets (Sandelius 1962, Sanders 1998),
/// equally exactly uniform and several times faster there; it never holds
/// a second copy of the slice (its buffers take at most 2 MiB, plus one
/// byte per block of 1 KiB, or of 128 elements smaller than 8 bytes). The
/// caller's generator then only supplies a 256-bit key. The permutation
/// depends on the generator state, the length, and the element size class
/// (the size rounded up to a power of two, at least 8 bytes). See
/// [`par_shuffle`](crate::par_shuffle) for the same permutation on several
/// threads.
pub fn shuffle<T, R: Rng + ?Sized>(slice: &mut [T], rng: &mut R) {
    crate::scatter::shuffle_with_config(
        slice,
        rng,
        &crate::scatter::ShuffleConfig::for_type::<T>(),
    );
}

/// Durstenfeld's loop itself, with batched bounded draws: the small-slice
/// branch of [`shuffle`] and the base case of the scatter.
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
            slice.swap(top, below(rng, first) as usize);
            top -= 1;
            continue;
        }
        let (len, product) = batch_at(top);
        let mut low = accepted_word(rng, product);
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
                digits[0] = below(rng, first) as usize;
                1
            } else {
                let (len, product) = batch_at(top);
                let word = accepted_word(rng, product);
                batch_partners(word, top, &mut digits[..len]);
                len
            };
            for (step, &partner) in digits[..len].iter().enumerate() {
                crate::scatter::prefetch(slice, partner, 0);
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

/// Deals `k` elements: afterwards the **front** `k` elements of `slice` are a
/// uniformly random selection of `k` of the `n`, in uniformly random order.
/// Returns `(dealt, rest)`, i.e. `slice.split_at_mut(k)`. Cost O(k).
///
/// This is the forward Fisher–Yates loop (seed 004's corrected BASIC program;
/// Knuth, TAOCP vol. 2, §3.4.2): for `i` in `0..k` swap element `i` with a
/// uniform element of `i..n`, stopping after `k` steps (seed 001's partial
/// deal). The order of `rest` is not random. When `k >= n` the whole slice is
/// shuffled and `rest` is empty.
///
/// # Example
/// ```
/// use knuffle::{partial_shuffle, Seed};
/// let mut rng = Seed::from_text("poker night").rng();
/// let mut deck: Vec<u8> = (0..52).collect();
/// let (hand, rest) = partial_shuffle(&mut deck, 5, &mut rng);
/// assert_eq!(hand.len(), 5);
/// assert_eq!(rest.len(), 47);
/// ```
pub fn partial_shuffle<'a, T, R: Rng + ?Sized>(
    slice: &'a mut [T],
    k: usize,
    rng: &mut R,
) -> (&'a mut [T], &'a mut [T]) {
    let n = slice.len();
    let k = k.min(n);
    // The last step of a full deal has a single choice: no draw is needed.
    let steps = k.min(n.saturating_sub(1));
    for_each_below(
        rng,
        steps,
        |step| (n - step) as u64,
        |step, offset| slice.swap(step, step + offset as usize),
    );
    slice.split_at_mut(k)
}

/// Returns a uniformly shuffled copy of `items`, leaving the input unchanged
/// (seed 000's array routine).
///
/// The "inside-out" Fisher–Yates variant (Durstenfeld 1964; Knuth, TAOCP
/// vol. 2, §3.4.2; described as "inside-out" by Wikipedia's Fisher–Yates
/// article): element `i` is appended, then swapped with a uniform position in
/// `0..=i`. After step `i` the prefix is a uniform permutation of the first
/// `i+1` items, by induction. One pass, one clone per element.
///
/// # Example
/// ```
/// use knuffle::{shuffled, Seed};
/// let mut rng = Seed::from_text("copy").rng();
/// let letters = ["A", "B", "C", "D"];
/// let mixed = shuffled(&letters, &mut rng);
/// assert_eq!(letters, ["A", "B", "C", "D"]); // untouched
/// assert_eq!(mixed.len(), 4);
/// ```
pub fn shuffled<T: Clone, R: Rng + ?Sized>(items: &[T], rng: &mut R) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(items.len());
    for_each_below(
        rng,
        items.len(),
        |step| step as u64 + 1,
        |step, j| {
            out.push(items[step].clone());
            out.swap(step, j as usize);
        },
    );
    out
}

/// Rearranges `slice` into a uniformly random **cyclic** permutation: one
/// cycle through all `n` positions, so no element stays where it was (for
/// `n >= 2`). Each of the `(n-1)!` cyclic orders is equally likely.
///
/// S. Sattolo, "An algorithm to generate a random cyclic permutation",
/// Information Processing Letters 22(6), 1986: Durstenfeld's loop with the
/// partner drawn from `0..i` instead of `0..=i`. It is *not* a uniform
/// shuffle: only `(n-1)!` of the `n!` orders can occur.
///
/// # Example
/// ```
/// use knuffle::{sattolo, Seed};
/// let mut rng = Seed::from_text("secret santa").rng();
/// let mut giver_to: Vec<usize> = (0..6).collect();
/// sattolo(&mut giver_to, &mut rng);
/// assert!(giver_to.iter().enumerate().all(|(i, &j)| i != j));
/// ```
pub fn sattolo<T, R: Rng + ?Sized>(slice: &mut [T], rng: &mut R) {
    let n = slice.len();
    if n < 2 {
        return;
    }
    for_each_below(
        rng,
        n - 1,
        |step| (n - 1 - step) as u64,
        |step, j| slice.swap(n - 1 - step, j as usize),
    );
}

/// A uniformly random permutation of `0..n`: exactly `shuffle` applied to
/// the identity `[0, 1, ..., n-1]` with the same generator.
///
/// # Example
/// ```
/// use knuffle::{permutation, Seed};
/// let mut rng = Seed::from_text("perm").rng();
/// let p = permutation(10, &mut rng);
/// let mut seen = p.clone();
/// seen.sort();
/// assert_eq!(seen, (0..10).collect::<Vec<usize>>());
/// ```
pub fn permutation<R: Rng + ?Sized>(n: usize, rng: &mut R) -> Vec<usize> {
    let mut identity: Vec<usize> = (0..n).collect();
    crate::shuffle(&mut identity, rng);
    identity
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Seed;

    /// Durstenfeld's loop written plainly on top of `for_each_below`.
    fn reference<T>(slice: &mut [T], rng: &mut crate::DefaultRng) {
        let n = slice.len();
        if n >= 2 {
            for_each_below(
                rng,
                n - 1,
                |step| (n - step) as u64,
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
