//! Files knuffle writes, all by one rule (ARCHITECTURE.md, "Files knuffle
//! writes"): shuf mode's `-o FILE`, `draw`/`deal` transcripts, `deal
//! --commit` secrets, the lab's report files.
//!
//! What happens depends on what the name is when the write starts:
//!
//! - **a regular file** (ours, with no other hard link): the new content
//!   goes to a temporary file in the same directory, which is renamed over
//!   the file only once everything was written, with the file's
//!   permissions. A failing write leaves the file as it was and leaves no
//!   temporary file behind (where the file system supports it the
//!   temporary file has no name until the end, so even SIGKILL leaves
//!   nothing).
//! - **a symbolic link**: its target is what gets written, by this same
//!   rule; the link stays a link. A dangling link creates its target.
//! - **a device, a FIFO, a socket**, or **a regular file a rename would
//!   change** (one with other hard links, one owned by someone else, one
//!   in a directory we cannot create files in): opened and written in
//!   place, never renamed over (a rename would put a new regular file
//!   where `/dev/full` or the FIFO was, or split the hard links).
//! - **nothing**: created, the same way as a replaced file (permissions
//!   `0666` less the umask, or those the caller asks for). A missing
//!   directory is an error that names the directory; no directory is ever
//!   created.
//!
//! Errors name the file as the caller gave it, never a temporary name.
//! [`Replacement`] is the decision and the temporary file, shared with
//! knuffle-records' output (`-o`, which keeps GNU's in-place opening
//! for whatever is not replaced and GNU's wording for a missing
//! directory); [`WrittenFile`] and [`write_file`] are the rule for
//! everything else.

use std::ffi::{CString, OsStr, OsString};
use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Seek, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::error::FileError;

/// Symbolic links followed before giving up with `ELOOP` (Linux's limit).
const MAX_LINKS: u32 = 40;

/// Writes `bytes` to `path` by the module's rule: a regular file (or a
/// symlink's target) is replaced atomically, keeping its permissions; a
/// device or FIFO is written in place; a missing directory is an error
/// naming it. The new file is on disk (`fsync`) before it replaces the
/// old one.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("transcript.json");
/// knuffle_io::write_file(&path, b"{}\n")?;
/// assert_eq!(std::fs::read(&path)?, b"{}\n");
/// let missing = dir.path().join("nodir/x.json");
/// let error = knuffle_io::write_file(&missing, b"{}\n").unwrap_err();
/// assert!(error.to_string().ends_with("nodir does not exist"), "{error}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let mut file = WrittenFile::create(path)?;
    file.write_all_durably(bytes)?;
    file.finish()
}

/// Writes `bytes` to `path`, which must not be an existing regular file
/// (through a symlink either): a new file gets permissions `mode` exactly
/// (no umask) and is linked in under its name only once written and on
/// disk, never replacing a file that appeared meanwhile. A device or FIFO
/// is written in place. An existing regular file is the error `File`
/// with kind [`io::ErrorKind::AlreadyExists`] (`deal --commit` never
/// overwrites a secret).
pub fn write_new_file(path: &Path, bytes: &[u8], mode: u32) -> Result<(), FileError> {
    let fail = |error| file_error(path, error);
    let sink = match examine(path).map_err(|e| fail(directory_error(path, e)))? {
        Found::Replaceable { .. } | Found::InPlace { regular: true } => {
            return Err(fail(io::Error::from_raw_os_error(libc::EEXIST)));
        }
        Found::InPlace { regular: false } => Sink::InPlace(open_in_place(path)?),
        Found::Absent { dest } => {
            check_directory(&dest).map_err(fail)?;
            match Replacement::in_directory_of(dest.clone(), mode) {
                Some(temp) => Sink::Create(temp),
                None => Sink::InPlace(
                    OpenOptions::new()
                        .write(true)
                        .create_new(true)
                        .mode(mode)
                        .open(&dest)
                        .map_err(fail)?,
                ),
            }
        }
    };
    let mut file = WrittenFile {
        sink,
        name: path.as_os_str().to_owned(),
    };
    file.write_all_durably(bytes)?;
    file.finish()
}

/// Checks, without creating, truncating or blocking on anything, that
/// `path` could be written by [`write_file`]: its directory exists (the
/// error names it) and a file could be opened or created there.
pub fn check_writable(path: &Path) -> Result<(), FileError> {
    let fail = |error| file_error(path, error);
    if let Found::Absent { dest } = examine(path).map_err(|e| fail(directory_error(path, e)))? {
        check_directory(&dest).map_err(fail)?;
    }
    probe(path).map_err(fail)
}

