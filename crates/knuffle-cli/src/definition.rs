//! The whole command line as one clap [`Command`], for the man page and
//! the shell completions (`generate`): shuf mode's flags, read from the one
//! flag table (`shuf::flags`, which the GNU-exact parser and `--help` read
//! too), and every subcommand of the registry (`subcommands`) with its own
//! clap definition. Neither lists anything itself, so they never drift
//! from what the parsers accept.

use clap::{Arg, ArgAction, Command, ValueHint};

use crate::shuf::flags::{Complete, FLAGS, Flag, Opt};
use crate::subcommands::SUBCOMMANDS;

/// `knuffle`: shuf mode's options and operands, and every subcommand.
pub fn command() -> Command {
    let subcommands = SUBCOMMANDS.iter().map(|sub| {
        (sub.command)()
            .name(sub.name)
            .bin_name(format!("knuffle {}", sub.name))
    });
    let names: Vec<&str> = SUBCOMMANDS.iter().map(|sub| sub.name).collect();
    Command::new("knuffle")
        .version(env!("CARGO_PKG_VERSION"))
        .about(format!(
            "Shuffle lines like GNU shuf, only faster. Subcommands: {}",
            names.join(", ")
        ))
        .long_about(
            "knuffle with no subcommand is a drop-in GNU shuf (coreutils 9.1): it writes a random \
             permutation of the input lines. Installed under the name shuf it is GNU shuf exactly \
             (GNU's options, one FILE, GNU's messages). Only the first argument can name a \
             subcommand; a file named like one is shuffled when written ./deal or after --.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .args(shuf_arguments())
        // clap adds `help [SUBCOMMAND]`, as `knuffle help` behaves.
        .subcommands(subcommands)
}

/// Shuf mode's flags as clap arguments, and its operands.
fn shuf_arguments() -> Vec<Arg> {
    FLAGS
        .iter()
        .map(flag_argument)
        .chain(std::iter::once(
            Arg::new("FILE")
                .num_args(0..)
                .value_hint(ValueHint::FilePath)
                .help("Input files (standard input when none or -); with -e, the input lines"),
        ))
        .collect()
}

/// One row of the flag table as a clap argument: its `--help` text
/// capitalised, extensions marked as such.
fn flag_argument(flag: &Flag) -> Arg {
    let mut help = capitalised(flag.doc);
    if !flag.gnu {
        help.push_str(" (not under the name shuf)");
    }
    let arg = Arg::new(flag.long)
        .long(flag.long)
        .short(flag.short_letter(false).map(char::from))
        .help(help);
    let arg = match (flag.opt, flag.value) {
        (Opt::Help, _) => arg.action(ArgAction::Help),
        (Opt::Version, _) => arg.action(ArgAction::Version),
        (_, None) => arg.action(ArgAction::SetTrue),
        (_, Some(value)) => arg.value_name(value).action(ArgAction::Set),
    };
    match flag.complete {
        Complete::Nothing => arg,
        Complete::File => arg.value_hint(ValueHint::FilePath),
        Complete::Dir => arg.value_hint(ValueHint::DirPath),
        Complete::OneOf(words) => arg.value_parser(words.to_vec()),
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_definition_is_consistent() {
        super::command().debug_assert();
    }
}
