//! The large-array shuffle: scatter into random buckets, then shuffle each
//! bucket. Exactly uniform, in place, with extra memory bounded whatever
//! the length (see below).
//!
//! Random access to an array far larger than the cache costs a cache and TLB
//! miss per element, so Durstenfeld's loop slows down to the memory latency.
//! The classic remedy (P. Sandelius, "A simple randomization procedure",
//! J. Royal Statistical Society B 24(2), 1962; P. Sanders, "Random
//! permutations on distributed, external and hierarchical memory", IPL
//! 67(6), 1998; M. Penschuck, "Engineering Shared-Memory Parallel Shuffling
//! to Generate Random Permutations In-Place", SEA 2023) gives every element
//! a uniformly random bucket, moves each bucket into a contiguous region and
//! shuffles every region on its own, now inside the cache.
//!
//! # Why it is exactly uniform
//! * Every original position `p` gets a label `label(p)` in `0..k` (`k` a
//!   power of two), made of bits of a ChaCha8 keystream (D. J. Bernstein,
//!   "ChaCha, a variant of Salsa20", 2008): the labels are independent and
//!   uniform, so the bucket sizes follow the exact multinomial law. They are
//!   *counted* while the elements are distributed, never sampled from an
//!   approximate distribution, and no floating point is involved anywhere.
//! * Each bucket is then shuffled uniformly (recursively, or by
//!   Durstenfeld's loop) with its own generator.
//! * Then every arrangement `a` has the same probability: the labels are
//!   determined by `a` and the bucket sizes `c`, so
//!   `P(a) = sum over c of k^-n * prod_b 1/c_b!`, which does not depend on
//!   `a`.
//!
//! (`rip_shuffle`, by contrast, stops its random scatter as soon as one
//! bucket region is full and draws the final bucket sizes from a
//! floating-point approximation, then fixes up the leftovers: the bucket
//! contents are no longer an iid-labelled sample, which is how its output
//! start ends up overloaded with elements from the input start.)
//!
//! # Keeping it in place
//! The elements move to their buckets' regions by block moves (module
//! `distribute`, after IPS4o): classified into small per-bucket buffers,
//! written back as blocks, the blocks permuted into their regions, the
//! leftovers put in the regions' ends. That needs a byte per block (its
//! tag: its bucket) and, when the blocks are moved on several threads, four
//! more (where it goes), so a distribution is only used for
//! nodes of at most `max_blocks` blocks (2^23: at most 40 MiB; 2^30 elements
//! of up to 8 bytes, 8 GiB of elements whose size is a power of two from
//! 8 bytes to 1 KiB). A larger node is first split into 64 or more buckets
//! by a cycle walk that needs O(buckets) memory (module `walk`: slower per
//! element than the distribution, and on one thread, so it only runs on
//! nodes that large; figures in BENCHMARKS.md). Extra memory, whatever
//! the length: per node being distributed, the buffers (8 stripes x up to
//! 256 buckets x 1 KiB: 2 MiB) and at most 40 MiB of tags and
//! destinations (a 200th of the node's 8 GiB at the most), plus O(buckets)
//! counters per level; `par_shuffle` distributes up to one node per thread
//! at a time. Where an element lands inside its region depends on the
//! labels only, never on the data or the threads.
//!
//! # Reproducible and parallel
//! The caller's generator is only asked for a 256-bit key; every bucket's
//! key is derived from its parent's. The stripes that are classified in
//! parallel are fixed by the length, the block permutation follows one
//! sequential procedure (for `par_shuffle` run on the tags first, then its
//! moves made on any threads), and the bucket shuffles use their own keys,
//! so
//! [`par_shuffle`](crate::par_shuffle) gives the very same permutation as
//! [`shuffle`](crate::shuffle) with any number of threads.

use alloc::vec::Vec;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::distribute::{Plan, Steps, Stripe, capped_block, distribute};
use crate::durstenfeld::{durstenfeld, durstenfeld_fetching_next};
use crate::labels::{LabelStream, MAX_LABEL_BITS, region_starts};
use crate::prefetch::prefetch;
use crate::walk::{count_labels, walk};

/// Keystream 1 (keystream 0 holds the labels, module `labels`): the keys
/// of the node's buckets, 32 bytes each, in order.
const STREAM_CHILD_KEYS: u64 = 1;
/// Keystream 2: the generator of a base-case (Durstenfeld) bucket.
const STREAM_BASE: u64 = 2;

