//! Statistical tests: chi-square goodness of fit with p-values from the
//! survival function, Holm's multiple-test correction, and power.

use statrs::distribution::{ChiSquared, ContinuousCDF};

/// The significance level of the lab's and the audit's verdicts, family-wise
/// (Holm) over all tests of one algorithm or one file.
pub const DEFAULT_ALPHA: f64 = 0.001;

/// Cells are pooled until each expects at least this many observations.
pub const MIN_EXPECTED: f64 = 5.0;

/// The upper-tail probability `P(X >= x)` of a chi-square variable with
/// `dof` degrees of freedom, from the survival function (accurate far into
/// the tail, unlike `1 - cdf`).
///
/// ```
/// let p = knuffle_stats::stats::chi_square_p(3.841458820694124, 1.0);
/// assert!((p - 0.05).abs() < 1e-9);
/// assert!(knuffle_stats::stats::chi_square_p(400.0, 23.0) > 0.0);
/// ```
pub fn chi_square_p(x: f64, dof: f64) -> f64 {
    if dof <= 0.0 || !x.is_finite() {
        return if x.is_finite() { 1.0 } else { 0.0 };
    }
    ChiSquared::new(dof)
        .map(|d| d.sf(x.max(0.0)))
        .unwrap_or(f64::NAN)
}

/// One test's outcome.
#[derive(Clone, Debug)]
pub struct TestResult {
    /// Short name, e.g. "orders (24 cells)".
    pub name: String,
    /// What it looks at, for the report.
    pub about: String,
    /// The statistic (chi-square, after any scaling).
    pub statistic: f64,
    /// Degrees of freedom.
    pub dof: f64,
    /// p-value from the survival function.
    pub p_value: f64,
    /// Holm-adjusted p-value within its family (set by [`holm`]).
    pub adjusted_p: f64,
}

impl TestResult {
    /// A test from a chi-square statistic.
    pub fn chi_square(
        name: impl Into<String>,
        about: impl Into<String>,
        x2: f64,
        dof: f64,
    ) -> Self {
        let p = chi_square_p(x2, dof);
        TestResult {
            name: name.into(),
            about: about.into(),
            statistic: x2,
            dof,
            p_value: p,
            adjusted_p: p,
        }
    }
}

/// Pearson's chi-square of `observed` counts against probabilities
/// `expected` (summing to 1), pooling neighbouring cells (in order) so each
/// pooled cell expects at least [`MIN_EXPECTED`]. Returns `(x2, dof)`, with
/// `dof = cells - 1`; `None` when fewer than two cells remain.
///
/// ```
/// use knuffle_stats::stats::pooled_chi_square;
/// let (x2, dof) = pooled_chi_square(&[50, 50], &[0.5, 0.5]).unwrap();
/// assert_eq!((x2, dof), (0.0, 1.0));
/// ```
pub fn pooled_chi_square(observed: &[u64], expected: &[f64]) -> Option<(f64, f64)> {
    let total: u64 = observed.iter().sum();
    let m = total as f64;
    let mut cells: Vec<(f64, f64)> = Vec::new();
    let (mut o, mut e) = (0.0, 0.0);
    for (&obs, &p) in observed.iter().zip(expected) {
        o += obs as f64;
        e += p * m;
        if e >= MIN_EXPECTED {
            cells.push((o, e));
            o = 0.0;
            e = 0.0;
        }
    }
    if e > 0.0 || o > 0.0 {
        match cells.last_mut() {
            Some(last) => {
                last.0 += o;
                last.1 += e;
            }
            None => cells.push((o, e)),
        }
    }
    if cells.len() < 2 {
        return None;
    }
    let x2 = cells
        .iter()
        .map(|&(o, e)| {
            if e > 0.0 {
                (o - e) * (o - e) / e
            } else if o > 0.0 {
                f64::INFINITY
            } else {
                0.0
            }
        })
        .sum();
    Some((x2, (cells.len() - 1) as f64))
}

