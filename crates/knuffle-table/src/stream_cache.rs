//! The cache directory in which the streams of one machine share pass 1:
//! one set of bucket files per epoch, written by the first stream to
//! arrive and read by every other (each then runs its own pass 2).
//!
//! Layout: `CACHE/<dataset>/epoch-E.{lock,buckets,manifest}`, where
//! `<dataset>` is a digest of everything that decides pass 1's content
//! but the epoch: this cache's version and knuffle's, the table order's
//! version, the input files (their paths, formats, sizes, modification
//! times, devices, inodes and status change times), the seed, the columns kept and the format option. The
//! manifest repeats that identity in full (the digest names a directory,
//! it never decides what is read) with the epoch and the schema, and
//! lists the buckets' byte ranges in the `buckets` file.
//!
//! Protocol (advisory whole-file locks, `std::fs::File::lock`: released by
//! the kernel when a process dies):
//! - a reader takes a shared lock on `epoch-E.lock` and keeps it while it
//!   reads; a complete manifest whose identity and schema are its own and
//!   whose `buckets` file has the length it says is used as it is;
//! - otherwise it takes the exclusive lock (waiting for a writer to
//!   finish), looks again, and if the entry is still missing or invalid
//!   removes what is there (a killed writer's partial file) and writes
//!   pass 1 into `epoch-E.buckets.partial`; if an input changed while it was
//!   read (its identity taken again), nothing is published and the stream
//!   fails; else it renames the file to `epoch-E.buckets`, then writes the
//!   manifest the same way, last: a reader never sees a half-written
//!   bucket;
//! - an entry is removed (manifest first, its lock file last) only under
//!   its exclusive lock, taken without waiting: never while any stream
//!   reads or writes it. A lock file can thus vanish while a process waits
//!   on it: after locking, a process checks that the name still leads to
//!   the file it locked, and starts again if not.
//!
//! What is removed, and when (docs/guide/training.md, "A cache shared by
//! the consumers of a machine"): a stream that reaches the end of epoch `E`
//! removes the entries of the same dataset and seed of epochs before `E`,
//! and those of the same inputs read otherwise (another seed, other
//! columns) written before its own, that no stream holds; and every stream, as it opens, removes the
//! entries that can never be used again and that no stream holds:
//! incomplete ones (a killed writer's) and those of inputs that changed or
//! are gone.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::Error;
use crate::source::Source;
use crate::spill::Spilled;
use crate::stream_manifest::{self, Dataset, Parsed, Writer};
use crate::stream_options::StreamOptions;
use crate::stream_stats::{Pass1, StreamStats};

/// How many times a lock is taken again after its file was removed under
/// it before giving up (each retry means another process removed it).
const LOCK_RETRIES: usize = 1000;

/// One epoch of a dataset in the cache.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    root: PathBuf,
    dir: PathBuf,
    dataset: Option<Value>,
    epoch: u64,
}

#[derive(Clone, Copy)]
enum Mode {
    Shared,
    Exclusive,
}

/// A lock taken on an entry's lock file, released when dropped: released
/// explicitly, because closing the file would not release it while a
/// process forked meanwhile (a DataLoader worker) still has it open.
pub(crate) struct Lock {
    file: File,
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// An entry ready to read: its buckets, and the shared lock that keeps it
/// from being removed while they are read.
pub(crate) struct Ready {
    pub(crate) spilled: Spilled,
    /// The bytes of its bucket files.
    pub(crate) bytes: u64,
    pub(crate) writer: Writer,
    /// Whether this process wrote it just now.
    pub(crate) wrote: bool,
    /// Whether it waited for another stream's lock.
    pub(crate) waited: bool,
    _lock: Lock,
}

impl Ready {
    /// Records in `stats` how this stream's pass 1 went: written or
    /// reused, after waiting or not, by which writer, how many bytes.
    pub(crate) fn record(&self, stats: &mut StreamStats) {
        stats.pass1 = Some(if self.wrote {
            Pass1::Wrote
        } else {
            Pass1::Reused
        });
        stats.waited = self.waited;
        stats.writer_pid = Some(self.writer.pid);
        stats.written_in_background = self.writer.background;
        stats.bucket_bytes = self.bytes;
    }
}

/// What taking an entry to write it in the background found.
pub(crate) enum Claim {
    /// The entry is complete already.
    Ready,
    /// Another stream holds it (writing it, or reading it).
    Busy,
    /// It is this process's to write.
    Claimed(Claimed),
}

/// An entry locked for writing.
pub(crate) struct Claimed {
    entry: Entry,
    lock: Lock,
}

impl Claimed {
    /// Writes the entry (see [`Entry::open`]) and releases it; returns the
    /// bytes of its bucket files.
    pub(crate) fn write(
        self,
        schema: &Value,
        write: impl FnOnce(File, String) -> Result<Spilled, Error>,
    ) -> Result<u64, Error> {
        let (_, bytes) = self.entry.write_locked(schema, true, write)?;
        drop(self.lock);
        Ok(bytes)
    }
}

impl Entry {
    /// Epoch `epoch` of `dataset` in the cache directory `root`.
    pub(crate) fn new(root: &Path, dataset: &Dataset, epoch: u64) -> Entry {
        Entry {
            root: root.to_path_buf(),
            dir: root.join(&dataset.digest),
            dataset: Some(dataset.identity.clone()),
            epoch,
        }
    }

