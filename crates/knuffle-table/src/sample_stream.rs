//! The streaming modes of a table sample, each batch filtered and written
//! at once, in input order, one batch in memory:
//!
//! - `-p P` (Bernoulli): each row kept with probability exactly P by the
//!   draw of lines (`Probability::draw`, `below(b) < a`), one per row in
//!   input order from the seed's generator.
//! - `-k COLS -p P` (distinct): each key in with probability exactly P,
//!   decided by SHA-256 of the seed and the key (`key_rng` with the domain
//!   of lines, knuffle-sample's `distinct`), the key encoded as
//!   `sample_columns` says: the same keys in for a table and for its CSV.

use arrow::array::{BooleanArray, RecordBatch};
use knuffle::DefaultRng;
use knuffle_sample::{FieldName, Probability, distinct_key_rng};

use crate::error::Error;
use crate::output::Emitter;
use crate::sample_columns::KeyColumns;
use crate::sample_rows::{Rows, SampleReport};

/// Every batch of `rows` filtered by `keep` (one decision per row, in
/// order) and written; the report.
fn filter(
    rows: Rows,
    emitter: &mut Emitter,
    mut keep: impl FnMut(&RecordBatch) -> Result<Vec<bool>, Error>,
) -> Result<SampleReport, Error> {
    let mut rows_out = 0;
    let rows_in = rows.each(|batch, _, _| {
        let keep = keep(batch)?;
        let kept = keep.iter().filter(|&&k| k).count();
        if kept == batch.num_rows() {
            emitter.push(batch)?;
        } else if kept > 0 {
            let filtered = arrow::compute::filter_record_batch(batch, &BooleanArray::from(keep))
                .map_err(|e| Error::invalid(format!("internal: filtering rows: {e}")))?;
            emitter.push(&filtered)?;
        }
        rows_out += kept as u64;
        Ok(())
    })?;
    Ok(SampleReport {
        rows_in,
        rows_out,
        skipped: 0,
    })
}

/// `-p P`.
pub(crate) fn bernoulli(
    rows: Rows,
    probability: Probability,
    rng: &mut DefaultRng,
    emitter: &mut Emitter,
) -> Result<SampleReport, Error> {
    filter(rows, emitter, |batch| {
        Ok((0..batch.num_rows())
            .map(|_| probability.draw(rng))
            .collect())
    })
}

/// `-k COLS -p P`.
pub(crate) fn distinct(
    rows: Rows,
    fields: &[FieldName],
    probability: Probability,
    seed_text: &str,
    emitter: &mut Emitter,
) -> Result<SampleReport, Error> {
    let keys = KeyColumns::new(fields, rows.schema())?;
    let seed = *knuffle::Seed::from_text(seed_text).key();
    filter(rows, emitter, |batch| {
        let mut keep = Vec::with_capacity(batch.num_rows());
        keys.each_key(batch, |_, key| {
            keep.push(probability.draw(&mut distinct_key_rng(&seed, key)));
            Ok(())
        })?;
        Ok(keep)
    })
}
