//! How reducing a uniform `w`-bit word to `0..n` distributes, exactly.
//!
//! Two reductions are in use by other people's samplers:
//!
//! * [`Reduction::Modulo`], `x mod n`: R. L. Rivest, sampler.py, "Reference
//!   implementation code for pseudo-random sampler for election audits or
//!   other purposes" (2011; SHA-256 as a 256-bit integer, modulo the size of
//!   the range), and the first digit of a consistent_sampler ticket (2018).
//! * [`Reduction::FloatScaling`], `floor(x * n / 2^w)`, i.e. `floor(f * n)`
//!   for the `w`-bit fraction `f = x / 2^w`: Stake's "provably fair" cards
//!   (`CARDS[Math.floor(float * 52)]`, the float made of 4 bytes), and
//!   JavaScript's `Math.floor(Math.random() * n)`.
//!
//! With `2^w = q*n + r` (`0 <= r < n`), both give `r` outcomes `q + 1`
//! words each and the other `n - r` outcomes `q` words: unless `n` divides
//! `2^w`, no reduction of one word can be uniform (D. Lemire, "Fast Random
//! Integer Generation in an Interval", ACM TOMACS 29(1), 2019, which also
//! shows the unbiased fix: reject the `r` extra words). They differ in
//! *which* outcomes are favoured: the `r` lowest for the modulo, the
//! outcomes `floor(m*n/r)` for `m = 0..r` for the scaling.
//!
//! Everything here is integer arithmetic; words up to 256 bits go through
//! [`Count`], five 64-bit limbs with a schoolbook division by a 64-bit
//! divisor. Floats appear only in the printed approximation of a relative
//! excess. The zoo's `modulo-reduction` and `float-scaling` shuffle with
//! the same reductions of [`ZOO_WORD_BITS`]-bit words, small enough for
//! the exact mode.
//!
//! ```
//! use knuffle_stats::reduction::{Reduction, Split};
//! // Stake's cards: floor(f * 52) of a 32-bit fraction.
//! let stake = Split::new(Reduction::FloatScaling, 52, 32).unwrap();
//! assert_eq!(stake.remainder(), 48);
//! assert_eq!(stake.high_count().to_string(), "82595525");
//! assert_eq!(stake.low_count().to_string(), "82595524");
//! assert_eq!(stake.disfavoured().collect::<Vec<_>>(), [12, 25, 38, 51]);
//! // Rivest's sampler: SHA-256 modulo 1000.
//! let rivest = Split::new(Reduction::Modulo, 1000, 256).unwrap();
//! assert_eq!(rivest.remainder(), 936);
//! assert!(rivest.is_favoured(935) && !rivest.is_favoured(936));
//! ```

use std::cmp::Ordering;
use std::fmt;

use crate::ratio::Ratio;

/// The word size of the zoo's `modulo-reduction` and `float-scaling`: 8
/// bits, so that a shuffle of 4 items (3 words) has 2^24 paths, which the
/// exact mode enumerates in seconds.
pub const ZOO_WORD_BITS: u32 = 8;

/// The widest word [`Split`] handles (SHA-256).
pub const MAX_WORD_BITS: u32 = 256;

/// At most this many outcomes are named one by one in a description.
const LISTED: u64 = 64;

/// How a uniform `w`-bit word `x` becomes an outcome in `0..n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduction {
    /// `x mod n` (Rivest's sampler, 2011).
    Modulo,
    /// `floor(x * n / 2^w)`: a `w`-bit fraction scaled, `floor(f * n)`
    /// (Stake's cards; `Math.floor(Math.random() * n)`).
    FloatScaling,
}

impl Reduction {
    /// The outcome of `word` (below `2^bits`, `bits <= 64`) in `0..n`.
    ///
    /// ```
    /// use knuffle_stats::reduction::Reduction;
    /// assert_eq!(Reduction::Modulo.apply(255, 8, 3), 0);
    /// assert_eq!(Reduction::FloatScaling.apply(255, 8, 3), 2);
    /// assert_eq!(Reduction::FloatScaling.apply(0xffff_ffff, 32, 52), 51);
    /// ```
    #[inline(always)]
    pub fn apply(self, word: u64, bits: u32, n: u64) -> u64 {
        debug_assert!(bits <= 64 && (bits == 64 || word >> bits == 0) && n > 0);
        match self {
            Reduction::Modulo => word % n,
            Reduction::FloatScaling => ((u128::from(word) * u128::from(n)) >> bits) as u64,
        }
    }

