//! The experiment of the .NET harness ("Shuffle things in .Net", 2009),
//! done properly: shuffle `n` items many times with
//! each algorithm, count the orders, test, and tabulate.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::analysis::{self, Analysis, format_p};
use crate::sample;
use crate::tally::Tally;
use crate::zoo::{Algorithm, Fairness};

/// The default seed text of `knuffle lab` (results are reproducible).
pub const DEFAULT_SEED: &str = "knuffle-lab";
/// Shuffles per algorithm by default (the ten million of the .NET harness, "Shuffle things in .Net", 2009).
pub const DEFAULT_TRIALS: u64 = 10_000_000;
/// Items per shuffle by default (the .NET harness's four cards).
pub const DEFAULT_N: usize = 4;

/// One algorithm's run.
#[derive(Clone, Debug)]
pub struct LabRun {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Seed text.
    pub seed: String,
    /// Wall time of the sampling (both cores).
    pub elapsed: Duration,
    /// The counts.
    pub tally: Tally,
    /// Tests and verdict.
    pub analysis: Analysis,
    /// Whether the algorithm is a fair shuffle of this `n` (see
    /// [`expected_fair`]).
    pub expected_fair: bool,
}

/// Whether `algorithm` is a fair shuffle of `n` items: exactly, by
/// enumeration, when its paths are few (the naive swap happens to be fair
/// for n = 2); otherwise from its [`Fairness`].
///
/// ```
/// use knuffle_lab::{experiment::expected_fair, zoo::Algorithm};
/// assert!(expected_fair(Algorithm::NaiveSwap, 2));
/// assert!(!expected_fair(Algorithm::NaiveSwap, 3));
/// assert!(expected_fair(Algorithm::SortKeys, 4));
/// ```
pub fn expected_fair(algorithm: Algorithm, n: usize) -> bool {
    match crate::exact::enumerate(algorithm, n, 1 << 20) {
        Ok(d) => d.is_uniform(),
        Err(_) => algorithm.fairness().is_fair_shuffle(),
    }
}

impl LabRun {
    /// Whether the verdict is the expected one: fair shuffles pass, biased
    /// (and cyclic-only) ones are flagged.
    pub fn as_expected(&self) -> bool {
        self.analysis.biased() != self.expected_fair
    }

    /// Shuffles per second.
    pub fn rate(&self) -> f64 {
        self.tally.trials() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Samples and analyses one algorithm.
///
/// ```
/// use knuffle_lab::{experiment::run, zoo::Algorithm};
/// let naive = run(Algorithm::NaiveSwap, 4, 200_000, "doc", 0.001, &|_| {});
/// assert!(naive.analysis.biased() && naive.as_expected());
/// ```
pub fn run(
    algorithm: Algorithm,
    n: usize,
    trials: u64,
    seed: &str,
    alpha: f64,
    progress: &(dyn Fn(u64) + Sync),
) -> LabRun {
    let start = Instant::now();
    let tally = sample::sample(algorithm, n, trials, seed, progress);
    let elapsed = start.elapsed();
    let analysis = analysis::analyze(&tally, alpha);
    LabRun {
        expected_fair: expected_fair(algorithm, n),
        algorithm,
        seed: seed.to_string(),
        elapsed,
        tally,
        analysis,
    }
}

/// The lab's table: algorithm, time, orders seen, s.d. of the counts,
/// chi-square and p-value of the full-permutation test (or the position
/// test when n! is too large), Holm-corrected verdict.
pub fn table(runs: &[LabRun]) -> String {
    let mut s = String::new();
    let Some(first) = runs.first() else {
        return s;
    };
    let a = &first.analysis;
    let _ = writeln!(
        s,
        "n = {}, {} shuffles per algorithm, seed {:?}; verdict at family-wise alpha = {} (Holm over the {} tests of each algorithm)",
        a.n,
        a.trials,
        first.seed,
        a.alpha,
        a.tests.len()
    );
    let _ = writeln!(
        s,
        "{:<21} {:>8} {:>8} {:>10} {:>13} {:>9} {:>9}  {:<7} expected",
        "algorithm", "time", "orders", "s.d.", "chi-square", "p-value", "Holm p", "verdict",
    );
    for run in runs {
        let a = &run.analysis;
        let main = a
            .order_test()
            .or_else(|| a.tests.iter().find(|t| t.name.contains("positions")));
        let (x2, p) = main.map_or(("-".into(), "-".into()), |t| {
            (format!("{:.1}", t.statistic), format_p(t.p_value))
        });
        let orders = a.orders_seen.map_or("-".into(), |o| o.to_string());
        let sd = a.order_count_sd.map_or("-".into(), |d| format!("{d:.0}"));
        let verdict = if a.biased() {
            "BIASED"
        } else if a.too_few_to_clear() {
            "fair?"
        } else {
            "fair"
        };
        let expected = match (run.algorithm.fairness(), run.expected_fair) {
            (Fairness::Uniform, _) => "fair",
            (Fairness::UniformUpToTies, _) => "fair (ties unseeable)",
            (Fairness::UniformOverCycles, _) => "biased (cycles only)",
            (Fairness::Biased, false) => "biased",
            (Fairness::Biased, true) => "fair for this n",
        };
        let mark = match (run.as_expected(), run.expected_fair) {
            (true, _) => "",
            (false, true) => "  <-- UNEXPECTED",
            (false, false) => "  <-- bias not detected: too few shuffles?",
        };
        let _ = writeln!(
            s,
            "{:<21} {:>7.2}s {:>8} {:>10} {:>13} {:>9} {:>9}  {:<7} {}{}",
            run.algorithm.name(),
            run.elapsed.as_secs_f64(),
            orders,
            sd,
            x2,
            p,
            format_p(a.min_adjusted_p()),
            verdict,
            expected,
            mark
        );
    }
    if let Some(needed) = runs
        .iter()
        .filter(|run| run.analysis.too_few_to_clear())
        .find_map(|run| run.analysis.naive_swap_shuffles)
    {
        let _ = writeln!(
            s,
            "fair? = no bias found, but {} shuffles are too few to tell: even the naive swap's bias at n = {} needs about {needed} to be caught (--trials)",
            a.trials, a.n
        );
    }
    s
}
