//! The epoch order as a stream of record batches, for training loops: the
//! table shuffle's two passes (shuffle.rs) with pass 2's ordered buckets
//! handed out batch by batch instead of written to a file.
//!
//! Pass 1 (stream_pass1.rs) reads the inputs and moves every row to the
//! bucket file of its label's range: without a cache directory, a nameless
//! temporary file of this stream's own (a killed process leaves nothing),
//! or memory when the rows fit; with one, the epoch's entry in the cache,
//! which the first stream of the machine to arrive writes and every other
//! reads (stream_cache.rs), and the next epoch's is written in the
//! background (stream_prefetch.rs). Pass 2 reads the buckets back in label
//! order, orders each (ties as the table order's) and gathers the rows of
//! this consumer's positions: consumer `c` of `C` takes positions
//! `start + c`, `start + c + C`, ... of the order, so that the consumers'
//! rows merged by position are the order from `start` on, whatever `C` is.
//! Buckets holding none of them are passed over unread.
//!
//! Both passes run on a thread of their own, a few batches ahead of the
//! reader of the stream.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use crate::error::Error;
use crate::gather::Gather;
use crate::opening::Opening;
use crate::shuffle::{Buckets, Held, Run};
use crate::source;
use crate::stream_cache::{self, Entry};
use crate::stream_manifest;
use crate::stream_options::{Consumer, StreamOptions};
use crate::stream_pass1::{Inputs, stopped};
use crate::stream_prefetch::{self, Job};
use crate::stream_stats::{Pass1, Shared, StatsReader, StreamStats};

/// Batches gathered ahead of the reader of the stream.
const AHEAD: usize = 4;

enum Message {
    Batch(RecordBatch),
    Failed(Error),
    Done,
}

/// The rows of tables in the epoch order, as record batches: an iterator
/// of `Result<RecordBatch, Error>`; after an error it ends.
pub struct TableStream {
    schema: SchemaRef,
    receiver: Receiver<Message>,
    stop: Arc<AtomicBool>,
    ended: bool,
    stats: Shared,
}

impl TableStream {
    /// Opens the stream of the tables `inputs` (files or directories of
    /// shards): their schema is read now, the rows on a thread of the
    /// stream's own.
    pub fn open(inputs: &[PathBuf], options: &StreamOptions) -> Result<TableStream, Error> {
        let consumer = options.consumer;
        if consumer.count == 0 || consumer.index >= consumer.count {
            return Err(Error::invalid(format!(
                "consumer {} of {}: the consumer must be below the number of consumers (at \
                 least 1)",
                consumer.index, consumer.count
            )));
        }
        if options.batch_rows == 0 {
            return Err(Error::invalid("the batch size must be at least 1 row"));
        }
        if options.prefetch && options.cache_dir.is_none() {
            return Err(Error::invalid(
                "the next epoch's pass 1 in the background needs a cache directory",
            ));
        }
        let sources = source::list(inputs, options.format)?;
        let cache = match &options.cache_dir {
            Some(dir) => Some(Entry::of_stream(dir, &sources, options)?),
            None => None,
        };
        let (memory, background_memory) = if options.prefetch {
            stream_prefetch::split_memory(options.memory)
        } else {
            (options.memory, 0)
        };
        let (inputs, opening) = Inputs::of(sources, options.columns.as_deref(), memory)?;
        let temp_dir = options.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
        let run = inputs.run(&options.seed, options.epoch, memory, &temp_dir);
        let prefetch = options.prefetch.then(|| Job {
            inputs: inputs.clone(),
            seed: options.seed.clone(),
            memory: background_memory,
            temp_dir,
        });
        let projected = inputs.projected.clone();
        let (sender, receiver) = sync_channel(AHEAD);
        let stop = Arc::new(AtomicBool::new(false));
        let stats = Shared::default();
        let producer = Producer {
            run,
            inputs,
            opening,
            cache,
            prefetch,
            consumer,
            batch_rows: options.batch_rows,
            stop: stop.clone(),
            stats: stats.clone(),
        };
        std::thread::Builder::new()
            .name("knuffle-stream".into())
            .spawn(move || {
                let last = match producer.run(sender.clone()) {
                    Ok(()) => Message::Done,
                    Err(e) => Message::Failed(e),
                };
                // Nobody reads when the stream was dropped.
                let _ = sender.send(last);
            })
            .map_err(|e| Error::io(format!("cannot start the stream's thread: {e}")))?;
        Ok(TableStream {
            schema: projected,
            receiver,
            stop,
            ended: false,
            stats,
        })
    }

    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// What the stream did so far: how it had its pass 1 (known from its
    /// first batch on), and the next epoch's pass 1.
    pub fn stats(&self) -> StreamStats {
        self.stats.snapshot()
    }

    /// Its stats, to be read from another thread while this one waits for
    /// a batch.
    pub fn stats_reader(&self) -> StatsReader {
        StatsReader(self.stats.clone())
    }
}

impl Iterator for TableStream {
    type Item = Result<RecordBatch, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.ended {
            return None;
        }
        match self.receiver.recv() {
            Ok(Message::Batch(batch)) => Some(Ok(batch)),
            Ok(Message::Done) => {
                self.ended = true;
                None
            }
            Ok(Message::Failed(e)) => {
                self.ended = true;
                Some(Err(e))
            }
            // The thread ended without saying it was done: it panicked.
            Err(_) => {
                self.ended = true;
                Some(Err(Error::invalid(
                    "internal: the stream's thread stopped before its last row",
                )))
            }
        }
    }
}

