//! Reading the input into memory: a single regular file is memory-mapped
//! (no copy; the page cache is the buffer), anything else is read into one
//! buffer. Several files are concatenated, each ending in a delimiter.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read};
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::os::fd::FromRawFd;
use std::os::unix::fs::MetadataExt;

use memmap2::{Mmap, MmapOptions};

use super::errors::ShufError;

/// The input bytes: a read-only map of a file, or an owned buffer.
pub enum Bytes {
    /// A memory map, with the file's (device, inode) so that an output file
    /// that is the same file can be detected before it is truncated.
    Mapped { map: Mmap, file_id: (u64, u64) },
    /// Bytes read from a pipe, a terminal, several files or `-e` operands.
    Owned(Vec<u8>),
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped { map, .. } => map,
            Bytes::Owned(v) => v,
        }
    }
}

impl Bytes {
    /// If these bytes are a map of the file `file_id`, copies them into
    /// memory: truncating a mapped file would make reading it fault.
    pub fn detach_from(&mut self, file_id: (u64, u64)) -> Result<(), ShufError> {
        if let Bytes::Mapped {
            map,
            file_id: mapped,
        } = self
            && *mapped == file_id
        {
            let mut copy = Vec::new();
            copy.try_reserve_exact(map.len())
                .map_err(|_| ShufError::memory())?;
            copy.extend_from_slice(map);
            *self = Bytes::Owned(copy);
        }
        Ok(())
    }
}

/// An opened input: standard input (never closed by us) or a file.
pub enum Opened {
    Stdin(ManuallyDrop<File>),
    File(File),
}

impl Opened {
    /// Opens FILE, or standard input for `-` (GNU: `NAME: strerror`).
    pub fn open(name: &OsStr) -> Result<Opened, ShufError> {
        if name == "-" {
            // SAFETY: fd 0 is standard input; ManuallyDrop never closes it.
            Ok(Opened::Stdin(ManuallyDrop::new(unsafe {
                File::from_raw_fd(0)
            })))
        } else {
            File::open(name)
                .map(Opened::File)
                .map_err(|e| ShufError::file(name, &e))
        }
    }

    /// The underlying file.
    pub fn file(&self) -> &File {
        match self {
            Opened::Stdin(f) => f,
            Opened::File(f) => f,
        }
    }

    /// The number of bytes left to read when this is a regular file
    /// (GNU's `input_size`), or `None` for pipes, terminals and the like.
    pub fn remaining_regular_size(&self) -> Option<u64> {
        let file = self.file();
        let meta = file.metadata().ok()?;
        if !meta.is_file() {
            return None;
        }
        let offset = current_offset(file)?;
        Some(meta.len().saturating_sub(offset))
    }
}

impl Read for Opened {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Opened::Stdin(f) => (&**f).read(buf),
            Opened::File(f) => f.read(buf),
        }
    }
}

fn current_offset(file: &File) -> Option<u64> {
    use std::os::fd::AsRawFd;
    // SAFETY: lseek on a valid descriptor; it only queries the offset.
    let offset = unsafe { libc::lseek(file.as_raw_fd(), 0, libc::SEEK_CUR) };
    u64::try_from(offset).ok()
}

/// Opens every input in order (`-` or no operand: standard input), as
/// GNU does before anything else, so a missing file is reported first.
pub fn open_all(files: &[OsString]) -> Result<Vec<Opened>, ShufError> {
    if files.is_empty() {
        return Ok(vec![Opened::open(OsStr::new("-"))?]);
    }
    files.iter().map(|name| Opened::open(name)).collect()
}

/// GNU's `input_size`: the bytes left in the inputs when all are regular
/// files, `None` when any is not (a pipe: size unknown).
pub fn total_regular_size(opened: &[Opened]) -> Option<u64> {
    opened.iter().try_fold(0u64, |sum, o| {
        Some(sum.saturating_add(o.remaining_regular_size()?))
    })
}

/// Reads every input into memory. One regular file is mapped; anything
/// else is read into one buffer, and every input but the last gets a
/// delimiter appended when it lacks one (the last one's missing delimiter
/// is added on output).
pub fn load(opened: Vec<Opened>, delimiter: u8) -> Result<Bytes, ShufError> {
    if let [single] = opened.as_slice()
        && let Some(remaining) = single.remaining_regular_size()
        && remaining > 0
    {
        let file = single.file();
        let offset = current_offset(file).unwrap_or(0);
        let len = usize::try_from(remaining).map_err(|_| ShufError::memory())?;
        // SAFETY: the map is read-only. Like every tool that maps its
        // input (ripgrep, GNU grep's mmap days), a file truncated by
        // another process while we run can fault; an output file that is
        // the input is detected and copied first (Bytes::detach_from).
        let map = unsafe {
            MmapOptions::new()
                .offset(offset)
                .len(len)
                .populate()
                .map(file)
        };
        if let Ok(map) = map {
            let _ = map.advise(memmap2::Advice::Random);
            let meta = file.metadata().map_err(|e| ShufError::read(&e))?;
            return Ok(Bytes::Mapped {
                map,
                file_id: (meta.dev(), meta.ino()),
            });
        }
    }
    let mut buffer: Vec<u8> = Vec::new();
    let count = opened.len();
    for (i, mut input) in opened.into_iter().enumerate() {
        if let Some(size) = input.remaining_regular_size() {
            buffer
                .try_reserve(
                    usize::try_from(size)
                        .map_err(|_| ShufError::memory())?
                        .saturating_add(1),
                )
                .map_err(|_| ShufError::memory())?;
        }
        let before = buffer.len();
        read_all(&mut input, &mut buffer)?;
        if i + 1 < count && buffer.len() > before && buffer.last() != Some(&delimiter) {
            buffer.push(delimiter);
        }
    }
    Ok(Bytes::Owned(buffer))
}

/// `read_to_end` with GNU's `read error: strerror`; an allocation failure
/// is reported as "memory exhausted" instead of aborting.
fn read_all(input: &mut Opened, buffer: &mut Vec<u8>) -> Result<(), ShufError> {
    match input.read_to_end(buffer) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::OutOfMemory => Err(ShufError::memory()),
        Err(e) => Err(ShufError::read(&e)),
    }
}
