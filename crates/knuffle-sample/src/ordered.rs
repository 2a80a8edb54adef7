//! Every record written in the order of a 64-bit key drawn for it, in
//! bounded memory: the engine of the whole-input modes (`knuffle sample`
//! without a mode, a uniform shuffle; `-w FIELD` without `-n`, a weighted
//! shuffle).
//!
//! Records are gathered in memory: their bytes in chunks, and 32 bytes each
//! for the key, the index (arrival order) and the place of the bytes. When
//! the next record would take them past the memory limit, the records held
//! are sorted by (key, index) and written as one sorted run to a nameless
//! temporary file (in `temp_dir`: `-T DIR`, else `$TMPDIR` or `/tmp`), and
//! gathering starts again. At the end, if no run was written, the records
//! are sorted and written from memory; otherwise the last records are
//! written as a run too and the runs are merged: a k-way merge with a
//! binary heap of the runs' first records (Knuth, TAOCP vol. 3, 5.4.1),
//! runs merged in groups first when there are more of them than buffers
//! fit in the limit. A record is read from a run and copied out through a
//! bounded buffer, never held whole.
//!
//! **The order does not depend on the memory limit.** Both ways write the
//! records ordered by (key, index), and the keys are drawn in input order
//! before anything is written, so in memory or merged from runs, with any
//! number of runs, the output is the same for the same seed. Records of
//! equal key ([`Ties`]) are written in input order, or in a uniformly random
//! order: a Durstenfeld shuffle (`knuffle::shuffle` of their ranks) with
//! the same generator, one group after another in key order, which the
//! merge meets in the same order as the in-memory sort.
//!
//! Temporary files have no name from the start (`tempfile::tempfile_in`:
//! `O_TMPFILE`, or created and removed at once), so a run that fails or is
//! killed leaves none behind.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use knuffle::table_order::TableOrder;

use super::error::SampleError;
use super::output::Output;

/// What the sorter holds besides its records (counted against the limit):
/// the reader's and the output's buffers, a run's write buffer, slack.
pub const RESERVE: u64 = 256 << 10;

/// The bytes of a run file's buffer (writing a run, reading one in a
/// merge).
const RUN_BUFFER: usize = 64 << 10;

/// Bytes held for each record besides its own.
const ENTRY_BYTES: u64 = std::mem::size_of::<Entry>() as u64;

/// A merged record's body up to this long is held in memory while the
/// merge finds whether the next record ties with it; a longer one is read
/// again from its place.
const HELD_BODY: u64 = 64 << 10;

/// Bytes of a record's header in a run: key, index, length.
const HEADER_BYTES: usize = 24;

/// How records of equal key are ordered.
#[derive(Clone)]
pub enum Ties {
    /// In input order (the weighted shuffle's rule: on a tie the earlier
    /// record ranks first, as `knuffle::WeightedReservoir` ranks them).
    InputOrder,
    /// Keys are table-order labels (in the high 32 bits): records of equal
    /// label in that order's tie order of their indexes (the uniform
    /// shuffle: sorting by iid uniform keys with ties put in uniformly
    /// random order is a uniform permutation).
    Table(TableOrder),
}

impl Ties {
    /// The order of records of equal `key` whose indexes are `indexes`
    /// (ascending): ranks into `indexes`. `None`: input order.
    fn order(&self, key: u64, indexes: &[u64]) -> Option<Vec<usize>> {
        let Ties::Table(order) = self else {
            return None;
        };
        let mut rows = indexes.to_vec();
        order.order_ties((key >> 32) as u32, &mut rows);
        Some(
            rows.iter()
                .map(|row| indexes.binary_search(row).expect("a row of the group"))
                .collect(),
        )
    }
}

/// A record held: its key, its index, where its bytes are.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    index: u64,
    /// Chunk number (high 32 bits) and offset in the chunk (low 32 bits).
    place: u64,
    len: u64,
}

