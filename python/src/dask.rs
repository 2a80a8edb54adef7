//! Rust functions of `knuffle.dask` (issue 17): the global shuffle's labels
//! and the order of the rows inside one output partition.
//!
//! The algorithm is the external shuffle's (label every row with an iid
//! uniform bucket, move rows to their buckets, shuffle each bucket; Sandelius
//! 1962, Rao 1961; the 1/n! proof is in docs/dask.md), with two choices that
//! make the result depend on the seed and the rows only:
//!
//! * **Labels are random-access by global row number.** Row `i` gets label
//!   `word_i >> (32 - bits)`, where `word_i` is the `i`-th 32-bit word of the
//!   ChaCha20 stream of the derived seed text `"knuffle.dask/v1 labels\n" +
//!   seed` (that is, `Seed::from_text(..).rng()`'s `next_u32` outputs, read
//!   from word position `i` directly). The bucket count is a power of two,
//!   `2^bits` (2^32 by default), so a label is a field of uniform bits: no
//!   reduction, no rejection, exactly uniform and independent.
//! * **A bucket is shuffled by its own generator.** The rows with label `b`
//!   are put in global-row order, then shuffled by `knuffle::shuffle` with
//!   the generator of `"knuffle.dask/v1 bucket " + b + "\n" + seed`. A fixed
//!   prefix before the whole seed text keeps the derived texts distinct for
//!   distinct (purpose, bucket, seed), and SHA-256 (inside `Seed::from_text`)
//!   makes their keys independent.
//!
//! An output partition holds a contiguous range of labels, so the order of
//! all rows (buckets in label order, each shuffled) does not depend on the
//! number of output partitions either.

use knuffle::Seed;
use numpy::{PyArray1, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

/// The largest number of label bits (labels are 32-bit words or their top bits).
const MAX_BITS: u32 = 32;

/// The seed text of the label stream of `seed`.
fn labels_seed(seed: &str) -> Seed {
    Seed::from_text(&format!("knuffle.dask/v1 labels\n{seed}"))
}

/// The seed text of the generator that shuffles bucket `label` of `seed`.
fn bucket_seed(seed: &str, label: u64) -> Seed {
    Seed::from_text(&format!("knuffle.dask/v1 bucket {label}\n{seed}"))
}

fn check_bits(bits: u32) -> PyResult<()> {
    if (1..=MAX_BITS).contains(&bits) {
        Ok(())
    } else {
        Err(PyValueError::new_err(format!(
            "label bits must be in 1..={MAX_BITS}, not {bits}"
        )))
    }
}

/// Labels of rows `start..start + count`, each in `0..2^bits`.
fn labels(seed: &Seed, bits: u32, start: u64, count: usize) -> Vec<i64> {
    let mut rng = ChaCha20Rng::from_seed(*seed.key());
    // Word position = row number: the stream is read from row `start` on
    // without generating the words of the rows before it.
    rng.set_word_pos(u128::from(start));
    let shift = MAX_BITS - bits;
    (0..count)
        .map(|_| i64::from(rng.next_u32() >> shift))
        .collect()
}

/// The positions that put rows with these labels and global row numbers in
/// their final order: sorted by (label, row), then each run of equal labels
/// shuffled by its bucket's generator.
fn order(seed: &str, labels: &[i64], rows: &[i64]) -> Result<Vec<i64>, String> {
    let mut keyed: Vec<(i64, i64, i64)> = Vec::new();
    keyed
        .try_reserve_exact(labels.len())
        .map_err(|_| format!("cannot allocate the order of {} rows", labels.len()))?;
    keyed.extend(
        labels
            .iter()
            .zip(rows)
            .zip(0i64..)
            .map(|((&label, &row), position)| (label, row, position)),
    );
    // Row numbers are distinct, so an unstable sort gives the one order.
    keyed.sort_unstable();
    if let Some(pair) = keyed.windows(2).find(|w| w[0].1 == w[1].1) {
        return Err(format!(
            "global row {} appears twice in one partition (did the input change \
             between the pass that counted the rows and the shuffle?)",
            pair[0].1
        ));
    }
    let mut positions: Vec<i64> = keyed.iter().map(|&(_, _, position)| position).collect();
    let mut start = 0;
    while start < keyed.len() {
        let label = keyed[start].0;
        let end = start + keyed[start..].partition_point(|k| k.0 == label);
        // A bucket of one row has one order and needs no generator.
        if end - start > 1 {
            let label = u64::try_from(label).expect("labels were checked to be non-negative");
            knuffle::shuffle(
                &mut positions[start..end],
                &mut bucket_seed(seed, label).rng(),
            );
        }
        start = end;
    }
    Ok(positions)
}

/// `dask_labels(seed, start, count, bits=32)`: the bucket labels (int64 in
/// `0..2**bits`) of global rows `start .. start+count` for this seed text.
#[pyfunction]
#[pyo3(signature = (seed, start, count, bits=MAX_BITS))]
fn dask_labels<'py>(
    py: Python<'py>,
    seed: &str,
    start: u64,
    count: usize,
    bits: u32,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    check_bits(bits)?;
    if start.checked_add(count as u64).is_none() {
        return Err(PyValueError::new_err(
            "row numbers past 2**64 - 1 have no label",
        ));
    }
    if count > isize::MAX as usize / 8 {
        return Err(PyMemoryError::new_err(format!(
            "cannot allocate labels for {count} rows"
        )));
    }
    let seed = labels_seed(seed);
    let out = py.detach(|| labels(&seed, bits, start, count));
    Ok(PyArray1::from_vec(py, out))
}

/// `dask_order(seed, labels, rows)`: the positions (int64) that put one
/// output partition's rows in their final order (see [`order`]).
#[pyfunction]
fn dask_order<'py>(
    py: Python<'py>,
    seed: &str,
    labels: PyReadonlyArray1<'py, i64>,
    rows: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    if labels.len() != rows.len() {
        return Err(PyValueError::new_err(format!(
            "{} labels for {} rows",
            labels.len(),
            rows.len()
        )));
    }
    let labels = labels
        .as_slice()
        .map_err(|_| PyValueError::new_err("the labels are not a contiguous array"))?;
    let rows = rows
        .as_slice()
        .map_err(|_| PyValueError::new_err("the row numbers are not a contiguous array"))?;
    if let Some(bad) = labels
        .iter()
        .find(|&&l| !(0..1i64 << MAX_BITS).contains(&l))
    {
        return Err(PyValueError::new_err(format!(
            "label {bad} is outside 0..2**{MAX_BITS}"
        )));
    }
    if let Some(bad) = rows.iter().find(|&&r| r < 0) {
        return Err(PyValueError::new_err(format!("negative row number {bad}")));
    }
    let out = py
        .detach(|| order(seed, labels, rows))
        .map_err(PyValueError::new_err)?;
    Ok(PyArray1::from_vec(py, out))
}

/// Registers the Dask helpers on the `knuffle._knuffle` module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(dask_labels, m)?)?;
    m.add_function(wrap_pyfunction!(dask_order, m)?)?;
    m.add("DASK_LABEL_BITS", MAX_BITS)?;
    Ok(())
}
