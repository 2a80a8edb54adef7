//! `knuffle sample`: the sampling modes that people who sample data files
//! use (tsv-sample, qsv sample, pandas `sample`), each with its law stated:
//!
//! - [`uniform`]: `-n K`, a simple random sample (every K-subset equally
//!   likely) in random or input order, by Li's reservoir Algorithm L
//!   (`knuffle::Reservoir`), O(K) memory; without `-n`, a shuffle of every
//!   record in memory.
//! - [`bernoulli`]: `-p P`, each record kept independently with
//!   probability exactly P ([`probability`]), O(1) memory.
//! - [`weighted`]: `-w FIELD [-n K]`, successive sampling by weight
//!   (Efraimidis & Spirakis' A-ExpJ, `knuffle::WeightedReservoir`).
//! - [`replacement`]: `-r [-w FIELD] [-n K]`, independent draws, uniform
//!   or by weight (exact for integer weights: `knuffle::WeightedIndex`).
//! - [`distinct`]: `-k FIELDS -p P`, keys in or out by a keyed SHA-256.
//! - [`stratified`]: `--per-key N -k FIELDS`, a reservoir per key group.
//!
//! [`key`] reads a record's key fields.
//!
//! Layers: [`args`] (the command line, parsed once into a [`args::Plan`]),
//! [`records`] and [`fields`] (records in, fields of a record),
//! [`probability`], [`output`] (records out, the memory budget), then one
//! module per mode.

use std::ffi::OsString;
use std::process::ExitCode;

use crate::emit;
use crate::failure::CliError;

pub(crate) mod args;
mod bernoulli;
mod distinct;
mod fields;
mod key;
mod output;
mod probability;
mod records;
mod replacement;
mod stratified;
mod uniform;
mod weighted;

pub(crate) use args::Args;

/// Runs `knuffle sample` with the arguments after `sample`.
pub fn run(args: &[OsString]) -> Result<ExitCode, CliError> {
    let args: Args = emit::parse("knuffle sample", args)?;
    let plan = args.plan()?;
    // A reader that goes away (`| head`) ends the run quietly.
    emit::end_quietly_on_closed_pipe();
    let mut reader =
        records::RecordReader::open(&plan.files, plan.framing, plan.header, plan.memory)?;
    // Fields are looked up before anything is written.
    let weights = match &plan.mode {
        args::Mode::Weighted { field, .. }
        | args::Mode::Replacement {
            field: Some(field), ..
        } => Some(weighted::WeightField::new(field, &plan, reader.header())?),
        _ => None,
    };
    let keys = match &plan.mode {
        args::Mode::Distinct { fields, .. } | args::Mode::Stratified { fields, .. } => {
            Some(key::KeyFields::new(fields, &plan, reader.header())?)
        }
        _ => None,
    };
    let mut rng = plan.seed.rng();
    let mut out = output::Output::open(plan.output.as_deref(), plan.memory)?;
    if let Some(header) = reader.header() {
        match plan.print_random {
            Some(print) => out.write_valued("random_value", print.delimiter, header)?,
            None => out.write(header)?,
        }
    }
    match (&plan.mode, weights) {
        (args::Mode::Uniform { count }, _) => {
            uniform::run(&mut reader, *count, plan.in_order, &mut rng, &mut out)?
        }
        (args::Mode::Bernoulli(probability), _) => bernoulli::run(
            &mut reader,
            *probability,
            plan.print_random,
            &mut rng,
            &mut out,
        )?,
        (args::Mode::Weighted { count, .. }, Some(weights)) => weighted::run(
            &mut reader,
            weights,
            *count,
            plan.in_order,
            plan.print_random,
            &mut rng,
            &mut out,
        )?,
        (args::Mode::Weighted { .. }, None) => unreachable!("weights are resolved above"),
        (args::Mode::Distinct { probability, .. }, _) => distinct::run(
            &mut reader,
            keys.expect("keys are resolved above"),
            *probability,
            plan.seed.text(),
            plan.print_random,
            &mut out,
        )?,
        (args::Mode::Stratified { per_key, .. }, _) => stratified::run(
            &mut reader,
            keys.expect("keys are resolved above"),
            *per_key,
            &mut rng,
            &mut out,
        )?,
        (args::Mode::Replacement { count, .. }, weights) => {
            replacement::run(&mut reader, weights, *count, &mut rng, &mut out)?
        }
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
