//! Sampling an algorithm of the zoo many times, on every core,
//! reproducibly.
//!
//! The trials are cut into chunks of [`CHUNK`] shuffles. Chunk `c` of
//! algorithm `a` under seed text `s` draws from ChaCha20 (the library's
//! default generator, through `rand_chacha`) keyed with
//! `SHA-256("knuffle-lab/" + s + "/" + a)` on stream `c`. Every chunk's
//! stream is fixed by the seed, so the counts do not depend on the number
//! of threads or on which other algorithms run.

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use rayon::prelude::*;

use crate::tally::Tally;
use crate::zoo::{Algorithm, NoObserver};

/// Shuffles per chunk (one generator stream each).
pub const CHUNK: u64 = 1 << 18;

/// The generator for chunk `chunk` of `algorithm` under `seed`.
///
/// ```
/// use knuffle_lab::{sample::chunk_rng, zoo::Algorithm};
/// use rand_core::Rng;
/// let mut a = chunk_rng("lab", Algorithm::NaiveSwap, 3);
/// let mut b = chunk_rng("lab", Algorithm::NaiveSwap, 3);
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert_ne!(chunk_rng("lab", Algorithm::NaiveSwap, 4).next_u64(), chunk_rng("lab", Algorithm::NaiveSwap, 3).next_u64());
/// ```
pub fn chunk_rng(seed: &str, algorithm: Algorithm, chunk: u64) -> ChaCha20Rng {
    let key = *knuffle::Seed::from_text(&format!("knuffle-lab/{seed}/{}", algorithm.name())).key();
    let mut rng = ChaCha20Rng::from_seed(key);
    rng.set_stream(chunk);
    rng
}

/// Shuffles the identity of `n` items `trials` times with `algorithm` and
/// counts the results, on rayon's thread pool. `progress(done)` is called
/// after each chunk with the number of shuffles in it.
///
/// ```
/// use knuffle_lab::{sample::sample, zoo::Algorithm};
/// let t = sample(Algorithm::FisherYates, 4, 10_000, "doc", &|_| {});
/// assert_eq!(t.trials(), 10_000);
/// assert_eq!(t.order_counts().unwrap().len(), 24);
/// assert_eq!(t, sample(Algorithm::FisherYates, 4, 10_000, "doc", &|_| {}));
/// ```
pub fn sample(
    algorithm: Algorithm,
    n: usize,
    trials: u64,
    seed: &str,
    progress: &(dyn Fn(u64) + Sync),
) -> Tally {
    let chunks = trials.div_ceil(CHUNK);
    (0..chunks)
        .into_par_iter()
        .fold(
            || Tally::new(n),
            |mut tally, chunk| {
                let count = CHUNK.min(trials - chunk * CHUNK);
                let mut rng = chunk_rng(seed, algorithm, chunk);
                let identity: Vec<usize> = (0..n).collect();
                let mut items = identity.clone();
                for _ in 0..count {
                    items.copy_from_slice(&identity);
                    algorithm.run(&mut items, &mut rng, &mut NoObserver);
                    tally.add(&items);
                }
                progress(count);
                tally
            },
        )
        .reduce(
            || Tally::new(n),
            |mut a, b| {
                a.merge(&b);
                a
            },
        )
}

/// Counts `trials` outputs of any shuffler: `shuffle` receives the identity
/// `[0, 1, ..., n-1]` and rearranges it in place. Feed the tally to
/// [`crate::analysis::analyze`] (or use [`crate::audit::audit_shuffler`]).
pub fn sample_fn<F: FnMut(&mut [usize])>(n: usize, trials: u64, mut shuffle: F) -> Tally {
    let mut tally = Tally::new(n);
    let identity: Vec<usize> = (0..n).collect();
    let mut items = identity.clone();
    for _ in 0..trials {
        items.copy_from_slice(&identity);
        shuffle(&mut items);
        tally.add(&items);
    }
    tally
}
