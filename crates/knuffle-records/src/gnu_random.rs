//! `--random-source=FILE`: GNU shuf's way of turning a byte stream into
//! choices, re-implemented so the output is byte-identical to GNU's.
//!
//! Sources (read, not copied): coreutils/gnulib `randint.c`
//! (`randint_genmax`), `randperm.c` (`randperm_new`, `randperm_bound`) and
//! `randread.c` (byte reading and its "end of file" error), by Paul Eggert.
//!
//! `randint_genmax` keeps a buffered random integer `randnum`, uniform in
//! `0..=randmax`. To draw from `0..=genmax` it appends whole bytes until
//! `randmax >= genmax`, then accepts `randnum % (genmax + 1)` when `randnum`
//! lies in the largest multiple of `genmax + 1` below `randmax`, keeping the
//! quotient as leftover randomness; otherwise it retries with the leftover
//! of the rejected zone. The `%` here is that exact rejection method (every
//! value exactly equally likely), reproduced for compatibility; knuffle's
//! own generator never takes this path.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, BufReader, Read};

use crate::error::Error;

/// A GNU-compatible source of random choices read from a file.
pub struct GnuRandom {
    /// `None` when GNU would not open the file (no draw will be made).
    reader: Option<BufReader<File>>,
    name: OsString,
    randnum: u64,
    randmax: u64,
}

impl GnuRandom {
    /// Opens FILE as GNU's `randread_new` does (`NAME: strerror` on failure).
    pub fn open(name: &OsStr) -> Result<Self, Error> {
        let file = File::open(name).map_err(|error| Error::File {
            name: name.to_os_string(),
            error,
        })?;
        Ok(GnuRandom {
            reader: Some(BufReader::with_capacity(4096, file)),
            name: name.to_os_string(),
            randnum: 0,
            randmax: 0,
        })
    }

    /// FILE, not opened yet: [`GnuRandom::open_if`] opens it when GNU
    /// would (when its byte budget, GNU's `randperm_bound`, is not zero). A
    /// draw from a source never opened fails with "end of file".
    pub fn unopened(name: &OsStr) -> Self {
        GnuRandom {
            reader: None,
            name: name.to_os_string(),
            randnum: 0,
            randmax: 0,
        }
    }

    /// Opens the file now when `needed` (and not yet open), as GNU's
    /// `randread_new` does at that point of its run.
    pub fn open_if(&mut self, needed: bool) -> Result<(), Error> {
        if needed && self.reader.is_none() {
            *self = GnuRandom::open(&self.name)?;
        }
        Ok(())
    }

    /// The name as given.
    pub fn name(&self) -> &OsStr {
        &self.name
    }

    fn read_bytes(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        let ended = || Error::RandomSourceEnded {
            name: self.name.clone(),
        };
        let Some(reader) = self.reader.as_mut() else {
            return Err(ended());
        };
        match reader.read_exact(buf) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(ended()),
            Err(error) => Err(Error::RandomSourceRead {
                name: self.name.clone(),
                error,
            }),
        }
    }

    /// A uniform integer in `0..=genmax` (GNU's `randint_genmax`).
    pub fn genmax(&mut self, genmax: u64) -> Result<u64, Error> {
        let mut randnum = self.randnum;
        let mut randmax = self.randmax;
        let choices = genmax.wrapping_add(1);
        loop {
            if randmax < genmax {
                // How many whole bytes are needed, then append them.
                let mut needed = 0;
                let mut rmax = randmax;
                loop {
                    rmax = (rmax << 8) | 0xFF;
                    needed += 1;
                    if rmax >= genmax {
                        break;
                    }
                }
                let mut buf = [0u8; 8];
                self.read_bytes(&mut buf[..needed])?;
                let mut i = 0;
                loop {
                    randnum = (randnum << 8) | u64::from(buf[i]);
                    randmax = (randmax << 8) | 0xFF;
                    i += 1;
                    if randmax >= genmax {
                        break;
                    }
                }
            }
            if randmax == genmax {
                self.randnum = 0;
                self.randmax = 0;
                return Ok(randnum);
            }
            // genmax < randmax here, so choices != 0.
            let excess = randmax - genmax;
            let unusable = excess % choices;
            let last_usable = randmax - unusable;
            let reduced = randnum % choices;
            if randnum <= last_usable {
                self.randnum = randnum / choices;
                self.randmax = excess / choices;
                return Ok(reduced);
            }
            randnum = reduced;
            randmax = unusable - 1;
        }
    }

    /// A uniform integer in `0..n` (GNU's `randint_choose`); `n >= 1`.
    pub fn choose(&mut self, n: u64) -> Result<u64, Error> {
        self.genmax(n.wrapping_sub(1))
    }
}

