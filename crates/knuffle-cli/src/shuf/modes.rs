//! The three input kinds (FILEs, `-e` operands, `-i` numbers) wired to the
//! record library, in GNU's order of operations: read the input, open the
//! random source, choose, open the output, write. FILEs go to
//! [`knuffle_records::shuffle_records_planned`]; `-e` and `-i` use its
//! engine directly.

use std::ffi::{OsStr, OsString};

use knuffle_records::engine::{
    Render, permute_and_write, repeat_and_write, write_in_order, write_shuffled,
};
use knuffle_records::gnu_random::source_needed;
use knuffle_records::{Input, OutputPlan, Randomness};

use super::errors::CliError;
use super::numbers::push_number;
use super::options::{InputSpec, Options};
use super::progress_bar::Progress;

/// Ranges of at least this many numbers, sampled sparsely enough, are
/// drawn without materialising the range (GNU's `randperm` rule).
const SPARSE_MIN_RANGE: u64 = 128 * 1024;

/// One run's settings and helpers.
pub struct Run<'a> {
    /// The options.
    pub options: &'a Options,
    program: &'a str,
    /// The output, opened late.
    pub output: OutputPlan<'a>,
    /// Progress and the seed warning.
    pub progress: &'a Progress<'a>,
}

impl<'a> Run<'a> {
    /// The randomness: `--random-source` (opened only when GNU would open
    /// it: `needed`), `--seed`, or the operating system.
    pub fn randomness(&self, needed: bool) -> Result<Randomness, CliError> {
        let mut randomness = self.unopened_randomness()?;
        randomness.open_if(needed)?;
        Ok(randomness)
    }

    /// The randomness, a random source not opened yet.
    fn unopened_randomness(&self) -> Result<Randomness, CliError> {
        if let Some(name) = &self.options.random_source {
            return Ok(Randomness::gnu_source(name));
        }
        if let Some(seed) = &self.options.seed {
            return Ok(Randomness::from_seed_text(seed));
        }
        Ok(Randomness::from_os()?)
    }

    /// The record library's options for these options.
    fn record_options(&self) -> knuffle_records::Options {
        let options = self.options;
        knuffle_records::Options {
            delimiter: options.delimiter,
            header: options.header,
            count: (options.head_count != u64::MAX).then_some(options.head_count),
            repeat: options.repeat,
            memory: options.memory,
            temp_dir: options.temp_dir.as_ref().map(Into::into),
            // A single regular FILE is read from the page cache directly;
            // `mapped_input` reports the file shrinking meanwhile.
            map_input: true,
        }
    }

