//! Choosing from a slice: one element ([`choose`]), `k` distinct elements
//! ([`sample`]), and one element with probability proportional to a weight
//! ([`choose_weighted`], [`WeightedIndex`]).
//!
//! Every choice goes through [`below`], so it is exactly uniform (or exactly
//! proportional to the integer weights): no `% n`, no float scaling.

use alloc::vec::Vec;
use core::fmt;

use rand_core::Rng;

use crate::bounded::below;
use crate::sample::sample_indices_usize;

/// A uniformly chosen element of `items`, or `None` when it is empty.
/// One bounded draw ([`below`]).
///
/// # Example
/// ```
/// use knuffle::{choose, Seed};
/// let mut rng = Seed::from_text("dinner").rng();
/// let dish = choose(&["soup", "pasta", "curry"], &mut rng).unwrap();
/// assert!(["soup", "pasta", "curry"].contains(dish));
/// assert_eq!(choose(&[] as &[u8], &mut rng), None);
/// ```
#[must_use]
pub fn choose<'a, T, R: Rng + ?Sized>(items: &'a [T], rng: &mut R) -> Option<&'a T> {
    if items.is_empty() {
        return None;
    }
    Some(&items[below(items.len() as u64, rng) as usize])
}

/// [`choose`], giving a mutable reference (the same draw, the same element).
///
/// # Example
/// ```
/// use knuffle::{choose_mut, Seed};
/// let mut scores = [0u32; 4];
/// *choose_mut(&mut scores, &mut Seed::from_text("bonus").rng()).unwrap() += 10;
/// assert_eq!(scores.iter().sum::<u32>(), 10);
/// ```
#[must_use]
pub fn choose_mut<'a, T, R: Rng + ?Sized>(items: &'a mut [T], rng: &mut R) -> Option<&'a mut T> {
    if items.is_empty() {
        return None;
    }
    let index = below(items.len() as u64, rng) as usize;
    Some(&mut items[index])
}

/// `k` distinct elements of `items` (distinct positions), every
/// `k`-subset equally likely, in uniformly random order; all of them, in
/// random order, when `k >= items.len()`. O(k) time and memory, whatever
/// the length: the positions come from [`sample_indices_usize`] (Floyd's
/// algorithm).
///
/// # Example
/// ```
/// use knuffle::{sample, Seed};
/// let mut rng = Seed::from_text("jury").rng();
/// let people: Vec<u32> = (0..1_000_000).collect();
/// let jury = sample(&people, 12, &mut rng);
/// assert_eq!(jury.len(), 12);
/// let mut distinct = jury.clone();
/// distinct.sort();
/// distinct.dedup();
/// assert_eq!(distinct.len(), 12);
/// assert_eq!(sample(&[1, 2, 3], 10, &mut rng).len(), 3);
/// ```
#[must_use]
pub fn sample<'a, T, R: Rng + ?Sized>(items: &'a [T], k: usize, rng: &mut R) -> Vec<&'a T> {
    sample_indices_usize(items.len(), k.min(items.len()), rng)
        .into_iter()
        .map(|index| &items[index])
        .collect()
}

/// One element of `items`, element `i` with probability
/// `weight(&items[i]) / (sum of the weights)`. Builds a [`WeightedIndex`]
/// (O(n)) and draws once; build the index yourself to draw many times.
///
/// Integer weights are exact: the probabilities are exactly the ratios of
/// the integers. Float weights are converted to integers first, exactly
/// when they are multiples of a common power of two (see [`Weight`]).
///
/// # Errors
/// [`WeightError`] when `items` is empty, every weight is zero, a float
/// weight is negative or not finite, or the integer weights add up to more
/// than `u64::MAX`.
///
/// # Example
/// ```
/// use knuffle::{choose_weighted, Seed};
/// let mut rng = Seed::from_text("loaded die").rng();
/// let faces = [(1, 1u32), (2, 1), (3, 1), (4, 1), (5, 1), (6, 5)];
/// let (face, _) = choose_weighted(&faces, |&(_, w)| w, &mut rng).unwrap();
/// assert!((1..=6).contains(face));
/// assert!(choose_weighted(&faces, |_| 0u32, &mut rng).is_err());
/// ```
pub fn choose_weighted<'a, T, W, F, R>(
    items: &'a [T],
    weight: F,
    rng: &mut R,
) -> Result<&'a T, WeightError>
where
    W: Weight,
    F: FnMut(&T) -> W,
    R: Rng + ?Sized,
{
    let index = WeightedIndex::new(items.iter().map(weight))?;
    Ok(&items[index.draw(rng)])
}