impl Entry {
    fn rank(&self) -> (u64, u64) {
        (self.key, self.index)
    }
}

/// Records gathered, then written in key order ([`KeyedSort::finish`]).
pub struct KeyedSort {
    /// The limit on what is held: records' chunks and entries.
    budget: u64,
    chunk_size: usize,
    temp_dir: PathBuf,
    ties: Ties,
    chunks: Vec<Vec<u8>>,
    /// The chunk being filled (those after it are empty).
    current: usize,
    entries: Vec<Entry>,
    /// Chunk capacities plus the entries' capacity, in bytes.
    held: u64,
    next_index: u64,
    /// The sorted runs written so far, all in one temporary file: their
    /// (start, end) offsets.
    runs: Vec<(u64, u64)>,
    file: Option<RunFile>,
}

/// A temporary file that runs are appended to.
struct RunFile {
    writer: BufWriter<File>,
    length: u64,
}

impl KeyedSort {
    /// A sorter holding at most `memory` bytes (less [`RESERVE`]), whose runs go
    /// to `temp_dir` (`None`: the system's temporary directory).
    pub fn new(memory: u64, temp_dir: Option<&Path>, ties: Ties) -> KeyedSort {
        let budget = memory.saturating_sub(RESERVE).max(64 << 10);
        let chunk_size = (budget / 8).clamp(4 << 10, 1 << 20) as usize;
        KeyedSort::with_budget(budget, chunk_size, temp_dir, ties)
    }

    /// A sorter holding at most `budget` bytes of records, in chunks of
    /// `chunk_size` bytes.
    fn with_budget(
        budget: u64,
        chunk_size: usize,
        temp_dir: Option<&Path>,
        ties: Ties,
    ) -> KeyedSort {
        KeyedSort {
            budget,
            chunk_size,
            temp_dir: temp_dir.map_or_else(std::env::temp_dir, Path::to_path_buf),
            ties,
            chunks: Vec::new(),
            current: 0,
            entries: Vec::new(),
            held: 0,
            next_index: 0,
            runs: Vec::new(),
            file: None,
        }
    }

    /// Adds the next record (in input order) with its `key`.
    pub fn push(&mut self, key: u64, record: &[u8]) -> Result<(), SampleError> {
        let index = self.next_index;
        self.next_index += 1;
        let len = record.len();
        loop {
            let entries_more = if self.entries.len() == self.entries.capacity() {
                self.entries.capacity().max(16)
            } else {
                0
            };
            // The current chunk, else the next one kept from an earlier
            // batch, else a new one.
            let fits = |chunk: &Vec<u8>| chunk.capacity() - chunk.len() >= len;
            let room = match self.chunks.get(self.current) {
                Some(chunk) if fits(chunk) => Some(self.current),
                _ => self
                    .chunks
                    .get(self.current + 1)
                    .filter(|chunk| fits(chunk))
                    .map(|_| self.current + 1),
            };
            let chunk_more = if room.is_some() {
                0
            } else {
                self.chunk_size.max(len)
            };
            let wanted = self.held + ENTRY_BYTES * entries_more as u64 + chunk_more as u64;
            if wanted <= self.budget {
                if entries_more > 0 {
                    self.entries.reserve_exact(entries_more);
                    self.held += ENTRY_BYTES * entries_more as u64;
                }
                let number = match room {
                    Some(number) => number,
                    None => {
                        // After the chunks in use, before the empty ones.
                        let number = (self.current + 1).min(self.chunks.len());
                        self.chunks.insert(number, Vec::with_capacity(chunk_more));
                        self.held += chunk_more as u64;
                        number
                    }
                };
                self.current = number;
                let chunk = &mut self.chunks[number];
                let offset = chunk.len();
                chunk.extend_from_slice(record);
                self.entries.push(Entry {
                    key,
                    index,
                    place: ((number as u64) << 32) | offset as u64,
                    len: len as u64,
                });
                return Ok(());
            }
            if self.entries.is_empty() {
                // Longer than all that may be held: a run of its own,
                // written straight from the caller's buffer.
                self.release_chunks();
                let entry = Entry {
                    key,
                    index,
                    place: 0,
                    len: len as u64,
                };
                return self.write_run(&[entry], |_| record);
            }
            self.spill()?;
        }
    }

