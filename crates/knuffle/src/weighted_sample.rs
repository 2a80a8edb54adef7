//! Weighted sampling without replacement from a stream of unknown length,
//! in O(k) memory: the law of successive sampling (draw one item with
//! probability proportional to its weight, remove it, draw the next from
//! the rest, ...), which numpy's `choice(replace=False, p=)` and pandas'
//! `sample(weights=)` follow.
//!
//! Efraimidis & Spirakis, "Weighted random sampling with a reservoir",
//! Information Processing Letters 97(5), 2006: give item `i` the key
//! `u_i^(1/w_i)` (`u_i` uniform in (0, 1)); the `k` items of largest key,
//! in decreasing key order, are distributed exactly as `k` successive
//! draws (their Algorithm A-Res). Algorithm A-ExpJ, used here, gets the
//! same law with exponential jumps: once the reservoir is full with
//! smallest key `T`, the total weight to pass over before the next
//! insertion is drawn at once (`ln(r) / ln(T)`), and the inserted item's
//! key is drawn uniformly above `T` (`u` uniform in `(T^w, 1)`, key
//! `u^(1/w)`). So only O(k log(N/k)) random numbers are drawn.
//!
//! Keys are kept as their logarithms (`ln(u) / w`), so that tiny weights
//! and long streams never underflow to a key of zero.
//!
//! Precision note: the keys come from 53-bit uniforms and `f64` `ln`,
//! `exp_m1` and `ln_1p`, as the paper specifies them over the reals; the
//! inclusion probabilities are those of successive sampling to within
//! double-precision rounding (relative error around 1e-15 per key; a
//! jump's weight is also counted down in `f64`, whose rounding grows with
//! the number of items a jump passes over: at most about 1e-10 relative
//! for 10^6 of them), and two keys tie with probability around 2^-53
//! (ties keep the earlier item first). Integer weights are not drawn more
//! exactly than float ones.
//! This is the same kind of approximation as [`crate::Reservoir`]'s skip
//! lengths; where exact integer probabilities are needed for one draw, use
//! [`crate::WeightedIndex`].

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Ordering;

use rand_core::Rng;

use crate::sample::log_uniform;

/// The logarithm of Efraimidis & Spirakis' key `u^(1/w)` for an item of
/// `weight` (`ln(u) / w`, `u` uniform in (0, 1) from 53 random bits): the
/// key [`WeightedReservoir`] gives each item before it is full. Taking the
/// `k` items of largest key, in decreasing order, is successive sampling
/// (A-Res), so keys made apart (one partition each, say) can be merged.
///
/// # Panics
/// When `weight` is not finite and positive.
///
/// # Example
/// ```
/// use knuffle::{Seed, weighted_log_key};
/// let mut rng = Seed::from_text("keys").rng();
/// let heavy = weighted_log_key(100.0, &mut rng);
/// assert!(heavy < 0.0 && heavy.is_finite());
/// ```
pub fn weighted_log_key<R: Rng + ?Sized>(weight: f64, rng: &mut R) -> f64 {
    assert!(
        weight.is_finite() && weight > 0.0,
        "weighted_log_key: weight {weight} is not finite and positive"
    );
    log_uniform(rng) / weight
}

/// One kept item: its log key, its arrival index (ties: the earlier item
/// ranks higher) and the item.
#[derive(Clone, Debug)]
struct Keyed<T> {
    log_key: f64,
    index: u64,
    item: T,
}

impl<T> Keyed<T> {
    /// Rank order: larger key first; on a tie the earlier item first.
    fn rank(&self, other: &Self) -> Ordering {
        other
            .log_key
            .total_cmp(&self.log_key)
            .then(self.index.cmp(&other.index))
    }
}

impl<T> PartialEq for Keyed<T> {
    fn eq(&self, other: &Self) -> bool {
        self.rank(other) == Ordering::Equal
    }
}
impl<T> Eq for Keyed<T> {}
impl<T> PartialOrd for Keyed<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Keyed<T> {
    /// The heap's order: the item ranked last (smallest key) is the
    /// greatest, so that `BinaryHeap::peek` is the one to evict.
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank(other)
    }
}

/// A weighted sample of `k` items from a stream, without replacement, by
/// the law of successive sampling (Efraimidis & Spirakis 2006, A-ExpJ; see
/// the module documentation for the precision of the keys). Feature `std`.
///
/// # Example
/// ```
/// use knuffle::{Seed, WeightedReservoir};
/// let mut rng = Seed::from_text("weighted").rng();
/// let mut reservoir = WeightedReservoir::new(2);
/// for (item, weight) in [("a", 1.0), ("b", 10.0), ("c", 0.5), ("d", 3.0)] {
///     reservoir.offer(item, weight, &mut rng);
/// }
/// let drawn = reservoir.into_selection_order(); // first drawn first
/// assert_eq!(drawn.len(), 2);
/// assert!(drawn[0].0 >= drawn[1].0); // keys decrease
/// ```
#[derive(Clone, Debug)]
pub struct WeightedReservoir<T> {
    capacity: usize,
    heap: BinaryHeap<Keyed<T>>,
    seen: u64,
    /// A-ExpJ's `X_w`: weight still to pass over before the next
    /// insertion (meaningful once the reservoir is full).
    to_pass: f64,
}

