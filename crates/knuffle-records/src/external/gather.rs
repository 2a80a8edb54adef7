//! Pass 2: shuffle each bucket in memory and write it out, in bucket order.
//!
//! Three threads, a pipeline: a loader reads bucket `i + 1` from its file,
//! indexes its records and shuffles the index; a gatherer copies the
//! records of bucket `i`, in shuffled order, into output blocks; the
//! calling thread writes the blocks. Writing to a file costs the kernel
//! a copy of every byte into the page cache, and gathering costs a random
//! read per record: on two threads of their own they overlap (the loader
//! has little to do once its bucket is ready). A rendezvous channel keeps
//! at most two buckets in memory, which is what the plan's pass-2 budget
//! allows for; the blocks add three blocks of half the output buffer.
//!
//! A bucket that does not fit the budget is scattered again into
//! sub-buckets (one more level of the same method, see the module
//! documentation of [`super`]), which also takes care of records longer
//! than the budget: a bucket holding a single record is copied through a
//! bounded buffer, as it is.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::mem::size_of;
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
use std::thread;

use memmap2::{Mmap, MmapOptions};
use rand_core::Rng;

use super::plan::Plan;
use super::scatter::{Bucket, Scatter};
use super::sink::Sink;
use crate::bytes::Bytes;
use crate::engine::{prefetch_bytes, try_for_each_prefetched};
use crate::error::Error;
use crate::read::read_some;
use knuffle_io::scan::for_each_delimiter;
use knuffle_io::temp::TempSpace;

/// Record spans `(start, end)` into a bucket's bytes: `u32` offsets for
/// buckets under 4 GiB (half the index memory), `u64` above.
enum Spans {
    Narrow(Vec<(u32, u32)>),
    Wide(Vec<(u64, u64)>),
}

/// Maps a bucket file whole, its pages faulted in at once.
fn map_bucket(file: &File, bytes: u64) -> Option<Mmap> {
    let len = usize::try_from(bytes).ok().filter(|&len| len > 0)?;
    // SAFETY: the file is one of our bucket files: created unlinked, so no
    // other process can reach it, and complete (its writer has finished);
    // nothing writes to or truncates it while it is mapped.
    let map = unsafe { MmapOptions::new().len(len).populate().map(file) }.ok()?;
    (map.len() == len).then_some(map)
}

/// What the loader hands to the gatherer.
enum Batch {
    /// A bucket's bytes and its records' spans, in shuffled order.
    Records { data: Bytes, spans: Spans },
    /// A record too long for memory starts; its bytes follow as pieces.
    LongRecord,
    /// The next bytes of a long record.
    Piece(Vec<u8>),
}

/// What the gatherer hands to the writing thread: output bytes, and how
/// many records are counted with them (each record once, with the block
/// holding its last byte, or for a long record its first piece).
struct Block {
    bytes: Vec<u8>,
    records: u64,
}

/// Writes the buckets out, each uniformly shuffled, in order, in output
/// blocks of about `block_bytes` (the block size never changes the
/// output); returns the deepest scatter level used.
pub fn gather<R: Rng + Send + ?Sized>(
    buckets: Vec<Bucket>,
    plan: &Plan,
    temp: &TempSpace,
    delimiter: u8,
    sink: &mut Sink<'_>,
    rng: &mut R,
    block_bytes: usize,
) -> Result<usize, Error> {
    let block_bytes = block_bytes.max(1);
    let (to_gatherer, batches) = sync_channel::<Batch>(0);
    let (ack, acks) = channel::<Returned>();
    let (to_writer, blocks) = sync_channel::<Block>(0);
    let (give_back, spare_blocks) = channel::<Vec<u8>>();
    let remaining = sink.remaining();
    thread::scope(|scope| {
        let loader = thread::Builder::new()
            .name("knuffle-load".into())
            .spawn_scoped(scope, move || {
                let mut loader = Loader {
                    plan,
                    temp,
                    delimiter,
                    to_gatherer,
                    acks,
                    unacknowledged: 0,
                    spare_data: Vec::new(),
                    spare_spans: Vec::new(),
                    depth: 1,
                };
                match loader.load(buckets, 1, rng) {
                    Ok(()) | Err(Stop::Cancelled) => Ok(loader.depth),
                    Err(Stop::Failed(error)) => Err(error),
                }
            })
            .map_err(|e| Error::from(temp.error(e)))?;
        let gatherer = thread::Builder::new()
            .name("knuffle-gather".into())
            .spawn_scoped(scope, move || {
                let mut gatherer = Gatherer {
                    to_writer,
                    spare_blocks,
                    block: Vec::new(),
                    records: 0,
                    block_bytes,
                    remaining,
                };
                // The writing side hanging up ends the gathering; whatever
                // made it hang up is its error to report.
                let _ = gatherer.gather_batches(&batches, &ack);
            });
        let gatherer = match gatherer {
            Ok(gatherer) => gatherer,
            Err(e) => {
                drop(blocks);
                let _ = loader.join();
                return Err(temp.error(e).into());
            }
        };
        let written = write_blocks(&blocks, sink, &give_back);
        // Hang up first, so a gatherer waiting to send sees it and stops
        // (and, hanging up in turn, the loader).
        drop(blocks);
        let gathered = gatherer.join();
        let loaded = loader.join().unwrap_or_else(|_| {
            Err(temp
                .error(io::Error::other("bucket loader thread panicked"))
                .into())
        });
        written?;
        gathered.map_err(|_| {
            Error::from(temp.error(io::Error::other("record gathering thread panicked")))
        })?;
        loaded
    })
}