    /// The bytes of `entry`.
    fn bytes_of<'a>(chunks: &'a [Vec<u8>], entry: &Entry) -> &'a [u8] {
        let chunk = &chunks[(entry.place >> 32) as usize];
        let offset = (entry.place & 0xffff_ffff) as usize;
        &chunk[offset..offset + entry.len as usize]
    }

    /// Frees every chunk (the entries' room is kept).
    fn release_chunks(&mut self) {
        let freed: usize = self.chunks.iter().map(Vec::capacity).sum();
        self.held -= freed as u64;
        self.chunks = Vec::new();
        self.current = 0;
    }

    /// Sorts the records held and writes them as a run; keeps the chunks
    /// of the usual size for the next records.
    fn spill(&mut self) -> Result<(), SampleError> {
        let mut entries = std::mem::take(&mut self.entries);
        entries.sort_unstable_by_key(Entry::rank);
        let chunks = std::mem::take(&mut self.chunks);
        self.write_run(&entries, |entry| Self::bytes_of(&chunks, entry))?;
        entries.clear();
        self.entries = entries;
        self.chunks = chunks;
        let chunk_size = self.chunk_size;
        let mut freed = 0;
        self.chunks.retain_mut(|chunk| {
            chunk.clear();
            let keep = chunk.capacity() == chunk_size;
            if !keep {
                freed += chunk.capacity();
            }
            keep
        });
        self.held -= freed as u64;
        self.current = 0;
        Ok(())
    }

    /// Appends a run of `entries` (sorted) to the run file.
    fn write_run<'a>(
        &mut self,
        entries: &[Entry],
        bytes: impl Fn(&Entry) -> &'a [u8],
    ) -> Result<(), SampleError> {
        if self.file.is_none() {
            self.file = Some(RunFile {
                writer: BufWriter::with_capacity(RUN_BUFFER, temp_file(&self.temp_dir)?),
                length: 0,
            });
        }
        let file = self.file.as_mut().expect("a run file");
        let start = file.length;
        let dir = &self.temp_dir;
        for entry in entries {
            let record = bytes(entry);
            write_header(&mut file.writer, entry.key, entry.index, entry.len, dir)?;
            file.writer
                .write_all(record)
                .map_err(|err| temp_error(&err, dir))?;
            file.length += (HEADER_BYTES + record.len()) as u64;
        }
        self.runs.push((start, file.length));
        Ok(())
    }

    /// Writes every record to `out` in key order, each after its
    /// `prefix(key)` when that gives one (`--print-random`); ties as
    /// [`Ties`] says.
    pub fn finish(
        mut self,
        out: &mut Output<'_>,
        prefix: &dyn Fn(u64) -> Option<(String, u8)>,
    ) -> Result<(), SampleError> {
        if self.runs.is_empty() {
            return self.write_held(out, prefix);
        }
        if !self.entries.is_empty() {
            self.spill()?;
        }
        // The records' memory is free for the merge's buffers.
        self.entries = Vec::new();
        self.chunks = Vec::new();
        let file = self.file.take().expect("runs were written");
        let file = file
            .writer
            .into_inner()
            .map_err(|err| temp_error(err.error(), &self.temp_dir))?;
        let fan_in = (self.budget as usize / RUN_BUFFER).saturating_sub(1).max(2);
        let (mut file, mut runs) = (file, std::mem::take(&mut self.runs));
        while runs.len() > fan_in {
            (file, runs) = self.merge_level(&file, &runs, fan_in)?;
        }
        let mut merge = Merge::new(&file, &runs, &self.temp_dir)?;
        let mut group: Vec<(u64, u64)> = Vec::new();
        let mut indexes: Vec<u64> = Vec::new();
        let mut held = Vec::new();
        while let Some((key, index, run)) = merge.pop() {
            if !matches!(self.ties, Ties::Table(_)) {
                write_prefix(out, prefix, key)?;
                merge.copy_body(run, &mut |bytes| out.write(bytes))?;
                merge.advance(run)?;
                continue;
            }
            // Whether the record ties with the next can be known only once
            // its own run has moved on (the run's next record may share its
            // key): the body is kept first (in memory when small, else its
            // place in the file), the run advanced, then the next key seen.
            let place = (merge.body_offset(run), merge.body_len(run));
            let small = place.1 <= HELD_BODY;
            if small {
                held.clear();
                merge.copy_body(run, &mut |bytes| {
                    held.extend_from_slice(bytes);
                    Ok(())
                })?;
            } else {
                merge.skip_body(run)?;
            }
            merge.advance(run)?;
            if merge.next_key() != Some(key) {
                write_prefix(out, prefix, key)?;
                if small {
                    out.write(&held)?;
                } else {
                    copy_range(&file, place.0, place.1, &self.temp_dir, &mut |bytes| {
                        out.write(bytes)
                    })?;
                }
                continue;
            }
            // Equal keys: their places, in index order, then written in
            // their tie order (as `write_held` does).
            group.clear();
            indexes.clear();
            group.push(place);
            indexes.push(index);
            while merge.next_key() == Some(key) {
                let (_, index, run) = merge.pop().expect("a record was peeked");
                group.push(merge.skip_body(run)?);
                indexes.push(index);
                merge.advance(run)?;
            }
            let ranks = self.ties.order(key, &indexes).expect("ties are ordered");
            for rank in ranks {
                let (offset, len) = group[rank];
                write_prefix(out, prefix, key)?;
                copy_range(&file, offset, len, &self.temp_dir, &mut |bytes| {
                    out.write(bytes)
                })?;
            }
        }
        Ok(())
    }

    /// Merges `runs` of `file` in groups of `fan_in` into runs of a new
    /// file.
    fn merge_level(
        &self,
        file: &File,
        runs: &[(u64, u64)],
        fan_in: usize,
    ) -> Result<(File, Vec<(u64, u64)>), SampleError> {
        let dir = &self.temp_dir;
        let mut writer = BufWriter::with_capacity(RUN_BUFFER, temp_file(dir)?);
        let mut merged = Vec::new();
        let mut length = 0u64;
        for group in runs.chunks(fan_in) {
            let start = length;
            let mut merge = Merge::new(file, group, dir)?;
            while let Some((key, index, run)) = merge.pop() {
                let len = merge.body_len(run);
                write_header(&mut writer, key, index, len, dir)?;
                merge.copy_body(run, &mut |bytes| {
                    writer.write_all(bytes).map_err(|err| temp_error(&err, dir))
                })?;
                merge.advance(run)?;
                length += HEADER_BYTES as u64 + len;
            }
            merged.push((start, length));
        }
        let file = writer
            .into_inner()
            .map_err(|err| temp_error(err.error(), dir))?;
        Ok((file, merged))
    }

    /// Every record from memory: sorted, ties as [`Ties`] says.
    fn write_held(
        mut self,
        out: &mut Output<'_>,
        prefix: &dyn Fn(u64) -> Option<(String, u8)>,
    ) -> Result<(), SampleError> {
        self.entries.sort_unstable_by_key(Entry::rank);
        let entries = &self.entries;
        let mut start = 0;
        while start < entries.len() {
            let key = entries[start].key;
            let mut end = start + 1;
            if matches!(self.ties, Ties::Table(_)) {
                while end < entries.len() && entries[end].key == key {
                    end += 1;
                }
            }
            if end - start == 1 {
                write_prefix(out, prefix, key)?;
                out.write(Self::bytes_of(&self.chunks, &entries[start]))?;
            } else {
                let indexes: Vec<u64> = entries[start..end].iter().map(|e| e.index).collect();
                let ranks = self.ties.order(key, &indexes).expect("ties are ordered");
                for rank in ranks {
                    write_prefix(out, prefix, key)?;
                    out.write(Self::bytes_of(&self.chunks, &entries[start + rank]))?;
                }
            }
            start = end;
        }
        Ok(())
    }
}

