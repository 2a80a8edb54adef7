//! Output: where it goes (standard output, any writer, or `-o FILE`,
//! opened only after all input is read and the permutation is chosen) and
//! how it is written (large blocks rendered in parallel while the previous
//! ones are being written).
//!
//! `-o FILE` safety: GNU reopens FILE for writing after reading its input,
//! so `shuf -o F F` works, but a run that fails while writing (disk full,
//! random source exhausted under `-r`) leaves F truncated. knuffle writes a
//! regular FILE to a temporary file in the same directory and renames it
//! over FILE only when everything was written, with FILE's permissions, so
//! a failing run leaves FILE untouched. Where a rename would change what
//! FILE is (a device or FIFO, a file with other hard links, a file owned by
//! someone else, a directory we cannot write to) or could never complete
//! (`-r` without `-n`), FILE is opened and truncated in place, as GNU does.
//! The decision and the temporary file are [`written_file`]'s, the one
//! rule for every file knuffle writes (a symlink's target is replaced, the
//! link stays).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::{Condvar, Mutex};

use crate::allocate_ahead::AllocateAhead;
use crate::error::Error;
use crate::progress::Progress;
use knuffle_io::Replacement;

/// An opened output.
pub struct Output<'a> {
    sink: Sink<'a>,
    /// Told how many bytes are written through [`Output::writer`].
    progress: Option<&'a dyn Progress>,
}

enum Sink<'a> {
    Stdout(ManuallyDrop<File>),
    Borrowed(&'a mut dyn Write),
    Direct(File),
    /// A temporary file in FILE's directory, renamed over FILE at the end
    /// (nameless until then where the file system allows: a run killed by
    /// any signal, even SIGKILL, leaves nothing behind).
    Replace {
        temp: ReplacementWriter,
        name: Box<OsStr>,
    },
}

/// The temporary file of [`Sink::Replace`], its space allocated ahead of
/// the writes, so that renaming it over FILE does not start FILE's
/// writeback (see [`allocate_ahead`](crate::allocate_ahead)).
struct ReplacementWriter {
    temp: Replacement,
    ahead: AllocateAhead,
}

impl Write for ReplacementWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.ahead.write(self.temp.file(), buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.temp.file().flush()
    }
}

/// Where the output will be written, decided before anything is opened:
/// standard output, a writer of the caller's, or a file (`-o FILE`).
pub struct OutputPlan<'a> {
    path: Option<&'a OsStr>,
    writer: std::cell::RefCell<Option<&'a mut dyn Write>>,
    endless: bool,
    progress: Option<&'a dyn Progress>,
}

impl<'a> OutputPlan<'a> {
    /// Standard output, or `path`; `endless` when the run never finishes
    /// (`-r` without `-n`).
    pub fn new(path: Option<&'a OsStr>, endless: bool) -> Self {
        OutputPlan {
            path,
            writer: std::cell::RefCell::new(None),
            endless,
            progress: None,
        }
    }

    /// Reports the bytes written to `progress`.
    pub fn reporting_to(mut self, progress: &'a dyn Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// A writer of the caller's (written through, flushed at the end).
    pub fn writer(writer: &'a mut dyn Write) -> Self {
        OutputPlan {
            path: None,
            writer: std::cell::RefCell::new(Some(writer)),
            endless: false,
            progress: None,
        }
    }

    /// Opens the output (`Error::File` on failure). A caller's writer can
    /// be opened once.
    pub fn open(&self) -> Result<Output<'a>, Error> {
        if let Some(writer) = self.writer.borrow_mut().take() {
            return Ok(Output {
                sink: Sink::Borrowed(writer),
                progress: self.progress,
            });
        }
        let Some(name) = self.path else {
            // SAFETY: fd 1 is standard output; ManuallyDrop never closes it.
            let stdout = ManuallyDrop::new(unsafe { File::from_raw_fd(1) });
            return Ok(Output {
                sink: Sink::Stdout(stdout),
                progress: self.progress,
            });
        };
        if !self.endless
            && let Some(temp) = Replacement::for_path(Path::new(name))
        {
            return Ok(Output {
                sink: Sink::Replace {
                    temp: ReplacementWriter {
                        temp,
                        ahead: AllocateAhead::new(),
                    },
                    name: name.into(),
                },
                progress: self.progress,
            });
        }
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(name)
            .map_err(|error| Error::File {
                name: name.to_os_string(),
                error,
            })?;
        Ok(Output {
            sink: Sink::Direct(file),
            progress: self.progress,
        })
    }
}

impl OutputPlan<'_> {
    /// Whether writing the output could change `file` (an input): `-o`
    /// names the same file, or standard output is it (`1<> FILE`). A
    /// caller's writer could be anything, that file included: it counts as
    /// could.
    pub fn could_overwrite(&self, file: &File) -> bool {
        use std::os::fd::AsFd;
        let Ok(input) = file.metadata() else {
            return true;
        };
        let same = |meta: fs::Metadata| meta.dev() == input.dev() && meta.ino() == input.ino();
        if self.writer.borrow().is_some() {
            return true;
        }
        match self.path {
            Some(name) => fs::metadata(name).is_ok_and(same),
            None => std::io::stdout()
                .as_fd()
                .try_clone_to_owned()
                .map(File::from)
                .and_then(|out| out.metadata())
                .is_ok_and(same),
        }
    }
}

