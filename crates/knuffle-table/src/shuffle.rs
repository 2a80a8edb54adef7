//! The table shuffle: every row labelled by the table order, then either
//! held in memory and ordered at once, or moved to bucket files and ordered
//! one bucket at a time (Sandelius 1962; the external shuffle of `knuffle
//! --memory`), and written in the table order. `-n K` keeps only the rows
//! whose labels can still be among the first K.
//!
//! Memory: `Options::memory` is split between the rows held (in memory, a
//! bucket being ordered, or the rows waiting to be spilled) and the
//! writer's buffers (a Parquet row group in progress, ended early when it
//! grows past its share).

use std::path::PathBuf;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use crate::batch_merge::{HELD_BATCHES, merge_small_tail};
use crate::budget::{Budget, GATHER_AHEAD};
use crate::error::Error;
use crate::gather::Gather;
use crate::hold_plan::{
    ORDER_BYTES_PER_ROW, bucket_target, buckets_for, check_sample_held, check_spill_width, holds,
    sample_compacts,
};
use crate::opening::Opening;
use crate::order::TableOrder;
use crate::output::{Destination, Emitter, WriteSettings};
use crate::source::{self, Reading, Source};
use crate::spill::{self, ARRAY_OVERHEAD, LabelRange, Spill, Spilled};
use crate::table_facts::{Prepared, prepare};
use crate::table_options::Options;

/// The memory a held batch takes.
fn held_bytes(batch: &RecordBatch) -> u64 {
    batch.get_array_memory_size() as u64 + ARRAY_OVERHEAD * batch.num_columns() as u64
}

/// What a shuffle did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Rows read.
    pub rows_in: u64,
    /// Rows written.
    pub rows_out: u64,
    /// Buckets the rows went through (0: held in memory).
    pub buckets: usize,
}

/// Shuffles the rows of the tables `inputs` (files or directories of
/// shards) into `destination`, in the table order of `options.seed`.
pub fn shuffle_table(
    inputs: &[PathBuf],
    destination: &Destination,
    options: &Options,
) -> Result<Report, Error> {
    let Prepared {
        sources,
        schema,
        opening,
        settings,
        budget,
    } = prepare(inputs, destination, options)?;
    let run = Run {
        order: TableOrder::new(&options.seed),
        spill_schema: spill::spill_schema(&schema),
        schema,
        budget,
        temp_dir: options.temp_dir.clone().unwrap_or_else(std::env::temp_dir),
        count: options.count,
    };
    run.execute(&sources, opening, destination, settings)
}

/// Reads every row of `sources` (as `opening` left them), each
/// batch conformed to `schema`, and hands each non-empty batch to `visit`
/// with its first row number, its labels in `order`, and an estimate of the
/// share of the input read so far (for the number of bucket files).
/// Returns the number of rows read.
pub(crate) fn read_labelled(
    order: &TableOrder,
    schema: &SchemaRef,
    sources: &[Source],
    mut opening: Opening,
    reading: Reading,
    mut visit: impl FnMut(RecordBatch, u64, Vec<u32>, &dyn Fn() -> f64) -> Result<(), Error>,
) -> Result<u64, Error> {
    let total_input_bytes: u64 = sources
        .iter()
        .map(|s| std::fs::metadata(&s.path).map_or(0, |m| m.len()))
        .sum();
    let mut rows_in = 0u64;
    let mut bytes_done = 0u64;
    for (index, source) in sources.iter().enumerate() {
        let opened = opening.open(index, source, schema, reading)?;
        let file_bytes = std::fs::metadata(&source.path).map_or(0, |m| m.len());
        let file_rows = opened.rows;
        let mut rows_in_file = 0u64;
        for batch in opened.batches {
            let batch = source::conform(batch?, schema, &source.path)?;
            let n = batch.num_rows();
            if n == 0 {
                continue;
            }
            let mut labels = vec![0u32; n];
            order.labels_into(rows_in, &mut labels);
            let share_read = || {
                // The share of the input read, for the bucket count (a
                // pipe's size is unknown: guess a quarter; a bucket that
                // turns out too large is split again).
                if total_input_bytes == 0 {
                    return 0.25;
                }
                let within = match file_rows {
                    Some(rows) if rows > 0 => {
                        file_bytes as f64 * (rows_in_file as f64 / rows as f64)
                    }
                    _ => file_bytes as f64 / 2.0,
                };
                ((bytes_done as f64 + within) / total_input_bytes.max(1) as f64).clamp(0.01, 1.0)
            };
            visit(batch, rows_in, labels, &share_read)?;
            rows_in += n as u64;
            rows_in_file += n as u64;
        }
        bytes_done += file_bytes;
    }
    Ok(rows_in)
}

