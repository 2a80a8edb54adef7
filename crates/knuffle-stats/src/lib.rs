//! # knuffle-stats: exact arithmetic and tests for shuffles
//!
//! The statistics that several crates need, with no plotting and no I/O:
//! `knuffle-lab` builds its analyses and pictures on it, `knuffle-draw`
//! reports the bias of other people's samplers with it (and so needs no
//! plotting stack), and the tests of every crate check uniformity with its
//! [`battery`].
//!
//! Workspace layer 1 (cli/python -> table -> records/lab/draw -> stats -> library):
//! it depends on no crate of the workspace (checked by
//! `crates/knuffle/tests/architecture.rs`).
//!
//! ## Layers
//!
//! A module uses only modules of the layers below it (checked for every
//! crate by `crates/knuffle/tests/architecture.rs`). From the bottom:
//!
//! 1. **Exact arithmetic**: [`ratio`] (exact fractions), [`perm`] (Lehmer
//!    rank and unrank, fixed points, cycles, rises, adjacent pairs and
//!    their laws), [`stats`] (chi-square and its p-values from the survival
//!    function, pooling, Holm, power), [`laws`] (exact laws of samplers by
//!    enumeration: successive sampling's inclusion probabilities).
//! 2. **Built on them**: [`reduction`] (how reducing a uniform w-bit word
//!    to `0..n`, by `x mod n` or by `floor(f * n)`, distributes: exact
//!    counts up to 256-bit words, and the bias report `knuffle draw
//!    --compat` prints; uses `ratio`), [`tally`] (counts of orders and of
//!    positions, merged across threads; uses `perm`).
//! 3. **Tests**: [`battery`] (the uniformity battery: full-permutation and
//!    position chi-square tests of any shuffler at a significance level;
//!    uses `perm` and `stats`).
//!
//! ## Example
//!
//! ```
//! use knuffle_stats::reduction::{Reduction, Split};
//! let split = Split::new(Reduction::Modulo, 3, 8).unwrap();
//! assert!(!split.is_uniform()); // 256 = 85 * 3 + 1: value 0 is favoured
//! assert!(split.is_favoured(0));
//! ```
pub mod battery;
pub mod laws;
pub mod perm;
pub mod ratio;
pub mod reduction;
pub mod stats;
pub mod tally;
