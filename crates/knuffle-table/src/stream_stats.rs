//! What a stream did: how it had its pass 1 (read the inputs for itself,
//! wrote the cache's entry for every stream of the machine, or read one
//! that another stream wrote), and what became of the next epoch's pass 1
//! in the background.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// How a stream had its pass 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass1 {
    /// It read the inputs for itself alone (no cache directory).
    Private,
    /// It read the inputs and wrote the cache's entry of the epoch.
    Wrote,
    /// It read the cache's entry of the epoch, which another stream (or
    /// this process's background pass) wrote: it did not read the inputs.
    Reused,
}

/// The next epoch's pass 1, in the background.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prefetch {
    /// Not asked for (or not decided yet: this epoch's pass 1 is not
    /// done).
    Off,
    /// Being written.
    Running,
    /// Written: the next epoch's streams read it.
    Done,
    /// The next epoch was in the cache already.
    Ready,
    /// Another stream holds the next epoch (it writes it).
    Busy,
    /// Not started: the cache's file system had `free` bytes, fewer than
    /// the `needed` (an epoch's bucket files and a quarter more).
    NoRoom { free: u64, needed: u64 },
    /// It failed: the next epoch's streams do it again (and report the
    /// error if it happens again).
    Failed(String),
}

/// What a stream did so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamStats {
    /// How it had its pass 1 (none until pass 1 is done).
    pub pass1: Option<Pass1>,
    /// Whether it waited for another stream that held the epoch's entry
    /// (wrote it).
    pub waited: bool,
    /// With a cache: the process that wrote the entry read (its id), and
    /// whether it wrote it as the next epoch's pass 1 in the background.
    pub writer_pid: Option<u32>,
    pub written_in_background: bool,
    /// With a cache: the bytes of the epoch's bucket files.
    pub bucket_bytes: u64,
    /// The next epoch's pass 1.
    pub prefetch: Prefetch,
    /// Entries of the cache this stream removed (older epochs no stream
    /// holds, incomplete ones, those of inputs that changed).
    pub removed: u64,
}

impl Default for StreamStats {
    fn default() -> StreamStats {
        StreamStats {
            pass1: None,
            waited: false,
            writer_pid: None,
            written_in_background: false,
            bucket_bytes: 0,
            prefetch: Prefetch::Off,
            removed: 0,
        }
    }
}

/// Stats shared between a stream and its threads.
#[derive(Clone, Default)]
pub(crate) struct Shared(Arc<Mutex<StreamStats>>);

impl Shared {
    pub(crate) fn get(&self) -> MutexGuard<'_, StreamStats> {
        // The stats are plain values: a panic while they were held leaves
        // them usable.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn snapshot(&self) -> StreamStats {
        self.get().clone()
    }
}

/// A stream's stats, read from any thread while another waits for the
/// stream's next batch ([`crate::TableStream::stats_reader`]).
#[derive(Clone)]
pub struct StatsReader(pub(crate) Shared);

impl StatsReader {
    /// What the stream did so far.
    pub fn stats(&self) -> StreamStats {
        self.0.snapshot()
    }
}

/// Background pass 1s' stats and whether they are done, read from any
/// thread while another waits for them ([`crate::Prefetching::reader`]).
#[derive(Clone)]
pub struct PrefetchReader {
    pub(crate) stats: Shared,
    pub(crate) finished: Arc<AtomicBool>,
}

impl PrefetchReader {
    /// What they did so far.
    pub fn stats(&self) -> StreamStats {
        self.stats.snapshot()
    }

    /// Whether they are done.
    pub fn is_finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }
}

/// Sets its flag when dropped: at the end of a thread, even a panicking
/// one.
pub(crate) struct SetOnDrop(pub(crate) Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}
