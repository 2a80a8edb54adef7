//! The `knuffle-vd/1` random stream: SHA-256 in counter mode over the key,
//! read as 64-bit big-endian words.
//!
//! Block `c` is `H(K || u64be(c))`, for `c = 0, 1, ...`; each block gives four
//! words, most significant byte first. A verifier in any language with
//! SHA-256 re-derives it.

use core::convert::Infallible;

use rand_core::TryRng;

use crate::encode::sha256;

/// The SHA-256 counter-mode stream of a `knuffle-vd/1` key, as a
/// `rand_core` generator. Use it with [`knuffle::below`]: one 64-bit word per
/// attempt, exactly as the spec draws.
///
/// `next_u32` is the high half of a whole word (a word is never split), and
/// `fill_bytes` copies whole words big-endian; the draws of the format use
/// only `next_u64`.
///
/// ```
/// use knuffle_draw::Sha256Stream;
/// use rand_core::Rng;
/// let mut stream = Sha256Stream::new([7; 32]);
/// let first = stream.next_u64();
/// assert_ne!(first, stream.next_u64());
/// ```
#[derive(Clone)]
pub struct Sha256Stream {
    key: [u8; 32],
    counter: u64,
    block: [u8; 32],
    used: usize,
    words: u64,
}

impl Sha256Stream {
    /// The stream of `key`, at its first word.
    pub fn new(key: [u8; 32]) -> Sha256Stream {
        Sha256Stream {
            key,
            counter: 0,
            block: [0; 32],
            used: 32,
            words: 0,
        }
    }

    /// How many 64-bit words have been read so far.
    pub fn words_read(&self) -> u64 {
        self.words
    }

    fn word(&mut self) -> u64 {
        if self.used == 32 {
            let mut input = [0u8; 40];
            input[..32].copy_from_slice(&self.key);
            input[32..].copy_from_slice(&self.counter.to_be_bytes());
            self.block = sha256(&input);
            self.counter += 1;
            self.used = 0;
        }
        let bytes: [u8; 8] = self.block[self.used..self.used + 8]
            .try_into()
            .expect("8 bytes");
        self.used += 8;
        self.words += 1;
        u64::from_be_bytes(bytes)
    }
}

impl core::fmt::Debug for Sha256Stream {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Sha256Stream { .. }")
    }
}

impl TryRng for Sha256Stream {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok((self.word() >> 32) as u32)
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.word())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(8) {
            let word = self.word().to_be_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::Rng;

    #[test]
    fn words_are_big_endian_slices_of_the_counter_blocks() {
        let key = [0x42; 32];
        let mut stream = Sha256Stream::new(key);
        let mut input = key.to_vec();
        input.extend_from_slice(&1u64.to_be_bytes());
        let block1 = sha256(&input);
        for _ in 0..4 {
            stream.next_u64();
        }
        assert_eq!(stream.words_read(), 4);
        assert_eq!(
            stream.next_u64(),
            u64::from_be_bytes(block1[..8].try_into().unwrap())
        );
        assert_eq!(stream.words_read(), 5);
    }
}
