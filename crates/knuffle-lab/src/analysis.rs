//! From a [`Tally`] to tests, p-values, a Holm-corrected verdict and a
//! power statement: the same analysis for the lab and the audit.

use std::fmt::Write as _;

use crate::perm::law;
use crate::stats::{self, MIN_EXPECTED, TestResult};
use crate::tally::{PositionMatrix, Tally};

/// The position matrix is binned to at most this many bins per side for
/// the test (and the heat map).
pub const MAX_BINS: usize = 32;

/// Power statements are for this probability of detection.
pub const POWER: f64 = 0.9;

/// The outcome of analysing a tally.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Items per shuffle.
    pub n: usize,
    /// Items dealt per shuffle (`n` for full shuffles).
    pub k: usize,
    /// Shuffles analysed.
    pub trials: u64,
    /// Family-wise significance level.
    pub alpha: f64,
    /// Every test run (with Holm-adjusted p-values).
    pub tests: Vec<TestResult>,
    /// Tests the data could not support, and why.
    pub skipped: Vec<String>,
    /// Orders seen at least once (when orders were counted).
    pub orders_seen: Option<usize>,
    /// Standard deviation of the order counts (the yardstick of the .NET harness, "Shuffle things in .Net", 2009).
    pub order_count_sd: Option<f64>,
    /// The binned position matrix used by the test.
    pub positions: PositionMatrix,
    /// Power statements (one sentence each).
    pub power: Vec<String>,
    /// Shuffles needed to catch the naive swap's bias at this `n` 90% of
    /// the time (full shuffles of 3 to 300 items).
    pub naive_swap_shuffles: Option<f64>,
}

impl Analysis {
    /// Whether any test is significant after Holm's correction (never when
    /// the data is [`Analysis::inconclusive`]).
    pub fn biased(&self) -> bool {
        !self.inconclusive() && self.tests.iter().any(|t| t.adjusted_p < self.alpha)
    }

    /// Too little data to test anything: fewer than 2 shuffles, or no test
    /// could run. Neither "biased" nor "no bias found".
    pub fn inconclusive(&self) -> bool {
        self.trials < 2 || self.tests.is_empty()
    }

    /// No bias found, but too few shuffles to catch even the naive swap's
    /// bias at this `n`: "fair" would claim more than the data shows.
    pub fn too_few_to_clear(&self) -> bool {
        !self.biased()
            && self
                .naive_swap_shuffles
                .is_some_and(|needed| (self.trials as f64) < needed)
    }

    /// The smallest Holm-adjusted p-value (1 when no test ran).
    pub fn min_adjusted_p(&self) -> f64 {
        self.tests.iter().map(|t| t.adjusted_p).fold(1.0, f64::min)
    }

    /// The full-permutation test, when it ran.
    pub fn order_test(&self) -> Option<&TestResult> {
        self.tests.iter().find(|t| t.name.starts_with("orders"))
    }

    /// A plain-text report.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let what = if self.k == self.n {
            format!("{} of n = {}", count(self.trials, "shuffle"), self.n)
        } else {
            format!(
                "{} of {} from n = {}",
                count(self.trials, "deal"),
                self.k,
                self.n
            )
        };
        let _ = writeln!(s, "{what}");
        let _ = writeln!(
            s,
            "{:<34} {:>14} {:>8} {:>11} {:>11}",
            "test", "statistic", "dof", "p-value", "Holm p"
        );
        for t in &self.tests {
            let _ = writeln!(
                s,
                "{:<34} {:>14.2} {:>8} {:>11} {:>11}",
                t.name,
                t.statistic,
                t.dof,
                format_p(t.p_value),
                format_p(t.adjusted_p)
            );
        }
        for why in &self.skipped {
            let _ = writeln!(s, "not tested: {why}");
        }
        if self.inconclusive() {
            let _ = writeln!(
                s,
                "verdict: inconclusive ({} {}: too few to test anything; nothing can be said about bias)",
                self.trials,
                if self.trials == 1 {
                    "shuffle"
                } else {
                    "shuffles"
                }
            );
        } else {
            let _ = writeln!(
                s,
                "verdict: {} (family-wise alpha = {}, Holm correction over {} {})",
                if self.biased() {
                    "BIASED"
                } else if self.too_few_to_clear() {
                    "no bias found, but too few shuffles to rule out even the naive swap's bias"
                } else {
                    "no bias found"
                },
                self.alpha,
                self.tests.len(),
                if self.tests.len() == 1 {
                    "test"
                } else {
                    "tests"
                }
            );
        }
        for p in &self.power {
            let _ = writeln!(s, "power: {p}");
        }
        s
    }
}

