//! The repeat strategy (`-r`): lines held in memory by
//! [`crate::in_memory`], drawn independently and uniformly with
//! replacement, header lines first; rendered into blocks, or written from
//! where they are held when they are too long for the blocks.

use crate::engine::{Held, Render, repeat_and_write, repeat_and_write_held};
use crate::error::Error;
use crate::line_index::Offset;
use crate::randomness::Draws;
use crate::settings::Run;

/// Writes `header`, then the run's count of lines drawn from `body`
/// (without end when no count is given).
pub(crate) fn write<O: Offset, D: Draws>(
    run: &Run<'_, '_>,
    header: &[O],
    body: &[O],
    render: &Render<'_, O>,
    held: Option<&Held<'_, '_, O>>,
    draws: &mut D,
) -> Result<(), Error> {
    let n = body.len() as u64;
    let nth = |j: u64| body[j as usize];
    match held {
        Some(held) => repeat_and_write_held(
            header,
            n,
            &nth,
            held,
            run.head_count.limit(),
            draws,
            run.output,
        ),
        None => repeat_and_write(
            header,
            n,
            &nth,
            render,
            run.head_count.limit(),
            draws,
            run.output,
        ),
    }
}
