//! Where each random word went in one run of a zoo algorithm: which draw,
//! which bound, whether it was rejected, which swap it led to.
//!
//! [`record`] runs an algorithm of the [zoo](crate::zoo) with a generator
//! wrapper that logs every 64-bit word and an [`Observer`] that logs every
//! draw, swap and note. Each drawn value is then explained by Lemire's
//! multiplication, `(number × bound) >> 64`, where the number is a fresh
//! word or the low half left by the previous draw (batched draws serve
//! several small bounds from one word); the explanation is recomputed from
//! the logged words and kept only when it reproduces the value the
//! algorithm drew. `knuffle trace` renders a [`Trace`] as a table.

use std::cell::RefCell;
use std::convert::Infallible;

use rand_core::{Rng, TryRng};

use crate::observer::Observer;
use crate::zoo::Algorithm;

/// Where the number behind an offset came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A fresh 64-bit word from the generator.
    Word,
    /// The low half left by the previous multiplication (same word).
    Low,
}

/// One bounded draw: `value` in `0..bound`, and when the recorded words
/// reproduce it, the number it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Draw {
    /// The bound: `value` is uniform in `0..bound`.
    pub bound: u64,
    /// The value the algorithm drew.
    pub value: u64,
    /// The 64-bit number `x` with `value == (x × bound) >> 64`, and where it
    /// came from; `None` when the recorded words do not reproduce `value`
    /// (then nothing is claimed).
    pub number: Option<(u64, Source)>,
    /// The words drawn and rejected before the accepted one (Lemire's test:
    /// the low half fell in the biased zone), in order; `None` for output
    /// of the generator that was not a 64-bit word.
    pub rejected: Vec<Option<u64>>,
}

/// One row of the table: a draw and the swaps it led to, or a swap alone,
/// or notes alone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    /// The bounded draw of this step, if any.
    pub draw: Option<Draw>,
    /// The swaps it led to (positions; `i == j` is a self-swap).
    pub swaps: Vec<(usize, usize)>,
    /// The algorithm's notes (e.g. "already used, redraw").
    pub notes: Vec<String>,
    /// The order after the step, as indices of the items; `None` for a
    /// note-only row.
    pub after: Option<Vec<usize>>,
}

/// A recorded run: the steps and the final order (as indices of the items).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Every step, in order.
    pub steps: Vec<Step>,
    /// The final order, as indices of the items.
    pub result: Vec<usize>,
    /// How many outputs the generator gave (64-bit words and other calls).
    pub words: usize,
}

/// What the generator handed out since the last event: `Some(word)` for a
/// 64-bit word, `None` for anything else (which disables derivations).
type WordLog = RefCell<Vec<Option<u64>>>;

/// The generator, with every output written to a log.
struct Recording<'a, R> {
    inner: R,
    log: &'a WordLog,
    count: &'a RefCell<usize>,
}

impl<R: Rng> TryRng for Recording<'_, R> {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.log.borrow_mut().push(None);
        *self.count.borrow_mut() += 1;
        Ok(self.inner.next_u32())
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let word = self.inner.next_u64();
        self.log.borrow_mut().push(Some(word));
        *self.count.borrow_mut() += 1;
        Ok(word)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.log.borrow_mut().push(None);
        *self.count.borrow_mut() += 1;
        self.inner.fill_bytes(dst);
        Ok(())
    }
}

/// The observer that turns a run into [`Step`]s.
struct Recorder<'a> {
    log: &'a WordLog,
    current: Vec<usize>,
    steps: Vec<Step>,
    /// The low half left by the last derived multiplication.
    low: Option<u64>,
}

impl Recorder<'_> {
    /// Explains `value` from the words drawn since the last event.
    /// Lemire's step `(x × bound) >> 64` (D. Lemire, ACM TOMACS 2019),
    /// where `x` is the accepted word or, in a batch (Brackett-Rozinsky &
    /// Lemire 2024), the low half left by the previous draw. Returns the
    /// number (when it reproduces `value`) and the rejected words.
    fn derive(&mut self, bound: u64, value: u64) -> (Option<(u64, Source)>, Vec<Option<u64>>) {
        let pending: Vec<Option<u64>> = self.log.borrow_mut().drain(..).collect();
        let (number, source, rejected) = match pending.split_last() {
            Some((&Some(word), rejected)) => (word, Source::Word, rejected.to_vec()),
            Some((None, _)) => {
                self.low = None;
                return (None, Vec::new());
            }
            None => match self.low {
                Some(low) => (low, Source::Low, Vec::new()),
                None => return (None, Vec::new()),
            },
        };
        let wide = u128::from(number) * u128::from(bound);
        if (wide >> 64) as u64 == value {
            self.low = Some(wide as u64);
            (Some((number, source)), rejected)
        } else {
            self.low = None;
            (None, rejected)
        }
    }
}

