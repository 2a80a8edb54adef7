//! # knuffle: provably fair, fast, reproducible shuffles
//!
//! knuffle shuffles slices so that every order is exactly equally likely,
//! from a 52-card deal to arrays of a billion elements, and makes every
//! result reproducible from a seed.
//!
//! Workspace layer 0, the bottom (cli/python -> table -> records/lab/draw ->
//! stats -> library): it depends on no crate of the workspace, and every other crate
//! builds on it (checked by `crates/knuffle/tests/architecture.rs`).
//!
//! ## Example
//!
//! ```
//! use knuffle::{Knuffle, Seed};
//!
//! // The same seed text gives the same shuffle on every platform.
//! let mut rng = Seed::from_text("friday poker").rng();
//! let mut deck: Vec<u32> = (0..52).collect();
//! deck.shuffle(&mut rng); // == knuffle::shuffle(&mut deck, &mut rng)
//!
//! // Deal 5 cards: only 5 swaps, the hand is at the front.
//! let (hand, _rest) = knuffle::partial_shuffle(&mut deck, 5, &mut rng);
//! assert_eq!(hand.len(), 5);
//!
//! // Choose: one element, k distinct ones, or by weight.
//! let one = deck.choose(&mut rng).unwrap();
//! let three = deck.sample(3, &mut rng);
//! let heavy = deck.choose_weighted(|&card| card, &mut rng).unwrap();
//!
//! // A 64-bit seed cannot reach every order of 21 or more items.
//! assert!(!knuffle::entropy::seed_can_reach_every_order(64, 21));
//! # let _ = (one, three, heavy);
//! ```
//!
//! ## The generator argument: always last
//!
//! Every function and method takes the generator as `rng: &mut R` with
//! `R: rand_core::Rng + ?Sized`, **after** the data and the numbers it
//! acts on; only a trailing callback comes after it
//! ([`for_each_below`]). A free function is the method of [`Knuffle`] with
//! the receiver written first: `shuffle(&mut v, rng)` is
//! `v.shuffle(rng)`, `partial_shuffle(&mut v, k, rng)` is
//! `v.partial_shuffle(k, rng)`, `below(bound, rng)`,
//! `sample_indices(n, k, rng)`, `deck.deal(players, each, board, rng)`.
//! (rand 0.10 puts its generator first after the receiver, e.g. rand's
//! `v.partial_shuffle(rng, k)`; knuffle keeps the order that all but two
//! of its functions had in 0.1.0, so that a free function and its method
//! read alike.)
//!
//! Any `rand_core` 0.10 generator works: knuffle's [`DefaultRng`], rand
//! 0.10's `rand::rng()`, `StdRng`, `rand_chacha`, `rand_pcg`:
//!
//! ```
//! let mut v: Vec<u32> = (0..10).collect();
//! knuffle::shuffle(&mut v, &mut rand::rng());
//! ```
//!
//! A rand 0.9 generator implements the older `rand_core` 0.9 traits; wrap
//! it in `Rand09` (feature `rand09`).
//!
//! ## Layers
//!
//! A module uses only modules of the layers below it (checked by the
//! test `tests/architecture.rs`). From the bottom:
//!
//! 1. **Randomness in**: [`bounded`](below) turns 64-bit words into exactly
//!    uniform integers (Lemire's method, Brackett-Rozinsky & Lemire's
//!    batches; never `% n` on random bits, never floats); `rng` is the
//!    default generator and text seeds; `entropy` counts bits.
//! 2. **Machinery of the large shuffle**: `prefetch` (cache hints),
//!    `labels` (the keystream that gives each position its bucket), then
//!    `durstenfeld` (the in-place loop with batched draws), `block_moves`
//!    (the block permutation, on one thread or planned first and moved on
//!    many),
//!    `distribute` (block distribution after IPS4o) and `walk` (American-flag walk for
//!    nodes above 2^23 blocks), then `scatter` (the recursion into random
//!    buckets, Sandelius 1962 / Sanders 1998) and `parallel` (the same on
//!    rayon's pool).
//! 3. **Algorithms**: `shuffle` (the Fisher–Yates family: [`shuffle`],
//!    [`partial_shuffle`], [`shuffled`], [`sattolo`], [`permutation`]),
//!    `sample` ([`sample_indices`] by Floyd, [`Reservoir`] by Li's
//!    Algorithm L), `weighted_sample` ([`WeightedReservoir`] by
//!    Efraimidis & Spirakis' A-ExpJ), `choose` ([`choose`], [`sample`], [`choose_weighted`]),
//!    [`table_order`] (the order of rows by random-access labels that
//!    `knuffle table`, the engines, the epoch order and `knuffle sample`
//!    share; docs/table-order.md; feature `text-seed`), with [`tied_rows`]
//!    (the rows that share a label, and their places in its tie order).
//!    [`gather`] puts columns in a given order (`out[i] = src[order[i]]`,
//!    for the rows of data frames).
//! 4. **Conveniences**: [`text`] (shuffling by grapheme cluster),
//!    [`cards`] (cards, decks, shoes, notation, fair deals), `ext` (the
//!    [`Knuffle`] methods), `rand09` (the rand 0.9 adapter).
//!
//! Where a change goes: a new way to draw integers goes in layer 1; a
//! faster large shuffle in layer 2 (and must keep every golden vector); a
//! new algorithm in layer 3, with its method in `ext`.
//!
//! Slices larger than the cache are shuffled by an in-place scatter into
//! random buckets (counted multinomial bucket sizes, a block distribution,
//! preceded for nodes above 2^23 blocks by an American-flag walk, then
//! each bucket shuffled), just as exactly uniform, with a few MiB of extra
//! memory per thread whatever the length; [`par_shuffle`] (feature
//! `parallel`) gives the same permutation on rayon's thread pool. The
//! library does no I/O; the `knuffle` command line and the bias lab are
//! separate crates.
//!
//! ## Features
//!
//! | feature | default | gives |
//! |---|---|---|
//! | `std` | yes | [`Reservoir`], `entropy::entropy_bits_needed`, `entropy::seed_text_bits`; without it the crate is `#![no_std]` + `alloc` |
//! | `os-entropy` | yes | `DefaultRng::from_os`, `Seed::random_text` (getrandom) |
//! | `text-seed` | yes | `Seed::from_text`, `DefaultRng::from_seed_text` (SHA-256) |
//! | `text` | yes | [`text`] (unicode-segmentation) |
//! | `parallel` | yes | [`par_shuffle`] (rayon; implies `std`) |
//! | `rand09` | no | `Rand09`, the rand 0.9 generator adapter |
//! | `unstable-config` | no | the large shuffle's switch points, for tests; not covered by semver |
//!
//! ## Value stability
//!
//! The same generator state gives the same permutation in every release of
//! the same minor version (0.x) or major version (1.x and later), on every
//! platform; golden vectors in `tests/golden.rs` pin it. Any change of
//! output is listed in `CHANGELOG.md`.