    /// The entry in `root` of the stream that `options` ask for over
    /// `sources`: its dataset (inputs, seed, columns, format) and epoch.
    pub(crate) fn of_stream(
        root: &Path,
        sources: &[Source],
        options: &StreamOptions,
    ) -> Result<Entry, Error> {
        let dataset = Dataset::of(
            sources,
            &options.seed,
            options.columns.as_deref(),
            options.format,
        )?;
        Ok(Entry::new(root, &dataset, options.epoch))
    }

    /// The entry of the next epoch.
    pub(crate) fn next(&self) -> Entry {
        Entry {
            epoch: self.epoch + 1,
            ..self.clone()
        }
    }

    /// The cache directory.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    fn path(&self, suffix: &str) -> PathBuf {
        self.dir.join(format!("epoch-{}.{suffix}", self.epoch))
    }

    /// The entry's lock file, locked; `None` when `wait` is false and
    /// another process holds a lock that conflicts.
    fn lock(&self, mode: Mode, wait: bool) -> Result<Option<Lock>, Error> {
        let path = self.path("lock");
        for _ in 0..LOCK_RETRIES {
            fs::create_dir_all(&self.dir).map_err(|e| Error::io_at(&self.dir, &e))?;
            let file = match OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
            {
                Ok(file) => file,
                // The dataset's directory was removed meanwhile.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io_at(&path, &e)),
            };
            let taken = match (mode, wait) {
                (Mode::Shared, true) => file.lock_shared().map(|()| true),
                (Mode::Exclusive, true) => file.lock().map(|()| true),
                (Mode::Shared, false) => tried(file.try_lock_shared()),
                (Mode::Exclusive, false) => tried(file.try_lock()),
            }
            .map_err(|e| Error::io_at(&path, &e))?;
            if !taken {
                return Ok(None);
            }
            let lock = Lock { file };
            if still_named(&lock.file, &path) {
                return Ok(Some(lock));
            }
        }
        Err(Error::io(format!(
            "{}: the lock file kept being removed",
            path.display()
        )))
    }

    /// The lock in `mode`, waited for when another process holds it;
    /// whether it was waited for.
    fn lock_waiting(&self, mode: Mode) -> Result<(Lock, bool), Error> {
        if let Some(file) = self.lock(mode, false)? {
            return Ok((file, false));
        }
        loop {
            if let Some(file) = self.lock(mode, true)? {
                return Ok((file, true));
            }
        }
    }

    /// The entry, read if it is complete and else written by `write`
    /// (given the file to write the buckets to and its name for errors;
    /// `background`: as the next epoch's pass 1, for the manifest),
    /// waiting for another stream that writes it; kept from removal until
    /// the result is dropped.
    pub(crate) fn open(
        &self,
        schema: &Value,
        background: bool,
        write: impl FnOnce(File, String) -> Result<Spilled, Error>,
    ) -> Result<Ready, Error> {
        let mut write = Some(write);
        let mut waited = false;
        loop {
            let (lock, waited_shared) = self.lock_waiting(Mode::Shared)?;
            waited |= waited_shared;
            if let Some((spilled, bytes, writer)) = self.read(schema)? {
                return Ok(Ready {
                    spilled,
                    bytes,
                    writer,
                    wrote: false,
                    waited,
                    _lock: lock,
                });
            }
            drop(lock);
            let (lock, waited_exclusive) = self.lock_waiting(Mode::Exclusive)?;
            waited |= waited_exclusive;
            if self.read(schema)?.is_some() {
                // Written meanwhile: read it under a shared lock.
                continue;
            }
            let write = write.take().expect("an entry is written at most once");
            let (spilled, bytes) = self.write_locked(schema, background, write)?;
            // Shared from now on, so that other streams read it too (if the
            // entry is removed in between, this stream's open file still
            // reads it).
            let lock_error = |e: io::Error| Error::io_at(&self.path("lock"), &e);
            lock.file.unlock().map_err(lock_error)?;
            lock.file.lock_shared().map_err(lock_error)?;
            return Ok(Ready {
                spilled,
                bytes,
                writer: Writer {
                    pid: std::process::id(),
                    background,
                },
                wrote: true,
                waited,
                _lock: lock,
            });
        }
    }

