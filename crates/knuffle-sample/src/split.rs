//! `knuffle split`: each record to exactly one of several outputs (train,
//! validation, test), in the shares of [`Parts`].
//!
//! - **Exact sizes** (the default): the part sizes are
//!   [`Parts::sizes`] of the number of records N (the shares' floors, the
//!   records left over to the largest remainders, ties to the earlier
//!   part: they always sum to N), and the assignment is uniformly random
//!   among all assignments with those sizes, as a shuffle then a cut
//!   would give. It is drawn sequentially once N is known: record i goes
//!   to part j with probability `remaining_j / remaining`, an exact
//!   integer draw `below(remaining)` compared against the cumulative
//!   remaining counts (drawing the labels from an urn without
//!   replacement: every sequence of labels with the counts is equally
//!   likely, the multivariate form of Knuth's selection sampling,
//!   TAOCP vol. 2, 3.4.2, Algorithm S). N needs a first pass: files are
//!   read twice; standard input is first copied to a temporary file. Memory
//!   is O(parts) and one record; the records of each part are written in
//!   input order.
//! - **By key** (`-k FIELDS`): all records with the same key go to one
//!   part, chosen by a keyed hash of the seed and the key
//!   ([`super::key::key_rng`]): `below(S)` on that generator compared
//!   exactly against the cumulative shares ([`Parts::part_of`]), so each
//!   key goes to part j with probability exactly `s_j / S` (SHA-256 taken as
//!   a random function), the same in every run, file and machine for the
//!   same seed. Part sizes then follow the shares only approximately (by
//!   keys, not records). One pass, one record in memory.
//!
//! With a header, the first input's header is written at the top of every
//! part. Every output is opened (by knuffle's one rule for files) before
//! any input is read, so a missing directory is reported first and
//! nothing is created; each is replaced only once complete.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use knuffle::Seed;
use knuffle_io::OutputFile;

use super::error::SampleError;
use super::fields::FieldName;
use super::key::{KeyFields, key_rng};
use super::output::{Destination, Output};
use super::parts::{ExactDraw, Parts};
use super::records::{Framing, RecordReader, Spool};

/// Domain separation of the key hash (distinct from `sample -k`'s).
const DOMAIN: &[u8] = b"knuffle split -k/1\0";

/// The generator of a key under `split -k`: its first `below(S)` is the
/// key's part, here and in the tables' group split.
pub fn split_key_rng(seed: &[u8; 32], key: &[u8]) -> knuffle::DefaultRng {
    key_rng(DOMAIN, seed, key)
}

/// What a split is asked for.
#[derive(Clone, Debug)]
pub struct SplitOptions {
    /// The shares of the parts, one per output.
    pub parts: Parts,
    /// `-k FIELDS`: a group split by key (`None`: exact sizes).
    pub key: Option<Vec<FieldName>>,
    /// How records end: lines, NUL-ended, or CSV.
    pub framing: Framing,
    /// The field delimiter (for key fields).
    pub delimiter: u8,
    /// Each input's first record is its header, copied to every part.
    pub header: bool,
    /// The limit in bytes on one record.
    pub memory: u64,
    /// The seed text.
    pub seed: String,
    /// Where standard input is copied for the first pass (`None`: the
    /// system's temporary directory).
    pub temp_dir: Option<PathBuf>,
}

impl SplitOptions {
    /// Options for `parts` with everything else as the command line's
    /// defaults: exact sizes, lines, TAB, no header, the default memory
    /// limit, and `seed`.
    pub fn new(parts: Parts, seed: impl Into<String>) -> SplitOptions {
        SplitOptions {
            parts,
            key: None,
            framing: Framing::Lines(b'\n'),
            delimiter: b'\t',
            header: false,
            memory: knuffle_io::default_limit(),
            seed: seed.into(),
            temp_dir: None,
        }
    }

