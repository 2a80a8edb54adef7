//! The inputs that are not read: words given as they are (`-e`), each one
//! record even when it holds the delimiter, and a range of numbers
//! (`-i LO-HI`), each one record in decimal. Both are held as small
//! handles (indices, values) and rendered on output; in GNU's order of
//! operations: open the random source, choose, open the output, write.

use crate::decimal::push_number;
use crate::engine::{Render, permute_and_write, repeat_and_write, write_in_order, write_shuffled};
use crate::error::Error;
use crate::gnu_random::source_needed;
use crate::input::Input;
use crate::options::Options;
use crate::output::OutputPlan;
use crate::progress::Progress;
use crate::randomness::Randomness;

/// Ranges of at least this many numbers, sampled sparsely enough, are
/// drawn without materialising the range (GNU's `randperm` rule).
const SPARSE_MIN_RANGE: u64 = 128 * 1024;

/// Shuffles words or a range (the sole input); any other input is not
/// one of them ([`Error::MixedInputs`]).
pub(crate) fn shuffle(
    input: Input,
    options: &Options,
    randomness: &mut Randomness,
    output: &OutputPlan<'_>,
    progress: &dyn Progress,
) -> Result<(), Error> {
    progress.start(None);
    let result = match input {
        Input::Words(list) => words(&list, options, randomness, output, progress),
        Input::Range { lo, hi } => range(lo, hi, options, randomness, output, progress),
        _ => Err(Error::MixedInputs),
    };
    progress.finish();
    result
}

/// `-e`: each word is a record (even one containing the delimiter).
fn words(
    words: &[Vec<u8>],
    options: &Options,
    randomness: &mut Randomness,
    output: &OutputPlan<'_>,
    progress: &dyn Progress,
) -> Result<(), Error> {
    let head_count = options.count.limit();
    let n = words.len() as u64;
    let h = head_count.min(n);
    randomness.open_if(source_needed(options.repeat, h, n))?;
    let delimiter = options.delimiter;
    let write = |i: u32, buffer: &mut Vec<u8>| {
        buffer.extend_from_slice(&words[i as usize]);
        buffer.push(delimiter);
    };
    let total: usize = words.iter().map(|w| w.len() + 1).sum();
    let render = Render {
        write: &write,
        item_bytes: total / words.len().max(1),
        prefetch: None,
        intact: None,
    };
    let header_len = options.header.min(n) as usize;
    let mut indices: Vec<u32> = (0..words.len() as u32).collect();
    let (header, body) = indices.split_at_mut(header_len);
    let notice = |h: u64| progress.permuting(h);
    write_shuffled(
        header,
        body,
        &render,
        randomness,
        output,
        options.repeat,
        head_count,
        &notice,
    )
}

/// `-i LO-HI`: the numbers from `lo` to `hi` (none when `hi < lo`).
fn range(
    lo: u64,
    hi: u64,
    options: &Options,
    randomness: &mut Randomness,
    output: &OutputPlan<'_>,
    progress: &dyn Progress,
) -> Result<(), Error> {
    let head_count = options.count.limit();
    let n = if hi < lo { 0 } else { hi - lo + 1 };
    let delimiter = options.delimiter;
    let h = head_count.min(n);
    randomness.open_if(source_needed(options.repeat, h, n))?;
    let notice = |h: u64| progress.permuting(h);
    let write = |v: u64, buffer: &mut Vec<u8>| push_number(buffer, lo + v, delimiter);
    let render = Render {
        write: &write,
        item_bytes: 0,
        prefetch: None,
        intact: None,
    };
    if options.repeat {
        let nth = |j: u64| j;
        return repeat_and_write(&[], n, &nth, &render, head_count, randomness, output);
    }
    if h == 0 {
        return output.open()?.finish();
    }
    let sparse = n > u64::from(u32::MAX) + 1 || (n >= SPARSE_MIN_RANGE && n / h >= 32);
    if sparse {
        notice(h);
        let values = randomness.sample_range(n, h)?;
        // Already a uniformly ordered selection: written as it is.
        return write_in_order(&values, &render, output);
    }
    let mut values: Vec<u32> = Vec::new();
    values
        .try_reserve_exact(n as usize)
        .map_err(|_| Error::OutOfMemory)?;
    values.extend(0..=(n - 1) as u32);
    let write32 = |v: u32, buffer: &mut Vec<u8>| push_number(buffer, lo + u64::from(v), delimiter);
    let render32 = Render {
        write: &write32,
        item_bytes: 0,
        prefetch: None,
        intact: None,
    };
    permute_and_write(&[], &mut values, h, randomness, &render32, output, &notice)
}
