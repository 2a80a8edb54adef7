//! `knuffle sample` on tables: the sampling modes of lines
//! (`knuffle_sample`) on the rows of Parquet, Arrow, CSV and
//! JSON Lines tables, with the same laws and the same decisions: each
//! mode's draw for a row is the one the line mode makes for the record at
//! the same place (the same generator of the seed, the same calls in the
//! same order; `-k`'s keys encoded as for lines, `sample_columns`), so a
//! table and the CSV of its rows give the same sample for the same seed.
//!
//! - `-p P` and `-k COLS -p P` stream: each batch is filtered and written
//!   at once, in input order (`sample_stream`).
//! - `-n K`, `-w COL -n K` and `--per-key N -k COLS` hold their sample
//!   (`sample_reservoir`, `sample_held`), within the memory limit; `-w COL`
//!   alone sorts runs on disk beyond it (`sample_weight_runs`).
//! - No mode: every row in the table order (`shuffle_table`), which is
//!   also the order of a line sample without a mode.
//!
//! With replacement (`-r`) and the random values of lines
//! (`--print-random`) are not modes of tables.

use std::path::{Path, PathBuf};

use knuffle_sample::Mode;

use crate::error::Error;
use crate::output::{Destination, Emitter};
use crate::sample_rows::Rows;
pub use crate::sample_rows::{SampleReport, TableSample};
use crate::shuffle::shuffle_table;
use crate::table_facts::prepare;
use crate::table_options::Options;
use crate::{sample_reservoir, sample_stream};

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
        mode => {
            let temp_dir = options.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
            sample_reservoir::run(
                Rows(prepared),
                mode,
                sample,
                &mut rng,
                &temp_dir,
                &mut emitter,
            )?
        }
    };
    emitter.finish()?;
    Ok(report)
}