/// Slices of at most this many bytes are shuffled by Durstenfeld's loop
/// directly (with its partners prefetched): around this size one thread of
/// the scatter catches up with the loop on a machine with 2 MiB of level-2
/// cache, and two threads of it are well ahead (figures in BENCHMARKS.md).
const DIRECT_BYTES: usize = 16 << 20;
/// Buckets of at most this many bytes are shuffled by Durstenfeld's loop
/// (prefetching beyond 1 MiB): one level of scatter then covers up to
/// 4 GiB; a second level would cost two more passes over the data, more
/// than Durstenfeld's loop loses on buckets in the level-3 cache
/// (figures in BENCHMARKS.md).
const BASE_BYTES: usize = 16 << 20;
/// Within the levels it needs, the scatter aims at buckets of this many
/// bytes: Durstenfeld's loop is fastest in the level-2 cache.
const TARGET_BYTES: usize = 256 << 10;
/// Blocks of the distribution hold this many bytes (of the size class).
const BLOCK_BYTES: usize = 1 << 10;
/// Stripes per node: classification runs on up to this many threads.
const STRIPES: usize = 8;
/// At most `2^MAX_BITS` buckets per level.
const MAX_BITS: u32 = MAX_LABEL_BITS;
/// A walk splits into at least `2^WALK_MIN_BITS` buckets: a cycle of the
/// walk closes at a mispredicted branch about once per bucket count, so few
/// buckets are slow (timings per bucket count in BENCHMARKS.md), and
/// smaller buckets are distributed faster afterwards.
const WALK_MIN_BITS: u32 = 6;
/// At most this many blocks (tags) per block distribution: at most 8 MiB
/// of tags and 32 MiB of destinations (nodes of up to 2^30 elements of up
/// to 8 bytes, 8 GiB for
/// larger ones). Larger nodes are first split by the walk, which is much
/// slower per element (figures in BENCHMARKS.md).
const MAX_BLOCKS: usize = 1 << 23;

/// The switch points of [`shuffle`](crate::shuffle). Public only so that
/// tests can drive every branch with small inputs; the defaults are what
/// `shuffle` uses, and changing them changes the permutation.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShuffleConfig {
    /// Slices of at most this many elements are shuffled directly by
    /// Durstenfeld's loop, with the caller's generator.
    pub direct_len: usize,
    /// Inside the scatter, buckets of at most this many elements are
    /// shuffled by Durstenfeld's loop (at least 1).
    pub base_len: usize,
    /// Within the levels that `base_len` needs, the buckets aim at this
    /// many elements (0 counts as 1).
    pub target_len: usize,
    /// At most `2^max_bits` buckets per level (1 to 8: a label is one
    /// keystream byte, a block's tag one byte).
    pub max_bits: u32,
    /// Elements per block of the distribution (a power of two).
    pub block_len: usize,
    /// Stripes per node, classified independently (at least 1).
    pub stripes: usize,
    /// A node of more blocks than this (at least 1) is not distributed
    /// with a tag per block but first split, with O(buckets) memory, into
    /// enough buckets (at least 64 when `max_bits` allows) to bring it, in
    /// expectation, under half of this (module `walk`; a bucket still above
    /// it is walked again): the extra memory stays bounded whatever the
    /// length.
    pub max_blocks: usize,
}

impl ShuffleConfig {
    /// The default for elements of type `T`. Sizes count in a "size class"
    /// (the element size rounded up to a power of two, at least 8 bytes),
    /// so that types whose size differs between platforms (`usize`,
    /// pointers) get the same thresholds, hence the same permutation, on
    /// 32-bit and 64-bit targets. Elements of a size class above
    /// [`BLOCK_BYTES`] are always shuffled by Durstenfeld's loop: each one
    /// fills cache lines of its own, so the scatter has little locality to
    /// win, and its buffers (a block per bucket and stripe) would grow with
    /// the element.
    #[inline]
    pub fn for_type<T>() -> ShuffleConfig {
        let class = size_class::<T>();
        ShuffleConfig {
            direct_len: if class > BLOCK_BYTES {
                usize::MAX
            } else {
                DIRECT_BYTES / class
            },
            base_len: BASE_BYTES / class,
            target_len: TARGET_BYTES / class,
            max_bits: MAX_BITS,
            block_len: (BLOCK_BYTES / class).max(1),
            stripes: STRIPES,
            max_blocks: MAX_BLOCKS,
        }
    }

