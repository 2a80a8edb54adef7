//! `knuffle split` on tables: each row of Parquet, Arrow, CSV and JSON
//! Lines tables to exactly one part (train, validation, test), with the
//! laws and the decisions of the line split
//! (`knuffle_sample::split`), so a table and the CSV of its
//! rows are split alike for the same seed:
//!
//! - **Exact sizes** (the default): part sizes [`Parts::sizes`] of the
//!   number of rows N, row i to part j with probability exactly
//!   `remaining_j / remaining` (`knuffle_sample::ExactDraw`: one draw per
//!   row in input order from the seed's generator, Knuth's selection
//!   sampling for several parts). N is counted first
//!   (a Parquet file's footer says it; other files are read), so the
//!   inputs are read twice and must be files, not pipes.
//! - **By key** (`-k COLS`): every row of a key to one part, `below(S)`
//!   on the key's SHA-256 generator (the line split's domain; the key
//!   encoded as `sample_columns` says) against the cumulative shares
//!   ([`Parts::part_of`]). One pass.
//!
//! Rows keep their input order within each part; every column keeps its
//! type. Every part is written to its end before any is put in place: a
//! failing run leaves no part and replaces no file.

use std::path::PathBuf;

use arrow::array::{RecordBatch, UInt32Array};
use knuffle::Seed;
use knuffle_sample::{ExactDraw, FieldName, Parts, split_key_rng};

use crate::error::Error;
use crate::output::{Destination, Emitter, Written};
use crate::sample_columns::KeyColumns;
use crate::sample_rows::Rows;
use crate::source::{self, Source};
use crate::table_facts::{Prepared, prepare};
use crate::table_options::Options;
use crate::table_plan::reading;

/// A split of a table: the shares, and the key columns of a group split.
#[derive(Clone, Debug)]
pub struct TableSplit {
    /// The shares of the parts (`--parts 80,10,10`), one output each.
    pub parts: Parts,
    /// `-k COLS`: a group split by these columns' values.
    pub key: Option<Vec<FieldName>>,
}

/// What a split did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SplitReport {
    /// Rows read.
    pub rows_in: u64,
    /// Rows written to each part, in the order of the parts.
    pub rows_out: Vec<u64>,
}

