//! Pass 1 of a stream: every row of the inputs, labelled by the epoch's
//! order and cut to the columns kept, either held for one stream (in
//! memory, or in nameless bucket files) or written to a bucket file of the
//! cache that every stream of the machine reads (stream_cache.rs).

use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use crate::budget::Budget;
use crate::error::Error;
use crate::opening::Opening;
use crate::order::{TableOrder, epoch_seed};
use crate::shuffle::{Held, Run, read_labelled};
use crate::source::{Reading, Source};
use crate::spill::{self, LabelRange, Spill, Spilled};
use crate::table_facts::read_schema;
use crate::table_plan::{BATCH_ROWS, SchemaPass};

/// What pass 1 reads: the input files, their schema, and the columns kept.
#[derive(Clone)]
pub(crate) struct Inputs {
    pub(crate) sources: Vec<Source>,
    /// The inputs' schema.
    pub(crate) schema: SchemaRef,
    /// The indices of the columns kept, in their order.
    pub(crate) projection: Vec<usize>,
    /// The schema of the columns kept.
    pub(crate) projected: SchemaRef,
}

impl Inputs {
    /// The inputs `sources` with the columns `columns` (none: all), for a
    /// pass 1 in `memory` bytes: their schema read as a table job's is
    /// (table_facts.rs; a single input opened now, to be read from there;
    /// Parquet footers kept while they fit), and what pass 1 is left.
    pub(crate) fn of(
        sources: Vec<Source>,
        columns: Option<&[String]>,
        memory: u64,
    ) -> Result<(Inputs, Opening), Error> {
        let pass = SchemaPass {
            reading: no_thread_pool(),
            ..SchemaPass::of(sources.len(), false, memory)
        };
        let ((schema, _), opening) = read_schema(&sources, pass)?;
        let projection = projection(&schema, columns)?;
        let projected = Arc::new(
            schema
                .project(&projection)
                .map_err(|e| Error::invalid(format!("internal: columns: {e}")))?,
        );
        let inputs = Inputs {
            sources,
            schema,
            projection,
            projected,
        };
        Ok((inputs, opening))
    }

    /// The settings of the pass 1 and 2 of epoch `epoch` of `seed`, in
    /// `memory` bytes, bucket files of one stream in `temp_dir`.
    pub(crate) fn run(&self, seed: &str, epoch: u64, memory: u64, temp_dir: &Path) -> Run {
        Run {
            order: TableOrder::new(&epoch_seed(seed, epoch)),
            spill_schema: spill::spill_schema(&self.projected),
            schema: self.projected.clone(),
            budget: Budget::of(memory),
            temp_dir: temp_dir.to_path_buf(),
            count: None,
        }
    }

    /// Every row, labelled and cut to the columns kept, handed to `visit`
    /// (see `read_labelled`); stops with an error when `stop` is set.
    fn read(
        &self,
        run: &Run,
        opening: Opening,
        stop: &AtomicBool,
        mut visit: impl FnMut(RecordBatch, u64, Vec<u32>, &dyn Fn() -> f64) -> Result<(), Error>,
    ) -> Result<u64, Error> {
        read_labelled(
            &run.order,
            &self.schema,
            &self.sources,
            opening,
            no_thread_pool(),
            |batch, first_row, labels, share_read| {
                if stop.load(Ordering::Relaxed) {
                    return Err(stopped());
                }
                let batch = batch
                    .project(&self.projection)
                    .map_err(|e| Error::invalid(format!("internal: columns: {e}")))?;
                visit(batch, first_row, labels, share_read)
            },
        )
    }

    /// Pass 1 for one stream: the rows held in memory while they fit, else
    /// in nameless bucket files in the run's temporary directory.
    pub(crate) fn hold(
        &self,
        run: &Run,
        opening: Opening,
        stop: &AtomicBool,
    ) -> Result<Held, Error> {
        let mut held = Some(Held::nothing());
        self.read(
            run,
            opening,
            stop,
            |batch, first_row, labels, share_read| {
                let before = held.take().expect("rows are held between batches");
                held = Some(run.hold(before, batch, first_row, labels, share_read)?);
                Ok(())
            },
        )?;
        Ok(held.expect("rows are held after the last batch"))
    }

    /// Pass 1 into `file` (empty; named `place` in errors): every row in a
    /// bucket, however few rows there are.
    pub(crate) fn spill_to(
        &self,
        run: &Run,
        opening: Opening,
        stop: &AtomicBool,
        file: File,
        place: String,
    ) -> Result<Spilled, Error> {
        let mut file = Some(file);
        let mut open = |buckets| {
            let file = file.take().expect("one bucket file");
            Spill::to_file(
                file,
                place.clone(),
                run.spill_schema.clone(),
                LabelRange::ALL,
                buckets,
                run.budget.pending,
            )
        };
        let mut held = Some(Held::nothing());
        self.read(
            run,
            opening,
            stop,
            |batch, first_row, labels, share_read| {
                let before = held.take().expect("rows are held between batches");
                held = Some(run.hold_in(before, batch, first_row, labels, share_read, &mut open)?);
                Ok(())
            },
        )?;
        let held = held.expect("rows are held after the last batch");
        run.spill_all(held, &mut open)?.finish()
    }
}

/// Inputs read one row group at a time, without rayon's thread pool: a
/// stream is opened in forked processes (torch's DataLoader workers), where
/// a pool started before the fork has no threads and would wait forever.
pub(crate) fn no_thread_pool() -> Reading {
    Reading::one_at_a_time(BATCH_ROWS)
}

/// The error that ends a stream nobody reads any more (never seen).
pub(crate) fn stopped() -> Error {
    Error::invalid("the stream was closed")
}

/// The indices of `columns` in `schema` (all of them without a list).
fn projection(schema: &SchemaRef, columns: Option<&[String]>) -> Result<Vec<usize>, Error> {
    let Some(columns) = columns else {
        return Ok((0..schema.fields().len()).collect());
    };
    let mut indices = Vec::with_capacity(columns.len());
    for name in columns {
        let index = schema.index_of(name).map_err(|_| {
            let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            Error::invalid(format!(
                "no column '{name}' in the table (its columns: {})",
                names.join(", ")
            ))
        })?;
        if indices.contains(&index) {
            return Err(Error::invalid(format!("column '{name}' is named twice")));
        }
        indices.push(index);
    }
    Ok(indices)
}
