//! Where an algorithm's random choices come from.
//!
//! Every algorithm of the [zoo](crate::zoo) asks for its randomness through
//! the [`Choices`] trait, never from a generator directly. Two sources
//! implement it:
//!
//! * [`RngChoices`]: a real generator (sampling, tracing). Bounded draws use
//!   [`knuffle::below`] (Lemire) and, for runs of small bounds, batched draws
//!   (Brackett-Rozinsky & Lemire 2024) consuming the generator's words in
//!   exactly the order `knuffle::shuffle` does, so the zoo's Fisher–Yates,
//!   inside-out and Sattolo reproduce the library's output word for word.
//! * the exact enumerator ([`crate::exact`]), which walks every path of
//!   choices once and weighs it with its exact probability.

use rand_core::Rng;

use crate::observer::Observer;

/// A source of uniform random choices for the zoo's algorithms.
pub trait Choices {
    /// A uniform integer in `0..bound` (`bound >= 1`).
    fn below(&mut self, bound: u64) -> u64;

    /// `count` independent uniform integers, the `step`-th in
    /// `0..bound_at(step)`, handed to `emit(step, value)` in order. Sources
    /// may serve several small bounds from one random word.
    fn for_each_below<B, F>(&mut self, count: usize, bound_at: B, mut emit: F)
    where
        B: Fn(usize) -> u64,
        F: FnMut(usize, u64),
    {
        for step in 0..count {
            let value = self.below(bound_at(step));
            emit(step, value);
        }
    }

    /// Draws uniformly from `0..bound` until `accept(value)` holds ("pick
    /// again if already used"); the observer sees every draw, and the
    /// `rejected` note after each rejected one. The set of accepted values
    /// must not change during the loop. At least one value must be accepted.
    fn below_until<A, O>(&mut self, bound: u64, accept: A, obs: &mut O, rejected: &str) -> u64
    where
        A: Fn(u64) -> bool,
        O: Observer;

    /// A uniform key of `bits` bits (`1..=128`), for sort-by-random-key
    /// algorithms.
    fn key(&mut self, bits: u32) -> u128;
}

/// [`Choices`] backed by a random generator.
///
/// # Example
/// ```
/// use knuffle_lab::choices::{Choices, RngChoices};
/// let mut rng = knuffle::Seed::from_text("dice").rng();
/// let mut source = RngChoices(&mut rng);
/// assert!(source.below(6) < 6);
/// ```
pub struct RngChoices<'a, R: Rng + ?Sized>(pub &'a mut R);

impl<R: Rng + ?Sized> Choices for RngChoices<'_, R> {
    #[inline]
    fn below(&mut self, bound: u64) -> u64 {
        knuffle::below(bound, self.0)
    }

    /// Batched draws through the library's own engine
    /// ([`knuffle::for_each_below`]; Brackett-Rozinsky & Lemire 2024), so
    /// the zoo consumes the generator word for word as `knuffle` does.
    #[inline]
    fn for_each_below<B, F>(&mut self, count: usize, bound_at: B, emit: F)
    where
        B: Fn(usize) -> u64,
        F: FnMut(usize, u64),
    {
        knuffle::for_each_below(count, bound_at, self.0, emit);
    }

    fn below_until<A, O>(&mut self, bound: u64, accept: A, obs: &mut O, rejected: &str) -> u64
    where
        A: Fn(u64) -> bool,
        O: Observer,
    {
        loop {
            let value = knuffle::below(bound, self.0);
            obs.draw(bound, value);
            if accept(value) {
                return value;
            }
            obs.note(rejected);
        }
    }

    #[inline]
    fn key(&mut self, bits: u32) -> u128 {
        debug_assert!((1..=128).contains(&bits));
        let low = u128::from(self.0.next_u64());
        let word = if bits > 64 {
            low | (u128::from(self.0.next_u64()) << 64)
        } else {
            low
        };
        if bits == 128 {
            word
        } else {
            word & ((1u128 << bits) - 1)
        }
    }
}
