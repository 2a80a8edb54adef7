//! The two sources of choices: knuffle's generator (default, `--seed`) and
//! GNU-compatible bytes from `--random-source`. Every random decision of
//! shuf mode goes through [`Randomness`], so each mode has one code path
//! and two exactly-uniform ways of choosing.

use knuffle::DefaultRng;

use super::errors::ShufError;
use super::gnu_random::{self, GnuRandom};

/// Where choices come from.
pub enum Randomness {
    /// knuffle's ChaCha generator: Lemire's bounded draws and knuffle's
    /// shuffles (the fast path).
    Knuffle(Box<DefaultRng>),
    /// Bytes from a file, consumed exactly as GNU shuf does.
    Gnu(GnuRandom),
}

impl Randomness {
    /// Makes the first `h` items of `items` a uniformly random selection of
    /// `h` of them, in uniformly random order (all of them when
    /// `h >= items.len()`).
    pub fn shuffle_prefix<T: Send>(&mut self, items: &mut [T], h: usize) -> Result<(), ShufError> {
        match self {
            Randomness::Knuffle(rng) => {
                let rng = rng.as_mut();
                if h >= items.len() {
                    // Same permutation for any number of threads.
                    knuffle::par_shuffle(items, rng);
                } else {
                    knuffle::partial_shuffle(items, h, rng);
                }
                Ok(())
            }
            Randomness::Gnu(source) => gnu_random::permute_prefix(items, h, source),
        }
    }

    /// A uniform integer in `0..n` (`n >= 1`).
    pub fn choose(&mut self, n: u64) -> Result<u64, ShufError> {
        match self {
            Randomness::Knuffle(rng) => Ok(knuffle::below(n, rng.as_mut())),
            Randomness::Gnu(source) => source.choose(n),
        }
    }

    /// `h` distinct values of `0..n` in uniformly random order, in O(h)
    /// memory whatever `n` (Floyd's algorithm for knuffle's generator, GNU's
    /// sparse `randperm` for a random source).
    pub fn sample_range(&mut self, n: u64, h: u64) -> Result<Vec<u64>, ShufError> {
        // Both samplers keep a hash set or map of h entries besides the h
        // results (about 32 bytes an entry): refuse what cannot be allocated
        // with GNU's "memory exhausted" rather than aborting midway.
        let bytes = usize::try_from(h)
            .ok()
            .and_then(|h| h.checked_mul(32))
            .ok_or_else(ShufError::memory)?;
        Vec::<u8>::new()
            .try_reserve_exact(bytes)
            .map_err(|_| ShufError::memory())?;
        match self {
            Randomness::Knuffle(rng) => {
                let k = usize::try_from(h).map_err(|_| ShufError::memory())?;
                Ok(knuffle::sample_indices(n, k, rng.as_mut()))
            }
            Randomness::Gnu(source) => gnu_random::sparse_permutation(h, n, source),
        }
    }
}
