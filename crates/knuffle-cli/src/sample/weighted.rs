//! `-w FIELD [-n K]`: weighted sampling without replacement by the law of
//! successive sampling (each draw picks one of the records left with
//! probability proportional to its weight), by Efraimidis & Spirakis'
//! A-ExpJ (`knuffle::WeightedReservoir`, "Weighted random sampling with a
//! reservoir", IPL 97(5), 2006) in O(K) memory. The keys `u^(1/w)` come
//! from 53-bit uniforms with `ln`/`exp` in double precision, so the law is
//! exact to within about 1e-15 relative, for integer weights too (see the
//! library's documentation). Written in selection order (largest key
//! first: the first record written is the first drawn, as tsv-sample
//! writes it), or with `--inorder` in input order. Without `-n` every
//! record is held: a weighted shuffle.
//!
//! A weight is the field's text (ASCII blanks around it ignored) read as a
//! decimal floating-point number; it must be finite and positive. Any other
//! value is an error naming the record and field (status 1), or with
//! `--skip-bad-weights` the record is dropped and counted in a note.

use knuffle::{DefaultRng, WeightedReservoir};

use super::args::Plan;
use super::fields::{FieldName, Splitter};
use super::output::{Output, record_cost};
use super::records::RecordReader;
use crate::failure::CliError;

/// The weight field of each record.
pub struct WeightField {
    index: usize,
    /// How the field is named in messages: `field 3` or `field 3 ('w')`.
    label: String,
    splitter: Splitter,
    skip_bad: bool,
}

impl WeightField {
    /// The field `name` resolved against the header's fields.
    pub fn new(name: &FieldName, plan: &Plan, header: Option<&[u8]>) -> Result<Self, CliError> {
        let mut splitter = Splitter::new(plan.csv, plan.delimiter, plan.framing.terminator());
        let header_fields = header.map(|h| splitter.all_fields(h));
        if plan.header && header_fields.is_none() && matches!(name, FieldName::Name(_)) {
            // No input at all: nothing to sample, nothing to look up.
            return Ok(WeightField {
                index: 0,
                label: String::new(),
                splitter,
                skip_bad: plan.skip_bad_weights,
            });
        }
        let index = name.resolve("-w", header_fields.as_deref())?;
        let label = match header_fields.as_ref().and_then(|f| f.get(index)) {
            Some(title) => format!("field {} ('{}')", index + 1, String::from_utf8_lossy(title)),
            None => format!("field {}", index + 1),
        };
        Ok(WeightField {
            index,
            label,
            splitter,
            skip_bad: plan.skip_bad_weights,
        })
    }

    /// The weight of `record`: `Ok(None)` for a bad weight that is to be
    /// skipped.
    fn weight(&mut self, record: &[u8], reader: &RecordReader) -> Result<Option<f64>, CliError> {
        let fields = self.splitter.split(record);
        let Some(text) = self.splitter.field(record, self.index) else {
            return Err(CliError::plain(format!(
                "{} has {fields} field{}, so no {} (the weight)",
                reader.place(),
                if fields == 1 { "" } else { "s" },
                self.label
            )));
        };
        let parsed = std::str::from_utf8(text).ok().and_then(|t| {
            t.trim_matches(|c: char| c.is_ascii_whitespace())
                .parse::<f64>()
                .ok()
        });
        match parsed {
            Some(weight) if weight.is_finite() && weight > 0.0 => Ok(Some(weight)),
            _ if self.skip_bad => Ok(None),
            _ => Err(CliError::plain(format!(
                "{}: {} is '{}', not a weight (a positive finite number); \
                 --skip-bad-weights drops such records",
                reader.place(),
                self.label,
                String::from_utf8_lossy(text)
            ))),
        }
    }
}

/// Samples `count` records (`None`: all, a weighted shuffle) of `reader`
/// by the weights in `weights`.
pub fn run(
    reader: &mut RecordReader,
    mut weights: WeightField,
    count: Option<u64>,
    in_order: bool,
    rng: &mut DefaultRng,
    out: &mut Output,
) -> Result<(), CliError> {
    let k = count.map_or(usize::MAX, |k| usize::try_from(k).unwrap_or(usize::MAX));
    if k == 0 {
        return Ok(());
    }
    let mut reservoir: WeightedReservoir<Vec<u8>> = WeightedReservoir::new(k);
    let mut held = out.held();
    let mut record = Vec::new();
    let mut skipped = 0u64;
    while reader.next_record(&mut record)? {
        let Some(weight) = weights.weight(&record, reader)? else {
            skipped += 1;
            continue;
        };
        if reservoir.offer_with(weight, || record.clone(), rng) {
            held.add(record.len() as u64, || {
                reservoir.items().map(|r| record_cost(r)).sum()
            })?;
        }
    }
    if skipped > 0 {
        eprintln!(
            "knuffle sample: note: {skipped} record{} without a positive finite weight skipped \
             (--skip-bad-weights)",
            if skipped == 1 { "" } else { "s" }
        );
    }
    if in_order {
        for (_, _, record) in reservoir.into_arrival_order() {
            out.write(&record)?;
        }
    } else {
        for (_, record) in reservoir.into_selection_order() {
            out.write(&record)?;
        }
    }
    Ok(())
}
