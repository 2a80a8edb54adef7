//! The inputs of a table shuffle: files, several files, or directories of
//! shards, each opened as a stream of Arrow record batches, all of one
//! schema.

use std::collections::VecDeque;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::datatypes::{Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder,
};
use parquet::file::metadata::ParquetMetaData;

use crate::compressed_in;
use crate::contain::{Contained, contained};
use crate::csv_in::{self, CsvLimits};
use crate::error::{Error, arrow_error, parquet_error};
use crate::format::Format;
use crate::hive::{self, Partition};
use crate::ipc_in::{self, IpcLimits};
use crate::json_in;
use crate::layout::ParquetLayout;
use crate::parquet_footer;
use crate::schema_merge;

/// One input file and its format.
#[derive(Clone, Debug)]
pub struct Source {
    /// The path.
    pub path: PathBuf,
    /// Its format.
    pub format: Format,
    /// The columns of its Hive partition directories (none for a file
    /// given by itself).
    pub partition: Partition,
}

impl Source {
    /// The file `path` of `format`, outside any partition directory.
    pub fn file(path: PathBuf, format: Format) -> Source {
        Source {
            path,
            format,
            partition: Partition::default(),
        }
    }
}

/// The input files of `paths` in order: a file is itself, a directory its
/// table files (those whose extension names a format, or all with
/// `--format`), in byte order of their paths, recursively, skipping names
/// that start with `.` or `_` (`_SUCCESS`, `.crc` files of Spark and Hadoop).
/// The `key=value` directories between a directory and its files are
/// columns of the files' rows (hive.rs).
pub fn list(paths: &[PathBuf], format: Option<Format>) -> Result<Vec<Source>, Error> {
    let mut sources = Vec::new();
    let mut levels = Vec::new();
    for path in paths {
        let metadata = fs::metadata(path).map_err(|e| Error::io_at(path, &e))?;
        if metadata.is_dir() {
            let before = sources.len();
            walk(path, format, &mut sources)?;
            if sources.len() == before {
                return Err(Error::invalid(format!(
                    "{}: no table files in this directory",
                    path.display()
                )));
            }
            for source in &sources[before..] {
                levels.push(hive::levels_of(path, &source.path)?);
            }
        } else {
            sources.push(Source::file(path.clone(), Format::of(path, format)?));
            levels.push(Vec::new());
        }
    }
    if sources.is_empty() {
        return Err(Error::invalid("no input tables"));
    }
    let files: Vec<(&Path, hive::Levels)> = sources
        .iter()
        .map(|s| s.path.as_path())
        .zip(levels)
        .collect();
    let partitions = hive::partitions(&files)?;
    for (source, partition) in sources.iter_mut().zip(partitions) {
        source.partition = partition;
    }
    Ok(sources)
}

fn walk(dir: &Path, format: Option<Format>, out: &mut Vec<Source>) -> Result<(), Error> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| Error::io_at(dir, &e))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| Error::io_at(dir, &e))?;
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.') || n.starts_with('_'));
        if hidden {
            continue;
        }
        let metadata = fs::metadata(&path).map_err(|e| Error::io_at(&path, &e))?;
        if metadata.is_dir() {
            walk(&path, format, out)?;
        } else if let Some(format) = format.or_else(|| Format::from_extension(&path)) {
            out.push(Source::file(path, format));
        }
    }
    Ok(())
}

/// A stream of record batches.
pub type Batches = Box<dyn Iterator<Item = Result<RecordBatch, Error>> + Send>;

/// An input opened: its schema, its batches, and what is known up front.
pub struct Opened {
    /// The schema of its batches.
    pub schema: SchemaRef,
    /// The batches, in file order.
    pub batches: Batches,
    /// The number of rows, when the file says (Parquet).
    pub rows: Option<u64>,
    /// A Parquet file's layout (compression, row groups, metadata).
    pub parquet: Option<ParquetLayout>,
}

/// The schema of `source` without reading its rows (a CSV's header, a
/// JSON Lines file's inferred types: the whole file is read for those).
pub fn schema_of(source: &Source) -> Result<SchemaRef, Error> {
    Ok(open(source, None, Reading::one_at_a_time(1024))?.schema)
}

