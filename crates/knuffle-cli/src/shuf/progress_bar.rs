//! A progress bar on stderr for long runs: bytes read, bytes written,
//! rate and ETA. It appears only when stderr is a terminal and the run has
//! lasted a second; otherwise nothing is ever printed. It draws what the
//! record library reports ([`knuffle_records::Progress`]).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run must last before the bar appears.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Progress of a shuffle (a no-op when not shown).
pub struct Progress<'a> {
    bar: OnceLock<Option<ProgressBar>>,
    read: Arc<AtomicU64>,
    written: Arc<AtomicU64>,
    started: Instant,
    shown: AtomicBool,
    /// Told how many lines are permuted (the seed warning).
    notice: Box<dyn Fn(u64) + Sync + 'a>,
}

impl<'a> Progress<'a> {
    /// Progress drawn only when stderr is a terminal; `notice` is told how
    /// many lines are about to be permuted.
    pub fn new(notice: Box<dyn Fn(u64) + Sync + 'a>) -> Progress<'a> {
        Progress {
            bar: OnceLock::new(),
            read: Arc::new(AtomicU64::new(0)),
            written: Arc::new(AtomicU64::new(0)),
            started: Instant::now(),
            shown: AtomicBool::new(false),
            notice,
        }
    }

    /// The bar for an input of `total` bytes (when known), or none when
    /// stderr is not a terminal.
    fn make_bar(&self, total: Option<u64>) -> Option<ProgressBar> {
        std::io::stderr().is_terminal().then(|| {
            let (r, w) = (self.read.clone(), self.written.clone());
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
        })
    }

    fn advance(&self, bytes: u64) {
        if let Some(Some(bar)) = self.bar.get() {
            bar.inc(bytes);
            if !self.shown.load(Ordering::Relaxed) && self.started.elapsed() >= SHOW_AFTER {
                self.shown.store(true, Ordering::Relaxed);
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
        }
    }
}

impl knuffle_records::Progress for Progress<'_> {
    fn start(&self, total: Option<u64>) {
        let _ = self.bar.set(self.make_bar(total));
    }

    fn read(&self, bytes: u64) {
        self.read.fetch_add(bytes, Ordering::Relaxed);
        self.advance(bytes);
    }

    fn wrote(&self, bytes: u64) {
        self.written.fetch_add(bytes, Ordering::Relaxed);
        self.advance(bytes);
    }

    fn permuting(&self, records: u64) {
        (self.notice)(records);
    }

    /// Removes the bar (the run is over, successfully or not).
    fn finish(&self) {
        if let Some(Some(bar)) = self.bar.get() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress<'_> {
    fn drop(&mut self) {
        knuffle_records::Progress::finish(self);
    }
}
