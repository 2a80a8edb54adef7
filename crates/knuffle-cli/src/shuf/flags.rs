//! The one table of shuf mode's flags ([`FLAGS`]), as ripgrep's `defs.rs`
//! is for its flags: the GNU-exact parser (`options.rs`), `--help`
//! (`help.rs`) and the man page and completions (`crate::definition`) are
//! all read from it, so they cannot disagree.
//!
//! To add a flag: add a row here (its place is its place in `--help`, the
//! man page and glibc's "possibilities" list), a variant to [`Opt`], and
//! what it does to `options::apply`. A row with `gnu: false` is a knuffle
//! extension: unavailable under the name `shuf`, and a prefix selects it
//! only when it matches no GNU flag, so every GNU command line keeps its
//! meaning (`--head` is still `--head-count`, not `--header`).

/// Identifies a flag independently of how it was spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    Echo,
    InputRange,
    HeadCount,
    Output,
    RandomSource,
    Repeat,
    ZeroTerminated,
    Help,
    Version,
    Seed,
    Header,
    Memory,
    TempDir,
    Generate,
}

/// A flag's one-letter form, and whether GNU shuf has it too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Short {
    /// No short form.
    None,
    /// A short form GNU shuf has (its optstring `ei:n:o:rz`).
    Gnu(u8),
    /// A short form of knuffle only (refused under the name `shuf`).
    Knuffle(u8),
}

/// What a completion script offers for a flag's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Complete {
    /// Nothing in particular (a flag without a value, a number, text).
    Nothing,
    /// A file name.
    File,
    /// A directory name.
    Dir,
    /// One of these words.
    OneOf(&'static [&'static str]),
}

/// One flag of shuf mode.
#[derive(Debug)]
pub struct Flag {
    /// The long name, without `--`.
    pub long: &'static str,
    /// The short form.
    pub short: Short,
    /// The value's name in the help (`COUNT`), when the flag takes one.
    pub value: Option<&'static str>,
    /// Whether GNU shuf has the long form.
    pub gnu: bool,
    /// Which flag it is, for the parser.
    pub opt: Opt,
    /// knuffle's `--help` text (wrapped there), starting lower case.
    pub doc: &'static str,
    /// GNU shuf's `--help` text, when it differs from [`Flag::doc`].
    pub gnu_doc: Option<&'static str>,
    /// What completions offer for the value.
    pub complete: Complete,
}

impl Flag {
    /// The short letter offered under the name `shuf` (`gnu`) or
    /// `knuffle`.
    pub fn short_letter(&self, gnu: bool) -> Option<u8> {
        match self.short {
            Short::Gnu(letter) => Some(letter),
            Short::Knuffle(letter) if !gnu => Some(letter),
            _ => None,
        }
    }

    /// Whether the flag takes a value.
    pub fn takes_value(&self) -> bool {
        self.value.is_some()
    }
}

/// What `--generate` can print (the man page and the completions).
pub const GENERATE_KINDS: &[&str] = &["man", "complete-bash", "complete-zsh", "complete-fish"];

