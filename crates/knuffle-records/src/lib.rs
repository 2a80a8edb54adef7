//! Shuffle the lines (records) of files, streams and readers, exactly
//! uniformly and in bounded memory: the engine of the `knuffle` command's
//! GNU `shuf` mode, as a library.
//!
//! For the same inputs, options, seed and memory limit,
//! [`shuffle_records`] writes byte for byte what `knuffle` writes:
//!
//! ```
//! use knuffle_records::{HeadCount, Input, Options, Randomness, shuffle_records};
//!
//! let input = Input::Reader(Box::new(&b"a\nb\nc\nd\n"[..]));
//! let options = Options {
//!     count: HeadCount::AtMost(2), // knuffle -n 2
//!     ..Options::default()
//! };
//! let mut out = Vec::new();
//! let mut randomness = Randomness::from_seed_text("42"); // --seed 42
//! shuffle_records([input], &options, &mut randomness, &mut out)?;
//! assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 2);
//! # Ok::<(), knuffle_records::Error>(())
//! ```
//!
//! One plan, decided once from the inputs, the options and the source of
//! randomness (see `plan.rs`), names one strategy, executed by its own
//! module: a reservoir for `-n COUNT` over a stream (Li's Algorithm L), an
//! in-memory index of line starts (of the width the input's size takes,
//! the one file mapped or copied), permuted with `knuffle`'s shuffles or
//! drawn from with `-r`, and for inputs larger than [`Options::memory`]
//! an external scatter/gather through nameless temporary files (see
//! `external` for why every order is exactly equally likely). GNU's
//! `--random-source` is reproduced byte for byte
//! ([`Randomness::gnu_source`]).
//!
//! # The API
//!
//! The entry points [`shuffle_records`], [`shuffle_records_to_file`],
//! [`shuffle_records_to`] (a [`Destination`], a [`Progress`] observer) and
//! [`shuffle_records_planned`] (an [`OutputPlan`]); what they take:
//! [`Input`]s (files, standard input, readers, `-e` words, `-i` ranges),
//! [`Options`] and [`Randomness`] (a GNU source: [`GnuRandom`]); what
//! they fail with: [`Error`]. Besides: the `SIGBUS` helper of
//! [`Options::map_input`] ([`in_mapped_input`]). Every other module below
//! is private. Memory sizes, the written-file rule, temporary files, gzip
//! and zstd and the delimiter scanner are knuffle-io's; the sampling
//! engine of `knuffle sample` and `knuffle split` is knuffle-sample.
//!
//! # Layers
//!
//! Workspace layer 2 (cli/python -> table -> records/sample/lab/draw ->
//! stats/io -> library): this crate uses the library (`knuffle`) and
//! knuffle-io.
//!
//! Each module uses only modules of the layers below it (checked: no
//! module imports one that imports it back).
//!
//! 1. **Foundations**: `error`, `buffers` (buffer sizes), `read`
//!    (`read_some`), `bytes`, `options` (with `HeadCount`, and the
//!    engine's answers about them: endless output, when `--memory` does
//!    not apply), `progress`, `allocate_ahead`
//!    (disk space allocated ahead of sequential writes).
//! 2. **Randomness**: `gnu_random` (GNU's `randint`/`randperm`), then
//!    `randomness` (knuffle's generator or a GNU source).
//! 3. **Lines in**: `line_index`, `input` (opening, reading into
//!    memory), `stream` (lines in constant memory).
//! 4. **Lines out**: `output` (late-opened output, `-o` by rename,
//!    parallel rendering), `engine` (permute-and-write,
//!    repeat-and-write).
//! 5. **Settings**: `settings` (what every strategy is told, resolved
//!    once: the count, the memory limit, how the one file is held; the
//!    memory rules the strategies share with the plan).
//! 6. **Strategies**, one module each: `sample` (reservoir),
//!    `in_memory` (permute), `repeat` (`-r`), `external` (plan, labels,
//!    scatter, sink, input, gather) run by `external_run`, `spill` (pipes:
//!    in memory or external); `external`'s temporary files are
//!    knuffle-io's `temp`.
//! 7. **Plan and entry**: `plan` (every decision, once: the facts of the
//!    run gathered, the strategy chosen by a pure function of them, how
//!    the one file is held; then the strategy executed by its module; the
//!    one place the source of randomness is told apart), `records` (opens the inputs and hands
//!    them to the plan), and this file's [`shuffle_records`] family. The
//!    walk goes down: `records` -> `plan` -> a strategy -> `engine` ->
//!    `output`.

