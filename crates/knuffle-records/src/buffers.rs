//! Buffer sizes shared by the readers, and how a buffer grows
//! ([`grow_within`]). They bound the memory of every streaming path; none
//! of them changes which order is written.

use crate::error::Error;

/// The buffer of the line stream ([`crate::stream`]): `-n` sampling holds
/// this much plus the sampled lines.
pub const STREAM_BUFFER: usize = 1 << 20;

/// The chunk in which inputs are read or scanned while deciding between the
/// in-memory and the external path, and the piece one core reads and
/// indexes at a time when loading a regular file.
pub const CHUNK: usize = 1 << 20;

/// Read buffers in use at most by the external shuffle's reader: one being
/// filled, one being parsed, the rest waiting in the channel.
pub const READ_BUFFERS: usize = 4;

/// Makes room in `buffer` for `extra` more bytes: geometric growth (so
/// that a long line costs linear time), but never past `most` bytes of
/// capacity (a line near the memory limit must not double past it), and
/// [`Error::OutOfMemory`] rather than an abort when the allocation fails.
pub fn grow_within(buffer: &mut Vec<u8>, extra: usize, most: usize) -> Result<(), Error> {
    let needed = buffer.len().saturating_add(extra);
    if needed <= buffer.capacity() {
        return Ok(());
    }
    let target = buffer
        .capacity()
        .saturating_mul(2)
        .max(needed)
        .min(most)
        .max(needed);
    buffer
        .try_reserve_exact(target - buffer.len())
        .map_err(|_| Error::OutOfMemory)
}
