//! A usage error names options as they were typed: clap names an option by
//! its long form (`'--count <K>' cannot be used with '--prob <P>'`), which a
//! user who typed `-n 10 -p 0.1` has to translate. For two options that
//! conflict, each is named by the spelling found on the command line.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// `error` with the options of a conflict named as typed in `args` (the
/// arguments after the subcommand); any other error unchanged.
pub fn as_typed(mut error: clap::Error, command: &clap::Command, args: &[OsString]) -> clap::Error {
    if error.kind() != ErrorKind::ArgumentConflict {
        return error;
    }
    let typed = typed_options(args);
    for kind in [ContextKind::InvalidArg, ContextKind::PriorArg] {
        let renamed = match error.get(kind) {
            Some(ContextValue::String(shown)) => {
                ContextValue::String(respell(shown, command, &typed))
            }
            Some(ContextValue::Strings(shown)) => {
                ContextValue::Strings(shown.iter().map(|s| respell(s, command, &typed)).collect())
            }
            _ => continue,
        };
        error.insert(kind, renamed);
    }
    error
}

/// The options on the command line, each as typed (`-n`, `--count`),
/// before a `--` that ends them.
fn typed_options(args: &[OsString]) -> Vec<String> {
    args.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .take_while(|a| a != "--")
        .filter_map(|a| {
            if let Some(long) = a.strip_prefix("--") {
                let name = long.split('=').next().unwrap_or(long);
                Some(format!("--{name}"))
            } else if a.len() > 1 && a.starts_with('-') {
                // The first short option of a group (`-n10`, `-n`).
                a.chars().nth(1).map(|c| format!("-{c}"))
            } else {
                None
            }
        })
        .collect()
}

/// clap's `--long <VALUE>` for an option of `command`, as `-s <VALUE>` when
/// the user typed the short form and not the long one.
fn respell(shown: &str, command: &clap::Command, typed: &[String]) -> String {
    let (name, rest) = shown.split_once(' ').unwrap_or((shown, ""));
    let Some(long) = name.strip_prefix("--") else {
        return shown.to_owned();
    };
    let Some(arg) = command.get_arguments().find(|a| a.get_long() == Some(long)) else {
        return shown.to_owned();
    };
    let short_typed = arg
        .get_short()
        .map(|s| format!("-{s}"))
        .filter(|s| typed.contains(s));
    match short_typed {
        Some(short) if !typed.iter().any(|t| t == name) => {
            if rest.is_empty() {
                short
            } else {
                format!("{short} {rest}")
            }
        }
        _ => shown.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Arg, ArgAction, Command};

    fn command() -> Command {
        Command::new("t")
            .arg(
                Arg::new("count")
                    .short('n')
                    .long("count")
                    .value_name("K")
                    .conflicts_with("prob"),
            )
            .arg(Arg::new("prob").short('p').long("prob").value_name("P"))
            .arg(
                Arg::new("quiet")
                    .short('q')
                    .long("quiet")
                    .action(ArgAction::SetTrue),
            )
            .arg(Arg::new("files").action(ArgAction::Append))
    }

    fn message(args: &[&str]) -> String {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let argv = std::iter::once(OsString::from("t")).chain(args.iter().cloned());
        let error = command().try_get_matches_from(argv).unwrap_err();
        as_typed(error, &command(), &args).to_string()
    }

    #[test]
    fn a_conflict_names_the_options_as_typed() {
        let short = message(&["-n", "10", "-p", "0.1"]);
        assert!(
            short.contains("'-n <K>' cannot be used with '-p <P>'"),
            "{short}"
        );
        let long = message(&["--count", "10", "--prob=0.1"]);
        assert!(
            long.contains("'--count <K>' cannot be used with '--prob <P>'"),
            "{long}"
        );
        let mixed = message(&["-n10", "--prob", "0.1"]);
        assert!(
            mixed.contains("'-n <K>' cannot be used with '--prob <P>'"),
            "{mixed}"
        );
        // Values that look like options after `--` are not options.
        let after = message(&["--count", "1", "--prob", "2", "--", "-n"]);
        assert!(
            after.contains("'--count <K>' cannot be used with '--prob <P>'"),
            "{after}"
        );
    }
}
