//! The three input kinds (FILEs, `-e` operands, `-i` numbers) wired to the
//! engine, in GNU's order of operations: read the input, open the random
//! source, choose, open the output, write.

use std::ffi::OsString;

use knuffle::DefaultRng;

use super::engine::{Render, permute_and_write, prefetch_bytes, repeat_and_write, write_in_order};
use super::errors::ShufError;
use super::external_mode::{self, Route};
use super::gnu_random::{GnuRandom, randperm_bound};
use super::input::{self, Bytes, Opened};
use super::line_index::{Offset, append_line, line_starts};
use super::numbers::push_number;
use super::options::{InputSpec, Options};
use super::output::OutputPlan;
use super::randomness::Randomness;
use super::sample::reservoir_sample;
use super::stream::LineStream;

/// GNU shuf reads a regular file larger than this by reservoir sampling
/// when `-n` is given (`RESERVOIR_MIN_INPUT` in coreutils' `src/shuf.c`);
/// `--random-source` output depends on it.
const GNU_RESERVOIR_MIN_INPUT: u64 = 8192 * 1024;

/// With knuffle's generator, `-n COUNT` up to this many lines is served by
/// a reservoir in constant memory; larger counts from regular files use the
/// in-memory index (a reservoir of millions of lines costs more).
const STREAM_SAMPLE_MAX: u64 = 1 << 16;

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
}

impl<'a> Run<'a> {
    /// The randomness: `--random-source` (opened only when GNU would open
    /// it: `needed`), `--seed`, or the operating system.
    pub fn randomness(&self, needed: bool) -> Result<Randomness, ShufError> {
        if let Some(name) = &self.options.random_source {
            return Ok(Randomness::Gnu(if needed {
                GnuRandom::open(name)?
            } else {
                GnuRandom::unopened(name)
            }));
        }
        if let Some(seed) = &self.options.seed {
            return Ok(Randomness::Knuffle(Box::new(DefaultRng::from_seed_text(
                seed,
            ))));
        }
        DefaultRng::try_from_os()
            .map(|rng| Randomness::Knuffle(Box::new(rng)))
            .map_err(|e| ShufError::plain(format!("getrandom: {e}")))
    }

    /// Warns when `--seed` is a 64-bit integer (or a short number) that
    /// cannot reach every order of `h` lines.
    pub fn notice_permutation(&self, h: u64) {
        let Some(seed) = &self.options.seed else {
            return;
        };
        let Some(bits) = knuffle::entropy::seed_text_bits(seed) else {
            return;
        };
        if !knuffle::entropy::seed_can_reach_every_order(bits.floor() as u64, h) {
            eprintln!(
                "{}: warning: the seed '{seed}' carries at most {:.0} bits, too few to reach every order of {h} lines; use a longer seed text (a phrase, or 64 hex digits) for full coverage",
                self.program, bits
            );
        }
    }
}

/// Executes shuf mode.
pub fn execute(options: &Options, program: &str) -> Result<(), ShufError> {
    let endless = options.repeat && options.head_count == u64::MAX;
    let run = Run {
        options,
        program,
        output: OutputPlan::new(options.output.as_deref(), endless),
    };
    if options.head_count == 0 {
        // GNU reads no input, opens the random source only for -r, and
        // still creates (truncates) the output file.
        run.randomness(options.repeat)?;
        return run.output.open()?.finish();
    }
    match &options.input {
        InputSpec::Echo(operands) => echo(&run, operands),
        InputSpec::Range { lo, hi } => range(&run, *lo, *hi),
        InputSpec::Files(names) => {
            let opened = input::open_all(names)?;
            files(&run, opened)
        }
    }
}

fn gnu_needs_source(options: &Options, h: u64, n: u64) -> bool {
    options.repeat || randperm_bound(h, n) > 0
}

