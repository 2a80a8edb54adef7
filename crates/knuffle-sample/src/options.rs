//! What a sample is asked for, decided once by the caller (the command
//! line's `knuffle sample`, or Python's `knuffle.sample_file`):
//! [`SampleOptions`] with its [`Mode`], checked by
//! [`SampleOptions::validate`] before any input is read.

use std::path::PathBuf;

use super::error::SampleError;
use super::fields::FieldName;
use super::probability::Probability;
use super::records::Framing;

/// The sampling mode, and its law (see `docs/sample.md`).
#[derive(Clone, Debug)]
pub enum Mode {
    /// `-n K`: every K-subset equally likely (`None`: every record, a
    /// uniform shuffle, in bounded memory).
    Uniform {
        /// K.
        count: Option<u64>,
    },
    /// `-p P`: each record independently with probability exactly P.
    Bernoulli(Probability),
    /// `-r [-w FIELD] [-n K]`: independent draws, uniform or by weight
    /// (`count: None`: endless).
    Replacement {
        /// The weight field, if any.
        field: Option<FieldName>,
        /// The number of draws.
        count: Option<u64>,
    },
    /// `-k FIELDS -p P`: each key in with probability exactly P, by a
    /// keyed hash of the seed and the key.
    Distinct {
        /// The key fields.
        fields: Vec<FieldName>,
        /// P.
        probability: Probability,
    },
    /// `--per-key N -k FIELDS`: a uniform sample of N records from every
    /// key group.
    Stratified {
        /// The key fields.
        fields: Vec<FieldName>,
        /// N.
        per_key: u64,
    },
    /// `-w FIELD [-n K]`: successive sampling by weight (`count: None`: a
    /// weighted shuffle of every record, in bounded memory).
    Weighted {
        /// The weight field.
        field: FieldName,
        /// K.
        count: Option<u64>,
    },
}

impl Mode {
    /// Whether the mode gives each record a random value to print.
    pub(crate) fn has_random_values(&self) -> bool {
        matches!(
            self,
            Mode::Bernoulli(_) | Mode::Distinct { .. } | Mode::Weighted { .. }
        )
    }
}

/// Which records are written with their random value before them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RandomValues {
    /// None (the default).
    #[default]
    Off,
    /// `--print-random`: each record of the sample.
    Sampled,
    /// `--gen-random-inorder`: every record, in input order, sampled or
    /// not.
    Every,
}

/// Everything a sample needs besides its inputs and output.
#[derive(Clone, Debug)]
pub struct SampleOptions {
    /// The mode.
    pub mode: Mode,
    /// How records end: lines, NUL-ended, or CSV.
    pub framing: Framing,
    /// The field delimiter ([`parse_delimiter`]).
    pub delimiter: u8,
    /// Each input's first record is its header: the first input's is
    /// written first, and fields can be named by it.
    pub header: bool,
    /// `--inorder`: the sample of `-n` (or `-w -n`) in input order.
    pub in_order: bool,
    /// Records with a bad weight are dropped ([`super::Note`]) rather
    /// than an error.
    pub skip_bad_weights: bool,
    /// `--print-random` / `--gen-random-inorder`.
    pub random_values: RandomValues,
    /// The limit in bytes on records held in memory.
    pub memory: u64,
    /// The seed text: the same text gives the same sample.
    pub seed: String,
    /// Where temporary files go (`None`: `$TMPDIR`, else `/tmp`): the
    /// sorted runs of a shuffle of every record larger than `memory`, and
    /// the copy of standard input that `-r -n K` reads twice.
    pub temp_dir: Option<PathBuf>,
}

impl SampleOptions {
    /// Options for `mode` with everything else as the command line's
    /// defaults: lines, TAB, no header, random order, the default memory
    /// limit, and `seed`.
    pub fn new(mode: Mode, seed: impl Into<String>) -> SampleOptions {
        SampleOptions {
            mode,
            framing: Framing::Lines(b'\n'),
            delimiter: b'\t',
            header: false,
            in_order: false,
            skip_bad_weights: false,
            random_values: RandomValues::Off,
            memory: knuffle_io::default_limit(),
            seed: seed.into(),
            temp_dir: None,
        }
    }

    /// Whether records are CSV.
    pub fn csv(&self) -> bool {
        self.framing == Framing::Csv
    }

    /// Checks what no input can change: a delimiter that is not the
    /// record terminator, random values only for modes that draw one per
    /// record, in-order output only for a sample of K, a memory limit of
    /// at least [`knuffle_io::MIN_LIMIT`].
    pub fn validate(&self) -> Result<(), SampleError> {
        check_delimiter(self.framing, self.delimiter)?;
        if self.random_values != RandomValues::Off && !self.mode.has_random_values() {
            return Err(SampleError::invalid(
                "random values need a mode that gives each record one: a probability, keys \
                 with a probability, or weights without replacement",
            ));
        }
        if self.in_order
            && !matches!(
                self.mode,
                Mode::Uniform { count: Some(_) } | Mode::Weighted { count: Some(_), .. }
            )
        {
            return Err(SampleError::invalid(
                "input order is for a sample of a number of records, uniform or weighted",
            ));
        }
        check_memory(self.memory)
    }
}

/// A memory limit of at least [`knuffle_io::MIN_LIMIT`].
pub(crate) fn check_memory(memory: u64) -> Result<(), SampleError> {
    if memory < knuffle_io::MIN_LIMIT {
        return Err(SampleError::invalid(format!(
            "memory limit of {memory} bytes: at least 1M is needed"
        )));
    }
    Ok(())
}

/// A field delimiter that is not the records' terminator.
pub(crate) fn check_delimiter(framing: Framing, delimiter: u8) -> Result<(), SampleError> {
    if delimiter == framing.terminator() {
        return Err(SampleError::invalid(
            "the delimiter cannot be the record terminator",
        ));
    }
    Ok(())
}

/// The field delimiter given as text: one byte, or `\t` for TAB; `None`
/// is TAB, or a comma for CSV. A double quote is refused (it quotes CSV
/// fields).
pub fn parse_delimiter(text: Option<&str>, csv: bool) -> Result<u8, SampleError> {
    match text {
        None if csv => Ok(b','),
        None => Ok(b'\t'),
        Some("\\t") => Ok(b'\t'),
        Some(text) if text.len() == 1 && text != "\"" => Ok(text.as_bytes()[0]),
        Some(text) => Err(SampleError::invalid(format!(
            "invalid delimiter: '{text}' (one byte, such as , or ;)"
        ))),
    }
}
