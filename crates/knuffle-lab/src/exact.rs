//! Exact mode: every path of an algorithm's random choices, each weighed
//! with its exact probability, summed per order. No sampling noise.
//!
//! The enumerator replays the algorithm once per path, answering its
//! draws from an odometer over the bounds it asked for. A path whose draws
//! had bounds `b1, b2, ...` has probability `1/(b1*b2*...)`. A "draw again
//! while rejected" loop (pick-unused) is enumerated over the accepted
//! values only, each with probability `1/accepted`: exactly the limit of the
//! loop, since the accepted set does not change while it loops.
//!
//! ```
//! use knuffle_lab::{exact, zoo::Algorithm};
//! let d = exact::enumerate(Algorithm::NaiveSwap, 3, exact::DEFAULT_PATH_LIMIT).unwrap();
//! assert_eq!(d.paths, 27);
//! let mut values: Vec<String> = d.probabilities.iter().map(|p| p.to_string()).collect();
//! values.sort();
//! values.dedup();
//! assert_eq!(values, ["4/27", "5/27"]);
//! ```

use std::fmt;

use crate::choices::Choices;
use crate::perm;
use crate::ratio::{Ratio, lcm};
use crate::zoo::{Algorithm, Exact, NoObserver, Observer};

/// The default largest number of paths enumerated (about 67 million).
pub const DEFAULT_PATH_LIMIT: u64 = 1 << 26;

/// The largest `n` for exact mode (`n!` orders are tabulated).
pub const MAX_N: usize = 9;

/// The exact distribution of an algorithm's output over the orders of `n`.
#[derive(Clone, Debug)]
pub struct ExactDistribution {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Number of items.
    pub n: usize,
    /// Number of paths of random choices enumerated.
    pub paths: u64,
    /// Probability of each order, indexed by Lehmer rank ([`perm::rank`]).
    pub probabilities: Vec<Ratio>,
}

impl ExactDistribution {
    /// The least common denominator of all probabilities (e.g. `n^n` for the
    /// naive swap), or `None` on overflow.
    pub fn common_denominator(&self) -> Option<u128> {
        self.probabilities
            .iter()
            .try_fold(1u128, |acc, p| lcm(acc, p.denom()))
    }

    /// Number of orders with positive probability.
    pub fn reachable(&self) -> usize {
        self.probabilities.iter().filter(|p| p.numer() > 0).count()
    }

    /// Whether every order has probability exactly `1/n!`.
    pub fn is_uniform(&self) -> bool {
        let total = self.probabilities.len() as u128;
        self.probabilities
            .iter()
            .all(|p| p.numer() == 1 && p.denom() == total)
    }

    /// The smallest and largest probability over all `n!` orders.
    pub fn extremes(&self) -> (Ratio, Ratio) {
        let min = *self.probabilities.iter().min().expect("n! >= 1");
        let max = *self.probabilities.iter().max().expect("n! >= 1");
        (min, max)
    }

    /// The exact position matrix: `[from][to]` = probability that the item
    /// starting at `from` ends at `to`.
    pub fn position_matrix(&self) -> Vec<Vec<f64>> {
        let n = self.n;
        let mut m = vec![vec![0.0; n]; n];
        for (r, p) in self.probabilities.iter().enumerate() {
            let order = perm::unrank(n, r as u64);
            for (to, &from) in order.iter().enumerate() {
                m[from][to] += p.to_f64();
            }
        }
        m
    }
}

/// Why exact mode could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExactError {
    /// The algorithm's choices cannot be enumerated (e.g. 64-bit keys).
    Unavailable(&'static str),
    /// `n` is above [`MAX_N`].
    TooLarge {
        /// The requested `n`.
        n: usize,
    },
    /// More paths than the limit.
    TooManyPaths {
        /// The limit that was reached.
        limit: u64,
    },
    /// A probability did not fit in 128-bit fractions.
    Overflow,
}

impl fmt::Display for ExactError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExactError::Unavailable(why) => write!(f, "exact mode is not available: {why}"),
            ExactError::TooLarge { n } => write!(
                f,
                "exact mode tabulates all n! orders; n = {n} is above the limit of {MAX_N}"
            ),
            ExactError::TooManyPaths { limit } => write!(
                f,
                "more than {limit} paths of random choices; use a smaller n (or sampling)"
            ),
            ExactError::Overflow => f.write_str("a probability does not fit in 128-bit fractions"),
        }
    }
}