impl<T> WeightedReservoir<T> {
    /// An empty reservoir for `k` items (`usize::MAX`: keep every item,
    /// which makes [`WeightedReservoir::into_selection_order`] a weighted
    /// shuffle of the whole stream).
    #[must_use]
    pub fn new(k: usize) -> Self {
        WeightedReservoir {
            capacity: k,
            heap: BinaryHeap::with_capacity(k.min(1 << 16)),
            seen: 0,
            to_pass: 0.0,
        }
    }

    /// The `k` this reservoir was made with.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many items have been offered so far.
    #[must_use]
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// How many items are held (at most `k`).
    #[must_use]
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no item is held.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The items held, in no particular order.
    pub fn items(&self) -> impl Iterator<Item = &T> {
        self.heap.iter().map(|keyed| &keyed.item)
    }

    /// Offers the next item with its `weight`; returns whether it was
    /// kept (it may be evicted by a later one).
    ///
    /// # Panics
    /// When `weight` is not finite and positive.
    pub fn offer<R: Rng + ?Sized>(&mut self, item: T, weight: f64, rng: &mut R) -> bool {
        self.offer_with(weight, || item, rng)
    }

    /// [`WeightedReservoir::offer`] that makes the item only when it is
    /// kept (a record is copied out of a buffer only then).
    ///
    /// # Panics
    /// When `weight` is not finite and positive.
    #[inline]
    pub fn offer_with<R, F>(&mut self, weight: f64, make: F, rng: &mut R) -> bool
    where
        R: Rng + ?Sized,
        F: FnOnce() -> T,
    {
        assert!(
            weight.is_finite() && weight > 0.0,
            "WeightedReservoir: weight {weight} is not finite and positive"
        );
        let index = self.seen;
        self.seen += 1;
        if self.heap.len() < self.capacity {
            return self.fill(weight, index, make, rng);
        }
        // The common case of a long stream, kept small so that it is
        // inlined: the jump passes over this item.
        self.to_pass -= weight;
        if self.to_pass > 0.0 || self.capacity == 0 {
            return false;
        }
        self.replace(weight, index, make, rng)
    }

    /// An item while the reservoir is not full: kept with its key.
    #[inline(never)]
    fn fill<R, F>(&mut self, weight: f64, index: u64, make: F, rng: &mut R) -> bool
    where
        R: Rng + ?Sized,
        F: FnOnce() -> T,
    {
        let log_key = weighted_log_key(weight, rng);
        self.heap.push(Keyed {
            log_key,
            index,
            item: make(),
        });
        if self.heap.len() == self.capacity {
            self.draw_jump(rng);
        }
        true
    }

    /// The item a jump lands on: it replaces the smallest key.
    #[inline(never)]
    fn replace<R, F>(&mut self, weight: f64, index: u64, make: F, rng: &mut R) -> bool
    where
        R: Rng + ?Sized,
        F: FnOnce() -> T,
    {
        // The key, uniform above the threshold T: u uniform in (T^w, 1),
        // key u^(1/w). With v = 1 - u uniform in (0, 1):
        // ln u = ln(1 + (T^w - 1) v) = ln_1p(exp_m1(w ln T) v).
        let threshold = self.threshold();
        let v = log_uniform(rng).exp();
        let log_key = ((weight * threshold).exp_m1() * v).ln_1p() / weight;
        // Rounding may put it at the threshold, never below it.
        let log_key = log_key.max(threshold);
        let mut smallest = self.heap.peek_mut().expect("full reservoir");
        *smallest = Keyed {
            log_key,
            index,
            item: make(),
        };
        drop(smallest);
        self.draw_jump(rng);
        true
    }

    /// The kept items with their log keys (`ln` of `u^(1/w)`), in
    /// selection order: the largest key first, so the first item is the
    /// first of the successive draws.
    #[must_use]
    pub fn into_selection_order(self) -> Vec<(f64, T)> {
        let mut kept = self.heap.into_vec();
        kept.sort_unstable_by(|a, b| a.rank(b));
        kept.into_iter()
            .map(|keyed| (keyed.log_key, keyed.item))
            .collect()
    }

    /// The kept items with their log keys and arrival indices (0-based),
    /// in arrival order (for output in input order).
    #[must_use]
    pub fn into_arrival_order(self) -> Vec<(u64, f64, T)> {
        let mut kept = self.heap.into_vec();
        kept.sort_unstable_by_key(|keyed| keyed.index);
        kept.into_iter()
            .map(|keyed| (keyed.index, keyed.log_key, keyed.item))
            .collect()
    }