/// A p-value for humans: `<1e-300` below the floating-point range.
pub fn format_p(p: f64) -> String {
    if p == 0.0 {
        "<1e-300".into()
    } else if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// Runs every test the data supports.
pub fn analyze(tally: &Tally, alpha: f64) -> Analysis {
    let n = tally.n();
    let m = tally.trials();
    let mut tests = Vec::new();
    let mut skipped = Vec::new();

    let (orders_seen, sd) = order_test(tally, &mut tests, &mut skipped);
    let (positions, min_expected) = binned_positions(tally);
    position_test(tally, &positions, min_expected, &mut tests, &mut skipped);
    statistic_tests(tally, &mut tests, &mut skipped);

    stats::holm(&mut tests);

    let (power, naive_swap_shuffles) = power_statements(tally, &tests, alpha);

    Analysis {
        n,
        k: tally.k(),
        trials: m,
        alpha,
        tests,
        skipped,
        orders_seen,
        order_count_sd: sd,
        positions,
        power,
        naive_swap_shuffles,
    }
}

/// Full-permutation chi-square: pushes the test (or why it was skipped) and
/// returns the number of distinct orders seen and the SD of the order counts.
fn order_test(
    tally: &Tally,
    tests: &mut Vec<TestResult>,
    skipped: &mut Vec<String>,
) -> (Option<usize>, Option<f64>) {
    let n = tally.n();
    let m = tally.trials();
    let (mut orders_seen, mut sd) = (None, None);
    if let Some(orders) = tally.order_counts() {
        orders_seen = Some(orders.iter().filter(|&&c| c > 0).count());
        sd = Some(stats::mean_sd(orders).1);
        let cells = orders.len() as f64;
        let expected = m as f64 / cells;
        if expected >= MIN_EXPECTED && cells >= 2.0 {
            let x2: f64 = orders
                .iter()
                .map(|&c| (c as f64 - expected).powi(2) / expected)
                .sum();
            tests.push(TestResult::chi_square(
                format!("orders ({} cells)", orders.len()),
                "count of each of the n! orders (Lehmer rank) against m/n!",
                x2,
                cells - 1.0,
            ));
        } else if cells >= 2.0 {
            skipped.push(format!(
                "full-permutation test: {} give{} {expected:.2} per order, need {MIN_EXPECTED}",
                count(m, "shuffle"),
                if m == 1 { "s" } else { "" }
            ));
        }
    } else if tally.is_full() {
        skipped.push(format!(
            "full-permutation test: n! orders for n = {n} are too many to count"
        ));
    }
    (orders_seen, sd)
}

/// The position matrix, binned so each cell expects at least MIN_EXPECTED
/// (or down to 2 bins a side), with its smallest expected cell count.
fn binned_positions(tally: &Tally) -> (PositionMatrix, f64) {
    let m = tally.trials();
    let full_matrix = tally.position_matrix();
    let mut bins = MAX_BINS;
    loop {
        let candidate = full_matrix.rebinned(bins, bins + usize::from(full_matrix.has_rest_column));
        let min_expected = (0..candidate.row_sizes.len())
            .flat_map(|r| (0..candidate.col_sizes.len()).map(move |c| (r, c)))
            .map(|(r, c)| candidate.expected(m, r, c))
            .fold(f64::INFINITY, f64::min);
        if min_expected >= MIN_EXPECTED || bins <= 2 {
            break (candidate, min_expected);
        }
        bins -= 1;
    }
}

/// The position-matrix chi-square on the binned matrix, or why it was skipped.
fn position_test(
    tally: &Tally,
    positions: &PositionMatrix,
    min_expected: f64,
    tests: &mut Vec<TestResult>,
    skipped: &mut Vec<String>,
) {
    let n = tally.n();
    let m = tally.trials();
    let rows = positions.row_sizes.len();
    let cols = positions.col_sizes.len();
    if rows >= 2 && cols >= 2 && m > 0 && min_expected < MIN_EXPECTED {
        skipped.push(format!(
            "position test: {} give{} {min_expected:.2} per cell even on a \
             {rows}x{cols} grid, need {MIN_EXPECTED}",
            count(m, "shuffle"),
            if m == 1 { "s" } else { "" }
        ));
    } else if rows >= 2 && cols >= 2 && m > 0 {
        let (x2, dof) = positions.scaled_chi_square(m);
        let binned = rows < n || cols < tally.k() + usize::from(!tally.is_full());
        let label = format!("{rows}x{cols}{}", if binned { " bins" } else { "" });
        let name = if tally.is_full() {
            format!("positions ({label})")
        } else {
            format!("deal positions ({label})")
        };
        tests.push(TestResult::chi_square(
            name,
            "where each item ends: Pearson X^2 on the position matrix, scaled by (n-1)/n",
            x2,
            dof,
        ));
    } else {
        skipped.push("position test: n < 2 or no data".into());
    }
}

/// Fixed points, cycles, rises, adjacent pairs: each histogram against its
/// exact law, or why it was skipped.
fn statistic_tests(tally: &Tally, tests: &mut Vec<TestResult>, skipped: &mut Vec<String>) {
    let n = tally.n();
    if let Some([fixed, cycles, rises, adjacent]) = tally.statistic_histograms() {
        let named: [(&str, &str, Vec<u64>, Vec<f64>); 4] = [
            (
                "fixed points",
                "items left in place (about Poisson(1))",
                fixed,
                law::fixed_points(n),
            ),
            (
                "cycles",
                "number of cycles (mean H_n)",
                cycles,
                law::cycles(n),
            ),
            (
                "rises",
                "ascents p[i] < p[i+1] (Eulerian)",
                rises,
                law::rises(n),
            ),
            (
                "adjacent pairs kept",
                "input neighbours still adjacent, in order (Diaconis-Evans-Graham)",
                adjacent,
                law::adjacent_pairs_kept(n),
            ),
        ];
        for (name, about, observed, expected) in named {
            match stats::pooled_chi_square(&observed, &expected) {
                Some((x2, dof)) => tests.push(TestResult::chi_square(name, about, x2, dof)),
                None => skipped.push(format!("{name}: too few shuffles or n too small")),
            }
        }
    }
}

/// Power: what this sample can see, and what the naive swap needs. Returns
/// the statements and the naive swap's shuffles needed (when computed).
fn power_statements(tally: &Tally, tests: &[TestResult], alpha: f64) -> (Vec<String>, Option<f64>) {
    let n = tally.n();
    let m = tally.trials();
    let mut power = Vec::new();
    let mut naive_swap_shuffles = None;
    if let Some(t) = tests.iter().find(|t| t.name.contains("positions")) {
        let lambda = stats::noncentrality_for_power(t.dof, alpha, POWER);
        let w = (lambda / m.max(1) as f64).sqrt();
        power.push(format!(
            "with {m} shuffles the position test detects, {:.0}% of the time at alpha = {alpha}, a bias of effect size w >= {w:.4} (Cohen's w over the position cells)",
            POWER * 100.0
        ));
        if tally.is_full() && (3..=300).contains(&n) {
            let needed = naive_swap_shuffles_needed(n, alpha);
            naive_swap_shuffles = Some(needed);
            power.push(format!(
                "the naive swap's bias at n = {n} needs about {needed} shuffles to be caught {:.0}% of the time by the unbinned position test",
                POWER * 100.0
            ));
        }
    }
    (power, naive_swap_shuffles)
}

/// Shuffles the unbinned position test needs to catch the naive swap at `n`
/// with probability POWER at `alpha`.
fn naive_swap_shuffles_needed(n: usize, alpha: f64) -> f64 {
    let naive = naive_swap_positions(n);
    // Effect per shuffle on the scaled statistic: (n-1) * sum (P - 1/n)^2.
    let mut w2 = 0.0;
    for row in &naive {
        for &p in row {
            w2 += (p - 1.0 / n as f64).powi(2);
        }
    }
    w2 *= (n - 1) as f64;
    let lambda_full = stats::noncentrality_for_power(((n - 1) * (n - 1)) as f64, alpha, POWER);
    (lambda_full / w2).ceil()
}

/// The exact position matrix of the naive swap (swap each position `i` in
/// turn with a uniform position of `0..n`): `[from][to]`, by following one
/// item's position through the `n` swaps. O(n^3).
///
/// ```
/// let m = knuffle_lab::analysis::naive_swap_positions(3);
/// assert!((m[0][0] - 9.0 / 27.0).abs() < 1e-12); // item 0 stays put with 9/27
/// ```
pub fn naive_swap_positions(n: usize) -> Vec<Vec<f64>> {
    let inv = 1.0 / n as f64;
    (0..n)
        .map(|start| {
            let mut dist = vec![0.0; n];
            dist[start] = 1.0;
            for i in 0..n {
                let at_i = dist[i];
                let mut next: Vec<f64> = dist.iter().map(|&q| q * (1.0 - inv)).collect();
                // From position i the item goes anywhere; from elsewhere it
                // goes to i with probability 1/n.
                next[i] = 0.0;
                for (p, slot) in next.iter_mut().enumerate() {
                    if p != i {
                        *slot += at_i * inv;
                    }
                }
                let elsewhere: f64 = dist
                    .iter()
                    .enumerate()
                    .filter(|&(p, _)| p != i)
                    .map(|(_, &q)| q)
                    .sum();
                next[i] = at_i * inv + elsewhere * inv;
                dist = next;
            }
            dist
        })
        .collect()
}

/// `1 shuffle`, `2 shuffles`: a count with its noun.
fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact;
    use crate::zoo::Algorithm;

    #[test]
    fn naive_positions_match_exact_enumeration() {
        for n in 3..=5 {
            let d = exact::enumerate(Algorithm::NaiveSwap, n, exact::DEFAULT_PATH_LIMIT).unwrap();
            let exact = d.position_matrix();
            let chain = naive_swap_positions(n);
            for i in 0..n {
                for j in 0..n {
                    assert!((exact[i][j] - chain[i][j]).abs() < 1e-12, "n={n} {i}->{j}");
                }
            }
        }
    }

    #[test]
    fn uniform_data_passes_and_naive_data_fails() {
        let mut rng = knuffle::Seed::from_text("analysis").rng();
        let mut fair = Tally::new(12);
        let mut naive = Tally::new(12);
        for _ in 0..20_000 {
            fair.add(&knuffle::permutation(12, &mut rng));
            let mut p: Vec<usize> = (0..12).collect();
            Algorithm::NaiveSwap.run(&mut p, &mut rng, &mut crate::zoo::NoObserver);
            naive.add(&p);
        }
        let a = analyze(&fair, stats::DEFAULT_ALPHA);
        assert!(!a.biased(), "{}", a.to_text());
        assert_eq!(a.tests.len(), 5);
        let b = analyze(&naive, stats::DEFAULT_ALPHA);
        assert!(b.biased(), "{}", b.to_text());
    }
}
