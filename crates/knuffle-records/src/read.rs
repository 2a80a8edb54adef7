//! Reading that survives signals.

use std::io::{self, Read};

/// A `read` that retries when interrupted by a signal (`EINTR`).
pub fn read_some(reader: &mut (impl Read + ?Sized), buffer: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buffer) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}
