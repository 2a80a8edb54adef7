//! The one registry of subcommands ([`SUBCOMMANDS`]), and which first
//! argument names one or looks like a mistyped one.
//!
//! The registry drives everything that lists subcommands: dispatch
//! (`lib.rs`), `knuffle help` and the usage line of `--help`
//! (`shuf/help.rs`), the near-miss suggestions (here), the man page and the
//! completions (`definition.rs`, `generate.rs`). Adding a subcommand is one
//! entry in [`SUBCOMMANDS`].
//!
//! The rule (also in `--help`): only the first argument can name a
//! subcommand, spelled exactly (a registry name or `help`). A first
//! argument that shuf mode would open as a FILE (so not with `-e`, `-i` or
//! `-n 0`), that has no `/`, is not an existing file, has three letters or
//! more, and is one edit (a letter added, dropped, changed, or two
//! neighbours swapped; case ignored) from a subcommand's name is a usage
//! error that suggests the name (`knuffle dael`: did you mean 'deal'?).
//! Anything else is shuf mode's as usual: `./deal`, `-- deal`, or an
//! existing file `dael` are shuffled.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::ExitCode;

use clap::CommandFactory;

use crate::failure::CliError;

/// One subcommand: everything the command line needs to know about it.
pub struct Subcommand {
    /// The name, as typed (`knuffle deal`).
    pub name: &'static str,
    /// What it does, in a few words (`--help` lists it as `deal (cards)`).
    pub summary: &'static str,
    /// Runs it with the arguments after its name.
    pub run: fn(&[OsString]) -> Result<ExitCode, CliError>,
    /// Its clap definition, for the man page and the completions.
    pub command: fn() -> clap::Command,
}

/// Every subcommand, in the order `--help`, the man page and the
/// completions list them.
pub static SUBCOMMANDS: &[Subcommand] = &[
    Subcommand {
        name: "deal",
        summary: "cards",
        run: crate::deal::run,
        command: crate::deal::Args::command,
    },
    Subcommand {
        name: "chars",
        summary: "the characters of strings",
        run: crate::chars::run,
        command: crate::chars::Args::command,
    },
    Subcommand {
        name: "trace",
        summary: "a shuffle step by step",
        run: crate::trace::run,
        command: crate::trace::Args::command,
    },
    Subcommand {
        name: "lab",
        summary: "the bias lab",
        run: crate::lab::run,
        command: crate::lab::Args::command,
    },
    Subcommand {
        name: "audit",
        summary: "test another program's shuffles",
        run: crate::audit::run,
        command: crate::audit::Args::command,
    },
    Subcommand {
        name: "draw",
        summary: "a verifiable draw anyone can re-derive",
        run: crate::draw::run,
        command: crate::draw::Args::command,
    },
    Subcommand {
        name: "verify",
        summary: "check a draw's transcript",
        run: crate::verify::run,
        command: crate::verify::Args::command,
    },
    Subcommand {
        name: "sample",
        summary: "uniform, Bernoulli and weighted samples of records",
        run: crate::sample::run,
        command: || crate::sample::engine_rules(crate::sample::Args::command()),
    },
    Subcommand {
        name: "split",
        summary: "records into train/validation/test parts",
        run: crate::split::run,
        command: || crate::sample::engine_rules(crate::split::Args::command()),
    },
    Subcommand {
        name: "table",
        summary: "the rows of Parquet, Arrow, CSV and JSON Lines tables",
        run: crate::table::run,
        command: crate::table::Args::command,
    },
    Subcommand {
        name: "order",
        summary: "the row numbers of a training epoch's order",
        run: crate::order::run,
        command: crate::order::Args::command,
    },
];

/// The word that shows help (`knuffle help`, `knuffle help SUB`); it can
/// be mistyped like a subcommand's name.
pub const HELP: &str = "help";

/// The subcommand named `name`, if any.
pub fn find(name: &str) -> Option<&'static Subcommand> {
    SUBCOMMANDS.iter().find(|sub| sub.name == name)
}

/// Every name the first argument can take: the subcommands, then `help`.
pub fn names() -> impl Iterator<Item = &'static str> {
    SUBCOMMANDS
        .iter()
        .map(|sub| sub.name)
        .chain(std::iter::once(HELP))
}

