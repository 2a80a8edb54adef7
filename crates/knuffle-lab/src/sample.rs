//! Sampling an algorithm of the zoo many times, on every core,
//! reproducibly.
//!
//! The trials are cut into chunks of [`CHUNK`] shuffles. Chunk `c` of
//! algorithm `a` under seed text `s` draws from ChaCha8 (`rand_chacha`'s
//! 8-round ChaCha: the library's stream cipher with fewer rounds, several
//! times cheaper than ChaCha20 (BENCHMARKS.md), far beyond what any
//! statistical test can tell apart) keyed with `SHA-256("knuffle-lab/" + s + "/" + a)`, on
//! stream `c`. Every chunk's stream is fixed by the seed, so the counts do
//! not depend on the number of threads or on which other algorithms run.

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use rayon::prelude::*;

use crate::tally::Tally;
use crate::zoo::{Algorithm, NoObserver};

/// Shuffles per chunk (one generator stream each).
pub const CHUNK: u64 = 1 << 18;

/// Decks up to this size are counted through a bit-packed table.
const PACKED_MAX_N: usize = 5;

fn bits_per_item(n: usize) -> usize {
    (usize::BITS - (n.max(2) - 1).leading_zeros()) as usize
}

/// The generator for chunk `chunk` of `algorithm` under `seed`.
///
/// ```
/// use knuffle_lab::{sample::chunk_rng, zoo::Algorithm};
/// use rand_core::Rng;
/// let mut a = chunk_rng("lab", Algorithm::NaiveSwap, 3);
/// let mut b = chunk_rng("lab", Algorithm::NaiveSwap, 3);
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert_ne!(
///     chunk_rng("lab", Algorithm::NaiveSwap, 4).next_u64(),
///     chunk_rng("lab", Algorithm::NaiveSwap, 3).next_u64()
/// );
/// ```
pub fn chunk_rng(seed: &str, algorithm: Algorithm, chunk: u64) -> ChaCha8Rng {
    let text = format!("knuffle-lab/{seed}/{}", algorithm.name());
    let mut rng = ChaCha8Rng::from_seed(*knuffle::Seed::from_text(&text).key());
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
                count_chunk(algorithm, n, count, &mut rng, &mut tally);
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

/// Dispatches once per chunk, so each algorithm's loop is compiled with the
/// algorithm known (no `match` per shuffle).
fn count_chunk(
    algorithm: Algorithm,
    n: usize,
    count: u64,
    rng: &mut ChaCha8Rng,
    tally: &mut Tally,
) {
    macro_rules! dispatch {
        ($($variant:ident),* $(,)?) => {
            match algorithm {
                $(Algorithm::$variant => count_with(n, count, tally, |items: &mut [usize]| {
                    Algorithm::$variant.run(items, rng, &mut NoObserver)
                }),)*
            }
        };
    }
    crate::zoo::every_algorithm!(dispatch);
}

#[inline(always)]
fn count_with<F: FnMut(&mut [usize])>(n: usize, count: u64, tally: &mut Tally, mut shuffle: F) {
    let identity: Vec<usize> = (0..n).collect();
    let mut items = identity.clone();
    if n <= PACKED_MAX_N {
        // Small decks: count each output by its bit-packed value (the .NET harness's
        // key), rank afterwards.
        let bits = bits_per_item(n);
        let mut table = vec![0u64; 1 << (bits * n)];
        for _ in 0..count {
            items.copy_from_slice(&identity);
            shuffle(&mut items);
            let key = items
                .iter()
                .enumerate()
                .fold(0usize, |key, (i, &x)| key | (x << (bits * i)));
            table[key] += 1;
        }
        let mask = (1usize << bits) - 1;
        for (key, &c) in table.iter().enumerate().filter(|&(_, &c)| c > 0) {
            for (i, slot) in items.iter_mut().enumerate() {
                *slot = (key >> (bits * i)) & mask;
            }
            tally.add_many(&items, c);
        }
    } else {
        for _ in 0..count {
            items.copy_from_slice(&identity);
            shuffle(&mut items);
            tally.add(&items);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_do_not_depend_on_the_thread_count() {
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| sample(Algorithm::NaiveSwap, 4, 3 * CHUNK + 17, "threads", &|_| {}))
        };
        assert_eq!(run(1), run(2));
        let big = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| sample(Algorithm::FisherYates, 7, CHUNK + 5, "threads", &|_| {}))
        };
        assert_eq!(big(1), big(3));
    }
}
