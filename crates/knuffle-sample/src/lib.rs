//! Sampling the records of files and streams: every mode of `knuffle
//! sample` (the sampling modes of tsv-sample, qsv sample and pandas
//! `sample`, each with its law stated) and of `knuffle split`, as a
//! library, so that the command line, the tables' sampling and Python
//! write byte for byte the same sample for the same seed.
//!
//! ```
//! use knuffle_sample::{Destination, Mode, SampleOptions, sample};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("in.txt");
//! std::fs::write(&path, "a\nb\nc\nd\n")?;
//! // knuffle sample -n 2 --seed 42 in.txt
//! let options = SampleOptions::new(Mode::Uniform { count: Some(2) }, "42");
//! let mut out = Vec::new();
//! sample(&[path.into()], &options, Destination::Writer(&mut out), &mut |_| {})?;
//! assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The API
//!
//! [`sample`] and [`split`], what they take ([`SampleOptions`] with its
//! [`Mode`], [`SplitOptions`] with its [`Parts`], [`Framing`],
//! [`FieldName`], [`Probability`], [`RandomValues`]), where the sample
//! goes ([`Destination`]), what they tell ([`Note`]) and fail with
//! ([`SampleError`]); and for the table sampling of knuffle-table, which
//! draws the same way on columns: a weight ([`Weight`],
//! [`descending_key`]), a key's draw under `-k -p`
//! ([`distinct_key_rng`]) and under `split -k` ([`split_key_rng`]), and
//! [`is_binary_table`]. Every module is
//! private.
//!
//! # Layers
//!
//! Workspace layer 2 (cli/python -> table -> records/sample/lab/draw ->
//! stats/io -> library): this crate uses the library (`knuffle`) and
//! knuffle-io (the written-file rule, the memory limit, gzip and zstd, the
//! delimiter scanner).
//!
//! The modes, one module each:
//!
//! - `uniform`: `-n K`, a simple random sample (every K-subset equally
//!   likely) in random or input order, by Li's reservoir Algorithm L
//!   (`knuffle::Reservoir`), O(K) memory; without `-n`, a shuffle of every
//!   record in memory.
//! - `bernoulli`: `-p P`, each record kept independently with
//!   probability exactly P (`probability`), O(1) memory.
//! - `weighted`: `-w FIELD [-n K]`, successive sampling by weight
//!   (Efraimidis & Spirakis' A-ExpJ, `knuffle::WeightedReservoir`).
//! - `replacement`: `-r [-w FIELD] [-n K]`, independent draws, uniform
//!   or by weight (exact for integer weights: `knuffle::WeightedIndex`).
//! - `distinct`: `-k FIELDS -p P`, keys in or out by a keyed SHA-256.
//! - `stratified`: `--per-key N -k FIELDS`, a reservoir per key group.
//!
//! And `split` (`knuffle split`): every record to one of several outputs
//! in the shares of `parts`, exact sizes with a uniformly random
//! assignment, or by key.
//!
//! Each module uses only those above it: `error`; `input_kind` (an input
//! as its metadata tells); `records` (records in,
//! gzip and zstd decompressed; a table, or bzip2, xz or zip, is refused by
//! its first bytes: `binary_input`), `fields` (fields of a record),
//! `probability`, `parts`; `options` (what is asked, checked once) and
//! `flags` (the options as a user gives them: which go together, which
//! mode they ask for); `key`
//! (a record's key); `plan` (what the mode and the inputs' kinds decide
//! before reading: how often the inputs are read, which are copied
//! first); `output` (records out, the memory budget); `ordered`
//! (sorted runs in temporary files, for the shuffles of every record); the
//! modes and `split`; then this file's [`sample`].

#![warn(missing_docs)]

use std::ffi::OsString;

mod bernoulli;
mod binary_input;
mod distinct;
mod error;
mod fields;
mod flags;
mod input_kind;
mod key;
mod options;
mod ordered;
mod output;
mod parts;
mod plan;
mod probability;
mod records;
mod replacement;
mod split;
mod stratified;
mod uniform;
mod weighted;

/// Test data only: draws below `bound` from a xorshift64 generator (G.
/// Marsaglia, "Xorshift RNGs", J. Stat. Softw. 8(14), 2003), its top 53
/// bits scaled by a multiply-shift: cheap and reproducible, not uniform
/// enough for anything but making varied inputs.
#[cfg(test)]
pub(crate) fn test_draws(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed;
    move |bound: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        ((u128::from(state >> 11) * u128::from(bound)) >> 53) as u64
    }
}

