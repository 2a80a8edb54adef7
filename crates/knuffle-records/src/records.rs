//! The record shuffle of FILE inputs, in GNU's order of operations: read
//! the input, open the random source, choose, open the output, write. Three
//! ways through, chosen by size and options:
//!
//! - `-n COUNT` over a stream: a reservoir ([`crate::sample`]);
//! - larger than the memory limit: the external shuffle ([`crate::route`]);
//! - otherwise in memory: read everything, index the lines, permute the
//!   index, write.

use crate::engine::{
    DIRECT_LINE, Held, HeldLine, Render, permute_and_write_held, prefetch_bytes,
    repeat_and_write_held, write_shuffled,
};
use crate::error::Error;
use crate::gnu_random::source_needed;
use crate::input::{self, Bytes, Opened};
use crate::line_index::{Offset, append_line, line_starts};
use crate::memory::default_limit;
use crate::options::Options;
use crate::output::OutputPlan;
use crate::progress::Progress;
use crate::randomness::Randomness;
use crate::route::{self, Route, Run};
use crate::sample::{LINE_OVERHEAD, line_cost, reservoir_fits, reservoir_sample, sample_budget};
use crate::stream::LineStream;

/// GNU shuf reads a regular file larger than this by reservoir sampling
/// when `-n` is given (`RESERVOIR_MIN_INPUT` in coreutils' `src/shuf.c`);
/// `--random-source` output depends on it.
const GNU_RESERVOIR_MIN_INPUT: u64 = 8192 * 1024;

/// With knuffle's generator, `-n COUNT` up to this many lines is served by
/// a reservoir in constant memory; larger counts from regular files use the
/// in-memory index (a reservoir of millions of lines costs more).
pub const STREAM_SAMPLE_MAX: u64 = 1 << 16;

/// Shuffles opened inputs to `output` (`options.count` is not zero).
pub fn shuffle_opened(
    opened: Vec<Opened>,
    options: &Options,
    randomness: &mut Randomness,
    output: &OutputPlan<'_>,
    progress: &dyn Progress,
) -> Result<(), Error> {
    let head_count = options.count.unwrap_or(u64::MAX);
    progress.start(input::total_regular_size(&opened));
    // The default limit is taken once, before anything is read: it counts
    // the address space mapped now, which the input will take from.
    let resolved = Options {
        memory: Some(options.memory.unwrap_or_else(default_limit)),
        ..options.clone()
    };
    let options = &resolved;
    let mut run = Run {
        options,
        randomness,
        output,
        progress,
    };
    // Larger than the memory limit: shuffled externally (route.rs).
    let opened = match route::route(&mut run, opened, STREAM_SAMPLE_MAX)? {
        Route::Handled => return Ok(()),
        Route::Read(bytes) => return shuffle_bytes_in_memory(&mut run, bytes),
        Route::InMemory(opened) => opened,
    };
    if !options.repeat && head_count != u64::MAX {
        let size = input::total_regular_size(&opened);
        let stream = if matches!(run.randomness, Randomness::Gnu(_)) {
            size.is_none_or(|s| s > GNU_RESERVOIR_MIN_INPUT)
        } else {
            let limit = options.memory.unwrap_or_else(default_limit);
            size.is_none() || (head_count <= STREAM_SAMPLE_MAX && reservoir_fits(head_count, limit))
        };
        if stream {
            return sample_stream(&mut run, opened);
        }
    }
    shuffle_files_in_memory(&mut run, opened)
}

/// `-n COUNT` over a stream: header lines, then a reservoir sample, held
/// within [`sample_budget`](crate::sample::sample_budget).
fn sample_stream(run: &mut Run<'_, '_>, opened: Vec<Opened>) -> Result<(), Error> {
    let options = run.options;
    let head_count = options.count.unwrap_or(u64::MAX);
    run.randomness.open_if(true)?;
    let limit = options.memory.unwrap_or_else(default_limit);
    let mut budget = sample_budget(limit);
    let mut stream = LineStream::new(opened, options.delimiter)
        .with_limit(limit)
        .with_progress(run.progress);
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for _ in 0..options.header {
        let mut line = Vec::new();
        if !stream.next_line(&mut line, budget.saturating_sub(LINE_OVERHEAD))? {
            break;
        }
        budget = budget.saturating_sub(line_cost(&line));
        lines.push(line);
    }
    let header_len = lines.len();
    lines.extend(reservoir_sample(
        &mut stream,
        head_count,
        run.randomness,
        budget,
    )?);
    let mut indices: Vec<u32> = (0..lines.len() as u32).collect();
    let (header, body) = indices.split_at_mut(header_len);
    let line = |i: u32| -> HeldLine<'_> { (&lines[i as usize], false) };
    let held = Held {
        line: &line,
        delimiter: options.delimiter,
        intact: None,
    };
    let progress = run.progress;
    let notice = |h: u64| progress.permuting(h);
    permute_and_write_held(
        header,
        body,
        u64::MAX,
        run.randomness,
        &held,
        run.output,
        &notice,
    )
}