/// Rows read so far: held in memory while they fit, then moved to buckets.
pub(crate) enum Held {
    Memory {
        batches: Vec<RecordBatch>,
        labels: Vec<u32>,
        bytes: u64,
    },
    Spilling(Spill),
}

impl Held {
    /// No rows yet: an empty memory hold.
    pub(crate) fn nothing() -> Held {
        Held::Memory {
            batches: Vec::new(),
            labels: Vec::new(),
            bytes: 0,
        }
    }
}

/// One shuffle's settings: its order, the schema of its rows, its memory
/// and where its bucket files go.
pub(crate) struct Run {
    pub(crate) order: TableOrder,
    pub(crate) schema: SchemaRef,
    /// The table's schema with the row number and label of spilled rows.
    pub(crate) spill_schema: SchemaRef,
    pub(crate) budget: Budget,
    pub(crate) temp_dir: PathBuf,
    pub(crate) count: Option<u64>,
}

impl Run {
    fn execute(
        self,
        sources: &[Source],
        opening: Opening,
        destination: &Destination,
        settings: WriteSettings,
    ) -> Result<Report, Error> {
        let mut held = Some(Held::nothing());
        let mut sample = self.count.map(Sample::new);
        let rows_in = read_labelled(
            &self.order,
            &self.schema,
            sources,
            opening,
            crate::table_plan::reading(&self.budget),
            |batch, first_row, labels, share_read| {
                if let Some(sample) = &mut sample {
                    return sample.add(&self, batch, first_row, labels);
                }
                let before = held.take().expect("rows are held between batches");
                held = Some(self.hold(before, batch, first_row, labels, share_read)?);
                Ok(())
            },
        )?;
        let held = held.expect("rows are held after the last batch");
        if let Some(sample) = sample {
            return sample.finish(&self, destination, settings, rows_in);
        }
        let rows_out = rows_in;
        let mut emitter = Emitter::new(destination, settings, self.schema.clone(), rows_out)?;
        let buckets = match held {
            Held::Memory {
                batches, labels, ..
            } => {
                let positions = self.order.order_positions(&labels, |p| p as u64);
                drop(labels);
                self.gather(&batches, &positions, &mut emitter)?;
                0
            }
            Held::Spilling(spill) => {
                let spilled = spill.finish()?;
                let buckets = spilled.buckets().len();
                self.emit_spilled(&spilled, &mut emitter)?;
                buckets
            }
        };
        emitter.finish()?;
        Ok(Report {
            rows_in,
            rows_out,
            buckets,
        })
    }

    /// Adds a batch (rows `first..`) to what is held, moving everything to
    /// bucket files when it no longer fits; `share_read` estimates the
    /// share of the input read so far.
    pub(crate) fn hold(
        &self,
        held: Held,
        batch: RecordBatch,
        first: u64,
        labels: Vec<u32>,
        share_read: &dyn Fn() -> f64,
    ) -> Result<Held, Error> {
        self.hold_in(held, batch, first, labels, share_read, &mut |buckets| {
            Spill::new(
                &self.temp_dir,
                self.spill_schema.clone(),
                LabelRange::ALL,
                buckets,
                self.budget.pending,
            )
        })
    }

