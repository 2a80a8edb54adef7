//! Temporary space: which directory (`-T DIR`, `$TMPDIR`, `/tmp`), and
//! nameless files made in it (the external shuffle's bucket files).
//!
//! Every file is created already unlinked (`O_TMPFILE` where the
//! file system supports it, else created and removed at once, through
//! `tempfile::tempfile_in`), so it has no name from the start: when the
//! process ends for any reason (normal exit, error, SIGINT, SIGTERM,
//! SIGKILL, a crash) the kernel frees the space and nothing is left behind.

use std::env;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::TempError;

/// The directory for temporary files: `-T DIR` when given, else
/// `$TMPDIR` when set and not empty, else `/tmp` (like `sort`).
pub fn temp_dir(option: Option<&Path>) -> PathBuf {
    if let Some(dir) = option {
        return dir.to_path_buf();
    }
    match env::var_os("TMPDIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from("/tmp"),
    }
}

/// A directory in which nameless temporary files are made.
#[derive(Debug)]
pub struct TempSpace {
    dir: PathBuf,
}

impl TempSpace {
    /// Temporary space in `dir`, checked now so that a wrong `-T` fails
    /// before any work is done.
    pub fn new(dir: PathBuf) -> Result<TempSpace, TempError> {
        let space = TempSpace { dir };
        drop(space.file()?);
        Ok(space)
    }

    /// A new, already unlinked, read-write file.
    pub fn file(&self) -> Result<File, TempError> {
        tempfile::tempfile_in(&self.dir).map_err(|e| self.error(e))
    }

    /// An error about this temporary space.
    pub fn error(&self, error: io::Error) -> TempError {
        TempError {
            dir: self.dir.clone(),
            error,
        }
    }
}
