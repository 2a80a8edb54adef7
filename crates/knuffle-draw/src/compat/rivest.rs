//! Rivest's sampler (R. L. Rivest, "Reference implementation code for
//! pseudo-random sampler for election audits or other purposes", 2011;
//! used by ColoradoRLA): the i-th pick (i = 1, 2, ...) is
//! `a + int(SHA-256(seed + "," + str(i)), 16) mod (b - a + 1)`. With
//! replacement every pick is kept; without, a repeated pick is skipped and
//! `i` still advances.

use super::BiasReport;
use super::bignum::{self, from_be_bytes};
use crate::encode::sha256;
use knuffle_lab::reduction::{Reduction, Split};

/// The picks of Rivest's sampler from `lo..=hi`.
///
/// # Errors
/// When `count` distinct picks are asked for from fewer than `count` values,
/// or the range is empty or has 2^64 values.
pub fn sample(seed: &str, lo: u64, hi: u64, count: u64, replace: bool) -> Result<Vec<u64>, String> {
    if hi < lo || hi - lo == u64::MAX {
        return Err(format!("invalid range {lo}-{hi}"));
    }
    let n = hi - lo + 1;
    if !replace && count > n {
        return Err(format!(
            "cannot pick {count} distinct values from {n} (use --replace)"
        ));
    }
    let mut picks = Vec::with_capacity(count as usize);
    let mut seen = std::collections::HashSet::new();
    let mut i: u64 = 0;
    while (picks.len() as u64) < count {
        i += 1;
        let digest = sha256(format!("{seed},{i}").as_bytes());
        let (_, r) = bignum::div_small(&from_be_bytes(&digest), n);
        let pick = lo + r;
        if replace || seen.insert(pick) {
            picks.push(pick);
        }
    }
    Ok(picks)
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
    fn the_bias_of_n_1000() {
        let report = bias(1000);
        assert!(!report.exact);
        // 2^256 mod 1000 = 936.
        assert!(report.lines[2].contains("r = 936"), "{report}");
        assert!(bias(256).exact);
    }
}
