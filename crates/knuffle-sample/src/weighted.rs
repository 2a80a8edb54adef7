//! `-w FIELD [-n K]`: weighted sampling without replacement by the law of
//! successive sampling (each draw picks one of the records left with
//! probability proportional to its weight), by Efraimidis & Spirakis'
//! A-ExpJ (`knuffle::WeightedReservoir`, "Weighted random sampling with a
//! reservoir", IPL 97(5), 2006) in O(K) memory. The keys `u^(1/w)` come
//! from 53-bit uniforms with `ln`/`exp` in double precision, so the law is
//! exact up to double-precision rounding, for integer weights too (see the
//! library's documentation for the size of that rounding). Written in selection order (largest key
//! first: the first record written is the first drawn, as tsv-sample
//! writes it), or with `--inorder` in input order. With `--print-random`
//! each record is prefixed by its key `u^(1/w)` ([`describe_key`]); with
//! `--gen-random-inorder` every record is, in input order, streaming.
//! The sample of K reads each record where it lies in the read buffer
//! (`RecordReader::visit_records`: no copy unless the reservoir keeps it)
//! and a plain integer weight in one short scan of its field
//! (`WeightField::quick_integer`), so that A-ExpJ, which must read every
//! record's weight to count its jumps down, costs little more than
//! Algorithm L's skipping.
//!
//! Without `-n`, every record: a weighted shuffle, the same law with every
//! record drawn (A-Res with K = N: each record's key `ln(u)/w` drawn in input
//! order, records written by decreasing key, ties in input order, as
//! `knuffle::WeightedReservoir` ranks them). The keys are sorted exactly
//! (as 64-bit words in the order of `f64::total_cmp`) by
//! [`ordered::KeyedSort`]: in memory, or sorted runs in temporary files and
//! a merge when the records exceed `--memory`, with the same output either
//! way.
//!
//! A weight is the field's text (ASCII blanks around it ignored) read as a
//! decimal floating-point number; it must be finite and positive. Any other
//! value is an error naming the record and field (status 1), or with
//! `skip_bad_weights` (`--skip-bad-weights`) the record is dropped and
//! counted in a [`Note`].

use std::path::Path;

use knuffle::{DefaultRng, WeightedReservoir, weighted_log_key};

use super::error::{Note, SampleError};
use super::fields::{FieldName, Splitter};
use super::options::SampleOptions;
use super::ordered::{self, KeyedSort};
use super::output::{Held, Output, PrintRandom};
use super::records::RecordReader;

/// The weight field of each record.
pub struct WeightField {
    index: usize,
    /// Delimited lines whose delimiter is not `\r` (not CSV): the common
    /// integer weight is read by [`WeightField::quick_integer`].
    plain: bool,
    delimiter: u8,
    terminator: u8,
    /// How the field is named in messages: `field 3` or `field 3 ('w')`.
    label: String,
    splitter: Splitter,
    skip_bad: bool,
}

impl WeightField {
    /// The field `name` resolved against the header's fields.
    pub fn new(
        name: &FieldName,
        options: &SampleOptions,
        header: Option<&[u8]>,
    ) -> Result<Self, SampleError> {
        let mut splitter = Splitter::new(
            options.csv(),
            options.delimiter,
            options.framing.terminator(),
        );
        let header_fields = header.map(|h| splitter.all_fields(h));
        if options.header && header_fields.is_none() && matches!(name, FieldName::Name(_)) {
            // No input at all: nothing to sample, nothing to look up.
            return Ok(WeightField {
                index: 0,
                plain: false,
                delimiter: options.delimiter,
                terminator: options.framing.terminator(),
                label: String::new(),
                splitter,
                skip_bad: options.skip_bad_weights,
            });
        }
        let index = name.resolve("-w", header_fields.as_deref())?;
        let label = match header_fields.as_ref().and_then(|f| f.get(index)) {
            Some(title) => format!("field {} ('{}')", index + 1, String::from_utf8_lossy(title)),
            None => format!("field {}", index + 1),
        };
        Ok(WeightField {
            index,
            plain: !options.csv() && options.delimiter != b'\r',
            delimiter: options.delimiter,
            terminator: options.framing.terminator(),
            label,
            splitter,
            skip_bad: options.skip_bad_weights,
        })
    }

    /// The weight of `record`: `Ok(None)` for a bad weight that is to be
    /// skipped.
    pub fn weight(
        &mut self,
        record: &[u8],
        reader: &RecordReader,
    ) -> Result<Option<Weight>, SampleError> {
        self.weight_at(record, &|| reader.place())
    }

