//! The audit of one long order: is this epoch's order of the rows `0..n` a
//! fair shuffle? (The audit of many small permutations is [`crate::audit`].)
//!
//! The order is checked to be a permutation, scanned once
//! ([`crate::order_scan`]), and tested against the laws of an exactly
//! uniform permutation ([`crate::order_laws`]): how far rows move (rank
//! correlation, displacement histogram), whether neighbours in the order
//! were neighbours in the data (blocks of `2^k` rows, consecutive rows,
//! shards), whether position depends on row number at a coarse scale, and,
//! given the previous epoch's order, whether the two are independent. One
//! family-wise verdict by Holm's correction, as the other audits; the
//! failing tests are turned into likely causes in words.
//!
//! ```
//! use knuffle_lab::order_audit::{audit_order, OrderAuditInput};
//! let mut rng = knuffle::Seed::from_text("epoch").rng();
//! let order = knuffle::permutation(20_000, &mut rng);
//! let order: Vec<u64> = order.into_iter().map(|r| r as u64).collect();
//! let fair = audit_order(&OrderAuditInput::new(&order, 20_000)).unwrap();
//! assert!(!fair.biased(), "{}", fair.to_text());
//! let sorted: Vec<u64> = (0..20_000).collect();
//! let sorted = audit_order(&OrderAuditInput::new(&sorted, 20_000)).unwrap();
//! assert!(sorted.biased());
//! ```

use crate::analysis::format_p;
use crate::order_laws as laws;
use crate::order_scan::{self, OrderCounts, PermutationCheck, RowNumber, ScanPlan};
use crate::stats::{self, DEFAULT_ALPHA, TestResult};

use crate::order_causes::causes;
use crate::report::thousands;

/// The largest `n` audited: rows are numbered with 32-bit integers.
pub const MAX_ROWS: u64 = 1 << 32;

/// The displacement test's bins: at most this many, each expecting at
/// least [`ROWS_PER_DISPLACEMENT_BIN`] rows.
pub const DISPLACEMENT_TEST_BINS: u64 = 32;
const ROWS_PER_DISPLACEMENT_BIN: u64 = 20;
/// The coarse table is at most this many quantiles a side.
pub const TABLE_SIDE: usize = 8;
/// Block levels: `k = 9, 12, 15, ...` (blocks of 512, 4096, ... rows), so
/// that each count expects at least 511 pairs (the normal approximation is
/// then good), while `2^k <= n / 4`.
const FIRST_BLOCK_LEVEL: u32 = 9;
const BLOCK_LEVEL_STEP: u32 = 3;
/// Shard and block counts expecting fewer pairs than this are not tested.
const MIN_EXPECTED_PAIRS: f64 = 100.0;

/// What to audit.
pub struct OrderAuditInput<'a, T> {
    /// The order: the row at each position.
    pub order: &'a [T],
    /// The number of rows (`order` should be a permutation of `0..n`).
    pub n: u64,
    /// The shard of every row (`shard_of[row]`).
    pub shard_of: Option<&'a [u32]>,
    /// The previous epoch's order.
    pub previous: Option<&'a [T]>,
    /// Family-wise significance level.
    pub alpha: f64,
}

impl<'a, T> OrderAuditInput<'a, T> {
    /// `order` of `0..n`, no shards, no previous epoch, the default alpha.
    pub fn new(order: &'a [T], n: u64) -> Self {
        OrderAuditInput {
            order,
            n,
            shard_of: None,
            previous: None,
            alpha: DEFAULT_ALPHA,
        }
    }
}

/// The outcome.
#[derive(Clone, Debug)]
pub struct OrderAudit {
    /// The number of rows.
    pub n: u64,
    /// The order's length.
    pub length: u64,
    /// Family-wise significance level.
    pub alpha: f64,
    /// Missing and repeated rows.
    pub permutation: PermutationCheck,
    /// The tests (with Holm-adjusted p-values); empty when the order is not
    /// a permutation.
    pub tests: Vec<TestResult>,
    /// Tests the data could not support, and why.
    pub skipped: Vec<String>,
    /// What the failing tests suggest, in words.
    pub causes: Vec<String>,
    /// The counts (absent when the order is not a permutation).
    pub counts: Option<OrderCounts>,
}

impl OrderAudit {
    /// Not a permutation, or some test significant after Holm's correction.
    pub fn biased(&self) -> bool {
        !self.permutation.is_permutation() || self.tests.iter().any(|t| t.adjusted_p < self.alpha)
    }