/// A file being written by the module's rule: write to it, then
/// [`finish`](WrittenFile::finish). Dropped unfinished, it leaves a
/// replaced file as it was and no temporary file.
pub struct WrittenFile {
    sink: Sink,
    /// The name as the caller gave it (for errors).
    name: OsString,
}

enum Sink {
    /// The file itself, written in place from its start.
    InPlace(File),
    /// A temporary file renamed over the destination at the end.
    Replace(Replacement),
    /// A temporary file linked in at the end, only if the name is free.
    Create(Replacement),
}

impl WrittenFile {
    /// Opens `path` for writing by the module's rule (a FIFO blocks until
    /// it has a reader). Errors are [`FileError`]s naming `path`; a
    /// missing directory is named in the error.
    pub fn create(path: &Path) -> Result<WrittenFile, FileError> {
        let fail = |error| file_error(path, error);
        let replacement = match examine(path).map_err(|e| fail(directory_error(path, e)))? {
            Found::Replaceable { dest, mode } => Replacement::in_directory_of(dest, mode),
            Found::Absent { dest } => {
                check_directory(&dest).map_err(fail)?;
                Replacement::in_directory_of(dest, new_file_mode())
            }
            Found::InPlace { .. } => None,
        };
        let sink = match replacement {
            Some(temp) => Sink::Replace(temp),
            None => Sink::InPlace(open_in_place(path)?),
        };
        Ok(WrittenFile {
            sink,
            name: path.as_os_str().to_owned(),
        })
    }

    /// The file being written.
    fn file(&mut self) -> &mut File {
        match &mut self.sink {
            Sink::InPlace(file) => file,
            Sink::Replace(temp) | Sink::Create(temp) => temp.file(),
        }
    }

    /// Reserves `len` bytes (`posix_fallocate`) when writing a regular
    /// file, so that a full disk fails before the first byte is written,
    /// writes `bytes`, and flushes a temporary file to disk.
    fn write_all_durably(&mut self, bytes: &[u8]) -> Result<(), FileError> {
        let name = self.name.clone();
        let fail = |error| file_error(Path::new(&name), error);
        let replacing = !matches!(self.sink, Sink::InPlace(_));
        let file = self.file();
        let regular = file.metadata().map_err(fail)?.is_file();
        if regular && !bytes.is_empty() {
            let len = libc::off_t::try_from(bytes.len())
                .map_err(|_| fail(io::Error::from_raw_os_error(libc::EFBIG)))?;
            // SAFETY: a valid open descriptor; posix_fallocate only extends
            // the file's allocation, it changes no byte of its content.
            let status = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) };
            // Only a lack of space stops the write; a file system without
            // the call (EOPNOTSUPP, EINVAL) is written all the same.
            if status == libc::ENOSPC || status == libc::EFBIG || status == libc::EDQUOT {
                return Err(fail(io::Error::from_raw_os_error(status)));
            }
        }
        file.write_all(bytes).map_err(fail)?;
        if replacing {
            file.sync_all().map_err(fail)?;
        }
        Ok(())
    }

    /// Completes the write: a temporary file replaces (or, for
    /// [`write_new_file`], becomes) the destination; a regular file
    /// written in place is cut to what was written.
    pub fn finish(mut self) -> Result<(), FileError> {
        let name = std::mem::take(&mut self.name);
        let fail = |error| file_error(Path::new(&name), error);
        match self.sink {
            Sink::InPlace(mut file) => {
                if file.metadata().map_err(fail)?.is_file() {
                    let end = file.stream_position().map_err(fail)?;
                    file.set_len(end).map_err(fail)?;
                }
                Ok(())
            }
            Sink::Replace(temp) => temp.commit().map_err(fail),
            Sink::Create(temp) => temp.commit_new().map_err(fail),
        }
    }
}

impl Write for WrittenFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

/// What a name is, decided before anything is opened.
enum Found {
    /// A regular file of ours with one link: replaced by rename at `dest`
    /// (the name with every symlink resolved), keeping `mode`.
    Replaceable { dest: PathBuf, mode: u32 },
    /// Nothing (a dangling symlink's target included): created at `dest`.
    Absent { dest: PathBuf },
    /// Anything else: written in place.
    InPlace { regular: bool },
}

