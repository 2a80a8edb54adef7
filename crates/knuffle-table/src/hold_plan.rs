//! The decisions of a table shuffle as its rows come (a part of its plan
//! that needs the rows' size, table_plan.rs decides the rest before): whether
//! the rows read so far are held in memory or go through bucket files, how
//! many bucket files, and the refusal of rows too wide to go through them;
//! with `-n K`, when the rows kept are compacted and when they are refused.

use crate::budget::Budget;
use crate::error::Error;
use crate::table_plan::BATCH_ROWS;

/// Bytes of a bucket's ordering beyond its rows: a sort key (8) and a
/// position (4) per row, and its labels and row numbers again (12).
pub(crate) const ORDER_BYTES_PER_ROW: u64 = 24;

/// What a column costs while rows go through bucket files, whatever the
/// rows: its arrays in every bucket's waiting slices and the Arrow IPC
/// writer's and reader's buffers (measured with arrow-ipc 60.1: peaks of
/// about 4 KiB a column for 100,000 columns of 8 rows, 9 KiB for 10,000
/// columns of 200 rows, beyond the limit).
pub(crate) const SPILL_COLUMN_BYTES: u64 = 8 << 10;

/// Whether rows taking `bytes` (with their ordering), `rows` of them, are
/// still held in memory; past that they go through bucket files.
pub(crate) fn holds(budget: &Budget, bytes: u64, rows: usize) -> bool {
    bytes <= budget.rows && rows < u32::MAX as usize
}

/// The size a bucket should have: its rows and its ordering fit in the
/// rows' share of memory, with room for the batches being gathered.
pub(crate) fn bucket_target(budget: &Budget) -> u64 {
    (budget.rows / 2).max(1 << 20)
}

/// Bucket files for rows of `estimate` bytes in all: as many as the whole
/// input will need for one bucket to fit (an estimate; a bucket that turns
/// out larger is split again when read).
pub(crate) fn buckets_for(budget: &Budget, estimate: f64) -> usize {
    ((estimate * 1.25 / bucket_target(budget) as f64).ceil() as usize).clamp(2, 4096)
}

/// Refuses rows of `columns` leaf columns too wide to go through bucket
/// files within the memory limit (`estimate`: the bytes its rows take in
/// memory).
pub(crate) fn check_spill_width(budget: &Budget, columns: u64, estimate: f64) -> Result<(), Error> {
    let needed = columns.saturating_mul(SPILL_COLUMN_BYTES);
    if needed <= budget.total {
        return Ok(());
    }
    Err(Error::memory(format!(
        "the rows do not fit in the memory limit ({} MiB; about {} MiB of rows), and \
         their {columns} columns take about {} MiB to go through bucket files; raise the \
         memory limit (--memory) to at least {} MiB",
        budget.total >> 20,
        (estimate as u64) >> 20,
        needed.div_ceil(1 << 20),
        needed.div_ceil(1 << 20)
    )))
}

/// `-n K` (`count`): whether the `rows` kept, taking `bytes`, are
/// compacted to those that can still be among the first K: at twice the
/// rows kept, or sooner when they take half of their memory (a small `-n`
/// under a small limit).
pub(crate) fn sample_compacts(budget: &Budget, count: u64, rows: u64, bytes: u64) -> bool {
    rows >= count.max(BATCH_ROWS as u64).saturating_mul(2) || bytes > budget.rows / 2
}

