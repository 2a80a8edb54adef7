//! Rivest's sampler (R. L. Rivest, "Reference implementation code for
//! pseudo-random sampler for election audits or other purposes", 2011;
//! used by ColoradoRLA): the i-th pick (i = 1, 2, ...) is
//! `a + int(SHA-256(seed + "," + str(i)), 16) mod (b - a + 1)`. With
//! replacement every pick is kept; without, a repeated pick is skipped and
//! `i` still advances.

use std::collections::HashSet;

use super::BiasReport;
use super::bignum::{self, from_be_bytes};
use crate::encode::sha256;
use knuffle_stats::reduction::{Reduction, Split};

/// The picks of Rivest's sampler from `lo..=hi`, collected (see [`picks`]).
///
/// # Errors
/// When `count` distinct picks are asked for from fewer than `count` values,
/// or the range is empty or has 2^64 values.
pub fn sample(seed: &str, lo: u64, hi: u64, count: u64, replace: bool) -> Result<Vec<u64>, String> {
    Ok(picks(seed, lo, hi, count, replace)?.collect())
}

/// The picks of Rivest's sampler from `lo..=hi`, one at a time: with
/// replacement in constant memory (any `count`); without, the set of the
/// values picked so far grows to `count` (bound it first: about
/// [`crate::limits::PERM_BYTES_PER_DRAW`] bytes per pick).
///
/// # Errors
/// As [`sample`].
pub fn picks(seed: &str, lo: u64, hi: u64, count: u64, replace: bool) -> Result<Picks, String> {
    if hi < lo || hi - lo == u64::MAX {
        return Err(format!("invalid range {lo}-{hi}"));
    }
    let n = hi - lo + 1;
    if !replace && count > n {
        return Err(format!(
            "cannot pick {count} distinct values from {n} (use --replace)"
        ));
    }
    Ok(Picks {
        seed: seed.to_owned(),
        lo,
        n,
        left: count,
        replace,
        seen: HashSet::new(),
        i: 0,
    })
}

/// The picks of Rivest's sampler, in order (see [`picks`]).
#[derive(Clone, Debug)]
pub struct Picks {
    seed: String,
    lo: u64,
    n: u64,
    left: u64,
    replace: bool,
    seen: HashSet<u64>,
    i: u64,
}

impl Iterator for Picks {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.left == 0 {
            return None;
        }
        loop {
            self.i += 1;
            let digest = sha256(format!("{},{}", self.seed, self.i).as_bytes());
            let (_, r) = bignum::div_small(&from_be_bytes(&digest), self.n);
            let pick = self.lo + r;
            if self.replace || self.seen.insert(pick) {
                self.left -= 1;
                return Some(pick);
            }
        }
    }

    /// The lower bound is capped: `collect` reserves it up front.
    fn size_hint(&self) -> (usize, Option<usize>) {
        (
            usize::try_from(self.left.min(1 << 12)).unwrap_or(0),
            usize::try_from(self.left).ok(),
        )
    }
}

/// The exact bias of reducing a 256-bit hash modulo `n`.
pub fn bias(n: u64) -> BiasReport {
    let split = Split::new(Reduction::Modulo, n, 256).expect("n >= 1");
    let mut lines = vec![format!(
        "each pick is lo + offset, the offset SHA-256 (a 256-bit integer) reduced modulo n = {n}"
    )];
    lines.extend(split.describe("offset", &|j| j.to_string()));
    BiasReport {
        scheme: "rivest2011",
        exact: split.is_uniform(),
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_example_of_2011() {
        let picks = sample("3546311556112163624615351222", 1, 876, 5, true).unwrap();
        assert_eq!(picks, vec![740, 180, 264, 789, 238]);
    }

    #[test]
    fn picks_stream_any_count_with_replacement() {
        let mut picks = picks("3546311556112163624615351222", 1, 876, u64::MAX, true).unwrap();
        let first: Vec<u64> = picks.by_ref().take(5).collect();
        assert_eq!(first, vec![740, 180, 264, 789, 238]);
        assert!(picks.seen.is_empty());
        // Without replacement the count is checked before anything is kept.
        assert!(super::picks("1", 1, 10, 11, false).is_err());
        assert!(super::picks("1", 0, u64::MAX, 1, true).is_err());
    }

    #[test]
    fn the_bias_of_n_1000() {
        let report = bias(1000);
        assert!(!report.exact);
        // 2^256 mod 1000 = 936.
        assert!(report.lines[2].contains("r = 936"), "{report}");
        assert!(bias(256).exact);
    }
}