/// What `path` is.
fn examine(path: &Path) -> io::Result<Found> {
    let dest = resolve(path)?;
    match fs::symlink_metadata(&dest) {
        Ok(meta) => {
            // SAFETY: geteuid has no preconditions.
            let euid = unsafe { libc::geteuid() };
            if meta.is_file() && meta.nlink() == 1 && meta.uid() == euid {
                Ok(Found::Replaceable {
                    dest,
                    mode: meta.permissions().mode() & 0o7777,
                })
            } else {
                Ok(Found::InPlace {
                    regular: meta.is_file(),
                })
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Found::Absent { dest }),
        Err(e) => Err(e),
    }
}

/// `path` with its symlinks followed to the name that is not one (which
/// need not exist: a dangling link's target).
fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::from_raw_os_error(libc::ELOOP))
}

/// The directory a file `dest` is in (`.` for a bare name).
fn directory_of(dest: &Path) -> &Path {
    match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Checks that the directory of the file-to-be `dest` exists: the error
/// names the directory.
fn check_directory(dest: &Path) -> io::Result<()> {
    let dir = directory_of(dest);
    let missing = || {
        io::Error::new(
            io::ErrorKind::NotFound,
            format!("directory {} does not exist", dir.display()),
        )
    };
    match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(io::Error::new(
            io::ErrorKind::NotADirectory,
            format!("{} is not a directory", dir.display()),
        )),
        Err(e)
            if e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR) =>
        {
            Err(missing())
        }
        Err(e) => Err(e),
    }
}

/// An error examining `path`: one of its directories not being a directory
/// is worded by [`check_directory`]; others are the system's.
fn directory_error(path: &Path, error: io::Error) -> io::Error {
    if error.raw_os_error() == Some(libc::ENOTDIR) {
        check_directory(path).err().unwrap_or(error)
    } else {
        error
    }
}

/// Opens `path` itself for writing, without truncating (a regular file is
/// cut to length by [`WrittenFile::finish`]); creates it if absent.
fn open_in_place(path: &Path) -> Result<File, FileError> {
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|error| file_error(path, error))
}

/// `0666` less the process's umask: a new file's permissions.
fn new_file_mode() -> u32 {
    // SAFETY: umask is async-signal-safe; the old mask is restored at once.
    let mask = unsafe {
        let old = libc::umask(0o022);
        libc::umask(old);
        old
    };
    0o666 & !(mask as u32)
}

/// Reports the error opening `path` for writing would report, without
/// creating, truncating or blocking on anything: an existing regular file
/// (or directory: `EISDIR`) is opened without truncation and closed; a
/// FIFO, device or socket is not opened at all (a FIFO's reader would see
/// the end of its data, a device could act on the open) but asked about
/// (`access`); a missing file needs a directory that takes new files.
pub fn probe(path: &Path) -> io::Result<()> {
    if let Ok(meta) = fs::metadata(path)
        && !meta.is_file()
        && !meta.is_dir()
    {
        return access(path, libc::W_OK);
    }
    let opened = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path);
    match opened {
        Ok(_) => Ok(()),
        // A FIFO without a reader: a writer would wait for one.
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let parent = directory_of(path);
            if !parent.is_dir() {
                return Err(e);
            }
            access(parent, libc::W_OK | libc::X_OK)
        }
        Err(e) => Err(e),
    }
}