    /// The formula, e.g. `x mod n`.
    pub fn formula(self) -> &'static str {
        match self {
            Reduction::Modulo => "x mod n",
            Reduction::FloatScaling => "floor(x * n / 2^w)",
        }
    }

    /// The zoo algorithm that shuffles with this reduction.
    pub fn zoo_name(self) -> &'static str {
        match self {
            Reduction::Modulo => "modulo-reduction",
            Reduction::FloatScaling => "float-scaling",
        }
    }
}

/// Number of 64-bit limbs of a [`Count`].
const LIMBS: usize = 5;

/// A count of words out of `2^w` (`w <= 256`): a non-negative integer below
/// `2^320`, exact. Printed in decimal.
///
/// ```
/// use knuffle_stats::reduction::Count;
/// let two_256 = Count::power_of_two(256).unwrap();
/// let (q, r) = two_256.div_rem(1000);
/// assert_eq!(r, 936);
/// assert_eq!(
///     q.to_string(),
///     "115792089237316195423570985008687907853269984665640564039457584007913129639"
/// );
/// assert_eq!(Count::from(82_595_525u128).grouped(), "82,595,525");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Count([u64; LIMBS]); // least significant limb first

impl Count {
    /// Zero.
    pub const ZERO: Count = Count([0; LIMBS]);

    /// `2^bits`, `None` when it does not fit (`bits >= 320`).
    pub fn power_of_two(bits: u32) -> Option<Count> {
        let limb = (bits / 64) as usize;
        if limb >= LIMBS {
            return None;
        }
        let mut limbs = [0; LIMBS];
        limbs[limb] = 1 << (bits % 64);
        Some(Count(limbs))
    }

    /// The value, when it fits in a `u128`.
    pub fn to_u128(self) -> Option<u128> {
        if self.0[2..].iter().any(|&l| l != 0) {
            return None;
        }
        Some(u128::from(self.0[0]) | (u128::from(self.0[1]) << 64))
    }

    /// Number of bits (0 for zero).
    pub fn bits(self) -> u32 {
        (0..LIMBS)
            .rev()
            .find(|&i| self.0[i] != 0)
            .map_or(0, |i| 64 * i as u32 + 64 - self.0[i].leading_zeros())
    }

    /// Whether it is zero.
    pub fn is_zero(self) -> bool {
        self.0.iter().all(|&l| l == 0)
    }

    /// `(self / divisor, self % divisor)`: schoolbook long division, one
    /// limb at a time from the top, the running remainder (below the
    /// divisor) and the next limb in a `u128`.
    ///
    /// # Panics
    /// When `divisor` is 0.
    pub fn div_rem(self, divisor: u64) -> (Count, u64) {
        assert!(divisor > 0, "division by zero");
        let d = u128::from(divisor);
        let mut quotient = [0; LIMBS];
        let mut rem: u128 = 0;
        for i in (0..LIMBS).rev() {
            let cur = (rem << 64) | u128::from(self.0[i]);
            quotient[i] = (cur / d) as u64;
            rem = cur % d;
        }
        (Count(quotient), rem as u64)
    }

    /// `self + 1`, `None` on overflow.
    pub fn checked_add_one(self) -> Option<Count> {
        let mut limbs = self.0;
        for limb in &mut limbs {
            let (sum, carry) = limb.overflowing_add(1);
            *limb = sum;
            if !carry {
                return Some(Count(limbs));
            }
        }
        None
    }

    /// The nearest `f64`, roughly (for printing only).
    pub fn to_f64(self) -> f64 {
        self.0
            .iter()
            .rev()
            .fold(0.0, |acc, &l| acc * 18_446_744_073_709_551_616.0 + l as f64)
    }

