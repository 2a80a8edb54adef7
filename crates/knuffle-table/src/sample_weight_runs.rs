//! `-w COL` without `-n` beyond the memory limit: the weighted shuffle's
//! rows, each with its key and input row number, sorted in runs that fit
//! in memory, written to nameless temporary files (Arrow IPC streams), then
//! merged by (key, row): an external merge sort (Knuth, TAOCP vol. 3,
//! 5.4.1, multiway merging with a priority queue). Once as many runs of
//! one level are written as one merge reads (within the memory limit, at
//! most 32 files), they are merged into one of the next level, so that few
//! files are open and each row is merged once per level. The rows come out in the order the in-memory
//! sort gives, so the output is the same bytes whatever `--memory` is.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, UInt64Array};
use arrow::datatypes::{DataType, SchemaRef};
use arrow::ipc::reader::StreamReader;
use arrow::ipc::writer::StreamWriter;

use crate::error::Error;
use crate::output::{Emitter, WRITE_ROWS};
use crate::sample_held::HeldRows;
use crate::spill::{ARRAY_OVERHEAD, with_helper_fields};

/// Bytes of rows in one batch of a run file (more for a wide table: at
/// least twice its arrays' own cost): a merge holds one batch of each run
/// it reads.
const RUN_BATCH_BYTES: u64 = 64 << 10;

/// The most run files open at once (each is a file descriptor).
const MAX_OPEN_RUNS: usize = 32;

/// Sorted runs of keyed rows, and how to merge them into the output.
pub(crate) struct Runs {
    temp_dir: PathBuf,
    /// The table's schema.
    schema: SchemaRef,
    /// The schema of a run: the table's columns, then the key and the row.
    run_schema: SchemaRef,
    /// The run files, each with its level (0: written from memory; a merge
    /// of runs of level l is of level l + 1), levels decreasing.
    files: Vec<(File, u32)>,
    /// The memory a merge may hold.
    limit: u64,
    /// The bytes of a batch of a run.
    batch_bytes: u64,
}

/// A run's schema: `schema`'s columns, then the key and the input row
/// number (named as spilled rows' helpers are, not to clash with a column).
fn run_schema(schema: &SchemaRef) -> SchemaRef {
    with_helper_fields(
        schema,
        &[
            ("__knuffle_key", DataType::UInt64),
            ("__knuffle_row", DataType::UInt64),
        ],
    )
}

/// The key and the row of each row of a run's batch.
fn helpers(batch: &RecordBatch) -> (&UInt64Array, &UInt64Array) {
    let n = batch.num_columns();
    let column = |i: usize| {
        batch
            .column(i)
            .as_any()
            .downcast_ref::<UInt64Array>()
            .expect("a run's helper columns are UInt64")
    };
    (column(n - 2), column(n - 1))
}

impl Runs {
    /// No run yet, for rows of `schema`, in `temp_dir`; merges hold at most
    /// about `limit` bytes.
    pub(crate) fn new(schema: SchemaRef, temp_dir: &Path, limit: u64) -> Runs {
        let arrays = 2 * ARRAY_OVERHEAD * (schema.fields().len() as u64 + 2);
        Runs {
            temp_dir: temp_dir.to_path_buf(),
            run_schema: run_schema(&schema),
            schema,
            files: Vec::new(),
            limit,
            batch_bytes: RUN_BATCH_BYTES.max(arrays),
        }
    }

    /// Whether any run was written.
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    fn place(&self) -> String {
        format!("temporary file in {}", self.temp_dir.display())
    }

    fn error(&self, e: impl std::fmt::Display) -> Error {
        Error::io(format!("{}: {e}", self.place()))
    }

    /// A new run file, written by `fill` (which is given the writer).
    fn write_run(
        &mut self,
        fill: impl FnOnce(&mut StreamWriter<BufWriter<File>>, &Runs) -> Result<(), Error>,
    ) -> Result<File, Error> {
        let file =
            tempfile::tempfile_in(&self.temp_dir).map_err(|e| Error::io_at(&self.temp_dir, &e))?;
        let out = BufWriter::new(file.try_clone().map_err(|e| self.error(e))?);
        let mut writer = StreamWriter::try_new(out, &self.run_schema).map_err(|e| self.error(e))?;
        fill(&mut writer, self)?;
        writer.finish().map_err(|e| self.error(e))?;
        let mut out = writer.into_inner().map_err(|e| self.error(e))?;
        std::io::Write::flush(&mut out).map_err(|e| self.error(e))?;
        Ok(file)
    }

