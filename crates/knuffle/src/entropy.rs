//! How much randomness a shuffle needs, and whether a seed has it.
//!
//! A generator started from a `b`-bit seed can produce at most `2^b`
//! different shuffles, so when `2^b < n!` some orders of `n` items can
//! never occur. A 64-bit seed stops covering every order at `n = 21`
//! (20! < 2^64 < 21!); a full deck needs log2(52!) ≈ 225.58 bits.
//!
//! [`seed_can_reach_every_order`] and [`largest_fully_covered_n`] decide
//! this exactly with integers; [`entropy_bits_needed`] and
//! [`seed_text_bits`] give bit counts as `f64` (feature `std`, for `log2`).
//!
//! # Example
//! ```
//! use knuffle::entropy;
//! assert!(entropy::seed_can_reach_every_order(256, 52));
//! assert_eq!(entropy::largest_fully_covered_n(64), 20);
//! ```

use alloc::vec;
use alloc::vec::Vec;

/// `log2(n!)`: the number of random bits needed to reach every order of
/// `n` items.
///
/// Exact summation of `log2(i)` up to 4096, then the Stirling series for
/// `ln Γ(n+1)` (error far below `f64` precision there).
///
/// # Example
/// ```
/// let deck = knuffle::entropy::entropy_bits_needed(52);
/// assert!((deck - 225.581).abs() < 1e-3);
/// assert_eq!(knuffle::entropy::entropy_bits_needed(1), 0.0);
/// ```
#[cfg(feature = "std")]
#[must_use]
pub fn entropy_bits_needed(n: u64) -> f64 {
    if n <= 4096 {
        return (2..=n).map(|i| (i as f64).log2()).sum();
    }
    let x = n as f64 + 1.0;
    // ln Γ(x) = (x - 1/2) ln x - x + ln(2π)/2 + 1/(12x) - 1/(360x^3) + 1/(1260x^5)
    let ln_gamma =
        (x - 0.5) * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI).ln() + 1.0 / (12.0 * x)
            - 1.0 / (360.0 * x.powi(3))
            + 1.0 / (1260.0 * x.powi(5));
    ln_gamma / std::f64::consts::LN_2
}

/// Whether a generator with `bits` bits of seed (or state) can reach every
/// one of the `n!` orders of `n` items, i.e. whether `2^bits >= n!`.
/// Decided exactly, with integer arithmetic.
///
/// # Example
/// ```
/// use knuffle::entropy::seed_can_reach_every_order;
/// assert!(seed_can_reach_every_order(64, 20));
/// assert!(!seed_can_reach_every_order(64, 21));
/// assert!(seed_can_reach_every_order(256, 52));
/// assert!(!seed_can_reach_every_order(225, 52));
/// ```
#[must_use]
pub fn seed_can_reach_every_order(bits: u64, n: u64) -> bool {
    largest_fully_covered_n(bits) >= n
}

/// The largest `n` with `n! <= 2^bits`: every order of up to this many
/// items is reachable from a `bits`-bit seed.
///
/// # Example
/// ```
/// assert_eq!(knuffle::entropy::largest_fully_covered_n(64), 20);
/// assert_eq!(knuffle::entropy::largest_fully_covered_n(32), 12);
/// ```
#[must_use]
pub fn largest_fully_covered_n(bits: u64) -> u64 {
    // Little-endian base-2^64 limbs of n!, grown until it passes 2^bits.
    let mut factorial: Vec<u64> = vec![1];
    let mut n = 1u64;
    loop {
        let next = n + 1;
        let mut carry = 0u128;
        for limb in factorial.iter_mut() {
            let wide = u128::from(*limb) * u128::from(next) + carry;
            *limb = wide as u64;
            carry = wide >> 64;
        }
        if carry > 0 {
            factorial.push(carry as u64);
        }
        let top = *factorial.last().expect("never empty");
        let bit_length = (factorial.len() as u64 - 1) * 64 + u64::from(64 - top.leading_zeros());
        // n! <= 2^bits  <=>  bit_length(n!) <= bits, or n! == 2^bits exactly
        // (bit_length == bits + 1 and a single bit set).
        let is_power_of_two =
            top.is_power_of_two() && factorial[..factorial.len() - 1].iter().all(|&l| l == 0);
        let fits = bit_length <= bits || (bit_length == bits + 1 && is_power_of_two);
        if !fits {
            return n;
        }
        n = next;
    }
}

/// An upper bound on the entropy of a seed text whose form gives it away:
/// a decimal integer that fits in 64 bits is taken to come from a 64-bit
/// seed space (64 bits), a longer decimal integer carries
/// `digits * log2(10)` bits. Other text (a phrase, dice rolls, hex) has no
/// bound that knuffle can see from its form: `None`.
///
/// # Example
/// ```
/// assert_eq!(knuffle::entropy::seed_text_bits("12345"), Some(64.0));
/// assert_eq!(knuffle::entropy::seed_text_bits("the quick brown fox"), None);
/// ```
#[cfg(feature = "std")]
#[must_use]
pub fn seed_text_bits(text: &str) -> Option<f64> {
    let digits = text.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if digits.parse::<u64>().is_ok() {
        Some(64.0)
    } else {
        Some(digits.len() as f64 * 10f64.log2())
    }
}