    /// Decimal with thousands separators: `82,595,525`.
    pub fn grouped(self) -> String {
        let text = self.to_string();
        let mut out = String::with_capacity(text.len() + text.len() / 3);
        for (i, c) in text.chars().enumerate() {
            if i > 0 && (text.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    }
}

impl From<u128> for Count {
    fn from(value: u128) -> Count {
        let mut limbs = [0; LIMBS];
        limbs[0] = value as u64;
        limbs[1] = (value >> 64) as u64;
        Count(limbs)
    }
}

impl Ord for Count {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.iter().rev().cmp(other.0.iter().rev())
    }
}

impl PartialOrd for Count {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const CHUNK: u64 = 10_000_000_000_000_000_000; // 10^19
        let mut chunks = Vec::new();
        let mut cur = *self;
        while !cur.is_zero() {
            let (q, r) = cur.div_rem(CHUNK);
            chunks.push(r);
            cur = q;
        }
        match chunks.split_last() {
            None => f.pad("0"),
            Some((top, rest)) => {
                let mut text = top.to_string();
                for chunk in rest.iter().rev() {
                    text.push_str(&format!("{chunk:019}"));
                }
                f.pad(&text)
            }
        }
    }
}

/// How the `2^w` words split over the outcomes `0..n` under a
/// [`Reduction`]: `2^w = q*n + r`, `r` favoured outcomes with `q + 1`
/// words each, `n - r` with `q`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    reduction: Reduction,
    n: u64,
    word_bits: u32,
    q: Count,
    r: u64,
}

impl Split {
    /// The split of `word_bits`-bit words (`1..=256`) over `0..n`
    /// (`n >= 1`); `None` outside those ranges.
    pub fn new(reduction: Reduction, n: u64, word_bits: u32) -> Option<Split> {
        if n == 0 || !(1..=MAX_WORD_BITS).contains(&word_bits) {
            return None;
        }
        let (q, r) = Count::power_of_two(word_bits)?.div_rem(n);
        Some(Split {
            reduction,
            n,
            word_bits,
            q,
            r,
        })
    }

    /// The reduction.
    pub fn reduction(&self) -> Reduction {
        self.reduction
    }

    /// Number of outcomes.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// Word size `w` in bits.
    pub fn word_bits(&self) -> u32 {
        self.word_bits
    }

    /// `q = floor(2^w / n)`.
    pub fn quotient(&self) -> Count {
        self.q
    }

    /// `r = 2^w mod n`: how many outcomes get `q + 1` words.
    pub fn remainder(&self) -> u64 {
        self.r
    }

    /// Whether every outcome gets the same number of words (`n` divides `2^w`).
    pub fn is_uniform(&self) -> bool {
        self.r == 0
    }

    /// Words of a favoured outcome: `q + 1` (`q` when uniform).
    pub fn high_count(&self) -> Count {
        if self.r == 0 {
            self.q
        } else {
            self.q.checked_add_one().expect("q < 2^256")
        }
    }

    /// Words of any other outcome: `q` (0 when `n > 2^w`: never drawn).
    pub fn low_count(&self) -> Count {
        self.q
    }

    /// Whether `outcome` (in `0..n`) gets `q + 1` words.
    pub fn is_favoured(&self, outcome: u64) -> bool {
        debug_assert!(outcome < self.n);
        match self.reduction {
            Reduction::Modulo => outcome < self.r,
            // Outcome j gets the words x with j*2^w <= x*n < (j+1)*2^w:
            // ceil((j+1)*2^w/n) - ceil(j*2^w/n) = q + c(j+1) - c(j), with
            // c(j) = ceil(j*r/n) (j*r < 2^128).
            Reduction::FloatScaling => {
                let (r, n) = (u128::from(self.r), u128::from(self.n));
                let c = |j: u128| (j * r).div_ceil(n);
                let j = u128::from(outcome);
                c(j + 1) > c(j)
            }
        }
    }

    /// Words of `outcome`: [`high_count`](Split::high_count) or
    /// [`low_count`](Split::low_count).
    pub fn count(&self, outcome: u64) -> Count {
        if self.is_favoured(outcome) {
            self.high_count()
        } else {
            self.low_count()
        }
    }

