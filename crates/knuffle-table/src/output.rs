//! Where the shuffled rows go: one file, a directory of shards, or one file
//! per part of a split (`--parts`), each shard or part a contiguous run of
//! the order. Nothing appears under the output's name until everything is
//! written: a file (and each part) is written by knuffle's rule for written
//! files (a temporary file renamed at the end), and shards are nameless
//! files linked into the directory at the end; a partitioned directory
//! (`--partition-by`) is written under a hidden name and renamed. A file or part whose name
//! ends in `.gz` or `.zst` is written compressed (CSV, TSV, JSON Lines), its
//! compressed stream ended before the file is kept.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use knuffle_io::compressed::{self, Compressed, CompressedWriter};
use knuffle_io::{NewFile, OutputFile, WrittenFile};
use knuffle_sample::Parts;

use crate::batch_merge::{HELD_BATCHES, merge_small_tail};
use crate::error::Error;
use crate::format::Format;
use crate::open_files::check_open_file_limit;
use crate::partition_out::Partitioned;
use crate::sink::TableWriter;
pub(crate) use crate::sink::WriteSettings;

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
    /// One file per part of a split (`--parts 80,10,10`): part `j` holds
    /// the `j`-th run of the order, of the exact size
    /// [`Parts::sizes`] gives (the largest remainder method).
    Parts(Vec<PathBuf>, Parts),
    /// A directory (that does not exist, or is empty) in a Hive layout by
    /// the values of a column (`--partition-by`, partition_out.rs):
    /// `COL=VALUE/part-00000.EXT`, ...
    Partitioned(PathBuf, String),
}

impl Destination {
    /// The output's path (a split's first part; none: empty).
    pub fn path(&self) -> &Path {
        match self {
            Destination::File(path)
            | Destination::Shards(path, _)
            | Destination::Partitioned(path, _) => path,
            Destination::Parts(paths, _) => paths.first().map_or(Path::new(""), PathBuf::as_path),
        }
    }