/// The subcommand `first` was probably meant to be, when it names none,
/// is no existing file and is one edit away from one.
pub fn near_miss(first: &OsStr) -> Option<&'static str> {
    let text = first.to_str()?;
    if text.starts_with('-') || text.contains('/') || names().any(|name| name == text) {
        return None;
    }
    if Path::new(first).symlink_metadata().is_ok() {
        return None;
    }
    closest(text)
}

/// The name one edit from `text` (case ignored; three letters or more),
/// if any.
pub fn closest(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    if lower.chars().count() < 3 {
        return None;
    }
    names().find(|name| edit_distance(&lower, name) <= 1)
}

/// Optimal string alignment distance (Levenshtein plus adjacent
/// transpositions; Damerau 1964), over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    rows[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> Vec<&'static str> {
        SUBCOMMANDS.iter().map(|sub| sub.name).collect()
    }

    /// Adding a subcommand is one entry: dispatch, `help`, the near
    /// misses, the man page, the completions and the crate's description
    /// all list exactly the registry.
    #[test]
    fn everything_lists_exactly_the_registry() {
        // Dispatch and the clap definition: each entry finds itself, with
        // its own command.
        for sub in SUBCOMMANDS {
            assert!(std::ptr::eq(find(sub.name).unwrap(), sub));
            assert_eq!((sub.command)().get_name(), format!("knuffle {}", sub.name));
        }
        assert!(find(HELP).is_none());
        // Near misses: one letter added to any name suggests that name.
        for name in names() {
            assert_eq!(closest(&format!("{name}x")), Some(name));
        }
        // The man page and the completions.
        let defined: Vec<String> = crate::definition::command()
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .filter(|name| name != HELP)
            .collect();
        assert_eq!(defined, registry());
        let man = crate::generate::render(OsStr::new("man")).unwrap();
        let headings: Vec<String> = String::from_utf8(man)
            .unwrap()
            .lines()
            .filter_map(|line| {
                let rest = line.strip_prefix(".SH \"KNUFFLE ")?;
                Some(rest.strip_suffix(" OPTIONS\"")?.to_lowercase())
            })
            .collect();
        assert_eq!(headings, registry());
        // Each shell's list of subcommands is the registry's, then help.
        let listed = names().collect::<Vec<_>>().join(" ");
        for (shell, list) in [
            ("complete-bash", format!("--generate {listed}\"")),
            (
                "complete-fish",
                format!("__fish_seen_subcommand_from {listed}\""),
            ),
        ] {
            let script = crate::generate::render(OsStr::new(shell)).unwrap();
            let script = String::from_utf8(script).unwrap();
            assert!(script.contains(&list), "{shell} lists other subcommands");
        }
        let zsh = crate::generate::render(OsStr::new("complete-zsh")).unwrap();
        let zsh = String::from_utf8(zsh).unwrap();
        for name in names() {
            assert!(zsh.contains(&format!("\n'{name}:")), "zsh omits {name}");
        }
        // The crate's description names every face.
        let description = env!("CARGO_PKG_DESCRIPTION");
        for name in registry() {
            assert!(description.contains(name), "the description omits {name}");
        }
    }

    #[test]
    fn one_edit_from_a_name_is_a_near_miss() {
        for (typo, meant) in [
            ("dael", "deal"),
            ("dea", "deal"),
            ("deals", "deal"),
            ("Deal", "deal"),
            ("cahrs", "chars"),
            ("char", "chars"),
            ("trcae", "trace"),
            ("lba", "lab"),
            ("labs", "lab"),
            ("adit", "audit"),
            ("hepl", "help"),
        ] {
            assert_eq!(closest(typo), Some(meant), "{typo}");
        }
        for far in ["x", "data.txt", "dl", "ab", "shuffle", "", "deaal x"] {
            assert_eq!(closest(far), None, "{far}");
        }
    }

    #[test]
    fn options_paths_and_names_are_never_near_misses() {
        for arg in ["-dael", "./dael", "deal", "help", "dir/dael"] {
            assert_eq!(near_miss(OsStr::new(arg)), None, "{arg}");
        }
    }
}