    /// The entry locked for writing, without waiting, unless it is complete
    /// or another stream holds it.
    pub(crate) fn claim(&self) -> Result<Claim, Error> {
        let complete = |entry: &Entry| -> Result<bool, Error> {
            Ok(entry.manifest()?.is_some_and(|m| entry.same_dataset(&m)))
        };
        let Some(lock) = self.lock(Mode::Exclusive, false)? else {
            // Streams that read it hold it too: then it is complete.
            return Ok(match self.lock(Mode::Shared, false)? {
                Some(_reading) if complete(self)? => Claim::Ready,
                _ => Claim::Busy,
            });
        };
        if complete(self)? {
            return Ok(Claim::Ready);
        }
        Ok(Claim::Claimed(Claimed {
            entry: self.clone(),
            lock,
        }))
    }

    /// The manifest, if there is one that parses.
    fn manifest(&self) -> Result<Option<Value>, Error> {
        let path = self.path("manifest");
        match fs::read(&path) {
            Ok(bytes) => Ok(serde_json::from_slice(&bytes).ok()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io_at(&path, &e)),
        }
    }

    fn same_dataset(&self, manifest: &Value) -> bool {
        stream_manifest::is_of(
            manifest,
            self.dataset.as_ref().unwrap_or(&Value::Null),
            self.epoch,
        )
    }