impl std::error::Error for ExactError {}

/// An odometer over the choices of one path.
struct PathChoices {
    /// (chosen index, number of choices) per draw.
    path: Vec<(u64, u64)>,
    depth: usize,
    weight: Option<u128>,
    unavailable: bool,
}

impl PathChoices {
    fn next_choice(&mut self, count: u64) -> u64 {
        let index = if self.depth < self.path.len() {
            debug_assert_eq!(
                self.path[self.depth].1, count,
                "the path must replay identically"
            );
            self.path[self.depth].0
        } else {
            self.path.push((0, count));
            0
        };
        self.depth += 1;
        self.weight = self.weight.and_then(|w| w.checked_mul(u128::from(count)));
        index
    }

    /// Moves to the next path; `false` when all have been visited.
    fn advance(&mut self) -> bool {
        self.path.truncate(self.depth);
        while let Some(last) = self.path.last_mut() {
            if last.0 + 1 < last.1 {
                last.0 += 1;
                return true;
            }
            self.path.pop();
        }
        false
    }
}

impl Choices for PathChoices {
    fn below(&mut self, bound: u64) -> u64 {
        self.next_choice(bound)
    }

    fn below_until<A, O>(&mut self, bound: u64, accept: A, obs: &mut O, _rejected: &str) -> u64
    where
        A: Fn(u64) -> bool,
        O: Observer,
    {
        let accepted = (0..bound).filter(|&v| accept(v)).count() as u64;
        let index = self.next_choice(accepted);
        let value = (0..bound)
            .filter(|&v| accept(v))
            .nth(index as usize)
            .expect("index below the accepted count");
        obs.draw(bound, value);
        value
    }

    fn key(&mut self, bits: u32) -> u128 {
        if bits > 24 {
            self.unavailable = true;
            return 0;
        }
        u128::from(self.next_choice(1 << bits))
    }
}