impl OutputPlan<'_> {
    /// Reports the error opening the output would report, without
    /// creating, truncating or blocking on anything: for the failures GNU
    /// reports after opening its output (`-r -o DIR` with no lines says
    /// `DIR: Is a directory`, not `no lines to repeat`), while a failing
    /// run still leaves FILE as it was.
    pub fn probe(&self) -> Result<(), Error> {
        match self.path {
            Some(name) => knuffle_io::probe(Path::new(name)).map_err(|e| file_error(name, e)),
            None => Ok(()),
        }
    }
}

impl Output<'_> {
    /// The writer: writes are reported to the plan's progress.
    pub fn writer(&mut self) -> &mut dyn Write {
        self
    }

    /// The writer, unreported (for a caller that reports itself).
    pub fn raw_writer(&mut self) -> &mut dyn Write {
        match &mut self.sink {
            Sink::Stdout(f) => &mut **f,
            Sink::Borrowed(writer) => *writer,
            Sink::Direct(file) => file,
            Sink::Replace { temp, .. } => temp,
        }
    }

    /// Completes the output: a temporary file replaces FILE.
    pub fn finish(self) -> Result<(), Error> {
        match self.sink {
            Sink::Stdout(_) | Sink::Direct(_) => Ok(()),
            Sink::Borrowed(writer) => writer.flush().map_err(Error::Write),
            Sink::Replace { mut temp, name } => {
                let fail = |error| Error::File {
                    name: name.into(),
                    error,
                };
                let file = temp.temp.file();
                match temp.ahead.trim(file) {
                    Ok(()) => temp.temp.commit().map_err(fail),
                    Err(error) => Err(fail(error)),
                }
            }
        }
    }
}

impl Write for Output<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.raw_writer().write(buf)?;
        if let Some(progress) = self.progress {
            progress.wrote(written as u64);
        }
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.raw_writer().flush()
    }
}

/// Renders items `range` of the output into `buffer` (appending).
pub type Render<'a> = dyn Fn(std::ops::Range<usize>, &mut Vec<u8>) + Sync + 'a;

/// Items per rendering block.
const BLOCK_ITEMS: usize = 16 * 1024;

/// Bytes per rendering block when the items' size is known.
pub const BLOCK_BYTES: usize = 512 * 1024;

/// Writes `count` items. Render threads (one per core) take the next block
/// as soon as they are free (work stealing, so a thread descheduled on a
/// busy machine holds nobody up) and may run a few blocks ahead of this
/// thread, which writes the blocks in order as they complete.
///
/// `item_bytes` is the items' average size when known (0: unknown): blocks
/// then hold about [`BLOCK_BYTES`] each, so the blocks in flight stay a few
/// MiB whatever the line lengths (the block size never changes the output).
pub fn write_items(
    count: usize,
    render: &Render<'_>,
    out: &mut dyn Write,
    item_bytes: usize,
) -> io::Result<()> {
    let block_items = BLOCK_BYTES
        .checked_div(item_bytes)
        .map_or(BLOCK_ITEMS, |items| items.clamp(1, BLOCK_ITEMS));
    if count <= 2 * block_items {
        let mut buffer = Vec::new();
        render(0..count, &mut buffer);
        return out.write_all(&buffer);
    }
    let blocks = count.div_ceil(block_items);
    let workers = rayon::current_num_threads().max(1);
    let window = workers * 3;
    let state = Mutex::new(Pipeline {
        next: 0,
        written: 0,
        ready: BTreeMap::new(),
        spare: Vec::new(),
        failed: false,
    });
    let changed = Condvar::new();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let (block, mut buffer) = {
                        let mut s = state.lock().expect("pipeline lock");
                        while !s.failed && s.next < blocks && s.next >= s.written + window {
                            s = changed.wait(s).expect("pipeline lock");
                        }
                        if s.failed || s.next >= blocks {
                            return;
                        }
                        s.next += 1;
                        (s.next - 1, s.spare.pop().unwrap_or_default())
                    };
                    buffer.clear();
                    let start = block * block_items;
                    render(start..(start + block_items).min(count), &mut buffer);
                    state
                        .lock()
                        .expect("pipeline lock")
                        .ready
                        .insert(block, buffer);
                    changed.notify_all();
                }
            });
        }
        let mut result = Ok(());
        for block in 0..blocks {
            let buffer = {
                let mut s = state.lock().expect("pipeline lock");
                loop {
                    if let Some(buffer) = s.ready.remove(&block) {
                        break buffer;
                    }
                    s = changed.wait(s).expect("pipeline lock");
                }
            };
            result = out.write_all(&buffer);
            let mut s = state.lock().expect("pipeline lock");
            s.written += 1;
            s.spare.push(buffer);
            if result.is_err() {
                s.failed = true;
            }
            drop(s);
            changed.notify_all();
            if result.is_err() {
                break;
            }
        }
        result
    })
}

/// The shared state of [`write_items`].
struct Pipeline {
    /// The next block to render.
    next: usize,
    /// How many blocks have been written.
    written: usize,
    /// Rendered blocks waiting for their turn.
    ready: BTreeMap<usize, Vec<u8>>,
    /// Buffers to reuse.
    spare: Vec<Vec<u8>>,
    /// A write failed: stop.
    failed: bool,
}

/// The error for output `name`.
fn file_error(name: &OsStr, error: io::Error) -> Error {
    Error::File {
        name: name.to_owned(),
        error,
    }
}