    /// [`WeightField::weight`] of a record whose place (for messages) is
    /// `place()`.
    #[inline(never)]
    pub fn weight_at(
        &mut self,
        record: &[u8],
        place: &dyn Fn() -> String,
    ) -> Result<Option<Weight>, SampleError> {
        if let Some(integer) = self.quick_integer(record) {
            return Ok(Some(Weight::Integer(integer)));
        }
        let Some(text) = self.splitter.field_at(record, self.index) else {
            let fields = self.splitter.split(record);
            return Err(SampleError::data(format!(
                "{} has {fields} field{}, so no {} (the weight)",
                place(),
                if fields == 1 { "" } else { "s" },
                self.label
            )));
        };
        match Weight::parse(text) {
            Some(weight) => Ok(Some(weight)),
            None if self.skip_bad => Ok(None),
            None => Err(SampleError::data(format!(
                "{}: {} is '{}', not a weight (a positive finite number); \
                 --skip-bad-weights drops such records",
                place(),
                self.label,
                String::from_utf8_lossy(text)
            ))),
        }
    }
}

impl WeightField {
    /// The common case in one short scan, without splitting: a weight
    /// field of 1 to 19 ASCII digits, not all zero, ended by the delimiter
    /// or by the record's terminator, read as [`Weight::parse`] reads it.
    /// `None` for anything else (blanks, a sign, a fraction, a missing
    /// field, a `\r` before the terminator), which the general path then
    /// reads or reports.
    #[inline(always)]
    fn quick_integer(&self, record: &[u8]) -> Option<u64> {
        if !self.plain {
            return None;
        }
        let mut at = 0;
        for _ in 0..self.index {
            at += memchr::memchr(self.delimiter, &record[at..])? + 1;
        }
        let mut value = 0u64;
        for (digits, &byte) in record[at..].iter().enumerate() {
            if byte.is_ascii_digit() && digits < 19 {
                value = value * 10 + u64::from(byte - b'0');
                continue;
            }
            let ended = byte == self.delimiter
                || (byte == self.terminator && at + digits + 1 == record.len());
            return (ended && digits > 0 && value > 0).then_some(value);
        }
        None
    }
}

/// A record's weight: a positive integer (digits only, below 2^64: drawn
/// exactly where the mode allows) or a positive finite float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Weight {
    /// Digits only.
    Integer(u64),
    /// Any other decimal floating-point text.
    Float(f64),
}

impl Weight {
    /// The weight written in `text` (ASCII blanks around it ignored), if
    /// it is positive and finite.
    pub fn parse(text: &[u8]) -> Option<Weight> {
        // The common case first: up to 19 digits always fit in a u64.
        let trimmed = text.trim_ascii();
        if (1..=19).contains(&trimmed.len()) && trimmed.iter().all(u8::is_ascii_digit) {
            let integer = trimmed
                .iter()
                .fold(0u64, |value, &digit| value * 10 + u64::from(digit - b'0'));
            return (integer > 0).then_some(Weight::Integer(integer));
        }
        let text = std::str::from_utf8(text)
            .ok()?
            .trim_matches(|c: char| c.is_ascii_whitespace());
        let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        if let Some(integer) = digits.then(|| text.parse::<u64>().ok()).flatten() {
            return (integer > 0).then_some(Weight::Integer(integer));
        }
        let float = text.parse::<f64>().ok()?;
        (float.is_finite() && float > 0.0).then_some(Weight::Float(float))
    }

    /// The weight as a float (an integer above 2^53 rounded).
    pub fn as_f64(self) -> f64 {
        match self {
            Weight::Integer(integer) => integer as f64,
            Weight::Float(float) => float,
        }
    }
}

/// Tells `notes` of the records skipped for their weight, if any.
pub fn note_skipped(skipped: u64, notes: &mut dyn FnMut(Note)) {
    if skipped > 0 {
        notes(Note::SkippedBadWeights(skipped));
    }
}

