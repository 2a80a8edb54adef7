//! The sampling engine's options as the command line names them, and its
//! rules of which go together ([`knuffle_sample::CONFLICTS`],
//! [`knuffle_sample::REQUIRES`]) given to clap, so that clap refuses them
//! with its own messages before the engine sees them.

use clap::Command;
use knuffle_sample::{CONFLICTS, Flag, FlagNames, REQUIRES};

/// The names of `knuffle sample` and `knuffle split`.
pub(crate) const CLI_NAMES: FlagNames = FlagNames { name, with_value };

/// The option as typed: `-k`.
fn name(flag: Flag) -> &'static str {
    match flag {
        Flag::Count => "-n",
        Flag::Prob => "-p",
        Flag::Weights => "-w",
        Flag::Replace => "-r",
        Flag::Key => "-k",
        Flag::PerKey => "--per-key",
        Flag::SkipBadWeights => "--skip-bad-weights",
        Flag::InOrder => "--inorder",
        Flag::PrintRandom => "--print-random",
        Flag::GenRandomInorder => "--gen-random-inorder",
        Flag::Csv => "--csv",
        Flag::ZeroTerminated => "-z",
    }
}

/// The option with its value as the help shows it: `-p P`.
fn with_value(flag: Flag) -> &'static str {
    match flag {
        Flag::Count => "-n K",
        Flag::Prob => "-p P",
        Flag::Weights => "-w FIELD",
        Flag::Key => "-k FIELDS",
        Flag::PerKey => "--per-key N",
        other => name(other),
    }
}

/// The clap argument of `flag`.
fn id(flag: Flag) -> &'static str {
    match flag {
        Flag::Count => "count",
        Flag::Prob => "prob",
        Flag::Weights => "weight_field",
        Flag::Replace => "replace",
        Flag::Key => "key_fields",
        Flag::PerKey => "per_key",
        Flag::SkipBadWeights => "skip_bad_weights",
        Flag::InOrder => "inorder",
        Flag::PrintRandom => "print_random",
        Flag::GenRandomInorder => "gen_random_inorder",
        Flag::Csv => "csv",
        Flag::ZeroTerminated => "zero_terminated",
    }
}

/// `command` with the engine's conflicts and requirements among the
/// options it has.
pub(crate) fn engine_rules(mut command: Command) -> Command {
    let has = |command: &Command, flag: Flag| {
        command
            .get_arguments()
            .any(|argument| argument.get_id() == id(flag))
    };
    for &(a, b) in CONFLICTS {
        if has(&command, a) && has(&command, b) {
            command = command.mut_arg(id(a), |argument| argument.conflicts_with(id(b)));
        }
    }
    for &(a, b) in REQUIRES {
        if has(&command, a) && has(&command, b) {
            command = command.mut_arg(id(a), |argument| argument.requires(id(b)));
        }
    }
    command
}
