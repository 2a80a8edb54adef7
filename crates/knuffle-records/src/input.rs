//! Reading the input into memory: a single regular file is read by both
//! cores into huge-page-backed memory and indexed on the way
//! ([`read_indexed`]); anything else is read into one buffer ([`load`]).
//! Several files are concatenated, each ending in a delimiter.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use memmap2::MmapOptions;

use crate::buffers::{CHUNK, grow_within};
pub use crate::bytes::Bytes;
use crate::error::Error;
use crate::line_index::{Offset, push_starts};
use crate::progress::Progress;

/// An input of a record shuffle, as the caller names it.
pub enum Input {
    /// Standard input (`-`), read from its current offset, never closed.
    Stdin,
    /// A file, opened when the shuffle starts (`Error::File` when it
    /// cannot be).
    Path(PathBuf),
    /// Any reader (always read as a stream).
    Reader(Box<dyn Read + Send>),
    /// Words given as they are (the command line's `-e`): each one record,
    /// even one that holds the delimiter. Only as the sole input.
    Words(Vec<Vec<u8>>),
    /// The numbers from `lo` to `hi` in decimal, each one record (none
    /// when `hi < lo`; the command line's `-i LO-HI`). Only as the sole
    /// input.
    Range {
        /// The first number.
        lo: u64,
        /// The last number.
        hi: u64,
    },
}

impl Input {
    /// A file, or standard input for the name `-` (as the command line
    /// names its inputs).
    pub fn from_name(name: impl AsRef<OsStr>) -> Input {
        let name = name.as_ref();
        if name == "-" {
            Input::Stdin
        } else {
            Input::Path(PathBuf::from(name))
        }
    }

    /// Opens the input.
    pub fn open(self) -> Result<Opened, Error> {
        match self {
            Input::Stdin => {
                enlarge_pipe(0);
                // SAFETY: fd 0 is standard input; ManuallyDrop never closes it.
                Ok(Opened::Stdin(ManuallyDrop::new(unsafe {
                    File::from_raw_fd(0)
                })))
            }
            Input::Path(path) => Opened::open(path.as_os_str()),
            Input::Reader(reader) => Ok(Opened::Reader(reader)),
            Input::Words(_) | Input::Range { .. } => Err(Error::MixedInputs),
        }
    }
}

impl Input {
    /// Checks that the input opens (reporting `Error::File` now, in the
    /// order of the inputs, as GNU reports a missing FILE before anything
    /// else), and leaves a regular file to be opened when its turn comes.
    /// Anything else (a FIFO, a device, `/dev/fd/N`) stays open from now
    /// on: opening and closing a FIFO would end its writer's stream.
    pub fn open_later(self) -> Result<Opened, Error> {
        match self {
            Input::Path(path) => {
                let opened = Opened::open(path.as_os_str())?;
                let regular = opened
                    .file()
                    .and_then(|file| file.metadata().ok())
                    .is_some_and(|meta| meta.is_file());
                match opened {
                    _ if regular => Ok(Opened::Later(path)),
                    // A directory, a FIFO, a device: its read errors name it
                    // (one of several inputs).
                    Opened::File(file) => Ok(Opened::Named(file, path)),
                    other => Ok(other),
                }
            }
            other => other.open(),
        }
    }
}

impl From<PathBuf> for Input {
    fn from(path: PathBuf) -> Input {
        Input::Path(path)
    }
}

impl From<&Path> for Input {
    fn from(path: &Path) -> Input {
        Input::Path(path.to_path_buf())
    }
}

impl From<&str> for Input {
    fn from(path: &str) -> Input {
        Input::Path(PathBuf::from(path))
    }
}