    /// [`Run::hold`], the bucket files made by `open` (given their number)
    /// when the rows no longer fit.
    pub(crate) fn hold_in(
        &self,
        held: Held,
        batch: RecordBatch,
        first: u64,
        labels: Vec<u32>,
        share_read: &dyn Fn() -> f64,
        open: &mut dyn FnMut(usize) -> Result<Spill, Error>,
    ) -> Result<Held, Error> {
        match held {
            Held::Memory {
                mut batches,
                labels: mut all,
                mut bytes,
            } => {
                bytes += held_bytes(&batch) + ORDER_BYTES_PER_ROW * labels.len() as u64;
                let fits = holds(&self.budget, bytes, all.len() + labels.len());
                batches.push(batch);
                all.extend_from_slice(&labels);
                if fits {
                    return Ok(Held::Memory {
                        batches,
                        labels: all,
                        bytes,
                    });
                }
                // Too large: bucket files, as many as the whole input
                // will need (hold_plan.rs).
                let estimate = bytes as f64 / share_read();
                let first_row = first + labels.len() as u64 - all.len() as u64;
                self.spill_held(batches, &all, first_row, estimate, open)
                    .map(Held::Spilling)
            }
            Held::Spilling(mut spill) => {
                let schema = self.spill_schema.clone();
                spill.add(&spill::with_helpers(&batch, &schema, first, &labels)?)?;
                Ok(Held::Spilling(spill))
            }
        }
    }

    /// What is held, in bucket files (made by `open`) whatever its size:
    /// rows held in memory are moved to as many buckets as they need.
    pub(crate) fn spill_all(
        &self,
        held: Held,
        open: &mut dyn FnMut(usize) -> Result<Spill, Error>,
    ) -> Result<Spill, Error> {
        match held {
            Held::Memory {
                batches,
                labels,
                bytes,
            } => self.spill_held(batches, &labels, 0, bytes as f64, open),
            Held::Spilling(spill) => Ok(spill),
        }
    }

    /// Rows held in memory (`labels` theirs, `first_row` the first one's
    /// number) moved to bucket files made by `open`, as many as `estimate`
    /// bytes of rows need.
    fn spill_held(
        &self,
        batches: Vec<RecordBatch>,
        labels: &[u32],
        first_row: u64,
        estimate: f64,
        open: &mut dyn FnMut(usize) -> Result<Spill, Error>,
    ) -> Result<Spill, Error> {
        let columns = crate::json_in::leaf_count(&self.schema) as u64;
        check_spill_width(&self.budget, columns, estimate)?;
        let buckets = buckets_for(&self.budget, estimate);
        let schema = self.spill_schema.clone();
        let mut spill = open(buckets)?;
        let mut first_row = first_row;
        let mut at = 0;
        for batch in batches {
            let n = batch.num_rows();
            let helped = spill::with_helpers(&batch, &schema, first_row, &labels[at..at + n])?;
            drop(batch);
            spill.add(&helped)?;
            first_row += n as u64;
            at += n;
        }
        Ok(spill)
    }

    /// The batches of bucket `b` (one that fits in memory), its small ones
    /// merged: a bucket written in many small pieces (a wide table, a few
    /// rows at a time) would otherwise hold an array of every column for
    /// each, and a decoded schema.
    fn read_bucket(&self, spilled: &Spilled, b: usize) -> Result<Vec<RecordBatch>, Error> {
        let bucket = &spilled.buckets()[b];
        let row_bytes = (bucket.bytes / bucket.rows.max(1)).max(1);
        let cap_rows = usize::try_from(self.budget.rows / 16 / row_bytes)
            .unwrap_or(usize::MAX)
            .max(1);
        // Large batches are kept as read, without a copy.
        let arrays = self.spill_schema.fields().len() as u64;
        let mut batches = Vec::new();
        for batch in spilled.read(b) {
            let batch = batch?;
            let bytes = (batch.num_rows() as u64).saturating_mul(row_bytes);
            let small = spill::mostly_bookkeeping(bytes, arrays);
            batches.push(batch);
            if small && batches.len() > HELD_BATCHES {
                merge_small_tail(&self.spill_schema, &mut batches, cap_rows)?;
            }
        }
        Ok(batches)
    }

