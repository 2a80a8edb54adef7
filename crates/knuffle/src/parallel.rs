//! `par_shuffle`: the large-array shuffle on rayon's thread pool, giving the
//! very same permutation as [`shuffle`](crate::shuffle).
//!
//! Of the three parts of a scatter node (see the `scatter` module), two run
//! in parallel: counting the labels (fixed chunks of positions, counts
//! summed, so the result does not depend on the split) and shuffling the
//! buckets (each with its own derived key). The cycle walk in between stays
//! sequential, so the arrangement of each bucket before its own shuffle is
//! the same whatever the number of threads.

use rand_core::Rng;
use rayon::prelude::*;

use crate::scatter::{Executor, LabelStream, ShuffleConfig, shuffle_node, shuffle_on};

/// Positions per counting task (a multiple of the 128-label chunk).
const COUNT_TASK: usize = 1 << 17;

/// Shuffles `slice` in place on rayon's thread pool: exactly the permutation
/// that [`shuffle`](crate::shuffle) gives for the same generator state,
/// whatever the number of threads, and the generator ends in the same state.
/// Small slices (those `shuffle` handles with Durstenfeld's loop) are
/// shuffled on the calling thread.
///
/// # Example
/// ```
/// use knuffle::{par_shuffle, shuffle, Seed};
/// let mut a: Vec<u32> = (0..1_000_000).collect();
/// let mut b = a.clone();
/// par_shuffle(&mut a, &mut Seed::from_text("same").rng());
/// shuffle(&mut b, &mut Seed::from_text("same").rng());
/// assert_eq!(a, b);
/// ```
pub fn par_shuffle<T: Send, R: Rng + ?Sized>(slice: &mut [T], rng: &mut R) {
    par_shuffle_with_config(slice, rng, &ShuffleConfig::for_type::<T>());
}

/// [`par_shuffle`] with explicit switch points (tests only).
#[doc(hidden)]
pub fn par_shuffle_with_config<T: Send, R: Rng + ?Sized>(
    slice: &mut [T],
    rng: &mut R,
    config: &ShuffleConfig,
) {
    shuffle_on(slice, rng, config, &Parallel);
}

/// Counting and bucket shuffles on rayon's pool.
struct Parallel;

impl<T: Send> Executor<T> for Parallel {
    fn count(&self, labels: &LabelStream, len: usize) -> Vec<usize> {
        if len <= COUNT_TASK {
            return labels.count_range(0, len);
        }
        let k = labels.buckets();
        (0..len.div_ceil(COUNT_TASK))
            .into_par_iter()
            .map(|task| {
                let from = task * COUNT_TASK;
                labels.count_range(from, (from + COUNT_TASK).min(len))
            })
            .reduce(
                || vec![0usize; k],
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(b) {
                        *x += y;
                    }
                    a
                },
            )
    }

    fn buckets(&self, buckets: Vec<&mut [T]>, keys: Vec<[u8; 32]>, config: &ShuffleConfig) {
        buckets
            .into_par_iter()
            .zip(keys)
            .with_max_len(1)
            .for_each(|(bucket, key)| shuffle_node(bucket, key, config, &Parallel));
    }
}
