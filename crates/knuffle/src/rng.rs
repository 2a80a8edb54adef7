//! The default generator and text seeds.
//!
//! [`DefaultRng`] is the ChaCha20 stream cipher used as a generator
//! (D. J. Bernstein, "ChaCha, a variant of Salsa20", 2008), through
//! `rand_chacha`. Its 256-bit key means every one of the 52! (about
//! 2^225.6) deck orders is reachable, which no 64-bit generator can offer.
//!
//! A [`Seed`] is any text (a number, dice rolls, a phrase) hashed with
//! SHA-256 to the 256-bit key (feature `text-seed`, on by default; without
//! it, [`Seed::from_key`] takes the key itself). The recipe is public and fixed, so a seed
//! gives the same stream on every platform and every release of the same
//! major version: `key = SHA-256(UTF-8 bytes of the text)`, then ChaCha20
//! with that key, stream 0, block counter 0, words read little-endian.

use core::convert::Infallible;
use core::fmt;

use rand_chacha::ChaCha20Rng;
use rand_core::{SeedableRng, TryCryptoRng, TryRng};
#[cfg(feature = "text-seed")]
use sha2::{Digest, Sha256};

/// knuffle's default generator: ChaCha20 with a 256-bit key.
///
/// Implements `rand_core`'s `Rng` (through `TryRng` with an infallible
/// error), `CryptoRng` and `SeedableRng`.
///
/// # Example
/// ```
/// use knuffle::{DefaultRng, Seed};
/// use rand_core::Rng;
/// let mut a = Seed::from_text("42").rng();
/// let mut b = DefaultRng::from_seed_text("42");
/// assert_eq!(a.next_u64(), b.next_u64());
/// let mut fresh = DefaultRng::from_os(); // unpredictable
/// let _ = fresh.next_u32();
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct DefaultRng(ChaCha20Rng);

impl DefaultRng {
    /// A generator keyed with 256 bits from the operating system
    /// (feature `os-entropy`).
    ///
    /// # Panics
    /// When the operating system's generator fails (see
    /// [`DefaultRng::try_from_os`] to handle that).
    #[cfg(feature = "os-entropy")]
    #[must_use]
    pub fn from_os() -> Self {
        Self::try_from_os().expect("the operating system's random generator failed")
    }

    /// A generator keyed with 256 bits from the operating system, or the
    /// operating system's error (feature `os-entropy`).
    #[cfg(feature = "os-entropy")]
    pub fn try_from_os() -> Result<Self, getrandom::Error> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key)?;
        Ok(Self::from_seed(key))
    }

    /// The generator for the text seed `text` (see [`Seed::from_text`];
    /// feature `text-seed`).
    #[cfg(feature = "text-seed")]
    #[must_use]
    pub fn from_seed_text(text: &str) -> Self {
        Seed::from_text(text).rng()
    }

    /// How far this generator is into its stream, in 32-bit words from the
    /// start (a 68-bit number). With the key, it is the whole state:
    /// [`DefaultRng::set_word_pos`] on a generator of the same key continues
    /// with exactly the same output (how Python's `knuffle.Generator` pickles).
    ///
    /// ```
    /// use knuffle::Seed;
    /// use rand_core::Rng;
    /// let mut a = Seed::from_text("42").rng();
    /// let _ = a.next_u32();
    /// let mut b = Seed::from_text("42").rng();
    /// b.set_word_pos(a.word_pos());
    /// assert_eq!(a.next_u64(), b.next_u64());
    /// ```
    #[must_use]
    pub fn word_pos(&self) -> u128 {
        self.0.get_word_pos()
    }

    /// Moves this generator to `word_pos` 32-bit words from the start of its
    /// stream (only the low 68 bits count: the stream's period).
    pub fn set_word_pos(&mut self, word_pos: u128) {
        self.0.set_word_pos(word_pos);
    }
}

impl fmt::Debug for DefaultRng {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the key or the position: that would reveal the stream.
        f.write_str("DefaultRng { .. }")
    }
}

impl TryRng for DefaultRng {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.0.try_next_u32()
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        self.0.try_next_u64()
    }

    #[inline]
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.0.try_fill_bytes(dst)
    }
}

impl TryCryptoRng for DefaultRng {}

impl SeedableRng for DefaultRng {
    type Seed = [u8; 32];

    fn from_seed(seed: [u8; 32]) -> Self {
        DefaultRng(ChaCha20Rng::from_seed(seed))
    }
}

/// A 256-bit key for [`DefaultRng`], usually made from text.
///
/// # Example
/// ```
/// use knuffle::Seed;
/// let seed = Seed::from_text("3 1 4 1 5 9 2 6"); // dice rolls, a phrase, a number...
/// assert_eq!(seed, Seed::from_text("3 1 4 1 5 9 2 6"));
/// assert_ne!(seed, Seed::from_text("3 1 4 1 5 9 2 7"));
/// let replay = Seed::random_text(); // a fresh, printable, replayable seed
/// assert_eq!(Seed::from_text(&replay).rng(), Seed::from_text(&replay).rng());
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Seed {
    key: [u8; 32],
}

impl Seed {
    /// The seed whose key is the SHA-256 hash of the UTF-8 bytes of `text`
    /// (feature `text-seed`).
    #[cfg(feature = "text-seed")]
    #[must_use]
    pub fn from_text(text: &str) -> Seed {
        Seed {
            key: Sha256::digest(text.as_bytes()).into(),
        }
    }

    /// The seed with exactly this key.
    pub fn from_key(key: [u8; 32]) -> Seed {
        Seed { key }
    }

    /// The 256-bit key.
    pub fn key(&self) -> &[u8; 32] {
        &self.key
    }

    /// A fresh generator at the start of this seed's stream.
    #[must_use]
    pub fn rng(&self) -> DefaultRng {
        DefaultRng::from_seed(self.key)
    }

    /// A new unpredictable seed text (64 hex digits, 256 bits from the
    /// operating system). Print it, and `Seed::from_text` replays the run.
    ///
    /// Feature `os-entropy`.
    ///
    /// # Panics
    /// When the operating system's generator fails.
    #[cfg(feature = "os-entropy")]
    #[must_use]
    pub fn random_text() -> alloc::string::String {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).expect("the operating system's random generator failed");
        bytes.iter().map(|b| alloc::format!("{b:02x}")).collect()
    }
}

impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Seed(")?;
        for byte in &self.key {
            write!(f, "{byte:02x}")?;
        }
        f.write_str(")")
    }
}

#[cfg(all(test, feature = "text-seed"))]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use rand_core::Rng;

    /// At every position of the first few buffers (64 words each), after
    /// 32- and 64-bit draws that straddle block and buffer ends, a generator
    /// moved to `word_pos` continues with exactly the same words.
    #[test]
    fn word_pos_restores_the_stream_anywhere() {
        let mut a = DefaultRng::from_seed_text("word pos");
        for step in 0..300 {
            let mut b = DefaultRng::from_seed_text("word pos");
            b.set_word_pos(a.word_pos());
            assert_eq!(b.word_pos(), a.word_pos(), "step {step}");
            let (mut a2, mut b2) = (a.clone(), b.clone());
            let ahead: Vec<u64> = (0..9).map(|_| a2.next_u64()).collect();
            let again: Vec<u64> = (0..9).map(|_| b2.next_u64()).collect();
            assert_eq!(ahead, again, "step {step}");
            assert_eq!(a.clone().next_u32(), b.next_u32(), "step {step}");
            if step % 3 == 0 {
                let _ = a.next_u64();
            } else {
                let _ = a.next_u32();
            }
        }
        assert!(a.word_pos() > 128);
    }
}