    pub(crate) fn check(&self) {
        assert!(
            self.base_len >= 1,
            "ShuffleConfig: base_len must be at least 1"
        );
        assert!(
            (1..=MAX_BITS).contains(&self.max_bits),
            "ShuffleConfig: max_bits must be in 1..=8"
        );
        assert!(
            self.block_len.is_power_of_two() && self.stripes >= 1,
            "ShuffleConfig: block_len must be a power of two and stripes at least 1"
        );
        assert!(
            self.max_blocks >= 1,
            "ShuffleConfig: max_blocks must be at least 1"
        );
    }
}

fn size_class<T>() -> usize {
    core::mem::size_of::<T>().next_power_of_two().max(8)
}

/// [`shuffle`](crate::shuffle) with explicit switch points (tests only).
#[doc(hidden)]
pub fn shuffle_with_config<T, R: Rng + ?Sized>(
    slice: &mut [T],
    rng: &mut R,
    config: &ShuffleConfig,
) {
    shuffle_on(slice, rng, config, &Sequential);
}

/// The size switch shared by [`shuffle_with_config`] and `par_shuffle`:
/// Durstenfeld up to `direct_len`, else the scatter tree run by `executor`.
/// Both executors consume the generator identically (a key of four words),
/// which is why `par_shuffle` equals `shuffle`.
pub(crate) fn shuffle_on<T, R: Rng + ?Sized, E: Executor<T>>(
    slice: &mut [T],
    rng: &mut R,
    config: &ShuffleConfig,
    executor: &E,
) {
    config.check();
    if slice.len() <= config.direct_len {
        durstenfeld(slice, rng);
    } else {
        let key = draw_key(rng);
        shuffle_node(slice, key, config, executor);
    }
}

