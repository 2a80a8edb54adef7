//! Bucket files of the external shuffle: rows moved to the bucket of their
//! label's range, written as Arrow IPC streams to one nameless temporary
//! file (a run that fails or is killed leaves nothing), and read back one
//! bucket at a time, in label order.
//!
//! Every row carries two extra columns while it is spilled: its global row
//! number and its label. Bucket `b` of `B` over the label range `lo..hi`
//! holds the labels `lo + ceil(b (hi - lo) / B) ..`, so buckets in order are
//! labels in order, and a bucket too large to load is split again over its
//! own range by the same rule.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use arrow::array::{Array, ArrayRef, UInt32Array, UInt64Array};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;

use crate::error::Error;

/// Bytes an array of a batch takes beyond its buffers (its structs and
/// reference counts), which `get_array_memory_size` does not count: a wide
/// table read a few rows at a time holds many small arrays.
pub(crate) const ARRAY_OVERHEAD: u64 = 256;

/// Bytes buffered on the way to the spill file.
const WRITE_BUFFER: usize = 1 << 20;

/// The schema of spilled rows: the table's columns, then the row number and
/// the label (named so as not to clash with any column).
pub fn spill_schema(schema: &SchemaRef) -> SchemaRef {
    with_helper_fields(
        schema,
        &[
            ("__knuffle_row", DataType::UInt64),
            ("__knuffle_label", DataType::UInt32),
        ],
    )
}

/// `schema`'s columns, then the non-null `helpers` (names and types), each
/// name suffixed with as many `_` as it takes for none to be a column's.
pub(crate) fn with_helper_fields(schema: &SchemaRef, helpers: &[(&str, DataType)]) -> SchemaRef {
    let taken = |name: &str| schema.fields().iter().any(|f| f.name() == name);
    let mut suffix = String::new();
    while helpers
        .iter()
        .any(|(name, _)| taken(&format!("{name}{suffix}")))
    {
        suffix.push('_');
    }
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    for (name, data_type) in helpers {
        fields.push(Field::new(
            format!("{name}{suffix}"),
            data_type.clone(),
            false,
        ));
    }
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `batch` (rows `first..`) with its row numbers and labels appended.
pub fn with_helpers(
    batch: &RecordBatch,
    spill_schema: &SchemaRef,
    first: u64,
    labels: &[u32],
) -> Result<RecordBatch, Error> {
    let rows: ArrayRef = Arc::new(UInt64Array::from_iter_values(
        first..first + batch.num_rows() as u64,
    ));
    let labels: ArrayRef = Arc::new(UInt32Array::from(labels.to_vec()));
    let mut columns = batch.columns().to_vec();
    columns.push(rows);
    columns.push(labels);
    RecordBatch::try_new(spill_schema.clone(), columns)
        .map_err(|e| Error::invalid(format!("internal: spilled rows: {e}")))
}

/// The row numbers and labels of a spilled batch.
pub fn helpers(batch: &RecordBatch) -> (&UInt64Array, &UInt32Array) {
    let n = batch.num_columns();
    let rows = batch.column(n - 2).as_any().downcast_ref::<UInt64Array>();
    let labels = batch.column(n - 1).as_any().downcast_ref::<UInt32Array>();
    (
        rows.expect("spilled batches end with the row numbers"),
        labels.expect("spilled batches end with the labels"),
    )
}

/// The table's own columns of a spilled batch.
pub fn without_helpers(batch: &RecordBatch, schema: &SchemaRef) -> RecordBatch {
    let n = batch.num_columns();
    RecordBatch::try_new(schema.clone(), batch.columns()[..n - 2].to_vec())
        .expect("the table's columns under the table's schema")
}

/// A range of labels, `lo..hi` (`hi` up to 2^32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelRange {
    pub lo: u64,
    pub hi: u64,
}

impl LabelRange {
    /// Every label.
    pub const ALL: LabelRange = LabelRange {
        lo: 0,
        hi: crate::order::LABELS,
    };