/// How an input is read: rows per batch, and the memory that decoding
/// several Parquet row groups at once may take.
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    /// Rows per batch (at most: a reader takes fewer when a batch of that
    /// many would take more than `batch_memory`).
    pub batch_rows: usize,
    /// Bytes several row groups decoded at once may take.
    pub parallel_bytes: u64,
    /// The memory limit: what a reader's metadata (a Parquet footer) may
    /// take at most.
    pub memory: u64,
    /// Bytes one batch being read may take (a reader's buffers for it
    /// included); a row that alone takes more is an error that says to
    /// raise the memory limit.
    pub batch_memory: u64,
}

/// A batch's memory when the memory limit is not given to the reader.
pub const DEFAULT_BATCH_MEMORY: u64 = 64 << 20;

impl Reading {
    /// Batches of `batch_rows`, one row group at a time.
    pub fn one_at_a_time(batch_rows: usize) -> Reading {
        Reading {
            batch_rows,
            parallel_bytes: 0,
            memory: DEFAULT_BATCH_MEMORY * 8,
            batch_memory: DEFAULT_BATCH_MEMORY,
        }
    }

    /// `batch_memory` as a size in memory.
    pub fn batch_bytes(&self) -> usize {
        usize::try_from(self.batch_memory).unwrap_or(usize::MAX)
    }

    /// Rows per batch for rows of `columns` columns, each field taking
    /// at least `bytes_per_field` bytes: at most `batch_rows`, at least one.
    pub fn rows_for(&self, columns: usize, bytes_per_field: usize) -> usize {
        let row = columns.max(1).saturating_mul(bytes_per_field).max(1);
        (self.batch_bytes() / row).clamp(1, self.batch_rows.max(1))
    }
}

