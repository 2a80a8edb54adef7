//! The large-array shuffle: scatter into random buckets, then shuffle each
//! bucket. Exactly uniform, in place, extra memory O(number of buckets).
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
//!   *counted*, never sampled from an approximate distribution, and no
//!   floating point is involved anywhere.
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
//! The label of an original position can be recomputed at any time, because
//! the keystream is addressable (`set_word_pos`). Pass 1 counts the labels.
//! Pass 2 is an American-flag cycle walk (McIlroy, Bostic and McIlroy,
//! "Engineering radix sort", Computing Systems 6(1), 1993): every bucket
//! region is filled from its front; a slot at or past the front of its
//! region has never been written, so the element there is still at its
//! original position and its label is recomputed from that position. Each
//! bucket keeps one cached chunk of labels; nothing else is stored.
//!
//! # Reproducible and parallel
//! The caller's generator is only asked for a 256-bit key; every bucket's
//! key is derived from its parent's. The walk is sequential and the bucket
//! shuffles use their own keys, so [`par_shuffle`](crate::par_shuffle) gives
//! the very same permutation as [`shuffle`](crate::shuffle) with any number
//! of threads.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::shuffle::durstenfeld;

/// Labels per keystream chunk: 256 bytes (four ChaCha blocks), one
/// little-endian `u16` per label.
const CHUNK_LABELS: usize = 128;
/// 32-bit keystream words per chunk.
const CHUNK_WORDS: u128 = 64;

/// Keystream 0 of a node's key: the labels.
const STREAM_LABELS: u64 = 0;
/// Keystream 1: the keys of the node's buckets, 32 bytes each, in order.
const STREAM_CHILD_KEYS: u64 = 1;
/// Keystream 2: the generator of a base-case (Durstenfeld) bucket.
const STREAM_BASE: u64 = 2;

/// Slices of at most this many bytes are shuffled by Durstenfeld's loop
/// directly: they fit in the level-2 cache.
const DIRECT_BYTES: usize = 1 << 20;
/// Buckets of at most this many bytes are shuffled by Durstenfeld's loop.
const BASE_BYTES: usize = 1 << 19;
/// At most `2^MAX_BITS` buckets per level.
const MAX_BITS: u32 = 10;

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
    /// At most `2^max_bits` buckets per level (1 to 16).
    pub max_bits: u32,
}

impl ShuffleConfig {
    /// The default for elements of type `T`. Sizes count in a "size class"
    /// (the element size rounded up to a power of two, at least 8 bytes),
    /// so that types whose size differs between platforms (`usize`,
    /// pointers) get the same thresholds, hence the same permutation, on
    /// 32-bit and 64-bit targets.
    pub fn for_type<T>() -> ShuffleConfig {
        let class = size_class::<T>();
        ShuffleConfig {
            direct_len: DIRECT_BYTES / class,
            base_len: BASE_BYTES / class,
            max_bits: MAX_BITS,
        }
    }

