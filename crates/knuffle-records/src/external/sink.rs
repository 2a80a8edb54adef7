//! The output side: buffered writes, the `-n` count, bytes-written progress.
//!
//! Until the input has been read completely the output is not touched
//! (GNU opens `-o FILE` only then, so FILE may be an input): header lines
//! that overflow the buffer during pass 1 are held in a nameless temporary
//! file and copied out when pass 2 begins.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};

use crate::error::Error;
use crate::progress::Progress;
use knuffle_io::temp::TempSpace;

/// Buffered output of whole records, stopping after `-n` records.
pub struct Sink<'o> {
    out: &'o mut dyn Write,
    buffer: Vec<u8>,
    capacity: usize,
    remaining: u64,
    records: u64,
    progress: &'o dyn Progress,
    /// While the input is being read: where overflowing output waits.
    hold: Option<(&'o TempSpace, Option<File>)>,
}

impl<'o> Sink<'o> {
    /// Output to `out` through a buffer of `capacity` bytes; at most
    /// `limit` records (`None`: all). Nothing reaches `out` before
    /// [`Sink::release`]; overflow waits in a file in `temp`.
    pub fn new(
        out: &'o mut dyn Write,
        capacity: usize,
        limit: Option<u64>,
        progress: &'o dyn Progress,
        temp: &'o TempSpace,
    ) -> Sink<'o> {
        Sink {
            out,
            buffer: Vec::new(),
            capacity,
            remaining: limit.unwrap_or(u64::MAX),
            records: 0,
            progress,
            hold: Some((temp, None)),
        }
    }

    /// The input has been read: output may go out now, held bytes first.
    pub fn release(&mut self) -> Result<(), Error> {
        let Some((temp, held)) = self.hold.take() else {
            return Ok(());
        };
        let Some(mut file) = held else {
            return Ok(());
        };
        file.seek(SeekFrom::Start(0)).map_err(|e| temp.error(e))?;
        let mut chunk = vec![0u8; self.capacity];
        loop {
            let read = crate::read::read_some(&mut file, &mut chunk).map_err(|e| temp.error(e))?;
            if read == 0 {
                return Ok(());
            }
            self.write(&chunk[..read])?;
        }
    }

    /// Records still to be written (`-n`; `u64::MAX` without a limit).
    pub fn remaining(&self) -> u64 {
        self.remaining
    }

    /// Writes `bytes`, in which `records` whole records start (at most
    /// [`Sink::remaining`]: the caller stops at the limit), with one write
    /// when nothing is buffered.
    pub fn block(&mut self, bytes: &[u8], records: u64) -> Result<(), Error> {
        debug_assert!(records <= self.remaining);
        self.remaining -= records;
        self.records += records;
        if !self.buffer.is_empty() {
            self.flush_buffer()?;
        }
        if bytes.is_empty() {
            return Ok(());
        }
        self.write(bytes)
    }

    /// Records written so far (header lines not counted).
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Writes bytes as they are (header lines).
    #[inline]
    pub fn bytes(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if self.buffer.len() + bytes.len() <= self.buffer.capacity() {
            self.buffer.extend_from_slice(bytes);
            return Ok(());
        }
        self.bytes_slow(bytes)
    }

    #[cold]
    fn bytes_slow(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if self.buffer.capacity() < self.capacity {
            self.buffer.reserve_exact(self.capacity - self.buffer.len());
        }
        if self.buffer.len() + bytes.len() > self.capacity {
            self.flush_buffer()?;
        }
        if bytes.len() >= self.capacity {
            self.write(bytes)
        } else {
            self.buffer.extend_from_slice(bytes);
            Ok(())
        }
    }

    fn flush_buffer(&mut self) -> Result<(), Error> {
        let buffer = std::mem::take(&mut self.buffer);
        let result = self.write(&buffer);
        self.buffer = buffer;
        self.buffer.clear();
        result
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if let Some((temp, held)) = &mut self.hold {
            let file = match held {
                Some(file) => file,
                slot => slot.insert(temp.file()?),
            };
            return file.write_all(bytes).map_err(|e| temp.error(e).into());
        }
        self.out.write_all(bytes).map_err(Error::Write)?;
        self.progress.wrote(bytes.len() as u64);
        Ok(())
    }

    /// Writes what is buffered and flushes the output.
    pub fn finish(&mut self) -> Result<(), Error> {
        self.release()?;
        self.flush_buffer()?;
        self.buffer = Vec::new();
        self.out.flush().map_err(Error::Write)
    }
}
