//! `-r [-n K]`: sampling with replacement, K independent draws (endless
//! without `-n`, until the reader goes away), each record written as it is
//! drawn. Every draw needs the number of records (or their total weight),
//! so all records are read into memory first (their bytes, an 8-byte
//! offset each, and with `-w` an 8-byte weight each, within `--memory`).
//!
//! - Uniform: each draw is record `below(N)`, exactly 1/N each
//!   (knuffle's unbiased bounded integers).
//! - With `-w FIELD`: `knuffle::WeightedIndex`, the inversion method on
//!   integers (Devroye 1986, §III.2): one exact `below(total)` per draw
//!   and a binary search of the cumulative sums. When every weight is an
//!   integer (digits only) each record's probability is exactly
//!   `w / total` (the total must stay below 2^64); otherwise the weights
//!   are floats, scaled to integers by one power of two and rounded down
//!   (exact for binary fractions such as 0.5 or 0.25, otherwise each
//!   probability off by less than about `2N / 2^61`; see
//!   `knuffle::Weight`).

use knuffle::{DefaultRng, WeightedIndex};

use super::error::{Note, SampleError};
use super::output::Output;
use super::records::RecordReader;
use super::weighted::{Weight, WeightField, note_skipped};

/// Draws `count` records (`None`: endlessly) of `reader` with
/// replacement, uniformly or by `weights`.
pub fn run(
    reader: &mut RecordReader,
    mut weights: Option<WeightField>,
    count: Option<u64>,
    rng: &mut DefaultRng,
    out: &mut Output<'_>,
    notes: &mut dyn FnMut(Note),
) -> Result<(), SampleError> {
    if count == Some(0) {
        return Ok(());
    }
    let budget = out.budget();
    let mut bytes: Vec<u8> = Vec::new();
    let mut starts: Vec<usize> = vec![0];
    let mut drawn_weights: Vec<Weight> = Vec::new();
    let mut record = Vec::new();
    let mut skipped = 0u64;
    while reader.next_record(&mut record)? {
        if let Some(field) = weights.as_mut() {
            match field.weight(&record, reader)? {
                Some(weight) => drawn_weights.push(weight),
                None => {
                    skipped += 1;
                    continue;
                }
            }
        }
        bytes.extend_from_slice(&record);
        starts.push(bytes.len());
        let held = bytes.len() as u64 + 16 * starts.len() as u64;
        if held > budget {
            return Err(SampleError::memory(format!(
                "sampling with replacement holds every record, and they take more than the \
                 memory limit ({budget} bytes); give a larger --memory"
            )));
        }
    }
    note_skipped(skipped, notes);
    let n = starts.len() - 1;
    if n == 0 {
        return Ok(());
    }
    let index = match weights {
        None => None,
        Some(_) => Some(weighted_index(&drawn_weights)?),
    };
    let mut left = count;
    while left != Some(0) {
        let i = match &index {
            Some(index) => index.draw(rng),
            None => knuffle::below(n as u64, rng) as usize,
        };
        out.write(&bytes[starts[i]..starts[i + 1]])?;
        left = left.map(|k| k - 1);
    }
    Ok(())
}

/// The exact integer index of `weights`: integers as they are when all
/// are integers, otherwise every weight as a float.
fn weighted_index(weights: &[Weight]) -> Result<WeightedIndex, SampleError> {
    let integers: Option<Vec<u64>> = weights
        .iter()
        .map(|w| match *w {
            Weight::Integer(integer) => Some(integer),
            Weight::Float(_) => None,
        })
        .collect();
    let built = match integers {
        Some(integers) => WeightedIndex::new(integers),
        None => WeightedIndex::new(weights.iter().map(|w| w.as_f64())),
    };
    built.map_err(|error| SampleError::data(format!("cannot draw by these weights: {error}")))
}
