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

/// Keystream 0 of a node's key: the labels.
const STREAM_LABELS: u64 = 0;
/// Keystream 1: the keys of the node's buckets, 32 bytes each, in order.
const STREAM_CHILD_KEYS: u64 = 1;
/// Keystream 2: the generator of a base-case (Durstenfeld) bucket.
const STREAM_BASE: u64 = 2;

/// Slices of at most this many bytes are shuffled by Durstenfeld's loop
/// directly (with its partners prefetched): up to here, measured on a
/// 2-core Xeon with 2 MiB of level-2 and a large shared level-3 cache, the
/// scatter's extra passes cost more than the cache misses they save.
const DIRECT_BYTES: usize = 32 << 20;
/// Buckets of at most this many bytes are shuffled by Durstenfeld's loop
/// (prefetching beyond 1 MiB): one level of scatter then covers up to
/// 1 GiB; a second level would cost another pass over the data.
const BASE_BYTES: usize = 4 << 20;
/// How far ahead of a region's front the walk prefetches.
const WALK_PREFETCH_BYTES: usize = 256;
/// At most `2^MAX_BITS` buckets per level.
const MAX_BITS: u32 = 8;

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
            // The walk left this bucket in memory, not in cache: one
            // sequential sweep of prefetches is far cheaper than a miss
            // on each of Durstenfeld's random accesses.
            for index in (0..len).step_by((64 / size_of::<T>().max(1)).max(1)) {
                prefetch(slice, index, 0);
            }
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

/// The number of label bits for a node of `len > base_len` elements.
///
/// First the number of levels: as few as bring the buckets down to
/// `base_len` with at most `2^max_bits` buckets per level (each level is a
/// whole pass over the data). Then, within that many levels, the buckets
/// aim at `base_len / 16` elements (256 KiB by default: Durstenfeld's loop
/// is fastest in the level-2 cache), the bits spread evenly over the
/// levels.
fn bits_for(len: usize, config: &ShuffleConfig) -> u32 {
    let bits_to_reach = |size: usize| {
        let wanted = len.div_ceil(size.max(1)).max(2);
        usize::BITS - (wanted - 1).leading_zeros()
    };
    let levels = bits_to_reach(config.base_len)
        .div_ceil(config.max_bits)
        .max(1);
    bits_to_reach(config.base_len / 16)
        .div_ceil(levels)
        .clamp(1, config.max_bits)
}

/// The labels of one node. With `bits <= 8`, `label(p)` is byte `p` of the
/// ChaCha8 keystream (key, stream 0) masked to its low `bits` bits; with
/// more bits, it is the `p`-th little-endian `u16` of that keystream, masked.
/// The keystream is read in chunks of 256 bytes (four ChaCha blocks).
#[derive(Clone)]
pub(crate) struct LabelStream {
    rng: ChaCha8Rng,
    mask: u16,
    /// Two bytes per label (`bits > 8`).
    wide: bool,
    buckets: usize,
}

/// Keystream bytes per chunk.
const CHUNK_BYTES: usize = 256;

impl LabelStream {
    fn new(key: [u8; 32], bits: u32) -> LabelStream {
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(STREAM_LABELS);
        LabelStream {
            rng,
            mask: ((1u32 << bits) - 1) as u16,
            wide: bits > 8,
            buckets: 1 << bits,
        }
    }

    /// Labels per chunk: 256 or 128.
    #[inline(always)]
    fn per_chunk(&self) -> usize {
        1 << self.chunk_shift()
    }

    /// log2 of the labels per chunk (a shift, never a division).
    #[inline(always)]
    fn chunk_shift(&self) -> u32 {
        if self.wide { 7 } else { 8 }
    }

    /// The keystream bytes of chunk `chunk`. Seeks only when the stream is
    /// not already there.
    #[inline]
    fn fill_chunk(&mut self, chunk: usize, out: &mut [u8; CHUNK_BYTES]) {
        let word = chunk as u128 * (CHUNK_BYTES as u128 / 4);
        if self.rng.get_word_pos() != word {
            self.rng.set_word_pos(word);
        }
        self.rng.fill_bytes(out);
    }

    /// Label counts of the positions `from..to` (`from` a multiple of 256).
    #[inline(never)]
    pub(crate) fn count_range(&self, from: usize, to: usize) -> Vec<usize> {
        debug_assert_eq!(from % CHUNK_BYTES, 0);
        let mut stream = self.clone();
        let mut counts = vec![0usize; self.buckets];
        let mut bytes = [0u8; CHUNK_BYTES];
        let per_chunk = self.per_chunk();
        let mut pos = from;
        while pos < to {
            stream.fill_chunk(pos >> self.chunk_shift(), &mut bytes);
            let take = (to - pos).min(per_chunk);
            if self.wide {
                for pair in bytes.chunks_exact(2).take(take) {
                    counts[usize::from(u16::from_le_bytes([pair[0], pair[1]]) & self.mask)] += 1;
                }
            } else {
                let mask = self.mask as u8;
                for &byte in &bytes[..take] {
                    counts[usize::from(byte & mask)] += 1;
                }
            }
            pos += take;
        }
        counts
    }

    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(crate) fn buckets(&self) -> usize {
        self.buckets
    }
}

