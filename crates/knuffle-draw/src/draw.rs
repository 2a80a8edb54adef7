//! The draw itself: indices from the key's stream.
//!
//! `perm`: forward Fisher-Yates on the indices `0..n` (Durstenfeld 1964, run
//! from the front so that the first `k` positions are final after `k` steps):
//! for `i` in `0..min(k, n-1)`, `j = i + below(n-i)`, swap `a[i]` and `a[j]`;
//! the result is `a[0..k]`. `replace`: `k` draws of `below(n)`. `below` is
//! [`knuffle::below`] (Lemire 2019, exact rejection), one call per draw.
//! Both read the stream in the same order whatever `k` is, so the first `k`
//! items of a larger draw are the smaller draw.

use std::collections::HashMap;
use std::fmt;

use crate::key::Mode;
use crate::limits::LimitError;
use crate::stream::Sha256Stream;

/// A draw that cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DrawError {
    /// The population is empty and something was asked for.
    EmptyPopulation,
    /// More items than the population holds, without replacement.
    TooMany {
        /// Asked for.
        k: u64,
        /// Available.
        n: u64,
    },
    /// A bound on hostile numbers (a range too large to digest, a draw
    /// too large for memory).
    Limit(LimitError),
}

impl From<LimitError> for DrawError {
    fn from(e: LimitError) -> DrawError {
        DrawError::Limit(e)
    }
}

impl fmt::Display for DrawError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DrawError::EmptyPopulation => f.write_str("the population is empty"),
            DrawError::TooMany { k, n } => write!(
                f,
                "cannot draw {k} items without replacement from a population of {n} \
                 (use --replace to draw with replacement)"
            ),
            DrawError::Limit(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for DrawError {}

/// The `k` indices drawn from `0..n` with `key` in `mode`, collected.
///
/// Memory is O(k) whatever `n` is: the Fisher-Yates array is kept as the
/// positions that moved. The caller bounds `k` (see [`crate::limits`]);
/// nothing is reserved in advance, so a `k` larger than memory fails only
/// as memory runs out. [`draws`] gives the same indices one at a time.
pub fn draw_indices(key: [u8; 32], mode: Mode, n: u64, k: u64) -> Result<Vec<u64>, DrawError> {
    Ok(draws(key, mode, n, k)?.collect())
}

/// The `k` indices drawn from `0..n` with `key` in `mode`, one at a time:
/// `replace` in constant memory (any `k`), `perm` with the moved positions
/// of Fisher-Yates (at most one entry per draw so far).
pub fn draws(key: [u8; 32], mode: Mode, n: u64, k: u64) -> Result<Draws, DrawError> {
    if k > 0 && n == 0 {
        return Err(DrawError::EmptyPopulation);
    }
    if mode == Mode::Perm && k > n {
        return Err(DrawError::TooMany { k, n });
    }
    Ok(Draws {
        stream: Sha256Stream::new(key),
        mode,
        n,
        k,
        i: 0,
        moved: HashMap::new(),
    })
}

/// The indices of a draw, in order (see [`draws`]).
#[derive(Debug)]
pub struct Draws {
    stream: Sha256Stream,
    mode: Mode,
    n: u64,
    k: u64,
    i: u64,
    moved: HashMap<u64, u64>,
}

impl Iterator for Draws {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.i == self.k {
            return None;
        }
        let i = self.i;
        self.i += 1;
        let n = self.n;
        Some(match self.mode {
            Mode::Replace => knuffle::below(n, &mut self.stream),
            Mode::Perm if i == n - 1 => {
                // The last position has one choice: no draw.
                self.moved.remove(&i).unwrap_or(i)
            }
            Mode::Perm => {
                let j = i + knuffle::below(n - i, &mut self.stream);
                let at_i = self.moved.remove(&i).unwrap_or(i);
                if j == i {
                    at_i
                } else {
                    self.moved.insert(j, at_i).unwrap_or(j)
                }
            }
        })
    }

    /// The lower bound is capped: `collect` reserves it up front, and `k`
    /// may be far more than memory holds.
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.k - self.i;
        (
            usize::try_from(left.min(1 << 12)).unwrap_or(0),
            usize::try_from(left).ok(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_perm_is_a_permutation() {
        let mut got = draw_indices([1; 32], Mode::Perm, 10, 10).unwrap();
        got.sort_unstable();
        assert_eq!(got, (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn growing_k_extends_the_draw() {
        for mode in [Mode::Perm, Mode::Replace] {
            let big = draw_indices([9; 32], mode, 50, 50).unwrap();
            for k in 0..=50 {
                assert_eq!(
                    draw_indices([9; 32], mode, 50, k).unwrap(),
                    big[..k as usize]
                );
            }
        }
    }

    /// The draw as first written (a vector of results, a map updated with
    /// look-ups and removals), kept as the oracle of the iterator.
    fn oracle(key: [u8; 32], mode: Mode, n: u64, k: u64) -> Vec<u64> {
        let mut stream = Sha256Stream::new(key);
        if mode == Mode::Replace {
            return (0..k).map(|_| knuffle::below(n, &mut stream)).collect();
        }
        let mut moved: HashMap<u64, u64> = HashMap::new();
        let mut out = Vec::new();
        for i in 0..k {
            if i == n - 1 {
                out.push(*moved.get(&i).unwrap_or(&i));
                break;
            }
            let j = i + knuffle::below(n - i, &mut stream);
            let at_i = *moved.get(&i).unwrap_or(&i);
            let at_j = *moved.get(&j).unwrap_or(&j);
            moved.insert(j, at_i);
            moved.remove(&i);
            out.push(at_j);
        }
        out
    }

    #[test]
    fn the_iterator_draws_as_the_first_version_did() {
        for mode in [Mode::Perm, Mode::Replace] {
            for n in 1..=9 {
                for k in 0..=n {
                    let key = [n as u8 ^ 0x5a; 32];
                    assert_eq!(
                        draw_indices(key, mode, n, k).unwrap(),
                        oracle(key, mode, n, k),
                        "{mode:?} n={n} k={k}"
                    );
                }
            }
        }
    }

    #[test]
    fn perm_memory_holds_at_most_one_entry_per_draw() {
        let mut draws = draws([3; 32], Mode::Perm, 1_000_000_000, 1000).unwrap();
        for i in 1..=1000 {
            draws.next().unwrap();
            assert!(draws.moved.len() <= i);
        }
        assert_eq!(draws.next(), None);
    }

    #[test]
    fn replace_streams_any_k_in_constant_memory() {
        // k = 2^64 - 1 costs nothing until the draws are read.
        let mut draws = draws([4; 32], Mode::Replace, 10, u64::MAX).unwrap();
        assert_eq!(draws.size_hint(), (1 << 12, usize::try_from(u64::MAX).ok()));
        let first: Vec<u64> = draws.by_ref().take(5).collect();
        assert_eq!(first, draw_indices([4; 32], Mode::Replace, 10, 5).unwrap());
        assert!(draws.moved.is_empty());
    }

    #[test]
    fn impossible_draws_are_errors() {
        assert_eq!(
            draw_indices([0; 32], Mode::Perm, 3, 4),
            Err(DrawError::TooMany { k: 4, n: 3 })
        );
        assert_eq!(
            draw_indices([0; 32], Mode::Replace, 0, 1),
            Err(DrawError::EmptyPopulation)
        );
        assert_eq!(draw_indices([0; 32], Mode::Perm, 0, 0), Ok(vec![]));
    }
}