/// The writing side: blocks in the order received, each with one write.
fn write_blocks(
    blocks: &Receiver<Block>,
    sink: &mut Sink<'_>,
    give_back: &Sender<Vec<u8>>,
) -> Result<(), Error> {
    for block in blocks {
        sink.block(&block.bytes, block.records)?;
        let _ = give_back.send(block.bytes);
    }
    Ok(())
}

/// The gathering side: records in output order, copied into blocks.
struct Gatherer {
    to_writer: SyncSender<Block>,
    /// Blocks the writing side is done with.
    spare_blocks: Receiver<Vec<u8>>,
    /// The block being filled, and the records starting in it.
    block: Vec<u8>,
    records: u64,
    block_bytes: usize,
    /// Records still to be written (`-n`).
    remaining: u64,
}

/// The writing side hung up.
struct HungUp;

/// A record span of either width.
trait Span: Copy {
    fn bounds(self) -> (usize, usize);
}

impl Span for (u32, u32) {
    #[inline]
    fn bounds(self) -> (usize, usize) {
        (self.0 as usize, self.1 as usize)
    }
}

impl Span for (u64, u64) {
    #[inline]
    fn bounds(self) -> (usize, usize) {
        (self.0 as usize, self.1 as usize)
    }
}

impl Gatherer {
    fn gather_batches(
        &mut self,
        batches: &Receiver<Batch>,
        ack: &Sender<Returned>,
    ) -> Result<(), HungUp> {
        let mut in_long_record = false;
        for batch in batches {
            let mut returned = Returned::default();
            match batch {
                Batch::Records { data, spans } => {
                    in_long_record = false;
                    match spans {
                        Spans::Narrow(spans) => {
                            self.records(&data, &spans)?;
                            returned.spans = spans;
                        }
                        Spans::Wide(spans) => self.records(&data, &spans)?,
                    }
                    if let Bytes::Owned(data) = data {
                        returned.data = data;
                    }
                }
                Batch::LongRecord => {
                    in_long_record = self.remaining > 0;
                    if in_long_record {
                        self.remaining -= 1;
                        self.records += 1;
                    }
                }
                Batch::Piece(bytes) => {
                    if in_long_record {
                        self.bytes(&bytes)?;
                    }
                }
            }
            let _ = ack.send(returned);
            if self.remaining == 0 && !in_long_record {
                break;
            }
        }
        self.send()
    }

    /// Copies the records `spans` of `data` (up to the `-n` limit).
    fn records<S: Span>(&mut self, data: &[u8], spans: &[S]) -> Result<(), HungUp> {
        let take = usize::try_from(self.remaining).map_or(spans.len(), |r| r.min(spans.len()));
        // A bucket is larger than the caches: every record is a miss, and
        // its loads are started ahead, as in-memory rendering does.
        try_for_each_prefetched(
            &spans[..take],
            |span| prefetch_bytes(data, span.bounds().0),
            |span| {
                let (start, end) = span.bounds();
                self.bytes(&data[start..end])?;
                self.records += 1;
                Ok(())
            },
        )?;
        self.remaining -= take as u64;
        Ok(())
    }

