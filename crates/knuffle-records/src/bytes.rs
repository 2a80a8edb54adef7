//! Bytes held in memory either as a memory map or as an owned buffer: the
//! input of the in-memory shuffle, and a bucket of the external one.

use std::ops::Deref;

use memmap2::Mmap;

/// A memory map, or bytes read into a buffer (where there is nothing to map
/// or mapping fails).
pub enum Bytes {
    /// A map: a file's own pages, or a private copy of a file in
    /// huge-page-backed memory.
    Mapped(Mmap),
    /// Bytes read into a buffer (a pipe, several files, `-e` operands, or a
    /// bucket that could not be mapped).
    Owned(Vec<u8>),
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Owned(data) => data,
        }
    }
}
