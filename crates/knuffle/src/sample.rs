//! Sampling without replacement: `k` distinct indices of a huge range
//! (Floyd), and `k` items of a stream of unknown length (reservoir).

use alloc::vec::Vec;

use rand_core::Rng;

use crate::bounded::below;
use crate::shuffle::partial_shuffle;

/// `k` distinct integers from `0..n`, uniformly chosen, in uniformly random
/// order. O(k) time and memory, whatever `n` (up to `u64::MAX`).
///
/// Robert Floyd's algorithm (J. Bentley and R. Floyd, "A sample of
/// brilliance", CACM 30(9), 1987): for `j` in `n-k..n`, draw `t` in `0..=j`;
/// take `t`, or `j` if `t` was already taken. Every `k`-subset is equally
/// likely; the chosen set is then put in uniform order by a shuffle. When
/// `k` is at least half of `n`, a partial shuffle of `0..n` is used instead
/// (still O(k) memory, since then `n <= 2k`).
///
/// # Panics
/// When `k > n`.
///
/// # Example
/// ```
/// use knuffle::{sample_indices, Seed};
/// let mut rng = Seed::from_text("lottery").rng();
/// let draw = sample_indices(u64::MAX, 3, &mut rng);
/// assert_eq!(draw.len(), 3);
/// assert!(draw[0] != draw[1] && draw[1] != draw[2] && draw[0] != draw[2]);
/// ```
#[must_use]
pub fn sample_indices<R: Rng + ?Sized>(n: u64, k: usize, rng: &mut R) -> Vec<u64> {
    let k64 = k as u64;
    assert!(
        k64 <= n,
        "knuffle::sample_indices: cannot choose {k} distinct values from 0..{n}"
    );
    if n <= k64.saturating_mul(2) {
        // n <= 2k, so n fits in memory as well as k does.
        let mut all: Vec<u64> = (0..n).collect();
        partial_shuffle(&mut all, k, rng);
        all.truncate(k);
        return all;
    }
    let mut chosen: Vec<u64> = Vec::with_capacity(k);
    // Only membership is asked, so the set type never changes the result.
    #[cfg(feature = "std")]
    let mut taken = std::collections::HashSet::with_capacity(k);
    #[cfg(not(feature = "std"))]
    let mut taken = alloc::collections::BTreeSet::new();
    for j in (n - k64)..n {
        let t = below(j + 1, rng);
        let pick = if taken.contains(&t) { j } else { t };
        taken.insert(pick);
        chosen.push(pick);
    }
    crate::shuffle(&mut chosen, rng);
    chosen
}

/// [`sample_indices`] for slice positions: `k` distinct indices of
/// `0..n` as `usize`, exactly the values that `sample_indices(n as u64, k,
/// rng)` gives for the same generator state. O(k).
///
/// # Panics
/// When `k > n`.
///
/// # Example
/// ```
/// use knuffle::{sample_indices_usize, Seed};
/// let names = ["Ann", "Bob", "Cy", "Dee", "Eve"];
/// let picked = sample_indices_usize(names.len(), 2, &mut Seed::from_text("pair").rng());
/// let pair = [names[picked[0]], names[picked[1]]];
/// assert_ne!(pair[0], pair[1]);
/// ```
#[must_use]
pub fn sample_indices_usize<R: Rng + ?Sized>(n: usize, k: usize, rng: &mut R) -> Vec<usize> {
    sample_indices(n as u64, k, rng)
        .into_iter()
        .map(|index| index as usize) // below n, so it fits
        .collect()
}

/// A uniform sample of `k` items from a stream of unknown length, in O(k)
/// memory, skipping ahead between acceptances (feature `std`, for `ln` and
/// `exp`).
///
/// Algorithm L (K.-H. Li, "Reservoir-sampling algorithms of time complexity
/// O(n(1+log(N/n)))", ACM TOMS 20(4), 1994): after the reservoir fills, the
/// number of items to pass over before the next replacement is drawn
/// directly from its geometric law, so only O(k log(N/k)) random numbers
/// are drawn for N items. Each replacement evicts a uniform slot ([`below`]).
///
/// Precision note: the skip lengths are computed from 53-bit uniforms in
/// `f64` arithmetic (`exp`, `ln`), as Li specifies; the inclusion
/// probability of each item is `k/N` to within double-precision rounding
/// (relative error around 1e-15). Where exact rational probabilities are
/// required item by item, offer every item and use the exact
/// `below(seen) < k` rule instead (GNU shuf's method, which knuffle's
/// `--random-source` mode reproduces).
///
/// # Example
/// ```
/// use knuffle::{Reservoir, Seed};
/// let mut rng = Seed::from_text("reservoir").rng();
/// let mut reservoir = Reservoir::new(3);
/// reservoir.extend(0..1_000_000u32, &mut rng);
/// assert_eq!(reservoir.seen(), 1_000_000);
/// let sample = reservoir.into_shuffled(&mut rng);
/// assert_eq!(sample.len(), 3);
/// ```
#[cfg(feature = "std")]
#[derive(Clone, Debug)]
pub struct Reservoir<T> {
    capacity: usize,
    items: Vec<T>,
    seen: u64,
    /// Li's `W`: the largest of the reservoir's (virtual) uniform keys.
    w: f64,
    /// Index (0-based, in stream order) of the next item to accept.
    next_accept: u64,
}

