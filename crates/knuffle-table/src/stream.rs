//! The epoch order as a stream of record batches, for training loops: the
//! table shuffle's two passes (shuffle.rs) with pass 2's ordered buckets
//! handed out batch by batch instead of written to a file.
//!
//! Pass 1 reads the inputs and moves every row to the bucket file of its
//! label's range (a nameless temporary file: a killed process leaves
//! nothing), or keeps the rows in memory when they fit. Pass 2 reads the
//! buckets back in label order, orders each (ties as the table order's)
//! and gathers the rows of this consumer's positions: consumer `c` of `C`
//! takes positions `start + c`, `start + c + C`, ... of the order, so that
//! the consumers' rows merged by position are the order from `start` on,
//! whatever `C` is. Buckets holding none of them are passed over unread.
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
use crate::format::Format;
use crate::gather::Gather;
use crate::order::{TableOrder, epoch_seed};
use crate::shuffle::{BATCH_ROWS, Buckets, Budget, Held, Run, read_labelled};
use crate::source::{self, Opened, Reading, Source};
use crate::spill;

/// Batches gathered ahead of the reader of the stream.
const AHEAD: usize = 4;

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
    /// the batches gathered ahead).
    pub memory: u64,
    /// Where bucket files go (none: `$TMPDIR`, else `/tmp`).
    pub temp_dir: Option<PathBuf>,
    /// The inputs' format, when their names do not tell it.
    pub format: Option<Format>,
    /// The positions this stream takes.
    pub consumer: Consumer,
}

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
        let sources = source::list(inputs, options.format)?;
        let budget = Budget::of(options.memory);
        let (schema, first) = match sources.as_slice() {
            [only] => {
                let opened = source::open(only, None, no_thread_pool())?;
                (opened.schema.clone(), Some(opened))
            }
            _ => (source::common_schema(&sources)?, None),
        };
        let projection = projection(&schema, options.columns.as_deref())?;
        let projected = Arc::new(
            schema
                .project(&projection)
                .map_err(|e| Error::invalid(format!("internal: columns: {e}")))?,
        );
        let run = Run {
            order: TableOrder::new(&epoch_seed(&options.seed, options.epoch)),
            spill_schema: spill::spill_schema(&projected),
            schema: projected.clone(),
            budget,
            temp_dir: options.temp_dir.clone().unwrap_or_else(std::env::temp_dir),
            count: None,
        };
        let (sender, receiver) = sync_channel(AHEAD);
        let stop = Arc::new(AtomicBool::new(false));
        let producer = Producer {
            run,
            input_schema: schema,
            projection,
            sources,
            first,
            consumer,
            batch_rows: options.batch_rows,
            stop: stop.clone(),
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
        })
    }

    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
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

/// Inputs read one row group at a time, without rayon's thread pool: a
/// stream is opened in forked processes (torch's DataLoader workers), where
/// a pool started before the fork has no threads and would wait forever.
fn no_thread_pool() -> Reading {
    Reading::one_at_a_time(BATCH_ROWS)
}

/// The indices of `columns` in `schema` (all of them without a list).
fn projection(schema: &SchemaRef, columns: Option<&[String]>) -> Result<Vec<usize>, Error> {
    let Some(columns) = columns else {
        return Ok((0..schema.fields().len()).collect());
    };
    let mut indices = Vec::with_capacity(columns.len());
    for name in columns {
        let index = schema.index_of(name).map_err(|_| {
            let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            Error::invalid(format!(
                "no column '{name}' in the table (its columns: {})",
                names.join(", ")
            ))
        })?;
        if indices.contains(&index) {
            return Err(Error::invalid(format!("column '{name}' is named twice")));
        }
        indices.push(index);
    }
    Ok(indices)
}

/// The stream's thread: pass 1, then pass 2 into the channel.
struct Producer {
    run: Run,
    input_schema: SchemaRef,
    projection: Vec<usize>,
    sources: Vec<Source>,
    first: Option<Opened>,
    consumer: Consumer,
    batch_rows: usize,
    stop: Arc<AtomicBool>,
}

/// The error that ends a stream nobody reads any more (never seen).
fn stopped() -> Error {
    Error::invalid("the stream was closed")
}

impl Producer {
    fn run(self, sender: SyncSender<Message>) -> Result<(), Error> {
        let run = &self.run;
        let mut held = Some(Held::Memory {
            batches: Vec::new(),
            labels: Vec::new(),
            bytes: 0,
        });
        read_labelled(
            &run.order,
            &self.input_schema,
            &self.sources,
            self.first,
            no_thread_pool(),
            |batch, first_row, labels, share_read| {
                if self.stop.load(Ordering::Relaxed) {
                    return Err(stopped());
                }
                let batch = batch
                    .project(&self.projection)
                    .map_err(|e| Error::invalid(format!("internal: columns: {e}")))?;
                let before = held.take().expect("rows are held between batches");
                held = Some(run.hold(before, batch, first_row, labels, share_read)?);
                Ok(())
            },
        )?;
        let mut out = Out {
            sender,
            schema: run.schema.clone(),
            batch_rows: self.batch_rows,
            at: 0,
            next: self.consumer.start.saturating_add(self.consumer.index),
            step: self.consumer.count,
            pending: Vec::new(),
            pending_rows: 0,
        };
        match held.expect("rows are held after the last batch") {
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
        out.finish()
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
