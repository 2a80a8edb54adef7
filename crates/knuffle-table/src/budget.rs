//! How a table shuffle shares its memory limit: the rows held (in memory,
//! a bucket being ordered, rows waiting for the bucket files), the batches
//! in flight to the output, and the writer's buffers.

/// Gathered batches waiting for the writer.
pub(crate) const GATHER_AHEAD: usize = 4;

/// How the memory limit is shared.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    /// The whole limit.
    pub(crate) total: u64,
    /// Rows held in memory (the whole table, or a bucket), with their order.
    pub(crate) rows: u64,
    /// Rows waiting to be written to the bucket files.
    pub(crate) pending: usize,
    /// A Parquet writer's row group in progress.
    pub(crate) writer: usize,
}

impl Budget {
    /// One batch written, gathered or waiting: an eighth of the rows'
    /// share holds the batches in flight at once ([`GATHER_AHEAD`] gathered
    /// ahead, one being gathered, one waiting in the output and its copy
    /// as it is cut).
    pub(crate) fn batches_out(&self) -> u64 {
        self.rows / 8 / (GATHER_AHEAD as u64 + 3)
    }

    /// What the limit keeps back for code, the buffers of the readers and
    /// writers, and allocator slack: 16 MiB, or an eighth of a smaller
    /// limit.
    pub(crate) fn reserve(&self) -> u64 {
        reserve(self.total)
    }

    pub(crate) fn of(memory: u64) -> Budget {
        let fixed = reserve(memory);
        let writer = (memory / 5).min(512 << 20);
        let rows = memory.saturating_sub(fixed + writer).max(1 << 20);
        Budget {
            total: memory,
            rows,
            pending: usize::try_from(rows / 2).unwrap_or(usize::MAX),
            writer: usize::try_from(writer).unwrap_or(usize::MAX),
        }
    }
}

/// [`Budget::reserve`] of a limit of `memory` bytes.
fn reserve(memory: u64) -> u64 {
    (16u64 << 20).min(memory / 8)
}
