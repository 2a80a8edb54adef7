//! Weighted sampling without replacement, exactly.
//!
//! Successive sampling (the definition of weighted sampling without
//! replacement; e.g. C.-T. Wong and M. C. Easton, "An efficient method for
//! weighted sampling without replacement", SIAM J. Comput. 9(1), 1980): draw
//! one item with probability `w_i / W` among those left, remove it, repeat.
//! Weights are integers (`u128`), kept in a Fenwick tree (P. M. Fenwick, "A
//! new data structure for cumulative frequency tables", Software: Practice
//! and Experience 24(3), 1994), so each draw is an exactly uniform integer
//! in `0..W` and a search in O(log n): no floating point decides anything.

use knuffle::DefaultRng;
use rand_core::Rng;

/// An exactly uniform integer in `0..bound` (`bound > 0`).
///
/// Up to `u64::MAX`, `knuffle::below` (Lemire's method); above, bitmask with
/// rejection (draw just enough bits, retry when the value is too large;
/// M. E. O'Neill, "Efficiently Generating a Number in a Range", 2018):
/// each try succeeds with probability above 1/2.
fn below_u128(rng: &mut DefaultRng, bound: u128) -> u128 {
    if let Ok(small) = u64::try_from(bound) {
        return u128::from(knuffle::below(small, rng));
    }
    let mask = u128::MAX >> (bound - 1).leading_zeros();
    loop {
        let high = u128::from(rng.next_u64());
        let low = u128::from(rng.next_u64());
        let value = ((high << 64) | low) & mask;
        if value < bound {
            return value;
        }
    }
}

/// A Fenwick tree of `u128` weights.
struct Fenwick {
    tree: Vec<u128>,
}

impl Fenwick {
    fn new(weights: &[u128]) -> Fenwick {
        // Linear-time construction: each node adds itself to its parent.
        let n = weights.len();
        let mut tree = weights.to_vec();
        for i in 0..n {
            let parent = i | (i + 1);
            if parent < n {
                tree[parent] += tree[i];
            }
        }
        Fenwick { tree }
    }

    fn subtract(&mut self, mut index: usize, amount: u128) {
        while index < self.tree.len() {
            self.tree[index] -= amount;
            index |= index + 1;
        }
    }

    /// The index `i` with `prefix(i) <= target < prefix(i + 1)`.
    fn find(&self, mut target: u128) -> usize {
        let n = self.tree.len();
        let mut position = 0; // count of items known to lie before the answer
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = position + step;
            if next <= n && self.tree[next - 1] <= target {
                target -= self.tree[next - 1];
                position = next;
            }
            step >>= 1;
        }
        position
    }
}

/// `k` distinct indices drawn by successive sampling with integer weights,
/// in the order drawn. The caller checks that `k` is at most the number of
/// positive weights and that the total fits in `u128`.
pub fn sample(weights: &[u128], k: usize, rng: &mut DefaultRng) -> Vec<u64> {
    let mut tree = Fenwick::new(weights);
    let mut left = weights.iter().sum::<u128>();
    let mut chosen = Vec::with_capacity(k);
    for _ in 0..k {
        let index = tree.find(below_u128(rng, left));
        let weight = weights[index];
        tree.subtract(index, weight);
        left -= weight;
        chosen.push(index as u64);
    }
    chosen
}

/// `k` independent draws with replacement, index `i` each time with
/// probability exactly `weights[i] / total`: inversion on integers (L.
/// Devroye, Non-Uniform Random Variate Generation, 1986, §III.2), one
/// exact draw below the total per draw, found in the Fenwick tree. The
/// caller checks that the total is positive and fits in `u128`.
pub fn draws(weights: &[u128], k: usize, rng: &mut DefaultRng) -> Vec<u64> {
    let tree = Fenwick::new(weights);
    let total = weights.iter().sum::<u128>();
    (0..k)
        .map(|_| tree.find(below_u128(rng, total)) as u64)
        .collect()
}

/// Float weights as exact integers: each finite weight `m * 2^e` (a 53-bit
/// integer `m`) is multiplied by one power of two `2^s`, chosen so that the
/// largest becomes about `2^(126 - bits(n))` and the total stays below
/// `2^127`. Multiplying by a power of two is exact; only the part of a
/// weight below `2^-s` is dropped, that is below `2^-(125 - bits(n))` of the
/// largest weight (weights within a factor `2^(72 - bits(n))` of the largest
/// are used exactly), and a positive weight never becomes 0.
pub fn float_weights_to_integers(weights: &[f64]) -> Vec<u128> {
    let largest = weights.iter().copied().fold(0.0_f64, f64::max);
    if largest == 0.0 {
        return vec![0; weights.len()];
    }
    let index_bits = 64 - (weights.len() as u64).leading_zeros() as i32;
    let target_top = 126 - index_bits; // bit position of the largest weight
    let (_, largest_exp) = decompose(largest);
    let largest_top = largest_exp + 52; // top bit of m is bit 52 for normal numbers
    let shift_all = target_top - largest_top;
    weights
        .iter()
        .map(|&w| {
            if w == 0.0 {
                return 0;
            }
            let (mantissa, exp) = decompose(w);
            let shift = exp + shift_all;
            let scaled = if shift >= 0 {
                u128::from(mantissa) << shift
            } else if shift > -64 {
                u128::from(mantissa >> (-shift))
            } else {
                0
            };
            // A positive weight stays positive (one unit at least): it can
            // still be drawn, as it must be once the others are used up.
            scaled.max(1)
        })
        .collect()
}

/// `w = mantissa * 2^exp` for a finite positive `w`, `mantissa < 2^53`.
fn decompose(w: f64) -> (u64, i32) {
    let bits = w.to_bits();
    let exp_field = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    if exp_field == 0 {
        (fraction, -1074) // subnormal
    } else {
        (fraction | (1 << 52), exp_field - 1075)
    }
}