    /// Warns when `--seed` is a 64-bit integer (or a short number) that
    /// cannot reach every order of `h` lines.
    pub fn notice_permutation(&self, h: u64) {
        warn_if_seed_too_short(self.program, self.options.seed.as_deref(), h);
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
    let endless = options.repeat && options.head_count == u64::MAX;
    // The bar (on a terminal, after a second) and the seed warning.
    let seed = options.seed.as_deref();
    let progress = Progress::new(Box::new(move |h| warn_if_seed_too_short(program, seed, h)));
    let run = Run {
        options,
        program,
        output: OutputPlan::new(options.output.as_deref(), endless).reporting_to(&progress),
        progress: &progress,
    };
    if options.head_count == 0 {
        // GNU reads no input, opens the random source only for -r, and
        // still creates (truncates) the output file.
        run.randomness(options.repeat)?;
        return Ok(run.output.open()?.finish()?);
    }
    match &options.input {
        InputSpec::Echo(operands) => {
            knuffle_records::Progress::start(&progress, None);
            echo(&run, operands)
        }
        InputSpec::Range { lo, hi } => {
            knuffle_records::Progress::start(&progress, None);
            range(&run, *lo, *hi)
        }
        InputSpec::Files(names) => files(&run, names),
    }
}

fn gnu_needs_source(options: &Options, h: u64, n: u64) -> bool {
    source_needed(options.repeat, h, n)
}

/// FILE operands (none: standard input), through the record library.
fn files(run: &Run<'_>, names: &[OsString]) -> Result<(), CliError> {
    let inputs: Vec<Input> = if names.is_empty() {
        vec![Input::Stdin]
    } else {
        names.iter().map(Input::from_name).collect()
    };
    let options = run.options;
    let gnu_whole_input = options.random_source.is_some() && options.head_count == u64::MAX;
    if options.memory.is_some() && (options.repeat || gnu_whole_input) {
        // GNU's in-memory behaviour is kept for these: the whole input is
        // held, whatever --memory says.
        let why = if options.repeat {
            "-r"
        } else {
            "--random-source"
        };
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
        &run.record_options(),
        &mut randomness,
        &run.output,
        run.progress,
    )
    .map_err(|error| match error {
        knuffle_records::Error::InputShrank => super::mapped_input::shrank(mapped),
        other => other.into(),
    })
}

/// `-e`: each operand is a line (even one containing the delimiter).
fn echo(run: &Run<'_>, operands: &[OsString]) -> Result<(), CliError> {
    let options = run.options;
    let lines: Vec<&[u8]> = operands.iter().map(|o| o.as_encoded_bytes()).collect();
    let n = lines.len() as u64;
    let h = options.head_count.min(n);
    let mut randomness = run.randomness(gnu_needs_source(options, h, n))?;
    let delimiter = options.delimiter;
    let write = |i: u32, buffer: &mut Vec<u8>| {
        buffer.extend_from_slice(lines[i as usize]);
        buffer.push(delimiter);
    };
    let total: usize = lines.iter().map(|l| l.len() + 1).sum();
    let render = Render {
        write: &write,
        item_bytes: total / lines.len().max(1),
        prefetch: None,
        intact: None,
    };
    let header_len = options.header.min(n) as usize;
    let mut indices: Vec<u32> = (0..lines.len() as u32).collect();
    let (header, body) = indices.split_at_mut(header_len);
    let notice = |h: u64| run.notice_permutation(h);
    write_shuffled(
        header,
        body,
        &render,
        &mut randomness,
        &run.output,
        options.repeat,
        options.head_count,
        &notice,
    )?;
    Ok(())
}

/// `-i LO-HI`.
fn range(run: &Run<'_>, lo: u64, hi: u64) -> Result<(), CliError> {
    let options = run.options;
    let n = if hi < lo { 0 } else { hi - lo + 1 };
    let delimiter = options.delimiter;
    let h = options.head_count.min(n);
    let mut randomness = run.randomness(gnu_needs_source(options, h, n))?;
    let notice = |h: u64| run.notice_permutation(h);
    let write = |v: u64, buffer: &mut Vec<u8>| push_number(buffer, lo + v, delimiter);
    let render = Render {
        write: &write,
        item_bytes: 0,
        prefetch: None,
        intact: None,
    };
    if options.repeat {
        let nth = |j: u64| j;
        return Ok(repeat_and_write(
            &[],
            n,
            &nth,
            &render,
            options.head_count,
            &mut randomness,
            &run.output,
        )?);
    }
    if h == 0 {
        return Ok(run.output.open()?.finish()?);
    }
    let sparse = n > u64::from(u32::MAX) + 1 || (n >= SPARSE_MIN_RANGE && n / h >= 32);
    if sparse {
        notice(h);
        let values = randomness.sample_range(n, h)?;
        // Already a uniformly ordered selection: written as it is.
        return Ok(write_in_order(&values, &render, &run.output)?);
    }
    let mut values: Vec<u32> = Vec::new();
    values
        .try_reserve_exact(n as usize)
        .map_err(|_| CliError::memory())?;
    values.extend(0..=(n - 1) as u32);
    let write32 = |v: u32, buffer: &mut Vec<u8>| push_number(buffer, lo + u64::from(v), delimiter);
    let render32 = Render {
        write: &write32,
        item_bytes: 0,
        prefetch: None,
        intact: None,
    };
    Ok(permute_and_write(
        &[],
        &mut values,
        h,
        &mut randomness,
        &render32,
        &run.output,
        &notice,
    )?)
}
