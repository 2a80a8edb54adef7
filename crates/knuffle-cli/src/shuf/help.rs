//! `--help` and `--version` texts.

use super::flags::{FLAGS, Flag, Opt};
use super::options::Personality;

/// The `--help` text for `program` (`argv[0]`, as GNU prints it).
pub fn help(program: &str, personality: Personality) -> String {
    match personality {
        Personality::Gnu => gnu_help(program),
        Personality::Knuffle => knuffle_help(program),
    }
}

/// Where an option's text starts in `--help` (GNU's column).
const DOC_COLUMN: usize = 28;
/// Where `--help` and `--version` texts start in GNU's help (glibc's
/// `HELP_OPTION_DESCRIPTION`).
const GNU_HELP_COLUMN: usize = 20;
/// The widest line of an option's text.
const LINE_WIDTH: usize = 80;
/// The width of the prose under the options.
const PROSE_WIDTH: usize = 76;

const USAGE_BODY: &str = "Write a random permutation of the input lines to standard output.\n\n\
     With no FILE, or when FILE is -, read standard input.\n\n\
     Mandatory arguments to long options are mandatory for short options too.\n";

/// GNU shuf 9.1's `--help`, byte for byte up to its footer (which points
/// at GNU's manual for these options instead of GNU's bug addresses).
fn gnu_help(program: &str) -> String {
    let mut text = format!(
        "Usage: {program} [OPTION]... [FILE]\n  or:  {program} -e [OPTION]... [ARG]...\n  \
         or:  {program} -i LO-HI [OPTION]...\n{USAGE_BODY}"
    );
    for flag in FLAGS.iter().filter(|f| f.gnu) {
        let column = match flag.opt {
            Opt::Help | Opt::Version => GNU_HELP_COLUMN,
            _ => DOC_COLUMN,
        };
        let doc = flag.gnu_doc.unwrap_or(flag.doc);
        text.push_str(&option_lines(flag, true, doc, column));
    }
    text.push_str(
        "\nknuffle, a reimplementation of GNU shuf; the options are documented in\n\
         <https://www.gnu.org/software/coreutils/shuf>\n",
    );
    text
}

/// knuffle's own `--help`: GNU's options, the extensions, the subcommands
/// and the rule that tells a subcommand from a FILE.
fn knuffle_help(program: &str) -> String {
    let names: Vec<&str> = crate::subcommands::names().collect();
    let mut text = format!(
        "Usage: {program} [OPTION]... [FILE]...\n  or:  {program} -e [OPTION]... [ARG]...\n  \
         or:  {program} -i LO-HI [OPTION]...\n  \
         or:  {program} SUBCOMMAND [OPTION]... ({})\n{USAGE_BODY}",
        names.join(", ")
    );
    for flag in FLAGS {
        text.push_str(&option_lines(flag, false, flag.doc, DOC_COLUMN));
    }
    text.push_str(
        "\nWithout --random-source or --seed, the generator is ChaCha20 seeded by the\n\
         operating system; every order of the lines is equally likely.\n\
         Several FILEs are shuffled together.\n\n",
    );
    text.push_str(&subcommands_paragraph(program));
    text.push_str(
        "Installed under the name 'shuf', this program behaves exactly like GNU shuf\n\
         (one FILE, no extensions, no subcommands).\n",
    );
    text
}

/// The subcommands of the registry with their summaries, and the rule that
/// tells a subcommand from a FILE (`subcommands.rs`).
fn subcommands_paragraph(program: &str) -> String {
    let listed: Vec<String> = crate::subcommands::SUBCOMMANDS
        .iter()
        .map(|sub| format!("{} ({})", sub.name, sub.summary))
        .collect();
    let mut text = wrap(
        &format!("Subcommands: {};", listed.join(", ")),
        PROSE_WIDTH,
        "",
    );
    text.push_str(&format!(
        "'{program} help SUBCOMMAND' or '{program} SUBCOMMAND --help' for each.\n"
    ));
    text.push_str(&wrap(
        "Only the first argument can name a subcommand. A first argument that would be read \
         as a FILE, is no existing file and is one letter off a subcommand's name (dael) is \
         an error (\"did you mean 'deal'?\", exit 2). To shuffle a file named like a \
         subcommand, write ./deal, or put options or -- first.",
        PROSE_WIDTH,
        "",
    ));
    text
}

