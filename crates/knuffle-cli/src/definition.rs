//! The whole command line as one clap [`Command`]: shuf mode's options
//! (parsed at run time by `shuf::options`, GNU's getopt rules) and the
//! subcommands' own clap definitions. The man page and the shell
//! completions are generated from it (`generate`), so they never drift from
//! what the parsers accept; a unit test checks that shuf mode's option
//! table and this definition name the same options.

use clap::{Arg, ArgAction, Command, CommandFactory, ValueHint};

/// What `--generate` can print (the man page and the completions).
pub const GENERATE_KINDS: &[&str] = &["man", "complete-bash", "complete-zsh", "complete-fish"];

/// The subcommands, in the order `--help` lists them.
pub const SUBCOMMANDS: &[&str] = &[
    "deal", "chars", "trace", "lab", "audit", "draw", "verify", "sample", "split",
];

/// `knuffle`: shuf mode's options and operands, and every subcommand.
pub fn command() -> Command {
    let subcommands = [
        crate::deal::Args::command(),
        crate::chars::Args::command(),
        crate::trace::Args::command(),
        crate::lab::Args::command(),
        crate::audit::Args::command(),
        crate::draw::Args::command(),
        crate::verify::Args::command(),
        crate::sample::Args::command(),
        crate::split::Args::command(),
    ]
    .into_iter()
    .zip(SUBCOMMANDS)
    .map(|(sub, name)| sub.name(*name).bin_name(format!("knuffle {name}")));
    Command::new("knuffle")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Shuffle lines like GNU shuf, only faster; deal cards, shuffle characters, trace and audit shuffles, draw verifiably")
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

fn flag(name: &'static str, short: Option<char>, help: &'static str) -> Arg {
    Arg::new(name)
        .long(name)
        .short(short)
        .action(ArgAction::SetTrue)
        .help(help)
}

fn valued(name: &'static str, short: Option<char>, value: &'static str, help: &'static str) -> Arg {
    Arg::new(name)
        .long(name)
        .short(short)
        .value_name(value)
        .action(ArgAction::Set)
        .help(help)
}

/// Shuf mode's options, as `--help` documents them.
fn shuf_arguments() -> Vec<Arg> {
    vec![
        flag("echo", Some('e'), "Treat each ARG as an input line"),
        valued(
            "input-range",
            Some('i'),
            "LO-HI",
            "Treat each number LO through HI as an input line",
        ),
        valued(
            "head-count",
            Some('n'),
            "COUNT",
            "Output at most COUNT lines",
        ),
        valued(
            "output",
            Some('o'),
            "FILE",
            "Write result to FILE instead of standard output",
        )
        .value_hint(ValueHint::FilePath),
        valued(
            "random-source",
            None,
            "FILE",
            "Get random bytes from FILE (output identical to GNU shuf)",
        )
        .value_hint(ValueHint::FilePath),
        flag("repeat", Some('r'), "Output lines can be repeated"),
        flag(
            "zero-terminated",
            Some('z'),
            "Line delimiter is NUL, not newline",
        ),
        valued(
            "seed",
            None,
            "TEXT",
            "Reproducible output: ChaCha20 keyed with SHA-256 of TEXT (not under the name shuf)",
        ),
        valued(
            "header",
            None,
            "N",
            "Keep the first N input lines in place at the top (not under the name shuf)",
        ),
        valued(
            "memory",
            None,
            "SIZE",
            "Use at most SIZE of memory (512M, 4G, 10%); larger inputs go through temporary files",
        ),
        valued(
            "temporary-directory",
            Some('T'),
            "DIR",
            "Put temporary files in DIR, not $TMPDIR or /tmp",
        )
        .value_hint(ValueHint::DirPath),
        Arg::new("help")
            .long("help")
            .short('h')
            .action(ArgAction::Help)
            .help("Display this help and exit"),
        Arg::new("version")
            .long("version")
            .action(ArgAction::Version)
            .help("Output version information and exit"),
        valued(
            "generate",
            None,
            "KIND",
            "Print the man page or a shell completion script",
        )
        .value_parser(GENERATE_KINDS.to_vec()),
        Arg::new("FILE")
            .num_args(0..)
            .value_hint(ValueHint::FilePath)
            .help("Input files (standard input when none or -); with -e, the input lines"),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn shuf_options_are_the_parsers_options() {
        let mut parser = crate::shuf::option_names();
        let arguments = super::shuf_arguments();
        let mut defined: Vec<(&str, Option<char>)> = arguments
            .iter()
            .filter_map(|arg| Some((arg.get_long()?, arg.get_short())))
            .collect();
        parser.sort();
        defined.sort();
        assert_eq!(parser, defined);
    }

    #[test]
    fn the_definition_is_consistent() {
        super::command().debug_assert();
    }
}
