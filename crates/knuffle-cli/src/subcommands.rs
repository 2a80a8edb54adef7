//! Which first argument names a subcommand, and which looks like a
//! mistyped one.
//!
//! The rule (also in `--help` and the README): only the first argument can
//! name a subcommand, spelled exactly (`deal`, `chars`, `trace`, `lab`,
//! `audit`, `draw`, `verify`, `sample`, `split`, `help`). A first argument that shuf mode would open as a FILE
//! (so not with `-e`, `-i` or `-n 0`), that has no `/`, is not an existing
//! file, has three letters or more, and is one edit (a letter added,
//! dropped, changed, or two neighbours swapped; case ignored) from a
//! subcommand's name is a usage error that suggests the name (`knuffle
//! dael`: did you mean 'deal'?). Anything else is shuf mode's as usual:
//! `./deal`, `-- deal`, or an existing file `dael` are shuffled.

use std::ffi::OsStr;
use std::path::Path;

/// Every name the first argument can take (the subcommands and `help`).
pub const NAMES: &[&str] = &[
    "deal", "chars", "trace", "lab", "audit", "draw", "verify", "sample", "split", "help",
];

/// The subcommand `first` was probably meant to be, when it names none,
/// is no existing file and is one edit away from one.
pub fn near_miss(first: &OsStr) -> Option<&'static str> {
    let text = first.to_str()?;
    if text.starts_with('-') || text.contains('/') || NAMES.contains(&text) {
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
    NAMES
        .iter()
        .copied()
        .find(|name| edit_distance(&lower, name) <= 1)
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
