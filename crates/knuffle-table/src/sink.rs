//! Writing record batches in a table format to any byte sink (a file
//! written by knuffle's rule for written files, a shard, a buffer).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;

use crate::error::{Error, arrow_error, parquet_error};
use crate::format::Format;
use crate::layout::ParquetLayout;
use crate::parquet_out::ParallelParquet;

/// Bytes buffered between a (non-Parquet) table writer and its sink.
const BUFFER: usize = 1 << 20;

/// A table being written in one format.
pub struct TableWriter<W: Write + Send> {
    format: Writer<W>,
    /// The name errors give.
    name: PathBuf,
    /// Whether any batch (or the empty batch that writes a CSV header) was
    /// written.
    written: bool,
    schema: SchemaRef,
    /// A TSV output (no quoting: fields must not hold TABs or line breaks).
    tsv: bool,
}

enum Writer<W: Write + Send> {
    Parquet(ParallelParquet<W>),
    ArrowFile(arrow::ipc::writer::FileWriter<BufWriter<W>>),
    ArrowStream(arrow::ipc::writer::StreamWriter<BufWriter<W>>),
    Csv(arrow::csv::Writer<BufWriter<W>>),
    Json(arrow::json::LineDelimitedWriter<BufWriter<W>>),
}

impl<W: Write + Send> TableWriter<W> {
    /// A writer of `format` with `schema` into `sink`; `name` is the
    /// output's name for errors; `parquet` the layout of a Parquet output.
    pub fn new(
        sink: W,
        format: Format,
        schema: &SchemaRef,
        parquet: &ParquetLayout,
        name: &Path,
    ) -> Result<TableWriter<W>, Error> {
        let buffered = |sink| BufWriter::with_capacity(BUFFER, sink);
        // A CSV or TSV file starting with U+FEFF is read without it (a byte
        // order mark): a first column named so would come back renamed
        // (found by `cargo fuzz run table_csv`).
        if matches!(format, Format::Csv(_))
            && schema
                .fields()
                .first()
                .is_some_and(|f| f.name().starts_with('\u{feff}'))
        {
            return Err(Error::invalid(format!(
                "{}: the first column's name starts with U+FEFF (a byte order mark), which \
                 a CSV reader drops: rename the column, or write another format",
                name.display()
            )));
        }
        let writer = match format {
            Format::Parquet => Writer::Parquet(
                ParallelParquet::try_new(sink, schema, parquet)
                    .map_err(|e| parquet_error(name, e))?,
            ),
            Format::ArrowFile => Writer::ArrowFile(
                arrow::ipc::writer::FileWriter::try_new(buffered(sink), schema)
                    .map_err(|e| arrow_error(name, e))?,
            ),
            Format::ArrowStream => Writer::ArrowStream(
                arrow::ipc::writer::StreamWriter::try_new(buffered(sink), schema)
                    .map_err(|e| arrow_error(name, e))?,
            ),
            // TSV has no quoting: a field is written as it is (one holding a
            // TAB or a line break cannot be, see `write`).
            Format::Csv(delimiter) => Writer::Csv(
                arrow::csv::WriterBuilder::new()
                    .with_header(true)
                    .with_delimiter(delimiter)
                    .with_quote_style(if delimiter == b'\t' {
                        arrow::csv::QuoteStyle::Never
                    } else {
                        arrow::csv::QuoteStyle::Necessary
                    })
                    .build(buffered(sink)),
            ),
            Format::JsonLines => {
                Writer::Json(arrow::json::LineDelimitedWriter::new(buffered(sink)))
            }
        };
        Ok(TableWriter {
            format: writer,
            name: name.to_path_buf(),
            written: false,
            schema: schema.clone(),
            tsv: format == Format::Csv(b'\t'),
        })
    }

