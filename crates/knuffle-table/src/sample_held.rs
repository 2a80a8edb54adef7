//! The rows a sample holds until it is complete (`-n K`, `-w COL`,
//! `--per-key N`): copied out of the batches read (so a kept row does not
//! keep its whole batch alive), known by their input row numbers, and
//! written at the end in the order the sample gives. Rows a reservoir
//! evicts stay until the next compaction, which happens once at least half
//! of what is held is dead; what is left after it must fit in the memory
//! limit, else the sample stops with an error (exit status 1), as a line
//! sample does.

use arrow::array::{RecordBatch, UInt32Array};
use arrow::datatypes::SchemaRef;

use crate::error::Error;
use crate::gather::Gather;
use crate::output::{Emitter, WRITE_ROWS};
use crate::spill::ARRAY_OVERHEAD;

/// Rows held, by input row number.
pub(crate) struct HeldRows {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    /// The input row number of each held row, increasing.
    rows: Vec<u64>,
    /// The memory of `batches`, and of anything else the sample holds
    /// (its keys).
    bytes: u64,
    /// Bytes of other things than rows (not freed by a compaction).
    other: u64,
    limit: u64,
    /// Rows alive at the last compaction.
    live: usize,
}

fn batch_bytes(batch: &RecordBatch) -> u64 {
    batch.get_array_memory_size() as u64 + ARRAY_OVERHEAD * batch.num_columns() as u64
}

impl HeldRows {
    /// Nothing held yet, under `limit` bytes.
    pub(crate) fn new(schema: SchemaRef, limit: u64) -> HeldRows {
        HeldRows {
            schema,
            batches: Vec::new(),
            rows: Vec::new(),
            bytes: 0,
            other: 0,
            limit,
            live: 0,
        }
    }

    /// Holds the rows at `positions` (increasing) of `batch`, whose first
    /// row is input row `first_row`.
    pub(crate) fn hold(
        &mut self,
        batch: &RecordBatch,
        first_row: u64,
        positions: &[u32],
    ) -> Result<(), Error> {
        if positions.is_empty() {
            return Ok(());
        }
        let taken = if positions.len() == batch.num_rows() {
            batch.clone()
        } else {
            arrow::compute::take_record_batch(batch, &UInt32Array::from(positions.to_vec()))
                .map_err(|e| Error::invalid(format!("internal: holding rows: {e}")))?
        };
        self.bytes += batch_bytes(&taken) + 8 * positions.len() as u64;
        self.batches.push(taken);
        self.rows
            .extend(positions.iter().map(|&p| first_row + u64::from(p)));
        Ok(())
    }

    /// Counts `bytes` of other things the sample holds (its groups' keys).
    pub(crate) fn add_other(&mut self, bytes: u64) -> Result<(), Error> {
        self.other += bytes;
        self.bytes += bytes;
        self.check()
    }

    /// Drops the held rows that are no longer in the sample once at least
    /// half are, or the limit is passed: `live()` gives the input row
    /// numbers still in it.
    pub(crate) fn compact(&mut self, live: impl FnOnce() -> Vec<u64>) -> Result<(), Error> {
        if self.rows.len() <= 2 * self.live + WRITE_ROWS && self.bytes <= self.limit {
            return Ok(());
        }
        let mut live = live();
        live.sort_unstable();
        let batch = self.take(&live)?;
        self.bytes = self.other + batch_bytes(&batch) + 8 * live.len() as u64;
        self.batches = vec![batch];
        self.live = live.len();
        self.rows = live;
        self.check()
    }

    /// Fails when what is held passes the limit.
    pub(crate) fn check(&self) -> Result<(), Error> {
        if self.bytes > self.limit {
            return Err(Error::memory(format!(
                "the sample holds more than the memory limit allows ({} MiB for the rows \
                 held): raise --memory, or sample fewer rows",
                self.limit >> 20
            )));
        }
        Ok(())
    }

    /// The memory held.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The held rows `rows` (input row numbers), in that order, as one
    /// batch.
    pub(crate) fn take(&self, rows: &[u64]) -> Result<RecordBatch, Error> {
        let positions: Vec<u32> = rows
            .iter()
            .map(|row| {
                let at = self.rows.binary_search(row).expect("a held row");
                u32::try_from(at).expect("fewer than 2^32 rows held")
            })
            .collect();
        Gather::new(self.schema.clone(), &self.batches).take(&positions)
    }

    /// Writes the held rows `rows` (input row numbers), in that order.
    pub(crate) fn emit(&self, rows: &[u64], emitter: &mut Emitter) -> Result<(), Error> {
        for chunk in rows.chunks(emitter.write_rows()) {
            emitter.push(&self.take(chunk)?)?;
        }
        Ok(())
    }
}
