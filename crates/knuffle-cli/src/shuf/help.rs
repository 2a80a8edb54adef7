//! `--help` and `--version` texts.

use super::options::Personality;

/// The `--help` text for `program` (`argv[0]`, as GNU prints it).
pub fn help(program: &str, personality: Personality) -> String {
    let mut text = String::new();
    let file_operand = match personality {
        Personality::Gnu => "[FILE]",
        Personality::Knuffle => "[FILE]...",
    };
    text.push_str(&format!(
        "Usage: {program} [OPTION]... {file_operand}\n  or:  {program} -e [OPTION]... [ARG]...\n  or:  {program} -i LO-HI [OPTION]...\n"
    ));
    if personality == Personality::Knuffle {
        text.push_str(&format!(
            "  or:  {program} deal|chars|trace|lab|audit ...   (see '{program} SUBCOMMAND --help')\n"
        ));
    }
    text.push_str(
        "Write a random permutation of the input lines to standard output.\n\n\
         With no FILE, or when FILE is -, read standard input.\n\n\
         Mandatory arguments to long options are mandatory for short options too.\n\
         \x20 -e, --echo                treat each ARG as an input line\n\
         \x20 -i, --input-range=LO-HI   treat each number LO through HI as an input line\n\
         \x20 -n, --head-count=COUNT    output at most COUNT lines\n\
         \x20 -o, --output=FILE         write result to FILE instead of standard output\n\
         \x20     --random-source=FILE  get random bytes from FILE (output identical to GNU shuf)\n\
         \x20 -r, --repeat              output lines can be repeated\n\
         \x20 -z, --zero-terminated     line delimiter is NUL, not newline\n",
    );
    if personality == Personality::Knuffle {
        text.push_str(
            "\x20     --seed=TEXT           reproducible output: the same TEXT gives the same\n\
             \x20                           output (ChaCha20 keyed with SHA-256 of TEXT)\n\
             \x20     --header=N            keep the first N input lines in place at the top\n\
             \x20     --memory=SIZE         use at most SIZE of memory (512M, 4G, 10%; default\n\
             \x20                           3/4 of the available memory); a larger input is\n\
             \x20                           shuffled through temporary files\n\
             \x20 -T, --temporary-directory=DIR\n\
             \x20                           put temporary files in DIR, not $TMPDIR or /tmp\n",
        );
    }
    text.push_str(
        "\x20     --help                display this help and exit\n\
         \x20     --version             output version information and exit\n\n\
         Without --random-source or --seed, the generator is ChaCha20 seeded by the\n\
         operating system; every order of the lines is equally likely.\n",
    );
    if personality == Personality::Knuffle {
        text.push_str(
            "Several FILEs are shuffled together. Installed under the name 'shuf', this\n\
             program behaves exactly like GNU shuf (one FILE, no extensions).\n",
        );
    }
    text
}

/// The `--version` text.
pub fn version(personality: Personality) -> String {
    let name = match personality {
        Personality::Gnu => "shuf (knuffle)",
        Personality::Knuffle => "knuffle",
    };
    format!(
        "{name} {}\nLicense MIT OR Apache-2.0.\nA GNU shuf compatible shuffler; not GNU software.\n",
        env!("CARGO_PKG_VERSION")
    )
}