/// `-e`: each operand is a line (even one containing the delimiter).
fn echo(run: &Run<'_>, operands: &[OsString]) -> Result<(), ShufError> {
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
    let render = Render {
        write: &write,
        prefetch: None,
    };
    let header_len = options.header.min(n) as usize;
    let mut indices: Vec<u32> = (0..lines.len() as u32).collect();
    let (header, body) = indices.split_at_mut(header_len);
    write_shuffled(run, header, body, &render, &mut randomness)
}

/// `-i LO-HI`.
fn range(run: &Run<'_>, lo: u64, hi: u64) -> Result<(), ShufError> {
    let options = run.options;
    let n = if hi < lo { 0 } else { hi - lo + 1 };
    let delimiter = options.delimiter;
    let h = options.head_count.min(n);
    let mut randomness = run.randomness(gnu_needs_source(options, h, n))?;
    let notice = |h: u64| run.notice_permutation(h);
    let write = |v: u64, buffer: &mut Vec<u8>| push_number(buffer, lo + v, delimiter);
    let render = Render {
        write: &write,
        prefetch: None,
    };
    if options.repeat {
        let nth = |j: u64| j;
        return repeat_and_write(
            &[],
            n,
            &nth,
            &render,
            options.head_count,
            &mut randomness,
            &run.output,
        );
    }
    if h == 0 {
        return run.output.open()?.finish();
    }
    let sparse = n > u64::from(u32::MAX) + 1 || (n >= SPARSE_MIN_RANGE && n / h >= 32);
    if sparse {
        notice(h);
        let values = randomness.sample_range(n, h)?;
        // Already a uniformly ordered selection: written as it is.
        return write_in_order(&values, &render, &run.output);
    }
    let mut values: Vec<u32> = Vec::new();
    values
        .try_reserve_exact(n as usize)
        .map_err(|_| ShufError::memory())?;
    values.extend(0..=(n - 1) as u32);
    let write32 = |v: u32, buffer: &mut Vec<u8>| push_number(buffer, lo + u64::from(v), delimiter);
    let render32 = Render {
        write: &write32,
        prefetch: None,
    };
    permute_and_write(
        &[],
        &mut values,
        h,
        &mut randomness,
        &render32,
        &run.output,
        &notice,
    )
}

/// FILE operands (or standard input).
fn files(run: &Run<'_>, opened: Vec<Opened>) -> Result<(), ShufError> {
    let options = run.options;
    // Larger than the memory limit: shuffled externally (external_mode.rs).
    let opened = match external_mode::route(run, opened, STREAM_SAMPLE_MAX)? {
        Route::Handled => return Ok(()),
        Route::Read(bytes) => return shuffle_bytes_in_memory(run, bytes),
        Route::InMemory(opened) => opened,
    };
    if !options.repeat && options.head_count != u64::MAX {
        let size = input::total_regular_size(&opened);
        let stream = if options.random_source.is_some() {
            size.is_none_or(|s| s > GNU_RESERVOIR_MIN_INPUT)
        } else {
            size.is_none() || options.head_count <= STREAM_SAMPLE_MAX
        };
        if stream {
            return sample_stream(run, opened);
        }
    }
    shuffle_files_in_memory(run, opened)
}

/// `-n COUNT` over a stream: header lines, then a reservoir sample.
fn sample_stream(run: &Run<'_>, opened: Vec<Opened>) -> Result<(), ShufError> {
    let options = run.options;
    let mut randomness = run.randomness(true)?;
    let mut stream = LineStream::new(opened, options.delimiter);
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for _ in 0..options.header {
        let mut line = Vec::new();
        if !stream.next_line(&mut line)? {
            break;
        }
        lines.push(line);
    }
    let header_len = lines.len();
    lines.extend(reservoir_sample(
        &mut stream,
        options.head_count,
        &mut randomness,
    )?);
    let mut indices: Vec<u32> = (0..lines.len() as u32).collect();
    let (header, body) = indices.split_at_mut(header_len);
    let write = |i: u32, buffer: &mut Vec<u8>| buffer.extend_from_slice(&lines[i as usize]);
    let render = Render {
        write: &write,
        prefetch: None,
    };
    let notice = |h: u64| run.notice_permutation(h);
    permute_and_write(
        header,
        body,
        u64::MAX,
        &mut randomness,
        &render,
        &run.output,
        &notice,
    )
}

