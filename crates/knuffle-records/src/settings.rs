//! What every strategy of a record shuffle is told, resolved once by
//! [`crate::plan`] before any record is chosen: the run's settings
//! ([`Run`]: the options, the output, the count and the memory limit),
//! how an in-memory strategy holds the input ([`Holding`]), and the
//! memory rules the strategies share with the plan ([`in_memory_need`],
//! [`sample_budget`]). It sits below the plan and the strategies, so the
//! plan can execute the strategies that read it.

use crate::line_index::offset_bytes;
use crate::options::{HeadCount, Options};
use crate::output::OutputPlan;
use crate::progress::Progress;
use crate::stream::stream_buffer;
use knuffle_io::default_limit;

/// What every strategy is told: the settings of the run, resolved once.
pub(crate) struct Run<'a, 'o> {
    /// The options.
    pub options: &'a Options,
    /// The output, opened late.
    pub output: &'a OutputPlan<'o>,
    /// Where progress goes.
    pub progress: &'a dyn Progress,
    /// `-n COUNT`.
    pub head_count: HeadCount,
    /// The memory limit: `--memory`, or the default taken once before
    /// anything is read (it counts the address space mapped now, which the
    /// input will take from).
    pub limit: u64,
}

impl<'a, 'o> Run<'a, 'o> {
    /// The settings for `options` (the default memory limit taken now).
    pub(crate) fn new(
        options: &'a Options,
        output: &'a OutputPlan<'o>,
        progress: &'a dyn Progress,
    ) -> Self {
        Run {
            options,
            output,
            progress,
            head_count: options.count,
            limit: options.memory.unwrap_or_else(default_limit),
        }
    }
}

/// How the in-memory strategies hold the input.
pub(crate) enum Holding {
    /// The single regular input, `len` bytes from `offset`: read by both
    /// cores into a private copy, or (`mapped`) mapped from the page
    /// cache.
    File {
        /// Where reading starts.
        offset: u64,
        /// The bytes left.
        len: usize,
        /// Mapped rather than copied.
        mapped: bool,
    },
    /// Read whole into one buffer.
    Loaded,
}

/// What a kept line costs besides its bytes (its `Vec` and the
/// allocator's header), counted against the budget.
pub(crate) const LINE_OVERHEAD: u64 = 32;

/// The bytes the lines kept by `-n` over a stream may take under the
/// memory `limit`: all that the stream's buffer leaves (they are written
/// out from where they are held, never copied whole). Beyond the limit, the
/// process needs a small constant of its own (documented in the README).
pub(crate) fn sample_budget(limit: u64) -> u64 {
    limit.saturating_sub(stream_buffer(limit) as u64)
}

/// Memory the in-memory path needs for `bytes` bytes in `lines` lines.
pub(crate) fn in_memory_need(bytes: u64, lines: u64) -> u64 {
    bytes.saturating_add(lines.saturating_mul(offset_bytes(bytes)))
}