impl Drop for TableStream {
    fn drop(&mut self) {
        // Pass 1 stops at its next batch; pass 2 at its next send.
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The stream's thread: pass 1, then pass 2 into the channel.
struct Producer {
    run: Run,
    inputs: Inputs,
    /// The inputs as their schema pass left them.
    opening: Opening,
    /// The epoch's entry in the cache directory, if there is one.
    cache: Option<Entry>,
    /// The next epoch's pass 1 in the background, if asked for.
    prefetch: Option<Job>,
    consumer: Consumer,
    batch_rows: usize,
    stop: Arc<AtomicBool>,
    stats: Shared,
}

impl Producer {
    fn run(self, sender: SyncSender<Message>) -> Result<(), Error> {
        let mut out = Out {
            sender,
            schema: self.run.schema.clone(),
            batch_rows: self.batch_rows,
            at: 0,
            next: self.consumer.start.saturating_add(self.consumer.index),
            step: self.consumer.count,
            pending: Vec::new(),
            pending_rows: 0,
        };
        let Producer {
            run,
            inputs,
            opening,
            cache,
            prefetch,
            stop,
            stats,
            ..
        } = self;
        let Some(entry) = cache else {
            let held = inputs.hold(&run, opening, &stop)?;
            stats.get().pass1 = Some(Pass1::Private);
            match held {
                Held::Memory {
                    batches, labels, ..
                } => {
                    if out.wanted(labels.len() as u64) {
                        let positions = run.order.order_positions(&labels, |p| p as u64);
                        drop(labels);
                        out.ordered(&batches, &positions)?;
                    }
                }
                Held::Spilling(spill) => run.order_spilled(&spill.finish()?, &mut out)?,
            }
            return out.finish();
        };
        stats.get().removed += stream_cache::remove_abandoned(entry.root());
        let schema = stream_manifest::schema_value(&inputs.projected);
        let ready = entry.open(&schema, false, |file, place| {
            inputs.spill_to(&run, opening, &stop, file, place)
        })?;
        ready.record(&mut stats.get());
        if let Some(job) = prefetch
            && let Err(e) = stream_prefetch::start_next(&entry.next(), job, ready.bytes, &stats)
        {
            // Only an optimisation: the next epoch's streams do it.
            stats.get().prefetch = crate::stream_stats::Prefetch::Failed(e.message().to_owned());
        }
        if let Err(e) = run.order_spilled(&ready.spilled, &mut out) {
            if !ready.spilled.is_damaged() {
                return Err(e);
            }
            // Its bucket file changed after it was written: the next
            // stream writes the entry again.
            drop(ready);
            let removed = entry.remove_if_unused().unwrap_or(false);
            return Err(e.context_after(if removed {
                "the cache's entry was removed: run again"
            } else {
                "the cache's entry is removed by the next stream that finds it unused: run \
                 again"
            }));
        }
        out.finish()?;
        drop(ready);
        // The end of the epoch: older epochs are no longer needed, nor the
        // older copies of these inputs under another seed.
        stats.get().removed += entry.remove_older() + entry.remove_superseded();
        Ok(())
    }
}

/// Pass 2's end: this consumer's rows of each ordered bucket, sent in
/// batches of `batch_rows` (a batch may span buckets).
struct Out {
    sender: SyncSender<Message>,
    schema: SchemaRef,
    batch_rows: usize,
    /// The position (in the whole order) of the next bucket's first row.
    at: u64,
    /// The next position this consumer takes (at least `at`).
    next: u64,
    /// Positions between two of this consumer's.
    step: u64,
    /// Gathered rows not yet sent (fewer than `batch_rows`).
    pending: Vec<RecordBatch>,
    pending_rows: usize,
}

impl Out {
    fn send(&mut self, batch: RecordBatch) -> Result<(), Error> {
        self.sender
            .send(Message::Batch(batch))
            .map_err(|_| stopped())
    }

    /// Sends the rows waiting as one batch.
    fn flush(&mut self) -> Result<(), Error> {
        let batch = match self.pending.len() {
            0 => return Ok(()),
            1 => self.pending.pop().expect("one batch"),
            _ => arrow::compute::concat_batches(&self.schema, &self.pending)
                .map_err(|e| Error::invalid(format!("internal: batch: {e}")))?,
        };
        self.pending.clear();
        self.pending_rows = 0;
        self.send(batch)
    }

    fn finish(mut self) -> Result<(), Error> {
        self.flush()
    }
}

impl Buckets for Out {
    fn wanted(&mut self, rows: u64) -> bool {
        let end = self.at + rows;
        if self.next >= end {
            self.at = end;
            return false;
        }
        true
    }

    fn ordered(&mut self, table: &[RecordBatch], positions: &[u32]) -> Result<(), Error> {
        let end = self.at + positions.len() as u64;
        let rows = Gather::new(self.schema.clone(), table);
        let mut chunk = Vec::with_capacity(self.batch_rows);
        while self.next < end {
            let room = self.batch_rows - self.pending_rows;
            chunk.clear();
            while self.next < end && chunk.len() < room {
                chunk.push(positions[(self.next - self.at) as usize]);
                self.next = self.next.saturating_add(self.step);
            }
            let gathered = rows.take(&chunk)?;
            self.pending_rows += gathered.num_rows();
            self.pending.push(gathered);
            if self.pending_rows == self.batch_rows {
                self.flush()?;
            }
        }
        self.at = end;
        Ok(())
    }
}
