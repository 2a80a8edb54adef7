//! `par_shuffle`: the large-array shuffle on rayon's thread pool, giving the
//! very same permutation as [`shuffle`](crate::shuffle).
//!
//! Of a scatter node's steps (see the `scatter`, `distribute`,
//! `block_moves` and `walk` modules), four run in parallel: counting the
//! labels before a walk (in fixed pieces; the sums do not depend on the
//! split), classifying the stripes (fixed by the length, not by the
//! threads), moving the blocks to the slots worked out for them beforehand
//! (the slots are worked out on one thread, from the tags alone: the same
//! slots as `shuffle`'s moves as it goes) and shuffling the buckets (each
//! with its own derived key). The walk runs on one thread. So the
//! arrangement of each bucket before its own shuffle is the same whatever
//! the number of threads.

use alloc::vec;
use alloc::vec::Vec;
use rand_core::Rng;
use rayon::prelude::*;

use crate::distribute::Stripe;
use crate::labels::LabelStream;
use crate::scatter::{Executor, ShuffleConfig, shuffle_node, shuffle_on};
use crate::walk::count_labels;

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

/// Counting, classification, block moves and bucket shuffles on rayon's
/// pool.
struct Parallel;

/// Positions per parallel counting task (a multiple of the chunk).
const COUNT_PIECE: usize = 1 << 22;

impl<T: Send> Executor<T> for Parallel {
    fn count(&self, labels: &LabelStream, len: usize) -> Vec<usize> {
        (0..len.div_ceil(COUNT_PIECE))
            .into_par_iter()
            .map(|piece| {
                let start = piece * COUNT_PIECE;
                count_labels(labels, start..(start + COUNT_PIECE).min(len))
            })
            .reduce(
                || vec![0; labels.buckets()],
                |mut sum, piece| {
                    sum.iter_mut().zip(piece).for_each(|(s, c)| *s += c);
                    sum
                },
            )
    }

    fn classify(&self, stripes: &mut [Stripe<'_, T>], labels: &LabelStream) {
        stripes
            .par_iter_mut()
            .with_max_len(1)
            .for_each(|stripe| stripe.classify(labels));
    }

    fn threads(&self) -> bool {
        rayon::current_num_threads() > 1
    }

    fn jobs(&self, jobs: usize, job: &(dyn Fn(usize) + Sync)) {
        (0..jobs).into_par_iter().for_each(job);
    }

    fn buckets(&self, buckets: Vec<&mut [T]>, keys: Vec<[u8; 32]>, config: &ShuffleConfig) {
        buckets
            .into_par_iter()
            .zip(keys)
            .with_max_len(1)
            .for_each(|(bucket, key)| shuffle_node(bucket, key, config, &Parallel));
    }
}
