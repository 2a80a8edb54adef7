//! The next epoch's pass 1 in the background: written to the cache while
//! this epoch is consumed, so that from the second epoch on a stream waits
//! only for its pass 2. It never changes a row: the entry is the one the
//! next epoch's first stream would write (stream_cache.rs), and a stream
//! that finds it missing or incomplete writes it itself.
//!
//! It starts only when the cache's file system has room: free space of at
//! least one epoch's bucket files (as large as the epoch just read: the
//! next one holds the same rows and columns) and a quarter more. It holds a
//! quarter of `memory=`, and a stream that starts it keeps the rest.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::thread::JoinHandle;

use crate::error::Error;
use crate::opening::Opening;
use crate::source;
use crate::stream_cache::{self, Claim, Claimed, Entry};
use crate::stream_manifest;
use crate::stream_options::StreamOptions;
use crate::stream_pass1::Inputs;
use crate::stream_stats::{Prefetch, PrefetchReader, SetOnDrop, Shared, StreamStats};

/// `memory` split between a stream (first) and the next epoch's pass 1 in
/// the background (second).
pub(crate) fn split_memory(memory: u64) -> (u64, u64) {
    (memory - memory / 4, memory / 4)
}

/// What a background pass 1 needs besides its entry.
pub(crate) struct Job {
    pub(crate) inputs: Inputs,
    pub(crate) seed: String,
    /// Its memory (the background's share).
    pub(crate) memory: u64,
    pub(crate) temp_dir: PathBuf,
}

impl Job {
    /// Writes the claimed entry of epoch `epoch`; returns its bytes.
    fn write(&self, claimed: Claimed, epoch: u64) -> Result<u64, Error> {
        let run = self
            .inputs
            .run(&self.seed, epoch, self.memory, &self.temp_dir);
        let schema = stream_manifest::schema_value(&self.inputs.projected);
        let never = AtomicBool::new(false);
        claimed.write(&schema, |file, place| {
            self.inputs
                .spill_to(&run, Opening::default(), &never, file, place)
        })
    }
}

/// Claims `next` for writing in the background; what it found goes to
/// `stats` when it is not to be written.
fn claim(next: &Entry, stats: &Shared) -> Result<Option<Claimed>, Error> {
    Ok(match next.claim()? {
        Claim::Claimed(claimed) => Some(claimed),
        Claim::Ready => {
            stats.get().prefetch = Prefetch::Ready;
            None
        }
        Claim::Busy => {
            stats.get().prefetch = Prefetch::Busy;
            None
        }
    })
}

/// Whether the cache has room for an epoch of `bytes`; when not, says so
/// in `stats`.
fn room(next: &Entry, bytes: u64, stats: &Shared) -> bool {
    let needed = bytes.saturating_add(bytes / 4);
    match stream_cache::free_bytes(next.root()) {
        Some(free) if free < needed => {
            stats.get().prefetch = Prefetch::NoRoom { free, needed };
            false
        }
        _ => true,
    }
}

/// Writes `claimed` (of epoch `epoch`) on this thread, the outcome in
/// `stats`.
fn write_recorded(job: &Job, claimed: Claimed, epoch: u64, stats: &Shared) {
    stats.get().prefetch = Prefetch::Running;
    stats.get().prefetch = match job.write(claimed, epoch) {
        Ok(_) => Prefetch::Done,
        Err(e) => Prefetch::Failed(e.message().to_owned()),
    };
}

/// Starts the pass 1 of the entry `next` on a thread of its own, unless it
/// is complete, another stream holds it, or the cache has no room for
/// `bytes` (one epoch's bucket files); the outcome goes to `stats`.
pub(crate) fn start_next(next: &Entry, job: Job, bytes: u64, stats: &Shared) -> Result<(), Error> {
    let Some(claimed) = claim(next, stats)? else {
        return Ok(());
    };
    if !room(next, bytes, stats) {
        return Ok(());
    }
    stats.get().prefetch = Prefetch::Running;
    let stats = stats.clone();
    let epoch = next.epoch();
    std::thread::Builder::new()
        .name("knuffle-prefetch".into())
        .spawn(move || write_recorded(&job, claimed, epoch, &stats))
        .map_err(|e| Error::io(format!("cannot start the background pass: {e}")))?;
    Ok(())
}

