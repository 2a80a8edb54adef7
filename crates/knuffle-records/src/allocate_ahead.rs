//! A file written from its start, with its disk space allocated ahead of
//! the writes (`fallocate`, keeping the file's size).
//!
//! Why: on ext4 (default `auto_da_alloc`), renaming a file over an
//! existing one first starts writing back every page of the renamed file
//! whose blocks are not yet allocated (delayed allocation). For `-o FILE`,
//! whose output is a temporary file renamed over FILE, that put the
//! submission of the whole output's writeback inside the rename (about
//! half a second for 1 GB; BENCHMARKS.md, "Files larger than memory").
//! Pages written into allocated space carry no delayed allocation, so the
//! rename is immediate and the pages are written back later, as for any
//! other file. Space is allocated in growing steps just ahead of the
//! writes; [`AllocateAhead::trim`] frees what the writes did not use.
//!
//! Allocation is a hint: where it fails (a file system without
//! `fallocate`, a full disk) it stops, and the writes go on unchanged (a
//! full disk then fails the write that does not fit, as before).

use std::fs::File;
use std::io::{self, Write};

/// The first step: small outputs allocate no more than this ahead.
const FIRST_STEP: u64 = 1 << 20;

/// The largest step.
const MAX_STEP: u64 = 64 << 20;

/// A file written sequentially from offset 0, its space allocated ahead.
#[derive(Debug)]
pub(crate) struct AllocateAhead {
    /// Bytes written.
    written: u64,
    /// Bytes allocated from offset 0 (at least `written` while enabled).
    allocated: u64,
    /// False once an allocation failed: no more attempts.
    enabled: bool,
}

impl AllocateAhead {
    /// Nothing written or allocated yet.
    pub(crate) fn new() -> Self {
        AllocateAhead {
            written: 0,
            allocated: 0,
            enabled: true,
        }
    }

    /// Writes `buf` to `file` (at its current position, the end of what
    /// was written), allocating space ahead first when needed.
    pub(crate) fn write(&mut self, file: &mut File, buf: &[u8]) -> io::Result<usize> {
        let end = self.written + buf.len() as u64;
        if self.enabled && end > self.allocated {
            // Each step at least doubles what is allocated, up to MAX_STEP.
            let step = self.allocated.clamp(FIRST_STEP, MAX_STEP);
            let target = end.max(self.allocated + step);
            if allocate(file, self.allocated, target - self.allocated).is_ok() {
                self.allocated = target;
            } else {
                self.enabled = false;
                // A failed allocation may have allocated part of the range:
                // free it, so that it cannot take space the writes need.
                self.trim(file)?;
            }
        }
        let written = file.write(buf)?;
        self.written += written as u64;
        Ok(written)
    }

    /// Frees the space allocated beyond what was written (the file keeps
    /// its size: cutting it to that size releases its blocks past the end).
    pub(crate) fn trim(&mut self, file: &File) -> io::Result<()> {
        if self.allocated > self.written {
            file.set_len(self.written)?;
            self.allocated = self.written;
        }
        Ok(())
    }
}

/// Allocates `len` bytes from `offset` without changing the file's size
/// or content.
fn allocate(file: &File, offset: u64, len: u64) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let (Ok(offset), Ok(len)) = (libc::off_t::try_from(offset), libc::off_t::try_from(len))
        else {
            return Err(io::Error::from_raw_os_error(libc::EFBIG));
        };
        // SAFETY: a valid open descriptor; with FALLOC_FL_KEEP_SIZE the
        // call changes neither the file's size nor any byte of it.
        let status =
            unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, offset, len) };
        if status != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, offset, len);
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;

    /// Writes `pieces` through an [`AllocateAhead`] into a fresh file and
    /// returns the file (trimmed) and its allocator.
    fn write_pieces(pieces: &[Vec<u8>]) -> (File, AllocateAhead) {
        let mut file = tempfile::tempfile().unwrap();
        let mut ahead = AllocateAhead::new();
        for piece in pieces {
            let mut rest = &piece[..];
            while !rest.is_empty() {
                let n = ahead.write(&mut file, rest).unwrap();
                rest = &rest[n..];
            }
        }
        (file, ahead)
    }

    #[test]
    fn bytes_and_size_are_those_written() {
        let pieces: Vec<Vec<u8>> = (0..300u32)
            .map(|i| vec![(i % 251) as u8; (i as usize * 7919) % 20_000 + 1])
            .collect();
        let expected: Vec<u8> = pieces.concat();
        let (mut file, mut ahead) = write_pieces(&pieces);
        assert_eq!(ahead.written, expected.len() as u64);
        ahead.trim(&file).unwrap();
        assert_eq!(file.metadata().unwrap().len(), expected.len() as u64);
        let mut back = Vec::new();
        use std::io::Seek;
        file.seek(io::SeekFrom::Start(0)).unwrap();
        file.read_to_end(&mut back).unwrap();
        assert_eq!(back, expected);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn space_is_allocated_ahead_and_trimmed_to_what_was_written() {
        // One small write: a whole first step is allocated beyond it (on a
        // file system with fallocate), and trimming frees it.
        // Linux file systems for temporary files (ext4, xfs, btrfs, tmpfs)
        // all allocate with FALLOC_FL_KEEP_SIZE.
        let (file, mut ahead) = write_pieces(&[vec![b'x'; 10]]);
        assert!(ahead.enabled);
        assert_eq!(ahead.allocated, FIRST_STEP);
        assert_eq!(file.metadata().unwrap().len(), 10);
        assert!(file.metadata().unwrap().blocks() * 512 >= FIRST_STEP);
        ahead.trim(&file).unwrap();
        assert_eq!(file.metadata().unwrap().len(), 10);
        assert!(file.metadata().unwrap().blocks() * 512 < FIRST_STEP);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn steps_grow_with_the_writes_up_to_the_largest() {
        let mut file = tempfile::tempfile().unwrap();
        let mut ahead = AllocateAhead::new();
        let chunk = vec![0u8; 2 << 20];
        let mut allocations = Vec::new();
        for _ in 0..48 {
            ahead.write(&mut file, &chunk).unwrap();
            if allocations.last() != Some(&ahead.allocated) {
                allocations.push(ahead.allocated);
            }
        }
        assert!(ahead.enabled);
        assert!(ahead.allocated >= ahead.written);
        assert!(ahead.allocated - ahead.written <= MAX_STEP);
        // About doubling while small, then fixed steps.
        assert!(allocations.len() < 10, "{allocations:?}");
        ahead.trim(&file).unwrap();
        assert_eq!(file.metadata().unwrap().len(), 48 * (2 << 20));
    }
}
