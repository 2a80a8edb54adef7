//! The in-memory strategies: the input held whole (one regular file
//! mapped or read into a private copy by both cores, anything else loaded
//! into one buffer), its line starts indexed with offsets of the width its
//! size takes, then the index permuted and the lines written (or, with
//! `-r`, drawn from by [`crate::repeat`]).

use std::fs::File;

use crate::engine::{
    DIRECT_LINE, Held, HeldLine, Render, permute_and_write, permute_and_write_held, prefetch_bytes,
};
use crate::error::Error;
use crate::gnu_random::source_needed;
use crate::input::{self, Bytes, Opened};
use crate::line_index::{ByWidth, Offset, append_line, by_width, line_starts};
use crate::randomness::Draws;
use crate::repeat;
use crate::settings::{Holding, Run};

/// The check that a mapped input is still whole (see
/// [`Render::intact`](crate::engine::Render::intact)).
type Intact<'a> = &'a (dyn Fn() -> Result<(), Error> + Sync);

/// Holds `opened` as `holding` says and writes its lines permuted (or,
/// with `repeat`, drawn with replacement).
pub(crate) fn run<D: Draws>(
    run: &Run<'_, '_>,
    holding: Holding,
    opened: Vec<Opened>,
    repeat: bool,
    draws: &mut D,
) -> Result<(), Error> {
    if let Holding::File {
        offset,
        len,
        mapped,
    } = holding
        && let Some(file) = opened.first().and_then(Opened::file)
    {
        let from_file = FromFile {
            run,
            file,
            offset,
            len,
            mapped,
            repeat,
            draws: &mut *draws,
        };
        if by_width(len, from_file)?.is_some() {
            return Ok(());
        }
    }
    let bytes = input::load(opened, run.options.delimiter, run.limit, run.progress)?;
    shuffle_bytes(run, bytes, repeat, draws)
}

/// The in-memory path for bytes already read (all the input).
pub(crate) fn shuffle_bytes<D: Draws>(
    run: &Run<'_, '_>,
    bytes: Bytes,
    repeat: bool,
    draws: &mut D,
) -> Result<(), Error> {
    let from_bytes = FromBytes {
        run,
        bytes: &bytes,
        repeat,
        draws,
    };
    by_width(bytes.len(), from_bytes)
}

/// The single regular file, mapped or read by both cores and indexed on
/// the way, then shuffled: `Ok(None)` when it ended before its reported
/// size (the caller then reads it plainly).
struct FromFile<'x, 'a, 'o, D> {
    run: &'x Run<'a, 'o>,
    file: &'x File,
    offset: u64,
    len: usize,
    mapped: bool,
    repeat: bool,
    draws: &'x mut D,
}

impl<D: Draws> ByWidth for FromFile<'_, '_, '_, D> {
    type Output = Result<Option<()>, Error>;

    fn run<O: Offset>(self) -> Self::Output {
        let FromFile {
            run,
            file,
            offset,
            len,
            mapped,
            repeat,
            draws,
        } = self;
        let delimiter = run.options.delimiter;
        if mapped {
            let intact = || input::still_holds(file, offset, len);
            let _published = input::MappedInput;
            if let Some((bytes, starts)) =
                input::map_indexed::<O>(file, offset, len, delimiter, run.progress)?
            {
                return shuffle_lines(run, &bytes, starts, Some(&intact), repeat, draws).map(Some);
            }
        }
        // No map (`None`: the offset is not page-aligned or the map could
        // not be made): a private copy. Positioned reads leave the file's
        // cursor alone, so a file shorter than its reported size (`None`
        // again) is simply read to its end.
        match input::read_indexed::<O>(file, offset, len, delimiter, run.progress)? {
            Some((bytes, starts)) => {
                shuffle_lines(run, &bytes, starts, None, repeat, draws).map(Some)
            }
            None => Ok(None),
        }
    }
}

/// Bytes read whole: indexed, then shuffled.
struct FromBytes<'x, 'a, 'o, D> {
    run: &'x Run<'a, 'o>,
    bytes: &'x Bytes,
    repeat: bool,
    draws: &'x mut D,
}

impl<D: Draws> ByWidth for FromBytes<'_, '_, '_, D> {
    type Output = Result<(), Error>;

    fn run<O: Offset>(self) -> Self::Output {
        let starts = line_starts::<O>(self.bytes, self.run.options.delimiter)?;
        shuffle_lines(self.run, self.bytes, starts, None, self.repeat, self.draws)
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

fn shuffle_lines<O: Offset, D: Draws>(
    run: &Run<'_, '_>,
    bytes: &Bytes,
    mut starts: Vec<O>,
    intact: Option<Intact<'_>>,
    repeat: bool,
    draws: &mut D,
) -> Result<(), Error> {
    let options = run.options;
    let head_count = run.head_count.limit();
    let data: &[u8] = bytes;
    let delimiter = options.delimiter;
    let limit = run.limit;
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
    let h = if repeat {
        head_count
    } else {
        head_count.min(n)
    };
    draws.open_if(source_needed(repeat, h, n))?;
    let write = |start: O, buffer: &mut Vec<u8>| append_line(data, start.get(), delimiter, buffer);
    let prefetch = |start: O| prefetch_bytes(data, start.get());
    let render = Render {
        write: &write,
        item_bytes: data.len() / starts_len.max(1) + 1,
        prefetch: Some(&prefetch),
        intact,
    };
    let line = |start: O| -> HeldLine<'_> {
        let rest = &data[start.get()..];
        match memchr::memchr(delimiter, rest) {
            Some(end) => (&rest[..=end], false),
            None => (rest, true),
        }
    };
    let held = held_in_place.then_some(Held {
        line: &line,
        delimiter,
        intact,
    });
    if repeat {
        return repeat::write(run, header, body, &render, held.as_ref(), draws);
    }
    let progress = run.progress;
    let notice = |h: u64| progress.permuting(h);
    match &held {
        Some(held) => {
            permute_and_write_held(header, body, head_count, draws, held, run.output, &notice)
        }
        None => permute_and_write(
            header, body, head_count, draws, &render, run.output, &notice,
        ),
    }
}