    /// Appends `bytes`, sending full blocks (a record longer than a block
    /// is split across blocks).
    #[inline]
    fn bytes(&mut self, mut bytes: &[u8]) -> Result<(), HungUp> {
        loop {
            if self.block.capacity() == 0 {
                self.block = self.spare_blocks.try_recv().unwrap_or_default();
                self.block.clear();
                self.block.reserve_exact(self.block_bytes);
            }
            let room = self.block_bytes.saturating_sub(self.block.len());
            if bytes.len() <= room {
                self.block.extend_from_slice(bytes);
                return Ok(());
            }
            if bytes.len() > self.block_bytes {
                // Too long for a block: fill this one and go on.
                self.block.extend_from_slice(&bytes[..room]);
                bytes = &bytes[room..];
            }
            self.send()?;
        }
    }

    /// Sends the block being filled, if it holds anything.
    fn send(&mut self) -> Result<(), HungUp> {
        if self.block.is_empty() && self.records == 0 {
            return Ok(());
        }
        let block = Block {
            bytes: std::mem::take(&mut self.block),
            records: std::mem::take(&mut self.records),
        };
        self.to_writer.send(block).map_err(|_| HungUp)
    }
}

/// Buffers the gathering side is done with, back to the loader for reuse
/// (and the acknowledgement that it holds no bucket any more).
#[derive(Default)]
struct Returned {
    data: Vec<u8>,
    spans: Vec<(u32, u32)>,
}

/// Why the loader stopped early.
enum Stop {
    /// The gathering side hung up (it is done, or the writing failed).
    Cancelled,
    /// A temporary file could not be read or written.
    Failed(Error),
}

impl From<Error> for Stop {
    fn from(error: Error) -> Stop {
        Stop::Failed(error)
    }
}

/// The loading side.
struct Loader<'a> {
    plan: &'a Plan,
    temp: &'a TempSpace,
    delimiter: u8,
    to_gatherer: SyncSender<Batch>,
    acks: Receiver<Returned>,
    unacknowledged: usize,
    /// A bucket buffer back from the gathering side (at most one is kept:
    /// with the one being gathered, two buckets' worth of memory).
    spare_data: Vec<u8>,
    spare_spans: Vec<(u32, u32)>,
    depth: usize,
}

