//! Reading the inputs in pass 1 with bounded buffers, header lines first.

use std::io::Read;

use memchr::memchr;
use rand_core::Rng;

use super::error::ExternalError;
use super::gather::read_some;
use super::progress::Progress;
use super::scatter::Scatter;
use super::sink::Sink;

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
    pub progress: &'a Progress,
    pub delimiter: u8,
    pub header_left: u64,
    /// True while a header record has been started but not ended.
    pub in_header: bool,
    pub io_buffer: usize,
}

/// Prefix bytes scattered between two releases of their memory.
const RELEASE_STEP: usize = 1 << 20;

impl Feeder<'_, '_> {
    /// Reads every input to its end.
    pub fn feed_all<R: Rng + ?Sized>(
        &mut self,
        inputs: Vec<Input>,
        rng: &mut R,
    ) -> Result<(), ExternalError> {
        let mut buffer = vec![0u8; self.io_buffer];
        for mut input in inputs {
            let mut done = 0;
            while done < input.prefix.len() {
                let end = (done + RELEASE_STEP).min(input.prefix.len());
                self.feed(&input.prefix[..end][done..], rng)?;
                release(&mut input.prefix, end);
                done = end;
            }
            input.prefix = Vec::new();
            loop {
                let read = read_some(&mut input.rest, &mut buffer)
                    .map_err(|error| ExternalError::Input { error })?;
                if read == 0 {
                    break;
                }
                self.feed(&buffer[..read], rng)?;
            }
            self.end_input()?;
        }
        Ok(())
    }

    fn feed<R: Rng + ?Sized>(&mut self, mut data: &[u8], rng: &mut R) -> Result<(), ExternalError> {
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

    fn end_input(&mut self) -> Result<(), ExternalError> {
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
