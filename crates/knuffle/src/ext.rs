//! Method-call syntax: `deck.shuffle(&mut rng)`.

use alloc::vec::Vec;

use rand_core::Rng;

use crate::choose::{Weight, WeightError};

/// Extension methods on slices (and so on `Vec`s and arrays): one method
/// per free function of the same name, with the same arguments after the
/// slice and the very same result for the same generator state
/// (`v.shuffle(rng)` is `knuffle::shuffle(&mut v, rng)`).
///
/// rand's `SliceRandom` and `IndexedRandom` have methods of the same names
/// (`shuffle`, `partial_shuffle`, `choose`, `sample`); import one of the
/// two traits in a module, or call the free functions.
///
/// # Example
/// ```
/// use knuffle::{Knuffle, Seed};
/// let mut rng = Seed::from_text("ext").rng();
/// let mut deck: Vec<u32> = (1..=52).collect();
/// deck.shuffle(&mut rng);
/// let (hand, _rest) = deck.partial_shuffle(5, &mut rng);
/// assert_eq!(hand.len(), 5);
/// let copy = deck.shuffled(&mut rng);
/// assert_eq!(copy.len(), 52);
/// deck.sattolo(&mut rng);
/// assert!(deck.choose(&mut rng).is_some());
/// assert_eq!(deck.sample(3, &mut rng).len(), 3);
/// let odd = deck.choose_weighted(|&card| card % 2, &mut rng).unwrap();
/// assert_eq!(odd % 2, 1);
///
/// // The method and the function agree.
/// let mut a: Vec<u32> = (0..100).collect();
/// let mut b = a.clone();
/// a.shuffle(&mut Seed::from_text("same").rng());
/// knuffle::shuffle(&mut b, &mut Seed::from_text("same").rng());
/// assert_eq!(a, b);
/// ```
pub trait Knuffle {
    /// The element type.
    type Item;

    /// [`crate::shuffle`]: uniform in place.
    fn shuffle<R: Rng + ?Sized>(&mut self, rng: &mut R);

    /// [`crate::par_shuffle`]: the same permutation as
    /// [`Knuffle::shuffle`], on rayon's thread pool.
    ///
    /// ```
    /// use knuffle::{Knuffle, Seed};
    /// let mut v: Vec<u64> = (0..10_000).collect();
    /// v.par_shuffle(&mut Seed::from_text("par").rng());
    /// ```
    #[cfg(feature = "parallel")]
    fn par_shuffle<R: Rng + ?Sized>(&mut self, rng: &mut R)
    where
        Self::Item: Send;

    /// [`crate::partial_shuffle`]: deal `k` to the front; returns `(dealt, rest)`.
    fn partial_shuffle<R: Rng + ?Sized>(
        &mut self,
        k: usize,
        rng: &mut R,
    ) -> (&mut [Self::Item], &mut [Self::Item]);

    /// [`crate::shuffled`]: a shuffled copy, `self` untouched.
    #[must_use]
    fn shuffled<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<Self::Item>
    where
        Self::Item: Clone;

    /// [`crate::sattolo`]: a uniform single-cycle permutation.
    fn sattolo<R: Rng + ?Sized>(&mut self, rng: &mut R);

    /// [`crate::choose`]: one uniformly chosen element.
    #[must_use]
    fn choose<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<&Self::Item>;

    /// [`crate::choose_mut`]: one uniformly chosen element, mutably.
    #[must_use]
    fn choose_mut<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Option<&mut Self::Item>;

    /// [`crate::sample`]: `k` distinct elements (all when `k` is larger), O(k).
    #[must_use]
    fn sample<R: Rng + ?Sized>(&self, k: usize, rng: &mut R) -> Vec<&Self::Item>;

    /// [`crate::choose_weighted`]: one element, with probability
    /// proportional to its weight.
    ///
    /// # Errors
    /// See [`crate::choose_weighted`].
    fn choose_weighted<W, F, R>(&self, weight: F, rng: &mut R) -> Result<&Self::Item, WeightError>
    where
        W: Weight,
        F: FnMut(&Self::Item) -> W,
        R: Rng + ?Sized;
}

impl<T> Knuffle for [T] {
    type Item = T;

    fn shuffle<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        crate::shuffle(self, rng);
    }

    #[cfg(feature = "parallel")]
    fn par_shuffle<R: Rng + ?Sized>(&mut self, rng: &mut R)
    where
        T: Send,
    {
        crate::par_shuffle(self, rng);
    }

    fn partial_shuffle<R: Rng + ?Sized>(&mut self, k: usize, rng: &mut R) -> (&mut [T], &mut [T]) {
        crate::partial_shuffle(self, k, rng)
    }

    fn shuffled<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<T>
    where
        T: Clone,
    {
        crate::shuffled(self, rng)
    }

    fn sattolo<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        crate::sattolo(self, rng);
    }

    fn choose<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<&T> {
        crate::choose(self, rng)
    }

    fn choose_mut<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Option<&mut T> {
        crate::choose_mut(self, rng)
    }

    fn sample<R: Rng + ?Sized>(&self, k: usize, rng: &mut R) -> Vec<&T> {
        crate::sample(self, k, rng)
    }

    fn choose_weighted<W, F, R>(&self, weight: F, rng: &mut R) -> Result<&T, WeightError>
    where
        W: Weight,
        F: FnMut(&T) -> W,
        R: Rng + ?Sized,
    {
        crate::choose_weighted(self, weight, rng)
    }
}
