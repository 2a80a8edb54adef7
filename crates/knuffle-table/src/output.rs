//! Where the shuffled rows go: one file, or a directory of shards, each a
//! contiguous run of the order. Nothing appears under the output's name
//! until everything is written: a file is written by knuffle's rule for
//! written files (a temporary file renamed at the end), and shards are
//! nameless files linked into the directory at the end. A file whose name
//! ends in `.gz` or `.zst` is written compressed (CSV, TSV, JSON Lines),
//! its compressed stream ended before the file is kept.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use knuffle_records::compressed::{self, Compressed, CompressedWriter};
use knuffle_records::{NewFile, WrittenFile};

use crate::error::Error;
use crate::format::Format;
use crate::layout::ParquetLayout;
use crate::sink::TableWriter;

/// The most shards one run writes (each is an open file until the end).
pub const MAX_SHARDS: u64 = 100_000;

/// How rows are cut into shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardSplit {
    /// This many shards, of sizes that differ by at most one row (the first
    /// ones take the extra rows).
    Count(u64),
    /// Shards of this many rows, the last one shorter.
    RowsEach(u64),
}

impl ShardSplit {
    /// The number of rows in each shard, for `rows` rows.
    pub fn sizes(self, rows: u64) -> Result<Vec<u64>, Error> {
        let sizes: Vec<u64> = match self {
            ShardSplit::Count(0) => return Err(Error::invalid("--shards must be at least 1")),
            ShardSplit::RowsEach(0) => {
                return Err(Error::invalid("--rows-per-shard must be at least 1"));
            }
            ShardSplit::Count(count) => {
                if count > MAX_SHARDS {
                    return Err(Error::invalid(format!(
                        "--shards {count}: at most {MAX_SHARDS} shards"
                    )));
                }
                (0..count)
                    .map(|i| rows / count + u64::from(i < rows % count))
                    .collect()
            }
            ShardSplit::RowsEach(each) => {
                let count = rows.div_ceil(each).max(1);
                if count > MAX_SHARDS {
                    return Err(Error::invalid(format!(
                        "--rows-per-shard {each} makes {count} shards of {rows} rows: at most \
                         {MAX_SHARDS} shards"
                    )));
                }
                (0..count).map(|i| each.min(rows - i * each)).collect()
            }
        };
        Ok(sizes)
    }
}

/// The output of a table shuffle.
#[derive(Clone, Debug)]
pub enum Destination {
    /// One file.
    File(PathBuf),
    /// A directory (that does not exist, or is empty) of shards named
    /// `part-00000.EXT`, `part-00001.EXT`, ...
    Shards(PathBuf, ShardSplit),
}

impl Destination {
    /// The output's path.
    pub fn path(&self) -> &Path {
        match self {
            Destination::File(path) | Destination::Shards(path, _) => path,
        }
    }

    /// Checks, before any row is read, that the output can be written.
    pub fn check(&self) -> Result<(), Error> {
        match self {
            Destination::File(path) => Ok(knuffle_records::check_writable(path)?),
            Destination::Shards(dir, _) => {
                check_shard_directory(dir)?;
                NewFile::in_directory(parent_of(dir)).map(drop)?;
                Ok(())
            }
        }
    }
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// A shard directory must not exist, or be an empty directory (knuffle
/// never removes files it did not write).
fn check_shard_directory(dir: &Path) -> Result<(), Error> {
    match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let parent = parent_of(dir);
            if !parent.is_dir() {
                return Err(Error::io(format!(
                    "{}: directory {} does not exist",
                    dir.display(),
                    parent.display()
                )));
            }
            Ok(())
        }
        Err(e) => Err(Error::io_at(dir, &e)),
        Ok(metadata) if metadata.is_dir() => {
            let mut entries = fs::read_dir(dir).map_err(|e| Error::io_at(dir, &e))?;
            if entries.next().is_some() {
                return Err(Error::invalid(format!(
                    "{}: the shard directory is not empty (give a new or empty directory)",
                    dir.display()
                )));
            }
            Ok(())
        }
        Ok(_) => Err(Error::invalid(format!(
            "{}: exists and is not a directory (shards go to a directory)",
            dir.display()
        ))),
    }
}

