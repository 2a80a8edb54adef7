//! The files knuffle reads and writes, below every engine: the one rule
//! for files knuffle writes ([`write_file`], [`write_new_file`],
//! [`check_writable`], [`WrittenFile`], [`NewFile`]), memory sizes and the
//! default memory limit ([`parse_size`], [`default_limit`],
//! [`MIN_LIMIT`]), temporary files ([`temp`]), gzip and zstd files read
//! by content and written by name ([`compressed`]), whether two output
//! names are one file ([`OutputFile`]), the record
//! delimiter scanner that the record shuffle and the sampling engine share
//! ([`scan`]), and the process-wide settings that only the programs apply
//! (the open-file limit, the allocator's: [`process`]).
//!
//! # Layers
//!
//! Workspace layer 1 (cli/python -> table -> records/sample/lab/draw ->
//! stats/io -> library): this crate uses no other crate of the workspace.
//!
//! Each module uses only modules of the layers below it (checked: no
//! module imports one that imports it back).
//!
//! 1. `error` (the failures carried up, and [`describe`]: an I/O error as
//!    coreutils word it), `scan`, `memory`, `compressed`, `same_file`,
//!    `process`.
//! 2. `temp` (the temporary directory, nameless files in it) and
//!    `written_file` (the rule: replaced atomically, devices and FIFOs
//!    written in place, a missing directory named, never created).

#![warn(missing_docs)]

pub mod compressed;
mod error;
mod memory;
pub mod process;
mod same_file;
pub mod scan;
pub mod temp;
mod written_file;

pub use error::{FileError, TempError, describe};
pub use memory::{LimitError, MIN_LIMIT, check_limit, default_limit, parse_limit, parse_size};
pub use same_file::OutputFile;
/// Writing a file by knuffle's one rule: a regular file (or a symlink's
/// target) replaced atomically, a device or FIFO written in place, a
/// missing directory named in the error, never created.
pub use written_file::{
    NewFile, Replacement, WrittenFile, check_writable, probe, write_file, write_new_file,
};
