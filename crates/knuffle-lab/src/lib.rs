//! # knuffle-lab: the bias lab
//!
//! Shows, with exact numbers, p-values and pictures, whether a shuffler is
//! biased: knuffle's own algorithms, the classic wrong ones, or anybody
//! else's (through [`audit`]).
//!
//! Workspace layer 2 (cli/python -> table -> records/lab/draw -> stats -> library):
//! the lab depends on `knuffle-stats` (layer 1) and `knuffle` (layer 0),
//! never on a crate of its own layer or above (checked by
//! `crates/knuffle/tests/architecture.rs`).
//!
//! ## Layers
//!
//! A module uses only modules of the layers below it (checked for every
//! crate by `crates/knuffle/tests/architecture.rs`). From the bottom:
//!
//! 1. **Arithmetic**, in `knuffle-stats` and re-exported here under their
//!    old paths: [`ratio`] (exact fractions), [`perm`] (ranking
//!    permutations, their laws), [`stats`] (chi-square, p-values, power),
//!    [`reduction`] (how reducing a uniform w-bit word to `0..n`, by
//!    `x mod n` or by `floor(f * n)`, distributes: exact counts up to
//!    256-bit words, and the bias report `knuffle draw --compat` prints),
//!    [`tally`] (counts of orders and of positions); and the lab's own
//!    [`cards`] (card names for the audit).
//! 2. **Watching**: [`observer`] (the [`Observer`](observer::Observer)
//!    of an algorithm's steps), [`choices`] (where an algorithm's random
//!    choices come from: a generator, or the exact enumerator).
//! 3. **Algorithms**: [`zoo`] (the table of algorithms, fair and biased,
//!    each observable step by step).
//! 4. **Runs**: [`exact`] (every path of choices, with its exact
//!    probability), [`sample`] (millions of shuffles into a tally),
//!    [`steps`] (one run, with where each random word went), [`analysis`]
//!    (tests on a tally).
//! 5. **Reports**: [`experiment`] (the lab run over the zoo), [`report`]
//!    (tables and plots), [`audit`] (anybody's shuffler, through the same
//!    analysis).
//!
//! The audit of one long order (a data loader's epoch) stands beside them:
//! [`order_laws`] (the laws of its statistics), [`order_scan`] (one parallel
//! pass counting them), [`order_causes`] (failing tests in words),
//! [`order_audit`] (the tests and the verdict), [`order_input`] (reading an
//! order from text or `.npy`), [`order_report`] (its HTML page).
//!
//! Where a change goes: a new algorithm is one entry in the zoo's table
//! (and its run function); a new statistic goes in `knuffle_stats::stats` and is used by
//! `analysis`; a new kind of output goes in `report`.
//!
//! ## Example
//!
//! ```
//! use knuffle_lab::zoo::{Algorithm, NoObserver};
//! let mut rng = knuffle::Seed::from_text("lab").rng();
//! let mut cards = [0usize, 1, 2, 3];
//! Algorithm::NaiveSwap.run(&mut cards, &mut rng, &mut NoObserver);
//! assert_eq!(Algorithm::NaiveSwap.fairness().label(), "biased");
//! ```
pub mod analysis;
pub mod audit;
pub mod cards;
pub mod choices;
pub mod exact;
pub mod experiment;
pub mod observer;
pub mod order_audit;
pub mod order_causes;
pub mod order_input;
pub mod order_laws;
pub mod order_report;
pub mod order_scan;
pub mod report;
pub mod sample;
pub mod steps;
pub mod zoo;

// The arithmetic moved into knuffle-stats (so that knuffle-draw needs no
// plotting); its old paths (`knuffle_lab::stats::DEFAULT_ALPHA`, ...) stay.
pub use knuffle_stats::{perm, ratio, reduction, stats, tally};