    /// `"not a permutation"`, `"biased"` or `"no bias found"`.
    pub fn verdict(&self) -> &'static str {
        if !self.permutation.is_permutation() {
            "not a permutation"
        } else if self.biased() {
            "biased"
        } else {
            "no bias found"
        }
    }

    /// The smallest Holm-adjusted p-value (0 for a non-permutation, 1 when
    /// no test ran).
    pub fn min_adjusted_p(&self) -> f64 {
        if !self.permutation.is_permutation() {
            return 0.0;
        }
        self.tests.iter().map(|t| t.adjusted_p).fold(1.0, f64::min)
    }

    /// The plain-text report.
    pub fn to_text(&self) -> String {
        let mut s = format!("one order of n = {} rows\n", self.n);
        let check = &self.permutation;
        if !check.is_permutation() {
            s.push_str(&format!(
                "not a permutation of 0..{}: {} rows, {} missing, {} repeated\n",
                self.n.saturating_sub(1),
                self.length,
                check.missing,
                check.repeated
            ));
            if !check.first_missing.is_empty() {
                let rows: Vec<String> = check.first_missing.iter().map(u64::to_string).collect();
                s.push_str(&format!("first missing rows: {}\n", rows.join(", ")));
            }
            for &(row, first, again) in &check.first_repeated {
                s.push_str(&format!(
                    "row {row} at positions {first} and {again} (counting from 0)\n"
                ));
            }
            s.push_str("verdict: NOT A PERMUTATION\n");
            return s;
        }
        s.push_str(&format!(
            "{:<44} {:>12} {:>6} {:>11} {:>11}\n",
            "test", "statistic", "dof", "p-value", "Holm p"
        ));
        for t in &self.tests {
            let dof = if t.dof > 0.0 {
                format!("{}", t.dof)
            } else {
                "-".into()
            };
            s.push_str(&format!(
                "{:<44} {:>12.2} {:>6} {:>11} {:>11}\n",
                t.name,
                t.statistic,
                dof,
                format_p(t.p_value),
                format_p(t.adjusted_p)
            ));
        }
        for why in &self.skipped {
            s.push_str(&format!("not tested: {why}\n"));
        }
        s.push_str(&format!(
            "verdict: {} (family-wise alpha = {}, Holm correction over {} tests)\n",
            if self.biased() {
                "BIASED"
            } else {
                "no bias found"
            },
            self.alpha,
            self.tests.len()
        ));
        for cause in &self.causes {
            s.push_str(&format!("likely cause: {cause}\n"));
        }
        s
    }
}

/// Why an order cannot be audited at all (bad input, not a verdict).
pub fn check_input<T: RowNumber + std::fmt::Display>(
    input: &OrderAuditInput<'_, T>,
) -> Result<(), String> {
    let n = input.n;
    if n > MAX_ROWS {
        return Err(format!(
            "n = {n} is too large: at most {MAX_ROWS} rows (2^32; rows are numbered with 32-bit integers)"
        ));
    }
    if input.order.is_empty() {
        return Err("the order is empty".into());
    }
    if !(input.alpha > 0.0 && input.alpha < 1.0) {
        return Err(format!(
            "alpha must be between 0 and 1 (got {})",
            input.alpha
        ));
    }
    if let Some((i, v)) = order_scan::first_out_of_range(input.order, n) {
        return Err(format!(
            "position {i}: {v} is not a row number below n = {n}"
        ));
    }
    if let Some(shards) = input.shard_of
        && shards.len() as u64 != n
    {
        return Err(format!(
            "the shards give {} rows, the order has n = {n}",
            shards.len()
        ));
    }
    if let Some(previous) = input.previous {
        if previous.len() as u64 != n {
            return Err(format!(
                "the previous order has {} rows, this one n = {n}",
                previous.len()
            ));
        }
        if let Some((i, v)) = order_scan::first_out_of_range(previous, n) {
            return Err(format!(
                "the previous order, position {i}: {v} is not a row number below n = {n}"
            ));
        }
    }
    Ok(())
}

/// Audits one order. Errors are input that cannot be audited (values out of
/// range, lengths that do not match, a previous order that is not a
/// permutation); an order that is not a permutation is a verdict.
pub fn audit_order<T: RowNumber + std::fmt::Display>(
    input: &OrderAuditInput<'_, T>,
) -> Result<OrderAudit, String> {
    check_input(input)?;
    let n = input.n;
    let permutation = order_scan::check_permutation(input.order, n);
    let mut audit = OrderAudit {
        n,
        length: input.order.len() as u64,
        alpha: input.alpha,
        permutation,
        tests: Vec::new(),
        skipped: Vec::new(),
        causes: Vec::new(),
        counts: None,
    };
    if !audit.permutation.is_permutation() || input.order.len() as u64 != n {
        return Ok(audit);
    }
    let previous_position = match input.previous {
        Some(previous) => Some(positions(previous, n)?),
        None => None,
    };
    let block_levels: Vec<u32> = (FIRST_BLOCK_LEVEL..32)
        .step_by(BLOCK_LEVEL_STEP as usize)
        .take_while(|&k| (1u64 << k) <= n / 4)
        .collect();
    let plan = ScanPlan {
        n,
        block_levels,
        shard_of: input.shard_of,
        previous_position: previous_position.as_deref(),
    };
    let counts = order_scan::scan(input.order, &plan);
    drop(previous_position);
    run_tests(&mut audit, &counts, input.shard_of);
    stats::holm(&mut audit.tests);
    audit.causes = causes(&audit.tests, audit.alpha, &counts);
    audit.counts = Some(counts);
    Ok(audit)
}