/// Writes the prefix of `key`, if any, and its delimiter.
fn write_prefix(
    out: &mut Output<'_>,
    prefix: &dyn Fn(u64) -> Option<(String, u8)>,
    key: u64,
) -> Result<(), SampleError> {
    if let Some((text, delimiter)) = prefix(key) {
        out.write(text.as_bytes())?;
        out.write(&[delimiter])?;
    }
    Ok(())
}

/// A nameless temporary file in `dir`.
fn temp_file(dir: &Path) -> Result<File, SampleError> {
    tempfile::tempfile_in(dir).map_err(|err| temp_error(&err, dir))
}

/// An error with the temporary files in `dir`.
fn temp_error(err: &std::io::Error, dir: &Path) -> SampleError {
    SampleError::io(
        err,
        format!(
            "cannot use a temporary file in '{}': {}",
            dir.display(),
            knuffle_io::describe(err)
        ),
    )
}

/// Writes a record's header to a run.
fn write_header(
    writer: &mut impl Write,
    key: u64,
    index: u64,
    len: u64,
    dir: &Path,
) -> Result<(), SampleError> {
    let mut header = [0u8; HEADER_BYTES];
    header[..8].copy_from_slice(&key.to_le_bytes());
    header[8..16].copy_from_slice(&index.to_le_bytes());
    header[16..].copy_from_slice(&len.to_le_bytes());
    writer
        .write_all(&header)
        .map_err(|err| temp_error(&err, dir))
}