/// Epoch `options.epoch`'s pass 1 into the cache directory (written, or
/// waited for when another stream writes it), then the next epoch's when
/// the cache has room, on a thread of their own: what a training loop
/// calls as an epoch starts, so that the next one waits only for pass 2.
/// The next epoch is claimed before this returns: a stream of it opened
/// after waits for it rather than writing it again.
///
/// Needs `options.cache_dir`; uses `options.memory / 4`.
pub fn prefetch_stream(inputs: &[PathBuf], options: &StreamOptions) -> Result<Prefetching, Error> {
    let Some(cache_dir) = options.cache_dir.clone() else {
        return Err(Error::invalid(
            "a pass 1 in the background needs a cache directory",
        ));
    };
    let sources = source::list(inputs, options.format)?;
    let this = Entry::of_stream(&cache_dir, &sources, options)?;
    let next = this.next();
    let stats = Shared::default();
    let claimed = claim(&next, &stats)?;
    let options = options.clone();
    let shared = stats.clone();
    let finished = Arc::new(AtomicBool::new(false));
    let set_on_end = SetOnDrop(finished.clone());
    let thread = std::thread::Builder::new()
        .name("knuffle-prefetch".into())
        .spawn(move || -> Result<(), Error> {
            let _set_on_end = set_on_end;
            let stats = shared;
            stats.get().removed += stream_cache::remove_abandoned(this.root());
            let memory = split_memory(options.memory).1;
            let (inputs, opening) = Inputs::of(sources, options.columns.as_deref(), memory)?;
            let job = Job {
                inputs,
                seed: options.seed.clone(),
                memory,
                temp_dir: options.temp_dir.clone().unwrap_or_else(std::env::temp_dir),
            };
            let run = job
                .inputs
                .run(&job.seed, options.epoch, job.memory, &job.temp_dir);
            let schema = stream_manifest::schema_value(&job.inputs.projected);
            let never = AtomicBool::new(false);
            // The epoch's own pass 1, which its streams wait for: not the
            // next epoch's written ahead.
            let ready = this.open(&schema, false, |file, place| {
                job.inputs.spill_to(&run, opening, &never, file, place)
            })?;
            let bytes = ready.bytes;
            ready.record(&mut stats.get());
            drop(ready);
            if let Some(claimed) = claimed
                && room(&next, bytes, &stats)
            {
                write_recorded(&job, claimed, next.epoch(), &stats);
            }
            Ok(())
        })
        .map_err(|e| Error::io(format!("cannot start the background pass: {e}")))?;
    Ok(Prefetching {
        thread: Some(thread),
        reader: PrefetchReader { stats, finished },
    })
}

/// Pass 1s running in the background ([`prefetch_stream`]); dropping this leaves
/// them running.
pub struct Prefetching {
    thread: Option<JoinHandle<Result<(), Error>>>,
    reader: PrefetchReader,
}

impl Prefetching {
    /// Whether they are done.
    pub fn is_finished(&self) -> bool {
        self.reader.is_finished()
    }

    /// What they did so far: `pass1` is the epoch's, `prefetch` the next
    /// epoch's.
    pub fn stats(&self) -> StreamStats {
        self.reader.stats()
    }

    /// Their stats and whether they are done, to be read from another
    /// thread while this one waits for them.
    pub fn reader(&self) -> PrefetchReader {
        self.reader.clone()
    }

    /// Waits for them; an error if the epoch's pass 1 failed (the next
    /// epoch's failure is in the stats).
    pub fn wait(&mut self) -> Result<StreamStats, Error> {
        if let Some(thread) = self.thread.take() {
            thread.join().map_err(|_| {
                Error::invalid("internal: the background pass stopped before its end")
            })??;
        }
        Ok(self.reader.stats())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream_manifest::Dataset;

    #[test]
    fn there_is_room_for_what_the_disk_has_free_and_a_quarter_more() {
        let dir = tempfile::tempdir().unwrap();
        let dataset = Dataset::of(&[], "room", None, None).unwrap();
        let next = Entry::new(dir.path(), &dataset, 1);
        let stats = Shared::default();
        assert!(room(&next, 1 << 10, &stats));
        assert_eq!(stats.snapshot().prefetch, Prefetch::Off);
        let free = stream_cache::free_bytes(dir.path()).unwrap();
        // An epoch of 90% of the free space: it fits, but not with a
        // quarter more.
        assert!(!room(&next, free / 10 * 9, &stats));
        match stats.snapshot().prefetch {
            Prefetch::NoRoom { free: seen, needed } => {
                assert!(seen > 0 && needed > seen);
            }
            other => panic!("{other:?}"),
        }
    }
}