    /// The smallest kept log key, `ln T`.
    fn threshold(&self) -> f64 {
        self.heap.peek().map_or(f64::NEG_INFINITY, |k| k.log_key)
    }

    /// A-ExpJ's jump: `X_w = ln(r) / ln(T)`, the weight to pass over.
    fn draw_jump<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let threshold = self.threshold();
        self.to_pass = if threshold < 0.0 {
            log_uniform(rng) / threshold
        } else {
            // T = 1 (a key rounded to 1): no later key can exceed it.
            f64::INFINITY
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Seed;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    /// Inclusion frequencies of `trials` runs of `sampler`.
    fn frequencies(n: usize, trials: u32, mut sampler: impl FnMut() -> Vec<usize>) -> Vec<f64> {
        let mut counts = vec![0u32; n];
        for _ in 0..trials {
            for i in sampler() {
                counts[i] += 1;
            }
        }
        counts
            .iter()
            .map(|&c| f64::from(c) / f64::from(trials))
            .collect()
    }

    /// Largest deviation in standard errors.
    fn worst_z(observed: &[f64], exact: &[f64], trials: u32) -> f64 {
        observed
            .iter()
            .zip(exact)
            .map(|(&o, &p)| (o - p).abs() / (p * (1.0 - p) / f64::from(trials)).sqrt())
            .fold(0.0, f64::max)
    }

    const WEIGHTS: [f64; 6] = [1.0, 2.0, 3.0, 4.0, 10.0, 0.5];

    #[test]
    fn inclusion_follows_successive_sampling_and_a_biased_stand_in_fails() {
        let exact = knuffle_stats::laws::successive_inclusion(&WEIGHTS, 3);
        let trials = 40_000;
        let mut rng = Seed::from_text("a-expj inclusion").rng();
        // Items 4 to 6 come after the reservoir is full: jumps decide them.
        let observed = frequencies(WEIGHTS.len(), trials, || {
            let mut reservoir = WeightedReservoir::new(3);
            for (i, &w) in WEIGHTS.iter().enumerate() {
                reservoir.offer(i, w, &mut rng);
            }
            reservoir
                .into_selection_order()
                .into_iter()
                .map(|(_, i)| i)
                .collect()
        });
        assert!(
            worst_z(&observed, &exact, trials) < 4.5,
            "{observed:?} {exact:?}"
        );
        // Negative control: inclusion proportional to weight (capped), the
        // classic mistake, is far from successive sampling here.
        let total: f64 = WEIGHTS.iter().sum();
        let proportional: Vec<f64> = WEIGHTS.iter().map(|w| (3.0 * w / total).min(1.0)).collect();
        assert!(worst_z(&proportional, &exact, trials) > 10.0);
    }

    #[test]
    fn the_first_drawn_follows_the_weights_after_jumps() {
        // A long stream: 200 light items, then the six; jumps happen.
        let trials = 20_000;
        let mut rng = Seed::from_text("a-expj jumps").rng();
        let mut weights = vec![0.01; 200];
        weights.extend_from_slice(&WEIGHTS);
        let total: f64 = weights.iter().sum();
        let mut first = vec![0u32; weights.len()];
        for _ in 0..trials {
            let mut reservoir = WeightedReservoir::new(2);
            for (i, &w) in weights.iter().enumerate() {
                reservoir.offer(i, w, &mut rng);
            }
            first[reservoir.into_selection_order()[0].1] += 1;
        }
        for (offset, &w) in WEIGHTS.iter().enumerate() {
            let p = w / total;
            let observed = f64::from(first[200 + offset]) / f64::from(trials);
            let z = (observed - p).abs() / (p * (1.0 - p) / f64::from(trials)).sqrt();
            assert!(z < 4.5, "item {offset}: {observed} vs {p}");
        }
    }

    #[test]
    fn keeps_everything_when_k_is_unbounded_and_nothing_when_zero() {
        let mut rng = Seed::from_text("all").rng();
        let mut all = WeightedReservoir::new(usize::MAX);
        let mut none = WeightedReservoir::new(0);
        for i in 0..100u32 {
            all.offer(i, 1.0 + f64::from(i), &mut rng);
            none.offer(i, 1.0, &mut rng);
        }
        let order = all.into_selection_order();
        assert_eq!(order.len(), 100);
        assert!(order.windows(2).all(|p| p[0].0 >= p[1].0));
        assert!(none.is_empty());
        assert_eq!(none.seen(), 100);
    }

    #[test]
    fn tiny_weights_do_not_underflow() {
        let mut rng = Seed::from_text("tiny").rng();
        let mut reservoir = WeightedReservoir::new(1);
        reservoir.offer("light", 1e-300, &mut rng);
        reservoir.offer("heavy", 1.0, &mut rng);
        let order = reservoir.into_selection_order();
        assert_eq!(order[0].1, "heavy");
        assert!(order[0].0.is_finite());
    }
}