/// Holm's step-down correction (S. Holm, "A simple sequentially rejective
/// multiple test procedure", Scand. J. Statistics 6, 1979): sets each
/// test's `adjusted_p`; a test is significant at family-wise level `alpha`
/// when its adjusted p is below `alpha`.
///
/// ```
/// use knuffle_stats::stats::{holm, TestResult};
/// let mut tests = vec![
///     TestResult::chi_square("a", "", 0.0, 1.0),
///     TestResult::chi_square("b", "", 20.0, 1.0),
/// ];
/// holm(&mut tests);
/// assert!((tests[1].adjusted_p - 2.0 * tests[1].p_value).abs() < 1e-18);
/// assert_eq!(tests[0].adjusted_p, 1.0);
/// ```
pub fn holm(tests: &mut [TestResult]) {
    let m = tests.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| tests[a].p_value.total_cmp(&tests[b].p_value));
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        let adjusted = ((m - rank) as f64 * tests[i].p_value).min(1.0);
        running = running.max(adjusted);
        tests[i].adjusted_p = running;
    }
}

/// The upper tail `P(X >= x)` of a noncentral chi-square with `dof`
/// degrees of freedom and noncentrality `lambda`, as the Poisson mixture
/// `sum_j Pois(j; lambda/2) * P(chi2(dof + 2j) >= x)` over the terms that
/// matter (12 standard deviations around the Poisson mean).
pub fn noncentral_chi_square_sf(x: f64, dof: f64, lambda: f64) -> f64 {
    let mu = lambda / 2.0;
    let spread = 12.0 * mu.sqrt() + 10.0;
    let first = (mu - spread).max(0.0).floor() as u64;
    let last = (mu + spread).ceil() as u64;
    let mut sum = 0.0;
    for j in first..=last {
        let jf = j as f64;
        // log Poisson weight: j ln mu - mu - ln j!
        let log_weight = if mu > 0.0 {
            jf * mu.ln() - mu - statrs::function::gamma::ln_gamma(jf + 1.0)
        } else if j == 0 {
            0.0
        } else {
            f64::NEG_INFINITY
        };
        let tail = ChiSquared::new(dof + 2.0 * jf)
            .map(|d| d.sf(x))
            .unwrap_or(0.0);
        sum += log_weight.exp() * tail;
    }
    sum.min(1.0)
}

/// The noncentrality `lambda` at which a chi-square test with `dof` degrees
/// of freedom at level `alpha` has the given `power` (bisection on
/// [`noncentral_chi_square_sf`]). For an effect adding `w2` to the
/// statistic's noncentrality per shuffle, `lambda / w2` shuffles are needed.
///
/// ```
/// let l = knuffle_stats::stats::noncentrality_for_power(1.0, 0.05, 0.9);
/// assert!((l - 10.51).abs() < 0.01, "{l}"); // Cohen's tables: 10.51
/// ```
pub fn noncentrality_for_power(dof: f64, alpha: f64, power: f64) -> f64 {
    let Ok(central) = ChiSquared::new(dof) else {
        return f64::NAN;
    };
    let critical = central.inverse_cdf(1.0 - alpha);
    let power_at = |lambda: f64| noncentral_chi_square_sf(critical, dof, lambda);
    let (mut lo, mut hi) = (0.0, 1.0);
    while power_at(hi) < power {
        hi *= 2.0;
        if hi > 1e9 {
            return f64::INFINITY;
        }
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if power_at(mid) < power {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// Mean and standard deviation (population) of counts.
pub fn mean_sd(counts: &[u64]) -> (f64, f64) {
    if counts.is_empty() {
        return (0.0, 0.0);
    }
    let n = counts.len() as f64;
    let mean = counts.iter().map(|&c| c as f64).sum::<f64>() / n;
    let var = counts
        .iter()
        .map(|&c| (c as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    (mean, var.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn survival_function_keeps_tiny_p_values() {
        let p = chi_square_p(2000.0, 23.0);
        assert!(p > 0.0 && p < 1e-300 || p == 0.0);
        let p = chi_square_p(200.0, 23.0);
        assert!(p > 0.0 && p < 1e-25, "{p}");
    }

    #[test]
    fn pooling_merges_small_cells_into_neighbours() {
        let (x2, dof) = pooled_chi_square(&[10, 10, 0, 0], &[0.49, 0.49, 0.01, 0.01]).unwrap();
        assert_eq!(dof, 1.0);
        assert!(x2 < 1.0);
    }
}