/// The compression of the output `destination` in `format`: that of its
/// name (`.gz`, `.zst`), for CSV, TSV and JSON Lines only (Parquet and
/// Arrow compress inside: `--compression`); shards are not compressed.
pub(crate) fn compression(
    destination: &Destination,
    format: Format,
) -> Result<Option<Compressed>, Error> {
    let Destination::File(path) = destination else {
        return Ok(None);
    };
    let Some(found) = compressed::by_extension(path) else {
        return Ok(None);
    };
    if !found.is_read() {
        return Err(Error::invalid(format!(
            "{}: knuffle writes gzip (.gz) and zstd (.zst), not {}",
            path.display(),
            found.name()
        )));
    }
    if !matches!(format, Format::Csv(_) | Format::JsonLines) {
        return Err(Error::invalid(format!(
            "{}: a {format} file is compressed inside (--compression for Parquet), not as a \
             whole: drop the .{} from the name",
            path.display(),
            path.extension()
                .map_or_else(String::new, |e| e.to_string_lossy().into_owned())
        )));
    }
    Ok(Some(found))
}

/// Settings of the written tables.
#[derive(Clone, Debug)]
pub struct WriteSettings {
    /// The format of the output.
    pub format: Format,
    /// The layout of Parquet outputs.
    pub parquet: ParquetLayout,
    /// Bytes a Parquet writer may hold before it ends a row group early.
    pub writer_memory: usize,
}

/// Rows per batch written: batches are cut at multiples of it, whatever
/// the sizes pushed, so the output's bytes do not depend on how the rows
/// arrived (in memory, or bucket by bucket).
pub const WRITE_ROWS: usize = 8192;

/// Rows in the table order go in; they come out as one file or as shards.
pub struct Emitter {
    settings: WriteSettings,
    schema: SchemaRef,
    target: Target,
    /// Rows pushed but not yet written (fewer than [`WRITE_ROWS`]).
    pending: Vec<RecordBatch>,
    pending_rows: usize,
}

enum Target {
    /// The file's writer, and its name.
    File(Option<TableWriter<CompressedWriter<WrittenFile>>>, PathBuf),
    Shards(Shards),
}

struct Shards {
    dir: PathBuf,
    /// Rows still to go in each shard, from the current one on.
    sizes: Vec<u64>,
    next: usize,
    current: Option<(TableWriter<NewFile>, u64)>,
    done: Vec<NewFile>,
}

impl Emitter {
    /// An emitter of `rows` rows to `destination`.
    pub fn new(
        destination: &Destination,
        settings: WriteSettings,
        schema: SchemaRef,
        rows: u64,
    ) -> Result<Emitter, Error> {
        let target = match destination {
            Destination::File(path) => {
                let packing = compression(destination, settings.format)?;
                let file = WrittenFile::create(path)?;
                let sink =
                    CompressedWriter::new(file, packing).map_err(|e| Error::io_at(path, &e))?;
                let writer =
                    TableWriter::new(sink, settings.format, &schema, &settings.parquet, path)?;
                Target::File(Some(writer), path.clone())
            }
            Destination::Shards(dir, split) => {
                let sizes = split.sizes(rows)?;
                raise_open_file_limit(sizes.len() as u64)?;
                Target::Shards(Shards {
                    dir: dir.clone(),
                    sizes,
                    next: 0,
                    current: None,
                    done: Vec::new(),
                })
            }
        };
        Ok(Emitter {
            settings,
            schema,
            target,
            pending: Vec::new(),
            pending_rows: 0,
        })
    }

    /// Writes the next rows of the order.
    pub fn push(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        if self.pending.is_empty() && batch.num_rows() == WRITE_ROWS {
            return self.write(batch);
        }
        self.pending_rows += batch.num_rows();
        self.pending.push(batch.clone());
        while self.pending_rows >= WRITE_ROWS {
            let all = arrow::compute::concat_batches(&self.schema, &self.pending)
                .map_err(|e| Error::invalid(format!("internal: output batches: {e}")))?;
            self.write(&all.slice(0, WRITE_ROWS))?;
            self.pending_rows -= WRITE_ROWS;
            self.pending = vec![all.slice(WRITE_ROWS, self.pending_rows)];
        }
        if self.pending_rows == 0 {
            self.pending.clear();
        }
        Ok(())
    }

    /// Rows to push before the next batch boundary (pushing batches of this
    /// many, then of [`WRITE_ROWS`], writes them without a copy).
    pub fn rows_to_boundary(&self) -> usize {
        WRITE_ROWS - self.pending_rows
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        let limit = self.settings.writer_memory;
        match &mut self.target {
            Target::File(writer, _) => {
                let writer = writer.as_mut().expect("the file is open until finish");
                writer.write(batch)?;
                if writer.buffered_bytes() > limit {
                    writer.end_row_group()?;
                }
                Ok(())
            }
            Target::Shards(shards) => shards.push(batch, &self.settings, &self.schema),
        }
    }

