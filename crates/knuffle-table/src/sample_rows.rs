//! What a sample of a table is asked ([`TableSample`]) and reports
//! ([`SampleReport`]), and the rows it reads ([`Rows`]: every input once,
//! batch by batch, each row named for messages).

use arrow::array::RecordBatch;
use knuffle_sample::Mode;

use crate::error::Error;
use crate::source;
use crate::table_facts::Prepared;
use crate::table_plan::reading;

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
            mut opening,
            budget,
            ..
        } = self.0;
        let mut rows = 0u64;
        for (index, source) in sources.iter().enumerate() {
            let opened = opening.open(index, source, &schema, reading(&budget))?;
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