/// The in-memory path for FILE input: read everything, index the lines,
/// permute the index, write.
fn shuffle_files_in_memory(run: &mut Run<'_, '_>, opened: Vec<Opened>) -> Result<(), Error> {
    let delimiter = run.options.delimiter;
    if let Some((file, offset, remaining)) = input::single_regular(&opened) {
        let len = usize::try_from(remaining).map_err(|_| Error::OutOfMemory)?;
        if run.options.map_input && !run.output.could_overwrite(file) {
            let intact = || input::still_holds(file, offset, len);
            let _published = input::MappedInput;
            if u32::try_from(len).is_ok() {
                if let Some((bytes, starts)) =
                    input::map_indexed::<u32>(file, offset, len, delimiter, run.progress)?
                {
                    return shuffle_lines(run, &bytes, starts, Some(&intact));
                }
            } else if let Some((bytes, starts)) =
                input::map_indexed::<u64>(file, offset, len, delimiter, run.progress)?
            {
                return shuffle_lines(run, &bytes, starts, Some(&intact));
            }
        }
        // No map (`None`: the offset is not page-aligned or the map could
        // not be made): a private copy. Positioned reads leave the file's
        // cursor alone, so a file shorter than its reported size (`None`
        // again) is simply read to its end below.
        if u32::try_from(len).is_ok() {
            if let Some((bytes, starts)) =
                input::read_indexed::<u32>(file, offset, len, delimiter, run.progress)?
            {
                return shuffle_lines(run, &bytes, starts, None);
            }
        } else if let Some((bytes, starts)) =
            input::read_indexed::<u64>(file, offset, len, delimiter, run.progress)?
        {
            return shuffle_lines(run, &bytes, starts, None);
        }
    }
    let limit = run.options.memory.unwrap_or_else(default_limit);
    let bytes = input::load(opened, delimiter, limit, run.progress)?;
    shuffle_bytes_in_memory(run, bytes)
}

/// The in-memory path for bytes already read (pipes that fit the limit).
fn shuffle_bytes_in_memory(run: &mut Run<'_, '_>, bytes: Bytes) -> Result<(), Error> {
    let delimiter = run.options.delimiter;
    if u32::try_from(bytes.len()).is_ok() {
        let starts = line_starts::<u32>(&bytes, delimiter)?;
        shuffle_lines(run, &bytes, starts, None)
    } else {
        let starts = line_starts::<u64>(&bytes, delimiter)?;
        shuffle_lines(run, &bytes, starts, None)
    }
}

/// The longest line's length (starts in order, before any shuffle; a
/// last line without a delimiter counts one for it).
fn longest_line<O: Offset>(len: usize, starts: &[O]) -> usize {
    let ends = starts.iter().skip(1).map(|s| s.get()).chain([len + 1]);
    starts
        .iter()
        .zip(ends)
        .map(|(start, end)| end - start.get())
        .max()
        .unwrap_or(0)
}

fn shuffle_lines<O: Offset>(
    run: &mut Run<'_, '_>,
    bytes: &Bytes,
    mut starts: Vec<O>,
    intact: Option<&(dyn Fn() -> Result<(), Error> + Sync)>,
) -> Result<(), Error> {
    let options = run.options;
    let head_count = options.count.unwrap_or(u64::MAX);
    let data: &[u8] = bytes;
    let delimiter = options.delimiter;
    let limit = options.memory.unwrap_or_else(default_limit);
    // The output renders lines into blocks, a few per core in flight, within
    // the eighth of the limit kept for output buffers. Lines so long that
    // those blocks may not fit it are written from where they are held
    // instead (never copied: with `-r` and `--random-source`, which hold the
    // whole input whatever the limit as GNU does, a line may be near all
    // the memory the process can have).
    let blocks_in_flight = 3 * rayon::current_num_threads() as u64 + 1;
    let too_long = |len: usize| len as u64 * blocks_in_flight > limit / 8;
    let held_in_place = too_long(data.len()) && {
        let longest = longest_line(data.len(), &starts);
        longest >= DIRECT_LINE && too_long(longest)
    };
    let starts_len = starts.len();
    let n_all = starts_len as u64;
    let header_len = options.header.min(n_all) as usize;
    let (header, body) = starts.split_at_mut(header_len);
    let n = body.len() as u64;
    let h = if options.repeat {
        head_count
    } else {
        head_count.min(n)
    };
    run.randomness
        .open_if(source_needed(options.repeat, h, n))?;
    let write = |start: O, buffer: &mut Vec<u8>| append_line(data, start.get(), delimiter, buffer);
    let prefetch = |start: O| prefetch_bytes(data, start.get());
    let render = Render {
        write: &write,
        item_bytes: data.len() / starts_len.max(1) + 1,
        prefetch: Some(&prefetch),
        intact,
    };
    let progress = run.progress;
    let notice = |h: u64| progress.permuting(h);
    if held_in_place {
        let line = |start: O| -> HeldLine<'_> {
            let rest = &data[start.get()..];
            match memchr::memchr(delimiter, rest) {
                Some(end) => (&rest[..=end], false),
                None => (rest, true),
            }
        };
        let held = Held {
            line: &line,
            delimiter,
            intact,
        };
        if options.repeat {
            let body: &[O] = body;
            let nth = |j: u64| body[j as usize];
            return repeat_and_write_held(
                header,
                body.len() as u64,
                &nth,
                &held,
                head_count,
                run.randomness,
                run.output,
            );
        }
        return permute_and_write_held(
            header,
            body,
            head_count,
            run.randomness,
            &held,
            run.output,
            &notice,
        );
    }
    write_shuffled(
        header,
        body,
        &render,
        run.randomness,
        run.output,
        options.repeat,
        head_count,
        &notice,
    )
}