    /// Checks, before any row is read, that the output can be written.
    pub fn check(&self) -> Result<(), Error> {
        match self {
            Destination::File(path) => Ok(knuffle_io::check_writable(path)?),
            Destination::Shards(dir, _) | Destination::Partitioned(dir, _) => {
                check_shard_directory(dir)?;
                NewFile::in_directory(parent_of(dir)).map(drop)?;
                Ok(())
            }
            Destination::Parts(paths, parts) => {
                if paths.len() != parts.len() {
                    return Err(Error::invalid(format!(
                        "--parts has {} share{} but {} output{} {} given (-o once per part, \
                         in the order of the shares)",
                        parts.len(),
                        if parts.len() == 1 { "" } else { "s" },
                        paths.len(),
                        if paths.len() == 1 { "" } else { "s" },
                        if paths.len() == 1 { "was" } else { "were" },
                    )));
                }
                let mut seen: Vec<OutputFile> = Vec::with_capacity(paths.len());
                for path in paths {
                    let file = OutputFile::of(path);
                    if seen.contains(&file) {
                        return Err(Error::invalid(format!(
                            "{}: named twice as an output (each part needs its own file)",
                            path.display()
                        )));
                    }
                    seen.push(file);
                    knuffle_io::check_writable(path)?;
                }
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

/// The compression of the output `destination` in `format`: that of each
/// file's name (`.gz`, `.zst`; a split's parts each by their own), for CSV,
/// TSV and JSON Lines only (Parquet and Arrow compress inside:
/// `--compression`); shards are not compressed. Checked before any row is
/// read.
pub(crate) fn compression(destination: &Destination, format: Format) -> Result<(), Error> {
    match destination {
        Destination::File(path) => compression_of(path, format).map(drop),
        Destination::Parts(paths, _) => paths
            .iter()
            .try_for_each(|path| compression_of(path, format).map(drop)),
        Destination::Shards(_, _) | Destination::Partitioned(_, _) => Ok(()),
    }
}

/// The compression of the file `path` in `format`, by its name.
fn compression_of(path: &Path, format: Format) -> Result<Option<Compressed>, Error> {
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

/// The file `path` by the rule for written files, compressed as its name
/// says, with a table writer in `settings`' format on it.
fn written_table(
    path: &Path,
    settings: &WriteSettings,
    schema: &SchemaRef,
) -> Result<TableWriter<CompressedWriter<WrittenFile>>, Error> {
    let packing = compression_of(path, settings.format)?;
    let file = WrittenFile::create(path)?;
    let sink = CompressedWriter::new(file, packing).map_err(|e| Error::io_at(path, &e))?;
    TableWriter::new(sink, settings.format, schema, &settings.parquet, path)
}

/// Ends a written table's compressed stream (written and checked before
/// the file is kept: an error leaves no file).
fn end_stream(sink: CompressedWriter<WrittenFile>, path: &Path) -> Result<WrittenFile, Error> {
    sink.finish().map_err(|e| Error::io_at(path, &e))
}

/// Rows per batch written, at most: batches are cut at multiples of
/// `WriteSettings::write_rows` (this, or fewer for a wide table under a
/// small limit), whatever the sizes pushed, so the output's bytes do not
/// depend on how the rows arrived (in memory, or bucket by bucket).
pub const WRITE_ROWS: usize = 8192;

/// Rows in the table order go in; they come out as one file or as shards.
pub struct Emitter {
    settings: WriteSettings,
    schema: SchemaRef,
    target: Target,
    /// Rows pushed but not yet written (fewer than `write_rows`).
    pending: Vec<RecordBatch>,
    pending_rows: usize,
}

enum Target {
    /// The file's writer, and its name.
    File(Option<TableWriter<CompressedWriter<WrittenFile>>>, PathBuf),
    Shards(Shards),
    Parts(PartFiles),
    Partitioned(Partitioned),
}

/// Consecutive runs of the order, each into a file of its own: the rows of
/// shards and of parts.
struct Runs<F: io::Write + Send> {
    /// The rows of each run.
    sizes: Vec<u64>,
    /// The run opened next.
    next: usize,
    /// The open run and its rows still to come.
    current: Option<(TableWriter<F>, u64)>,
    /// The files of the runs written.
    done: Vec<F>,
}

struct Shards {
    dir: PathBuf,
    runs: Runs<NewFile>,
}

/// The files of a split's parts, renamed into place once all are written.
struct PartFiles {
    paths: Vec<PathBuf>,
    runs: Runs<CompressedWriter<WrittenFile>>,
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
                Target::File(Some(written_table(path, &settings, &schema)?), path.clone())
            }
            Destination::Shards(dir, split) => {
                let sizes = split.sizes(rows)?;
                check_open_file_limit(sizes.len() as u64)?;
                Target::Shards(Shards {
                    dir: dir.clone(),
                    runs: Runs::new(sizes),
                })
            }
            Destination::Parts(paths, parts) => Target::Parts(PartFiles {
                paths: paths.clone(),
                runs: Runs::new(parts.sizes(rows)),
            }),
            Destination::Partitioned(dir, column) => {
                Target::Partitioned(Partitioned::new(dir, column, settings.clone(), &schema)?)
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
        if self.pending.is_empty() && batch.num_rows() == self.settings.write_rows {
            return self.write(batch);
        }
        self.pending_rows += batch.num_rows();
        self.pending.push(batch.clone());
        if self.pending.len() > HELD_BATCHES {
            // A sample keeps a few rows of each batch read.
            merge_small_tail(&self.schema, &mut self.pending, usize::MAX)?;
        }
        let rows = self.settings.write_rows;
        if self.pending_rows >= rows {
            let all = arrow::compute::concat_batches(&self.schema, &self.pending)
                .map_err(|e| Error::invalid(format!("internal: output batches: {e}")))?;
            let mut at = 0;
            while self.pending_rows >= rows {
                self.write(&all.slice(at, rows))?;
                self.pending_rows -= rows;
                at += rows;
            }
            self.pending = vec![all.slice(at, self.pending_rows)];
        }
        if self.pending_rows == 0 {
            self.pending.clear();
        }
        Ok(())
    }

    /// Rows to push before the next batch boundary (pushing batches of this
    /// many, then of [`Emitter::write_rows`], writes them without a copy).
    pub fn rows_to_boundary(&self) -> usize {
        self.settings.write_rows - self.pending_rows
    }

    /// Rows per batch written.
    pub fn write_rows(&self) -> usize {
        self.settings.write_rows
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
            Target::Shards(Shards { dir, runs }) => {
                let open = shard_opener(dir, runs.sizes.len(), &self.settings, &self.schema);
                runs.push(batch, limit, open)
            }
            Target::Parts(PartFiles { paths, runs }) => runs.push(
                batch,
                limit,
                part_opener(paths, &self.settings, &self.schema),
            ),
            Target::Partitioned(partitioned) => partitioned.write(batch),
        }
    }

    /// Ends the output: the file is renamed into place, or the shards are
    /// linked into their directory.
    pub fn finish(self) -> Result<(), Error> {
        self.finish_unkept()?.keep()
    }

    /// Ends the output but leaves a file out of place until
    /// [`Written::keep`] (the parts of a table split are kept together,
    /// once all are written); shards, parts and partitions are put in
    /// place now.
    pub(crate) fn finish_unkept(mut self) -> Result<Written, Error> {
        if self.pending_rows > 0 {
            let rest = arrow::compute::concat_batches(&self.schema, &self.pending)
                .map_err(|e| Error::invalid(format!("internal: output batches: {e}")))?;
            self.write(&rest)?;
        }
        match self.target {
            Target::File(writer, path) => {
                let sink = writer.expect("the file is open until finish").finish()?;
                Ok(Written(Some(end_stream(sink, &path)?)))
            }
            Target::Shards(shards) => shards
                .finish(&self.settings, &self.schema)
                .map(|()| Written(None)),
            Target::Parts(parts) => parts
                .finish(&self.settings, &self.schema)
                .map(|()| Written(None)),
            Target::Partitioned(partitioned) => partitioned.finish().map(|()| Written(None)),
        }
    }
}

/// An output written to its end, its file not yet in place.
pub(crate) struct Written(Option<WrittenFile>);

impl Written {
    /// Puts the file in place (renamed over its name).
    pub(crate) fn keep(self) -> Result<(), Error> {
        match self.0 {
            Some(file) => Ok(file.finish()?),
            None => Ok(()),
        }
    }
}

impl<F: io::Write + Send> Runs<F> {
    fn new(sizes: Vec<u64>) -> Runs<F> {
        Runs {
            sizes,
            next: 0,
            current: None,
            done: Vec::new(),
        }
    }

    fn close_current(&mut self) -> Result<(), Error> {
        if let Some((writer, _)) = self.current.take() {
            self.done.push(writer.finish()?);
        }
        Ok(())
    }

    fn open_next(
        &mut self,
        open: &mut impl FnMut(usize) -> Result<TableWriter<F>, Error>,
    ) -> Result<(), Error> {
        self.current = Some((open(self.next)?, self.sizes[self.next]));
        self.next += 1;
        Ok(())
    }

    /// Writes the next rows of the order, opening run `i`'s file with
    /// `open(i)` when it starts.
    fn push(
        &mut self,
        batch: &RecordBatch,
        writer_memory: usize,
        mut open: impl FnMut(usize) -> Result<TableWriter<F>, Error>,
    ) -> Result<(), Error> {
        let mut offset = 0;
        while offset < batch.num_rows() {
            if self.current.as_ref().is_none_or(|(_, left)| *left == 0) {
                self.close_current()?;
                if self.next == self.sizes.len() {
                    return Err(Error::invalid("more rows than the outputs were sized for"));
                }
                self.open_next(&mut open)?;
                continue;
            }
            let (writer, left) = self.current.as_mut().expect("a run is open");
            let take = (*left).min((batch.num_rows() - offset) as u64) as usize;
            writer.write(&batch.slice(offset, take))?;
            if writer.buffered_bytes() > writer_memory {
                writer.end_row_group()?;
            }
            *left -= take as u64;
            offset += take;
        }
        Ok(())
    }

    /// Closes the runs, writing an empty table for each run left (more runs
    /// than rows, a part of share 0): the files of every run, in order.
    fn finish(
        mut self,
        mut open: impl FnMut(usize) -> Result<TableWriter<F>, Error>,
    ) -> Result<Vec<F>, Error> {
        self.close_current()?;
        while self.next < self.sizes.len() {
            self.open_next(&mut open)?;
            self.close_current()?;
        }
        Ok(self.done)
    }
}

impl PartFiles {
    /// Every part written to its end (compressed streams ended), then each
    /// renamed into place: a failure before the renames leaves no part.
    fn finish(self, settings: &WriteSettings, schema: &SchemaRef) -> Result<(), Error> {
        let PartFiles { paths, runs } = self;
        let sinks = runs.finish(part_opener(&paths, settings, schema))?;
        let files = sinks
            .into_iter()
            .zip(&paths)
            .map(|(sink, path)| end_stream(sink, path))
            .collect::<Result<Vec<WrittenFile>, Error>>()?;
        for file in files {
            file.finish()?;
        }
        Ok(())
    }
}

/// Opens part `i`'s file: `paths[i]`, by the rule for written files,
/// compressed as its name says.
fn part_opener<'a>(
    paths: &'a [PathBuf],
    settings: &'a WriteSettings,
    schema: &'a SchemaRef,
) -> impl FnMut(usize) -> Result<TableWriter<CompressedWriter<WrittenFile>>, Error> + 'a {
    move |index| written_table(&paths[index], settings, schema)
}

impl Shards {
    /// Every shard written, then linked into the directory (made now).
    fn finish(self, settings: &WriteSettings, schema: &SchemaRef) -> Result<(), Error> {
        let Shards { dir, runs } = self;
        let count = runs.sizes.len();
        let files = runs.finish(shard_opener(&dir, count, settings, schema))?;
        let created = match fs::create_dir(&dir) {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                check_shard_directory(&dir)?;
                false
            }
            Err(e) => return Err(Error::io_at(&dir, &e)),
        };
        let mut linked = Vec::new();
        for (index, file) in files.into_iter().enumerate() {
            let name = name_of_shard(&dir, count, index, settings.format);
            if let Err(error) = file.link_as(&name) {
                for name in &linked {
                    let _ = fs::remove_file(name);
                }
                if created {
                    let _ = fs::remove_dir(&dir);
                }
                return Err(error.into());
            }
            linked.push(name);
        }
        Ok(())
    }
}

/// Opens shard `i`'s file of `count`: nameless, in the directory's parent
/// (linked into the directory at the end).
fn shard_opener<'a>(
    dir: &'a Path,
    count: usize,
    settings: &'a WriteSettings,
    schema: &'a SchemaRef,
) -> impl FnMut(usize) -> Result<TableWriter<NewFile>, Error> + 'a {
    move |index| {
        let name = name_of_shard(dir, count, index, settings.format);
        let file = NewFile::in_directory(parent_of(dir))?;
        TableWriter::new(file, settings.format, schema, &settings.parquet, &name)
    }
}

/// The name of shard `index` of `count` in `dir`: `part-00000.EXT` (more
/// digits for more than 100,000 shards).
fn name_of_shard(dir: &Path, count: usize, index: usize, format: Format) -> PathBuf {
    let width = (count.saturating_sub(1)).to_string().len().max(5);
    dir.join(format!("part-{index:0width$}.{}", format.extension()))
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
