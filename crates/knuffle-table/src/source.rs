//! The inputs of a table job: files, several files, or directories of
//! shards, each opened as a stream of Arrow record batches (a Parquet
//! file's footer read once, parquet_in.rs), all of one schema (each input
//! surveyed once for it: its schema, a Parquet file's layout and footer).

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::datatypes::{Schema, SchemaRef};
use arrow::record_batch::RecordBatch;

use crate::compressed_in;
use crate::contain::{Contained, contained};
use crate::csv_in::{self, CsvLimits};
use crate::error::{Error, arrow_error};
use crate::format::Format;
use crate::hive::{self, Partition};
use crate::ipc_in::{self, IpcLimits};
use crate::json_in;
use crate::layout::ParquetLayout;
pub(crate) use crate::opened::{Opened, Reading};
use crate::parquet_in::{self, Footer};
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

/// Opens `source` for reading as `reading` says; `schema`
/// overrides the one a JSON Lines file would be read with (the merged
/// schema of several files). Whatever the file holds, the result is its
/// batches or an error naming it: a panic of a reader is caught
/// ([`contained`]), and a schema with a column name twice is refused.
pub fn open(source: &Source, schema: Option<SchemaRef>, reading: Reading) -> Result<Opened, Error> {
    open_from(source, schema, reading, None)
}

/// [`open`], from the footer of the Parquet file `source` when it was read
/// already (`footer`; the file is not read again for it).
pub(crate) fn open_from(
    source: &Source,
    schema: Option<SchemaRef>,
    reading: Reading,
    footer: Option<Footer>,
) -> Result<Opened, Error> {
    let partition = &source.partition;
    let schema = match schema {
        Some(schema) if !partition.is_empty() => Some(partition.strip(&schema)),
        other => other,
    };
    let opened = open_own_from(source, schema, reading, footer)?;
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
    open_own_from(source, schema, reading, None)
}

/// The file of `source`, opened, refused when a format read only as it is
/// (Parquet, Arrow) is compressed as a whole.
pub(crate) fn open_file(source: &Source) -> Result<File, Error> {
    let path = &source.path;
    let file = File::open(path).map_err(|e| Error::io_at(path, &e))?;
    compressed_in::refuse_whole(path, &file, source.format)?;
    Ok(file)
}

/// [`open_own`], from `footer` when it was read already.
fn open_own_from(
    source: &Source,
    schema: Option<SchemaRef>,
    reading: Reading,
    footer: Option<Footer>,
) -> Result<Opened, Error> {
    let path = source.path.clone();
    let opened = match footer {
        Some(footer) => parquet_in::open_read(path.clone(), footer, reading)?,
        None => open_file_as(source, open_file(source)?, schema, reading)?,
    };
    check_distinct_names(&path, &opened.schema)?;
    Ok(Opened {
        batches: Box::new(Contained::new(&path, opened.batches)),
        ..opened
    })
}

/// The opened file of `source` read in its format.
fn open_file_as(
    source: &Source,
    file: File,
    schema: Option<SchemaRef>,
    reading: Reading,
) -> Result<Opened, Error> {
    let path = source.path.clone();
    let batch_rows = reading.batch_rows;
    let workers = crate::text_chunks::workers(reading.parallel_bytes, reading.batch_memory);
    Ok(match source.format {
        Format::Parquet => parquet_in::open(path.clone(), file, reading)?,
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

/// What the schema pass learns of an input without reading its rows.
pub(crate) struct Surveyed {
    /// Its schema.
    pub(crate) schema: SchemaRef,
    /// A Parquet file's layout.
    pub(crate) layout: Option<ParquetLayout>,
    /// A Parquet file's footer, when kept for its rows to be read without
    /// reading it again.
    pub(crate) footer: Option<Footer>,
}

/// Each of `sources` (regular files only) surveyed: its schema, a Parquet
/// file's layout, and its footer when `keep` says.
pub(crate) fn survey_all(
    sources: &[Source],
    keep: &mut dyn FnMut(&Footer) -> bool,
) -> Result<Vec<Surveyed>, Error> {
    let mut surveyed = Vec::with_capacity(sources.len());
    for source in sources {
        let metadata = fs::metadata(&source.path).map_err(|e| Error::io_at(&source.path, &e))?;
        if !metadata.is_file() {
            return Err(Error::invalid(format!(
                "{}: a pipe or device can only be read as the only input",
                source.path.display()
            )));
        }
        let (opened, footer) = survey(source, Reading::one_at_a_time(1024))?;
        surveyed.push(Surveyed {
            schema: opened.schema,
            layout: opened.parquet,
            footer: footer.filter(|footer| keep(footer)),
        });
    }
    Ok(surveyed)
}

/// `source` opened as `reading` says, and a Parquet file's footer as read
/// for it (the rows pass opens the file from it without reading it again).
pub(crate) fn survey(source: &Source, reading: Reading) -> Result<(Opened, Option<Footer>), Error> {
    if source.format != Format::Parquet {
        return Ok((open(source, None, reading)?, None));
    }
    let footer = Footer::read(&source.path, open_file(source)?, reading.memory)?;
    let opened = open_from(source, None, reading, Some(footer.again(&source.path)?))?;
    Ok((opened, Some(footer)))
}

/// The one schema of all `sources`, whose schemas are `schemas`: their
/// columns matched by name, in the first file's order, each of the type
/// that every file's converts to without loss (schema_merge.rs), nullable
/// when it is in any file; JSON Lines files are read with the merge of
/// their inferred schemas.
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