#![warn(missing_docs)]

mod allocate_ahead;
mod buffers;
mod bytes;
mod error;
mod options;
mod progress;
mod read;

mod gnu_random;
mod randomness;

mod input;
mod line_index;
mod stream;

mod decimal;
mod engine;
mod operands;
mod output;

mod external;
mod external_run;
mod in_memory;
mod plan;
mod repeat;
mod sample;
mod settings;
mod spill;

mod records;

use std::io::Write;
use std::path::Path;

pub use error::Error;
/// The GNU-compatible source inside [`Randomness::Gnu`].
pub use gnu_random::GnuRandom;
pub use input::{Input, in_mapped_input};
pub use options::{HeadCount, Options};
pub use output::{Output, OutputPlan};
pub use progress::{NoProgress, Progress};
pub use randomness::Randomness;

/// The delimiter scanner, for the fuzz targets (not part of the API).
#[doc(hidden)]
pub mod fuzzing {
    pub use knuffle_io::scan::{count_delimiters, for_each_delimiter};
}

/// Where the output goes.
pub enum Destination<'a> {
    /// Standard output, written through (no buffer of ours in between).
    Stdout,
    /// A writer of the caller's, flushed at the end.
    Writer(&'a mut dyn Write),
    /// A file, opened only once all input is read (so it may be one of the
    /// inputs). A regular file is written under a temporary name and
    /// renamed over the file at the end, so a run that fails never
    /// truncates it (as `knuffle -o FILE`).
    File(&'a Path),
}

/// Shuffles the records of `inputs` (concatenated; each input's last
/// record gets a delimiter when it lacks one; no input: no record) to
/// `out`.
///
/// The output is a function of the inputs' bytes, `options` (the memory
/// limit included: it decides between in-memory and external shuffling,
/// and the external shuffle's layout) and `randomness`: the same seed and
/// limit give what `knuffle --seed S --memory M` gives.
pub fn shuffle_records(
    inputs: impl IntoIterator<Item = Input>,
    options: &Options,
    randomness: &mut Randomness,
    out: &mut dyn Write,
) -> Result<(), Error> {
    shuffle_records_to(
        inputs,
        options,
        randomness,
        Destination::Writer(out),
        &NoProgress,
    )
}

/// [`shuffle_records`] to a file that a failing run leaves untouched.
pub fn shuffle_records_to_file(
    inputs: impl IntoIterator<Item = Input>,
    options: &Options,
    randomness: &mut Randomness,
    path: &Path,
) -> Result<(), Error> {
    shuffle_records_to(
        inputs,
        options,
        randomness,
        Destination::File(path),
        &NoProgress,
    )
}

/// [`shuffle_records`] to any [`Destination`], reporting to `progress`.
pub fn shuffle_records_to(
    inputs: impl IntoIterator<Item = Input>,
    options: &Options,
    randomness: &mut Randomness,
    destination: Destination<'_>,
    progress: &dyn Progress,
) -> Result<(), Error> {
    let endless = options.endless();
    let plan = match destination {
        Destination::Stdout => OutputPlan::new(None, endless),
        Destination::Writer(writer) => OutputPlan::writer(writer),
        Destination::File(path) => OutputPlan::new(Some(path.as_os_str()), endless),
    }
    .reporting_to(progress);
    shuffle_records_planned(inputs, options, randomness, &plan, progress)
}

/// [`shuffle_records`] to an [`OutputPlan`] (the `knuffle` command's way).
pub fn shuffle_records_planned(
    inputs: impl IntoIterator<Item = Input>,
    options: &Options,
    randomness: &mut Randomness,
    output: &OutputPlan<'_>,
    progress: &dyn Progress,
) -> Result<(), Error> {
    records::shuffle(inputs, options, randomness, output, progress)
}