impl Loader<'_> {
    fn load<R: Rng + ?Sized>(
        &mut self,
        buckets: Vec<Bucket>,
        level: usize,
        rng: &mut R,
    ) -> Result<(), Stop> {
        self.depth = self.depth.max(level);
        for bucket in buckets {
            let Some(mut file) = bucket.file else {
                continue;
            };
            let need = memory_need(bucket.bytes, bucket.records);
            if need <= self.plan.bucket_budget {
                // Room for slightly bigger buckets later, so that recycled
                // buffers rarely need to grow (within the budget).
                let slack = (self.plan.bucket_budget - need) / 2;
                let extra_bytes = (bucket.bytes / 16).min(slack) as usize;
                let extra_records = (bucket.records / 16).min(slack / 8) as usize;
                let data = match map_bucket(&file, bucket.bytes) {
                    Some(map) => Bytes::Mapped(map),
                    None => Bytes::Owned(self.read_bucket(&mut file, bucket.bytes, extra_bytes)?),
                };
                drop(file);
                let spans = self.shuffled_spans(&data, bucket.records, extra_records, rng);
                self.send(Batch::Records { data, spans })?;
            } else if bucket.records == 1 {
                self.send(Batch::LongRecord)?;
                self.stream(&mut file)?;
            } else {
                // The sub-scatter needs the whole budget: wait until the
                // gathering side holds no bucket.
                self.wait_until_idle()?;
                let sub = self.scatter_again(&mut file, self.plan.sub_buckets(need), rng)?;
                drop(file);
                self.load(sub, level + 1, rng)?;
            }
        }
        Ok(())
    }

    fn send(&mut self, batch: Batch) -> Result<(), Stop> {
        self.to_gatherer.send(batch).map_err(|_| Stop::Cancelled)?;
        self.unacknowledged += 1;
        while let Ok(returned) = self.acks.try_recv() {
            self.take_back(returned);
        }
        Ok(())
    }

    fn take_back(&mut self, returned: Returned) {
        self.unacknowledged -= 1;
        if returned.data.capacity() > self.spare_data.capacity() {
            self.spare_data = returned.data;
        }
        if returned.spans.capacity() > self.spare_spans.capacity() {
            self.spare_spans = returned.spans;
        }
    }

    /// Waits until the gathering side holds no bucket, and frees the spare
    /// buffers: what follows needs the whole budget.
    fn wait_until_idle(&mut self) -> Result<(), Stop> {
        while self.unacknowledged > 0 {
            let returned = self.acks.recv().map_err(|_| Stop::Cancelled)?;
            self.take_back(returned);
        }
        self.spare_data = Vec::new();
        self.spare_spans = Vec::new();
        Ok(())
    }

    fn read_bucket(&mut self, file: &mut File, bytes: u64, extra: usize) -> Result<Vec<u8>, Error> {
        let mut data = std::mem::take(&mut self.spare_data);
        data.clear();
        if data.capacity() < bytes as usize {
            data = Vec::new();
            data.try_reserve_exact(bytes as usize + extra)
                .map_err(|_| self.temp.error(io::Error::from(io::ErrorKind::OutOfMemory)))?;
        }
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.take(bytes).read_to_end(&mut data))
            .map_err(|e| self.temp.error(e))?;
        if data.len() as u64 != bytes {
            return Err(self
                .temp
                .error(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "a temporary file is shorter than what was written to it",
                ))
                .into());
        }
        Ok(data)
    }

    /// Indexes the records of `data` and shuffles the index (Durstenfeld,
    /// through `knuffle::shuffle`).
    fn shuffled_spans<R: Rng + ?Sized>(
        &mut self,
        data: &[u8],
        records: u64,
        extra: usize,
        rng: &mut R,
    ) -> Spans {
        if data.len() <= u32::MAX as usize {
            let mut spans = std::mem::take(&mut self.spare_spans);
            spans.clear();
            if spans.capacity() < records as usize {
                spans = Vec::with_capacity(records as usize + extra);
            }
            let mut start = 0u32;
            for_each_delimiter(data, self.delimiter, |end| {
                let end = end as u32 + 1;
                spans.push((start, end));
                start = end;
            });
            debug_assert_eq!(spans.len() as u64, records);
            knuffle::shuffle(&mut spans, rng);
            Spans::Narrow(spans)
        } else {
            let mut spans = Vec::with_capacity(records as usize);
            let mut start = 0u64;
            for_each_delimiter(data, self.delimiter, |end| {
                let end = end as u64 + 1;
                spans.push((start, end));
                start = end;
            });
            knuffle::shuffle(&mut spans, rng);
            Spans::Wide(spans)
        }
    }

    /// Sends a one-record bucket's bytes in bounded pieces.
    fn stream(&mut self, file: &mut File) -> Result<(), Stop> {
        file.seek(SeekFrom::Start(0))
            .map_err(|e| Error::from(self.temp.error(e)))?;
        loop {
            let mut piece = vec![0u8; self.plan.io_buffer];
            let read = read_some(file, &mut piece).map_err(|e| Error::from(self.temp.error(e)))?;
            if read == 0 {
                return Ok(());
            }
            piece.truncate(read);
            self.send(Batch::Piece(piece))?;
        }
    }

    /// Scatters a bucket's records into sub-buckets, reading the bucket
    /// with a bounded buffer.
    fn scatter_again<R: Rng + ?Sized>(
        &mut self,
        file: &mut File,
        buckets: usize,
        rng: &mut R,
    ) -> Result<Vec<Bucket>, Error> {
        file.seek(SeekFrom::Start(0))
            .map_err(|e| self.temp.error(e))?;
        let temp = self.temp;
        let io_buffer = self.plan.io_buffer;
        Scatter::run(self.plan, buckets, temp, self.delimiter, |scatter| {
            let mut buffer = vec![0u8; io_buffer];
            loop {
                let read = read_some(file, &mut buffer).map_err(|e| temp.error(e))?;
                if read == 0 {
                    return Ok(());
                }
                scatter.feed(&buffer[..read], rng)?;
            }
        })
    }
}

/// The memory a bucket takes in pass 2: its bytes plus its index.
fn memory_need(bytes: u64, records: u64) -> u64 {
    let span = if bytes <= u64::from(u32::MAX) {
        size_of::<(u32, u32)>()
    } else {
        size_of::<(u64, u64)>()
    };
    records.saturating_mul(span as u64).saturating_add(bytes)
}
