//! `knuffle sample`: the command line of the sampling engine
//! (`knuffle_sample`, where every mode, its law and its
//! algorithm live). This module keeps only what is the command line's:
//! [`args`] (clap, parsed once into a [`args::Plan`]), standard output,
//! the note on standard error, and [`status`] (errors into messages and
//! exit statuses).

use std::ffi::OsString;
use std::process::ExitCode;

use knuffle_sample::{Destination, Note};

use crate::emit;
use crate::failure::CliError;

pub(crate) mod args;
mod flag_names;
mod format;
mod status;
mod table_sample;
mod tables;

pub(crate) use flag_names::{CLI_NAMES, engine_rules};
pub(crate) use format::RecordFormat;
pub(crate) use status::cli_error;

pub(crate) use args::Args;

/// Runs `knuffle sample` with the arguments after `sample`.
pub fn run(args: &[OsString]) -> Result<ExitCode, CliError> {
    let args: Args = emit::parse_with("knuffle sample", args, flag_names::engine_rules)?;
    let plan = args.plan()?;
    if let Some(table) = &plan.table {
        return table_sample::run(&plan, table);
    }
    // A reader that goes away (`| head`) ends the run quietly.
    emit::end_quietly_on_closed_pipe();
    let mut stdout = std::io::stdout().lock();
    let destination = match plan.output.as_deref() {
        Some(path) => Destination::File(path),
        None => Destination::Writer(&mut stdout),
    };
    knuffle_sample::sample(&plan.files, &plan.options, destination, &mut print_note)
        .map_err(status::cli_error)?;
    if let Some(seed) = plan.seed_shown {
        eprintln!("knuffle sample: --seed {seed}");
    }
    Ok(ExitCode::SUCCESS)
}

/// A note of the engine on standard error.
fn print_note(note: Note) {
    if let Note::SkippedBadWeights(skipped) = note {
        eprintln!(
            "knuffle sample: note: {skipped} record{} without a positive finite weight skipped \
             (--skip-bad-weights)",
            if skipped == 1 { "" } else { "s" }
        );
    }
}
