//! What a stream of the epoch order is told: its seed, epoch, columns,
//! memory, cache and which positions it takes ([`Consumer`]).

use std::path::PathBuf;

use crate::format::Format;

/// Which positions of the order one consumer takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Consumer {
    /// This consumer, `0..count`.
    pub index: u64,
    /// The number of consumers sharing the order.
    pub count: u64,
    /// The positions already consumed, by all consumers together: the
    /// stream starts at position `start + index`.
    pub start: u64,
}

impl Consumer {
    /// The only consumer, from the first position.
    pub const ALL: Consumer = Consumer {
        index: 0,
        count: 1,
        start: 0,
    };
}

/// What a stream is told.
#[derive(Clone, Debug)]
pub struct StreamOptions {
    /// The seed text.
    pub seed: String,
    /// The epoch: the stream is the order of `epoch_seed(seed, epoch)`.
    pub epoch: u64,
    /// The columns to keep, in this order (none: all).
    pub columns: Option<Vec<String>>,
    /// Rows per batch (the last one may have fewer).
    pub batch_rows: usize,
    /// Bytes the stream may hold in memory (rows, a bucket being ordered,
    /// the batches gathered ahead, the next epoch's pass 1 in the
    /// background).
    pub memory: u64,
    /// Where this stream's own bucket files go (none: `$TMPDIR`, else
    /// `/tmp`).
    pub temp_dir: Option<PathBuf>,
    /// A directory in which the streams of a machine share each epoch's
    /// pass 1 (none: each stream reads the inputs for itself).
    pub cache_dir: Option<PathBuf>,
    /// With a cache directory: once this epoch's pass 1 is done, the next
    /// epoch's runs in the background when the cache has room for it.
    pub prefetch: bool,
    /// The inputs' format, when their names do not tell it.
    pub format: Option<Format>,
    /// The positions this stream takes.
    pub consumer: Consumer,
}
