//! The inputs of a table shuffle: files, several files, or directories of
//! shards, each opened as a stream of Arrow record batches, all of one
//! schema.

use std::collections::VecDeque;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReaderBuilder};

use crate::error::{Error, arrow_error, parquet_error};
use crate::format::Format;
use crate::layout::ParquetLayout;

/// One input file and its format.
#[derive(Clone, Debug)]
pub struct Source {
    /// The path.
    pub path: PathBuf,
    /// Its format.
    pub format: Format,
}

/// The input files of `paths` in order: a file is itself, a directory its
/// table files (those whose extension names a format, or all with
/// `--format`), in byte order of their paths, recursively, skipping names
/// that start with `.` or `_` (`_SUCCESS`, `.crc` files of Spark and Hadoop).
pub fn list(paths: &[PathBuf], format: Option<Format>) -> Result<Vec<Source>, Error> {
    let mut sources = Vec::new();
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
        } else {
            sources.push(Source {
                path: path.clone(),
                format: Format::of(path, format)?,
            });
        }
    }
    if sources.is_empty() {
        return Err(Error::invalid("no input tables"));
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
            out.push(Source { path, format });
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
    /// Rows per batch.
    pub batch_rows: usize,
    /// Bytes several row groups decoded at once may take.
    pub parallel_bytes: u64,
}

impl Reading {
    /// Batches of `batch_rows`, one row group at a time.
    pub fn one_at_a_time(batch_rows: usize) -> Reading {
        Reading {
            batch_rows,
            parallel_bytes: 0,
        }
    }
}

/// Opens `source` for reading as `reading` says; `schema`
/// overrides the one a JSON Lines file would be read with (the merged
/// schema of several files).
pub fn open(source: &Source, schema: Option<SchemaRef>, reading: Reading) -> Result<Opened, Error> {
    let path = source.path.clone();
    let batch_rows = reading.batch_rows;
    let file = File::open(&path).map_err(|e| Error::io_at(&path, &e))?;
    match source.format {
        Format::Parquet => open_parquet(path, file, reading),
        Format::ArrowFile => {
            let reader = arrow::ipc::reader::FileReader::try_new(BufReader::new(file), None)
                .map_err(|e| arrow_error(&path, e))?;
            Ok(from_arrow(path, reader.schema(), reader, None))
        }
        Format::ArrowStream => {
            let reader = arrow::ipc::reader::StreamReader::try_new(BufReader::new(file), None)
                .map_err(|e| arrow_error(&path, e))?;
            Ok(from_arrow(path, reader.schema(), reader, None))
        }
        Format::Csv(delimiter) => open_csv(path, file, delimiter, batch_rows),
        Format::JsonLines => open_json(path, file, schema, batch_rows),
    }
}

fn from_arrow<I>(path: PathBuf, schema: SchemaRef, reader: I, rows: Option<u64>) -> Opened
where
    I: Iterator<Item = Result<RecordBatch, arrow::error::ArrowError>> + Send + 'static,
{
    Opened {
        schema,
        batches: Box::new(reader.map(move |batch| batch.map_err(|e| arrow_error(&path, e)))),
        rows,
        parquet: None,
    }
}

fn open_parquet(path: PathBuf, file: File, reading: Reading) -> Result<Opened, Error> {
    let metadata = ArrowReaderMetadata::load(&file, Default::default())
        .map_err(|e| parquet_error(&path, e))?;
    // Row groups decoded at once: as many as there are threads, when that
    // many of the largest fit in the memory allowed for it.
    let largest = metadata
        .metadata()
        .row_groups()
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
    let batch_rows = reading.batch_rows;
    let layout = ParquetLayout::of(metadata.metadata());
    let rows = u64::try_from(metadata.metadata().file_metadata().num_rows()).ok();
    let schema = metadata.schema().clone();
    let groups = RowGroups {
        path,
        file,
        metadata,
        next: 0,
        batch_rows,
        parallel,
        ready: VecDeque::new(),
    };
    Ok(Opened {
        schema,
        batches: Box::new(groups),
        rows,
        parquet: Some(layout),
    })
}

/// A Parquet file's batches, row group after row group; with `parallel`
/// above 1, that many row groups are decoded at once (on rayon's threads)
/// and their batches handed out in file order.
struct RowGroups {
    path: PathBuf,
    file: File,
    metadata: ArrowReaderMetadata,
    next: usize,
    batch_rows: usize,
    parallel: usize,
    ready: VecDeque<Result<RecordBatch, Error>>,
}