    /// The complete entry, if it is one of this dataset, epoch and schema
    /// whose bucket file has the length its manifest says.
    fn read(&self, schema: &Value) -> Result<Option<(Spilled, u64, Writer)>, Error> {
        let Some(manifest) = self.manifest()? else {
            return Ok(None);
        };
        if !self.same_dataset(&manifest) || manifest["schema"] != *schema {
            return Ok(None);
        }
        let Some(Parsed {
            range,
            buckets,
            bytes,
            writer,
        }) = stream_manifest::parse(&manifest)
        else {
            return Ok(None);
        };
        let path = self.path("buckets");
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io_at(&path, &e)),
        };
        let length = file.metadata().map_err(|e| Error::io_at(&path, &e))?.len();
        if length != bytes {
            return Ok(None);
        }
        let place = path.display().to_string();
        Ok(Some((
            Spilled::from_parts(file, range, buckets, place),
            bytes,
            writer,
        )))
    }

    /// Writes the entry under its exclusive lock: whatever is there is
    /// removed, the buckets go to a partial file renamed when complete,
    /// then the manifest likewise. On an error nothing of it is left.
    fn write_locked(
        &self,
        schema: &Value,
        background: bool,
        write: impl FnOnce(File, String) -> Result<Spilled, Error>,
    ) -> Result<(Spilled, u64), Error> {
        self.remove_files();
        let result = self.write_files(schema, background, write);
        if result.is_err() {
            self.remove_files();
        }
        result
    }

    fn write_files(
        &self,
        schema: &Value,
        background: bool,
        write: impl FnOnce(File, String) -> Result<Spilled, Error>,
    ) -> Result<(Spilled, u64), Error> {
        let partial = self.path("buckets.partial");
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&partial)
            .map_err(|e| Error::io_at(&partial, &e))?;
        let spilled = write(
            file.try_clone().map_err(|e| Error::io_at(&partial, &e))?,
            partial.display().to_string(),
        )?;
        // Rows of a file that changed under pass 1 may mix its old and new
        // content: the entry would be named for neither.
        if let Some(path) = self
            .dataset
            .as_ref()
            .and_then(stream_manifest::changed_input)
        {
            return Err(Error::io(format!(
                "{path} changed while it was read; run again"
            )));
        }
        // On disk before its name says it is complete.
        file.sync_all().map_err(|e| Error::io_at(&partial, &e))?;
        let bytes = file
            .metadata()
            .map_err(|e| Error::io_at(&partial, &e))?
            .len();
        let buckets = self.path("buckets");
        fs::rename(&partial, &buckets).map_err(|e| Error::io_at(&buckets, &e))?;
        let manifest = stream_manifest::manifest(
            self.dataset.as_ref().unwrap_or(&Value::Null),
            self.epoch,
            schema,
            Writer {
                pid: std::process::id(),
                background,
            },
            bytes,
            &spilled,
        );
        let partial = self.path("manifest.partial");
        let done = self.path("manifest");
        let write_manifest = || -> io::Result<()> {
            let mut file = File::create(&partial)?;
            io::Write::write_all(&mut file, manifest.to_string().as_bytes())?;
            file.sync_all()
        };
        write_manifest().map_err(|e| Error::io_at(&partial, &e))?;
        fs::rename(&partial, &done).map_err(|e| Error::io_at(&done, &e))?;
        Ok((spilled, bytes))
    }

    /// Removes the entry's files but its lock (the manifest first).
    fn remove_files(&self) {
        for suffix in ["manifest", "manifest.partial", "buckets", "buckets.partial"] {
            let _ = fs::remove_file(self.path(suffix));
        }
    }

    /// Whether a stream holds the entry (reads or writes it) now.
    fn held(&self) -> bool {
        matches!(self.lock(Mode::Exclusive, false), Ok(None))
    }

    /// Removes the entry unless a stream holds it; whether it did.
    pub(crate) fn remove_if_unused(&self) -> Result<bool, Error> {
        let Some(lock) = self.lock(Mode::Exclusive, false)? else {
            return Ok(false);
        };
        self.remove_files();
        let _ = fs::remove_file(self.path("lock"));
        drop(lock);
        Ok(true)
    }

    /// Removes the entries of the same dataset of the epochs before this
    /// one that no stream holds; returns how many (an entry that cannot be
    /// removed stays, for the next stream to try).
    pub(crate) fn remove_older(&self) -> u64 {
        let mut removed = 0;
        for epoch in epochs_in(&self.dir) {
            if epoch < self.epoch {
                let older = Entry {
                    epoch,
                    ..self.clone()
                };
                removed += u64::from(older.remove_if_unused().unwrap_or(false));
            }
        }
        removed
    }

    /// Removes the entries of the same inputs read otherwise (another
    /// seed, other columns, another format option or version) of a dataset
    /// none of whose entries a stream holds or was written after this one
    /// (a run under way reads an epoch, or wrote its next one during this
    /// one's: its entries all stay); returns how many. A run paused
    /// between epochs for longer than one of this stream's may find its
    /// next epoch gone, and writes it again. A seed tried once no
    /// longer keeps a copy of the data: the cache holds about one copy of
    /// a set of inputs per seed in use.
    pub(crate) fn remove_superseded(&self) -> u64 {
        let Some(inputs) = self.dataset.as_ref().map(|d| &d["inputs"]) else {
            return 0;
        };
        let Some(written) = modified(&self.path("manifest")) else {
            return 0;
        };
        let Ok(datasets) = fs::read_dir(&self.root) else {
            return 0;
        };
        let mut removed = 0;
        for dataset in datasets.flatten() {
            let dir = dataset.path();
            let name = dataset.file_name();
            let is_other = name.to_str().is_some_and(stream_manifest::is_dataset_name)
                && dir != self.dir
                && dir.is_dir();
            if !is_other {
                continue;
            }
            let entries: Vec<Entry> = epochs_in(&dir)
                .into_iter()
                .map(|epoch| Entry {
                    root: self.root.clone(),
                    dir: dir.clone(),
                    dataset: None,
                    epoch,
                })
                .collect();
            let in_use = entries.iter().any(|entry| {
                let newer = ["manifest", "manifest.partial", "buckets.partial"]
                    .iter()
                    .any(|suffix| modified(&entry.path(suffix)).is_some_and(|t| t >= written));
                newer || entry.held()
            });
            if in_use {
                continue;
            }
            for entry in entries {
                let same_inputs =
                    entry.manifest().ok().flatten().is_some_and(|manifest| {
                        manifest["identity"]["dataset"]["inputs"] == *inputs
                    });
                if same_inputs {
                    removed += u64::from(entry.remove_if_unused().unwrap_or(false));
                }
            }
            let _ = fs::remove_dir(&dir);
        }
        removed
    }

    /// Its epoch.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch
    }
}

/// `Ok(true)` if a lock was taken, `Ok(false)` if another holds it.
fn tried(result: Result<(), TryLockError>) -> io::Result<bool> {
    match result {
        Ok(()) => Ok(true),
        Err(TryLockError::WouldBlock) => Ok(false),
        Err(TryLockError::Error(e)) => Err(e),
    }
}