/// Copies `len` bytes of `file` from `offset` to `sink`, a buffer at a time.
fn copy_range(
    file: &File,
    mut offset: u64,
    len: u64,
    dir: &Path,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), SampleError>,
) -> Result<(), SampleError> {
    let mut buffer = vec![0u8; RUN_BUFFER.min(len as usize)];
    let end = offset + len;
    while offset < end {
        let take = buffer.len().min((end - offset) as usize);
        file.read_exact_at(&mut buffer[..take], offset)
            .map_err(|err| temp_error(&err, dir))?;
        sink(&buffer[..take])?;
        offset += take as u64;
    }
    Ok(())
}

/// One run being read: a buffer over its part of the run file.
struct RunReader {
    /// The file offset of `buffer[0]`.
    base: u64,
    end: u64,
    buffer: Vec<u8>,
    /// Read position in `buffer`, and how much of it is filled.
    at: usize,
    filled: usize,
    /// The current record's header: key, index, length.
    head: Option<(u64, u64, u64)>,
}

/// A k-way merge of runs of one file.
struct Merge<'a> {
    file: &'a File,
    dir: &'a Path,
    readers: Vec<RunReader>,
    /// The runs' current records by (key, index).
    heap: BinaryHeap<Reverse<(u64, u64, usize)>>,
}