/// The 256-bit key of the root node: four words of the caller's generator.
pub(crate) fn draw_key<R: Rng + ?Sized>(rng: &mut R) -> [u8; 32] {
    let mut key = [0u8; 32];
    for word in key.chunks_exact_mut(8) {
        word.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    key
}

/// How the parallelizable parts of a node run: counting the labels (before
/// a walk), classifying the stripes, the jobs that move the blocks and
/// shuffling the buckets. All give the same result however they run.
pub(crate) trait Executor<T> {
    /// The number of each label among the node's `len` positions.
    fn count(&self, labels: &LabelStream, len: usize) -> Vec<usize>;
    /// Runs step 1 of the distribution on every stripe.
    fn classify(&self, stripes: &mut [Stripe<'_, T>], labels: &LabelStream);
    /// Whether it runs jobs on several threads (see `Steps::threads`).
    fn threads(&self) -> bool;
    /// Runs the jobs of the distribution's step 2 (see `Steps::jobs`).
    fn jobs(&self, jobs: usize, job: &(dyn Fn(usize) + Sync));
    /// Shuffles each bucket with its key.
    fn buckets(&self, buckets: Vec<&mut [T]>, keys: Vec<[u8; 32]>, config: &ShuffleConfig);
}

/// Everything on the calling thread.
pub(crate) struct Sequential;

impl<T> Executor<T> for Sequential {
    fn count(&self, labels: &LabelStream, len: usize) -> Vec<usize> {
        count_labels(labels, 0..len)
    }

    fn classify(&self, stripes: &mut [Stripe<'_, T>], labels: &LabelStream) {
        for stripe in stripes {
            stripe.classify(labels);
        }
    }

    fn threads(&self) -> bool {
        false
    }

    fn jobs(&self, jobs: usize, job: &(dyn Fn(usize) + Sync)) {
        (0..jobs).for_each(job);
    }

    fn buckets(&self, buckets: Vec<&mut [T]>, keys: Vec<[u8; 32]>, config: &ShuffleConfig) {
        for (bucket, key) in buckets.into_iter().zip(keys) {
            shuffle_node(bucket, key, config, self);
        }
    }
}

/// A node's distribution steps, run by its executor.
struct NodeSteps<'a, E> {
    exec: &'a E,
    labels: &'a LabelStream,
}

impl<T, E: Executor<T>> Steps<T> for NodeSteps<'_, E> {
    fn classify(&self, stripes: &mut [Stripe<'_, T>]) {
        self.exec.classify(stripes, self.labels);
    }

    fn threads(&self) -> bool {
        self.exec.threads()
    }

    fn jobs(&self, jobs: usize, job: &(dyn Fn(usize) + Sync)) {
        self.exec.jobs(jobs, job);
    }
}

/// Shuffles one node of the recursion: a base case, or a scatter into
/// buckets followed by the buckets' shuffles.
pub(crate) fn shuffle_node<T, E: Executor<T>>(
    slice: &mut [T],
    key: [u8; 32],
    config: &ShuffleConfig,
    exec: &E,
) {
    let len = slice.len();
    if len <= config.base_len {
        if len >= 2 {
            let mut rng = ChaCha8Rng::from_seed(key);
            rng.set_stream(STREAM_BASE);
            // The distribution left this bucket in memory, not in cache: one
            // sequential sweep of prefetches is far cheaper than a miss
            // on each of Durstenfeld's random accesses.
            for index in (0..len).step_by((64 / size_of::<T>().max(1)).max(1)) {
                prefetch(slice, index, 0);
            }
            // The next bucket (in memory, and usually the next one this
            // thread shuffles) comes in while this one is shuffled.
            durstenfeld_fetching_next(slice, &mut rng, size_of_val(slice));
        }
        return;
    }
    if size_of::<T>() == 0 {
        return; // every order of zero-sized values is the same
    }
    let blocks = len / capped_block(len, config.block_len);
    let (labels, starts) = if blocks > config.max_blocks {
        let labels = LabelStream::new(key, walk_bits(blocks, config));
        let starts = region_starts(&exec.count(&labels, len));
        walk(slice, &labels, &starts);
        (labels, starts)
    } else {
        let labels = LabelStream::new(key, bits_for(len, config));
        let plan = Plan::new(len, config.block_len, config.stripes, labels.buckets());
        let steps = NodeSteps {
            exec,
            labels: &labels,
        };
        let starts = distribute(slice, &plan, &steps);
        (labels, starts)
    };
    let keys = child_keys(key, labels.buckets());
    let mut buckets = Vec::with_capacity(keys.len());
    let mut rest = slice;
    for pair in starts.windows(2) {
        let (bucket, tail) = rest.split_at_mut(pair[1] - pair[0]);
        buckets.push(bucket);
        rest = tail;
    }
    exec.buckets(buckets, keys, config);
}

/// The keys of a node's `buckets` children, in order: keystream 1 of the
/// node's key, 32 bytes each.
fn child_keys(key: [u8; 32], buckets: usize) -> Vec<[u8; 32]> {
    let mut keys_rng = ChaCha8Rng::from_seed(key);
    keys_rng.set_stream(STREAM_CHILD_KEYS);
    (0..buckets)
        .map(|_| {
            let mut child = [0u8; 32];
            keys_rng.fill_bytes(&mut child);
            child
        })
        .collect()
}

/// The number of label bits for a node of `len > base_len` elements.
///
/// First the number of levels: as few as bring the buckets down to
/// `base_len` with at most `2^max_bits` buckets per level (each level is a
/// whole pass over the data). Then, within that many levels, the buckets
/// aim at `target_len` elements (256 KiB by default: Durstenfeld's loop
/// is fastest in the level-2 cache), the bits spread evenly over the
/// levels.
fn bits_for(len: usize, config: &ShuffleConfig) -> u32 {
    let bits_to_reach = |size: usize| ceil_log2(len.div_ceil(size.max(1)).max(2));
    let levels = bits_to_reach(config.base_len)
        .div_ceil(config.max_bits)
        .max(1);
    bits_to_reach(config.target_len)
        .div_ceil(levels)
        .clamp(1, config.max_bits)
}

/// The number of label bits for a walk over a node of `blocks` blocks
/// (more than `max_blocks`): enough to make the expected bucket at most
/// half of `max_blocks` (so that a bucket rarely needs a second walk), and
/// at least [`WALK_MIN_BITS`].
fn walk_bits(blocks: usize, config: &ShuffleConfig) -> u32 {
    let needed = ceil_log2(blocks.saturating_mul(2).div_ceil(config.max_blocks).max(2));
    needed.max(WALK_MIN_BITS).min(config.max_bits)
}

/// The number of bits that count `wanted >= 2` buckets: ceil(log2(wanted)).
fn ceil_log2(wanted: usize) -> u32 {
    usize::BITS - (wanted - 1).leading_zeros()
}
