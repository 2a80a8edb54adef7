//! A Parquet input: its footer read and decoded once ([`Footer`]; checked
//! first, parquet_footer.rs), then its row groups decoded into batches,
//! several at once when they fit the memory allowed for it.

use std::collections::VecDeque;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow::record_batch::RecordBatch;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder,
};
use parquet::file::metadata::ParquetMetaData;

use crate::contain::contained;
use crate::error::{Error, arrow_error, parquet_error};
use crate::layout::ParquetLayout;
use crate::opened::{Opened, Reading};
use crate::parquet_footer;
use crate::positioned::PositionedFile;

/// A Parquet file's footer, read, checked and decoded: the file's open
/// descriptor, its metadata, and the footer's length in the file (checked
/// again against the memory limit of each reading).
pub(crate) struct Footer {
    file: File,
    metadata: ArrowReaderMetadata,
    length: u64,
}

#[cfg(test)]
thread_local! {
    /// Footers read on this thread (tests prove that each input's is read
    /// once per run).
    pub(crate) static FOOTER_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl Footer {
    /// Reads the footer of the Parquet file `file` (`path` for messages),
    /// checked first against `memory`, the memory limit.
    pub(crate) fn read(path: &Path, mut file: File, memory: u64) -> Result<Footer, Error> {
        #[cfg(test)]
        FOOTER_READS.with(|reads| reads.set(reads.get() + 1));
        let length = parquet_footer::check(path, &mut file, memory)?;
        let metadata = contained(path, || {
            ArrowReaderMetadata::load(&file, Default::default()).map_err(|e| parquet_error(path, e))
        })?;
        Ok(Footer {
            file,
            metadata,
            length,
        })
    }

    /// The memory its decoded metadata takes.
    pub(crate) fn bytes(&self) -> u64 {
        self.metadata.metadata().memory_size() as u64
    }

    /// The same footer over a descriptor of its own (the file is not read
    /// again).
    pub(crate) fn again(&self, path: &Path) -> Result<Footer, Error> {
        Ok(Footer {
            file: self.file.try_clone().map_err(|e| Error::io_at(path, &e))?,
            metadata: self.metadata.clone(),
            length: self.length,
        })
    }
}

/// Opens the Parquet file `file` as `reading` says: its footer read, then
/// its row groups.
pub(crate) fn open(path: PathBuf, file: File, reading: Reading) -> Result<Opened, Error> {
    let footer = Footer::read(&path, file, reading.memory)?;
    open_read(path, footer, reading)
}

/// Opens the Parquet file whose footer is `footer` (read already, maybe
/// under another memory limit: checked against `reading`'s again, as a
/// footer read anew would be).
pub(crate) fn open_read(path: PathBuf, footer: Footer, reading: Reading) -> Result<Opened, Error> {
    parquet_footer::check_memory(&path, footer.length, reading.memory)?;
    let Footer { file, metadata, .. } = footer;
    let file_len = file.metadata().map_err(|e| Error::io_at(&path, &e))?.len();
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
            file: PositionedFile::new(file, file_len),
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
    file: PositionedFile,
    metadata: ArrowReaderMetadata,
    batch_rows: usize,
    parallel: usize,
}

impl GroupDecoder {
    fn reader(&self, group: usize) -> Result<ParquetRecordBatchReader, Error> {
        // Every decoder reads the descriptor the footer was read from, at
        // its own offsets (positioned.rs).
        let file = self.file.clone();
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