/// `access(path, mode)`: whether this process may use `path` so.
fn access(path: &Path, mode: libc::c_int) -> io::Result<()> {
    let c_path = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: a valid NUL-terminated path; access has no other preconditions.
    if unsafe { libc::access(c_path.as_ptr(), mode) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The temporary file that replaces (or becomes) a destination: nameless
/// (`O_TMPFILE`) where the file system allows, else named `.knuffle-*`,
/// always in the destination's directory (a rename never crosses file
/// systems).
pub struct Replacement {
    temp: Temp,
    dest: PathBuf,
}

enum Temp {
    /// Nameless; linked in under a name only at the end.
    Unnamed { file: File, dir: PathBuf },
    /// Named `.knuffle-*`; removed if dropped.
    Named(tempfile::NamedTempFile),
}

impl Replacement {
    /// A temporary file for `path` when replacing `path` by rename keeps
    /// what it is (a regular file of ours with one link, or nothing, or a
    /// symlink to either); `None`: write `path` in place.
    pub fn for_path(path: &Path) -> Option<Replacement> {
        match examine(path).ok()? {
            Found::Replaceable { dest, mode } => Replacement::in_directory_of(dest, mode),
            Found::Absent { dest } => Replacement::in_directory_of(dest, new_file_mode()),
            Found::InPlace { .. } => None,
        }
    }

    /// A temporary file with permissions `mode` in `dest`'s directory;
    /// `None` when none can be made there.
    fn in_directory_of(dest: PathBuf, mode: u32) -> Option<Replacement> {
        let dir = directory_of(&dest).to_path_buf();
        if let Some(file) = unnamed_file_in(&dir, mode) {
            return Some(Replacement {
                temp: Temp::Unnamed { file, dir },
                dest,
            });
        }
        let temp = tempfile::Builder::new()
            .prefix(".knuffle-")
            .tempfile_in(&dir)
            .ok()?;
        temp.as_file()
            .set_permissions(Permissions::from_mode(mode))
            .ok()?;
        Some(Replacement {
            temp: Temp::Named(temp),
            dest,
        })
    }

    /// The temporary file.
    pub fn file(&mut self) -> &mut File {
        match &mut self.temp {
            Temp::Unnamed { file, .. } => file,
            Temp::Named(temp) => temp.as_file_mut(),
        }
    }

    /// Renames the temporary file over the destination.
    pub fn commit(self) -> io::Result<()> {
        match self.temp {
            Temp::Unnamed { file, dir } => link_over(&file, &dir, &self.dest),
            Temp::Named(temp) => temp.persist(&self.dest).map(drop).map_err(|e| e.error),
        }
    }

    /// Links the temporary file in under the destination's name, which
    /// must still be free (`EEXIST` otherwise).
    fn commit_new(self) -> io::Result<()> {
        match self.temp {
            Temp::Unnamed { file, .. } => link_unnamed(&file, &self.dest),
            Temp::Named(temp) => temp
                .persist_noclobber(&self.dest)
                .map(drop)
                .map_err(|e| e.error),
        }
    }
}

/// A new file written before it has a name: nameless (`O_TMPFILE`) where
/// the file system allows, else named `.knuffle-*` and removed if dropped,
/// in a directory given at creation; [`NewFile::link_as`] names it at the
/// end. For outputs made of several files (the shards of `knuffle table`),
/// which must all appear only once all are complete.
pub struct NewFile {
    replacement: Replacement,
}

impl NewFile {
    /// A new file in `dir` (permissions `0666` less the umask).
    pub fn in_directory(dir: &Path) -> Result<NewFile, FileError> {
        let placeholder = dir.join(".knuffle-new");
        Replacement::in_directory_of(placeholder, new_file_mode())
            .map(|replacement| NewFile { replacement })
            .ok_or_else(|| {
                file_error(
                    dir,
                    io::Error::other("cannot create a temporary file in this directory"),
                )
            })
    }

    /// The file, to write.
    pub fn file(&mut self) -> &mut File {
        self.replacement.file()
    }

    /// Names the file `path`, in the directory given at creation (or
    /// another directory of the same file system); `path` must be free.
    pub fn link_as(mut self, path: &Path) -> Result<(), FileError> {
        self.replacement.dest = path.to_path_buf();
        self.replacement
            .commit_new()
            .map_err(|error| file_error(path, error))
    }
}

impl Write for NewFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

/// A nameless file (`O_TMPFILE`) in `dir` with permissions `mode`, when
/// the file system supports it and `/proc/self/fd` can name it later.
fn unnamed_file_in(dir: &Path, mode: u32) -> Option<File> {
    if !Path::new("/proc/self/fd").is_dir() {
        return None;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .mode(0o600)
        .open(dir)
        .ok()?;
    file.set_permissions(Permissions::from_mode(mode)).ok()?;
    Some(file)
}

/// Gives the nameless `temp` the name `link` (`linkat` through
/// `/proc/self/fd`); `EEXIST` when the name is taken.
fn link_unnamed(temp: &File, link: &Path) -> io::Result<()> {
    let source = CString::new(format!("/proc/self/fd/{}", temp.as_raw_fd()))?;
    let target = CString::new(link.as_os_str().as_bytes())?;
    // SAFETY: both paths are valid NUL-terminated strings.
    let linked = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            source.as_ptr(),
            libc::AT_FDCWD,
            target.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if linked != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Gives the nameless `temp` a temporary name in `dir`, then renames it
/// over `dest` (the temporary name is removed if the rename fails).
fn link_over(temp: &File, dir: &Path, dest: &Path) -> io::Result<()> {
    for attempt in 0u32..1000 {
        let link = dir.join(format!(".knuffle-{}-{attempt}", std::process::id()));
        match link_unnamed(temp, &link) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
            Ok(()) => {}
        }
        return fs::rename(&link, dest).inspect_err(|_| {
            let _ = fs::remove_file(&link);
        });
    }
    Err(io::Error::from(io::ErrorKind::AlreadyExists))
}

/// The error for file `path`.
fn file_error(path: &Path, error: io::Error) -> FileError {
    FileError {
        name: OsStr::to_owned(path.as_os_str()),
        error,
    }
}

#[cfg(test)]
mod tests;