/// Whether `path` still names the open `file` (it may have been removed
/// while a lock on it was waited for).
fn still_named(file: &File, path: &Path) -> bool {
    match (file.metadata(), fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

/// When the file `path` was last written (none if it is not there).
fn modified(path: &Path) -> Option<std::time::SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The epochs that have files in a dataset's directory.
fn epochs_in(dir: &Path) -> Vec<u64> {
    let mut epochs: Vec<u64> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let name = name.to_str()?;
            let rest = name.strip_prefix("epoch-")?;
            rest[..rest.find('.')?].parse().ok()
        })
        .collect();
    epochs.sort_unstable();
    epochs.dedup();
    epochs
}

/// Removes, from the cache directory `root`, the entries that can never be
/// used again and that no stream holds: incomplete ones (a killed
/// writer's), unreadable ones, and those whose inputs changed or are gone;
/// and the dataset directories left empty. Returns how many entries (an
/// entry that cannot be removed stays, for the next stream to try).
pub(crate) fn remove_abandoned(root: &Path) -> u64 {
    let Ok(datasets) = fs::read_dir(root) else {
        return 0;
    };
    let mut removed = 0;
    for dataset in datasets.flatten() {
        let name = dataset.file_name();
        let is_ours = name.to_str().is_some_and(stream_manifest::is_dataset_name);
        if !is_ours || !dataset.path().is_dir() {
            continue;
        }
        let dir = dataset.path();
        for epoch in epochs_in(&dir) {
            let entry = Entry {
                root: root.to_path_buf(),
                dir: dir.clone(),
                dataset: None,
                epoch,
            };
            let usable = match entry.manifest() {
                Ok(manifest) => manifest.is_some_and(|m| {
                    stream_manifest::parse(&m).is_some() && stream_manifest::inputs_unchanged(&m)
                }),
                // Unreadable here: left alone.
                Err(_) => true,
            };
            if !usable {
                removed += u64::from(entry.remove_if_unused().unwrap_or(false));
            }
        }
        // Only an empty directory goes.
        let _ = fs::remove_dir(&dir);
    }
    removed
}

/// Bytes free for this user on the file system of `dir` (none if unknown).
pub(crate) fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `path` is a NUL-terminated string and `stat` a plain struct
    // that statvfs fills.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return None;
    }
    Some((stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::error::ErrorKind;
    use crate::opening::Opening;
    use crate::source;
    use crate::stream_pass1::Inputs;

    fn csv(from: usize) -> String {
        (from..from + 100).fold(String::from("id\n"), |csv, i| csv + &format!("{i}\n"))
    }

    /// The files of `entry`'s dataset directory.
    fn files(entry: &Entry) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(&entry.dir)
            .unwrap()
            .map(|f| f.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn an_input_replaced_during_pass_1_publishes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("rows.csv");
        fs::write(&input, csv(0)).unwrap();
        let sources = source::list(std::slice::from_ref(&input), None).unwrap();
        let dataset = Dataset::of(&sources, "changed", None, None).unwrap();
        let entry = Entry::new(&dir.path().join("cache"), &dataset, 0);
        let (inputs, opening) = Inputs::of(sources, None, 1 << 20).unwrap();
        let run = inputs.run("changed", 0, 1 << 20, dir.path());
        let schema = stream_manifest::schema_value(&inputs.projected);
        let never = AtomicBool::new(false);
        // Another version renamed over the input as pass 1 reads it.
        let replace = |from| {
            let new = dir.path().join("new.csv");
            fs::write(&new, csv(from)).unwrap();
            fs::rename(&new, &input).unwrap();
        };
        let error = entry
            .open(&schema, false, |file, place| {
                let spilled = inputs.spill_to(&run, opening, &never, file, place);
                replace(100);
                spilled
            })
            .err()
            .unwrap();
        assert_eq!(error.kind(), ErrorKind::Io);
        assert!(
            error
                .message()
                .ends_with("rows.csv changed while it was read; run again"),
            "{}",
            error.message()
        );
        assert_eq!(files(&entry), ["epoch-0.lock"]);
        // The background pass of the next epoch likewise.
        let Claim::Claimed(claimed) = entry.next().claim().unwrap() else {
            panic!("the next epoch is free");
        };
        let error = claimed
            .write(&schema, |file, place| {
                let spilled = inputs.spill_to(&run, Opening::default(), &never, file, place);
                replace(200);
                spilled
            })
            .err()
            .unwrap();
        assert!(
            error
                .message()
                .ends_with("rows.csv changed while it was read; run again"),
            "{}",
            error.message()
        );
        assert_eq!(files(&entry), ["epoch-0.lock", "epoch-1.lock"]);
    }
}