/// Opens `source` for reading as `reading` says; `schema`
/// overrides the one a JSON Lines file would be read with (the merged
/// schema of several files). Whatever the file holds, the result is its
/// batches or an error naming it: a panic of a reader is caught
/// ([`contained`]), and a schema with a column name twice is refused.
pub fn open(source: &Source, schema: Option<SchemaRef>, reading: Reading) -> Result<Opened, Error> {
    let partition = &source.partition;
    let schema = match schema {
        Some(schema) if !partition.is_empty() => Some(partition.strip(&schema)),
        other => other,
    };
    let opened = open_own(source, schema, reading)?;
    if partition.is_empty() {
        return Ok(opened);
    }
    let path = source.path.clone();
    let schema = partition.extend(&opened.schema, &path)?;
    let partition = partition.clone();
    let extended = schema.clone();
    let batches = opened.batches.map(move |batch| {
        let batch = batch?;
        let rows = batch.num_rows();
        let mut columns = batch.columns().to_vec();
        columns.extend(partition.columns(rows));
        RecordBatch::try_new_with_options(
            extended.clone(),
            columns,
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map_err(|e| arrow_error(&path, e))
    });
    Ok(Opened {
        schema,
        batches: Box::new(batches),
        ..opened
    })
}

/// Opens `source`'s own columns (see [`open`]).
pub(crate) fn open_own(
    source: &Source,
    schema: Option<SchemaRef>,
    reading: Reading,
) -> Result<Opened, Error> {
    let path = source.path.clone();
    let batch_rows = reading.batch_rows;
    let file = File::open(&path).map_err(|e| Error::io_at(&path, &e))?;
    compressed_in::refuse_whole(&path, &file, source.format)?;
    let workers = crate::text_chunks::workers(reading.parallel_bytes, reading.batch_memory);
    let opened = match source.format {
        Format::Parquet => open_parquet(path.clone(), file, reading)?,
        Format::ArrowFile | Format::ArrowStream => contained(&path, || {
            let limits = IpcLimits {
                memory: reading.memory,
            };
            let file_format = source.format == Format::ArrowFile;
            let (schema, batches) = ipc_in::open(path.clone(), file, file_format, limits)?;
            Ok(Opened {
                schema,
                batches: Box::new(batches),
                rows: None,
                parquet: None,
            })
        })?,
        Format::Csv(delimiter) => {
            let limits = CsvLimits {
                batch_rows,
                batch_bytes: reading.batch_bytes(),
                workers,
            };
            let input = compressed_in::text(&path, file)?;
            let (schema, batches) =
                csv_in::open(path.clone(), input, delimiter, limits, schema.as_deref())?;
            Opened {
                schema,
                batches: Box::new(batches),
                rows: None,
                parquet: None,
            }
        }
        Format::JsonLines => contained(&path, || {
            let input = compressed_in::text(&path, file)?;
            let (schema, batches) = json_in::open(
                &path,
                input,
                schema,
                batch_rows,
                reading.batch_bytes(),
                workers,
            )?;
            Ok(Opened {
                schema,
                batches,
                rows: None,
                parquet: None,
            })
        })?,
    };
    check_distinct_names(&path, &opened.schema)?;
    Ok(Opened {
        batches: Box::new(Contained::new(&path, opened.batches)),
        ..opened
    })
}

/// Column names must differ: JSON Lines objects and every reader that
/// finds columns by name would keep one of two columns of the same name
/// (a CSV header `a,b,a` written as JSON Lines has the key `a` twice).
fn check_distinct_names(path: &Path, schema: &Schema) -> Result<(), Error> {
    let mut seen = std::collections::HashMap::with_capacity(schema.fields().len());
    for (index, field) in schema.fields().iter().enumerate() {
        if let Some(first) = seen.insert(field.name().as_str(), index) {
            return Err(Error::invalid(format!(
                "{}: the column name '{}' appears twice (columns {} and {}); knuffle needs \
                 distinct column names: rename one",
                path.display(),
                field.name(),
                first + 1,
                index + 1
            )));
        }
    }
    Ok(())
}

fn open_parquet(path: PathBuf, mut file: File, reading: Reading) -> Result<Opened, Error> {
    parquet_footer::check(&path, &mut file, reading.memory)?;
    let metadata = contained(&path, || {
        ArrowReaderMetadata::load(&file, Default::default()).map_err(|e| parquet_error(&path, e))
    })?;
    let rows = check_row_counts(&path, metadata.metadata())?;
    // Refused when its batches are read (its schema alone is fine).
    let too_wide = check_column_readers(&path, metadata.metadata(), &reading).err();
    // Row groups decoded at once: as many as there are threads, when that
    // many of the largest fit in the memory allowed for it.
    let groups = metadata.metadata().row_groups();
    let largest = groups
        .iter()
        .map(|g| u64::try_from(g.total_byte_size()).unwrap_or(0))
        .max()
        .unwrap_or(0);
    let threads = rayon::current_num_threads().max(1);
    let parallel = if largest.saturating_mul(threads as u64) <= reading.parallel_bytes {
        threads
    } else {
        1
    };
    // Rows per batch: as many as fit in a batch's memory at the largest
    // bytes per row of any row group (its uncompressed size over its rows,
    // at least 8 bytes a column).
    let columns = metadata.schema().fields().len();
    let row_bytes = groups
        .iter()
        .map(|g| {
            let bytes = u64::try_from(g.total_byte_size()).unwrap_or(0);
            bytes / u64::try_from(g.num_rows()).unwrap_or(1).max(1)
        })
        .max()
        .unwrap_or(0)
        .max(8 * columns as u64);
    let batch_rows = reading.rows_for(1, usize::try_from(row_bytes).unwrap_or(usize::MAX));
    let layout = ParquetLayout::of(metadata.metadata());
    let schema = metadata.schema().clone();
    if columns == 0 {
        // Rows without columns: the decoders give no batches; the row
        // groups' counts are the rows.
        let counts: Vec<usize> = groups
            .iter()
            .map(|g| usize::try_from(g.num_rows()).unwrap_or(0))
            .filter(|&n| n > 0)
            .collect();
        let empty = schema.clone();
        let batches = counts.into_iter().map(move |rows| {
            RecordBatch::try_new_with_options(
                empty.clone(),
                Vec::new(),
                &arrow::array::RecordBatchOptions::new().with_row_count(Some(rows)),
            )
            .map_err(|e| arrow_error(&path, e))
        });
        return Ok(Opened {
            schema,
            batches: Box::new(batches.collect::<Vec<_>>().into_iter()),
            rows: Some(rows),
            parquet: Some(layout),
        });
    }
    if let Some(error) = too_wide {
        return Ok(Opened {
            schema,
            batches: Box::new(std::iter::once(Err(error))),
            rows: Some(rows),
            parquet: Some(layout),
        });
    }
    let groups = RowGroups {
        groups: GroupDecoder {
            path,
            file,
            metadata,
            batch_rows,
            parallel,
        },
        next: 0,
        ready: VecDeque::new(),
        current: None,
    };
    Ok(Opened {
        schema,
        batches: Box::new(groups),
        rows: Some(rows),
        parquet: Some(layout),
    })
}

/// Bytes the Parquet decoder takes per column of a file, at least, whatever
/// its rows (its page reader, decoders and buffers: about 10 KiB each in
/// parquet 60.1, measured on files of 10,000 and 100,000 columns).
pub(crate) const PARQUET_READER_COLUMN_BYTES: u64 = 10 << 10;

/// A Parquet file's column readers must fit in the memory a reader may
/// take (a 10,000-column file takes 100 MB to read a row at a time).
fn check_column_readers(
    path: &Path,
    metadata: &ParquetMetaData,
    reading: &Reading,
) -> Result<(), Error> {
    let columns = metadata.file_metadata().schema_descr().num_columns() as u64;
    let needed = columns.saturating_mul(PARQUET_READER_COLUMN_BYTES);
    let allowed = reading.parallel_bytes.max(reading.batch_memory);
    if needed > allowed {
        return Err(Error::memory(format!(
            "{}: {columns} columns take about {} MiB to read, more than the memory limit \
             allows a reader ({} MiB); raise the memory limit (--memory)",
            path.display(),
            needed.div_ceil(1 << 20),
            allowed >> 20
        )));
    }
    Ok(())
}

/// The rows of a Parquet file: its footer's count, which must be the sum
/// of its row groups' (a footer saying 0 rows over row groups of 2,000
/// would otherwise be read as whatever one of them says).
fn check_row_counts(path: &Path, metadata: &ParquetMetaData) -> Result<u64, Error> {
    let mut sum = 0u64;
    for (index, group) in metadata.row_groups().iter().enumerate() {
        let rows = u64::try_from(group.num_rows()).map_err(|_| {
            Error::invalid(format!(
                "{}: corrupt Parquet footer: row group {index} has {} rows",
                path.display(),
                group.num_rows()
            ))
        })?;
        sum = sum.saturating_add(rows);
    }
    let said = metadata.file_metadata().num_rows();
    if u64::try_from(said) != Ok(sum) {
        return Err(Error::invalid(format!(
            "{}: corrupt Parquet footer: it says {said} rows, its row groups hold {sum}",
            path.display()
        )));
    }
    Ok(sum)
}

/// A Parquet file's batches, row group after row group; with `parallel`
/// above 1, that many row groups are decoded at once (on rayon's threads)
/// and their batches handed out in file order; else one row group's
/// batches are read as they are handed out.
struct RowGroups {
    groups: GroupDecoder,
    next: usize,
    ready: VecDeque<Result<RecordBatch, Error>>,
    /// The row group being read, when one at a time.
    current: Option<ParquetRecordBatchReader>,
}

/// What decodes a row group of a Parquet file (shared by rayon's threads).
struct GroupDecoder {
    path: PathBuf,
    file: File,
    metadata: ArrowReaderMetadata,
    batch_rows: usize,
    parallel: usize,
}

impl GroupDecoder {
    fn reader(&self, group: usize) -> Result<ParquetRecordBatchReader, Error> {
        // Each decoder its own descriptor (a shared one shares its offset);
        // the first group reads the descriptor opened first.
        let file = if self.parallel > 1 {
            File::open(&self.path)
        } else {
            self.file.try_clone()
        }
        .map_err(|e| Error::io_at(&self.path, &e))?;
        contained(&self.path, || {
            ParquetRecordBatchReaderBuilder::new_with_metadata(file, self.metadata.clone())
                .with_row_groups(vec![group])
                .with_batch_size(self.batch_rows)
                .build()
                .map_err(|e| parquet_error(&self.path, e))
        })
    }

    fn decode(&self, group: usize) -> Result<Vec<RecordBatch>, Error> {
        let reader = self.reader(group)?;
        contained(&self.path, || {
            reader
                .map(|batch| batch.map_err(|e| arrow_error(&self.path, e)))
                .collect()
        })
    }
}

impl RowGroups {
    fn next_one_at_a_time(&mut self) -> Option<Result<RecordBatch, Error>> {
        let groups = self.groups.metadata.metadata().num_row_groups();
        loop {
            if let Some(reader) = &mut self.current {
                match reader.next() {
                    Some(batch) => {
                        return Some(batch.map_err(|e| arrow_error(&self.groups.path, e)));
                    }
                    None => self.current = None,
                }
            }
            if self.next >= groups {
                return None;
            }
            match self.groups.reader(self.next) {
                Ok(reader) => self.current = Some(reader),
                Err(e) => {
                    self.next = groups;
                    return Some(Err(e));
                }
            }
            self.next += 1;
        }
    }
}

impl Iterator for RowGroups {
    type Item = Result<RecordBatch, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.groups.parallel <= 1 {
            return self.next_one_at_a_time();
        }
        let groups = self.groups.metadata.metadata().num_row_groups();
        while self.ready.is_empty() && self.next < groups {
            let end = (self.next + self.groups.parallel).min(groups);
            let decoder = &self.groups;
            let decoded: Vec<Result<Vec<RecordBatch>, Error>> = if end - self.next > 1 {
                use rayon::prelude::*;
                (self.next..end)
                    .into_par_iter()
                    .map(|g| decoder.decode(g))
                    .collect()
            } else {
                vec![decoder.decode(self.next)]
            };
            self.next = end;
            for group in decoded {
                match group {
                    Ok(batches) => self.ready.extend(batches.into_iter().map(Ok)),
                    Err(e) => {
                        self.ready.push_back(Err(e));
                        self.next = groups;
                        break;
                    }
                }
            }
        }
        self.ready.pop_front()
    }
}