    /// Writes the rows of `batches` (consecutive positions) in the order of
    /// `positions`.
    fn gather(
        &self,
        batches: &[RecordBatch],
        positions: &[u32],
        emitter: &mut Emitter,
    ) -> Result<(), Error> {
        let rows = Gather::new(self.schema.clone(), batches);
        let gathered = |chunk: &[u32]| rows.take(chunk);
        // Gathering (random reads) on one thread, encoding and writing on
        // this one: the two overlap, a few batches apart.
        std::thread::scope(|scope| {
            let (sender, receiver) = std::sync::mpsc::sync_channel(GATHER_AHEAD);
            let first = emitter.rows_to_boundary().min(positions.len());
            let write_rows = emitter.write_rows();
            scope.spawn(move || {
                let (head, rest) = positions.split_at(first);
                let chunks = std::iter::once(head)
                    .filter(|h| !h.is_empty())
                    .chain(rest.chunks(write_rows));
                for chunk in chunks {
                    if sender.send(gathered(chunk)).is_err() {
                        break;
                    }
                }
            });
            for batch in receiver {
                emitter.push(&batch?)?;
            }
            Ok(())
        })
    }

    /// Reads the buckets back in label order, orders each and writes it.
    fn emit_spilled(&self, spilled: &Spilled, emitter: &mut Emitter) -> Result<(), Error> {
        struct Write<'a> {
            run: &'a Run,
            emitter: &'a mut Emitter,
        }
        impl Buckets for Write<'_> {
            fn wanted(&mut self, _rows: u64) -> bool {
                true
            }
            fn ordered(&mut self, table: &[RecordBatch], positions: &[u32]) -> Result<(), Error> {
                self.run.gather(table, positions, self.emitter)
            }
        }
        self.order_spilled(spilled, &mut Write { run: self, emitter })
    }

    /// Reads the buckets back in label order and hands each to `to`,
    /// ordered; a bucket too large to hold is split again over its label
    /// range, and one that `to` does not want is passed over unread.
    pub(crate) fn order_spilled(
        &self,
        spilled: &Spilled,
        to: &mut dyn Buckets,
    ) -> Result<(), Error> {
        for (b, bucket) in spilled.buckets().iter().enumerate() {
            if bucket.rows == 0 || !to.wanted(bucket.rows) {
                continue;
            }
            let range = spilled.range_of(b);
            let size = bucket.bytes + ORDER_BYTES_PER_ROW * bucket.rows;
            if size > self.budget.rows && range.hi - range.lo > 1 {
                let buckets =
                    (size.div_ceil(bucket_target(&self.budget)) as usize + 1).clamp(2, 4096);
                let mut again = Spill::new(
                    &self.temp_dir,
                    self.spill_schema.clone(),
                    range,
                    buckets,
                    self.budget.pending,
                )?;
                let mut read = 0;
                for batch in spilled.read(b) {
                    let batch = batch?;
                    read += batch.num_rows() as u64;
                    again.add(&batch)?;
                }
                spilled.check_rows(b, read)?;
                self.order_spilled(&again.finish()?, to)?;
                continue;
            }
            let batches = self.read_bucket(spilled, b)?;
            let mut labels = Vec::with_capacity(bucket.rows as usize);
            let mut rows = Vec::with_capacity(bucket.rows as usize);
            for batch in &batches {
                let (r, l) = spill::helpers(batch);
                rows.extend_from_slice(r.values());
                labels.extend_from_slice(l.values());
            }
            spilled.check_rows(b, labels.len() as u64)?;
            let positions = self.order.order_positions(&labels, |p| rows[p]);
            drop((labels, rows));
            let table: Vec<RecordBatch> = batches
                .iter()
                .map(|batch| spill::without_helpers(batch, &self.schema))
                .collect();
            drop(batches);
            to.ordered(&table, &positions)?;
        }
        Ok(())
    }
}

/// Where ordered buckets go, in label order.
pub(crate) trait Buckets {
    /// Whether the next `rows` rows of the order are wanted; when not, they
    /// are passed over (and `ordered` is not called for them).
    fn wanted(&mut self, rows: u64) -> bool;
    /// The rows of one bucket (`table`) and their order: `positions[k]`
    /// is the row of `table` (counted over its batches) at its `k`-th
    /// place.
    fn ordered(&mut self, table: &[RecordBatch], positions: &[u32]) -> Result<(), Error>;
}

