//! What the failing tests of a one-long-order audit suggest, in words:
//! a buffer shuffle and its window, blocks read in random order, shards
//! read in turn, the previous epoch's order again.
//!
//! The window of a buffer shuffle is estimated from the displacements: a
//! row waits in a buffer of `b` rows a geometric time of mean `b` (each
//! step takes a uniform one of the `b`), so its displacement `D` is that
//! wait minus `b`, with `E D = 0` and `E D^2 = b^2 - b`; the root mean
//! square displacement estimates `b` (a uniform order's is `n / sqrt 6`).

use crate::order_scan::OrderCounts;
use crate::report::thousands;
use crate::stats::TestResult;

/// `x` rounded to two significant digits, thousands separated.
pub fn about(x: f64) -> String {
    if x.is_nan() || x < 1.0 {
        return "1".into();
    }
    let digits = x.log10().floor() as i32;
    let unit = 10f64.powi((digits - 1).max(0));
    thousands(((x / unit).round() * unit) as u64)
}

/// The root mean square displacement `sqrt(sum d^2 / n)`.
pub fn rms_displacement(counts: &OrderCounts) -> f64 {
    (counts.squared_displacement as f64 / counts.n as f64).sqrt()
}

/// Likely causes of the failing tests (an empty list when none fails).
pub fn causes(tests: &[TestResult], alpha: f64, counts: &OrderCounts) -> Vec<String> {
    let failing = |prefix: &str| {
        tests
            .iter()
            .filter(|t| t.name.starts_with(prefix) && t.adjusted_p < alpha)
            .collect::<Vec<_>>()
    };
    let n = counts.n;
    let pairs = n.saturating_sub(1).max(1);
    let mut out = Vec::new();
    if let Some(previous) = &counts.previous {
        if previous.same_position == n {
            out.push("the same order as the previous epoch".to_string());
        } else if !failing("rank correlation with previous").is_empty()
            || !failing("same position as previous").is_empty()
            || !failing("pairs kept from previous").is_empty()
        {
            out.push(format!(
                "much of the previous epoch's order again ({} rows at the same position, {} \
                 adjacent pairs kept)",
                thousands(previous.same_position),
                thousands(previous.pairs_kept)
            ));
        }
    }
    if counts.squared_displacement == 0 {
        out.push("the rows in their original order: not shuffled at all".into());
        return out;
    }
    let moved = !failing("rank correlation row").is_empty() || !failing("displacement").is_empty();
    let rms = rms_displacement(counts);
    let consecutive = counts.consecutive as f64 / pairs as f64;
    if moved && rms < n as f64 / 10.0 {
        out.push(format!(
            "looks like a buffer shuffle of about {} rows (rows move only within a window: \
             root mean square displacement {}, a fair shuffle's {})",
            about(rms),
            about(rms),
            about(n as f64 / 6f64.sqrt())
        ));
    } else if !failing("consecutive rows").is_empty() && consecutive > 0.5 {
        let run = pairs as f64 / (pairs as f64 - counts.consecutive as f64).max(1.0);
        out.push(format!(
            "looks like blocks of about {} rows read in random order, the rows inside in order \
             ({:.0}% of neighbours are consecutive rows)",
            about(run),
            consecutive * 100.0
        ));
    }
    let shard = failing("neighbours in the same shard");
    if let Some(t) = shard.first() {
        out.push(if t.statistic < 0.0 {
            "shards read in turn: neighbours in the order are hardly ever from the same shard"
                .to_string()
        } else {
            "shards read one after another: neighbours in the order are mostly from the same shard"
                .to_string()
        });
    }
    let blocks = failing("neighbours in blocks");
    if shard.is_empty() && !blocks.is_empty() && out.is_empty() {
        if blocks.iter().all(|t| t.statistic < 0.0) {
            out.push(
                "neighbours in the order are hardly ever from the same stretch of rows: looks \
                 like shards read in turn"
                    .into(),
            );
        } else if let Some((&k, _)) = counts
            .block_levels
            .iter()
            .zip(&counts.same_block)
            .find(|&(_, &c)| c as f64 >= 0.5 * pairs as f64)
        {
            out.push(format!(
                "neighbours in the order mostly come from the same stretch of {} rows: looks \
                 like blocks (or shards) of about that size read one after another",
                thousands(1u64 << k)
            ));
        }
    }
    if out.is_empty() && !failing("row/position table").is_empty() {
        out.push(
            "position still depends on row number at a coarse scale (parts of the data read \
             before others)"
                .into(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_people() {
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(about(987.0), "990");
        assert_eq!(about(1012.0), "1,000");
        assert_eq!(about(7.4), "7");
        assert_eq!(about(0.2), "1");
    }
}
