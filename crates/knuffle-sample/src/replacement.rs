//! `-r [-n K]`: sampling with replacement, K independent draws (endless
//! without `-n`, until the reader goes away), each record written as it is
//! drawn. Every draw needs the number of records (or their total weight),
//! so all records are read into memory first (their bytes, an 8-byte
//! offset each, and with `-w` a 16-byte weight each, within `--memory`).
//! When they do not fit and `-n K` is given, the inputs are read twice
//! instead (standard input is first copied to a nameless temporary file,
//! by [`super::sample`]): once to count the records (and find what their
//! integer weights need: the largest weight, the
//! integer total; a float-weighted input is read once more to sum the
//! scaled weights), then, after the K draws, once more to collect the
//! records drawn (each drawn record held once, within `--memory`): O(K)
//! memory for input of any size. The draws are the same either way, and
//! so is the output.
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

/// Opens the inputs again from their start (standard input as copied to
/// a temporary file).
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
        // Each record's offset, and its weight (16 bytes) under -w.
        let held = bytes.len() as u64 + 8 * starts.len() as u64 + 16 * drawn_weights.len() as u64;
        if held > budget {
            if let (Some(count), Some(reopen)) = (count, reopen) {
                drop((bytes, starts, drawn_weights));
                return two_passes(reopen, weights, count, budget, rng, out, notes);
            }
            return Err(SampleError::memory(format!(
                "sampling with replacement without -n holds every record, and they take more \
                 than the memory limit ({budget} bytes); give -n K (inputs that do not fit \
                 are then read twice instead of held) or a larger --memory"
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
/// counts the records (and, under `-w`, what their integer weights need:
/// the largest float weight, the integer total), the draws are made as in
/// memory, and a last pass collects each drawn record once; they are
/// written in the order drawn. Memory: O(COUNT), whatever the input size.
fn two_passes(
    reopen: Reopen<'_>,
    mut weights: Option<WeightField>,
    count: u64,
    budget: u64,
    rng: &mut DefaultRng,
    out: &mut Output<'_>,
    notes: &mut dyn FnMut(Note),
) -> Result<(), SampleError> {
    let census = census(reopen, weights.as_mut())?;
    note_skipped(census.skipped, notes);
    if census.records == 0 {
        return Ok(());
    }
    // Held: each draw, its target and a record's slot.
    let held = count.saturating_mul(48);
    if held > budget {
        return Err(too_much(&format!("{count} draws"), budget));
    }
    let (kept, slots) = match weights.as_mut() {
        None => {
            // Record below(N) each: the in-memory path's draws.
            let draws: Vec<u64> = (0..count)
                .map(|_| knuffle::below(census.records, rng))
                .collect();
            collect(reopen, draws, held, budget)?
        }
        Some(field) => {
            let integers = census.integers(reopen, field)?;
            // As `WeightedIndex::draw`: u = below(total), the record whose
            // cumulative weights pass u first.
            let targets: Vec<u64> = (0..count)
                .map(|_| knuffle::below(integers.total, rng))
                .collect();
            collect_by_weight(reopen, field, &integers, targets, held, budget)?
        }
    };
    for &slot in &slots {
        out.write(&kept[slot])?;
    }
    Ok(())
}

/// The records drawn (each once) and, for each draw in order, its slot
/// among them.
type Collected = (Vec<Vec<u8>>, Vec<usize>);

/// What the first of [`two_passes`] finds.
struct Census {
    /// Records (with a weight, under `-w`).
    records: u64,
    /// Records skipped for their weight.
    skipped: u64,
    /// Under `-w`: whether every weight is an integer, their sum (`None`
    /// past 2^64 - 1), and the largest weight as a float.
    all_integers: bool,
    integer_total: Option<u64>,
    largest: f64,
}

/// How weights become the exact integers drawn from, as
/// [`weighted_index`] makes them: integers as they are when all are,
/// otherwise every weight as a float scaled by one power of two
/// (`knuffle::FloatScale`, the scale `WeightedIndex` takes).
struct Integers {
    scale: Option<knuffle::FloatScale>,
    total: u64,
}

impl Integers {
    fn of(&self, weight: Weight) -> u64 {
        match (self.scale, weight) {
            (None, Weight::Integer(integer)) => integer,
            (Some(scale), weight) => scale.integer(weight.as_f64()),
            (None, Weight::Float(_)) => unreachable!("float weights are scaled"),
        }
    }
}

impl Census {
    /// The integer weights' conversion and total (one more pass over the
    /// weights when they are floats, to sum the scaled integers).
    fn integers(
        &self,
        reopen: Reopen<'_>,
        field: &mut WeightField,
    ) -> Result<Integers, SampleError> {
        if self.all_integers {
            let total = self.integer_total.ok_or_else(|| {
                SampleError::data(format!(
                    "cannot draw by these weights: {}",
                    knuffle::WeightError::Overflow
                ))
            })?;
            return Ok(Integers { scale: None, total });
        }
        let records = usize::try_from(self.records).unwrap_or(usize::MAX);
        let scale = knuffle::FloatScale::new(records, self.largest)
            .expect("weights are positive and finite");
        let mut integers = Integers {
            scale: Some(scale),
            total: 0,
        };
        let mut reader = reopen()?;
        let mut record = Vec::new();
        let mut total = 0u64;
        while reader.next_record(&mut record)? {
            if let Some(weight) = field.weight(&record, &reader)? {
                // Below 2^62 in all (the scale's promise).
                total += integers.of(weight);
            }
        }
        integers.total = total;
        Ok(integers)
    }
}

/// The first pass: how many records there are and, under `-w`, what
/// their integer weights need (O(1) memory).
fn census(reopen: Reopen<'_>, weights: Option<&mut WeightField>) -> Result<Census, SampleError> {
    let mut reader = reopen()?;
    let mut record = Vec::new();
    let mut census = Census {
        records: 0,
        skipped: 0,
        all_integers: true,
        integer_total: Some(0),
        largest: 0.0,
    };
    let Some(field) = weights else {
        census.records = reader.skip_records(u64::MAX, &mut record)?;
        return Ok(census);
    };
    while reader.next_record(&mut record)? {
        match field.weight(&record, &reader)? {
            Some(weight) => {
                census.records += 1;
                if let Weight::Integer(integer) = weight {
                    census.integer_total =
                        census.integer_total.and_then(|t| t.checked_add(integer));
                } else {
                    census.all_integers = false;
                }
                census.largest = census.largest.max(weight.as_f64());
            }
            None => census.skipped += 1,
        }
    }
    Ok(census)
}

/// The second pass without `-w`: the records numbered `draws` (in the
/// order drawn), each distinct one held once while `held` bytes and
/// theirs stay within `budget`; the records between two wanted ones are
/// passed over unread.
fn collect(
    reopen: Reopen<'_>,
    draws: Vec<u64>,
    mut held: u64,
    budget: u64,
) -> Result<Collected, SampleError> {
    let mut wanted = draws.clone();
    wanted.sort_unstable();
    wanted.dedup();
    let mut reader = reopen()?;
    let mut record = Vec::new();
    let mut kept: Vec<Vec<u8>> = Vec::with_capacity(wanted.len());
    let mut at = 0u64;
    for &next in &wanted {
        at += reader.skip_records(next - at, &mut record)?;
        if at < next || !reader.next_record(&mut record)? {
            return Err(changed());
        }
        at += 1;
        held += record.len() as u64;
        if held > budget {
            return Err(too_much(
                &format!("the {} records drawn", wanted.len()),
                budget,
            ));
        }
        kept.push(record.clone());
    }
    let slots = draws
        .iter()
        .map(|draw| {
            wanted
                .binary_search(draw)
                .expect("every draw was collected")
        })
        .collect();
    Ok((kept, slots))
}

/// The second pass under `-w`: for each target `u` (below the total), the
/// first record whose cumulative integer weight exceeds `u` (what
/// `WeightedIndex::draw` finds by binary search), each distinct record
/// held once within `budget`.
fn collect_by_weight(
    reopen: Reopen<'_>,
    field: &mut WeightField,
    integers: &Integers,
    targets: Vec<u64>,
    mut held: u64,
    budget: u64,
) -> Result<Collected, SampleError> {
    // The targets in increasing order, with their draw numbers.
    let mut order: Vec<(u64, usize)> = targets.iter().copied().zip(0..).collect();
    order.sort_unstable();
    // For each draw, its slot among the records kept.
    let mut slot_of = vec![0usize; targets.len()];
    let mut kept: Vec<Vec<u8>> = Vec::new();
    let mut reader = reopen()?;
    let mut record = Vec::new();
    let mut cumulative = 0u64;
    let mut next = 0;
    while next < order.len() {
        if !reader.next_record(&mut record)? {
            return Err(changed());
        }
        let Some(weight) = field.weight(&record, &reader)? else {
            continue;
        };
        cumulative += integers.of(weight);
        if order[next].0 >= cumulative {
            continue;
        }
        held += record.len() as u64;
        if held > budget {
            return Err(too_much("the records drawn", budget));
        }
        kept.push(record.clone());
        while next < order.len() && order[next].0 < cumulative {
            slot_of[order[next].1] = kept.len() - 1;
            next += 1;
        }
    }
    Ok((kept, slot_of))
}

/// The error for inputs that did not read the same twice.
fn changed() -> SampleError {
    SampleError::data(
        "the input changed between the readings of a sample with replacement (counting, \
         then collecting the records drawn); sample FILEs that do not change",
    )
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
