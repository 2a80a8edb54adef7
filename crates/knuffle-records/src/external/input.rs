//! Reading the inputs in pass 1 with bounded buffers, header lines first.

use std::io::{self, Read};
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
use std::thread;

use memchr::memchr;
use rand_core::Rng;

use super::scatter::Scatter;
use super::sink::Sink;
use crate::buffers::READ_BUFFERS;
use crate::error::Error;
use crate::progress::Progress;
use crate::read::read_some;

/// One input: bytes already read from it (a pipe read into memory before
/// it turned out too big), then the rest of it.
pub struct Input {
    /// Bytes read before external mode started; they come first. Their
    /// memory is handed back to the system as they are scattered.
    pub prefix: Vec<u8>,
    /// The rest of the input.
    pub rest: Box<dyn Read + Send>,
}

impl Input {
    /// An input read from its start.
    pub fn reader(rest: Box<dyn Read + Send>) -> Input {
        Input {
            prefix: Vec::new(),
            rest,
        }
    }
}

/// Feeds the inputs to the scatter; the first `header` records (of the
/// concatenated inputs) go straight to the output instead.
pub struct Feeder<'a, 'o> {
    pub scatter: &'a mut Scatter,
    pub sink: &'a mut Sink<'o>,
    pub progress: &'a dyn Progress,
    pub delimiter: u8,
    pub header_left: u64,
    /// True while a header record has been started but not ended.
    pub in_header: bool,
    pub io_buffer: usize,
}

/// What the reader thread sends.
enum Chunk {
    /// A buffer and how many of its bytes were read.
    Data(Vec<u8>, usize),
    /// The current input ended.
    End,
    /// Reading failed.
    Failed(io::Error),
}

/// The reader thread: every input in order, in `io_buffer`-sized reads,
/// with at most [`READ_BUFFERS`] buffers.
fn read_inputs(
    rests: Vec<Box<dyn Read + Send>>,
    io_buffer: usize,
    to_parser: &SyncSender<Chunk>,
    recycled: &Receiver<Vec<u8>>,
) {
    let mut allocated = 0;
    for mut rest in rests {
        loop {
            let mut buffer = match recycled.try_recv() {
                Ok(buffer) => buffer,
                Err(_) if allocated < READ_BUFFERS => {
                    allocated += 1;
                    vec![0u8; io_buffer]
                }
                Err(_) => match recycled.recv() {
                    Ok(buffer) => buffer,
                    Err(_) => return,
                },
            };
            let chunk = match read_some(&mut rest, &mut buffer) {
                Ok(0) => {
                    allocated -= 1;
                    break;
                }
                Ok(len) => Chunk::Data(buffer, len),
                Err(error) => Chunk::Failed(error),
            };
            let failed = matches!(chunk, Chunk::Failed(_));
            if to_parser.send(chunk).is_err() || failed {
                return;
            }
        }
        if to_parser.send(Chunk::End).is_err() {
            return;
        }
    }
}

/// Prefix bytes scattered between two releases of their memory.
const RELEASE_STEP: usize = 1 << 20;

impl Feeder<'_, '_> {
    /// Reads every input to its end. A reader thread reads ahead (the
    /// `read` calls copy from the kernel) while this thread parses.
    pub fn feed_all<R: Rng + ?Sized>(
        &mut self,
        inputs: Vec<Input>,
        rng: &mut R,
    ) -> Result<(), Error> {
        let (prefixes, rests): (Vec<Vec<u8>>, Vec<Box<dyn Read + Send>>) =
            inputs.into_iter().map(|i| (i.prefix, i.rest)).unzip();
        let io_buffer = self.io_buffer;
        thread::scope(|scope| {
            let (to_parser, chunks) = sync_channel::<Chunk>(READ_BUFFERS - 2);
            let (recycle, recycled) = channel::<Vec<u8>>();
            let reader = thread::Builder::new()
                .name("knuffle-read".into())
                .spawn_scoped(scope, move || {
                    read_inputs(rests, io_buffer, &to_parser, &recycled)
                })
                .map_err(Error::Read)?;
            let fed = self.consume(prefixes, &chunks, &recycle, rng);
            drop(chunks); // a reader blocked on a full channel stops
            let _ = reader.join();
            fed
        })
    }

    fn consume<R: Rng + ?Sized>(
        &mut self,
        prefixes: Vec<Vec<u8>>,
        chunks: &Receiver<Chunk>,
        recycle: &Sender<Vec<u8>>,
        rng: &mut R,
    ) -> Result<(), Error> {
        for mut prefix in prefixes {
            let mut done = 0;
            while done < prefix.len() {
                let end = (done + RELEASE_STEP).min(prefix.len());
                self.feed(&prefix[..end][done..], rng)?;
                release(&mut prefix, end);
                done = end;
            }
            drop(prefix);
            loop {
                match chunks.recv() {
                    Ok(Chunk::Data(buffer, len)) => {
                        self.feed(&buffer[..len], rng)?;
                        let _ = recycle.send(buffer);
                    }
                    Ok(Chunk::End) => break,
                    Ok(Chunk::Failed(error)) => return Err(Error::Read(error)),
                    Err(_) => {
                        let error = io::Error::other("the input reader stopped");
                        return Err(Error::Read(error));
                    }
                }
            }
            self.end_input()?;
        }
        Ok(())
    }

    fn feed<R: Rng + ?Sized>(&mut self, mut data: &[u8], rng: &mut R) -> Result<(), Error> {
        self.progress.read(data.len() as u64);
        while (self.header_left > 0 || self.in_header) && !data.is_empty() {
            match memchr(self.delimiter, data) {
                Some(end) => {
                    self.sink.bytes(&data[..=end])?;
                    if !self.in_header {
                        self.header_left -= 1;
                    }
                    self.in_header = false;
                    data = &data[end + 1..];
                }
                None => {
                    self.sink.bytes(data)?;
                    if !self.in_header {
                        self.header_left -= 1;
                        self.in_header = true;
                    }
                    return Ok(());
                }
            }
        }
        self.scatter.feed(data, rng)
    }

    fn end_input(&mut self) -> Result<(), Error> {
        if self.in_header {
            self.in_header = false;
            self.sink.bytes(&[self.delimiter])?;
        }
        self.scatter.end_input()
    }
}

/// Hands the whole pages of `buffer[..end]` back to the system: they have
/// been scattered and are never read again, so the process's resident
/// memory shrinks as the prefix is consumed, instead of staying at its peak
/// until the end of the pass.
fn release(buffer: &mut [u8], end: usize) {
    let page = 4096usize;
    let base = buffer.as_mut_ptr() as usize;
    let first = base.next_multiple_of(page);
    let last = (base + end) / page * page;
    if last > first {
        // SAFETY: [first, last) lies inside the live allocation of `buffer`
        // (whole pages only, so no allocator metadata outside the buffer is
        // touched). MADV_DONTNEED on private anonymous memory makes later
        // reads see zeros; these bytes are never read again, and writing or
        // freeing the buffer afterwards is valid.
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_DONTNEED,
            );
        }
    }
}
