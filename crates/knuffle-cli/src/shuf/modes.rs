//! The three input kinds (FILEs, `-e` operands, `-i` numbers) wired to the
//! record library, in GNU's order of operations: read the input, open the
//! random source, choose, open the output, write. Each becomes an input of
//! [`knuffle_records::shuffle_records_planned`] (FILE, standard input,
//! `Input::Words`, `Input::Range`), with the options translated into the
//! library's `Options` once.

use std::ffi::{OsStr, OsString};

use knuffle_records::{Input, OutputPlan, Randomness};

use super::errors::CliError;
use super::options::{InputSpec, Options};
use super::progress_bar::Progress;

/// One run's settings and helpers.
pub struct Run<'a> {
    /// The options.
    pub options: &'a Options,
    /// The same options as the record library takes them, translated once.
    records: knuffle_records::Options,
    program: &'a str,
    /// The output, opened late.
    pub output: OutputPlan<'a>,
    /// Progress and the seed warning.
    pub progress: &'a Progress<'a>,
}

impl<'a> Run<'a> {
    /// The randomness, a random source not opened yet (the record library
    /// opens it when GNU would).
    fn unopened_randomness(&self) -> Result<Randomness, CliError> {
        if let Some(name) = &self.options.random_source {
            return Ok(Randomness::gnu_source(name));
        }
        if let Some(seed) = &self.options.seed {
            return Ok(Randomness::from_seed_text(seed));
        }
        Ok(Randomness::from_os()?)
    }
}

/// The record library's options for `options`.
fn record_options(options: &Options) -> knuffle_records::Options {
    knuffle_records::Options {
        delimiter: options.delimiter,
        header: options.header,
        count: options.head_count,
        repeat: options.repeat,
        memory: options.memory,
        temp_dir: options.temp_dir.as_ref().map(Into::into),
        // A single regular FILE is read from the page cache directly;
        // `mapped_input` reports the file shrinking meanwhile.
        map_input: true,
    }
}

/// Warns when `--seed` is a 64-bit integer (or a short number) that cannot
/// reach every order of `h` lines.
fn warn_if_seed_too_short(program: &str, seed: Option<&str>, h: u64) {
    let Some(seed) = seed else {
        return;
    };
    let Some(bits) = knuffle::entropy::seed_text_bits(seed) else {
        return;
    };
    if !knuffle::entropy::seed_can_reach_every_order(bits.floor() as u64, h) {
        eprintln!(
            "{program}: warning: the seed '{seed}' carries at most {bits:.0} bits, too few to reach every order of {h} lines; use a longer seed text (a phrase, or 64 hex digits) for full coverage"
        );
    }
}

/// Executes shuf mode.
pub fn execute(options: &Options, program: &str) -> Result<(), CliError> {
    // The bar (on a terminal, after a second) and the seed warning.
    let seed = options.seed.as_deref();
    let progress = Progress::new(Box::new(move |h| warn_if_seed_too_short(program, seed, h)));
    let records = record_options(options);
    let run = Run {
        options,
        program,
        output: OutputPlan::new(options.output.as_deref(), records.endless())
            .reporting_to(&progress),
        records,
        progress: &progress,
    };
    match &options.input {
        InputSpec::Echo(operands) => {
            let words = operands.iter().map(|o| o.as_encoded_bytes().to_vec());
            operands_input(&run, Input::Words(words.collect()))
        }
        InputSpec::Range { lo, hi } => operands_input(&run, Input::Range { lo: *lo, hi: *hi }),
        InputSpec::Files(names) => files(&run, names),
    }
}

/// `-e` words or an `-i` range, through the record library.
fn operands_input(run: &Run<'_>, input: Input) -> Result<(), CliError> {
    let mut randomness = run.unopened_randomness()?;
    knuffle_records::shuffle_records_planned(
        [input],
        &run.records,
        &mut randomness,
        &run.output,
        run.progress,
    )?;
    Ok(())
}

/// FILE operands (none: standard input), through the record library.
fn files(run: &Run<'_>, names: &[OsString]) -> Result<(), CliError> {
    let inputs: Vec<Input> = if names.is_empty() {
        vec![Input::Stdin]
    } else {
        names.iter().map(Input::from_name).collect()
    };
    let options = run.options;
    let ignored = run
        .records
        .memory_ignored_because(options.random_source.is_some());
    if let (Some(why), Some(_)) = (ignored, options.memory) {
        // GNU's in-memory behaviour is kept for these: the whole input is
        // held, whatever --memory says.
        eprintln!(
            "{}: warning: --memory does not apply with {why}: the input is read into memory as GNU shuf does",
            run.program
        );
    }
    // A single input that is a regular file is mapped (standard input too,
    // when it is redirected from one).
    let mapped: Option<&OsStr> = match names {
        [name] if name != "-" => Some(name),
        _ => None,
    };
    if names.len() <= 1 {
        super::mapped_input::report_sigbus_for(run.program, mapped);
    }
    let mut randomness = run.unopened_randomness()?;
    knuffle_records::shuffle_records_planned(
        inputs,
        &run.records,
        &mut randomness,
        &run.output,
        run.progress,
    )
    .map_err(|error| match error {
        knuffle_records::Error::InputShrank => super::mapped_input::shrank(mapped),
        other => other.into(),
    })
}