/// `-n K`: the rows that can still be among the first K of the order.
/// After each compaction only rows with a label at most the K-th smallest
/// label seen are kept (all of that label's rows too, since its ties are
/// ordered together), so the first K rows of the order are always among
/// them. Memory: about 2K rows.
struct Sample {
    count: u64,
    batches: Vec<RecordBatch>,
    rows: u64,
    /// The memory of `batches`.
    bytes: u64,
    /// Rows with a larger label cannot be among the first K.
    threshold: Option<u32>,
}

impl Sample {
    fn new(count: u64) -> Sample {
        Sample {
            count,
            batches: Vec::new(),
            rows: 0,
            bytes: 0,
            threshold: None,
        }
    }

    fn add(
        &mut self,
        run: &Run,
        batch: RecordBatch,
        first: u64,
        labels: Vec<u32>,
    ) -> Result<(), Error> {
        if self.count == 0 {
            return Ok(());
        }
        let schema = run.spill_schema.clone();
        let helped = spill::with_helpers(&batch, &schema, first, &labels)?;
        let kept = match self.threshold {
            None => helped,
            Some(threshold) => {
                let keep: Vec<u32> = (0..labels.len() as u32)
                    .filter(|&i| labels[i as usize] <= threshold)
                    .collect();
                if keep.is_empty() {
                    return Ok(());
                }
                arrow::compute::take_record_batch(&helped, &arrow::array::UInt32Array::from(keep))
                    .map_err(|e| Error::invalid(format!("internal: sampled rows: {e}")))?
            }
        };
        self.rows += kept.num_rows() as u64;
        self.bytes += held_bytes(&kept);
        self.batches.push(kept);
        if sample_compacts(&run.budget, self.count, self.rows, self.bytes) {
            self.compact(run)?;
        }
        check_sample_held(&run.budget, self.count, self.bytes)
    }

    /// Keeps only the rows with a label at most the K-th smallest.
    fn compact(&mut self, run: &Run) -> Result<(), Error> {
        let mut labels: Vec<u32> = Vec::with_capacity(self.rows as usize);
        for batch in &self.batches {
            labels.extend_from_slice(spill::helpers(batch).1.values());
        }
        if (labels.len() as u64) <= self.count {
            return Ok(());
        }
        let mut sorted = labels.clone();
        let k = self.count as usize - 1;
        let (_, &mut threshold, _) = sorted.select_nth_unstable(k);
        self.threshold = Some(threshold);
        let schema = run.spill_schema.clone();
        let merged = arrow::compute::concat_batches(&schema, &self.batches)
            .map_err(|e| Error::invalid(format!("internal: sampled rows: {e}")))?;
        let keep: Vec<u32> = (0..labels.len() as u32)
            .filter(|&i| labels[i as usize] <= threshold)
            .collect();
        let kept =
            arrow::compute::take_record_batch(&merged, &arrow::array::UInt32Array::from(keep))
                .map_err(|e| Error::invalid(format!("internal: sampled rows: {e}")))?;
        self.rows = kept.num_rows() as u64;
        self.bytes = held_bytes(&kept);
        self.batches = vec![kept];
        Ok(())
    }

    fn finish(
        self,
        run: &Run,
        destination: &Destination,
        settings: WriteSettings,
        rows_in: u64,
    ) -> Result<Report, Error> {
        let mut labels = Vec::with_capacity(self.rows as usize);
        let mut rows = Vec::with_capacity(self.rows as usize);
        for batch in &self.batches {
            let (r, l) = spill::helpers(batch);
            rows.extend_from_slice(r.values());
            labels.extend_from_slice(l.values());
        }
        let mut positions = run.order.order_positions(&labels, |p| rows[p]);
        positions.truncate(self.count.min(rows_in) as usize);
        let rows_out = positions.len() as u64;
        let table: Vec<RecordBatch> = self
            .batches
            .iter()
            .map(|batch| spill::without_helpers(batch, &run.schema))
            .collect();
        let mut emitter = Emitter::new(destination, settings, run.schema.clone(), rows_out)?;
        run.gather(&table, &positions, &mut emitter)?;
        emitter.finish()?;
        Ok(Report {
            rows_in,
            rows_out,
            buckets: 0,
        })
    }
}
