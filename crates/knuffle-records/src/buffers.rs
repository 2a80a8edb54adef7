//! Buffer sizes shared by the readers. They bound the memory of every
//! streaming path; none of them changes which order is written.

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