/// Splits the rows of the tables `inputs` (files or directories of
/// shards) into `outputs`, one per part, as `split` asks, with the seed
/// `options.seed` (`options.count` is not used). The parts appear only
/// when all are complete.
pub fn split_table(
    inputs: &[PathBuf],
    outputs: &[PathBuf],
    options: &Options,
    split: &TableSplit,
) -> Result<SplitReport, Error> {
    let (parts, given) = (split.parts.len(), outputs.len());
    if given != parts {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        return Err(Error::invalid(format!(
            "{parts} part{} but {given} output{}: give one output per part, in the order of \
             the parts",
            plural(parts),
            plural(given)
        )));
    }
    if split.key.is_none() {
        // Before any input is opened: a FIFO opened to be counted would
        // be empty when read again.
        only_files(&source::list(inputs, options.format)?)?;
    }
    let destination = Destination::Parts(outputs.to_vec(), split.parts.clone());
    // The parts' writers, open at once, share the memory of one (the
    // plan's settings are each part's).
    let mut prepared = prepare(inputs, &destination, options)?;
    let settings = prepared.settings.clone();
    let law = match &split.key {
        None => Law::Exact(split.parts.sizes(count_rows(&mut prepared)?)),
        Some(fields) => Law::ByKey(fields),
    };
    let mut emitters = outputs
        .iter()
        .map(|path| {
            Emitter::new(
                &Destination::File(path.clone()),
                settings.clone(),
                prepared.schema.clone(),
                0,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let rows = Rows(prepared);
    let report = match law {
        Law::ByKey(fields) => by_key(rows, fields, split, &options.seed, &mut emitters)?,
        Law::Exact(sizes) => exact(rows, sizes, &options.seed, &mut emitters)?,
    };
    let written = emitters
        .into_iter()
        .map(Emitter::finish_unkept)
        .collect::<Result<Vec<Written>, Error>>()?;
    for part in written {
        part.keep()?;
    }
    Ok(report)
}

/// How rows are given their parts.
enum Law<'a> {
    /// Exact sizes: these part sizes (of the rows counted).
    Exact(Vec<u64>),
    /// By the key of these columns.
    ByKey(&'a [FieldName]),
}

/// Refuses inputs that are not regular files (pipes, devices): an exact
/// split reads its inputs twice.
fn only_files(sources: &[Source]) -> Result<(), Error> {
    for source in sources {
        let metadata =
            std::fs::metadata(&source.path).map_err(|e| Error::io_at(&source.path, &e))?;
        if !metadata.is_file() {
            return Err(Error::invalid(format!(
                "{}: not a regular file: an exact split reads its inputs twice (counting, \
                 then assigning); copy it to a file first, or split by key (-k)",
                source.path.display()
            )));
        }
    }
    Ok(())
}

/// The rows of the inputs, counted (a Parquet file by its footer, kept
/// for the rows pass; others read). The one input opened already is
/// counted and closed.
fn count_rows(prepared: &mut Prepared) -> Result<u64, Error> {
    let mut rows = 0u64;
    let reading = reading(&prepared.budget);
    for (index, source) in prepared.sources.iter().enumerate() {
        let opened = prepared
            .opening
            .open_before_last(index, source, &prepared.schema, reading)?;
        rows += match opened.rows {
            Some(said) => said,
            None => {
                let mut read = 0u64;
                for batch in opened.batches {
                    read += batch?.num_rows() as u64;
                }
                read
            }
        };
    }
    Ok(rows)
}

/// The rows of `batch` given to each part by `part_of` (one call per row,
/// in order), written; counts each part's rows into `out`.
fn deal(
    batch: &RecordBatch,
    part_of: &mut dyn FnMut(usize) -> Result<usize, Error>,
    emitters: &mut [Emitter],
    out: &mut [u64],
) -> Result<(), Error> {
    let mut positions: Vec<Vec<u32>> = vec![Vec::new(); emitters.len()];
    for row in 0..batch.num_rows() {
        positions[part_of(row)?].push(row as u32);
    }
    for ((positions, emitter), out) in positions.into_iter().zip(emitters).zip(out) {
        if positions.is_empty() {
            continue;
        }
        *out += positions.len() as u64;
        if positions.len() == batch.num_rows() {
            emitter.push(batch)?;
            continue;
        }
        let taken = arrow::compute::take_record_batch(batch, &UInt32Array::from(positions))
            .map_err(|e| Error::invalid(format!("internal: taking a part's rows: {e}")))?;
        emitter.push(&taken)?;
    }
    Ok(())
}

/// Exact sizes: row after row, the line split's draw (`ExactDraw`).
fn exact(
    rows: Rows,
    sizes: Vec<u64>,
    seed: &str,
    emitters: &mut [Emitter],
) -> Result<SplitReport, Error> {
    let mut draw = ExactDraw::new(sizes);
    let mut rng = Seed::from_text(seed).rng();
    let mut out = vec![0u64; emitters.len()];
    let rows_in = rows.each(|batch, _, _| {
        let mut part_of = |_row: usize| draw.next(&mut rng).ok_or_else(changed);
        deal(batch, &mut part_of, emitters, &mut out)
    })?;
    if !draw.is_done() {
        return Err(changed());
    }
    Ok(SplitReport {
        rows_in,
        rows_out: out,
    })
}

/// The error for inputs that did not read the same twice.
fn changed() -> Error {
    Error::data(
        "the input changed between the two readings of an exact split (counting, then \
         assigning); split a table that does not change",
    )
}

/// By key: each row's part from its key's draw; one pass.
fn by_key(
    rows: Rows,
    fields: &[FieldName],
    split: &TableSplit,
    seed: &str,
    emitters: &mut [Emitter],
) -> Result<SplitReport, Error> {
    let keys = KeyColumns::new(fields, rows.schema())?;
    let seed = *Seed::from_text(seed).key();
    let total = split.parts.total();
    let mut out = vec![0u64; emitters.len()];
    let rows_in = rows.each(|batch, _, _| {
        let mut parts_of_rows = Vec::with_capacity(batch.num_rows());
        keys.each_key(batch, |_, key| {
            let u = knuffle::below(total, &mut split_key_rng(&seed, key));
            parts_of_rows.push(split.parts.part_of(u));
            Ok(())
        })?;
        deal(batch, &mut |row| Ok(parts_of_rows[row]), emitters, &mut out)
    })?;
    Ok(SplitReport {
        rows_in,
        rows_out: out,
    })
}