pub use binary_input::is_binary_table;
pub use distinct::distinct_key_rng;
pub use error::{Note, SampleError, SampleErrorKind};
pub use fields::FieldName;
pub use flags::{CONFLICTS, Flag, FlagNames, REQUIRES, RecordFlags, SampleFlags};
pub use options::{Mode, RandomValues, SampleOptions, parse_delimiter};
pub use output::Destination;
pub use parts::{ExactDraw, Parts};
pub use probability::Probability;
pub use records::Framing;
pub use split::{SplitOptions, split, split_key_rng};
pub use weighted::{Weight, descending_key};

/// Samples the records of `inputs` (paths, read in turn as one sequence of
/// records; `-` or no input at all is standard input) to `destination`,
/// as `options` asks. `notes` hears of what is worth telling without
/// failing (records skipped for their weight).
///
/// The output is a function of the inputs' bytes and `options` (the seed
/// text included): what `knuffle sample --seed SEED` writes for the same
/// options. A file destination is opened before any input is read and
/// replaced only once the sample is complete.
pub fn sample(
    inputs: &[OsString],
    options: &SampleOptions,
    destination: Destination<'_>,
    notes: &mut dyn FnMut(Note),
) -> Result<(), SampleError> {
    options.validate()?;
    // `-r -n K` reads its inputs twice when they do not fit: standard
    // input, pipes and devices are first copied to nameless temporary
    // files (a FIFO opened a second time would wait for a writer forever).
    let reads = plan::reads(&options.mode);
    let spool = match reads {
        plan::Reads::Once => None,
        reads => {
            let kinds = input_kind::kinds_of(inputs);
            let copies = plan::copies(reads, &kinds);
            Some(records::Spool::of(
                &kinds,
                &copies,
                options.temp_dir.as_deref(),
            )?)
        }
    };
    let no_spool = records::Spool::none();
    let open = || {
        records::RecordReader::open_with_spool(
            inputs,
            options.framing,
            options.header,
            options.memory,
            spool.as_ref().unwrap_or(&no_spool),
        )
    };
    let mut reader = open()?;
    // Fields are looked up before anything is written.
    let weights = match &options.mode {
        Mode::Weighted { field, .. }
        | Mode::Replacement {
            field: Some(field), ..
        } => Some(weighted::WeightField::new(field, options, reader.header())?),
        _ => None,
    };
    let keys = match &options.mode {
        Mode::Distinct { fields, .. } | Mode::Stratified { fields, .. } => {
            Some(key::KeyFields::new(
                fields,
                options.framing,
                options.delimiter,
                options.header,
                reader.header(),
            )?)
        }
        _ => None,
    };
    let print_random = match options.random_values {
        RandomValues::Off => None,
        every => Some(output::PrintRandom {
            delimiter: options.delimiter,
            every_record: every == RandomValues::Every,
        }),
    };
    let mut rng = knuffle::Seed::from_text(&options.seed).rng();
    let mut out = output::Output::open(destination, options.memory)?;
    if let Some(header) = reader.header() {
        match print_random {
            Some(print) => out.write_valued("random_value", print.delimiter, header)?,
            None => out.write(header)?,
        }
    }
    match (&options.mode, weights) {
        (Mode::Uniform { count }, _) => uniform::run(
            &mut reader,
            *count,
            options.in_order,
            options.temp_dir.as_deref(),
            &options.seed,
            &mut rng,
            &mut out,
        )?,
        (Mode::Bernoulli(probability), _) => {
            bernoulli::run(&mut reader, *probability, print_random, &mut rng, &mut out)?
        }
        (Mode::Weighted { count, .. }, Some(weights)) => weighted::run(
            &mut reader,
            weights,
            *count,
            options.in_order,
            print_random,
            options.temp_dir.as_deref(),
            &mut rng,
            &mut out,
            notes,
        )?,
        (Mode::Weighted { .. }, None) => unreachable!("weights are resolved above"),
        (Mode::Distinct { probability, .. }, _) => distinct::run(
            &mut reader,
            keys.expect("keys are resolved above"),
            *probability,
            &options.seed,
            print_random,
            &mut out,
        )?,
        (Mode::Stratified { per_key, .. }, _) => stratified::run(
            &mut reader,
            keys.expect("keys are resolved above"),
            *per_key,
            &mut rng,
            &mut out,
        )?,
        (Mode::Replacement { count, .. }, weights) => {
            // The inputs (standard input, pipes and devices as spooled)
            // can be read twice when their records do not fit.
            let reopen: Option<replacement::Reopen<'_>> = spool.is_some().then_some(&open);
            replacement::run(
                &mut reader,
                weights,
                *count,
                reopen,
                &mut rng,
                &mut out,
                notes,
            )?
        }
    }
    out.finish()
}