    /// Ends the output: the file is renamed into place, or the shards are
    /// linked into their directory.
    pub fn finish(mut self) -> Result<(), Error> {
        if self.pending_rows > 0 {
            let rest = arrow::compute::concat_batches(&self.schema, &self.pending)
                .map_err(|e| Error::invalid(format!("internal: output batches: {e}")))?;
            self.write(&rest)?;
        }
        match self.target {
            Target::File(writer, path) => {
                let sink = writer.expect("the file is open until finish").finish()?;
                // The compressed stream's end, written and checked before
                // the file is kept (an error leaves no file).
                let file = sink.finish().map_err(|e| Error::io_at(&path, &e))?;
                Ok(file.finish()?)
            }
            Target::Shards(shards) => shards.finish(&self.settings, &self.schema),
        }
    }
}

impl Shards {
    fn name(&self, index: usize, format: Format) -> PathBuf {
        let width = (self.sizes.len().saturating_sub(1))
            .to_string()
            .len()
            .max(5);
        self.dir
            .join(format!("part-{index:0width$}.{}", format.extension()))
    }

    fn open_next(&mut self, settings: &WriteSettings, schema: &SchemaRef) -> Result<(), Error> {
        let name = self.name(self.next, settings.format);
        let file = NewFile::in_directory(parent_of(&self.dir))?;
        let writer = TableWriter::new(file, settings.format, schema, &settings.parquet, &name)?;
        self.current = Some((writer, self.sizes[self.next]));
        self.next += 1;
        Ok(())
    }

    fn close_current(&mut self) -> Result<(), Error> {
        if let Some((writer, _)) = self.current.take() {
            self.done.push(writer.finish()?);
        }
        Ok(())
    }

    fn push(
        &mut self,
        batch: &RecordBatch,
        settings: &WriteSettings,
        schema: &SchemaRef,
    ) -> Result<(), Error> {
        let mut offset = 0;
        while offset < batch.num_rows() {
            if self.current.as_ref().is_none_or(|(_, left)| *left == 0) {
                self.close_current()?;
                if self.next == self.sizes.len() {
                    return Err(Error::invalid("more rows than the shards were sized for"));
                }
                self.open_next(settings, schema)?;
                continue;
            }
            let (writer, left) = self.current.as_mut().expect("a shard is open");
            let take = (*left).min((batch.num_rows() - offset) as u64) as usize;
            writer.write(&batch.slice(offset, take))?;
            if writer.buffered_bytes() > settings.writer_memory {
                writer.end_row_group()?;
            }
            *left -= take as u64;
            offset += take;
        }
        Ok(())
    }

    fn finish(mut self, settings: &WriteSettings, schema: &SchemaRef) -> Result<(), Error> {
        self.close_current()?;
        // Empty shards (more shards than rows) are tables with no rows.
        while self.next < self.sizes.len() {
            self.open_next(settings, schema)?;
            self.close_current()?;
        }
        let created = match fs::create_dir(&self.dir) {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                check_shard_directory(&self.dir)?;
                false
            }
            Err(e) => return Err(Error::io_at(&self.dir, &e)),
        };
        let names: Vec<PathBuf> = (0..self.done.len())
            .map(|i| self.name(i, settings.format))
            .collect();
        let mut linked = Vec::new();
        for (file, name) in self.done.drain(..).zip(&names) {
            if let Err(error) = file.link_as(name) {
                for name in &linked {
                    let _ = fs::remove_file(name);
                }
                if created {
                    let _ = fs::remove_dir(&self.dir);
                }
                return Err(error.into());
            }
            linked.push(name.clone());
        }
        Ok(())
    }
}

/// Raises the soft limit of open files to what `shards` open shards need
/// (up to the hard limit), or says why they cannot be written.
fn raise_open_file_limit(shards: u64) -> Result<(), Error> {
    let needed = shards + 64;
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Ok(());
    }
    if limit.rlim_cur >= needed {
        return Ok(());
    }
    if limit.rlim_max >= needed {
        let raised = libc::rlimit {
            rlim_cur: needed,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit reads the struct it is given.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            return Ok(());
        }
    }
    Err(Error::invalid(format!(
        "{shards} shards need {needed} open files, but the limit is {} (raise it with ulimit -n, \
         or write fewer shards)",
        limit.rlim_max
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_sizes_cover_every_row_once() {
        assert_eq!(ShardSplit::Count(3).sizes(10).unwrap(), [4, 3, 3]);
        assert_eq!(ShardSplit::Count(4).sizes(2).unwrap(), [1, 1, 0, 0]);
        assert_eq!(ShardSplit::RowsEach(4).sizes(10).unwrap(), [4, 4, 2]);
        assert_eq!(ShardSplit::RowsEach(4).sizes(0).unwrap(), [0]);
        assert!(ShardSplit::Count(0).sizes(3).is_err());
        assert!(ShardSplit::RowsEach(1).sizes(MAX_SHARDS + 1).is_err());
    }
}
