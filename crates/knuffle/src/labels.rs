//! The labels of a scatter node: which bucket each position goes to.
//!
//! A node's 256-bit key drives a ChaCha8 keystream (D. J. Bernstein,
//! "ChaCha, a variant of Salsa20", 2008); keystream 0 holds the labels, one
//! byte per position, masked to the node's number of label bits. The block
//! distribution (module `distribute`) and the walk (module `walk`) read the
//! same labels, so both put every element in the same bucket.

use alloc::vec::Vec;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// Keystream 0 of a node's key: the labels.
const STREAM_LABELS: u64 = 0;
/// A label is at most this many bits (one keystream byte): at most 256
/// buckets per level.
pub(crate) const MAX_LABEL_BITS: u32 = 8;

/// The labels of one node (`bits <= 8`): `label(p)` is byte `p` of the
/// ChaCha8 keystream (key, stream 0) masked to its low `bits` bits. The
/// keystream is read in chunks of 256 bytes (four ChaCha blocks).
#[derive(Clone)]
pub(crate) struct LabelStream {
    rng: ChaCha8Rng,
    mask: u8,
    buckets: usize,
}

/// Keystream bytes per chunk.
pub(crate) const CHUNK_BYTES: usize = 256;

impl LabelStream {
    pub(crate) fn new(key: [u8; 32], bits: u32) -> LabelStream {
        debug_assert!((1..=MAX_LABEL_BITS).contains(&bits));
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(STREAM_LABELS);
        LabelStream {
            rng,
            mask: ((1u32 << bits) - 1) as u8,
            buckets: 1 << bits,
        }
    }

    /// The keystream bytes of chunk `chunk`. Seeks only when the stream is
    /// not already there.
    #[inline]
    pub(crate) fn fill_chunk(&mut self, chunk: usize, out: &mut [u8; CHUNK_BYTES]) {
        let word = chunk as u128 * (CHUNK_BYTES as u128 / 4);
        if self.rng.get_word_pos() != word {
            self.rng.set_word_pos(word);
        }
        self.rng.fill_bytes(out);
    }

    /// The number of buckets, `2^bits`.
    pub(crate) fn buckets(&self) -> usize {
        self.buckets
    }

    /// The mask applied to the raw keystream byte.
    pub(crate) fn mask(&self) -> u8 {
        self.mask
    }
}

/// The region starts (`buckets + 1` entries) for the bucket sizes: their
/// prefix sums.
pub(crate) fn region_starts(counts: &[usize]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(counts.len() + 1);
    let mut total = 0;
    starts.push(0);
    for &count in counts {
        total += count;
        starts.push(total);
    }
    starts
}
