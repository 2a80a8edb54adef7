//! `--parts 80,10,10`: the shares of a split, kept exact, and what follows
//! from them: the exact part sizes for N records, and the part of a key's
//! uniform draw.
//!
//! Each share is a non-negative integer or decimal (`80`, `0.8`, `.1`);
//! all are scaled by the same power of ten to integers (`0.8,0.1,0.1` is
//! `8,1,1`), so the part of share `s_j` is exactly `s_j / S` with `S` the
//! sum (shares are normalised: `80,10,10`, `8,1,1` and `0.8,0.1,0.1` are
//! one split). At least one share must be above 0, and the scaled shares
//! must sum below 2^64.

use super::error::SampleError;

/// Digits after the point a share may have.
const MAX_DECIMALS: usize = 18;

/// The shares of the parts, as integers with a common scale.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parts {
    shares: Vec<u64>,
    total: u64,
}

impl Parts {
    /// Parses a comma-separated list of shares.
    pub fn parse(text: &str) -> Result<Parts, SampleError> {
        let invalid = |why: &str| {
            SampleError::invalid(format!(
                "invalid parts: '{text}' ({why}; shares separated by commas, such as 80,10,10 \
                 or 0.8,0.1,0.1, each at least 0 and one above 0)"
            ))
        };
        let mut decimals = 0;
        let mut split = Vec::new();
        for share in text.split(',') {
            let share = share.trim();
            let (whole, fraction) = share.split_once('.').unwrap_or((share, ""));
            let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
            if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) {
                return Err(invalid(if share.starts_with('-') {
                    "a share less than 0"
                } else {
                    "not a number"
                }));
            }
            let fraction = fraction.trim_end_matches('0');
            if fraction.len() > MAX_DECIMALS {
                return Err(invalid("more than 18 digits after the point"));
            }
            decimals = decimals.max(fraction.len());
            split.push((whole, fraction));
        }
        let too_large = || invalid("the shares sum to 2^64 or more");
        let mut shares = Vec::with_capacity(split.len());
        let mut total = 0u64;
        for (whole, fraction) in split {
            let whole = whole.trim_start_matches('0');
            let digits = format!("{whole}{fraction:0<decimals$}");
            let digits = digits.trim_start_matches('0');
            let share = if digits.is_empty() {
                0
            } else {
                digits.parse::<u64>().map_err(|_| too_large())?
            };
            total = total.checked_add(share).ok_or_else(too_large)?;
            shares.push(share);
        }
        if total == 0 {
            return Err(invalid("no share above 0"));
        }
        Ok(Parts { shares, total })
    }

    /// The number of parts.
    pub fn len(&self) -> usize {
        self.shares.len()
    }

    /// Never: a list has at least one share.
    pub fn is_empty(&self) -> bool {
        self.shares.is_empty()
    }

    /// The sum `S` of the scaled shares (below 2^64, above 0).
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The exact part sizes for `n` records, summing to `n`: each part
    /// gets `floor(n * s_j / S)`, and the records left over (fewer than
    /// the parts) go one each to the parts with the largest remainders
    /// `n * s_j mod S`, ties to the earlier part (the largest remainder
    /// method, Hamilton's apportionment). A part of share 0 gets nothing.
    pub fn sizes(&self, n: u64) -> Vec<u64> {
        let total = u128::from(self.total);
        let mut sizes = Vec::with_capacity(self.shares.len());
        let mut remainders = Vec::with_capacity(self.shares.len());
        for (j, &share) in self.shares.iter().enumerate() {
            let product = u128::from(n) * u128::from(share);
            // Below n: each share is at most S.
            sizes.push((product / total) as u64);
            remainders.push((product % total, j));
        }
        let left = n - sizes.iter().sum::<u64>();
        // Largest remainder first; among equal ones, the earlier part.
        remainders.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for &(_, j) in remainders.iter().take(left as usize) {
            sizes[j] += 1;
        }
        sizes
    }

    /// The part of a uniform draw `u` in `0..S`: the first `j` with
    /// `u < s_0 + ... + s_j` (so part j has probability exactly `s_j / S`).
    pub fn part_of(&self, u: u64) -> usize {
        let mut below = 0u64;
        for (j, &share) in self.shares.iter().enumerate() {
            below += share;
            if u < below {
                return j;
            }
        }
        unreachable!("a draw below the total falls in a part")
    }
}

/// The parts of an exact split drawn record after record: record i goes
/// to part j with probability exactly `remaining_j / remaining`, one draw
/// `below(remaining)` compared with the cumulative remaining counts
/// (labels drawn from an urn without replacement: every sequence with the
/// sizes equally likely; Knuth, TAOCP vol. 2, 3.4.2, Algorithm S, for
/// several parts). The line split and the table split both draw so.
#[derive(Clone, Debug)]
pub struct ExactDraw {
    remaining: Vec<u64>,
    left: u64,
}

impl ExactDraw {
    /// A draw of parts of `sizes` records each.
    pub fn new(sizes: Vec<u64>) -> ExactDraw {
        ExactDraw {
            left: sizes.iter().sum(),
            remaining: sizes,
        }
    }

    /// The next record's part; `None` when every part is full (more
    /// records than were counted).
    pub fn next(&mut self, rng: &mut knuffle::DefaultRng) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        let mut u = knuffle::below(self.left, rng);
        let mut part = 0;
        while u >= self.remaining[part] {
            u -= self.remaining[part];
            part += 1;
        }
        self.remaining[part] -= 1;
        self.left -= 1;
        Some(part)
    }

    /// Whether every part is full (every record counted drawn).
    pub fn is_done(&self) -> bool {
        self.left == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_scaled_to_integers_and_normalised() {
        let parts = |t: &str| Parts::parse(t).unwrap().shares;
        assert_eq!(parts("80,10,10"), [80, 10, 10]);
        assert_eq!(parts("0.8,0.1,0.1"), [8, 1, 1]);
        assert_eq!(parts(".5, 0.25,0"), [50, 25, 0]);
        assert_eq!(parts("1.50,1"), [15, 10]);
        for bad in [
            "",
            ",",
            "a,b",
            "-1,2",
            "0,0",
            "1e3",
            "1/3",
            "80;20",
            "18446744073709551616",
            "9223372036854775808,9223372036854775808",
            "0.1234567890123456789",
        ] {
            assert!(Parts::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sizes_are_floors_plus_largest_remainders_and_sum_to_n() {
        let sizes = |t: &str, n| Parts::parse(t).unwrap().sizes(n);
        assert_eq!(sizes("80,10,10", 10), [8, 1, 1]);
        assert_eq!(sizes("80,10,10", 7), [5, 1, 1]); // 5.6, 0.7, 0.7
        assert_eq!(sizes("1,1,1", 2), [1, 1, 0]); // ties to the earlier parts
        assert_eq!(sizes("1,0,1", 3), [2, 0, 1]);
        assert_eq!(sizes("1,1", u64::MAX), [1 << 63, (1 << 63) - 1]);
        for n in 0..50 {
            assert_eq!(sizes("3,3,2,1.5", n).iter().sum::<u64>(), n);
        }
    }

    #[test]
    fn draws_fall_in_parts_by_cumulative_share() {
        let parts = Parts::parse("2,0,3").unwrap();
        let of: Vec<usize> = (0..5).map(|u| parts.part_of(u)).collect();
        assert_eq!(of, [0, 0, 2, 2, 2]);
    }
}