/// Draws indices `0..n` with probabilities proportional to fixed weights,
/// exactly: the weights become integers `w_i` with total `W`
/// (see [`Weight`]), a draw is one exactly uniform `u` in `0..W`
/// ([`below`]), and the result is the `i` with
/// `w_0 + ... + w_(i-1) <= u < w_0 + ... + w_i` (binary search over the
/// cumulative sums, O(log n) per draw). Each index has probability exactly
/// `w_i / W`; a zero weight is never drawn. This is the inversion method
/// on integers (L. Devroye, "Non-Uniform Random Variate Generation",
/// Springer 1986, §III.2), with no floating point at draw time.
///
/// # Example
/// ```
/// use knuffle::{Seed, WeightedIndex};
/// let mut rng = Seed::from_text("weights").rng();
/// let index = WeightedIndex::new([1u64, 0, 3]).unwrap();
/// let mut seen = [0u32; 3];
/// for _ in 0..4000 {
///     seen[index.draw(&mut rng)] += 1;
/// }
/// assert_eq!(seen[1], 0);
/// assert!(seen[2] > 2 * seen[0]);
/// assert_eq!(index.total(), 4);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightedIndex {
    /// `cumulative[i] = w_0 + ... + w_i`; the last one is the total.
    cumulative: Vec<u64>,
}

impl WeightedIndex {
    /// The index for these weights (integers, or floats converted as
    /// [`Weight`] describes).
    ///
    /// # Errors
    /// [`WeightError`] when there is no weight, every weight is zero, a
    /// float weight is negative or not finite, or the integer weights add
    /// up to more than `u64::MAX`.
    ///
    /// # Example
    /// ```
    /// use knuffle::{WeightError, WeightedIndex};
    /// assert_eq!(WeightedIndex::new([0.5, 0.25, 0.25]).unwrap().total(), 1 << 60);
    /// assert_eq!(WeightedIndex::new([u64::MAX, 1]), Err(WeightError::Overflow));
    /// assert_eq!(WeightedIndex::new([1.0, -1.0]), Err(WeightError::Invalid { index: 1 }));
    /// ```
    pub fn new<W: Weight, I: IntoIterator<Item = W>>(weights: I) -> Result<Self, WeightError> {
        let weights: Vec<W> = weights.into_iter().collect();
        let integers = W::to_integers(&weights)?;
        let mut cumulative = Vec::with_capacity(integers.len());
        let mut total = 0u64;
        for weight in integers {
            total = total.checked_add(weight).ok_or(WeightError::Overflow)?;
            cumulative.push(total);
        }
        match total {
            _ if cumulative.is_empty() => Err(WeightError::Empty),
            0 => Err(WeightError::AllZero),
            _ => Ok(WeightedIndex { cumulative }),
        }
    }

    /// One index, index `i` with probability exactly `w_i / total`.
    #[must_use]
    pub fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let u = below(self.total(), rng);
        // The first i whose cumulative sum exceeds u.
        self.cumulative.partition_point(|&sum| sum <= u)
    }

    /// The sum of the integer weights (the denominator of every
    /// probability).
    #[must_use]
    pub fn total(&self) -> u64 {
        *self.cumulative.last().expect("never empty")
    }

    /// The number of weights.
    #[must_use]
    pub fn len(&self) -> usize {
        self.cumulative.len()
    }

    /// Always `false`: an index has at least one weight.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.cumulative.is_empty()
    }
}

/// Why weights cannot be drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WeightError {
    /// There are no weights.
    Empty,
    /// Every weight is zero.
    AllZero,
    /// The weight at `index` is negative, NaN or infinite.
    Invalid {
        /// The position of the first such weight.
        index: usize,
    },
    /// The integer weights add up to more than `u64::MAX`.
    Overflow,
}

impl fmt::Display for WeightError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightError::Empty => f.write_str("no weights to choose from"),
            WeightError::AllZero => f.write_str("every weight is zero"),
            WeightError::Invalid { index } => {
                write!(f, "weight {index} is negative, NaN or infinite")
            }
            WeightError::Overflow => f.write_str("the weights add up to more than 2^64 - 1"),
        }
    }
}

