//! The Fisher–Yates family: in-place shuffle, deal (partial shuffle),
//! shuffled copy (inside-out), Sattolo's cyclic permutation.
//!
//! Every function draws its indices through [`for_each_below`], so each
//! swap partner is exactly uniform, and several small draws share one
//! 64-bit word.

use rand_core::Rng;

use alloc::vec::Vec;

use crate::bounded::for_each_below;

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

/// Deals `k` elements: afterwards the **front** `k` elements of `slice` are a
/// uniformly random selection of `k` of the `n`, in uniformly random order.
/// Returns `(dealt, rest)`, i.e. `slice.split_at_mut(k)`. Cost O(k).
///
/// This is the forward Fisher–Yates loop (the corrected BASIC program of "Random
/// BASIC shuffling revisited";
/// Knuth, TAOCP vol. 2, §3.4.2): for `i` in `0..k` swap element `i` with a
/// uniform element of `i..n`, stopping after `k` steps (the partial
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
        steps,
        |step| (n - step) as u64,
        rng,
        |step, offset| slice.swap(step, step + offset as usize),
    );
    slice.split_at_mut(k)
}

/// Returns a uniformly shuffled copy of `items`, leaving the input unchanged
/// (the array routine KnuthArrShuffle of "Visual Basic for Applications/The
/// Knuth String Shuffle", Wikibooks).
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
#[must_use]
pub fn shuffled<T: Clone, R: Rng + ?Sized>(items: &[T], rng: &mut R) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(items.len());
    for_each_below(
        items.len(),
        |step| step as u64 + 1,
        rng,
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
        n - 1,
        |step| (n - 1 - step) as u64,
        rng,
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
#[must_use]
pub fn permutation<R: Rng + ?Sized>(n: usize, rng: &mut R) -> Vec<usize> {
    let mut identity: Vec<usize> = (0..n).collect();
    crate::shuffle(&mut identity, rng);
    identity
}