/// Every flag of shuf mode, in `--help` order. GNU's flags keep GNU's
/// relative order (glibc lists ambiguous prefixes in it), as do the
/// extensions.
pub const FLAGS: &[Flag] = &[
    Flag {
        long: "echo",
        short: Short::Gnu(b'e'),
        value: None,
        gnu: true,
        opt: Opt::Echo,
        doc: "treat each ARG as an input line",
        gnu_doc: None,
        complete: Complete::Nothing,
    },
    Flag {
        long: "input-range",
        short: Short::Gnu(b'i'),
        value: Some("LO-HI"),
        gnu: true,
        opt: Opt::InputRange,
        doc: "treat each number LO through HI as an input line",
        gnu_doc: None,
        complete: Complete::Nothing,
    },
    Flag {
        long: "head-count",
        short: Short::Gnu(b'n'),
        value: Some("COUNT"),
        gnu: true,
        opt: Opt::HeadCount,
        doc: "output at most COUNT lines",
        gnu_doc: None,
        complete: Complete::Nothing,
    },
    Flag {
        long: "output",
        short: Short::Gnu(b'o'),
        value: Some("FILE"),
        gnu: true,
        opt: Opt::Output,
        doc: "write result to FILE instead of standard output",
        gnu_doc: None,
        complete: Complete::File,
    },
    Flag {
        long: "random-source",
        short: Short::None,
        value: Some("FILE"),
        gnu: true,
        opt: Opt::RandomSource,
        doc: "get random bytes from FILE (the output is then identical to GNU shuf's)",
        gnu_doc: Some("get random bytes from FILE"),
        complete: Complete::File,
    },
    Flag {
        long: "repeat",
        short: Short::Gnu(b'r'),
        value: None,
        gnu: true,
        opt: Opt::Repeat,
        doc: "output lines can be repeated",
        gnu_doc: None,
        complete: Complete::Nothing,
    },
    Flag {
        long: "zero-terminated",
        short: Short::Gnu(b'z'),
        value: None,
        gnu: true,
        opt: Opt::ZeroTerminated,
        doc: "line delimiter is NUL, not newline",
        gnu_doc: None,
        complete: Complete::Nothing,
    },
    Flag {
        long: "seed",
        short: Short::None,
        value: Some("TEXT"),
        gnu: false,
        opt: Opt::Seed,
        doc: "reproducible output: the same TEXT gives the same output \
              (ChaCha20 keyed with SHA-256 of TEXT)",
        gnu_doc: None,
        complete: Complete::Nothing,
    },
    Flag {
        long: "header",
        short: Short::None,
        value: Some("N"),
        gnu: false,
        opt: Opt::Header,
        doc: "keep the first N input lines in place at the top",
        gnu_doc: None,
        complete: Complete::Nothing,
    },
    Flag {
        long: "memory",
        short: Short::None,
        value: Some("SIZE"),
        gnu: false,
        opt: Opt::Memory,
        doc: "use at most SIZE of memory (512M, 4G, 10%; default 3/4 of the available \
              memory, within ulimit -v and the cgroup's limit); a larger input is \
              shuffled through temporary files",
        gnu_doc: None,
        complete: Complete::Nothing,
    },
    Flag {
        long: "temporary-directory",
        short: Short::Knuffle(b'T'),
        value: Some("DIR"),
        gnu: false,
        opt: Opt::TempDir,
        doc: "put temporary files in DIR, not $TMPDIR or /tmp",
        gnu_doc: None,
        complete: Complete::Dir,
    },
    Flag {
        long: "help",
        short: Short::Knuffle(b'h'),
        value: None,
        gnu: true,
        opt: Opt::Help,
        doc: "display this help and exit",
        gnu_doc: None,
        complete: Complete::Nothing,
    },
    Flag {
        long: "version",
        short: Short::None,
        value: None,
        gnu: true,
        opt: Opt::Version,
        doc: "output version information and exit",
        gnu_doc: None,
        complete: Complete::Nothing,
    },
    Flag {
        long: "generate",
        short: Short::None,
        value: Some("KIND"),
        gnu: false,
        opt: Opt::Generate,
        doc: "print the man page (man) or a shell completion script \
              (complete-bash, complete-zsh, complete-fish)",
        gnu_doc: None,
        complete: Complete::OneOf(GENERATE_KINDS),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_letters_and_opts_are_unique() {
        for (i, a) in FLAGS.iter().enumerate() {
            for b in &FLAGS[i + 1..] {
                assert_ne!(a.long, b.long);
                assert_ne!(a.opt, b.opt);
                assert!(a.short == Short::None || a.short != b.short, "{}", a.long);
            }
        }
    }

    #[test]
    fn gnu_has_its_optstring_and_long_options() {
        let optstring: String = FLAGS
            .iter()
            .filter_map(|f| {
                let letter = char::from(f.short_letter(true)?);
                Some(if f.takes_value() {
                    format!("{letter}:")
                } else {
                    letter.to_string()
                })
            })
            .collect();
        assert_eq!(optstring, "ei:n:o:rz");
        let gnu: Vec<&str> = FLAGS.iter().filter(|f| f.gnu).map(|f| f.long).collect();
        assert_eq!(
            gnu,
            [
                "echo",
                "input-range",
                "head-count",
                "output",
                "random-source",
                "repeat",
                "zero-terminated",
                "help",
                "version"
            ]
        );
    }
}