/// The position of every row in `order` (a permutation of `0..n`), or why
/// it is not one.
fn positions<T: RowNumber>(order: &[T], n: u64) -> Result<Vec<u32>, String> {
    let check = order_scan::check_permutation(order, n);
    if !check.is_permutation() {
        return Err(format!(
            "the previous order is not a permutation: {} rows missing, {} repeated",
            check.missing, check.repeated
        ));
    }
    let mut position = vec![0u32; n as usize];
    for (i, x) in order.iter().enumerate() {
        position[x.value().unwrap_or(0) as usize] = i as u32;
    }
    Ok(position)
}

fn z_test(name: impl Into<String>, about: impl Into<String>, z: f64) -> TestResult {
    let p = laws::normal_two_sided_p(z);
    TestResult {
        name: name.into(),
        about: about.into(),
        statistic: z,
        dof: 0.0,
        p_value: p,
        adjusted_p: p,
    }
}

fn poisson_test(name: impl Into<String>, about: impl Into<String>, count: u64) -> TestResult {
    // Poisson(1) upper tail: many more than the one pair or row expected.
    let p = laws::poisson_upper_p(count, 1.0);
    TestResult {
        name: name.into(),
        about: about.into(),
        statistic: count as f64,
        dof: 0.0,
        p_value: p,
        adjusted_p: p,
    }
}

fn run_tests(audit: &mut OrderAudit, counts: &OrderCounts, shard_of: Option<&[u32]>) {
    let n = audit.n;
    if n < 8 {
        audit
            .skipped
            .push(format!("every test: n = {n} rows are too few (at least 8)"));
        return;
    }
    let (_, z) = laws::spearman(n, counts.squared_displacement);
    audit.tests.push(z_test(
        "rank correlation row/position",
        "Spearman's rho of row number and position, as z = rho sqrt(n-1)",
        z,
    ));
    displacement_test(audit, counts);
    for (&k, &count) in counts.block_levels.iter().zip(&counts.same_block) {
        let (mean, var) = laws::same_part_moments(n, laws::block_sizes(n, k));
        audit.tests.push(z_test(
            format!("neighbours in blocks of {}", thousands(1u64 << k)),
            format!(
                "adjacent pairs from the same block of 2^{k} rows: {count} (expected {mean:.1})"
            ),
            (count as f64 - mean) / var.sqrt(),
        ));
    }
    if counts.block_levels.is_empty() {
        audit.skipped.push(format!(
            "neighbours in blocks: n = {n} is too small for blocks of 512 rows (n >= 2048)"
        ));
    }
    audit.tests.push(poisson_test(
        "consecutive rows kept in order",
        "adjacent pairs (r, r+1): about Poisson(1) (Wolfowitz 1942, Kaplansky 1945)",
        counts.consecutive,
    ));
    if let (Some(shards), Some(count)) = (shard_of, counts.same_shard) {
        shard_test(audit, shards, count);
    }
    table_test(audit, counts);
    if let Some(previous) = &counts.previous {
        let (_, z) = laws::spearman(n, previous.squared_displacement);
        audit.tests.push(z_test(
            "rank correlation with previous epoch",
            "Spearman's rho of each row's positions in the two epochs, as z",
            z,
        ));
        audit.tests.push(poisson_test(
            "same position as previous epoch",
            "rows at the same position in both epochs: fixed points, about Poisson(1) (Montmort)",
            previous.same_position,
        ));
        audit.tests.push(poisson_test(
            "pairs kept from previous epoch",
            "adjacent pairs that were adjacent, in order, in the previous epoch: about Poisson(1)",
            previous.pairs_kept,
        ));
    }
}

