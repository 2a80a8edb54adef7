//! The modes of a table sample that hold their sample until the input
//! ends (the rows in `sample_held`, within the memory limit), each making
//! the draws of its line mode (`knuffle_sample`) in the same
//! order, so the same rows are chosen for a table and for its CSV:
//!
//! - `-n K`: Li's reservoir Algorithm L (`knuffle::Reservoir`; K.-H. Li,
//!   ACM TOMS 20(4), 1994), every K-set equally likely, written in
//!   uniformly random order (its Durstenfeld shuffle) or in input order.
//! - `-w COL -n K`: successive sampling by weight, Efraimidis & Spirakis'
//!   A-ExpJ (`knuffle::WeightedReservoir`, IPL 97(5), 2006), written in
//!   the order drawn or in input order.
//! - `-w COL`: a weighted shuffle of every row (A-Res with K = N): each
//!   row's key `ln(u)/w` (`knuffle::weighted_log_key`) drawn in input
//!   order, rows written by decreasing key, ties in input order. Rows are
//!   held while half the memory limit holds them; beyond, they are sorted
//!   in runs on disk and merged (`sample_weight_runs`), in the same order.
//! - `--per-key N -k COLS`: a reservoir (Algorithm L) per key group, groups
//!   independent, the sample in input order.

use std::collections::HashMap;
use std::path::Path;

use knuffle::{DefaultRng, Reservoir, WeightedReservoir, weighted_log_key};
use knuffle_sample::descending_key;
use knuffle_sample::{FieldName, Mode};

use crate::error::Error;
use crate::output::Emitter;
use crate::sample_columns::KeyColumns;
use crate::sample_held::HeldRows;
use crate::sample_rows::{Rows, SampleReport, TableSample};
use crate::sample_weight::WeightColumn;
use crate::sample_weight_runs::Runs;

/// What a group of `--per-key` costs besides its key and rows: its
/// reservoir and its map entry.
const GROUP_OVERHEAD: u64 = 64 * 8 + 128;

/// The rows a mode chose, in the order they are written (`emitted`: rows
/// the mode wrote itself).
struct Chosen {
    rows_in: u64,
    order: Vec<u64>,
    emitted: u64,
    skipped: u64,
}

/// Samples `rows` by `mode` (one of the modes above) into `emitter`.
pub(crate) fn run(
    rows: Rows,
    mode: &Mode,
    sample: &TableSample,
    rng: &mut DefaultRng,
    temp_dir: &Path,
    emitter: &mut Emitter,
) -> Result<SampleReport, Error> {
    let mut held = HeldRows::new(rows.schema().clone(), rows.memory());
    let size = |k: u64| usize::try_from(k).unwrap_or(usize::MAX);
    let chosen = match mode {
        // As for lines, a sample of 0 reads nothing.
        Mode::Uniform { count: Some(0) }
        | Mode::Weighted { count: Some(0), .. }
        | Mode::Stratified { per_key: 0, .. } => Chosen {
            rows_in: 0,
            order: Vec::new(),
            emitted: 0,
            skipped: 0,
        },
        Mode::Uniform { count: Some(k) } => {
            uniform(rows, size(*k), sample.in_order, &mut held, rng)?
        }
        Mode::Weighted { field, count } => {
            let weights = WeightColumn::new(field, rows.schema(), sample.skip_bad_weights)?;
            match count {
                Some(k) => weighted(rows, weights, size(*k), sample.in_order, &mut held, rng)?,
                None => weighted_shuffle(rows, weights, &mut held, rng, temp_dir, emitter)?,
            }
        }
        Mode::Stratified { fields, per_key } => {
            stratified(rows, fields, size(*per_key), &mut held, rng)?
        }
        _ => unreachable!("the streaming modes and shuffles are sampled elsewhere"),
    };
    held.emit(&chosen.order, emitter)?;
    Ok(SampleReport {
        rows_in: chosen.rows_in,
        rows_out: chosen.order.len() as u64 + chosen.emitted,
        skipped: chosen.skipped,
    })
}

/// `-n K`.
fn uniform(
    rows: Rows,
    k: usize,
    in_order: bool,
    held: &mut HeldRows,
    rng: &mut DefaultRng,
) -> Result<Chosen, Error> {
    let mut reservoir: Reservoir<u64> = Reservoir::new(k);
    let rows_in = rows.each(|batch, first, _| {
        let n = batch.num_rows() as u64;
        let mut accepted = Vec::new();
        let mut at = 0u64;
        while at < n {
            // Rows Algorithm L certainly rejects are passed over.
            let step = reservoir.items_to_skip().min(n - at);
            reservoir.skip(step);
            at += step;
            if at < n {
                if reservoir.offer(first + at, rng) {
                    accepted.push(at as u32);
                }
                at += 1;
            }
        }
        held.hold(batch, first, &accepted)?;
        held.compact(|| reservoir.items().to_vec())
    })?;
    let order = if in_order {
        let mut order = reservoir.into_vec();
        order.sort_unstable();
        order
    } else {
        reservoir.into_shuffled(rng)
    };
    Ok(Chosen {
        rows_in,
        order,
        emitted: 0,
        skipped: 0,
    })
}