#[cfg(feature = "std")]
impl<T> Reservoir<T> {
    /// An empty reservoir that will hold `k` items.
    ///
    /// ```
    /// let reservoir = knuffle::Reservoir::<String>::new(10);
    /// assert_eq!(reservoir.capacity(), 10);
    /// assert!(reservoir.items().is_empty());
    /// ```
    pub fn new(k: usize) -> Self {
        Reservoir {
            capacity: k,
            // Grows as items come, so that a large `k` (or many reservoirs,
            // one per group) costs nothing before there are items.
            items: Vec::with_capacity(k.min(64)),
            seen: 0,
            w: 1.0,
            next_accept: 0,
        }
    }

    /// The `k` this reservoir was made with.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many items have been offered (or skipped) so far.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// The current sample (at most `k` items, not in random order).
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// How many upcoming items will certainly be rejected: a caller that can
    /// pass over items cheaply may call [`Reservoir::skip`] with this many.
    ///
    /// ```
    /// use knuffle::{Reservoir, Seed};
    /// let mut rng = Seed::from_text("skip").rng();
    /// let mut reservoir = Reservoir::new(2);
    /// let mut line_number = 0u64;
    /// while line_number < 1_000 {
    ///     let skip = reservoir.items_to_skip().min(1_000 - line_number);
    ///     reservoir.skip(skip); // e.g. jump over lines without parsing them
    ///     line_number += skip;
    ///     if line_number < 1_000 {
    ///         reservoir.offer(line_number, &mut rng);
    ///         line_number += 1;
    ///     }
    /// }
    /// assert_eq!(reservoir.seen(), 1_000);
    /// assert_eq!(reservoir.items().len(), 2);
    /// ```
    pub fn items_to_skip(&self) -> u64 {
        self.next_accept.saturating_sub(self.seen)
    }

    /// Records that `count` items went by without being offered. `count`
    /// must not exceed [`Reservoir::items_to_skip`].
    ///
    /// # Panics
    /// When `count` is larger than [`Reservoir::items_to_skip`].
    pub fn skip(&mut self, count: u64) {
        assert!(
            count <= self.items_to_skip(),
            "Reservoir::skip: {count} would pass over an item that must be offered"
        );
        self.seen += count;
    }

    /// Offers the next item of the stream; returns whether it was kept.
    /// The first `k` items are always kept.
    ///
    /// ```
    /// use knuffle::{Reservoir, Seed};
    /// let mut rng = Seed::from_text("offer").rng();
    /// let mut reservoir = Reservoir::new(1);
    /// assert!(reservoir.offer("first", &mut rng));
    /// reservoir.offer("second", &mut rng);
    /// assert_eq!(reservoir.into_vec().len(), 1);
    /// ```
    pub fn offer<R: Rng + ?Sized>(&mut self, item: T, rng: &mut R) -> bool {
        let index = self.seen;
        self.seen += 1;
        if self.capacity == 0 {
            return false;
        }
        if self.items.len() < self.capacity {
            self.items.push(item);
            if self.items.len() == self.capacity {
                self.w = (log_uniform(rng) / self.capacity as f64).exp();
                self.schedule_next(rng);
            }
            return true;
        }
        if index < self.next_accept {
            return false;
        }
        let slot = below(self.capacity as u64, rng) as usize;
        self.items[slot] = item;
        self.w *= (log_uniform(rng) / self.capacity as f64).exp();
        self.schedule_next(rng);
        true
    }

    /// Offers every item of `iter`. Items that Algorithm L will certainly
    /// reject are passed over without drawing any random number.
    pub fn extend<I, R>(&mut self, iter: I, rng: &mut R)
    where
        I: IntoIterator<Item = T>,
        R: Rng + ?Sized,
    {
        let mut iter = iter.into_iter();
        loop {
            let skip = usize::try_from(self.items_to_skip()).unwrap_or(usize::MAX);
            if skip > 0 {
                let passed = iter.by_ref().take(skip).count();
                self.seen += passed as u64;
                if passed < skip {
                    return;
                }
            }
            match iter.next() {
                Some(item) => {
                    self.offer(item, rng);
                }
                None => return,
            }
        }
    }

    /// The sample in storage order (not uniformly ordered).
    pub fn into_vec(self) -> Vec<T> {
        self.items
    }

    /// The sample in uniformly random order.
    #[must_use]
    pub fn into_shuffled<R: Rng + ?Sized>(self, rng: &mut R) -> Vec<T> {
        let mut items = self.items;
        crate::shuffle(&mut items, rng);
        items
    }

    fn schedule_next<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        // Geometric number of rejections with success probability W.
        let gap = (log_uniform(rng) / (-self.w).ln_1p()).floor();
        let gap = if gap.is_finite() && gap >= 0.0 {
            gap as u64 // saturating cast
        } else {
            u64::MAX
        };
        self.next_accept = self.seen.saturating_add(gap);
    }
}

/// `ln(u)` for `u` uniform in the open interval (0, 1), from 53 random bits.
#[cfg(feature = "std")]
pub(crate) fn log_uniform<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    let bits = rng.next_u64() >> 11;
    ((bits as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)).ln()
}
