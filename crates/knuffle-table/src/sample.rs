//! `knuffle sample` on tables: the sampling modes of lines
//! (`knuffle_records::sampling`) on the rows of Parquet, Arrow, CSV and
//! JSON Lines tables, with the same laws and the same decisions: each
//! mode's draw for a row is the one the line mode makes for the record at
//! the same place (the same generator of the seed, the same calls in the
//! same order; `-k`'s keys encoded as for lines, `sample_columns`), so a
//! table and the CSV of its rows give the same sample for the same seed.
//!
//! - `-p P` and `-k COLS -p P` stream: each batch is filtered and written
//!   at once, in input order (`sample_stream`).
//! - `-n K`, `-w COL [-n K]` and `--per-key N -k COLS` hold their sample
//!   (`sample_reservoir`, `sample_held`), within the memory limit.
//! - No mode: every row in the table order (`shuffle_table`), which is
//!   also the order of a line sample without a mode.
//!
//! With replacement (`-r`) and the random values of lines
//! (`--print-random`) are not modes of tables.

use std::path::{Path, PathBuf};

use arrow::array::RecordBatch;
use knuffle_records::sampling::Mode;

use crate::error::Error;
use crate::output::{Destination, Emitter};
use crate::shuffle::{Options, Prepared, prepare, reading, shuffle_table};
use crate::source;
use crate::{sample_reservoir, sample_stream};

/// A sample of a table: the mode and how its sample is written.
#[derive(Clone, Debug)]
pub struct TableSample {
    /// The mode, as for lines (`Mode::Replacement` is refused).
    pub mode: Mode,
    /// `--inorder`: the sample of `-n K` (or `-w COL -n K`) in input order.
    pub in_order: bool,
    /// `--skip-bad-weights`: rows whose weight is not a positive finite
    /// number are dropped (and counted) rather than an error.
    pub skip_bad_weights: bool,
}

/// What a sample did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampleReport {
    /// Rows read.
    pub rows_in: u64,
    /// Rows written.
    pub rows_out: u64,
    /// Rows dropped for their weight (`--skip-bad-weights`).
    pub skipped: u64,
}

/// Samples the rows of the tables `inputs` (files or directories of
/// shards) into the file `output`, as `sample` asks (`options.count` is
/// not used: the mode says how many rows). The output appears only when
/// complete; the seed is `options.seed`.
pub fn sample_table(
    inputs: &[PathBuf],
    output: &Path,
    options: &Options,
    sample: &TableSample,
) -> Result<SampleReport, Error> {
    let destination = Destination::File(output.to_path_buf());
    match &sample.mode {
        Mode::Replacement { .. } => {
            return Err(Error::invalid(
                "sampling with replacement (-r) is for records of text, not tables",
            ));
        }
        Mode::Uniform { count: None } if !sample.in_order => {
            let options = Options {
                count: None,
                ..options.clone()
            };
            let report = shuffle_table(inputs, &destination, &options)?;
            return Ok(SampleReport {
                rows_in: report.rows_in,
                rows_out: report.rows_out,
                skipped: 0,
            });
        }
        _ => {}
    }
    if sample.in_order
        && !matches!(
            sample.mode,
            Mode::Uniform { count: Some(_) } | Mode::Weighted { count: Some(_), .. }
        )
    {
        return Err(Error::invalid(
            "input order is for a sample of a number of rows, uniform or weighted",
        ));
    }
    let prepared = prepare(inputs, &destination, options)?;
    let mut emitter = Emitter::new(
        &destination,
        prepared.settings.clone(),
        prepared.schema.clone(),
        0,
    )?;
    let mut rng = knuffle::Seed::from_text(&options.seed).rng();
    let report = match &sample.mode {
        Mode::Bernoulli(probability) => {
            sample_stream::bernoulli(Rows(prepared), *probability, &mut rng, &mut emitter)?
        }
        Mode::Distinct {
            fields,
            probability,
        } => sample_stream::distinct(
            Rows(prepared),
            fields,
            *probability,
            &options.seed,
            &mut emitter,
        )?,
        mode => sample_reservoir::run(Rows(prepared), mode, sample, &mut rng, &mut emitter)?,
    };
    emitter.finish()?;
    Ok(report)
}

/// The rows of a sample's inputs, read once.
pub(crate) struct Rows(pub(crate) Prepared);

/// Names a row of a batch in messages, from its position in the batch.
pub(crate) type Place<'a> = &'a dyn Fn(usize) -> String;

impl Rows {
    /// The inputs' schema.
    pub(crate) fn schema(&self) -> &arrow::datatypes::SchemaRef {
        &self.0.schema
    }

    /// The limit on the rows a sample holds.
    pub(crate) fn memory(&self) -> u64 {
        self.0.budget.rows
    }

    /// Hands every non-empty batch to `visit`, with the input row number
    /// of its first row and the names of its rows; returns the rows read.
    pub(crate) fn each(
        self,
        mut visit: impl FnMut(&RecordBatch, u64, Place<'_>) -> Result<(), Error>,
    ) -> Result<u64, Error> {
        let Prepared {
            sources,
            schema,
            mut first,
            budget,
            ..
        } = self.0;
        let mut rows = 0u64;
        for source in &sources {
            let opened = match first.take() {
                Some(opened) => opened,
                None => source::open(source, Some(schema.clone()), reading(&budget))?,
            };
            let mut in_file = 0u64;
            for batch in opened.batches {
                let batch = source::conform(batch?, &schema, &source.path)?;
                if batch.num_rows() == 0 {
                    continue;
                }
                let place = |row: usize| {
                    format!(
                        "row {} of '{}'",
                        in_file + row as u64 + 1,
                        source.path.display()
                    )
                };
                visit(&batch, rows, &place)?;
                rows += batch.num_rows() as u64;
                in_file += batch.num_rows() as u64;
            }
        }
        Ok(rows)
    }
}