    /// Bucket `b` of `buckets` over this range.
    pub fn part(self, b: usize, buckets: usize) -> LabelRange {
        let width = u128::from(self.hi - self.lo);
        let at = |k: usize| self.lo + (width * k as u128).div_ceil(buckets as u128) as u64;
        LabelRange {
            lo: at(b),
            hi: at(b + 1),
        }
    }

    /// The bucket (of `buckets` over this range) of `label`: the one whose
    /// part holds it.
    fn bucket_of(self, label: u32, buckets: usize) -> usize {
        let offset = u128::from(u64::from(label) - self.lo);
        // floor(offset * B / width): part(b) starts at ceil(b * width / B).
        (offset * buckets as u128 / u128::from(self.hi - self.lo)) as usize
    }
}

/// What one bucket holds on disk.
#[derive(Clone, Debug, Default)]
pub struct Bucket {
    /// Byte ranges (offset, length) of its IPC streams in the spill file.
    pub segments: Vec<(u64, u64)>,
    /// Its rows.
    pub rows: u64,
    /// Its rows' size in memory, estimated when they were spilled.
    pub bytes: u64,
}

/// Rows being moved to buckets.
pub struct Spill {
    file: File,
    out: BufWriter<File>,
    position: u64,
    range: LabelRange,
    buckets: Vec<Bucket>,
    pending: Vec<Vec<RecordBatch>>,
    /// The rows' bytes of each bucket's waiting slices.
    pending_shares: Vec<u64>,
    pending_bytes: usize,
    pending_budget: usize,
    schema: SchemaRef,
    /// Where the file is (for errors).
    place: String,
}

impl Spill {
    /// `buckets` buckets over `range` for rows of `schema` (the spill
    /// schema), in a nameless file in `temp_dir`; at most `pending_budget`
    /// bytes of rows wait in memory before they are written.
    pub fn new(
        temp_dir: &Path,
        schema: SchemaRef,
        range: LabelRange,
        buckets: usize,
        pending_budget: usize,
    ) -> Result<Spill, Error> {
        let place = format!("temporary file in {}", temp_dir.display());
        let file = tempfile::tempfile_in(temp_dir).map_err(|e| Error::io_at(temp_dir, &e))?;
        Spill::to_file(file, place, schema, range, buckets, pending_budget)
    }

    /// The same in `file` (empty, opened for reading and writing), named
    /// `place` in errors.
    pub fn to_file(
        file: File,
        place: String,
        schema: SchemaRef,
        range: LabelRange,
        buckets: usize,
        pending_budget: usize,
    ) -> Result<Spill, Error> {
        let out = BufWriter::with_capacity(
            WRITE_BUFFER,
            file.try_clone()
                .map_err(|e| Error::io(format!("{place}: {}", crate::error::os_text(&e))))?,
        );
        Ok(Spill {
            file,
            out,
            position: 0,
            range,
            buckets: vec![Bucket::default(); buckets],
            pending: vec![Vec::new(); buckets],
            pending_shares: vec![0; buckets],
            pending_bytes: 0,
            pending_budget,
            schema,
            place,
        })
    }