impl<'a> Merge<'a> {
    fn new(file: &'a File, runs: &[(u64, u64)], dir: &'a Path) -> Result<Merge<'a>, SampleError> {
        let mut merge = Merge {
            file,
            dir,
            readers: runs
                .iter()
                .map(|&(start, end)| RunReader {
                    base: start,
                    end,
                    buffer: vec![0; RUN_BUFFER.min((end - start) as usize)],
                    at: 0,
                    filled: 0,
                    head: None,
                })
                .collect(),
            heap: BinaryHeap::with_capacity(runs.len()),
        };
        for run in 0..runs.len() {
            merge.read_head(run)?;
        }
        Ok(merge)
    }

    /// The smallest current record: (key, index, run).
    fn pop(&mut self) -> Option<(u64, u64, usize)> {
        self.heap.pop().map(|Reverse(top)| top)
    }

    /// The key of the smallest current record after the one popped.
    fn next_key(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse(top)| top.0)
    }

    fn body_len(&self, run: usize) -> u64 {
        self.readers[run].head.expect("a current record").2
    }

    /// Makes at least `want` (at most a buffer) bytes of `run` readable
    /// at its position; fewer only at the run's end.
    fn fill(&mut self, run: usize, want: usize) -> Result<(), SampleError> {
        let reader = &mut self.readers[run];
        if reader.filled - reader.at >= want {
            return Ok(());
        }
        reader.buffer.copy_within(reader.at..reader.filled, 0);
        reader.base += reader.at as u64;
        reader.filled -= reader.at;
        reader.at = 0;
        let position = reader.base + reader.filled as u64;
        let take = (reader.buffer.len() - reader.filled).min((reader.end - position) as usize);
        if take > 0 {
            let range = reader.filled..reader.filled + take;
            self.file
                .read_exact_at(&mut reader.buffer[range], position)
                .map_err(|err| temp_error(&err, self.dir))?;
            reader.filled += take;
        }
        Ok(())
    }

    /// Reads the header of `run`'s next record, if any, into the heap.
    fn read_head(&mut self, run: usize) -> Result<(), SampleError> {
        self.fill(run, HEADER_BYTES)?;
        let reader = &mut self.readers[run];
        if reader.filled - reader.at < HEADER_BYTES {
            reader.head = None;
            return Ok(());
        }
        let bytes = &reader.buffer[reader.at..reader.at + HEADER_BYTES];
        let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        let head = (word(0), word(8), word(16));
        reader.at += HEADER_BYTES;
        reader.head = Some(head);
        self.heap.push(Reverse((head.0, head.1, run)));
        Ok(())
    }

    /// Copies the body of `run`'s current record to `sink`.
    fn copy_body(
        &mut self,
        run: usize,
        sink: &mut dyn FnMut(&[u8]) -> Result<(), SampleError>,
    ) -> Result<(), SampleError> {
        let mut left = self.body_len(run) as usize;
        while left > 0 {
            self.fill(run, 1)?;
            let reader = &mut self.readers[run];
            let take = left.min(reader.filled - reader.at);
            if take == 0 {
                return Err(SampleError::io(
                    &std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
                    format!("a temporary file in '{}' ended early", self.dir.display()),
                ));
            }
            sink(&reader.buffer[reader.at..reader.at + take])?;
            reader.at += take;
            left -= take;
        }
        Ok(())
    }

    /// The file offset of the body of `run`'s current record (before it
    /// is copied or passed over).
    fn body_offset(&self, run: usize) -> u64 {
        let reader = &self.readers[run];
        reader.base + reader.at as u64
    }

    /// Passes over the body of `run`'s current record; returns its file
    /// offset and length.
    fn skip_body(&mut self, run: usize) -> Result<(u64, u64), SampleError> {
        let len = self.body_len(run);
        let reader = &mut self.readers[run];
        let offset = reader.base + reader.at as u64;
        let buffered = (reader.filled - reader.at) as u64;
        if len <= buffered {
            reader.at += len as usize;
        } else {
            reader.base = offset + len;
            reader.at = 0;
            reader.filled = 0;
        }
        Ok((offset, len))
    }

    /// Moves `run` to its next record (after its body was copied or
    /// passed over).
    fn advance(&mut self, run: usize) -> Result<(), SampleError> {
        self.read_head(run)
    }
}

#[cfg(test)]
mod tests;