    /// The `r` favoured outcomes, in increasing order.
    pub fn favoured(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.r).map(move |m| match self.reduction {
            Reduction::Modulo => m,
            // The favoured j are those with j*r <= m*n < (j+1)*r.
            Reduction::FloatScaling => {
                (u128::from(m) * u128::from(self.n) / u128::from(self.r)) as u64
            }
        })
    }

    /// The `n - r` other outcomes, in increasing order (lazily: `n` may be
    /// large).
    pub fn disfavoured(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.n).filter(move |&j| !self.is_favoured(j))
    }

    /// The relative excess of a favoured outcome over another, as the
    /// denominator `q` of `1/q`; `None` when uniform (no excess) or when
    /// `q = 0` (some outcomes are never drawn).
    pub fn relative_excess_denominator(&self) -> Option<Count> {
        (self.r != 0 && !self.q.is_zero()).then_some(self.q)
    }

    /// The bias in words, one sentence per line, naming outcomes with
    /// `name` and calling them `noun` (plural: `noun` + "s"). Lines: the
    /// reduction (for a scaling wider than a double's 53 bits, then a line
    /// saying a double rounds the product), `2^w = q*n + r`, the favoured
    /// outcomes with their exact probability, the others, the relative
    /// excess, and the zoo algorithm that shows the same reduction on
    /// shuffles. When `n` divides `2^w` the middle lines are one line
    /// saying so; when `n > 2^w`, two lines naming the outcomes that occur
    /// and those that never do. Modulo outcomes are named as ranges, float
    /// scaling outcomes one by one when at most 64 (else the rule and the
    /// first eight).
    ///
    /// ```
    /// use knuffle_stats::reduction::{Reduction, Split};
    /// let split = Split::new(Reduction::Modulo, 6, 8).unwrap();
    /// let lines = split.describe("face", &|j| (j + 1).to_string());
    /// assert_eq!(
    ///     lines[2],
    ///     "4 faces have probability 43/2^8 = 43/256 (q+1 of the 2^8 words each): the 4 lowest, 1 2 3 4"
    /// );
    /// assert_eq!(
    ///     lines[3],
    ///     "2 faces have probability 42/2^8 = 21/128 (q of the 2^8 words each): the others, 5 6"
    /// );
    /// ```
    pub fn describe(&self, noun: &str, name: &dyn Fn(u64) -> String) -> Vec<String> {
        let (n, w, r) = (self.n, self.word_bits, self.r);
        let q = self.q;
        let plural = |count: u64| {
            if count == 1 {
                noun.to_owned()
            } else {
                format!("{noun}s")
            }
        };
        let mut lines = vec![match self.reduction {
            Reduction::Modulo => {
                format!("each {noun} is x mod {n} for a uniform {w}-bit word x (0 <= x < 2^{w})")
            }
            Reduction::FloatScaling => format!(
                "each {noun} is floor(x * {n} / 2^{w}) for a uniform {w}-bit word x, \
                 i.e. floor(f * {n}) of the {w}-bit fraction f = x / 2^{w}"
            ),
        }];
        let bits_n = 64 - n.leading_zeros();
        if self.reduction == Reduction::FloatScaling && w + bits_n > 53 {
            lines.push(format!(
                "with a double, f * {n} needs {} bits and is rounded, which can move a word to \
                 the next {noun}; the counts below are for the exact product",
                w + bits_n
            ));
        }
        if r == 0 {
            lines.push(format!(
                "2^{w} = q*{n} exactly, q = {q}: every {noun} has probability exactly 1/{n}, \
                 no bias"
            ));
        } else if q.is_zero() {
            lines.push(format!(
                "2^{w} < {n}: only {r} of the {n} {} can occur, each with probability 1/2^{w}: {}",
                plural(n),
                self.which(true, name)
            ));
            lines.push(format!(
                "the other {} {} never occur: {}",
                n - r,
                plural(n - r),
                self.which(false, name)
            ));
        } else {
            lines.push(format!(
                "2^{w} = q*{n} + r with q = {q} and r = {r}: {n} does not divide 2^{w}, \
                 so the {n} {} cannot be equally likely",
                plural(n)
            ));
            lines.push(format!(
                "{r} {} {} probability {}: {}",
                plural(r),
                if r == 1 { "has" } else { "have" },
                self.probability(true),
                self.which(true, name)
            ));
            lines.push(format!(
                "{} {} {} probability {}: {}",
                n - r,
                plural(n - r),
                if n - r == 1 { "has" } else { "have" },
                self.probability(false),
                self.which(false, name)
            ));
            let shown = match q.to_u128() {
                Some(small) if small < 10u128.pow(20) => format!("1/{small}"),
                _ => "1/q".to_owned(),
            };
            lines.push(format!(
                "relative excess of a favoured {noun}: {shown} = {:.3e} (<= 2^-{})",
                1.0 / q.to_f64(),
                q.bits() - 1
            ));
        }
        lines.push(format!(
            "the same reduction on shuffles, with {ZOO_WORD_BITS}-bit words: knuffle lab -a {} \
             (every path exactly: knuffle lab -a {} --exact -n 4)",
            self.reduction.zoo_name(),
            self.reduction.zoo_name()
        ));
        lines
    }

    /// The probability of a favoured outcome (`high`) or of another:
    /// `82,595,525/2^32 = 82595525/4294967296 (q+1 of the 2^32 words each)`
    /// when `w <= 64` (short enough to read), else `(q+1)/2^256`.
    fn probability(&self, high: bool) -> String {
        let w = self.word_bits;
        let (count, symbol) = if high {
            (self.high_count(), "q+1")
        } else {
            (self.q, "q")
        };
        match count.to_u128() {
            Some(words) if w <= 64 => {
                let p = Ratio::new(words, 1u128 << w).expect("2^w > 0");
                format!(
                    "{}/2^{w} = {p} ({symbol} of the 2^{w} words each)",
                    count.grouped()
                )
            }
            _ if high => format!("(q+1)/2^{w}"),
            _ => format!("q/2^{w}"),
        }
    }

    /// Which outcomes are favoured (`true`) or not: a range for the modulo,
    /// the names when at most [`LISTED`], else the rule and the first few.
    fn which(&self, favoured: bool, name: &dyn Fn(u64) -> String) -> String {
        let (n, r) = (self.n, self.r);
        let size = if favoured { r } else { n - r };
        let list = |iter: &mut dyn Iterator<Item = u64>, take: u64| -> String {
            iter.take(take as usize)
                .map(name)
                .collect::<Vec<_>>()
                .join(" ")
        };
        if self.reduction == Reduction::Modulo {
            let (first, last) = if favoured { (0, r - 1) } else { (r, n - 1) };
            let range = if size <= 4 {
                list(&mut (first..=last), size)
            } else {
                format!("{} to {}", name(first), name(last))
            };
            return if favoured && r == 1 {
                format!("the lowest, {range}")
            } else if favoured {
                format!("the {r} lowest, {range}")
            } else {
                format!("the others, {range}")
            };
        }
        let mut iter: Box<dyn Iterator<Item = u64>> = if favoured {
            Box::new(self.favoured())
        } else {
            Box::new(self.disfavoured())
        };
        if size <= LISTED {
            list(&mut iter, size)
        } else if favoured {
            format!(
                "floor(m*{n}/{r}) for m = 0 to {}: {} ...",
                r - 1,
                list(&mut iter, 8)
            )
        } else {
            format!("the others: {} ...", list(&mut iter, 8))
        }
    }
}