    /// Writes a run: the rows `held` holds, by `keyed` (their keys and
    /// input row numbers, sorted), in batches of about
    /// `batch_bytes`.
    pub(crate) fn add(&mut self, held: &HeldRows, keyed: &[(u64, u64)]) -> Result<(), Error> {
        if keyed.is_empty() {
            return Ok(());
        }
        let per_batch = self.rows_per_batch(held.bytes(), keyed.len());
        let file = self.write_run(|writer, runs| {
            for part in keyed.chunks(per_batch) {
                let rows: Vec<u64> = part.iter().map(|k| k.1).collect();
                let mut columns: Vec<ArrayRef> = held.take(&rows)?.columns().to_vec();
                columns.push(Arc::new(UInt64Array::from_iter_values(
                    part.iter().map(|k| k.0),
                )));
                columns.push(Arc::new(UInt64Array::from(rows)));
                let batch = RecordBatch::try_new(runs.run_schema.clone(), columns)
                    .map_err(|e| Error::invalid(format!("internal: a run's batch: {e}")))?;
                writer.write(&batch).map_err(|e| runs.error(e))?;
            }
            Ok(())
        })?;
        self.files.push((file, 0));
        self.merge_if_many()
    }

    /// Rows in a batch of a run, for `rows` rows taking `bytes`: about
    /// `batch_bytes` of them, at least one, at most [`WRITE_ROWS`].
    fn rows_per_batch(&self, bytes: u64, rows: usize) -> usize {
        let rows = rows as u64;
        (self.batch_bytes.saturating_mul(rows) / bytes.max(1))
            .clamp(1, rows.clamp(1, WRITE_ROWS as u64)) as usize
    }

    /// How many runs one merge reads at once: a batch of each (and the
    /// batches of the output in progress) within the limit, and at most
    /// [`MAX_OPEN_RUNS`] files.
    fn fan_in(&self) -> usize {
        usize::try_from(self.limit / (4 * self.batch_bytes))
            .unwrap_or(usize::MAX)
            .clamp(2, MAX_OPEN_RUNS)
    }

    /// Once as many runs of one level are written as a merge reads, they
    /// are merged into one of the next level (a counter in base `fan_in`):
    /// each row is merged once per level, and at most `fan_in - 1` runs of
    /// each level are open.
    fn merge_if_many(&mut self) -> Result<(), Error> {
        let fan_in = self.fan_in();
        loop {
            let Some(&(_, level)) = self.files.last() else {
                return Ok(());
            };
            let same = self.files.iter().rev().take_while(|f| f.1 == level).count();
            if same < fan_in {
                return Ok(());
            }
            let at = self.files.len() - same;
            let group: Vec<File> = self.files.drain(at..).map(|f| f.0).collect();
            let merged = self.merge_to_run(group)?;
            self.files.push((merged, level + 1));
        }
    }

    /// The runs `group` merged into one run.
    fn merge_to_run(&mut self, group: Vec<File>) -> Result<File, Error> {
        self.write_run(|writer, runs| {
            runs.merge(group, &mut |batch| {
                // Batches of about `batch_bytes` again, so that the next
                // merge holds as little of this run.
                let n = batch.num_rows();
                let per_batch = runs.rows_per_batch(batch.get_array_memory_size() as u64, n);
                let mut start = 0;
                while start < n {
                    let len = per_batch.min(n - start);
                    writer
                        .write(&batch.slice(start, len))
                        .map_err(|e| runs.error(e))?;
                    start += len;
                }
                Ok(())
            })
        })
    }