/// One flag's lines: `  -n, --head-count=COUNT` and its text from
/// `column` on, wrapped; a name too long for the column has a line of its
/// own.
fn option_lines(flag: &Flag, gnu: bool, doc: &str, column: usize) -> String {
    let mut name = match flag.short_letter(gnu) {
        Some(letter) => format!("  -{}, --{}", char::from(letter), flag.long),
        None => format!("      --{}", flag.long),
    };
    if let Some(value) = flag.value {
        name.push('=');
        name.push_str(value);
    }
    let indent = " ".repeat(column);
    let doc = wrap(doc, LINE_WIDTH - column, &indent);
    if name.len() + 2 <= column {
        format!("{name:column$}{}", &doc[column..])
    } else {
        format!("{name}\n{doc}")
    }
}

/// `text` in lines of at most `width` characters (words are never
/// broken), each after `indent` and ending in a newline.
fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            out.push_str(indent);
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(indent);
    out.push_str(&line);
    out.push('\n');
    out
}

/// The `--version` text: under the name `shuf`, GNU's layout with
/// knuffle's own facts (name, version, licence, author of the original).
pub fn version(personality: Personality) -> String {
    let version = env!("CARGO_PKG_VERSION");
    match personality {
        Personality::Gnu => format!(
            "shuf (knuffle) {version}\n\
             License MIT OR Apache-2.0.\n\
             This is free software: you are free to change and redistribute it.\n\
             There is NO WARRANTY, to the extent permitted by law.\n\n\
             A reimplementation of shuf from GNU coreutils 9.1 (written by Paul Eggert).\n"
        ),
        Personality::Knuffle => format!(
            "knuffle {version}\nLicense MIT OR Apache-2.0.\nA GNU shuf compatible shuffler; not GNU software.\n"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::subcommands::{SUBCOMMANDS, names};

    #[test]
    fn knuffle_help_lists_every_flag_and_subcommand() {
        let text = help("knuffle", Personality::Knuffle);
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let usage = format!(
            "knuffle SUBCOMMAND [OPTION]... ({})\n",
            names().collect::<Vec<_>>().join(", ")
        );
        assert!(text.contains(&usage), "{text}");
        for sub in SUBCOMMANDS {
            assert!(
                words.contains(&format!("{} ({})", sub.name, sub.summary)),
                "{}",
                sub.name
            );
        }
        for flag in FLAGS {
            assert!(text.contains(&format!("--{}", flag.long)), "{}", flag.long);
        }
        // Every line but the usage lines fits in 80 columns.
        let long = text
            .lines()
            .find(|line| !line.starts_with("  or:") && line.len() > LINE_WIDTH);
        assert_eq!(long, None);
    }

    #[test]
    fn long_texts_and_long_names_are_laid_out_as_gnu_does() {
        let text = help("knuffle", Personality::Knuffle);
        let expected = "      --memory=SIZE         use at most SIZE of memory (512M, 4G, 10%; default\n\
             \x20                           3/4 of the available memory, within ulimit -v and\n\
             \x20                           the cgroup's limit); a larger input is shuffled\n\
             \x20                           through temporary files\n\
             \x20 -T, --temporary-directory=DIR\n\
             \x20                           put temporary files in DIR, not $TMPDIR or /tmp\n\
             \x20 -h, --help                display this help and exit\n\
             \x20     --version             output version information and exit\n";
        assert!(text.contains(expected), "{text}");
    }

    #[test]
    fn gnu_help_lists_gnus_flags_only() {
        let text = help("shuf", Personality::Gnu);
        for flag in FLAGS {
            assert_eq!(
                text.contains(&format!("--{}", flag.long)),
                flag.gnu,
                "{}",
                flag.long
            );
        }
        assert!(!text.contains("-h,") && !text.contains("SUBCOMMAND"));
    }
}
