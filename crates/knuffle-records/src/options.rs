//! The options of a record shuffle (the command line's `-z`, `--header`,
//! `-n`, `-r`, `--memory`, `-T`).

use std::path::PathBuf;

/// How records are shuffled. `Options::default()` is `knuffle` with no
/// option: newline-delimited, every record, no header, the default memory
/// limit, `$TMPDIR` or `/tmp`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The record delimiter: `b'\n'`, or `0` for `-z`.
    pub delimiter: u8,
    /// `--header N`: the first N records of the first input are written
    /// first, in place.
    pub header: u64,
    /// `-n COUNT`: how many records to write at most ([`HeadCount::All`]:
    /// every one; with `repeat`, without end).
    pub count: HeadCount,
    /// `-r`: draw records with replacement (kept in memory, as GNU does).
    pub repeat: bool,
    /// `--memory SIZE`: the memory limit in bytes; larger inputs are
    /// shuffled through temporary files. `None`: [`default_limit`](knuffle_io::default_limit).
    pub memory: Option<u64>,
    /// `-T DIR`: where temporary files go (`None`: `$TMPDIR`, else `/tmp`).
    pub temp_dir: Option<PathBuf>,
    /// Read a single regular input file held in memory through a map of
    /// the page cache's own pages instead of a private copy: no copy and
    /// no fresh memory to clear, so faster (figures in BENCHMARKS.md). A
    /// file that shrinks while mapped (or a read error on it) raises
    /// `SIGBUS` on a read past its new end, which kills the process unless
    /// it handles the signal: set this only in a program that reports
    /// `SIGBUS` (the command line does;
    /// [`in_mapped_input`](crate::in_mapped_input) tells such a
    /// fault from others). A shrink within the last page raises nothing
    /// (the rest of the page reads as zeros): the shuffle then ends with
    /// [`Error::InputShrank`](crate::Error::InputShrank) before the output
    /// is completed. Never used when the output could overwrite the input
    /// (nor with a caller's writer, which could be the input).
    pub map_input: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            delimiter: b'\n',
            header: 0,
            count: HeadCount::All,
            repeat: false,
            memory: None,
            temp_dir: None,
            map_input: false,
        }
    }
}

impl Options {
    /// Whether the output has no end: `-r` without `-n`.
    pub fn endless(&self) -> bool {
        self.repeat && self.count == HeadCount::All
    }

    /// Why `memory` does not apply, if it does not: the whole input is
    /// read into memory as GNU shuf does, with `-r`, and with a GNU random
    /// source (`gnu_source`) without `-n` (the option that caused it);
    /// never with `-n 0`, which reads nothing.
    pub fn memory_ignored_because(&self, gnu_source: bool) -> Option<&'static str> {
        if self.count == HeadCount::AtMost(0) {
            None // nothing is read
        } else if self.repeat {
            Some("-r")
        } else if gnu_source && self.count == HeadCount::All {
            Some("--random-source")
        } else {
            None
        }
    }
}

/// `-n COUNT`, one type from the command line to the plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HeadCount {
    /// No `-n`: every record (with `-r`, draws without end).
    #[default]
    All,
    /// At most this many records (below `u64::MAX`).
    AtMost(u64),
}

impl HeadCount {
    /// At most `count` records; `u64::MAX` is no limit, as GNU's
    /// `SIZE_MAX` is.
    pub fn at_most(count: u64) -> HeadCount {
        if count == u64::MAX {
            HeadCount::All
        } else {
            HeadCount::AtMost(count)
        }
    }

    /// `-n` given again: the smaller count holds (GNU's rule).
    pub fn and(self, count: u64) -> HeadCount {
        match self {
            HeadCount::All => HeadCount::at_most(count),
            HeadCount::AtMost(held) => HeadCount::AtMost(held.min(count)),
        }
    }

    /// The count, if there is one.
    pub fn get(self) -> Option<u64> {
        match self {
            HeadCount::All => None,
            HeadCount::AtMost(count) => Some(count),
        }
    }

    /// The count as the engine's primitives take it: `u64::MAX` for
    /// every record.
    pub fn limit(self) -> u64 {
        self.get().unwrap_or(u64::MAX)
    }
}

impl From<Option<u64>> for HeadCount {
    fn from(count: Option<u64>) -> HeadCount {
        count.map_or(HeadCount::All, HeadCount::at_most)
    }
}