/// `-n K` (`count`): refuses the rows kept when, compacted, they still
/// take more than their memory (`bytes`).
pub(crate) fn check_sample_held(budget: &Budget, count: u64, bytes: u64) -> Result<(), Error> {
    if bytes > budget.rows {
        return Err(Error::invalid(format!(
            "-n {count}: the sampled rows take more than --memory allows ({} MiB held); raise \
             --memory or take fewer rows",
            bytes >> 20
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    /// (memory, bytes, rows, estimate, columns, expected).
    type HoldRow = (
        u64,
        u64,
        usize,
        f64,
        u64,
        Result<Option<usize>, &'static str>,
    );

    /// (memory, count, rows, bytes, compacts, refused).
    type SampleRow = (u64, u64, u64, u64, bool, Result<(), &'static str>);

    #[test]
    fn rows_are_held_in_memory_while_they_fit_then_go_through_buckets() {
        // (memory, bytes of rows read so far, rows, estimate of all the
        // rows' bytes, columns) -> held in memory, else the number of
        // bucket files or the refusal. 200 MiB holds 144 MiB of rows
        // (buckets of 72 MiB); 4 MiB holds 2,831,156 bytes (buckets of
        // 1 MiB at least); 1 MiB holds 1 MiB.
        let table: [HoldRow; 9] = [
            (200 * MIB, 144 * MIB, 1000, 0.0, 3, Ok(None)),
            (
                200 * MIB,
                144 * MIB + 1,
                1000,
                144.0 * MIB as f64,
                3,
                Ok(Some(3)),
            ),
            (200 * MIB, 100, u32::MAX as usize, 100.0, 3, Ok(Some(2))),
            (
                200 * MIB,
                145 * MIB,
                1000,
                100_000.0 * MIB as f64,
                3,
                Ok(Some(1737)),
            ),
            (200 * MIB, 145 * MIB, 1000, 1e18, 3, Ok(Some(4096))),
            (4 * MIB, 2_831_156, 10, 0.0, 3, Ok(None)),
            (4 * MIB, 2_831_157, 10, 40.0 * MIB as f64, 3, Ok(Some(38))),
            (MIB, MIB + 1, 10, 2.0 * MIB as f64, 3, Ok(Some(3))),
            (
                MIB,
                MIB + 1,
                10,
                5.0 * MIB as f64,
                200,
                Err(
                    "the rows do not fit in the memory limit (1 MiB; about 5 MiB of rows), \
                     and their 200 columns take about 2 MiB to go through bucket files; raise \
                     the memory limit (--memory) to at least 2 MiB",
                ),
            ),
        ];
        for (memory, bytes, rows, estimate, columns, expected) in table {
            let budget = Budget::of(memory);
            let got = if holds(&budget, bytes, rows) {
                Ok(None)
            } else {
                check_spill_width(&budget, columns, estimate)
                    .map(|()| Some(buckets_for(&budget, estimate)))
            };
            let got = got.as_ref().map_err(|e| e.message());
            assert_eq!(
                got,
                expected.as_ref().map_err(|e| *e),
                "{memory} {bytes} {rows}"
            );
        }
    }

    #[test]
    fn the_rows_of_n_are_compacted_then_refused_past_their_memory() {
        // (memory, -n K, rows kept, their bytes) -> (compacted, refused
        // after compaction with this message). 4 MiB holds 2,831,156 bytes
        // of rows; K below a batch compacts at 16,384 rows.
        let table: [SampleRow; 6] = [
            (4 * MIB, 10, 16_383, 1_000, false, Ok(())),
            (4 * MIB, 10, 16_384, 1_000, true, Ok(())),
            (4 * MIB, 100_000, 199_999, 1_000, false, Ok(())),
            (4 * MIB, 100_000, 200_000, 1_000, true, Ok(())),
            (4 * MIB, 10, 10, 1_415_579, true, Ok(())),
            (
                4 * MIB,
                100_000,
                100_000,
                2_831_157,
                true,
                Err(
                    "-n 100000: the sampled rows take more than --memory allows (2 MiB \
                     held); raise --memory or take fewer rows",
                ),
            ),
        ];
        for (memory, count, rows, bytes, compacts, refused) in table {
            let budget = Budget::of(memory);
            assert_eq!(
                sample_compacts(&budget, count, rows, bytes),
                compacts,
                "{count} {rows}"
            );
            let got = check_sample_held(&budget, count, bytes);
            let got = got.as_ref().map(|_| ()).map_err(|e| e.message());
            assert_eq!(got, refused, "{count} {bytes}");
        }
    }
}
