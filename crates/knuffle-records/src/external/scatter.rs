//! Pass 1: deal every record into a uniformly random bucket file.
//!
//! Records are found in bounded read buffers (see [`knuffle_io::scan`]), so a
//! record may be longer than any buffer: it is streamed into its bucket
//! piece by piece. Each bucket has a write buffer of fixed size; a full
//! buffer goes to a writer thread that appends it to the bucket's file
//! (created on first use: empty buckets cost no file descriptor) and hands
//! the buffer back, so parsing and writing run on two cores. The number of
//! buffers is fixed by the plan (`buckets + SPARE_BUFFERS`), which bounds
//! memory whatever the speed of the disk.

use std::fs::File;
use std::io::Write;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread;

use rand_core::Rng;

use super::labels::Labels;
use super::plan::{Plan, SPARE_BUFFERS};
use crate::error::Error;
use knuffle_io::scan::for_each_delimiter;
use knuffle_io::temp::TempSpace;

/// One bucket after the scatter: its file (none when empty), its size
/// and its number of records.
#[derive(Debug)]
pub struct Bucket {
    pub file: Option<File>,
    pub bytes: u64,
    pub records: u64,
}

/// The scatter in progress (the parsing side; the writer thread owns the
/// files).
pub struct Scatter {
    delimiter: u8,
    write_buffer: usize,
    max_buffers: usize,
    allocated: usize,
    buffers: Vec<Vec<u8>>,
    bytes: Vec<u64>,
    records: Vec<u64>,
    labels: Labels,
    /// The bucket of the record whose end has not been seen yet.
    open: Option<usize>,
    /// Delimiter positions of the current chunk (reused).
    ends: Vec<u32>,
    to_writer: Option<Sender<(usize, Vec<u8>)>>,
    recycled: Receiver<Vec<u8>>,
}

type WriterResult = Result<Vec<Option<File>>, Error>;

impl Scatter {
    /// Runs a scatter into `buckets` buckets (a power of two, at most
    /// `plan.buckets`): `feed` gets the scatter
    /// to fill; then every buffer is written out and the buckets returned.
    pub fn run<F>(
        plan: &Plan,
        buckets: usize,
        temp: &TempSpace,
        delimiter: u8,
        feed: F,
    ) -> Result<Vec<Bucket>, Error>
    where
        F: FnOnce(&mut Scatter) -> Result<(), Error>,
    {
        let (to_writer, from_parser) = channel::<(usize, Vec<u8>)>();
        let (recycle, recycled) = channel::<Vec<u8>>();
        thread::scope(|scope| {
            let writer = thread::Builder::new()
                .name("knuffle-scatter".into())
                .spawn_scoped(scope, move || -> WriterResult {
                    let mut files: Vec<Option<File>> = (0..buckets).map(|_| None).collect();
                    for (bucket, mut buffer) in from_parser {
                        let file = match &mut files[bucket] {
                            Some(file) => file,
                            slot => slot.insert(temp.file()?),
                        };
                        file.write_all(&buffer).map_err(|e| temp.error(e))?;
                        buffer.clear();
                        let _ = recycle.send(buffer);
                    }
                    Ok(files)
                })
                .map_err(|e| temp.error(e))?;
            let mut scatter = Scatter {
                delimiter,
                write_buffer: plan.write_buffer_for(buckets),
                max_buffers: buckets + SPARE_BUFFERS,
                allocated: 0,
                buffers: (0..buckets).map(|_| Vec::new()).collect(),
                bytes: vec![0; buckets],
                records: vec![0; buckets],
                labels: Labels::new(buckets.trailing_zeros()),
                open: None,
                ends: Vec::new(),
                to_writer: Some(to_writer),
                recycled,
            };
            let fed = feed(&mut scatter).and_then(|()| scatter.finish());
            // Closing the channel ends the writer; its error comes first
            // (a failed send above only means the writer stopped).
            scatter.to_writer = None;
            let files = writer.join().unwrap_or_else(|_| {
                Err(temp
                    .error(std::io::Error::other("writer thread panicked"))
                    .into())
            })?;
            fed?;
            Ok(files
                .into_iter()
                .zip(scatter.bytes.iter().zip(&scatter.records))
                .map(|(file, (&bytes, &records))| Bucket {
                    file,
                    bytes,
                    records,
                })
                .collect())
        })
    }

