//! `--partition-by COL`: the rows in the table order written to a Hive
//! layout, as pyarrow's `write_to_dataset(partition_cols=[COL])` and
//! Spark's `partitionBy` write it: `OUT/COL=VALUE/part-00000.EXT`, the
//! column left out of the files (Hive readers, knuffle's and pyarrow's, read
//! it back from the directory names), each directory's rows in the table
//! order (the rows of each value in the order of the unpartitioned output),
//! across its files in name order.
//!
//! Names: the value's text (integers in decimal) escaped as pyarrow escapes
//! it (`hive::encode`), a null `__HIVE_DEFAULT_PARTITION__`. Memory: no
//! partition is held; each value has a writer, at most [`MAX_OPEN`] (fewer
//! when the memory limit allows fewer) are open at once; the one used
//! least recently is then closed and its value gets a new file
//! (`part-00001`, ...) when it comes back; Parquet row groups are ended
//! early when the open writers together hold more than the writers' share
//! of the memory limit. At most [`MAX_PARTITIONS`] values.
//!
//! Nothing appears under OUT until every file is complete: the directories
//! are written in a hidden directory next to OUT (`.OUT.knuffle-XXXXXX`,
//! removed on failure; left behind only by a killed run) renamed to OUT at
//! the end.

use std::collections::HashMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, AsArray, UInt32Array};
use arrow::datatypes::{DataType, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;

use crate::error::{Error, arrow_error};
use crate::hive;
use crate::open_files::check_open_file_limit;
use crate::sink::TableWriter;
use crate::sink::WriteSettings;

/// The most distinct values of a partition column (pyarrow's
/// `max_partitions` is 1,024 by default).
pub const MAX_PARTITIONS: usize = 10_000;

/// Files of one partition at most: `part-00000` to `part-99999`, names
/// that sort in the order written.
const MAX_FILES: usize = 100_000;

/// The most files open at once.
pub const MAX_OPEN: usize = 256;

/// Bytes an open writer takes at least: its buffer (sink.rs) and, for
/// Parquet, its column writers (about 12 KiB a column in parquet 60.1).
fn writer_bytes(columns: usize) -> usize {
    (1 << 20) + columns.saturating_mul(12 << 10)
}

/// Checks, before any row is read, that `column` of `schema` can be a
/// partition column: it exists, its name can be a directory's key, and its
/// values are text or integers (what a Hive reader reads back).
pub fn check_column(schema: &Schema, column: &str) -> Result<(), Error> {
    let Ok(field) = schema.field_with_name(column) else {
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        return Err(Error::invalid(format!(
            "--partition-by {column}: no such column (the columns: {})",
            names.join(", ")
        )));
    };
    if column.starts_with(['.', '_']) {
        return Err(Error::invalid(format!(
            "--partition-by {column}: a directory whose name starts with '.' or '_' is \
             skipped by Hive readers (knuffle's, pyarrow's, Spark's): rename the column"
        )));
    }
    if schema.fields().len() == 1 {
        return Err(Error::invalid(format!(
            "--partition-by {column}: the table's only column; its files would have no columns"
        )));
    }
    if !partitionable(field.data_type()) {
        return Err(Error::invalid(format!(
            "--partition-by {column}: the column is {}; a partition column must be text or \
             integers (a Hive reader reads directory names back as those)",
            field.data_type()
        )));
    }
    Ok(())
}

fn partitionable(data_type: &DataType) -> bool {
    use DataType::*;
    match data_type {
        Utf8 | LargeUtf8 | Utf8View | Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32
        | UInt64 => true,
        Dictionary(_, values) => partitionable(values),
        _ => false,
    }
}

/// One value's directory and its writer.
struct Partition {
    /// The directory's name (`COL=VALUE`).
    name: String,
    /// Files written for it so far (the open one included).
    files: usize,
    /// The open writer and when it was last used.
    open: Option<(TableWriter<File>, u64)>,
}

/// The writer of a partitioned output.
pub(crate) struct Partitioned {
    dir: PathBuf,
    staging: tempfile::TempDir,
    column: usize,
    name: String,
    file_schema: SchemaRef,
    settings: WriteSettings,
    partitions: HashMap<Option<String>, Partition>,
    opened: usize,
    max_open: usize,
    clock: u64,
}

impl Partitioned {
    /// A partitioned output of rows of `schema` into the directory `dir`
    /// (new or empty, checked before), by the column `column`.
    pub(crate) fn new(
        dir: &Path,
        column: &str,
        settings: WriteSettings,
        schema: &SchemaRef,
    ) -> Result<Partitioned, Error> {
        check_column(schema, column)?;
        let index = schema.index_of(column).map_err(|e| arrow_error(dir, e))?;
        let mut fields = schema.fields().to_vec();
        fields.remove(index);
        let file_schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let base = dir
            .file_name()
            .map_or_else(|| "out".to_owned(), |n| n.to_string_lossy().into_owned());
        let staging = tempfile::Builder::new()
            .prefix(&format!(".{base}.knuffle-"))
            .tempdir_in(parent)
            .map_err(|e| Error::io_at(parent, &e))?;
        let columns = crate::json_in::leaf_count(&file_schema);
        let max_open = (settings.writer_memory / writer_bytes(columns)).clamp(1, MAX_OPEN);
        check_open_file_limit(max_open as u64)?;
        Ok(Partitioned {
            dir: dir.to_path_buf(),
            staging,
            column: index,
            name: column.to_owned(),
            file_schema,
            settings,
            partitions: HashMap::new(),
            opened: 0,
            max_open,
            clock: 0,
        })
    }

    /// Writes the next rows of the order, each to its value's directory.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        let keys = arrow::compute::cast(batch.column(self.column), &DataType::Utf8)
            .map_err(|e| arrow_error(&self.dir, e))?;
        let keys = keys.as_string::<i32>();
        // The rows of each value, in order, the values in order of their
        // first row.
        let mut groups: Vec<(Option<String>, Vec<u32>)> = Vec::new();
        let mut group_of: HashMap<Option<&str>, usize> = HashMap::new();
        for row in 0..keys.len() {
            let key = keys.is_valid(row).then(|| keys.value(row));
            let at = *group_of.entry(key).or_insert_with(|| {
                groups.push((key.map(str::to_owned), Vec::new()));
                groups.len() - 1
            });
            groups[at].1.push(row as u32);
        }
        let mut columns = batch.columns().to_vec();
        columns.remove(self.column);
        let rows = RecordBatch::try_new_with_options(
            self.file_schema.clone(),
            columns,
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
        )
        .map_err(|e| arrow_error(&self.dir, e))?;
        for (key, positions) in groups {
            let part = if positions.len() == rows.num_rows() {
                rows.clone()
            } else {
                arrow::compute::take_record_batch(&rows, &UInt32Array::from(positions))
                    .map_err(|e| arrow_error(&self.dir, e))?
            };
            self.write_to(key, &part)?;
        }
        self.bound_memory()
    }

    fn write_to(&mut self, key: Option<String>, rows: &RecordBatch) -> Result<(), Error> {
        self.clock += 1;
        if !self.partitions.contains_key(&key) {
            if self.partitions.len() == MAX_PARTITIONS {
                return Err(Error::invalid(format!(
                    "--partition-by {}: more than {MAX_PARTITIONS} distinct values; partition \
                     by a column of fewer values",
                    self.name
                )));
            }
            let name = self.directory_name(key.as_deref())?;
            fs::create_dir(self.staging.path().join(&name))
                .map_err(|e| Error::io_at(&self.dir.join(&name), &e))?;
            let partition = Partition {
                name,
                files: 0,
                open: None,
            };
            self.partitions.insert(key.clone(), partition);
        }
        if self.partitions[&key].open.is_none() {
            if self.opened == self.max_open {
                self.close_least_recent()?;
            }
            let partition = self.partitions.get_mut(&key).expect("inserted above");
            if partition.files == MAX_FILES {
                // Names of five digits sort in the order written.
                return Err(Error::invalid(format!(
                    "--partition-by {}: the value '{}' would need more than {MAX_FILES} files \
                     (its file is closed and reopened when more values are written at once than \
                     files are open); raise the memory limit (--memory) or partition by a column \
                     of fewer values",
                    self.name, partition.name
                )));
            }
            let file_name = format!(
                "part-{:05}.{}",
                partition.files,
                self.settings.format.extension()
            );
            let shown = self.dir.join(&partition.name).join(&file_name);
            let path = self.staging.path().join(&partition.name).join(&file_name);
            let file = File::create(&path).map_err(|e| Error::io_at(&shown, &e))?;
            let writer = TableWriter::new(
                file,
                self.settings.format,
                &self.file_schema,
                &self.settings.parquet,
                &shown,
            )?;
            partition.files += 1;
            partition.open = Some((writer, self.clock));
            self.opened += 1;
        }
        let clock = self.clock;
        let partition = self.partitions.get_mut(&key).expect("inserted above");
        let (writer, used) = partition.open.as_mut().expect("opened above");
        *used = clock;
        writer.write(rows)
    }

    /// `COL=VALUE`, escaped; an error for a value a Hive reader would read
    /// back as another.
    fn directory_name(&self, value: Option<&str>) -> Result<String, Error> {
        let value = match value {
            None => hive::NULL_VALUE.to_owned(),
            Some(hive::NULL_VALUE) => {
                return Err(Error::invalid(format!(
                    "--partition-by {}: the value '{}' is how Hive writes a null; it would \
                     be read back as null",
                    self.name,
                    hive::NULL_VALUE
                )));
            }
            Some(text) => hive::encode(text),
        };
        let name = format!("{}={value}", hive::encode(&self.name));
        if name.len() > 255 {
            return Err(Error::invalid(format!(
                "--partition-by {}: a value is too long for a directory name ({} bytes \
                 escaped, at most 255)",
                self.name,
                name.len()
            )));
        }
        Ok(name)
    }

    /// Closes the writer used least recently (its file complete).
    fn close_least_recent(&mut self) -> Result<(), Error> {
        let oldest = self
            .partitions
            .values_mut()
            .filter(|p| p.open.is_some())
            .min_by_key(|p| p.open.as_ref().map(|(_, used)| *used));
        if let Some(partition) = oldest
            && let Some((writer, _)) = partition.open.take()
        {
            close(writer)?;
            self.opened -= 1;
        }
        Ok(())
    }

    /// Ends the largest Parquet row groups in progress (each at most once)
    /// while the open writers hold more than their share of memory.
    fn bound_memory(&mut self) -> Result<(), Error> {
        if self.settings.format != crate::format::Format::Parquet {
            return Ok(());
        }
        let limit = self.settings.writer_memory;
        let mut open: Vec<(usize, &mut TableWriter<File>)> = self
            .partitions
            .values_mut()
            .filter_map(|p| p.open.as_mut().map(|(w, _)| (w.buffered_bytes(), w)))
            .collect();
        let mut total: usize = open.iter().map(|(bytes, _)| bytes).sum();
        if total <= limit {
            return Ok(());
        }
        open.sort_by_key(|b| std::cmp::Reverse(b.0));
        for (bytes, writer) in open {
            if total <= limit {
                break;
            }
            writer.end_row_group()?;
            total = total - bytes + writer.buffered_bytes();
        }
        Ok(())
    }

    /// Closes every file, then renames the hidden directory to OUT.
    pub(crate) fn finish(mut self) -> Result<(), Error> {
        for partition in self.partitions.values_mut() {
            if let Some((writer, _)) = partition.open.take() {
                close(writer)?;
            }
        }
        let staging = self.staging.path().to_path_buf();
        // rename(2) replaces an empty directory (OUT was checked new or
        // empty; a file put there since makes this an error).
        fs::rename(&staging, &self.dir).map_err(|e| Error::io_at(&self.dir, &e))?;
        // Renamed: nothing left to remove.
        let _ = self.staging.keep();
        Ok(())
    }
}

/// Ends a file: its table's end written, its bytes on the disk.
fn close(writer: TableWriter<File>) -> Result<(), Error> {
    let file = writer.finish()?;
    file.sync_all()
        .map_err(|e| Error::io(format!("syncing a partition file: {e}")))
}
