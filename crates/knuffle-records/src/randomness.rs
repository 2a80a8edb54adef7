//! The two sources of choices: knuffle's generator (default, `--seed`) and
//! GNU-compatible bytes from `--random-source`. Every random decision goes
//! through [`Randomness`], so each mode has one code path and two
//! exactly-uniform ways of choosing.

use std::ffi::OsStr;

use knuffle::DefaultRng;

use crate::error::Error;
use crate::gnu_random::{self, GnuRandom};

/// Where choices come from.
///
/// ```
/// use knuffle_records::Randomness;
/// // What `knuffle --seed 42` uses:
/// let seeded = Randomness::from_seed_text("42");
/// // What `shuf --random-source=FILE` uses (opened only when needed):
/// let gnu = Randomness::gnu_source("/dev/zero");
/// # let _ = (seeded, gnu);
/// ```
pub enum Randomness {
    /// knuffle's ChaCha generator: Lemire's bounded draws and knuffle's
    /// shuffles (the fast path).
    Knuffle(Box<DefaultRng>),
    /// Bytes from a file, consumed exactly as GNU shuf does.
    Gnu(GnuRandom),
}

impl Randomness {
    /// knuffle's generator seeded from a text, as `knuffle --seed TEXT`.
    pub fn from_seed_text(seed: &str) -> Randomness {
        Randomness::Knuffle(Box::new(DefaultRng::from_seed_text(seed)))
    }

    /// knuffle's generator seeded by the operating system.
    pub fn from_os() -> Result<Randomness, Error> {
        DefaultRng::try_from_os()
            .map(|rng| Randomness::Knuffle(Box::new(rng)))
            .map_err(|e| Error::Entropy(e.to_string()))
    }

    /// GNU shuf's `--random-source=FILE`: the file's bytes become choices
    /// exactly as GNU shuf 9.1 turns them into choices, so the output is
    /// byte-identical to GNU's. The file is opened when the first choice
    /// needs it (GNU's order of errors: a missing input is reported first).
    pub fn gnu_source(path: impl AsRef<OsStr>) -> Randomness {
        Randomness::Gnu(GnuRandom::unopened(path.as_ref()))
    }

    /// Opens a GNU random source now when `needed`, as GNU does at this
    /// point of its run (knuffle's generator: nothing to do).
    pub fn open_if(&mut self, needed: bool) -> Result<(), Error> {
        Draws::open_if(self, needed)
    }

    /// Makes the first `h` items of `items` a uniformly random selection of
    /// `h` of them, in uniformly random order (all of them when
    /// `h >= items.len()`).
    pub fn shuffle_prefix<T: Send>(&mut self, items: &mut [T], h: usize) -> Result<(), Error> {
        Draws::shuffle_prefix(self, items, h)
    }

    /// A uniform integer in `0..n` (`n >= 1`).
    pub fn choose(&mut self, n: u64) -> Result<u64, Error> {
        Draws::choose(self, n)
    }

    /// `h` distinct values of `0..n` in uniformly random order, in O(h)
    /// memory whatever `n` (Floyd's algorithm for knuffle's generator, GNU's
    /// sparse `randperm` for a random source).
    pub fn sample_range(&mut self, n: u64, h: u64) -> Result<Vec<u64>, Error> {
        // Both samplers keep a hash set or map of h entries besides the h
        // results (about 32 bytes an entry): refuse what cannot be allocated
        // with GNU's "memory exhausted" rather than aborting midway.
        let bytes = usize::try_from(h)
            .ok()
            .and_then(|h| h.checked_mul(32))
            .ok_or(Error::OutOfMemory)?;
        Vec::<u8>::new()
            .try_reserve_exact(bytes)
            .map_err(|_| Error::OutOfMemory)?;
        match self {
            Randomness::Knuffle(rng) => {
                let k = usize::try_from(h).map_err(|_| Error::OutOfMemory)?;
                Ok(knuffle::sample_indices(n, k, rng.as_mut()))
            }
            Randomness::Gnu(source) => gnu_random::sparse_permutation(h, n, source),
        }
    }
}

/// The choices the record strategies make, from either source: a
/// [`Randomness`] (whichever it holds), or one of the two sources itself
/// once the plan has told them apart (`crate::records`).
pub(crate) trait Draws {
    /// Opens a GNU random source now when `needed`, as GNU does at this
    /// point of its run (knuffle's generator: nothing to do).
    fn open_if(&mut self, needed: bool) -> Result<(), Error>;

    /// Makes the first `h` items of `items` a uniformly random selection of
    /// `h` of them, in uniformly random order (all of them when
    /// `h >= items.len()`).
    fn shuffle_prefix<T: Send>(&mut self, items: &mut [T], h: usize) -> Result<(), Error>;

    /// A uniform integer in `0..n` (`n >= 1`).
    fn choose(&mut self, n: u64) -> Result<u64, Error>;
}

impl Draws for DefaultRng {
    fn open_if(&mut self, _needed: bool) -> Result<(), Error> {
        Ok(())
    }

    fn shuffle_prefix<T: Send>(&mut self, items: &mut [T], h: usize) -> Result<(), Error> {
        if h >= items.len() {
            // Same permutation for any number of threads.
            knuffle::par_shuffle(items, self);
        } else {
            knuffle::partial_shuffle(items, h, self);
        }
        Ok(())
    }

    fn choose(&mut self, n: u64) -> Result<u64, Error> {
        Ok(knuffle::below(n, self))
    }
}

impl Draws for GnuRandom {
    fn open_if(&mut self, needed: bool) -> Result<(), Error> {
        GnuRandom::open_if(self, needed)
    }

    fn shuffle_prefix<T: Send>(&mut self, items: &mut [T], h: usize) -> Result<(), Error> {
        gnu_random::permute_prefix(items, h, self)
    }

    fn choose(&mut self, n: u64) -> Result<u64, Error> {
        GnuRandom::choose(self, n)
    }
}

impl Draws for Randomness {
    fn open_if(&mut self, needed: bool) -> Result<(), Error> {
        match self {
            Randomness::Knuffle(rng) => rng.as_mut().open_if(needed),
            Randomness::Gnu(source) => Draws::open_if(source, needed),
        }
    }

    fn shuffle_prefix<T: Send>(&mut self, items: &mut [T], h: usize) -> Result<(), Error> {
        match self {
            Randomness::Knuffle(rng) => rng.as_mut().shuffle_prefix(items, h),
            Randomness::Gnu(source) => source.shuffle_prefix(items, h),
        }
    }

    fn choose(&mut self, n: u64) -> Result<u64, Error> {
        match self {
            Randomness::Knuffle(rng) => Draws::choose(rng.as_mut(), n),
            Randomness::Gnu(source) => Draws::choose(source, n),
        }
    }
}

impl From<DefaultRng> for Randomness {
    fn from(rng: DefaultRng) -> Randomness {
        Randomness::Knuffle(Box::new(rng))
    }
}