/// The walk's view of the bucket regions, one entry per bucket (O(1)
/// each): the region's front, its end, the label of the (original) element
/// at the front, and the cached keystream chunk that covers the front.
/// `WIDE` is the label width (two bytes when more than 8 bits), fixed at
/// compile time so that the walk's inner loop has no branch on it.
struct Fronts<const WIDE: bool> {
    labels: LabelStream,
    head: Vec<usize>,
    end: Vec<usize>,
    head_label: Vec<u16>,
    chunk: Vec<usize>,
    bytes: Vec<[u8; CHUNK_BYTES]>,
}

impl<const WIDE: bool> Fronts<WIDE> {
    const SHIFT: u32 = if WIDE { 7 } else { 8 };

    fn new(labels: LabelStream, starts: &[usize]) -> Self {
        debug_assert_eq!(labels.wide, WIDE);
        let k = starts.len() - 1;
        let mut fronts = Fronts {
            labels,
            head: starts[..k].to_vec(),
            end: starts[1..].to_vec(),
            head_label: vec![0; k],
            chunk: vec![usize::MAX; k],
            bytes: vec![[0; CHUNK_BYTES]; k],
        };
        for (b, &start) in starts[..k].iter().enumerate() {
            fronts.head_label[b] = fronts.label_at(b, start) as u16;
        }
        fronts
    }

    /// The label of original position `pos`, through bucket `b`'s chunk.
    #[inline(always)]
    fn label_at(&mut self, b: usize, pos: usize) -> usize {
        let chunk = pos >> Self::SHIFT;
        let bytes = &mut self.bytes[b];
        if chunk != self.chunk[b] {
            self.labels.fill_chunk(chunk, bytes);
            self.chunk[b] = chunk;
        }
        let index = pos & ((1 << Self::SHIFT) - 1);
        let raw = if WIDE {
            u16::from_le_bytes([bytes[2 * index], bytes[2 * index + 1]])
        } else {
            u16::from(bytes[index])
        };
        usize::from(raw & self.labels.mask)
    }

    /// Moves region `b`'s front one slot on; returns the slot it was at and
    /// the label of the element there.
    #[inline(always)]
    fn advance(&mut self, b: usize) -> (usize, usize) {
        let slot = self.head[b];
        let label = usize::from(self.head_label[b]);
        self.head[b] = slot + 1;
        self.head_label[b] = self.label_at(b, slot + 1) as u16;
        (slot, label)
    }
}

/// Pass 2: moves every element to its bucket's region (`starts[b] ..
/// starts[b + 1]`) by an American-flag cycle walk.
///
/// Invariant: slots `starts[b] .. head[b]` hold elements labelled `b`,
/// except the leader slot of the cycle in progress; every slot at or past
/// its region's front has never been written, so its element is the
/// original one and its label is `label(slot)`. The leader slot holds an
/// element whose label `l` is known; it is swapped with the front of region
/// `l` (an original element, whose label is known from its position, comes
/// back) until the leader slot holds an element of its own region. Which
/// slots are visited depends on the labels only, never on the data; the
/// next lines of each region are prefetched.
fn walk<T>(data: &mut [T], labels: LabelStream, starts: &[usize]) {
    if labels.wide {
        walk_with::<T, true>(data, Fronts::new(labels, starts));
    } else {
        walk_with::<T, false>(data, Fronts::new(labels, starts));
    }
}

#[inline(never)]
fn walk_with<T, const WIDE: bool>(data: &mut [T], mut fronts: Fronts<WIDE>) {
    for b in 0..fronts.head.len() {
        while fronts.head[b] < fronts.end[b] {
            let (leader, mut l) = fronts.advance(b);
            while l != b {
                let (dest, next) = fronts.advance(l);
                debug_assert!(dest < fronts.end[l], "label counts must match");
                prefetch(data, dest, WALK_PREFETCH_BYTES);
                data.swap(leader, dest);
                l = next;
            }
        }
    }
}

/// Hints the cache to fetch, for writing, the element `ahead_bytes` past
/// element `index`. A hint only: it never faults, whatever the address.
#[inline(always)]
pub(crate) fn prefetch<T>(data: &[T], index: usize, ahead_bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let ptr = data
            .as_ptr()
            .wrapping_add(index)
            .cast::<i8>()
            .wrapping_add(ahead_bytes);
        // SAFETY: a prefetch has no architectural effect and never faults.
        unsafe {
            core::arch::x86_64::_mm_prefetch(ptr, core::arch::x86_64::_MM_HINT_ET0);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, index, ahead_bytes);
}
