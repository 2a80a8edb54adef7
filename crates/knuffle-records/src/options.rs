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
    /// `-n COUNT`: write at most this many records (`None`: all; with
    /// `repeat`, `None` is without end).
    pub count: Option<u64>,
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
            count: None,
            repeat: false,
            memory: None,
            temp_dir: None,
            map_input: false,
        }
    }
}
