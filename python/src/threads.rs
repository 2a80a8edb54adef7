//! Running a shuffle on a chosen number of threads.
//!
//! `knuffle::par_shuffle` gives exactly the permutation of `knuffle::shuffle`
//! (same generator state in, same state out), so the thread count changes
//! the speed only, never the result. Each thread count gets one rayon pool,
//! built on first use and kept for the life of the process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use knuffle::DefaultRng;
use rayon::ThreadPool;

/// Slices smaller than this many bytes are shuffled on the calling thread:
/// below it `knuffle::par_shuffle` runs on one thread anyway.
pub const PARALLEL_MIN_BYTES: usize = 1 << 24;

/// The default thread count for large arrays.
pub const DEFAULT_THREADS: usize = 2;

/// The pool of `threads` threads (built once).
pub fn pool(threads: usize) -> Result<Arc<ThreadPool>, String> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();
    let pools = POOLS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut pools = pools
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(pool) = pools.get(&threads) {
        return Ok(Arc::clone(pool));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("knuffle-{i}"))
        .build()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    let pool = Arc::new(pool);
    pools.insert(threads, Arc::clone(&pool));
    Ok(pool)
}

/// Whether a job of `bytes` bytes is worth `threads` threads.
pub fn use_pool(threads: usize, bytes: usize) -> bool {
    threads > 1 && bytes >= PARALLEL_MIN_BYTES
}

/// Shuffles `slice` with `rng` on `threads` threads: the same permutation,
/// and the same final generator state, as `knuffle::shuffle`.
pub fn shuffle_slice<T: Send>(
    slice: &mut [T],
    rng: &mut DefaultRng,
    threads: usize,
) -> Result<(), String> {
    if use_pool(threads, std::mem::size_of_val(slice)) {
        pool(threads)?.install(|| knuffle::par_shuffle(slice, rng));
    } else {
        knuffle::shuffle(slice, rng);
    }
    Ok(())
}