    /// Checks the options against `outputs`: one output per part, no
    /// output twice, a delimiter that is not the terminator.
    pub fn validate(&self, outputs: &[&Path]) -> Result<(), SampleError> {
        if outputs.len() != self.parts.len() {
            return Err(SampleError::invalid(format!(
                "{} part{} but {} output{}: give one output per part, in the order of the parts",
                self.parts.len(),
                if self.parts.len() == 1 { "" } else { "s" },
                outputs.len(),
                if outputs.len() == 1 { "" } else { "s" },
            )));
        }
        let places: Vec<OutputFile> = outputs
            .iter()
            .map(|output| OutputFile::of(output))
            .collect();
        for (i, output) in outputs.iter().enumerate() {
            if places[..i].contains(&places[i]) {
                return Err(SampleError::invalid(format!(
                    "the output '{}' is given twice",
                    output.display()
                )));
            }
        }
        crate::options::check_delimiter(self.framing, self.delimiter)?;
        crate::options::check_memory(self.memory)
    }
}

/// Splits the records of `inputs` (paths read in turn; `-` or none is
/// standard input) into `outputs`, one per part, as `options` asks.
pub fn split(
    inputs: &[OsString],
    options: &SplitOptions,
    outputs: &[&Path],
) -> Result<(), SampleError> {
    options.validate(outputs)?;
    let mut outs = outputs
        .iter()
        .map(|path| Output::open(Destination::File(path), options.memory))
        .collect::<Result<Vec<_>, _>>()?;
    match &options.key {
        Some(fields) => by_key(inputs, options, fields, &mut outs)?,
        None => exact(inputs, options, &mut outs)?,
    }
    for out in outs {
        out.finish()?;
    }
    Ok(())
}

/// Writes the first input's header, if any, to every part.
fn write_header(reader: &RecordReader, outs: &mut [Output<'_>]) -> Result<(), SampleError> {
    if let Some(header) = reader.header() {
        for out in outs.iter_mut() {
            out.write(header)?;
        }
    }
    Ok(())
}

/// Exact sizes, a uniformly random assignment: two passes.
fn exact(
    inputs: &[OsString],
    options: &SplitOptions,
    outs: &mut [Output<'_>],
) -> Result<(), SampleError> {
    // Standard input, pipes and devices are read from copies (a FIFO
    // opened a second time would wait for a writer forever).
    let kinds = crate::input_kind::kinds_of(inputs);
    let copies = crate::plan::copies(crate::plan::Reads::Twice, &kinds);
    let spool = Spool::of(&kinds, &copies, options.temp_dir.as_deref())?;
    let open = || {
        RecordReader::open_with_spool(
            inputs,
            options.framing,
            options.header,
            options.memory,
            &spool,
        )
    };
    let mut scratch = Vec::new();
    let n = open()?.skip_records(u64::MAX, &mut scratch)?;
    let mut draw = ExactDraw::new(options.parts.sizes(n));
    let mut reader = open()?;
    write_header(&reader, outs)?;
    let mut rng = Seed::from_text(&options.seed).rng();
    let mut record = Vec::new();
    while reader.next_record(&mut record)? {
        let part = draw.next(&mut rng).ok_or_else(changed)?;
        outs[part].write(&record)?;
    }
    if !draw.is_done() {
        return Err(changed());
    }
    Ok(())
}

/// The error for inputs that did not read the same twice.
fn changed() -> SampleError {
    SampleError::data(
        "the input changed between the two readings of an exact split (counting, then \
         assigning); split a file that does not change",
    )
}

/// A group split: each key's part from its keyed draw; one pass.
fn by_key(
    inputs: &[OsString],
    options: &SplitOptions,
    fields: &[FieldName],
    outs: &mut [Output<'_>],
) -> Result<(), SampleError> {
    let mut reader = RecordReader::open(inputs, options.framing, options.header, options.memory)?;
    let mut keys = KeyFields::new(
        fields,
        options.framing,
        options.delimiter,
        options.header,
        reader.header(),
    )?;
    write_header(&reader, outs)?;
    let seed = *Seed::from_text(&options.seed).key();
    let total = options.parts.total();
    let mut record = Vec::new();
    let mut key = Vec::new();
    while reader.next_record(&mut record)? {
        keys.key_of(&record, &reader, &mut key)?;
        let u = knuffle::below(total, &mut split_key_rng(&seed, &key));
        outs[options.parts.part_of(u)].write(&record)?;
    }
    Ok(())
}