/// The in-memory path for FILE input: read everything, index the lines,
/// permute the index, write. Inputs, options, randomness and output are
/// all it needs.
pub fn shuffle_files_in_memory(run: &Run<'_>, opened: Vec<Opened>) -> Result<(), ShufError> {
    let delimiter = run.options.delimiter;
    if let Some((file, offset, remaining)) = input::single_regular(&opened) {
        let len = usize::try_from(remaining).map_err(|_| ShufError::memory())?;
        // Positioned reads leave the file's cursor alone, so a file shorter
        // than its reported size (`None`) is simply read again below.
        if u32::try_from(len).is_ok() {
            if let Some((bytes, starts)) = input::read_indexed::<u32>(file, offset, len, delimiter)?
            {
                return shuffle_lines(run, &bytes, starts);
            }
        } else if let Some((bytes, starts)) =
            input::read_indexed::<u64>(file, offset, len, delimiter)?
        {
            return shuffle_lines(run, &bytes, starts);
        }
    }
    shuffle_bytes_in_memory(run, input::load(opened, delimiter)?)
}

/// The in-memory path for bytes already read (pipes that fit the limit).
fn shuffle_bytes_in_memory(run: &Run<'_>, bytes: Bytes) -> Result<(), ShufError> {
    let delimiter = run.options.delimiter;
    if u32::try_from(bytes.len()).is_ok() {
        let starts = line_starts::<u32>(&bytes, delimiter)?;
        shuffle_lines(run, &bytes, starts)
    } else {
        let starts = line_starts::<u64>(&bytes, delimiter)?;
        shuffle_lines(run, &bytes, starts)
    }
}

fn shuffle_lines<O: Offset>(
    run: &Run<'_>,
    bytes: &Bytes,
    mut starts: Vec<O>,
) -> Result<(), ShufError> {
    let options = run.options;
    let data: &[u8] = bytes;
    let delimiter = options.delimiter;
    let n_all = starts.len() as u64;
    let header_len = options.header.min(n_all) as usize;
    let (header, body) = starts.split_at_mut(header_len);
    let n = body.len() as u64;
    let h = if options.repeat {
        options.head_count
    } else {
        options.head_count.min(n)
    };
    let mut randomness = run.randomness(gnu_needs_source(options, h, n))?;
    let write = |start: O, buffer: &mut Vec<u8>| append_line(data, start.get(), delimiter, buffer);
    let prefetch = |start: O| prefetch_bytes(data, start.get());
    let render = Render {
        write: &write,
        prefetch: Some(&prefetch),
    };
    write_shuffled(run, header, body, &render, &mut randomness)
}

/// Writes `header`, then `body`: `-r` draws from it (with replacement),
/// otherwise a permutation of it (`-n` of them at most).
fn write_shuffled<T: Copy + Send + Sync>(
    run: &Run<'_>,
    header: &[T],
    body: &mut [T],
    render: &Render<'_, T>,
    randomness: &mut Randomness,
) -> Result<(), ShufError> {
    let options = run.options;
    if options.repeat {
        let body: &[T] = body;
        let nth = |j: u64| body[j as usize];
        return repeat_and_write(
            header,
            body.len() as u64,
            &nth,
            render,
            options.head_count,
            randomness,
            &run.output,
        );
    }
    let notice = |h: u64| run.notice_permutation(h);
    permute_and_write(
        header,
        body,
        options.head_count,
        randomness,
        render,
        &run.output,
        &notice,
    )
}