/// The bias of `x mod n` for uniform `word_bits`-bit words `x`, as
/// [`Split::describe`] words it, outcomes numbered from 0 ("value").
/// Rivest's sampler (2011) is `describe_modulo(n, 256)`.
///
/// # Panics
/// When `n == 0` or `word_bits` is not in `1..=256`.
///
/// ```
/// let lines = knuffle_stats::reduction::describe_modulo(1000, 256);
/// assert!(lines[1].contains("r = 936"));
/// assert!(lines[2].starts_with("936 values have probability (q+1)/2^256: the 936 lowest, 0 to 935"));
/// ```
pub fn describe_modulo(n: u64, word_bits: u32) -> Vec<String> {
    Split::new(Reduction::Modulo, n, word_bits)
        .expect("n >= 1 and 1 <= word_bits <= 256")
        .describe("value", &|j| j.to_string())
}

/// The bias of `floor(x * n / 2^w)` (`floor(f * n)` of a `w`-bit fraction)
/// for uniform `word_bits`-bit words `x`, as [`Split::describe`] words it,
/// outcomes numbered from 0 ("value"). Stake's cards are
/// `describe_float_scaling(52, 32)`.
///
/// # Panics
/// When `n == 0` or `word_bits` is not in `1..=256`.
///
/// ```
/// let lines = knuffle_stats::reduction::describe_float_scaling(52, 32);
/// assert!(lines[2].starts_with("48 values have probability 82,595,525/2^32 = 82595525/4294967296"));
/// assert!(lines[3].ends_with(": 12 25 38 51"));
/// ```
pub fn describe_float_scaling(n: u64, word_bits: u32) -> Vec<String> {
    Split::new(Reduction::FloatScaling, n, word_bits)
        .expect("n >= 1 and 1 <= word_bits <= 256")
        .describe("value", &|j| j.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts by trying every word (small `w` only).
    fn brute_force(reduction: Reduction, n: u64, bits: u32) -> Vec<u64> {
        let mut counts = vec![0u64; n as usize];
        for word in 0..1u64 << bits {
            counts[reduction.apply(word, bits, n) as usize] += 1;
        }
        counts
    }

    #[test]
    fn splits_agree_with_counting_every_word() {
        for reduction in [Reduction::Modulo, Reduction::FloatScaling] {
            for bits in [1u32, 3, 8, 12] {
                for n in 1..=300u64 {
                    let split = Split::new(reduction, n, bits).unwrap();
                    let counts = brute_force(reduction, n, bits);
                    for (j, &c) in counts.iter().enumerate() {
                        assert_eq!(
                            split.count(j as u64).to_u128(),
                            Some(u128::from(c)),
                            "{reduction:?} n={n} w={bits} j={j}"
                        );
                    }
                    let favoured: Vec<u64> = split.favoured().collect();
                    let expected: Vec<u64> = (0..n)
                        .filter(|&j| {
                            split.r != 0
                                && counts[j as usize] as u128
                                    == split.high_count().to_u128().unwrap()
                        })
                        .collect();
                    assert_eq!(favoured, expected, "{reduction:?} n={n} w={bits}");
                    assert_eq!(
                        split.disfavoured().count() as u64 + split.favoured().count() as u64,
                        n
                    );
                }
            }
        }
    }

    /// The figures `knuffle draw --compat stake` prints.
    #[test]
    fn stake_cards_48_favoured_4_short() {
        let split = Split::new(Reduction::FloatScaling, 52, 32).unwrap();
        assert_eq!(split.high_count().to_u128(), Some(82_595_525));
        assert_eq!(split.low_count().to_u128(), Some(82_595_524));
        assert_eq!(split.favoured().count(), 48);
        assert_eq!(split.disfavoured().collect::<Vec<_>>(), [12, 25, 38, 51]);
        // As stake.rs counts them: x with j*2^32 <= 52x < (j+1)*2^32.
        for j in 0..52u64 {
            let pre = ((j + 1) << 32).div_ceil(52) - (j << 32).div_ceil(52);
            assert_eq!(split.count(j).to_u128(), Some(u128::from(pre)));
        }
        const RANKS: [&str; 13] = [
            "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
        ];
        const SUITS: [&str; 4] = ["♦", "♥", "♠", "♣"];
        let card = |i: u64| format!("{}{}", RANKS[i as usize / 4], SUITS[i as usize % 4]);
        let lines = split.describe("card", &card);
        assert_eq!(
            lines[1],
            "2^32 = q*52 + r with q = 82595524 and r = 48: 52 does not divide 2^32, so the 52 \
             cards cannot be equally likely"
        );
        assert!(
            lines[2].starts_with(
                "48 cards have probability 82,595,525/2^32 = 82595525/4294967296 (q+1 of the \
                 2^32 words each): 2♦ 2♥ 2♠ 2♣ 3♦"
            ),
            "{}",
            lines[2]
        );
        assert_eq!(
            lines[3],
            "4 cards have probability 82,595,524/2^32 = 20648881/1073741824 (q of the 2^32 words \
             each): 5♦ 8♥ J♠ A♣"
        );
        assert_eq!(
            lines[4],
            "relative excess of a favoured card: 1/82595524 = 1.211e-8 (<= 2^-26)"
        );
        assert!(lines[5].contains("knuffle lab -a float-scaling"));
    }

    /// The figures `knuffle draw --compat rivest2011` and
    /// `--compat consistent-sampler` print.
    #[test]
    fn rivest_256_bit_words_modulo_1000_and_10() {
        let split = Split::new(Reduction::Modulo, 1000, 256).unwrap();
        assert_eq!(split.remainder(), 936);
        assert_eq!(
            split.quotient().to_string(),
            "115792089237316195423570985008687907853269984665640564039457584007913129639"
        );
        // q*n + r = 2^256, checked limb by limb: (2^256 - r) / n = q exactly.
        let two_256 = Count::power_of_two(256).unwrap();
        assert_eq!(two_256.to_string().len(), 78);
        assert_eq!(two_256.div_rem(1000).0, split.quotient());
        let lines = describe_modulo(1000, 256);
        assert_eq!(
            lines[2],
            "936 values have probability (q+1)/2^256: the 936 lowest, 0 to 935"
        );
        assert_eq!(
            lines[3],
            "64 values have probability q/2^256: the others, 936 to 999"
        );
        assert!(
            lines[4].ends_with("= 8.636e-75 (<= 2^-246)"),
            "{}",
            lines[4]
        );
        let digits = Split::new(Reduction::Modulo, 10, 256).unwrap();
        assert_eq!(digits.remainder(), 6);
        assert_eq!(
            digits.quotient().to_string(),
            "11579208923731619542357098500868790785326998466564056403945758400791312963993"
        );
        assert!(
            Split::new(Reduction::Modulo, 256, 256)
                .unwrap()
                .is_uniform()
        );
        assert!(describe_modulo(256, 256)[1].contains("no bias"));
    }

    /// What the README says of the zoo's two entries: with 8-bit words they
    /// favour the same partners for bounds up to 5 (so the same
    /// distribution for n <= 5), and different ones from bound 6 on.
    #[test]
    fn zoo_words_modulo_and_scaling_part_at_bound_6() {
        let favoured = |reduction, bound| -> Vec<u64> {
            Split::new(reduction, bound, ZOO_WORD_BITS)
                .unwrap()
                .favoured()
                .collect()
        };
        for bound in 2..=5 {
            assert_eq!(
                favoured(Reduction::Modulo, bound),
                favoured(Reduction::FloatScaling, bound)
            );
        }
        assert_eq!(favoured(Reduction::Modulo, 6), [0, 1, 2, 3]);
        assert_eq!(favoured(Reduction::FloatScaling, 6), [0, 1, 3, 4]);
    }

    #[test]
    fn counts_divide_print_and_compare_exactly() {
        let x: u128 = u128::MAX;
        let c = Count::from(x);
        assert_eq!(c.to_string(), x.to_string());
        let (q, r) = c.div_rem(1000);
        assert_eq!((q.to_u128(), r), (Some(x / 1000), (x % 1000) as u64));
        assert_eq!(Count::power_of_two(128).unwrap().to_u128(), None);
        assert_eq!(
            Count::power_of_two(64).unwrap().to_string(),
            "18446744073709551616"
        );
        assert_eq!(Count::power_of_two(320), None);
        assert_eq!(Count::ZERO.to_string(), "0");
        assert_eq!(Count::power_of_two(256).unwrap().bits(), 257);
        assert!(Count::power_of_two(200).unwrap() > Count::from(u128::MAX));
        assert_eq!(
            Count::from(u128::from(u64::MAX)).checked_add_one(),
            Count::power_of_two(64)
        );
        assert_eq!(Count::from(100u128).grouped(), "100");
        assert_eq!(Count::from(1_000u128).grouped(), "1,000");
    }

    #[test]
    fn more_outcomes_than_words_and_rounded_doubles_are_said() {
        let lines = describe_float_scaling(300, 8);
        assert!(lines[1].starts_with("2^8 < 300: only 256 of the 300 values can occur"));
        assert!(lines[2].starts_with("the other 44 values never occur"));
        let js = describe_float_scaling(3, 53);
        assert!(js[1].contains("rounded"), "{js:?}");
        assert!(Split::new(Reduction::Modulo, 0, 8).is_none());
        assert!(Split::new(Reduction::Modulo, 3, 257).is_none());
        assert!(Split::new(Reduction::Modulo, 3, 0).is_none());
        assert_eq!(
            Split::new(Reduction::Modulo, 1, 256).unwrap().high_count(),
            Count::power_of_two(256).unwrap()
        );
    }
}
