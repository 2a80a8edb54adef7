//! A progress bar on stderr for long runs: bytes read, bytes written,
//! rate and ETA. It appears only when stderr is a terminal and the run has
//! lasted a second; otherwise nothing is ever printed.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run must last before the bar appears.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Progress of an external shuffle (a no-op when not shown).
pub struct Progress {
    bar: Option<ProgressBar>,
    read: Arc<AtomicU64>,
    written: Arc<AtomicU64>,
    started: Instant,
    shown: std::cell::Cell<bool>,
}

impl Progress {
    /// Progress for an input of `total` bytes (when known); drawn only if
    /// `wanted` and stderr is a terminal.
    pub fn new(wanted: bool, total: Option<u64>) -> Progress {
        let read = Arc::new(AtomicU64::new(0));
        let written = Arc::new(AtomicU64::new(0));
        let bar = (wanted && std::io::stderr().is_terminal()).then(|| {
            let (r, w) = (read.clone(), written.clone());
            let template = if total.is_some() {
                "{elapsed_precise} [{wide_bar}] read {read}, written {written} ({rate}, ETA {eta})"
            } else {
                "{elapsed_precise} read {read}, written {written} ({rate})"
            };
            let style = ProgressStyle::with_template(template)
                .expect("a valid progress template")
                .progress_chars("=> ")
                .with_key(
                    "read",
                    move |_: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
                        let _ = write!(out, "{}", HumanBytes(r.load(Ordering::Relaxed)));
                    },
                )
                .with_key(
                    "written",
                    move |_: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
                        let _ = write!(out, "{}", HumanBytes(w.load(Ordering::Relaxed)));
                    },
                )
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
                        let _ = write!(out, "{}/s", HumanBytes(state.per_sec() as u64));
                    },
                );
            // Reading and writing each move every byte once: 2 x total.
            ProgressBar::with_draw_target(total.map(|t| t * 2), ProgressDrawTarget::hidden())
                .with_style(style)
        });
        Progress {
            bar,
            read,
            written,
            started: Instant::now(),
            shown: std::cell::Cell::new(false),
        }
    }

    /// `bytes` more of the input were read.
    pub fn read(&self, bytes: u64) {
        self.read.fetch_add(bytes, Ordering::Relaxed);
        self.advance(bytes);
    }

    /// `bytes` more output were written.
    pub fn wrote(&self, bytes: u64) {
        self.written.fetch_add(bytes, Ordering::Relaxed);
        self.advance(bytes);
    }

    fn advance(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(bytes);
            if !self.shown.get() && self.started.elapsed() >= SHOW_AFTER {
                self.shown.set(true);
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
        }
    }

    /// Removes the bar (the run is over, successfully or not).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
