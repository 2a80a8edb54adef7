//! Watching an algorithm step by step: the [`Observer`] trait, and
//! [`NoObserver`], which watches nothing and compiles to nothing. The zoo's
//! algorithms report every draw and swap to an observer; the sources of
//! choices ([`crate::choices`]) report the draws they reject. (Also
//! reachable as `zoo::Observer` and `zoo::NoObserver`.)

/// Watches an algorithm's steps; every method has an empty default so the
/// lab's hot loop ([`NoObserver`]) compiles to nothing.
///
/// The working sequence is the slice being shuffled. Every change an
/// algorithm makes to it is reported as [`swap`](Observer::swap)s, so an
/// observer that replays the swaps on its own copy always holds the current
/// values (moves and sorts are reported as a series of swaps).
///
/// # Example: a step table
/// ```
/// use knuffle_lab::zoo::{Algorithm, Observer};
/// struct Table(Vec<String>);
/// impl Observer for Table {
///     fn draw(&mut self, bound: u64, value: u64) { self.0.push(format!("draw {value} of 0..{bound}")); }
///     fn swap(&mut self, i: usize, j: usize) { self.0.push(format!("swap {i} {j}")); }
/// }
/// let mut rng = knuffle::Seed::from_text("table").rng();
/// let mut table = Table(Vec::new());
/// Algorithm::FisherYates.run(&mut [0usize, 1, 2, 3], &mut rng, &mut table);
/// assert_eq!(table.0.len(), 6); // three draws, three swaps
/// ```
pub trait Observer {
    /// A bounded draw: `value` uniform in `0..bound`. (Key-based algorithms
    /// describe their keys with [`note`](Observer::note) instead.)
    fn draw(&mut self, _bound: u64, _value: u64) {}
    /// Positions `i` and `j` of the working sequence were swapped (`i` may
    /// equal `j`).
    fn swap(&mut self, _i: usize, _j: usize) {}
    /// Anything else worth showing a student (e.g. "already used, redraw").
    fn note(&mut self, _text: &str) {}
    /// `true` when the observer ignores notes, so algorithms need not format
    /// them. Only [`NoObserver`] should say so.
    fn is_quiet(&self) -> bool {
        false
    }
}

/// The observer that watches nothing (the lab's hot loop).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {
    #[inline(always)]
    fn is_quiet(&self) -> bool {
        true
    }
}