impl Observer for Recorder<'_> {
    fn draw(&mut self, bound: u64, value: u64) {
        let (number, rejected) = self.derive(bound, value);
        self.steps.push(Step {
            draw: Some(Draw {
                bound,
                value,
                number,
                rejected,
            }),
            swaps: Vec::new(),
            notes: Vec::new(),
            after: Some(self.current.clone()),
        });
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.current.swap(i, j);
        match self.steps.last_mut() {
            Some(step) if step.draw.is_some() => {
                step.swaps.push((i, j));
                step.after = Some(self.current.clone());
            }
            _ => self.steps.push(Step {
                draw: None,
                swaps: vec![(i, j)],
                notes: Vec::new(),
                after: Some(self.current.clone()),
            }),
        }
    }

    fn note(&mut self, text: &str) {
        // Words drawn for something other than a bounded draw (a sort key)
        // are described by the note itself.
        let unexplained = self.log.borrow_mut().drain(..).count() > 0;
        if unexplained {
            self.low = None;
        }
        match self.steps.last_mut() {
            Some(step) if step.draw.is_some() && !unexplained => step.notes.push(text.to_owned()),
            _ => self.steps.push(Step {
                notes: vec![text.to_owned()],
                ..Step::default()
            }),
        }
    }
}

/// Runs `algorithm` on the items `0..n` with `rng`, recording every step:
/// each draw with the word it came from (fresh or the low half of the
/// previous one), the rejected words before it, its swaps and notes.
///
/// # Example
/// ```
/// use knuffle_lab::steps::{Source, record};
/// use knuffle_lab::zoo::Algorithm;
/// let trace = record(Algorithm::FisherYates, 8, knuffle::Seed::from_text("golden").rng());
/// assert_eq!(trace.steps.len(), 7);
/// let first = trace.steps[0].draw.as_ref().unwrap();
/// let (word, source) = first.number.unwrap();
/// assert_eq!(source, Source::Word);
/// assert_eq!(((u128::from(word) * 8) >> 64) as u64, first.value);
/// assert_eq!(trace.steps[0].swaps, [(7, first.value as usize)]);
/// // Word for word the library's shuffle.
/// let mut expected: Vec<usize> = (0..8).collect();
/// knuffle::shuffle(&mut expected, &mut knuffle::Seed::from_text("golden").rng());
/// assert_eq!(trace.result, expected);
/// ```
pub fn record<R: Rng>(algorithm: Algorithm, n: usize, rng: R) -> Trace {
    let log = WordLog::default();
    let count = RefCell::new(0);
    let mut recording = Recording {
        inner: rng,
        log: &log,
        count: &count,
    };
    let mut recorder = Recorder {
        log: &log,
        current: (0..n).collect(),
        steps: Vec::new(),
        low: None,
    };
    let mut items: Vec<usize> = (0..n).collect();
    algorithm.run(&mut items, &mut recording, &mut recorder);
    debug_assert_eq!(items, recorder.current, "the observer saw every change");
    let words = *count.borrow();
    Trace {
        steps: recorder.steps,
        result: items,
        words,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fisher_yates_trace_ends_in_the_library_shuffle_and_explains_every_offset() {
        for n in [2usize, 8, 52] {
            let mut rng = knuffle::Seed::from_text("trace test").rng();
            let trace = record(Algorithm::FisherYates, n, &mut rng);
            let mut expected: Vec<usize> = (0..n).collect();
            knuffle::shuffle(
                &mut expected,
                &mut knuffle::Seed::from_text("trace test").rng(),
            );
            assert_eq!(trace.result, expected);
            assert_eq!(trace.steps.len(), n - 1);
            assert!(
                trace
                    .steps
                    .iter()
                    .all(|s| s.draw.as_ref().is_some_and(|d| d.number.is_some()))
            );
        }
    }

    #[test]
    fn rejected_words_become_notes_and_the_accepted_word_explains_the_offset() {
        let log = WordLog::default();
        let mut recorder = Recorder {
            log: &log,
            current: vec![0, 1, 2],
            steps: Vec::new(),
            low: None,
        };
        let accepted = 0x9e37_79b9_7f4a_7c15u64;
        let value = ((u128::from(accepted) * 3) >> 64) as u64;
        log.borrow_mut().extend([Some(1), Some(accepted)]);
        recorder.draw(3, value);
        let step = &recorder.steps[0];
        assert_eq!(
            step.draw.as_ref().unwrap().number,
            Some((accepted, Source::Word))
        );
        assert_eq!(step.draw.as_ref().unwrap().rejected, [Some(1)]);
        assert!(step.notes.is_empty());
        // The next draw without a new word continues from the low half.
        let low = (u128::from(accepted) * 3) as u64;
        let next = ((u128::from(low) * 2) >> 64) as u64;
        recorder.draw(2, next);
        assert_eq!(
            recorder.steps[1].draw.as_ref().unwrap().number,
            Some((low, Source::Low))
        );
        // A value the words cannot explain is shown without a derivation.
        log.borrow_mut().push(Some(u64::MAX));
        recorder.draw(5, 0); // (2^64 - 1) × 5 >> 64 is 4, not 0
        assert_eq!(recorder.steps[2].draw.as_ref().unwrap().number, None);
        assert_eq!(recorder.low, None);
    }

    #[test]
    fn naive_swap_draws_one_word_per_step() {
        let mut rng = knuffle::Seed::from_text("naive").rng();
        let trace = record(Algorithm::NaiveSwap, 6, &mut rng);
        assert_eq!(trace.steps.len(), 6);
        for step in &trace.steps {
            let draw = step.draw.as_ref().unwrap();
            assert_eq!(draw.bound, 6);
            assert!(matches!(draw.number, Some((_, Source::Word))));
        }
    }
}
