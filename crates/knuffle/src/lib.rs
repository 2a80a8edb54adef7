//! # knuffle: provably fair, fast, reproducible shuffles
//!
//! knuffle shuffles slices so that every order is exactly equally likely,
//! from a 52-card deal to arrays of a billion elements, and makes every
//! result reproducible from a seed.
//!
//! ## Architecture
//!
//! Randomness flows one way. A generator (anything implementing `rand_core`
//! 0.10's [`Rng`](rand_core::Rng); by default [`DefaultRng`], ChaCha20 with a
//! 256-bit key made from a text [`Seed`]) feeds the bounded-integer layer
//! ([`below`] and internal batched draws: Lemire's nearly-divisionless
//! method and Brackett-Rozinsky & Lemire's batches, exactly unbiased, never
//! `% n` on random bits, never floats). On top of it sit the algorithms,
//! each in a small module: the Fisher–Yates family ([`shuffle`],
//! [`partial_shuffle`], [`shuffled`], [`sattolo`], [`permutation`]),
//! sampling ([`sample_indices`] by Floyd, [`Reservoir`] by Li's Algorithm L),
//! [`text`] shuffling by grapheme cluster, [`cards`] (cards, decks, shoes,
//! notation and fair deals), and [`entropy`](entropy_bits_needed)
//! accounting. [`Knuffle`] offers the same as methods. The library does no
//! I/O; the `knuffle` command line and the bias lab are separate crates.
//!
//! Slices larger than the cache are shuffled by an in-place scatter into
//! random buckets (module `scatter`: counted multinomial bucket sizes, a
//! block distribution after IPS4o in module `distribute`, preceded for
//! nodes above 2^21 blocks (2 GiB of 8-byte elements) by an American-flag
//! walk in module `walk`, then each bucket shuffled), just as exactly
//! uniform, with a few MiB of extra memory per thread whatever the length;
//! `par_shuffle` (feature `parallel`) gives the same permutation on rayon's
//! thread pool.
//!
//! ## Example
//!
//! ```
//! use knuffle::{Knuffle, Seed};
//!
//! // The same seed text gives the same shuffle on every platform.
//! let mut rng = Seed::from_text("friday poker").rng();
//! let mut deck: Vec<u32> = (0..52).collect();
//! deck.knuffle(&mut rng);
//!
//! // Deal 5 cards: only 5 swaps, the hand is at the front.
//! let (hand, _rest) = knuffle::partial_shuffle(&mut deck, 5, &mut rng);
//! assert_eq!(hand.len(), 5);
//!
//! // A 64-bit seed cannot reach every order of 21 or more items.
//! assert!(!knuffle::seed_can_reach_every_order(64, 21));
//! ```

#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod bounded;
pub mod cards;
mod distribute;
mod entropy;
mod ext;
#[cfg(feature = "parallel")]
mod parallel;
mod rng;
mod sample;
mod scatter;
mod shuffle;
#[cfg(feature = "text")]
pub mod text;
mod walk;

pub use bounded::{below, for_each_below};
pub use entropy::{
    entropy_bits_needed, largest_fully_covered_n, seed_can_reach_every_order, seed_text_bits,
};
pub use ext::Knuffle;
pub use rng::{DefaultRng, Seed};
pub use sample::{Reservoir, sample_indices};
pub use shuffle::{partial_shuffle, permutation, sattolo, shuffle, shuffled};

#[cfg(feature = "parallel")]
pub use parallel::par_shuffle;
#[cfg(feature = "parallel")]
#[doc(hidden)]
pub use parallel::par_shuffle_with_config;
#[doc(hidden)]
pub use scatter::{ShuffleConfig, shuffle_with_config};

/// `rand_core`, re-exported so users name the same traits knuffle does.
pub use rand_core;