/// Asks for a 1 MiB buffer when `fd` is a pipe (Linux's
/// `F_SETPIPE_SZ`; the default is 64 KiB): the writer then fills, and the
/// reader drains, 16 times as much per wake-up. Only a hint: refused (an
/// unprivileged user above `/proc/sys/fs/pipe-max-size`) or not a pipe,
/// nothing changes.
fn enlarge_pipe(fd: i32) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: fstat and fcntl on a descriptor number; they only fail.
        unsafe {
            let mut stat: libc::stat = std::mem::zeroed();
            if libc::fstat(fd, &mut stat) == 0 && stat.st_mode & libc::S_IFMT == libc::S_IFIFO {
                libc::fcntl(fd, libc::F_SETPIPE_SZ, 1 << 20);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

/// An opened input: standard input (never closed by us), a file, or a
/// caller's reader.
pub enum Opened {
    /// Standard input (descriptor 0, never closed here).
    Stdin(ManuallyDrop<File>),
    /// A file opened by name.
    File(File),
    /// A file opened by name, one of several inputs: its read errors name
    /// it (`read error: NAME: Is a directory`). A single input's do not, as
    /// GNU shuf's do not.
    Named(File, PathBuf),
    /// A caller's reader.
    Reader(Box<dyn Read + Send>),
    /// A file checked to open, opened again on its first read and closed
    /// when it has been read (dropped): several FILEs are never all open at
    /// once, whatever their number.
    Later(PathBuf),
}

impl Opened {
    /// Opens FILE, or standard input for `-` (`Error::File` on failure).
    pub fn open(name: &OsStr) -> Result<Opened, Error> {
        if name == "-" {
            Input::Stdin.open()
        } else {
            File::open(name)
                .map(|file| {
                    use std::os::fd::AsRawFd;
                    enlarge_pipe(file.as_raw_fd()); // a FIFO named as FILE
                    Opened::File(file)
                })
                .map_err(|error| Error::File {
                    name: name.to_os_string(),
                    error,
                })
        }
    }

    /// The underlying file (none for a caller's reader).
    pub fn file(&self) -> Option<&File> {
        match self {
            Opened::Stdin(f) => Some(f),
            Opened::File(f) | Opened::Named(f, _) => Some(f),
            Opened::Reader(_) | Opened::Later(_) => None,
        }
    }

    /// The number of bytes left to read when this is a regular file
    /// (GNU's `input_size`), or `None` for pipes, terminals and the like.
    pub fn remaining_regular_size(&self) -> Option<u64> {
        if let Opened::Later(path) = self {
            let meta = std::fs::metadata(path).ok()?;
            return meta.is_file().then_some(meta.len());
        }
        let file = self.file()?;
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
            Opened::Named(f, path) => f.read(buf).map_err(|e| naming(path, &e)),
            Opened::Reader(r) => r.read(buf),
            Opened::Later(path) => {
                let file = File::open(&*path).map_err(|e| naming(path, &e))?;
                *self = Opened::Named(file, std::mem::take(path));
                self.read(buf)
            }
        }
    }
}

/// `error`, its text preceded by the name of the file it happened to.
/// Interrupted reads keep their kind and text, so that they are retried.
fn naming(path: &Path, error: &io::Error) -> io::Error {
    if error.kind() == io::ErrorKind::Interrupted {
        return io::Error::from(io::ErrorKind::Interrupted);
    }
    io::Error::new(
        error.kind(),
        format!("{}: {}", path.display(), knuffle_io::describe(error)),
    )
}

impl Opened {
    /// A file for positioned reads: the open one, or the file of a
    /// [`Opened::Later`] opened for the caller (closed when dropped).
    pub fn file_for_reading(&self) -> io::Result<Option<FileRef<'_>>> {
        Ok(match self {
            Opened::Later(path) => Some(FileRef::Owned(File::open(path)?)),
            other => other.file().map(FileRef::Borrowed),
        })
    }
}

/// A file borrowed from an [`Opened`], or opened for a moment.
pub enum FileRef<'a> {
    /// The input's open file.
    Borrowed(&'a File),
    /// A file opened for the caller, closed when dropped.
    Owned(File),
}

