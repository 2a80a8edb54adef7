//! The last line of defence against hostile input: a panic inside the
//! Arrow or Parquet crates while they read a file (they should reject some
//! corrupt inputs and panic instead: an index out of bounds, "offset + len
//! out of bounds") is caught where knuffle calls them and becomes an
//! invalid-data error naming the file. The checks before them
//! (`source`'s footer and metadata checks) are the first line; this one
//! only keeps a bug of theirs from being a crash of ours.
//!
//! Such a panic is not printed (the error says it): a panic hook installed
//! once stays silent on a thread inside [`contained`], and hands every
//! other panic to the hook that was there before.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Once;

use crate::error::Error;

thread_local! {
    /// Whether this thread is inside [`contained`].
    static CONTAINING: Cell<bool> = const { Cell::new(false) };
}

fn install_quiet_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CONTAINING.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Runs `read` (a call into a reader of `path`): its result, or an
/// invalid-data error if it panicked.
pub(crate) fn contained<T>(
    path: &Path,
    read: impl FnOnce() -> Result<T, Error>,
) -> Result<T, Error> {
    install_quiet_hook();
    let outer = CONTAINING.with(|c| c.replace(true));
    let result = catch_unwind(AssertUnwindSafe(read));
    CONTAINING.with(|c| c.set(outer));
    result.unwrap_or_else(|payload| {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Err(Error::invalid(format!(
            "{}: invalid or corrupt file (the reader failed: {text})",
            path.display()
        )))
    })
}

/// Batches of a reader of `path`, each read inside [`contained`]; after an
/// error, none.
pub(crate) struct Contained<I> {
    path: std::path::PathBuf,
    inner: Option<I>,
}

impl<I> Contained<I> {
    pub(crate) fn new(path: &Path, inner: I) -> Contained<I> {
        Contained {
            path: path.to_path_buf(),
            inner: Some(inner),
        }
    }
}

impl<T, I: Iterator<Item = Result<T, Error>>> Iterator for Contained<I> {
    type Item = Result<T, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let inner = self.inner.as_mut()?;
        let item = contained(&self.path, || Ok(inner.next())).transpose()?;
        let item = match item {
            Ok(inner_item) => inner_item,
            Err(e) => Err(e),
        };
        if item.is_err() {
            self.inner = None;
        }
        Some(item)
    }
}
