//! `-p P`: an exact probability `a/b`, and the Bernoulli draw that keeps a
//! record with probability exactly `a/b`.
//!
//! `P` is a decimal (`0.001`, `.5`, `1`: with `d` digits after the point it
//! is `digits / 10^d`, so at most 19 of them) or a fraction `a/b` of
//! integers below 2^64. The draw is `below(b) < a` with knuffle's unbiased
//! bounded integers (Lemire's method): probability exactly `a/b`, no
//! floating point. Every record gets its own draw (no geometric
//! skip-ahead: skipping by a geometric law with parameter `a/b` is not
//! exact in floating point, and a scan's speed is bounded by reading the
//! records anyway).

use knuffle::rand_core::Rng;

use super::error::SampleError;

/// A probability `numerator / denominator` in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probability {
    numerator: u64,
    denominator: u64,
}

impl Probability {
    /// Parses `P` (decimal or fraction); anything outside [0, 1] is an
    /// error (status 2).
    pub fn parse(text: &str) -> Result<Probability, SampleError> {
        let invalid = |why: &str| {
            SampleError::invalid(format!(
                "invalid probability: '{text}' ({why}; a decimal such as 0.001 or a fraction \
                 such as 1/3, from 0 to 1)"
            ))
        };
        let trimmed = text.trim();
        if trimmed.starts_with('-') {
            return Err(invalid("less than 0"));
        }
        let (numerator, denominator) = if let Some((a, b)) = trimmed.split_once('/') {
            let a = parse_integer(a.trim()).ok_or_else(|| invalid("not a fraction of integers"))?;
            let b = parse_integer(b.trim()).ok_or_else(|| invalid("not a fraction of integers"))?;
            if b == 0 {
                return Err(invalid("the denominator is 0"));
            }
            (a, b)
        } else {
            let (whole, fraction) = trimmed.split_once('.').unwrap_or((trimmed, ""));
            let fraction = fraction.trim_end_matches('0');
            let digits_ok = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
            if (whole.is_empty() && fraction.is_empty() && !trimmed.contains('0'))
                || !digits_ok(whole)
                || !digits_ok(fraction)
            {
                return Err(invalid("not a number"));
            }
            if fraction.len() > 19 {
                return Err(invalid("more than 19 digits after the point"));
            }
            let denominator = 10u64.pow(fraction.len() as u32);
            let whole = whole.trim_start_matches('0');
            if !(whole.is_empty() || whole == "1") || (whole == "1" && !fraction.is_empty()) {
                return Err(invalid("greater than 1"));
            }
            let fraction_value = if fraction.is_empty() {
                0
            } else {
                fraction
                    .parse::<u64>()
                    .map_err(|_| invalid("not a number"))?
            };
            let numerator = if whole == "1" {
                denominator
            } else {
                fraction_value
            };
            (numerator, denominator)
        };
        if numerator > denominator {
            return Err(invalid("greater than 1"));
        }
        Ok(Probability {
            numerator,
            denominator,
        })
    }

    /// `true` with probability exactly `a/b`: `below(b) < a`; no draw when
    /// `P` is 0 or 1.
    pub fn draw<R: Rng + ?Sized>(self, rng: &mut R) -> bool {
        if self.numerator == 0 {
            return false;
        }
        if self.numerator == self.denominator {
            return true;
        }
        knuffle::below(self.denominator, rng) < self.numerator
    }

    /// For `--print-random`: the draw itself, `j` uniform in `0..b` (drawn
    /// even when P is 0 or 1), and whether the record is in (`j < a`).
    pub fn draw_value<R: Rng + ?Sized>(self, rng: &mut R) -> (bool, u64) {
        let j = knuffle::below(self.denominator, rng);
        (j < self.numerator, j)
    }

    /// A draw `j` as `--print-random` writes it: `j/b`.
    pub fn describe(self, j: u64) -> String {
        format!("{j}/{}", self.denominator)
    }

    /// `(a, b)`.
    #[cfg(test)]
    pub(crate) fn parts(self) -> (u64, u64) {
        (self.numerator, self.denominator)
    }
}

/// A decimal integer below 2^64 (digits only).
fn parse_integer(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SampleErrorKind;

    #[test]
    fn decimals_and_fractions_are_exact() {
        let parts = |t: &str| Probability::parse(t).unwrap().parts();
        assert_eq!(parts("0.001"), (1, 1000));
        assert_eq!(parts(".5"), (5, 10));
        assert_eq!(parts("0.50"), (5, 10));
        assert_eq!(parts("1"), (1, 1));
        assert_eq!(parts("1.000"), (1, 1));
        assert_eq!(parts("0"), (0, 1));
        assert_eq!(parts("0.0"), (0, 1));
        assert_eq!(parts("1/3"), (1, 3));
        assert_eq!(
            parts("0.1234567890123456789"),
            (1234567890123456789, 10u64.pow(19))
        );
        for bad in [
            "",
            ".",
            "-0.1",
            "1.5",
            "2",
            "3/2",
            "1/0",
            "nan",
            "inf",
            "1e-3",
            "0.5x",
            "abc",
            "-1",
            "0.12345678901234567891",
        ] {
            let error = Probability::parse(bad).expect_err(bad);
            assert_eq!(error.kind(), SampleErrorKind::Invalid, "{bad}");
        }
    }

    #[test]
    fn the_draw_is_below_b_less_than_a() {
        let mut rng = knuffle::Seed::from_text("bernoulli").rng();
        let third = Probability::parse("1/3").unwrap();
        let kept = (0..30_000).filter(|_| third.draw(&mut rng)).count();
        // Binomial(30000, 1/3): mean 10000, sd 81.6.
        assert!((9_600..=10_400).contains(&kept), "{kept}");
        assert!(!Probability::parse("0").unwrap().draw(&mut rng));
        assert!(Probability::parse("1").unwrap().draw(&mut rng));
    }
}