    /// Scatters the next bytes of the current input.
    pub fn feed<R: Rng + ?Sized>(&mut self, data: &[u8], rng: &mut R) -> Result<(), Error> {
        let mut ends = std::mem::take(&mut self.ends);
        ends.clear();
        for_each_delimiter(data, self.delimiter, |i| ends.push(i as u32));
        let result = self.feed_records(data, &ends, rng);
        self.ends = ends;
        result
    }

    fn feed_records<R: Rng + ?Sized>(
        &mut self,
        data: &[u8],
        ends: &[u32],
        rng: &mut R,
    ) -> Result<(), Error> {
        let mut start = 0;
        for &end in ends {
            let end = end as usize + 1;
            let bucket = match self.open.take() {
                Some(bucket) => bucket,
                None => self.new_record(rng),
            };
            self.append(bucket, &data[start..end])?;
            start = end;
        }
        if start < data.len() {
            let bucket = match self.open {
                Some(bucket) => bucket,
                None => self.new_record(rng),
            };
            self.append(bucket, &data[start..])?;
            self.open = Some(bucket);
        }
        Ok(())
    }

    #[inline]
    fn new_record<R: Rng + ?Sized>(&mut self, rng: &mut R) -> usize {
        let bucket = self.labels.next(rng);
        self.records[bucket] += 1;
        bucket
    }

    /// Ends the current input: a last record without a delimiter gets one.
    pub fn end_input(&mut self) -> Result<(), Error> {
        match self.open.take() {
            Some(bucket) => self.append(bucket, &[self.delimiter]),
            None => Ok(()),
        }
    }

    /// Sends every partly filled buffer to the writer and frees the rest.
    fn finish(&mut self) -> Result<(), Error> {
        self.end_input()?;
        for bucket in 0..self.buffers.len() {
            let buffer = std::mem::take(&mut self.buffers[bucket]);
            if !buffer.is_empty() {
                self.send(bucket, buffer)?;
            }
        }
        Ok(())
    }

    #[inline]
    fn append(&mut self, bucket: usize, bytes: &[u8]) -> Result<(), Error> {
        self.bytes[bucket] += bytes.len() as u64;
        let buffer = &mut self.buffers[bucket];
        if buffer.len() + bytes.len() <= buffer.capacity() {
            buffer.extend_from_slice(bytes);
            return Ok(());
        }
        self.append_slow(bucket, bytes)
    }

    #[cold]
    fn append_slow(&mut self, bucket: usize, mut bytes: &[u8]) -> Result<(), Error> {
        while !bytes.is_empty() {
            if self.buffers[bucket].capacity() == 0 {
                self.buffers[bucket] = self.empty_buffer()?;
            }
            let buffer = &mut self.buffers[bucket];
            let room = self.write_buffer - buffer.len();
            let take = room.min(bytes.len());
            buffer.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if buffer.len() == self.write_buffer {
                let full = std::mem::take(&mut self.buffers[bucket]);
                self.send(bucket, full)?;
            }
        }
        Ok(())
    }

    /// A new buffer while the plan allows, else one the writer is done with.
    fn empty_buffer(&mut self) -> Result<Vec<u8>, Error> {
        if self.allocated < self.max_buffers {
            self.allocated += 1;
            return Ok(Vec::with_capacity(self.write_buffer));
        }
        self.recycled.recv().map_err(|_| writer_stopped())
    }

    fn send(&mut self, bucket: usize, buffer: Vec<u8>) -> Result<(), Error> {
        let sender = self.to_writer.as_ref().ok_or_else(writer_stopped)?;
        sender.send((bucket, buffer)).map_err(|_| writer_stopped())
    }
}

/// The writer thread stopped (its own error is reported instead).
fn writer_stopped() -> Error {
    Error::Write(std::io::Error::other("bucket writer stopped"))
}
