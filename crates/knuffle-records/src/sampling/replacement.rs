//! `-r [-n K]`: sampling with replacement, K independent draws (endless
//! without `-n`, until the reader goes away), each record written as it is
//! drawn. Every draw needs the number of records (or their total weight),
//! so all records are read into memory first (their bytes, an 8-byte
//! offset each, and with `-w` an 8-byte weight each, within `--memory`).
//! When they do not fit and `-n K` is given for FILEs (not standard
//! input), the FILEs are read twice instead: once to count the records
//! (and read their weights: 16 bytes each are held), then, after the K
//! draws, once more to collect the records drawn (each drawn record held
//! once, within `--memory`). The draws are the same either way, and so is
//! the output.
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

/// Opens the inputs again from their start (FILEs only: standard input
/// cannot be read twice).
pub type Reopen<'a> = &'a dyn Fn() -> Result<RecordReader, SampleError>;

/// Draws `count` records (`None`: endlessly) of `reader` with
/// replacement, uniformly or by `weights`; `reopen` reads the inputs
/// twice when their records do not fit the memory limit.
pub fn run(
    reader: &mut RecordReader,
    mut weights: Option<WeightField>,
    count: Option<u64>,
    reopen: Option<Reopen<'_>>,
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
            if let (Some(count), Some(reopen)) = (count, reopen) {
                drop((bytes, starts, drawn_weights));
                return two_passes(reopen, weights, count, budget, rng, out, notes);
            }
            return Err(SampleError::memory(format!(
                "sampling with replacement holds every record, and they take more than the \
                 memory limit ({budget} bytes); give a larger --memory (with -n K, FILEs \
                 that do not fit are read twice instead of held)"
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

/// `-r -n COUNT` over inputs whose records do not fit `budget`: a pass
/// counts the records (and reads their weights), the draws are made as in
/// memory, and a second pass collects each drawn record once; they are
/// written in the order drawn.
fn two_passes(
    reopen: Reopen<'_>,
    mut weights: Option<WeightField>,
    count: u64,
    budget: u64,
    rng: &mut DefaultRng,
    out: &mut Output<'_>,
    notes: &mut dyn FnMut(Note),
) -> Result<(), SampleError> {
    let census = census(reopen, weights.as_mut(), budget)?;
    note_skipped(census.skipped, notes);
    if census.records == 0 {
        return Ok(());
    }
    // Held: each draw, each distinct one, and a record's slot.
    let held = count.saturating_mul(40);
    if held > budget {
        return Err(too_much(&format!("{count} draws"), budget));
    }
    // The draws, in the order of the in-memory path: the same records.
    let draws: Vec<u64> = (0..count)
        .map(|_| match &census.index {
            Some(index) => index.draw(rng) as u64,
            None => knuffle::below(census.records, rng),
        })
        .collect();
    let mut wanted = draws.clone();
    wanted.sort_unstable();
    wanted.dedup();
    let kept = collect(
        reopen,
        weights.as_mut(),
        &wanted,
        census.skipped == 0,
        held,
        budget,
    )?;
    for draw in &draws {
        let slot = wanted
            .binary_search(draw)
            .expect("every draw was collected");
        out.write(&kept[slot])?;
    }
    Ok(())
}

/// What the first of [`two_passes`] finds.
struct Census {
    /// Records (with a weight, under `-w`).
    records: u64,
    /// Records skipped for their weight.
    skipped: u64,
    /// The index of their weights, under `-w`.
    index: Option<WeightedIndex>,
}

/// The first pass: how many records there are and, under `-w`, their
/// weights (16 bytes each held, for the weights and then the index).
fn census(
    reopen: Reopen<'_>,
    weights: Option<&mut WeightField>,
    budget: u64,
) -> Result<Census, SampleError> {
    let mut reader = reopen()?;
    let mut record = Vec::new();
    let Some(field) = weights else {
        let records = reader.skip_records(u64::MAX, &mut record)?;
        return Ok(Census {
            records,
            skipped: 0,
            index: None,
        });
    };
    let mut found: Vec<Weight> = Vec::new();
    let mut skipped = 0u64;
    while reader.next_record(&mut record)? {
        match field.weight(&record, &reader)? {
            Some(weight) => found.push(weight),
            None => skipped += 1,
        }
        if 16 * found.len() as u64 > budget {
            return Err(too_much("the weight of every record", budget));
        }
    }
    let index = if found.is_empty() {
        None
    } else {
        Some(weighted_index(&found)?)
    };
    Ok(Census {
        records: found.len() as u64,
        skipped,
        index,
    })
}

/// The second pass: the records numbered `wanted` (ascending, distinct;
/// under `-w` only records with a weight are numbered), while `held`
/// bytes and theirs stay within `budget`. With `unread_between`, the records between two wanted ones are
/// passed over unread (no record was skipped for its weight).
fn collect(
    reopen: Reopen<'_>,
    mut weights: Option<&mut WeightField>,
    wanted: &[u64],
    unread_between: bool,
    mut held: u64,
    budget: u64,
) -> Result<Vec<Vec<u8>>, SampleError> {
    let mut reader = reopen()?;
    let mut record = Vec::new();
    let mut kept: Vec<Vec<u8>> = Vec::with_capacity(wanted.len());
    let mut at = 0u64;
    for &next in wanted {
        if unread_between {
            at += reader.skip_records(next - at, &mut record)?;
        }
        loop {
            if !reader.next_record(&mut record)? {
                return Err(SampleError::data(
                    "the input changed between the two readings of a sample with \
                     replacement (counting, then collecting the records drawn); sample \
                     FILEs that do not change",
                ));
            }
            if let Some(field) = weights.as_deref_mut()
                && field.weight(&record, &reader)?.is_none()
            {
                continue;
            }
            at += 1;
            if at > next {
                break;
            }
        }
        held += record.len() as u64;
        if held > budget {
            return Err(too_much(
                &format!("the {} records drawn", wanted.len()),
                budget,
            ));
        }
        kept.push(record.clone());
    }
    Ok(kept)
}

/// The error for what the two passes cannot hold within `budget`.
fn too_much(what: &str, budget: u64) -> SampleError {
    SampleError::memory(format!(
        "sampling with replacement from FILEs larger than memory holds {what}, more than \
         the memory limit ({budget} bytes); give a larger --memory or a smaller -n"
    ))
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