/// Enumerates every path of `algorithm`'s choices on `n` items (at most
/// `path_limit` paths) and returns the exact probability of each order.
pub fn enumerate(
    algorithm: Algorithm,
    n: usize,
    path_limit: u64,
) -> Result<ExactDistribution, ExactError> {
    if let Some(why) = algorithm.exact_unavailable() {
        return Err(ExactError::Unavailable(why));
    }
    if n > MAX_N {
        return Err(ExactError::TooLarge { n });
    }
    // Known path counts: refuse at once rather than after `path_limit` paths.
    let known_paths: Option<u128> = match algorithm.exact() {
        Exact::Paths(count) => count(n),
        Exact::Walk | Exact::Unavailable(_) => Some(0),
    };
    if known_paths.is_none_or(|p| p > u128::from(path_limit)) {
        return Err(ExactError::TooManyPaths { limit: path_limit });
    }
    let orders = perm::factorial(n).expect("n <= 9") as usize;
    let mut probabilities = vec![Ratio::ZERO; orders];
    let mut choices = PathChoices {
        path: Vec::new(),
        depth: 0,
        weight: Some(1),
        unavailable: false,
    };
    let mut items: Vec<usize> = Vec::with_capacity(n);
    let mut paths = 0u64;
    loop {
        if paths == path_limit {
            return Err(ExactError::TooManyPaths { limit: path_limit });
        }
        items.clear();
        items.extend(0..n);
        choices.depth = 0;
        choices.weight = Some(1);
        algorithm.run_with(&mut items, &mut choices, &mut NoObserver);
        if choices.unavailable {
            return Err(ExactError::Unavailable(
                "the algorithm draws keys too wide to enumerate",
            ));
        }
        paths += 1;
        let weight = choices.weight.ok_or(ExactError::Overflow)?;
        let r = perm::rank(&items) as usize;
        let p = Ratio::new(1, weight).ok_or(ExactError::Overflow)?;
        probabilities[r] = probabilities[r]
            .checked_add(p)
            .ok_or(ExactError::Overflow)?;
        if !choices.advance() {
            break;
        }
    }
    Ok(ExactDistribution {
        algorithm,
        n,
        paths,
        probabilities,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zoo::{ALL, Fairness};

    fn total(d: &ExactDistribution) -> Ratio {
        d.probabilities
            .iter()
            .fold(Ratio::ZERO, |a, &p| a.checked_add(p).unwrap())
    }

    #[test]
    fn naive_swap_known_values() {
        let d3 = enumerate(Algorithm::NaiveSwap, 3, DEFAULT_PATH_LIMIT).unwrap();
        assert_eq!(d3.common_denominator(), Some(27));
        let (lo, hi) = d3.extremes();
        assert_eq!(
            (lo.to_string(), hi.to_string()),
            ("4/27".into(), "5/27".into())
        );
        let d4 = enumerate(Algorithm::NaiveSwap, 4, DEFAULT_PATH_LIMIT).unwrap();
        assert_eq!(d4.paths, 256);
        assert_eq!(d4.common_denominator(), Some(256));
        let (lo, hi) = d4.extremes();
        assert_eq!(lo.numer_over(256), Some(8));
        assert_eq!(hi.numer_over(256), Some(15));
    }

    #[test]
    fn every_enumerable_algorithm_matches_its_stated_fairness() {
        for &a in ALL {
            // 8-bit keys: 2^16 paths for n = 2 (2^24 for n = 3 is slow in
            // tests); 8-bit words: 2^16 paths for n = 3 (2^24 for n = 4).
            let sizes: &[usize] = match a {
                Algorithm::KeyCollisions => &[2],
                Algorithm::ModuloReduction | Algorithm::FloatScaling => &[3],
                _ => &[3, 4],
            };
            for &n in sizes {
                match enumerate(a, n, DEFAULT_PATH_LIMIT) {
                    Ok(d) => {
                        assert_eq!(total(&d), Ratio::new(1, 1).unwrap(), "{a} n={n}");
                        match a.fairness() {
                            Fairness::Uniform => assert!(d.is_uniform(), "{a} n={n}"),
                            Fairness::Biased => assert!(!d.is_uniform(), "{a} n={n}"),
                            Fairness::UniformOverCycles => {
                                assert_eq!(d.reachable(), (1..n).product::<usize>());
                                let (lo, hi) = d.extremes();
                                assert_eq!(lo, Ratio::ZERO);
                                assert_eq!(hi.denom(), (1..n).product::<usize>() as u128);
                            }
                            Fairness::UniformUpToTies => unreachable!(),
                        }
                    }
                    Err(ExactError::Unavailable(_)) => {
                        assert_eq!(a.fairness(), Fairness::UniformUpToTies)
                    }
                    Err(e) => panic!("{a}: {e}"),
                }
            }
        }
    }

    #[test]
    fn reduced_words_favour_the_partners_the_reduction_module_names() {
        use crate::reduction::{Reduction, Split, ZOO_WORD_BITS};
        // n = 3: partners from 0..3 (biased: 256 = 85*3 + 1), then 0..2
        // (exact). Each order has probability count(j)/256 * 1/2.
        for (algorithm, reduction) in [
            (Algorithm::ModuloReduction, Reduction::Modulo),
            (Algorithm::FloatScaling, Reduction::FloatScaling),
        ] {
            let d = enumerate(algorithm, 3, DEFAULT_PATH_LIMIT).unwrap();
            assert_eq!(d.paths, 1 << 16);
            let split = Split::new(reduction, 3, ZOO_WORD_BITS).unwrap();
            let high = split.high_count().to_u128().unwrap();
            let low = split.low_count().to_u128().unwrap();
            assert_eq!((high, low), (86, 85));
            let (lo, hi) = d.extremes();
            assert_eq!(lo.numer_over(512), Some(low));
            assert_eq!(hi.numer_over(512), Some(high));
            let favoured = d.probabilities.iter().filter(|&&p| p == hi).count();
            assert_eq!(favoured, 2 * split.favoured().count());
        }
    }

    #[test]
    fn limits_are_reported() {
        assert_eq!(
            enumerate(Algorithm::NaiveSwap, 8, 1000).unwrap_err(),
            ExactError::TooManyPaths { limit: 1000 }
        );
        assert!(matches!(
            enumerate(Algorithm::SortKeys, 3, 1000),
            Err(ExactError::Unavailable(_))
        ));
        assert!(matches!(
            enumerate(Algorithm::FisherYates, 12, 1000),
            Err(ExactError::TooLarge { n: 12 })
        ));
    }
}