/// Samples `count` records (`None`: all, a weighted shuffle in bounded
/// memory with temporary files in `temp_dir`) of `reader` by the weights
/// in `weights`.
#[allow(clippy::too_many_arguments)] // each is one decision of the caller's
pub fn run(
    reader: &mut RecordReader,
    mut weights: WeightField,
    count: Option<u64>,
    in_order: bool,
    print_random: Option<PrintRandom>,
    temp_dir: Option<&Path>,
    rng: &mut DefaultRng,
    out: &mut Output<'_>,
    notes: &mut dyn FnMut(Note),
) -> Result<(), SampleError> {
    if let Some(print) = print_random.filter(|p| p.every_record) {
        return every_record(reader, weights, print.delimiter, rng, out, notes);
    }
    let Some(count) = count else {
        return shuffle_all(reader, weights, print_random, temp_dir, rng, out, notes);
    };
    let k = usize::try_from(count).unwrap_or(usize::MAX);
    if k == 0 {
        return Ok(());
    }
    let mut reservoir: WeightedReservoir<Held> = WeightedReservoir::new(k);
    let meter = out.meter();
    let mut index = 0u64;
    let mut skipped = 0u64;
    // Records are looked at where they lie in the read buffer; one is
    // copied only when the reservoir keeps it.
    reader.visit_records(
        #[inline(always)]
        |record, place| {
            let weight = match weights.quick_integer(record) {
                Some(integer) => Weight::Integer(integer),
                None => match weights.weight_at(record, &|| place.describe())? {
                    Some(weight) => weight,
                    None => {
                        skipped += 1;
                        return Ok(true);
                    }
                },
            };
            if reservoir.offer_with(weight.as_f64(), || meter.hold(index, record.to_vec()), rng) {
                meter.check()?;
            }
            index += 1;
            Ok(true)
        },
    )?;
    note_skipped(skipped, notes);
    let kept: Vec<(f64, Held)> = if in_order {
        reservoir
            .into_arrival_order()
            .into_iter()
            .map(|(_, log_key, held)| (log_key, held))
            .collect()
    } else {
        reservoir.into_selection_order()
    };
    for (log_key, held) in &kept {
        match print_random {
            None => out.write(held.record())?,
            Some(print) => {
                out.write_valued(&describe_key(*log_key), print.delimiter, held.record())?
            }
        }
    }
    Ok(())
}

/// Every record of `reader` by decreasing key `ln(u)/w` (ties in input
/// order): what `WeightedReservoir::new(usize::MAX)` gives, in bounded
/// memory.
fn shuffle_all(
    reader: &mut RecordReader,
    mut weights: WeightField,
    print_random: Option<PrintRandom>,
    temp_dir: Option<&Path>,
    rng: &mut DefaultRng,
    out: &mut Output<'_>,
    notes: &mut dyn FnMut(Note),
) -> Result<(), SampleError> {
    let mut sort = KeyedSort::new(out.budget(), temp_dir, ordered::Ties::InputOrder);
    let mut record = Vec::new();
    let mut skipped = 0u64;
    while reader.next_record(&mut record)? {
        let Some(weight) = weights.weight(&record, reader)? else {
            skipped += 1;
            continue;
        };
        let log_key = weighted_log_key(weight.as_f64(), rng);
        sort.push(descending_key(log_key), &record)?;
    }
    note_skipped(skipped, notes);
    sort.finish(out, &|key| {
        print_random.map(|print| (describe_key(log_key_of(key)), print.delimiter))
    })
}

/// A word whose increasing order is the decreasing order of `log_key` by
/// `f64::total_cmp` (the order `WeightedReservoir` ranks keys by): the
/// bits of a negative float all flipped, of a positive one the sign bit
/// set (the order-preserving map of IEEE 754 to unsigned integers), then
/// the whole word flipped.
pub fn descending_key(log_key: f64) -> u64 {
    let bits = log_key.to_bits();
    let ascending = if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    };
    !ascending
}

/// The log key that [`descending_key`] made `key` from.
pub fn log_key_of(key: u64) -> f64 {
    let ascending = !key;
    let bits = if ascending >> 63 == 1 {
        ascending & !(1 << 63)
    } else {
        !ascending
    };
    f64::from_bits(bits)
}

/// `--gen-random-inorder`: every record in input order, prefixed by its
/// key (`knuffle::weighted_log_key`, the key `WeightedReservoir` gives it
/// for the same seed), one record in memory at a time.
fn every_record(
    reader: &mut RecordReader,
    mut weights: WeightField,
    delimiter: u8,
    rng: &mut DefaultRng,
    out: &mut Output<'_>,
    notes: &mut dyn FnMut(Note),
) -> Result<(), SampleError> {
    let mut record = Vec::new();
    let mut skipped = 0u64;
    while reader.next_record(&mut record)? {
        let Some(weight) = weights.weight(&record, reader)? else {
            skipped += 1;
            continue;
        };
        let log_key = weighted_log_key(weight.as_f64(), rng);
        out.write_valued(&describe_key(log_key), delimiter, &record)?;
    }
    note_skipped(skipped, notes);
    Ok(())
}