    /// Moves the rows of `batch` (a spilled batch: helpers included) to
    /// their buckets: one take puts them in bucket order, and each bucket
    /// gets a slice.
    pub fn add(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        let n = batch.num_rows();
        if n == 0 {
            return Ok(());
        }
        let buckets = self.buckets.len();
        let (_, labels) = helpers(batch);
        let of: Vec<u32> = labels
            .values()
            .iter()
            .map(|&l| self.range.bucket_of(l, buckets) as u32)
            .collect();
        // A stable counting sort of the rows by bucket (input order kept).
        let mut starts = vec![0u32; buckets + 1];
        for &b in &of {
            starts[b as usize + 1] += 1;
        }
        for b in 0..buckets {
            starts[b + 1] += starts[b];
        }
        let mut next = starts.clone();
        let mut indices = vec![0u32; n];
        for (row, &b) in of.iter().enumerate() {
            indices[next[b as usize] as usize] = row as u32;
            next[b as usize] += 1;
        }
        let sorted = if buckets == 1 {
            batch.clone()
        } else {
            arrow::compute::take_record_batch(batch, &UInt32Array::from(indices))
                .map_err(|e| Error::invalid(format!("internal: bucket rows: {e}")))?
        };
        let bytes = sorted.get_array_memory_size() as u64;
        // Each slice's arrays: their structs, beyond the shared buffers
        // (a wide table's few rows over many buckets are mostly those),
        // written as soon as they pass the budget.
        let overhead = ARRAY_OVERHEAD * batch.num_columns() as u64;
        for b in 0..buckets {
            let (start, end) = (starts[b] as usize, starts[b + 1] as usize);
            if start == end {
                continue;
            }
            let rows = (end - start) as u64;
            let share = (bytes * rows).div_ceil(n as u64);
            self.buckets[b].rows += rows;
            self.buckets[b].bytes += share;
            self.pending[b].push(sorted.slice(start, end - start));
            self.pending_shares[b] += share;
            self.pending_bytes = self
                .pending_bytes
                .saturating_add(usize::try_from(share + overhead).unwrap_or(usize::MAX));
            if self.pending_bytes > self.pending_budget {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Writes every bucket's waiting rows as one IPC stream each.
    fn flush(&mut self) -> Result<(), Error> {
        for b in 0..self.pending.len() {
            if self.pending[b].is_empty() {
                continue;
            }
            let start = self.position;
            let mut counted = Counted {
                inner: &mut self.out,
                count: 0,
            };
            let mut writer = arrow::ipc::writer::StreamWriter::try_new(&mut counted, &self.schema)
                .map_err(|e| spill_error(&self.place, e))?;
            let slices = std::mem::take(&mut self.pending[b]);
            let share = std::mem::take(&mut self.pending_shares[b]);
            for batch in coalesced(&self.schema, slices, share)? {
                writer
                    .write(&batch)
                    .map_err(|e| spill_error(&self.place, e))?;
            }
            writer.finish().map_err(|e| spill_error(&self.place, e))?;
            drop(writer);
            let length = counted.count;
            self.position += length;
            self.buckets[b].segments.push((start, length));
        }
        self.pending_bytes = 0;
        Ok(())
    }

    /// Writes what waits, and gives the buckets to read back.
    pub fn finish(mut self) -> Result<Spilled, Error> {
        self.flush()?;
        self.out
            .flush()
            .map_err(|e| Error::io(format!("{}: {}", self.place, crate::error::os_text(&e))))?;
        Ok(Spilled {
            file: self.file,
            range: self.range,
            buckets: self.buckets,
            place: self.place,
            damaged: AtomicBool::new(false),
        })
    }
}

/// Whether `arrays` arrays holding `bytes` of rows are small: their
/// bookkeeping passes a quarter of their rows' bytes, so that they are
/// worth merging (a wide table read a few rows at a time).
pub(crate) fn mostly_bookkeeping(bytes: u64, arrays: u64) -> bool {
    ARRAY_OVERHEAD.saturating_mul(arrays) > bytes / 4
}

/// A bucket's waiting slices, as written: merged into one batch when
/// their arrays' bookkeeping passes a quarter of their rows' bytes (a wide
/// table read a few rows at a time over many buckets), since every batch
/// written costs a message and an array per column to write and to read
/// back, and a bucket split again would cut them smaller still. Slices of
/// many rows are written as they are (a copy would only cost memory).
/// `bytes` is the rows' share of the batches they were cut from.
fn coalesced(
    schema: &SchemaRef,
    slices: Vec<RecordBatch>,
    bytes: u64,
) -> Result<Vec<RecordBatch>, Error> {
    let arrays = (schema.fields().len() * slices.len()) as u64;
    if slices.len() < 2 || !mostly_bookkeeping(bytes, arrays) {
        return Ok(slices);
    }
    let merged = arrow::compute::concat_batches(schema, &slices)
        .map_err(|e| Error::invalid(format!("internal: bucket rows: {e}")))?;
    Ok(vec![merged])
}

fn spill_error(place: &str, error: arrow::error::ArrowError) -> Error {
    Error::io(format!("{place}: {error}"))
}

/// A writer that counts the bytes through it.
struct Counted<'a, W: Write> {
    inner: &'a mut W,
    count: u64,
}

impl<W: Write> Write for Counted<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Buckets written, to read back one at a time.
pub struct Spilled {
    file: File,
    range: LabelRange,
    buckets: Vec<Bucket>,
    place: String,
    /// Whether a bucket read back other rows than it was given.
    damaged: AtomicBool,
}

impl Spilled {
    /// Buckets written before, in `file` (named `place` in errors).
    pub fn from_parts(
        file: File,
        range: LabelRange,
        buckets: Vec<Bucket>,
        place: String,
    ) -> Spilled {
        Spilled {
            file,
            range,
            buckets,
            place,
            damaged: AtomicBool::new(false),
        }
    }

    /// The label range the buckets share.
    pub fn range(&self) -> LabelRange {
        self.range
    }

    /// The buckets, in label order.
    pub fn buckets(&self) -> &[Bucket] {
        &self.buckets
    }

    /// An error unless bucket `b` gave back the `read` rows it was given
    /// (a bucket file changed or damaged by something else).
    pub fn check_rows(&self, b: usize, read: u64) -> Result<(), Error> {
        let written = self.buckets[b].rows;
        if read == written {
            return Ok(());
        }
        self.damaged.store(true, Ordering::Relaxed);
        Err(Error::io(format!(
            "{}: {read} rows read back from a bucket of {written}: the bucket file was \
             changed or damaged",
            self.place
        )))
    }

    /// Whether a bucket read back other rows than it was given.
    pub(crate) fn is_damaged(&self) -> bool {
        self.damaged.load(Ordering::Relaxed)
    }

    /// The label range of bucket `b`.
    pub fn range_of(&self, b: usize) -> LabelRange {
        self.range.part(b, self.buckets.len())
    }

    /// The spilled batches of bucket `b`, one at a time, in the order they
    /// were added.
    pub fn read(&self, b: usize) -> impl Iterator<Item = Result<RecordBatch, Error>> + '_ {
        self.buckets[b]
            .segments
            .iter()
            .flat_map(
                move |&(offset, length)| match self.segment(offset, length) {
                    Ok(reader) => {
                        Box::new(reader.map(|batch| batch.map_err(|e| spill_error(&self.place, e))))
                            as Box<dyn Iterator<Item = Result<RecordBatch, Error>>>
                    }
                    Err(e) => Box::new(std::iter::once(Err(e))),
                },
            )
    }

    fn segment(
        &self,
        offset: u64,
        length: u64,
    ) -> Result<arrow::ipc::reader::StreamReader<BufReader<io::Take<File>>>, Error> {
        let io_error =
            |e: io::Error| Error::io(format!("{}: {}", self.place, crate::error::os_text(&e)));
        let mut file = self.file.try_clone().map_err(io_error)?;
        file.seek(SeekFrom::Start(offset)).map_err(io_error)?;
        let reader = BufReader::with_capacity(WRITE_BUFFER, file.take(length));
        arrow::ipc::reader::StreamReader::try_new(reader, None)
            .map_err(|e| spill_error(&self.place, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_their_range_in_order() {
        for (range, buckets) in [
            (LabelRange::ALL, 7),
            (LabelRange { lo: 100, hi: 117 }, 5),
            (LabelRange { lo: 3, hi: 4 }, 1),
        ] {
            let mut at = range.lo;
            for b in 0..buckets {
                let part = range.part(b, buckets);
                assert_eq!(part.lo, at);
                at = part.hi;
                for label in [part.lo, part.hi.saturating_sub(1)] {
                    if (part.lo..part.hi).contains(&label) {
                        assert_eq!(range.bucket_of(label as u32, buckets), b);
                    }
                }
            }
            assert_eq!(at, range.hi);
        }
    }
}
