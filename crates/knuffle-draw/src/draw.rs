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
        }
    }
}

impl std::error::Error for DrawError {}

/// The `k` indices drawn from `0..n` with `key` in `mode`.
///
/// Memory is O(k) whatever `n` is: the Fisher-Yates array is kept as the
/// positions that moved.
pub fn draw_indices(key: [u8; 32], mode: Mode, n: u64, k: u64) -> Result<Vec<u64>, DrawError> {
    if k == 0 {
        return Ok(Vec::new());
    }
    if n == 0 {
        return Err(DrawError::EmptyPopulation);
    }
    let mut stream = Sha256Stream::new(key);
    match mode {
        Mode::Replace => Ok((0..k).map(|_| knuffle::below(n, &mut stream)).collect()),
        Mode::Perm => {
            if k > n {
                return Err(DrawError::TooMany { k, n });
            }
            let mut moved: HashMap<u64, u64> = HashMap::new();
            let mut out = Vec::with_capacity(k as usize);
            for i in 0..k {
                if i == n - 1 {
                    // The last position has one choice: no draw.
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
            Ok(out)
        }
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