impl std::ops::Deref for FileRef<'_> {
    type Target = File;
    fn deref(&self) -> &File {
        match self {
            FileRef::Borrowed(file) => file,
            FileRef::Owned(file) => file,
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
#[cfg(test)]
pub fn open_all(files: &[std::ffi::OsString]) -> Result<Vec<Opened>, Error> {
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

/// One regular, non-empty input: the file, where reading starts, and how
/// many bytes remain (for [`read_indexed`]).
pub fn single_regular(opened: &[Opened]) -> Option<(&File, u64, u64)> {
    match opened {
        [single] => {
            let remaining = single.remaining_regular_size().filter(|&r| r > 0)?;
            let file = single.file()?;
            Some((file, current_offset(file)?, remaining))
        }
        _ => None,
    }
}

/// Reads every input into one buffer; every input but the last gets a
/// delimiter appended when it lacks one (the last one's missing delimiter
/// is added on output). The buffer grows geometrically but, once past
/// `limit` bytes, only by what the input brings (an input near the memory
/// the process may have must not double past it); an allocation that fails
/// is [`Error::OutOfMemory`], never an abort.
pub fn load(
    opened: Vec<Opened>,
    delimiter: u8,
    limit: u64,
    progress: &dyn Progress,
) -> Result<Bytes, Error> {
    let most = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut buffer: Vec<u8> = Vec::new();
    let count = opened.len();
    for (i, mut input) in opened.into_iter().enumerate() {
        if let Some(size) = input.remaining_regular_size() {
            let size = usize::try_from(size).map_err(|_| Error::OutOfMemory)?;
            buffer
                .try_reserve(size.saturating_add(1))
                .map_err(|_| Error::OutOfMemory)?;
        }
        let before = buffer.len();
        read_all(&mut input, &mut buffer, most, progress)?;
        if i + 1 < count && buffer.len() > before && buffer.last() != Some(&delimiter) {
            grow_within(&mut buffer, 1, most)?;
            buffer.push(delimiter);
        }
    }
    Ok(Bytes::Owned(buffer))
}

/// Reads `len` bytes of `file` from `offset` into anonymous memory backed
/// by transparent huge pages (2 MiB pages: the random reads of the output
/// phase then miss the TLB far less often than on a 4 KiB-page file map),
/// and indexes the line starts of each 1 MiB piece right after reading it,
/// while it is still in cache. Both cores work (positioned reads of
/// disjoint pieces). The copy is private, so nothing can truncate it under
/// us, and `-o FILE` may name the input file.
///
/// Returns `Ok(None)` when the file ends before `len` bytes (files whose
/// reported size is not their content, like those under `/sys`, or a file
/// truncated meanwhile): the caller then reads it with plain reads.
pub fn read_indexed<O: Offset>(
    file: &File,
    offset: u64,
    len: usize,
    delimiter: u8,
    progress: &dyn Progress,
) -> Result<Option<(Bytes, Vec<O>)>, Error> {
    use rayon::prelude::*;
    use std::os::unix::fs::FileExt;
    let mut map = MmapOptions::new()
        .len(len)
        .map_anon()
        .map_err(|_| Error::OutOfMemory)?;
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    let pieces: Vec<Result<Vec<O>, io::Error>> = map
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(i, piece)| {
            let base = i * CHUNK;
            let mut done = 0;
            while done < piece.len() {
                match file.read_at(&mut piece[done..], offset + (base + done) as u64) {
                    Ok(0) => return Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
                    Ok(n) => done += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            progress.read(piece.len() as u64);
            let mut starts = Vec::with_capacity(piece.len() / 32);
            push_starts(piece, base, len, delimiter, &mut starts);
            Ok(starts)
        })
        .collect();
    let mut indexed = Vec::with_capacity(pieces.len());
    for piece in pieces {
        match piece {
            Ok(starts) => indexed.push(starts),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(Error::Read(e)),
        }
    }
    let starts = concatenate(indexed)?;
    let map = map.make_read_only().map_err(Error::Read)?;
    Ok(Some((Bytes::Mapped(map), starts)))
}

/// Maps `len` bytes of `file` from `offset` (a multiple of the page size)
/// straight from the page cache, with the page tables filled at once, and
/// indexes the line starts of each 1 MiB piece on all cores: no copy, and
/// no fresh memory for the kernel to clear (which costs more than the
/// copy on a machine whose memory was never touched). Returns `Ok(None)`
/// when the offset is not page-aligned or the map fails (the caller then
/// reads a private copy).
///
/// Only for callers that handle `SIGBUS` (see
/// [`Options::map_input`](crate::Options::map_input)): a file that shrinks
/// while mapped raises it on the next read of a page past its new end,
/// while the rest of its last page reads as zeros; check [`still_holds`]
/// before the output is completed. The map's range is published for the
/// handler ([`in_mapped_input`]) until a [`MappedInput`] guard drops.
pub fn map_indexed<O: Offset>(
    file: &File,
    offset: u64,
    len: usize,
    delimiter: u8,
    progress: &dyn Progress,
) -> Result<Option<(Bytes, Vec<O>)>, Error> {
    use rayon::prelude::*;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if page <= 0 || !offset.is_multiple_of(page as u64) {
        return Ok(None);
    }
    // SAFETY: the map is read-only; what another process may still do to
    // the file (shrink it: SIGBUS, handled by the caller, see above;
    // rewrite it: other bytes are read) is the documented price of
    // `map_input`.
    let Ok(map) = (unsafe {
        MmapOptions::new()
            .offset(offset)
            .len(len)
            .populate()
            .map(file)
    }) else {
        return Ok(None);
    };
    publish_mapped(map.as_ptr() as usize, map.len());
    let pieces: Vec<Vec<O>> = map
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(i, piece)| {
            let mut starts = Vec::with_capacity(piece.len() / 32);
            push_starts(piece, i * CHUNK, len, delimiter, &mut starts);
            progress.read(piece.len() as u64);
            starts
        })
        .collect();
    let starts = concatenate(pieces)?;
    Ok(Some((Bytes::Mapped(map), starts)))
}

/// Where the input that [`map_indexed`] mapped lies in memory (start, end;
/// `0, 0` for none), for a `SIGBUS` handler to tell a fault in it from any
/// other: it reads two atomics, which is async-signal-safe.
static MAPPED: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];

fn publish_mapped(start: usize, len: usize) {
    MAPPED[0].store(start, Ordering::SeqCst);
    MAPPED[1].store(start + len, Ordering::SeqCst);
}

/// Whether `address` lies in the input file that a shuffle with
/// [`Options::map_input`](crate::Options::map_input) has mapped, while it
/// is mapped: for a `SIGBUS` handler to tell a fault in it from any other.
/// Async-signal-safe.
pub fn in_mapped_input(address: usize) -> bool {
    let start = MAPPED[0].load(Ordering::SeqCst);
    let end = MAPPED[1].load(Ordering::SeqCst);
    (start..end).contains(&address)
}

/// Forgets the range of the mapped input when dropped: create it before
/// calling [`map_indexed`] and drop it after the map.
pub struct MappedInput;

impl Drop for MappedInput {
    fn drop(&mut self) {
        publish_mapped(0, 0);
    }
}

/// Whether `file` still holds the `len` bytes from `offset` that were
/// mapped: [`Error::InputShrank`] if it has shrunk below them since.
/// A shrink that the map's reads crossed into a page past the new end
/// raised `SIGBUS`; one that they only crossed within the last page read
/// zeros, which only this check reveals.
pub fn still_holds(file: &File, offset: u64, len: usize) -> Result<(), Error> {
    let size = file.metadata().map_err(Error::Read)?.len();
    if size < offset.saturating_add(len as u64) {
        return Err(Error::InputShrank);
    }
    Ok(())
}

/// The pieces' line starts, in order, in one vector (`Error::OutOfMemory`
/// when it cannot be allocated).
fn concatenate<O: Offset>(pieces: Vec<Vec<O>>) -> Result<Vec<O>, Error> {
    let total = pieces.iter().map(Vec::len).sum();
    let mut starts: Vec<O> = Vec::new();
    starts
        .try_reserve_exact(total)
        .map_err(|_| Error::OutOfMemory)?;
    for piece in pieces {
        starts.extend_from_slice(&piece);
    }
    Ok(starts)
}

/// `read_to_end` with GNU's `read error: strerror`; an allocation failure
/// is reported as "memory exhausted" instead of aborting, and the buffer
/// grows as [`load`] says (`most`: the limit of geometric growth).
/// Reads in pieces of [`CHUNK`] bytes, each reported to `progress`.
fn read_all(
    input: &mut Opened,
    buffer: &mut Vec<u8>,
    most: usize,
    progress: &dyn Progress,
) -> Result<(), Error> {
    loop {
        grow_within(buffer, CHUNK, most)?;
        match input.by_ref().take(CHUNK as u64).read_to_end(buffer) {
            Ok(0) => return Ok(()),
            Ok(read) => progress.read(read as u64),
            Err(e) if e.kind() == io::ErrorKind::OutOfMemory => return Err(Error::OutOfMemory),
            Err(e) => return Err(Error::Read(e)),
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_gets_a_one_mebibyte_buffer_and_a_file_is_left_alone() {
        let mut fds = [0; 2];
        // SAFETY: pipe(2) fills the two descriptors, closed below.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: F_GETPIPE_SZ on the pipe just made.
        let size = |fd| unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) };
        assert_eq!(size(fds[0]), 64 << 10, "Linux's default");
        enlarge_pipe(fds[0]);
        assert_eq!(size(fds[0]), 1 << 20);
        // SAFETY: closing the two descriptors made above.
        unsafe {
            libc::close(fds[0]);
            libc::close(fds[1]);
        }
        let file = tempfile::tempfile().unwrap();
        use std::os::fd::AsRawFd;
        enlarge_pipe(file.as_raw_fd()); // not a pipe: nothing happens
        assert_eq!(size(file.as_raw_fd()), -1);
    }
}