    pub(crate) fn check(&self) {
        assert!(
            self.base_len >= 1,
            "ShuffleConfig: base_len must be at least 1"
        );
        assert!(
            (1..=16).contains(&self.max_bits),
            "ShuffleConfig: max_bits must be in 1..=16"
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
    config.check();
    if slice.len() <= config.direct_len {
        durstenfeld(slice, rng);
    } else {
        let key = draw_key(rng);
        shuffle_node(slice, key, config, &Sequential);
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

/// How the two parallelizable parts of a node run: counting the labels and
/// shuffling the buckets. Both give the same result however they run.
pub(crate) trait Executor<T> {
    /// The label counts of positions `0..len`.
    fn count(&self, labels: &LabelStream, len: usize) -> Vec<usize>;
    /// Shuffles each bucket with its key.
    fn buckets(&self, buckets: Vec<&mut [T]>, keys: Vec<[u8; 32]>, config: &ShuffleConfig);
}

/// Everything on the calling thread.
pub(crate) struct Sequential;

impl<T> Executor<T> for Sequential {
    fn count(&self, labels: &LabelStream, len: usize) -> Vec<usize> {
        labels.count_range(0, len)
    }

    fn buckets(&self, buckets: Vec<&mut [T]>, keys: Vec<[u8; 32]>, config: &ShuffleConfig) {
        for (bucket, key) in buckets.into_iter().zip(keys) {
            shuffle_node(bucket, key, config, self);
        }
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
            durstenfeld(slice, &mut rng);
        }
        return;
    }
    let bits = bits_for(len, config);
    let labels = LabelStream::new(key, bits);
    let counts = exec.count(&labels, len);
    let mut starts = Vec::with_capacity(counts.len() + 1);
    let mut total = 0;
    starts.push(0);
    for &count in &counts {
        total += count;
        starts.push(total);
    }
    debug_assert_eq!(total, len);
    walk(slice, labels, &starts);

    let mut keys_rng = ChaCha8Rng::from_seed(key);
    keys_rng.set_stream(STREAM_CHILD_KEYS);
    let keys: Vec<[u8; 32]> = (0..counts.len())
        .map(|_| {
            let mut child = [0u8; 32];
            keys_rng.fill_bytes(&mut child);
            child
        })
        .collect();
    let mut buckets = Vec::with_capacity(counts.len());
    let mut rest = slice;
    for &count in &counts {
        let (bucket, tail) = rest.split_at_mut(count);
        buckets.push(bucket);
        rest = tail;
    }
    exec.buckets(buckets, keys, config);
}

/// The number of label bits for a node of `len > base_len` elements: enough
/// buckets for the expected bucket size to reach `base_len`, at most
/// `2^max_bits`.
fn bits_for(len: usize, config: &ShuffleConfig) -> u32 {
    let wanted = len.div_ceil(config.base_len).max(2);
    let bits = usize::BITS - (wanted - 1).leading_zeros();
    bits.clamp(1, config.max_bits)
}

/// The labels of one node: `label(p)` is the `p`-th little-endian `u16` of
/// the ChaCha8 keystream (key, stream 0), masked to the low `bits` bits.
#[derive(Clone)]
pub(crate) struct LabelStream {
    rng: ChaCha8Rng,
    mask: u16,
    buckets: usize,
}

impl LabelStream {
    fn new(key: [u8; 32], bits: u32) -> LabelStream {
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(STREAM_LABELS);
        LabelStream {
            rng,
            mask: ((1u32 << bits) - 1) as u16,
            buckets: 1 << bits,
        }
    }

    /// Fills `out` with the labels of chunk `chunk` (positions
    /// `chunk * 128 ..`). Seeks only when the stream is not already there.
    #[inline]
    fn fill_chunk(&mut self, chunk: usize, out: &mut [u16; CHUNK_LABELS]) {
        let word = chunk as u128 * CHUNK_WORDS;
        if self.rng.get_word_pos() != word {
            self.rng.set_word_pos(word);
        }
        let mut bytes = [0u8; CHUNK_LABELS * 2];
        self.rng.fill_bytes(&mut bytes);
        for (label, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
            *label = u16::from_le_bytes([pair[0], pair[1]]) & self.mask;
        }
    }

    /// Label counts of the positions `from..to` (`from` a multiple of 128).
    pub(crate) fn count_range(&self, from: usize, to: usize) -> Vec<usize> {
        debug_assert_eq!(from % CHUNK_LABELS, 0);
        let mut stream = self.clone();
        let mut counts = vec![0usize; self.buckets];
        let mut labels = [0u16; CHUNK_LABELS];
        let mut pos = from;
        while pos < to {
            stream.fill_chunk(pos / CHUNK_LABELS, &mut labels);
            let take = (to - pos).min(CHUNK_LABELS);
            for &label in &labels[..take] {
                counts[label as usize] += 1;
            }
            pos += take;
        }
        counts
    }

    pub(crate) fn buckets(&self) -> usize {
        self.buckets
    }
}

/// Per-bucket cached label chunks for the walk: O(buckets) memory.
struct LabelCache {
    stream: LabelStream,
    chunk_of: Vec<usize>,
    labels: Vec<[u16; CHUNK_LABELS]>,
}

impl LabelCache {
    fn new(stream: LabelStream) -> LabelCache {
        let k = stream.buckets;
        LabelCache {
            stream,
            chunk_of: vec![usize::MAX; k],
            labels: vec![[0u16; CHUNK_LABELS]; k],
        }
    }

    /// The label of original position `pos`, read through the cache of the
    /// bucket whose front is at `pos`.
    #[inline(always)]
    fn at(&mut self, bucket: usize, pos: usize) -> usize {
        let chunk = pos / CHUNK_LABELS;
        if self.chunk_of[bucket] != chunk {
            self.stream.fill_chunk(chunk, &mut self.labels[bucket]);
            self.chunk_of[bucket] = chunk;
        }
        self.labels[bucket][pos % CHUNK_LABELS] as usize
    }
}

/// Pass 2: moves every element to its bucket's region (`starts[b] ..
/// starts[b + 1]`) by an American-flag cycle walk.
///
/// Invariant: slots `starts[b] .. heads[b]` hold elements labelled `b`;
/// every slot at or past its region's head (other than the leader slot `i`)
/// has never been written, so its element is the original one and its
/// label is `label(slot)`. The leader slot `i` holds an element whose label
/// `l` is known; it is swapped to the front of region `l`, and the element
/// found there (an original one) comes back to `i`, until an element
/// labelled `b` lands in `i`.
fn walk<T>(data: &mut [T], labels: LabelStream, starts: &[usize]) {
    let k = starts.len() - 1;
    let mut cache = LabelCache::new(labels);
    let mut heads: Vec<usize> = starts[..k].to_vec();
    for b in 0..k {
        let end = starts[b + 1];
        let mut i = heads[b];
        while i < end {
            let mut l = cache.at(b, i);
            while l != b {
                let dest = heads[l];
                debug_assert!(dest < starts[l + 1], "label counts must match");
                let next = cache.at(l, dest);
                prefetch_ahead(data, dest);
                data.swap(i, dest);
                heads[l] = dest + 1;
                l = next;
            }
            i += 1;
            heads[b] = i;
        }
    }
}

/// Hints the cache to fetch the element a few lines after `index` (the next
/// ones the walk will read from this region). A hint only: it never faults.
#[inline(always)]
fn prefetch_ahead<T>(data: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        const AHEAD_BYTES: usize = 512;
        let ptr = data
            .as_ptr()
            .wrapping_add(index)
            .cast::<i8>()
            .wrapping_add(AHEAD_BYTES);
        // SAFETY: prefetching has no architectural effect and never faults,
        // whatever the address.
        unsafe {
            core::arch::x86_64::_mm_prefetch(ptr, core::arch::x86_64::_MM_HINT_T0);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, index);
}