    /// Merges every run into `emitter` (the helper columns dropped): the
    /// shortest runs first merged into one while more are left than a
    /// merge reads.
    pub(crate) fn merge_into(mut self, emitter: &mut Emitter) -> Result<(), Error> {
        let fan_in = self.fan_in();
        while self.files.len() > fan_in {
            let at = self.files.len() - fan_in;
            let level = self.files[at].1;
            let group: Vec<File> = self.files.drain(at..).map(|f| f.0).collect();
            let merged = self.merge_to_run(group)?;
            self.files.push((merged, level + 1));
        }
        let files = std::mem::take(&mut self.files)
            .into_iter()
            .map(|f| f.0)
            .collect();
        let table = self.schema.clone();
        self.merge(files, &mut |batch| {
            let columns = batch.columns()[..table.fields().len()].to_vec();
            let rows = RecordBatch::try_new(table.clone(), columns)
                .map_err(|e| Error::invalid(format!("internal: merged rows: {e}")))?;
            emitter.push(&rows)
        })
    }

    /// Merges the runs `files` by (key, row), handing out batches of run
    /// rows (helpers included) in order.
    fn merge(
        &self,
        files: Vec<File>,
        out: &mut dyn FnMut(&RecordBatch) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut readers = Vec::with_capacity(files.len());
        for mut file in files {
            file.seek(SeekFrom::Start(0)).map_err(|e| self.error(e))?;
            let reader =
                StreamReader::try_new(BufReader::new(file), None).map_err(|e| self.error(e))?;
            readers.push(reader);
        }
        // The batches the picks refer to; each run's current one.
        let mut batches: Vec<RecordBatch> = Vec::new();
        let mut current: Vec<Option<(usize, usize)>> = vec![None; readers.len()];
        let mut heap = BinaryHeap::new();
        let mut picks: Vec<(usize, usize)> = Vec::with_capacity(WRITE_ROWS);
        for run in 0..readers.len() {
            if let Some(slot) = self.next_batch(&mut readers[run], &mut batches)? {
                let (keys, rows) = helpers(&batches[slot]);
                heap.push(Reverse((keys.value(0), rows.value(0), run)));
                current[run] = Some((slot, 0));
            }
        }
        // A merged batch has at most as many rows as the largest run batch
        // read (each about `batch_bytes`): a wide table's merged batches
        // stay within the memory its run batches do.
        let most_rows = |batches: &[RecordBatch]| {
            batches
                .iter()
                .map(RecordBatch::num_rows)
                .max()
                .unwrap_or(1)
                .min(WRITE_ROWS)
        };
        let mut cap = most_rows(&batches);
        while let Some(Reverse((_, _, run))) = heap.pop() {
            let (slot, at) = current[run].expect("a run in the heap has a batch");
            picks.push((slot, at));
            let next = if at + 1 < batches[slot].num_rows() {
                Some((slot, at + 1))
            } else {
                let next = self.next_batch(&mut readers[run], &mut batches)?;
                cap = cap.max(most_rows(&batches[batches.len().saturating_sub(1)..]));
                next.map(|slot| (slot, 0))
            };
            current[run] = next;
            if let Some((slot, at)) = next {
                let (keys, rows) = helpers(&batches[slot]);
                heap.push(Reverse((keys.value(at), rows.value(at), run)));
            }
            // The batches referred to stay few: a run's batch is about
            // `batch_bytes`, or one row.
            let many = batches.len() > 2 * readers.len() + 16;
            if picks.len() >= cap || many || heap.is_empty() {
                let refs: Vec<&RecordBatch> = batches.iter().collect();
                let merged = arrow::compute::interleave_record_batch(&refs, &picks)
                    .map_err(|e| Error::invalid(format!("internal: merging runs: {e}")))?;
                out(&merged)?;
                picks.clear();
                // Keep only the runs' current batches.
                let mut kept = Vec::new();
                for entry in current.iter_mut().flatten() {
                    kept.push(batches[entry.0].clone());
                    entry.0 = kept.len() - 1;
                }
                batches = kept;
            }
        }
        Ok(())
    }

    /// The run's next non-empty batch, added to `batches`: its slot.
    fn next_batch(
        &self,
        reader: &mut StreamReader<BufReader<File>>,
        batches: &mut Vec<RecordBatch>,
    ) -> Result<Option<usize>, Error> {
        for batch in reader.by_ref() {
            let batch = batch.map_err(|e| self.error(e))?;
            if batch.num_rows() > 0 {
                batches.push(batch);
                return Ok(Some(batches.len() - 1));
            }
        }
        Ok(None)
    }
}
