//! `--help` and `--version` texts.

use super::options::Personality;

/// The `--help` text for `program` (`argv[0]`, as GNU prints it).
pub fn help(program: &str, personality: Personality) -> String {
    match personality {
        Personality::Gnu => gnu_help(program),
        Personality::Knuffle => knuffle_help(program),
    }
}

/// GNU shuf 9.1's `--help`, byte for byte up to its footer (which points
/// at GNU's manual for these options instead of GNU's bug addresses).
fn gnu_help(program: &str) -> String {
    format!(
        "Usage: {program} [OPTION]... [FILE]\n  or:  {program} -e [OPTION]... [ARG]...\n  or:  {program} -i LO-HI [OPTION]...\n\
         Write a random permutation of the input lines to standard output.\n\n\
         With no FILE, or when FILE is -, read standard input.\n\n\
         Mandatory arguments to long options are mandatory for short options too.\n\
         \x20 -e, --echo                treat each ARG as an input line\n\
         \x20 -i, --input-range=LO-HI   treat each number LO through HI as an input line\n\
         \x20 -n, --head-count=COUNT    output at most COUNT lines\n\
         \x20 -o, --output=FILE         write result to FILE instead of standard output\n\
         \x20     --random-source=FILE  get random bytes from FILE\n\
         \x20 -r, --repeat              output lines can be repeated\n\
         \x20 -z, --zero-terminated     line delimiter is NUL, not newline\n\
         \x20     --help        display this help and exit\n\
         \x20     --version     output version information and exit\n\n\
         knuffle, a reimplementation of GNU shuf; the options are documented in\n\
         <https://www.gnu.org/software/coreutils/shuf>\n"
    )
}

/// knuffle's own `--help`: GNU's options, the extensions, the subcommands
/// and the rule that tells a subcommand from a FILE.
fn knuffle_help(program: &str) -> String {
    format!(
        "Usage: {program} [OPTION]... [FILE]...\n  or:  {program} -e [OPTION]... [ARG]...\n  or:  {program} -i LO-HI [OPTION]...\n  \
         or:  {program} SUBCOMMAND [OPTION]... (deal, chars, trace, lab, audit, draw, verify, sample, split, help)\n\
         Write a random permutation of the input lines to standard output.\n\n\
         With no FILE, or when FILE is -, read standard input.\n\n\
         Mandatory arguments to long options are mandatory for short options too.\n\
         \x20 -e, --echo                treat each ARG as an input line\n\
         \x20 -i, --input-range=LO-HI   treat each number LO through HI as an input line\n\
         \x20 -n, --head-count=COUNT    output at most COUNT lines\n\
         \x20 -o, --output=FILE         write result to FILE instead of standard output\n\
         \x20     --random-source=FILE  get random bytes from FILE (the output is then\n\
         \x20                           identical to GNU shuf's)\n\
         \x20 -r, --repeat              output lines can be repeated\n\
         \x20 -z, --zero-terminated     line delimiter is NUL, not newline\n\
         \x20     --seed=TEXT           reproducible output: the same TEXT gives the same\n\
         \x20                           output (ChaCha20 keyed with SHA-256 of TEXT)\n\
         \x20     --header=N            keep the first N input lines in place at the top\n\
         \x20     --memory=SIZE         use at most SIZE of memory (512M, 4G, 10%; default\n\
         \x20                           3/4 of the available memory, within ulimit -v and\n\
         \x20                           the cgroup's limit); a larger input is shuffled\n\
         \x20                           through temporary files\n\
         \x20 -T, --temporary-directory=DIR\n\
         \x20                           put temporary files in DIR, not $TMPDIR or /tmp\n\
         \x20 -h, --help                display this help and exit\n\
         \x20     --version             output version information and exit\n\
         \x20     --generate=KIND       print the man page (man) or a shell completion\n\
         \x20                           script (complete-bash, complete-zsh, complete-fish)\n\n\
         Without --random-source or --seed, the generator is ChaCha20 seeded by the\n\
         operating system; every order of the lines is equally likely.\n\
         Several FILEs are shuffled together.\n\n\
         Subcommands: deal (cards), chars (the characters of strings), trace (a\n\
         shuffle step by step), lab (the bias lab), audit (test another program's\n\
         shuffles), sample (uniform, Bernoulli and weighted samples of records),\n\
         split (records into train/validation/test parts);\n\
         '{program} help SUBCOMMAND' or '{program} SUBCOMMAND --help' for each.\n\
         Only the first argument can name a subcommand. A first argument that names\n\
         none but is one letter off (dael), would be read as a FILE and is no\n\
         existing file is an error (\"did you mean 'deal'?\", exit 2). To shuffle a\n\
         file named like a subcommand, write ./deal, or put options or -- first.\n\
         Installed under the name 'shuf', this program behaves exactly like GNU shuf\n\
         (one FILE, no extensions, no subcommands).\n"
    )
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