/// The one schema of all `sources`: their columns matched by name, in the
/// first file's order, each of the type that every file's converts to
/// without loss (schema_merge.rs), nullable when it is in any file; JSON
/// Lines files are read with the merge of their inferred schemas.
pub fn common_schema(sources: &[Source]) -> Result<SchemaRef, Error> {
    merge_schemas(sources, schemas_of(sources)?)
}

/// The schema of each of `sources` (regular files only).
pub(crate) fn schemas_of(sources: &[Source]) -> Result<Vec<SchemaRef>, Error> {
    let mut schemas = Vec::with_capacity(sources.len());
    for source in sources {
        let metadata = fs::metadata(&source.path).map_err(|e| Error::io_at(&source.path, &e))?;
        if !metadata.is_file() {
            return Err(Error::invalid(format!(
                "{}: a pipe or device can only be read as the only input",
                source.path.display()
            )));
        }
        schemas.push(schema_of(source)?);
    }
    Ok(schemas)
}

/// The one schema of `sources` whose schemas are `schemas` (see
/// [`common_schema`]).
pub(crate) fn merge_schemas(
    sources: &[Source],
    schemas: Vec<SchemaRef>,
) -> Result<SchemaRef, Error> {
    if sources.iter().all(|s| s.format == Format::JsonLines) && sources.len() > 1 {
        let named: Vec<(&Path, SchemaRef)> = sources
            .iter()
            .map(|s| s.path.as_path())
            .zip(schemas)
            .collect();
        return Ok(Arc::new(crate::json_kinds::merge(&named)?));
    }
    let named: Vec<(&Path, SchemaRef)> = sources
        .iter()
        .map(|s| s.path.as_path())
        .zip(schemas)
        .collect();
    schema_merge::merge(&named)
}

/// `batch` under `schema` (the common schema: the same columns by name,
/// maybe in another order, of types they convert to exactly, maybe
/// nullable where the file's were not).
pub fn conform(batch: RecordBatch, schema: &SchemaRef, path: &Path) -> Result<RecordBatch, Error> {
    if batch.schema_ref() == schema {
        return Ok(batch);
    }
    let same_columns = batch.num_columns() == schema.fields().len()
        && batch
            .schema_ref()
            .fields()
            .iter()
            .zip(schema.fields())
            .all(|(a, b)| a.name() == b.name() && a.data_type() == b.data_type());
    let columns = if same_columns {
        batch.columns().to_vec()
    } else {
        schema_merge::columns_by_name(&batch, schema, path)?
    };
    RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &arrow::array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
    )
    .map_err(|e| arrow_error(path, e))
}