impl RowGroups {
    fn decode(&self, group: usize) -> Result<Vec<RecordBatch>, Error> {
        // Each decoder its own descriptor (a shared one shares its offset);
        // the first group reads the descriptor opened first.
        let file = if self.parallel > 1 {
            File::open(&self.path)
        } else {
            self.file.try_clone()
        }
        .map_err(|e| Error::io_at(&self.path, &e))?;
        ParquetRecordBatchReaderBuilder::new_with_metadata(file, self.metadata.clone())
            .with_row_groups(vec![group])
            .with_batch_size(self.batch_rows)
            .build()
            .map_err(|e| parquet_error(&self.path, e))?
            .map(|batch| batch.map_err(|e| arrow_error(&self.path, e)))
            .collect()
    }
}

impl Iterator for RowGroups {
    type Item = Result<RecordBatch, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let groups = self.metadata.metadata().num_row_groups();
        while self.ready.is_empty() && self.next < groups {
            let end = (self.next + self.parallel).min(groups);
            let decoded: Vec<Result<Vec<RecordBatch>, Error>> = if end - self.next > 1 {
                use rayon::prelude::*;
                (self.next..end)
                    .into_par_iter()
                    .map(|g| self.decode(g))
                    .collect()
            } else {
                vec![self.decode(self.next)]
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

/// A CSV file's columns are strings named by its header: every field comes
/// back out as the text it was (an empty field is null, written empty).
/// The header is parsed from the first bytes and put back in front of the
/// rest, so a pipe or FIFO works as well as a file.
fn open_csv(path: PathBuf, file: File, delimiter: u8, batch_rows: usize) -> Result<Opened, Error> {
    let mut input = BufReader::with_capacity(1 << 20, file);
    let (head, names) = read_header(&mut input, delimiter).map_err(|e| match e {
        HeaderError::Io(e) => Error::io_at(&path, &e),
        HeaderError::Invalid(text) => Error::invalid(format!("{}: {text}", path.display())),
    })?;
    let schema: SchemaRef = Arc::new(Schema::new(
        names
            .iter()
            .map(|name| Field::new(name, DataType::Utf8, true))
            .collect::<Vec<_>>(),
    ));
    let format = arrow::csv::reader::Format::default()
        .with_header(true)
        .with_delimiter(delimiter);
    let reader = arrow::csv::ReaderBuilder::new(schema.clone())
        .with_format(format)
        .with_batch_size(batch_rows)
        .build(std::io::Cursor::new(head).chain(input))
        .map_err(|e| csv_error(&path, e))?;
    let batches = reader.map(move |batch| batch.map_err(|e| csv_error(&path, e)));
    Ok(Opened {
        schema,
        batches: Box::new(batches),
        rows: None,
        parquet: None,
    })
}

enum HeaderError {
    Io(std::io::Error),
    Invalid(String),
}

/// Reads the first record of an RFC 4180 input: the bytes read so far (to
/// read again) and the header's fields.
fn read_header(
    input: &mut impl BufRead,
    delimiter: u8,
) -> Result<(Vec<u8>, Vec<String>), HeaderError> {
    use csv_core::{ReadRecordResult, ReaderBuilder};
    let mut parser = ReaderBuilder::new().delimiter(delimiter).build();
    let mut head = Vec::new();
    let mut fields = vec![0u8; 1024];
    let mut ends = vec![0usize; 64];
    let (mut written, mut ended) = (0usize, 0usize);
    loop {
        let available = input.fill_buf().map_err(HeaderError::Io)?;
        let (result, read, out, count) =
            parser.read_record(available, &mut fields[written..], &mut ends[ended..]);
        head.extend_from_slice(&available[..read]);
        let at_end = available.is_empty();
        input.consume(read);
        written += out;
        ended += count;
        match result {
            ReadRecordResult::InputEmpty if !at_end => {}
            ReadRecordResult::InputEmpty | ReadRecordResult::End => {
                // No bytes at all: a table with no columns; else the last
                // record ends at the end of the input.
                if head.is_empty() {
                    return Ok((head, Vec::new()));
                }
                if matches!(result, ReadRecordResult::InputEmpty) {
                    continue;
                }
                break;
            }
            ReadRecordResult::OutputFull => fields.resize(fields.len() * 2, 0),
            ReadRecordResult::OutputEndsFull => ends.resize(ends.len() * 2, 0),
            ReadRecordResult::Record => break,
        }
        if head.len() > 64 << 20 {
            return Err(HeaderError::Invalid(
                "the CSV header is longer than 64 MiB (not a CSV file?)".into(),
            ));
        }
    }
    let mut names = Vec::with_capacity(ended);
    let mut start = 0;
    for &end in &ends[..ended] {
        let name = std::str::from_utf8(&fields[start..end])
            .map_err(|_| HeaderError::Invalid("the CSV header is not UTF-8".into()))?;
        names.push(name.to_owned());
        start = end;
    }
    Ok((head, names))
}

/// Arrow's CSV errors, with the file's name and "record" for its line
/// count (a quoted newline does not end a record).
fn csv_error(path: &Path, error: arrow::error::ArrowError) -> Error {
    match error {
        arrow::error::ArrowError::CsvError(text) => Error::invalid(format!(
            "{}: {}",
            path.display(),
            text.replace("for line", "in record")
        )),
        other => arrow_error(path, other),
    }
}

fn open_json(
    path: PathBuf,
    file: File,
    schema: Option<SchemaRef>,
    batch_rows: usize,
) -> Result<Opened, Error> {
    let mut buffered = BufReader::with_capacity(1 << 20, file);
    let schema = match schema {
        Some(schema) => schema,
        None => {
            let (schema, _) =
                arrow::json::reader::infer_json_schema_from_seekable(&mut buffered, None)
                    .map_err(|e| arrow_error(&path, e))?;
            Arc::new(schema)
        }
    };
    let reader = arrow::json::ReaderBuilder::new(schema.clone())
        .with_batch_size(batch_rows)
        .build(buffered)
        .map_err(|e| arrow_error(&path, e))?;
    Ok(from_arrow(path, schema, reader, None))
}

/// The one schema of all `sources`: equal column names and types in every
/// file (a column nullable in one file is nullable in all); JSON Lines
/// files are read with the merge of their inferred schemas.
pub fn common_schema(sources: &[Source]) -> Result<SchemaRef, Error> {
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
    let first = &schemas[0];
    if sources.iter().all(|s| s.format == Format::JsonLines) && sources.len() > 1 {
        let merged =
            Schema::try_merge(schemas.iter().map(|s| s.as_ref().clone())).map_err(|e| {
                Error::invalid(format!("the JSON Lines files do not have one schema ({e})"))
            })?;
        return Ok(Arc::new(merged));
    }
    let mut fields: Vec<Field> = first.fields().iter().map(|f| f.as_ref().clone()).collect();
    for (source, schema) in sources.iter().zip(&schemas).skip(1) {
        if let Some(difference) = difference(first, schema) {
            return Err(Error::invalid(format!(
                "{} and {} do not have the same schema: {difference}",
                sources[0].path.display(),
                source.path.display()
            )));
        }
        for (field, other) in fields.iter_mut().zip(schema.fields()) {
            if other.is_nullable() && !field.is_nullable() {
                *field = field.clone().with_nullable(true);
            }
        }
    }
    Ok(Arc::new(Schema::new_with_metadata(
        fields,
        first.metadata().clone(),
    )))
}

/// How two schemas differ (names, types or count of columns), if they do.
fn difference(a: &Schema, b: &Schema) -> Option<String> {
    let names = |s: &Schema| {
        s.fields()
            .iter()
            .map(|f| f.name().clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if a.fields().len() != b.fields().len() {
        return Some(format!(
            "{} columns ({}) against {} ({})",
            a.fields().len(),
            names(a),
            b.fields().len(),
            names(b)
        ));
    }
    for (x, y) in a.fields().iter().zip(b.fields()) {
        if x.name() != y.name() {
            return Some(format!("column '{}' against '{}'", x.name(), y.name()));
        }
        if x.data_type() != y.data_type() {
            return Some(format!(
                "column '{}' is {} against {}",
                x.name(),
                x.data_type(),
                y.data_type()
            ));
        }
    }
    None
}

/// `batch` under `schema` (the common schema: the same columns, maybe
/// nullable where the file's were not).
pub fn conform(batch: RecordBatch, schema: &SchemaRef, path: &Path) -> Result<RecordBatch, Error> {
    if batch.schema_ref() == schema {
        return Ok(batch);
    }
    RecordBatch::try_new(schema.clone(), batch.columns().to_vec()).map_err(|e| arrow_error(path, e))
}
