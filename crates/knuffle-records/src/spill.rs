//! The spill strategy (pipes, knuffle's generator): the inputs are read
//! into memory while the in-memory path's need stays within the capacity
//! the plan gives; all of them read, they are shuffled in memory
//! ([`crate::in_memory`]); the limit reached, what was read goes first
//! into the external shuffle, followed by the rest ([`crate::external`]).

use std::io::{self, Read};

use knuffle::DefaultRng;

use crate::buffers::CHUNK;
use crate::error::Error;
use crate::external;
use crate::external_run;
use crate::in_memory;
use crate::input::{Bytes, Opened};
use crate::progress::Progress;
use crate::settings::{Run, in_memory_need};
use knuffle_io::scan::count_delimiters;

/// Reads `opened` within `capacity`, then shuffles in memory or externally.
pub(crate) fn run(
    run: &Run<'_, '_>,
    mut opened: Vec<Opened>,
    capacity: u64,
    rng: &mut DefaultRng,
) -> Result<(), Error> {
    match read_within(&mut opened, capacity, run.options.delimiter, run.progress)? {
        Prefix::Complete(bytes) => in_memory::shuffle_bytes(run, Bytes::Owned(bytes), false, rng),
        Prefix::Partial { bytes, next } => {
            let mut rest = opened.drain(next..);
            let current = rest.next().expect("the input being read");
            let mut inputs = vec![external::Input {
                prefix: bytes,
                rest: Box::new(current),
            }];
            inputs.extend(rest.map(|o| external::Input::reader(Box::new(o))));
            external_run::run(run, inputs, rng)
        }
    }
}

enum Prefix {
    /// Every input was read: their bytes, concatenated, each but the last
    /// ending with a delimiter.
    Complete(Vec<u8>),
    /// The limit was reached while reading input `next`.
    Partial { bytes: Vec<u8>, next: usize },
}

/// Reads the inputs into memory while the in-memory path's need stays
/// within `capacity`.
fn read_within(
    opened: &mut [Opened],
    capacity: u64,
    delimiter: u8,
    progress: &dyn Progress,
) -> Result<Prefix, Error> {
    let mut bytes: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; CHUNK];
    let mut lines = 0u64;
    let count = opened.len();
    for (index, input) in opened.iter_mut().enumerate() {
        let before = bytes.len();
        loop {
            let read = loop {
                match input.read(&mut chunk) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other.map_err(Error::Read)?,
                }
            };
            if read == 0 {
                break;
            }
            progress.read(read as u64);
            let chunk = &chunk[..read];
            lines += count_delimiters(chunk, delimiter);
            let len = bytes.len() + read;
            if len > bytes.capacity() {
                // Grow geometrically, but never past the capacity.
                let target = (bytes.capacity() * 2)
                    .max(len)
                    .min(capacity as usize)
                    .max(len);
                bytes
                    .try_reserve_exact(target - bytes.len())
                    .map_err(|_| Error::OutOfMemory)?;
            }
            bytes.extend_from_slice(chunk);
            if in_memory_need(len as u64, lines + 1) > capacity {
                return Ok(Prefix::Partial { bytes, next: index });
            }
        }
        // Read to its end: closed now (a later FILE is opened only when
        // its turn comes).
        *input = Opened::Reader(Box::new(io::empty()));
        if index + 1 < count && bytes.len() > before && bytes.last() != Some(&delimiter) {
            // One byte more, not a doubling past the capacity.
            bytes.try_reserve_exact(1).map_err(|_| Error::OutOfMemory)?;
            bytes.push(delimiter);
            lines += 1;
        }
    }
    Ok(Prefix::Complete(bytes))
}