/// `-w COL -n K`.
fn weighted(
    rows: Rows,
    weights: WeightColumn,
    k: usize,
    in_order: bool,
    held: &mut HeldRows,
    rng: &mut DefaultRng,
) -> Result<Chosen, Error> {
    let mut reservoir: WeightedReservoir<u64> = WeightedReservoir::new(k);
    let mut skipped = 0;
    let rows_in = rows.each(|batch, first, place| {
        let mut accepted = Vec::new();
        for (i, weight) in weights.weights(batch, place)?.into_iter().enumerate() {
            let Some(weight) = weight else {
                skipped += 1;
                continue;
            };
            if reservoir.offer(first + i as u64, weight, rng) {
                accepted.push(i as u32);
            }
        }
        held.hold(batch, first, &accepted)?;
        held.compact(|| reservoir.items().copied().collect())
    })?;
    let order = if in_order {
        let arrived = reservoir.into_arrival_order();
        arrived.into_iter().map(|(_, _, row)| row).collect()
    } else {
        let drawn = reservoir.into_selection_order();
        drawn.into_iter().map(|(_, row)| row).collect()
    };
    Ok(Chosen {
        rows_in,
        order,
        emitted: 0,
        skipped,
    })
}

/// `-w COL` without `-n`: rows held while they take half the limit, else
/// sorted runs on disk merged into `emitter`.
fn weighted_shuffle(
    rows: Rows,
    weights: WeightColumn,
    held: &mut HeldRows,
    rng: &mut DefaultRng,
    temp_dir: &Path,
    emitter: &mut Emitter,
) -> Result<Chosen, Error> {
    let schema = rows.schema().clone();
    let limit = rows.memory();
    let mut runs = Runs::new(schema.clone(), temp_dir, limit);
    let mut keyed: Vec<(u64, u64)> = Vec::new();
    let mut skipped = 0;
    let rows_in = rows.each(|batch, first, place| {
        let mut kept = Vec::with_capacity(batch.num_rows());
        for (i, weight) in weights.weights(batch, place)?.into_iter().enumerate() {
            let Some(weight) = weight else {
                skipped += 1;
                continue;
            };
            keyed.push((
                descending_key(weighted_log_key(weight, rng)),
                first + i as u64,
            ));
            kept.push(i as u32);
        }
        held.hold(batch, first, &kept)?;
        if held.bytes() + 16 * keyed.len() as u64 > limit / 2 {
            // By decreasing key; equal keys in input order.
            keyed.sort_unstable();
            runs.add(held, &keyed)?;
            *held = HeldRows::new(schema.clone(), limit);
            keyed.clear();
        }
        Ok(())
    })?;
    keyed.sort_unstable();
    if runs.is_empty() {
        return Ok(Chosen {
            rows_in,
            order: keyed.into_iter().map(|(_, row)| row).collect(),
            emitted: 0,
            skipped,
        });
    }
    runs.add(held, &keyed)?;
    *held = HeldRows::new(schema, limit);
    let emitted = rows_in - skipped;
    runs.merge_into(emitter)?;
    Ok(Chosen {
        rows_in,
        order: Vec::new(),
        emitted,
        skipped,
    })
}

/// `--per-key N -k COLS`.
fn stratified(
    rows: Rows,
    fields: &[FieldName],
    k: usize,
    held: &mut HeldRows,
    rng: &mut DefaultRng,
) -> Result<Chosen, Error> {
    let keys = KeyColumns::new(fields, rows.schema())?;
    let mut groups: HashMap<Vec<u8>, Reservoir<u64>> = HashMap::new();
    let rows_in = rows.each(|batch, first, _| {
        let mut accepted = Vec::new();
        let mut new_bytes = 0u64;
        keys.each_key(batch, |i, key| {
            if !groups.contains_key(key) {
                new_bytes += key.len() as u64 + GROUP_OVERHEAD;
                groups.insert(key.to_vec(), Reservoir::new(k));
            }
            let reservoir = groups.get_mut(key).expect("inserted above");
            if reservoir.items_to_skip() > 0 {
                // Algorithm L passes over this row without a draw.
                reservoir.skip(1);
            } else if reservoir.offer(first + i as u64, rng) {
                accepted.push(i as u32);
            }
            Ok(())
        })?;
        held.add_other(new_bytes)?;
        held.hold(batch, first, &accepted)?;
        held.compact(|| {
            groups
                .values()
                .flat_map(|r| r.items().iter().copied())
                .collect()
        })
    })?;
    let mut order: Vec<u64> = groups.into_values().flat_map(Reservoir::into_vec).collect();
    order.sort_unstable();
    Ok(Chosen {
        rows_in,
        order,
        emitted: 0,
        skipped: 0,
    })
}
