//! Exact non-negative fractions for the exact enumerator.

use std::fmt;

/// A reduced fraction `num/den` of `u128`s (`den > 0`).
///
/// ```
/// use knuffle_stats::ratio::Ratio;
/// let third = Ratio::new(1, 3).unwrap();
/// let sum = third.checked_add(Ratio::new(1, 6).unwrap()).unwrap();
/// assert_eq!(sum, Ratio::new(1, 2).unwrap());
/// assert_eq!(sum.to_string(), "1/2");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ratio {
    num: u128,
    den: u128,
}

/// Greatest common divisor (Euclid).
pub fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Least common multiple, `None` on overflow.
pub fn lcm(a: u128, b: u128) -> Option<u128> {
    if a == 0 || b == 0 {
        return Some(0);
    }
    (a / gcd(a, b)).checked_mul(b)
}

impl Ratio {
    /// Zero.
    pub const ZERO: Ratio = Ratio { num: 0, den: 1 };

    /// `num/den` reduced; `None` when `den == 0`.
    pub fn new(num: u128, den: u128) -> Option<Ratio> {
        if den == 0 {
            return None;
        }
        let g = gcd(num, den).max(1);
        Some(Ratio {
            num: num / g,
            den: den / g,
        })
    }

    /// Numerator (reduced).
    pub fn numer(self) -> u128 {
        self.num
    }

    /// Denominator (reduced).
    pub fn denom(self) -> u128 {
        self.den
    }

    /// `self + other`, `None` on overflow.
    pub fn checked_add(self, other: Ratio) -> Option<Ratio> {
        let den = lcm(self.den, other.den)?;
        let a = self.num.checked_mul(den / self.den)?;
        let b = other.num.checked_mul(den / other.den)?;
        Ratio::new(a.checked_add(b)?, den)
    }

    /// The numerator of this fraction over the denominator `den` (which must
    /// be a multiple of the reduced denominator).
    pub fn numer_over(self, den: u128) -> Option<u128> {
        if !den.is_multiple_of(self.den) {
            return None;
        }
        self.num.checked_mul(den / self.den)
    }

    /// As a floating-point number.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ratio {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Compare a/b with c/d as a*d with c*b in 256-bit arithmetic.
        let wide = |x: u128, y: u128| -> (u128, u128) {
            let (xh, xl) = (x >> 64, x & u128::from(u64::MAX));
            let (yh, yl) = (y >> 64, y & u128::from(u64::MAX));
            let ll = xl * yl;
            let lh = xl * yh;
            let hl = xh * yl;
            let hh = xh * yh;
            let mid = (ll >> 64) + (lh & u128::from(u64::MAX)) + (hl & u128::from(u64::MAX));
            let low = (ll & u128::from(u64::MAX)) | (mid << 64);
            let high = hh + (lh >> 64) + (hl >> 64) + (mid >> 64);
            (high, low)
        };
        wide(self.num, other.den).cmp(&wide(other.num, self.den))
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.num, self.den)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordering_is_exact_for_huge_values() {
        let a = Ratio::new(u128::MAX - 1, u128::MAX).unwrap();
        let b = Ratio::new(u128::MAX - 2, u128::MAX - 1).unwrap();
        assert!(b < a);
        assert!(Ratio::new(4, 27).unwrap() < Ratio::new(5, 27).unwrap());
        assert_eq!(Ratio::new(8, 256).unwrap().to_string(), "1/32");
        assert_eq!(Ratio::new(8, 256).unwrap().numer_over(256), Some(8));
    }
}
