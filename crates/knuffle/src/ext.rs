//! Method-call syntax: `deck.knuffle(&mut rng)`.

use rand_core::Rng;

/// Extension methods on slices (and so on `Vec`s and arrays), mirroring the
/// free functions.
///
/// # Example
/// ```
/// use knuffle::{Knuffle, Seed};
/// let mut rng = Seed::from_text("ext").rng();
/// let mut deck: Vec<u32> = (1..=52).collect();
/// deck.knuffle(&mut rng);
/// let (hand, _rest) = deck.knuffle_partial(5, &mut rng);
/// assert_eq!(hand.len(), 5);
/// let copy = deck.knuffled(&mut rng);
/// assert_eq!(copy.len(), 52);
/// deck.knuffle_cycle(&mut rng);
/// ```
pub trait Knuffle {
    /// The element type.
    type Item;

    /// [`crate::shuffle`]: uniform in place.
    fn knuffle<R: Rng + ?Sized>(&mut self, rng: &mut R);

    /// [`crate::partial_shuffle`]: deal `k` to the front; returns `(dealt, rest)`.
    fn knuffle_partial<R: Rng + ?Sized>(
        &mut self,
        k: usize,
        rng: &mut R,
    ) -> (&mut [Self::Item], &mut [Self::Item]);

    /// [`crate::shuffled`]: a shuffled copy, `self` untouched.
    fn knuffled<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<Self::Item>
    where
        Self::Item: Clone;

    /// [`crate::sattolo`]: a uniform single-cycle permutation.
    fn knuffle_cycle<R: Rng + ?Sized>(&mut self, rng: &mut R);
}

impl<T> Knuffle for [T] {
    type Item = T;

    fn knuffle<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        crate::shuffle(self, rng);
    }

    fn knuffle_partial<R: Rng + ?Sized>(&mut self, k: usize, rng: &mut R) -> (&mut [T], &mut [T]) {
        crate::partial_shuffle(self, k, rng)
    }

    fn knuffled<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<T>
    where
        T: Clone,
    {
        crate::shuffled(self, rng)
    }

    fn knuffle_cycle<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        crate::sattolo(self, rng);
    }
}