/// GNU's `randperm_bound (h, n)`: the byte budget it passes when opening
/// the source. GNU opens the random source only when this is non-zero
/// (or when repeating or reservoir sampling), so `-n 0` never opens it.
pub fn randperm_bound(h: u64, n: u64) -> u64 {
    let lg_n = if n == 0 {
        0
    } else {
        64 - u64::from(n.leading_zeros())
    };
    let bits = lg_n.wrapping_mul(h);
    bits.wrapping_add(7) / 8
}

/// Whether GNU shuf opens its random source for a run that outputs `h` of
/// `n` lines (`repeat`: `-r`): always when repeating, else when the byte
/// budget [`randperm_bound`] is not zero.
pub fn source_needed(repeat: bool, h: u64, n: u64) -> bool {
    repeat || randperm_bound(h, n) > 0
}

/// Forward Fisher-Yates for `h` steps as GNU's `randperm_new` draws it:
/// step `i` swaps `items[i]` with `items[i + choose(n - i)]`. Afterwards the
/// first `h` items are GNU's permutation prefix applied to `items`.
pub fn permute_prefix<T>(items: &mut [T], h: usize, source: &mut GnuRandom) -> Result<(), Error> {
    let n = items.len();
    for i in 0..h.min(n) {
        let j = i + source.choose((n - i) as u64)? as usize;
        items.swap(i, j);
    }
    Ok(())
}

/// GNU's `randperm_new (h, n)` for a range too large to hold: the same
/// swaps on a sparse map (GNU's hash-table variant), O(h) memory. Returns
/// the first `h` values of the permutation of `0..n`.
pub fn sparse_permutation(h: u64, n: u64, source: &mut GnuRandom) -> Result<Vec<u64>, Error> {
    use std::collections::HashMap;
    let mut moved: HashMap<u64, u64> = HashMap::new();
    let mut prefix = Vec::new();
    prefix
        .try_reserve_exact(h as usize)
        .map_err(|_| Error::OutOfMemory)?;
    for i in 0..h {
        let j = i + source.choose(n - i)?;
        let at_i = moved.get(&i).copied().unwrap_or(i);
        let at_j = moved.get(&j).copied().unwrap_or(j);
        moved.insert(j, at_i);
        moved.remove(&i); // position i is final and never read again
        prefix.push(at_j);
    }
    Ok(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn source(bytes: &[u8]) -> (tempfile::NamedTempFile, GnuRandom) {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(bytes).unwrap();
        let random = GnuRandom::open(file.path().as_os_str()).unwrap();
        (file, random)
    }

    #[test]
    fn genmax_keeps_leftover_randomness() {
        // Bytes 'a' 'b' with bound 100: 97 is accepted (97 <= 199), the
        // leftover is 97/100 = 0 with randmax 156/100 = 1; the next draw
        // appends one byte: 0*256 + 98 = 98.
        let (_f, mut r) = source(b"ab");
        assert_eq!(r.choose(100).unwrap(), 97);
        assert_eq!(r.choose(100).unwrap(), 98);
        let e = r.choose(100).unwrap_err();
        assert!(matches!(e, Error::RandomSourceEnded { .. }), "{e}");
    }

    #[test]
    fn choose_one_consumes_nothing() {
        let (_f, mut r) = source(b"");
        assert_eq!(r.choose(1).unwrap(), 0);
    }

    #[test]
    fn sparse_and_dense_agree() {
        let bytes: Vec<u8> = (0..4000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        let (_f, mut a) = source(&bytes);
        let (_g, mut b) = source(&bytes);
        let mut dense: Vec<u64> = (0..1000).collect();
        permute_prefix(&mut dense, 30, &mut a).unwrap();
        let sparse = sparse_permutation(30, 1000, &mut b).unwrap();
        assert_eq!(&dense[..30], &sparse[..]);
    }

    #[test]
    fn bound_matches_gnu() {
        assert_eq!(randperm_bound(0, 0), 0);
        assert_eq!(randperm_bound(1, 1), 1);
        assert_eq!(randperm_bound(5, 5), 2);
    }
}