#![no_std]
#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

#[cfg(feature = "std")]
extern crate std;

extern crate alloc;

mod block_moves;
mod bounded;
pub mod cards;
mod choose;
mod distribute;
mod durstenfeld;
pub mod entropy;
mod ext;
pub mod gather;
pub mod keystream;
mod labels;
#[cfg(feature = "parallel")]
mod parallel;
mod prefetch;
#[cfg(feature = "rand09")]
mod rand09;
mod rng;
mod sample;
mod scatter;
mod shuffle;
#[cfg(feature = "text-seed")]
pub mod table_order;
#[cfg(feature = "text")]
pub mod text;
#[cfg(feature = "text-seed")]
pub mod tied_rows;
mod walk;
#[cfg(feature = "std")]
mod weighted_sample;

pub use bounded::{below, for_each_below};
pub use choose::{
    FloatScale, Weight, WeightError, WeightedIndex, choose, choose_mut, choose_weighted, sample,
};
pub use ext::Knuffle;
#[cfg(feature = "rand09")]
pub use rand09::Rand09;
pub use rng::{DefaultRng, Seed};
#[cfg(feature = "std")]
pub use sample::Reservoir;
pub use sample::{sample_indices, sample_indices_usize};
pub use shuffle::{partial_shuffle, permutation, sattolo, shuffle, shuffled};
#[cfg(feature = "std")]
pub use weighted_sample::{WeightedReservoir, weighted_log_key};

#[cfg(feature = "parallel")]
pub use parallel::par_shuffle;
#[cfg(all(feature = "parallel", feature = "unstable-config"))]
pub use parallel::par_shuffle_with_config;
#[cfg(feature = "unstable-config")]
pub use scatter::{ShuffleConfig, shuffle_with_config};

/// `rand_core`, re-exported so users name the same traits knuffle does.
pub use rand_core;

/// What the standard prelude would give the unit tests (the crate is
/// `#![no_std]`).
#[cfg(test)]
mod test_prelude {
    pub(crate) use alloc::format;
    pub(crate) use alloc::string::{String, ToString};
    pub(crate) use alloc::vec;
    pub(crate) use alloc::vec::Vec;
}