impl core::error::Error for WeightError {}

/// A weight type: how a list of weights becomes the exact integers that
/// [`WeightedIndex`] draws from.
///
/// * Unsigned integers (`u8` to `u64`, `usize`) are used as they are: the
///   probabilities are exactly `w_i / sum`, and the sum must fit in `u64`.
/// * Floats (`f32`, `f64`) must be finite and non-negative. They are all
///   scaled by one power of two `2^s`, chosen so that the largest weight
///   lands in `[2^(61-m), 2^(62-m))`, where `2^m` is the smallest power of
///   two at least `n` (the number of weights): the sum stays below `2^62`.
///   Each scaled weight is then rounded down to an integer. Scaling by a
///   power of two is exact in binary floating point, so the only rounding
///   is that floor: the result is **exact** when every weight is a
///   multiple of `2^-s` (integers, halves, quarters, ... of moderate size;
///   `[0.5, 0.25, 0.25]` is drawn exactly), and otherwise each weight
///   loses less than one unit out of a total of at least `2^(61-m)`, so
///   each probability is off by less than about `2n / 2^61`. A weight below
///   `2^-s` (more than about `2^61 / n` times smaller than the largest)
///   becomes zero and is never drawn. Decimal
///   fractions such as `0.1` are not binary fractions, so they are never
///   exact; give integer weights (e.g. per-mille) where exact ratios
///   matter.
pub trait Weight: Copy {
    /// The exact integer weights for `weights`, or why there are none.
    ///
    /// # Errors
    /// [`WeightError::Invalid`] for a negative, NaN or infinite float.
    fn to_integers(weights: &[Self]) -> Result<Vec<u64>, WeightError>;
}

macro_rules! integer_weight {
    ($($t:ty),*) => {$(
        impl Weight for $t {
            fn to_integers(weights: &[$t]) -> Result<Vec<u64>, WeightError> {
                weights
                    .iter()
                    .map(|&w| u64::try_from(w).map_err(|_| WeightError::Overflow))
                    .collect()
            }
        }
    )*};
}
integer_weight!(u8, u16, u32, u64, usize);

impl Weight for f64 {
    fn to_integers(weights: &[f64]) -> Result<Vec<u64>, WeightError> {
        let mut largest = 0.0f64;
        for (index, &w) in weights.iter().enumerate() {
            if !(w.is_finite() && w >= 0.0) {
                return Err(WeightError::Invalid { index });
            }
            largest = largest.max(w);
        }
        let Some(scale) = FloatScale::new(weights.len(), largest) else {
            return Ok(alloc::vec![0; weights.len()]);
        };
        Ok(weights.iter().map(|&w| scale.integer(w)).collect())
    }
}

/// The conversion of `n` float weights to integers that [`Weight`] makes
/// (one power of two for all, then a floor), one weight at a time: for
/// weights read from a stream, where the list is never held (a first pass
/// finds `n` and the largest weight, a later one converts each weight),
/// giving the integers [`WeightedIndex::new`] would give the whole list.
///
/// # Example
/// ```
/// use knuffle::{FloatScale, Weight};
/// let weights = [0.1, 2.5, 7.0];
/// let scale = FloatScale::new(weights.len(), 7.0).unwrap();
/// let one_at_a_time: Vec<u64> = weights.iter().map(|&w| scale.integer(w)).collect();
/// assert_eq!(one_at_a_time, f64::to_integers(&weights).unwrap());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatScale {
    shift: i32,
}

impl FloatScale {
    /// The scale of `n` weights whose largest is `largest`; `None` when
    /// `largest` is not finite and positive (every weight zero, or
    /// invalid).
    #[must_use]
    pub fn new(n: usize, largest: f64) -> Option<FloatScale> {
        if !(largest.is_finite() && largest > 0.0) {
            return None;
        }
        // Largest scaled weight in [2^(62 - m - 1), 2^(62 - m)) with
        // 2^m >= n: the sum stays below 2^62 * n / 2^m <= 2^62.
        let m = usize::BITS - n.saturating_sub(1).leading_zeros();
        let target = 62 - m as i32;
        Some(FloatScale {
            shift: target - 1 - exponent(largest),
        })
    }