/// A key `u^(1/w)` from its logarithm, as `--print-random` writes it: the
/// shortest decimal that reads back as the same double, or below 1e-300
/// (where the double would lose digits or underflow to 0) a mantissa of 7
/// significant digits and an exponent, computed from the logarithm.
pub fn describe_key(log_key: f64) -> String {
    let key = log_key.exp();
    if key >= 1e-300 {
        return format!("{key}");
    }
    let log10 = log_key / std::f64::consts::LN_10;
    let exponent = log10.floor();
    let mantissa = 10f64.powf(log10 - exponent);
    format!("{mantissa:.6}e{exponent}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Mode;
    use crate::records::Framing;

    #[test]
    fn descending_keys_order_as_total_cmp_reversed_and_decode() {
        let keys = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -1.0,
            -1e-310,
            -0.0,
            0.0,
            1e-310,
            3.0,
            f64::INFINITY,
        ];
        for a in keys {
            assert_eq!(log_key_of(descending_key(a)).to_bits(), a.to_bits());
            for b in keys {
                assert_eq!(
                    descending_key(a).cmp(&descending_key(b)),
                    b.total_cmp(&a),
                    "{a} {b}"
                );
            }
        }
    }

    #[test]
    fn keys_are_decimals_or_mantissa_and_exponent() {
        assert_eq!(describe_key(0.5f64.ln()), "0.5");
        assert_eq!(
            describe_key(-1000.0 * std::f64::consts::LN_10),
            "1.000000e-1000"
        );
        assert_eq!(describe_key(0.0), "1");
    }

    #[test]
    fn the_quick_integer_is_the_general_paths_weight() {
        // Records of random fields from a small alphabet (digits, blanks,
        // signs, dots, CR, the delimiter): wherever the quick path reads
        // a weight, the general path reads the same.
        let mut next = crate::test_draws(0x0005_eed0_fa11_u64);
        let mut quick = 0;
        for case in 0..20_000 {
            let (csv, delimiter, terminator) =
                [(false, b'\t', b'\n'), (false, b',', 0), (true, b',', b'\n')][next(3) as usize];
            let mut options = SampleOptions::new(Mode::Uniform { count: None }, "q");
            options.delimiter = delimiter;
            options.framing = if csv {
                Framing::Csv
            } else {
                Framing::Lines(terminator)
            };
            let field = FieldName::Number(1 + next(3) as usize);
            let mut weights = WeightField::new(&field, &options, None).unwrap();
            let alphabet = [
                b'0', b'1', b'7', b'9', b' ', b'-', b'.', b'\r', b'"', delimiter,
            ];
            let mut record: Vec<u8> = (0..next(30))
                .map(|_| {
                    if next(3) == 0 {
                        alphabet[next(alphabet.len() as u64) as usize]
                    } else {
                        b'0' + next(10) as u8
                    }
                })
                .collect();
            record.push(terminator);
            let general = weights
                .splitter
                .field_at(&record, weights.index)
                .and_then(Weight::parse);
            if let Some(integer) = weights.quick_integer(&record) {
                quick += 1;
                assert_eq!(
                    general,
                    Some(Weight::Integer(integer)),
                    "case {case}: {record:?}"
                );
            }
        }
        assert!(quick > 1000, "the quick path was taken {quick} times");
    }

    #[test]
    fn weights_are_positive_integers_or_finite_floats() {
        assert_eq!(Weight::parse(b" 42 "), Some(Weight::Integer(42)));
        assert_eq!(Weight::parse(b"007"), Some(Weight::Integer(7)));
        assert_eq!(
            Weight::parse(b"9999999999999999999"),
            Some(Weight::Integer(9_999_999_999_999_999_999))
        );
        assert_eq!(
            Weight::parse(b"\t18446744073709551615\r"),
            Some(Weight::Integer(u64::MAX))
        );
        assert_eq!(
            Weight::parse(b"0000000000000000000042"),
            Some(Weight::Integer(42))
        );
        assert_eq!(Weight::parse(b"0.5"), Some(Weight::Float(0.5)));
        assert_eq!(Weight::parse(b"1e3"), Some(Weight::Float(1000.0)));
        assert_eq!(
            Weight::parse(b"99999999999999999999"),
            Some(Weight::Float(1e20))
        );
        for bad in [
            &b"0"[..],
            b"-1",
            b"nan",
            b"inf",
            b"-inf",
            b"",
            b"x",
            b"0.0",
            b"\xff",
            b"0000000000000000000",
            b"1 2",
        ] {
            assert_eq!(Weight::parse(bad), None, "{bad:?}");
        }
    }
}