    /// Writes `batch`.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        self.written = true;
        let name = &self.name;
        let ipc = matches!(self.format, Writer::ArrowFile(_) | Writer::ArrowStream(_));
        if batch.num_columns() == 0 && batch.num_rows() > 0 && !ipc {
            // Only Arrow IPC keeps a row count of its own: the other
            // writers would write the rows as nothing.
            return Err(Error::invalid(format!(
                "{}: a table of rows without columns can only be written as Arrow IPC \
                 (.arrow, .arrows)",
                name.display()
            )));
        }
        match &mut self.format {
            Writer::Parquet(w) => w.write(batch).map_err(|e| parquet_error(name, e)),
            Writer::ArrowFile(w) => w.write(batch).map_err(|e| match e {
                arrow::error::ArrowError::InvalidArgumentError(text)
                    if text.contains("Dictionary replacement") =>
                {
                    Error::invalid(format!(
                        "{}: an Arrow IPC file holds one dictionary per column, and a \
                         dictionary column's values differ between batches of this table: \
                         write an Arrow stream (.arrows) or Parquet instead",
                        name.display()
                    ))
                }
                other => arrow_error(name, other),
            }),
            Writer::ArrowStream(w) => w.write(batch).map_err(|e| arrow_error(name, e)),
            Writer::Csv(w) => {
                if self.tsv {
                    check_tsv_fields(batch, name)?;
                }
                w.write(batch).map_err(|e| arrow_error(name, e))
            }
            Writer::Json(w) => w.write(batch).map_err(|e| arrow_error(name, e)),
        }
    }

    /// Bytes the writer holds in memory (a Parquet row group in progress).
    pub fn buffered_bytes(&self) -> usize {
        match &self.format {
            Writer::Parquet(w) => w.memory_size(),
            _ => BUFFER,
        }
    }

    /// Ends a Parquet row group early (to bound memory); other formats have
    /// nothing to end.
    pub fn end_row_group(&mut self) -> Result<(), Error> {
        match &mut self.format {
            Writer::Parquet(w) => w.end_row_group().map_err(|e| parquet_error(&self.name, e)),
            _ => Ok(()),
        }
    }

    /// Writes what ends the table (a CSV header of an empty table, Parquet's
    /// footer, the IPC file's footer) and gives the sink back.
    pub fn finish(mut self) -> Result<W, Error> {
        if !self.written && !self.schema.fields().is_empty() {
            // An empty table: a CSV still gets its header.
            let empty = RecordBatch::new_empty(self.schema.clone());
            self.write(&empty)?;
        }
        let name = self.name;
        let flushed = |w: BufWriter<W>| w.into_inner().map_err(|e| Error::io_at(&name, e.error()));
        match self.format {
            Writer::Parquet(w) => w.into_inner().map_err(|e| parquet_error(&name, e)),
            Writer::ArrowFile(w) => flushed(w.into_inner().map_err(|e| arrow_error(&name, e))?),
            Writer::ArrowStream(w) => flushed(w.into_inner().map_err(|e| arrow_error(&name, e))?),
            Writer::Csv(w) => flushed(w.into_inner()),
            Writer::Json(mut w) => {
                w.finish().map_err(|e| arrow_error(&name, e))?;
                flushed(w.into_inner())
            }
        }
    }
}

/// A TSV field is the text between TABs, unquoted: a text field holding a
/// TAB or a line break cannot be written as TSV without changing the rows
/// read back.
fn check_tsv_fields(batch: &RecordBatch, name: &Path) -> Result<(), Error> {
    use arrow::array::{Array, AsArray};
    use arrow::datatypes::DataType;
    let bad = |text: &str| text.bytes().any(|b| matches!(b, b'\t' | b'\n' | b'\r'));
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        // A dictionary of text: its values as they are written.
        let column = match column.data_type() {
            DataType::Dictionary(_, values) => {
                arrow::compute::cast(column, values).map_err(|e| arrow_error(name, e))?
            }
            _ => column.clone(),
        };
        let found = match column.data_type() {
            DataType::Utf8 => column.as_string::<i32>().iter().flatten().any(bad),
            DataType::LargeUtf8 => column.as_string::<i64>().iter().flatten().any(bad),
            DataType::Utf8View => column.as_string_view().iter().flatten().any(bad),
            _ => false,
        };
        if found && !column.is_empty() {
            return Err(Error::invalid(format!(
                "{}: column '{}' has a value with a TAB or a line break, which TSV (no \
                 quoting) cannot hold; write CSV (.csv) or another format",
                name.display(),
                field.name()
            )));
        }
    }
    Ok(())
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
    /// Rows per batch written (at most `output::WRITE_ROWS`; fewer when a
    /// wide table's batches would pass their share of the memory limit).
    pub write_rows: usize,
}