    /// The integer weight of `weight` (finite, at least 0, at most the
    /// largest): `floor(weight * 2^s)`.
    #[must_use]
    pub fn integer(self, weight: f64) -> u64 {
        scale_by_power_of_two(weight, self.shift) as u64
    }
}

impl Weight for f32 {
    fn to_integers(weights: &[f32]) -> Result<Vec<u64>, WeightError> {
        // f32 -> f64 is exact.
        let wide: Vec<f64> = weights.iter().map(|&w| f64::from(w)).collect();
        f64::to_integers(&wide)
    }
}

/// `e` with `2^e <= x < 2^(e+1)`, for finite `x > 0` (subnormals included).
fn exponent(x: f64) -> i32 {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: x = mantissa * 2^-1074.
        let mantissa = bits & ((1 << 52) - 1);
        63 - mantissa.leading_zeros() as i32 - 1074
    } else {
        biased - 1023
    }
}

/// `x * 2^shift`, exactly (the result stays below 2^63, so it is a normal
/// number; parts of `x` below `2^-shift` are lost only by the later floor,
/// or by underflow of a product below the smallest subnormal, which the
/// floor would have removed anyway).
fn scale_by_power_of_two(x: f64, mut shift: i32) -> f64 {
    let mut value = x;
    // Steps of at most 2^1000 keep every factor a normal, exact power of two.
    while shift != 0 {
        let step = shift.clamp(-1000, 1000);
        value *= f64::from_bits(((1023 + step) as u64) << 52);
        shift -= step;
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Seed;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    #[test]
    fn dyadic_float_weights_are_exact_integers() {
        let index = WeightedIndex::new([0.5f64, 0.25, 0.25]).unwrap();
        let w: Vec<u64> = core::iter::once(index.cumulative[0])
            .chain(index.cumulative.windows(2).map(|p| p[1] - p[0]))
            .collect();
        assert_eq!(w, [1 << 59, 1 << 58, 1 << 58]);
        // Integer-valued floats keep their ratios exactly.
        let index = WeightedIndex::new([3.0f64, 1.0]).unwrap();
        assert_eq!(index.cumulative[0] * 4, index.total() * 3);
        // Tiny and subnormal weights.
        assert!(WeightedIndex::new([f64::MIN_POSITIVE / 8.0]).is_ok());
        let huge = WeightedIndex::new([f64::MAX, f64::MAX]).unwrap();
        assert_eq!(huge.cumulative[0] * 2, huge.total());
        assert!(huge.total() <= 1 << 62);
        assert_eq!(
            WeightedIndex::new([f64::NAN]),
            Err(WeightError::Invalid { index: 0 })
        );
        assert_eq!(WeightedIndex::new([0.0f32]), Err(WeightError::AllZero));
        assert_eq!(
            WeightedIndex::new(Vec::<u8>::new()),
            Err(WeightError::Empty)
        );
    }

    #[test]
    fn draws_follow_the_integer_weights() {
        // Weights 1:2:0:5 over 80 000 draws: each count within 5 standard
        // deviations of its expectation; a uniform choice fails this.
        let weights = [1u32, 2, 0, 5];
        let index = WeightedIndex::new(weights).unwrap();
        let mut rng = Seed::from_text("weighted").rng();
        let mut counts = [0f64; 4];
        let draws = 80_000.0;
        for _ in 0..80_000 {
            counts[index.draw(&mut rng)] += 1.0;
        }
        let close = |counts: &[f64; 4], p: [f64; 4]| {
            counts.iter().zip(p).all(|(&c, p)| {
                let sd = (draws * p * (1.0 - p)).sqrt().max(1.0);
                (c - draws * p).abs() <= 5.0 * sd
            })
        };
        assert!(close(&counts, [1.0 / 8.0, 2.0 / 8.0, 0.0, 5.0 / 8.0]));
        assert!(!close(&counts, [0.25; 4]), "a uniform choice must fail");
    }

    #[test]
    fn boundaries_of_the_cumulative_sums() {
        // Weights 2, 3 (total 5): u = 0, 1 -> 0; u = 2, 3, 4 -> 1.
        let index = WeightedIndex::new([2u8, 3]).unwrap();
        let pick = |u: u64| index.cumulative.partition_point(|&s| s <= u);
        assert_eq!((0..5).map(pick).collect::<Vec<_>>(), [0, 0, 1, 1, 1]);
    }
}