/// The displacement histogram against its law: the fine bins grouped into
/// bins of about equal probability, the counts' exact covariance
/// ([`laws::displacement_moments`]), and the quadratic form of all bins
/// but the last (the counts add up to `n`): asymptotically chi-square with
/// `bins - 1` degrees of freedom (the multivariate form of Hoeffding's
/// combinatorial central limit theorem).
fn displacement_test(audit: &mut OrderAudit, counts: &OrderCounts) {
    let n = audit.n;
    let edges = displacement_edges(n, counts.displacement_shift, counts.displacement.len());
    if edges.len() < 3 {
        audit
            .skipped
            .push("displacement: too few rows for two bins".into());
        return;
    }
    let observed = group(counts, &edges);
    let (mean, cov) = laws::displacement_moments(n, &edges);
    let k = observed.len() - 1;
    let v: Vec<f64> = (0..k).map(|b| observed[b] as f64 - mean[b]).collect();
    let cov: Vec<Vec<f64>> = cov[..k].iter().map(|r| r[..k].to_vec()).collect();
    match laws::mahalanobis(&v, &cov) {
        Some(x2) => audit.tests.push(TestResult::chi_square(
            format!("displacement ({} bins)", k + 1),
            "|position - row| against its law P(|D| = d) = (2 - [d = 0])(n - d)/n^2",
            x2,
            k as f64,
        )),
        None => audit
            .skipped
            .push("displacement: the bins' covariance is singular".into()),
    }
}

/// Edges (multiples of the fine bins' width, from 0 to `n`) of about equal
/// expected counts, each expecting at least [`ROWS_PER_DISPLACEMENT_BIN`].
pub fn displacement_edges(n: u64, shift: u32, fine_bins: usize) -> Vec<u64> {
    let bins = (n / ROWS_PER_DISPLACEMENT_BIN).clamp(1, DISPLACEMENT_TEST_BINS);
    let total = laws::cells_below(n, n) as f64;
    let target = total / bins as f64;
    let mut edges = vec![0u64];
    let mut start = 0u128;
    for b in 1..=fine_bins as u64 {
        let edge = (b << shift).min(n);
        let cells = laws::cells_below(n, edge);
        if (cells - start) as f64 >= target * 0.999 || edge == n {
            edges.push(edge);
            start = cells;
        }
    }
    // A short last bin joins the one before.
    if edges.len() > 2 {
        let last = edges.len() - 1;
        let cells = laws::cells_below(n, edges[last]) - laws::cells_below(n, edges[last - 1]);
        if (cells as f64) < target / 2.0 {
            edges.remove(last - 1);
        }
    }
    edges
}

fn group(counts: &OrderCounts, edges: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; edges.len() - 1];
    let mut bin = 0;
    for (fine, &c) in counts.displacement.iter().enumerate() {
        let low = (fine as u64) << counts.displacement_shift;
        while low >= edges[bin + 1] {
            bin += 1;
        }
        out[bin] += c;
    }
    out
}

fn shard_test(audit: &mut OrderAudit, shards: &[u32], count: u64) {
    let n = audit.n;
    let mut sizes = std::collections::HashMap::<u32, u64>::new();
    for &s in shards {
        *sizes.entry(s).or_default() += 1;
    }
    let shard_count = sizes.len();
    let (mean, var) = laws::same_part_moments(n, sizes.into_values());
    if mean < MIN_EXPECTED_PAIRS || var <= 0.0 {
        audit.skipped.push(format!(
            "neighbours in the same shard: {mean:.1} pairs expected, need {MIN_EXPECTED_PAIRS}"
        ));
        return;
    }
    audit.tests.push(z_test(
        "neighbours in the same shard",
        format!("adjacent pairs from the same shard ({shard_count} shards): {count} (expected {mean:.1})"),
        (count as f64 - mean) / var.sqrt(),
    ));
}

/// The grid of row number x position merged into at most
/// [`TABLE_SIDE`]^2 cells, each expecting at least 5 rows, and tested for
/// independence ([`laws::scaled_table_chi_square`]).
fn table_test(audit: &mut OrderAudit, counts: &OrderCounts) {
    let n = audit.n;
    let side = counts.grid_side;
    let q = TABLE_SIDE
        .min(((n as f64 / stats::MIN_EXPECTED).sqrt()) as usize)
        .min(side);
    if q < 2 {
        audit
            .skipped
            .push("coarse table: too few rows for a 2x2 table".into());
        return;
    }
    let per = side.div_ceil(q);
    let q = side.div_ceil(per);
    let cell_rows = |c: usize| -> u64 {
        let lo = (c as u64) << counts.grid_shift;
        (((c as u64 + 1) << counts.grid_shift).min(n)).saturating_sub(lo)
    };
    let mut sizes = vec![0u64; q];
    for c in 0..side {
        sizes[c / per] += cell_rows(c);
    }
    let mut table = vec![vec![0u64; q]; q];
    for r in 0..side {
        for c in 0..side {
            table[r / per][c / per] += counts.grid[r * side + c];
        }
    }
    let (x2, dof) = laws::scaled_table_chi_square(&table, &sizes, &sizes);
    audit.tests.push(TestResult::chi_square(
        format!("row/position table ({q}x{q})"),
        "row-number range x position range, Pearson X^2 scaled by (n-1)/n",
        x2,
        dof,
    ));
}
