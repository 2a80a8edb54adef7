//! What opening an input gives ([`Opened`]: its schema, its batches, what
//! its file says up front) and how it is read ([`Reading`]: rows per
//! batch, the memory its reader may take).

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;

use crate::error::Error;
use crate::layout::ParquetLayout;

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
