//! The ChaCha20 keystream as 32-bit words, from any word position: the
//! words `ChaCha20Rng::from_seed(key)` with `set_word_pos(pos)` yields by
//! `next_u32`, many blocks at a time.
//!
//! ChaCha20 is D. J. Bernstein's ("ChaCha, a variant of Salsa20", 2008),
//! in the variant of `rand_chacha`: a 64-bit block counter in words 12-13
//! and a 64-bit stream number (0 here) in words 14-15. Blocks are
//! independent, so eight (AVX2) or sixteen (AVX-512) are computed side by
//! side, one state word of every block per vector register, as in
//! Goll and Gueron, "Vectorization of ChaCha stream cipher" (2014). The
//! vector paths are chosen at run time; the portable block function is the
//! fallback and the reference the vector paths are tested against.

/// "expand 32-byte k", the ChaCha constants.
const CONSTANTS: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// Words in one block.
const BLOCK_WORDS: usize = 16;

/// Fills `out` with the ChaCha20 keystream words (key `key`, stream 0)
/// from word position `word_pos` on: word `i` of `out` is word
/// `word_pos + i` of the keystream, as `rand_chacha::ChaCha20Rng` numbers
/// them (block `p / 16`, word `p % 16`).
///
/// # Panics
/// If the words would pass the keystream's end (block 2^64).
pub fn chacha20_words(key: &[u8; 32], word_pos: u128, out: &mut [u32]) {
    let end = word_pos
        .checked_add(out.len() as u128)
        .expect("word positions overflow");
    assert!(
        end <= (1u128 << 64) * BLOCK_WORDS as u128,
        "past the end of the ChaCha20 keystream"
    );
    let key = key_words(key);
    let mut block = (word_pos / BLOCK_WORDS as u128) as u64;
    let mut out = out;
    // A block begun before `word_pos`: its words from there on.
    let skip = (word_pos % BLOCK_WORDS as u128) as usize;
    if skip != 0 && !out.is_empty() {
        let words = block_words(&key, block);
        let take = (BLOCK_WORDS - skip).min(out.len());
        out[..take].copy_from_slice(&words[skip..skip + take]);
        out = &mut out[take..];
        block = block.wrapping_add(1);
    }
    let whole = out.len() / BLOCK_WORDS;
    let done = vector::fill_blocks(&key, block, &mut out[..whole * BLOCK_WORDS]);
    for chunk in out[done * BLOCK_WORDS..].chunks_mut(BLOCK_WORDS) {
        let words = block_words(&key, block.wrapping_add(done as u64));
        chunk.copy_from_slice(&words[..chunk.len()]);
        block = block.wrapping_add(1);
    }
}

/// The key as eight little-endian words.
fn key_words(key: &[u8; 32]) -> [u32; 8] {
    let mut words = [0u32; 8];
    for (word, bytes) in words.iter_mut().zip(key.chunks_exact(4)) {
        *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    words
}

/// The initial state of block `block` (stream 0).
fn initial_state(key: &[u32; 8], block: u64) -> [u32; 16] {
    let mut state = [0u32; 16];
    state[..4].copy_from_slice(&CONSTANTS);
    state[4..12].copy_from_slice(key);
    state[12] = block as u32;
    state[13] = (block >> 32) as u32;
    state
}

/// One keystream block, portably (RFC 8439, section 2.3, with the
/// 64-bit counter and nonce split above).
fn block_words(key: &[u32; 8], block: u64) -> [u32; 16] {
    let input = initial_state(key, block);
    let mut x = input;
    #[inline(always)]
    fn quarter(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
        x[a] = x[a].wrapping_add(x[b]);
        x[d] = (x[d] ^ x[a]).rotate_left(16);
        x[c] = x[c].wrapping_add(x[d]);
        x[b] = (x[b] ^ x[c]).rotate_left(12);
        x[a] = x[a].wrapping_add(x[b]);
        x[d] = (x[d] ^ x[a]).rotate_left(8);
        x[c] = x[c].wrapping_add(x[d]);
        x[b] = (x[b] ^ x[c]).rotate_left(7);
    }
    for _ in 0..10 {
        quarter(&mut x, 0, 4, 8, 12);
        quarter(&mut x, 1, 5, 9, 13);
        quarter(&mut x, 2, 6, 10, 14);
        quarter(&mut x, 3, 7, 11, 15);
        quarter(&mut x, 0, 5, 10, 15);
        quarter(&mut x, 1, 6, 11, 12);
        quarter(&mut x, 2, 7, 8, 13);
        quarter(&mut x, 3, 4, 9, 14);
    }
    for (word, start) in x.iter_mut().zip(input) {
        *word = word.wrapping_add(start);
    }
    x
}

/// The vector paths: `fill_blocks` computes as many whole blocks of `out`
/// as it can side by side and returns how many it wrote (from the start).
mod vector {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    pub(super) fn fill_blocks(key: &[u32; 8], block: u64, out: &mut [u32]) -> usize {
        let mut done = 0;
        if std::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F.
            done = unsafe { super::x86::fill_avx512(key, block, out) };
        } else if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            done = unsafe { super::x86::fill_avx2(key, block, out) };
        }
        done
    }

    #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
    pub(super) fn fill_blocks(_key: &[u32; 8], _block: u64, _out: &mut [u32]) -> usize {
        0
    }
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
mod x86 {
    use core::arch::x86_64::*;

    use super::{BLOCK_WORDS, initial_state};

    /// The state words of `LANES` consecutive blocks from `block`, word by
    /// word: `[w][lane]`.
    #[inline(always)]
    fn lanes<const LANES: usize>(key: &[u32; 8], block: u64) -> [[u32; LANES]; 16] {
        let states: [[u32; 16]; LANES] =
            core::array::from_fn(|lane| initial_state(key, block.wrapping_add(lane as u64)));
        core::array::from_fn(|w| core::array::from_fn(|lane| states[lane][w]))
    }

    /// Writes block `lane`'s 16 words from the transposed `words` (`[w][lane]`).
    #[inline(always)]
    fn scatter<const LANES: usize>(words: &[[u32; LANES]; 16], out: &mut [u32]) {
        for (lane, block) in out.chunks_exact_mut(BLOCK_WORDS).enumerate() {
            for (w, slot) in block.iter_mut().enumerate() {
                *slot = words[w][lane];
            }
        }
    }

    macro_rules! chacha_lanes {
        ($name:ident, $feature:literal, $lanes:literal, $vec:ty, $load:ident, $store:ident,
         $add:ident, $xor:ident, $rot:ident) => {
            /// Whole groups of blocks side by side; returns the blocks written.
            ///
            /// # Safety
            /// The CPU must have the target feature.
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn $name(key: &[u32; 8], block: u64, out: &mut [u32]) -> usize {
                const LANES: usize = $lanes;
                let groups = out.len() / (LANES * BLOCK_WORDS);
                for group in 0..groups {
                    let first = block.wrapping_add((group * LANES) as u64);
                    let start = lanes::<LANES>(key, first);
                    let mut v: [$vec; 16] = core::array::from_fn(|w| {
                        // SAFETY: `start[w]` is LANES u32s, one vector.
                        unsafe { $load(start[w].as_ptr().cast()) }
                    });
                    for _ in 0..10 {
                        $rot!(v, $add, $xor, 0, 4, 8, 12);
                        $rot!(v, $add, $xor, 1, 5, 9, 13);
                        $rot!(v, $add, $xor, 2, 6, 10, 14);
                        $rot!(v, $add, $xor, 3, 7, 11, 15);
                        $rot!(v, $add, $xor, 0, 5, 10, 15);
                        $rot!(v, $add, $xor, 1, 6, 11, 12);
                        $rot!(v, $add, $xor, 2, 7, 8, 13);
                        $rot!(v, $add, $xor, 3, 4, 9, 14);
                    }
                    let mut words = [[0u32; LANES]; 16];
                    for w in 0..16 {
                        // SAFETY: as the load.
                        let input = unsafe { $load(start[w].as_ptr().cast()) };
                        let sum = $add(v[w], input);
                        // SAFETY: `words[w]` is LANES u32s, one vector.
                        unsafe { $store(words[w].as_mut_ptr().cast(), sum) };
                    }
                    let at = group * LANES * BLOCK_WORDS;
                    scatter::<LANES>(&words, &mut out[at..at + LANES * BLOCK_WORDS]);
                }
                groups * LANES
            }
        };
    }

    /// A quarter round on AVX2 registers (rotations by 16 and 8 as byte
    /// shuffles, by 12 and 7 as two shifts).
    macro_rules! quarter_avx2 {
        ($v:ident, $add:ident, $xor:ident, $a:expr, $b:expr, $c:expr, $d:expr) => {{
            let rot16 = _mm256_setr_epi8(
                2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10,
                11, 8, 9, 14, 15, 12, 13,
            );
            let rot8 = _mm256_setr_epi8(
                3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6, 11,
                8, 9, 10, 15, 12, 13, 14,
            );
            $v[$a] = $add($v[$a], $v[$b]);
            $v[$d] = _mm256_shuffle_epi8($xor($v[$d], $v[$a]), rot16);
            $v[$c] = $add($v[$c], $v[$d]);
            let t = $xor($v[$b], $v[$c]);
            $v[$b] = _mm256_or_si256(_mm256_slli_epi32(t, 12), _mm256_srli_epi32(t, 20));
            $v[$a] = $add($v[$a], $v[$b]);
            $v[$d] = _mm256_shuffle_epi8($xor($v[$d], $v[$a]), rot8);
            $v[$c] = $add($v[$c], $v[$d]);
            let t = $xor($v[$b], $v[$c]);
            $v[$b] = _mm256_or_si256(_mm256_slli_epi32(t, 7), _mm256_srli_epi32(t, 25));
        }};
    }

    /// A quarter round on AVX-512 registers (rotations are one instruction).
    macro_rules! quarter_avx512 {
        ($v:ident, $add:ident, $xor:ident, $a:expr, $b:expr, $c:expr, $d:expr) => {{
            $v[$a] = $add($v[$a], $v[$b]);
            $v[$d] = _mm512_rol_epi32::<16>($xor($v[$d], $v[$a]));
            $v[$c] = $add($v[$c], $v[$d]);
            $v[$b] = _mm512_rol_epi32::<12>($xor($v[$b], $v[$c]));
            $v[$a] = $add($v[$a], $v[$b]);
            $v[$d] = _mm512_rol_epi32::<8>($xor($v[$d], $v[$a]));
            $v[$c] = $add($v[$c], $v[$d]);
            $v[$b] = _mm512_rol_epi32::<7>($xor($v[$b], $v[$c]));
        }};
    }

    chacha_lanes!(
        fill_avx2,
        "avx2",
        8,
        __m256i,
        _mm256_loadu_si256,
        _mm256_storeu_si256,
        _mm256_add_epi32,
        _mm256_xor_si256,
        quarter_avx2
    );

    chacha_lanes!(
        fill_avx512,
        "avx512f",
        16,
        __m512i,
        _mm512_loadu_si512,
        _mm512_storeu_si512,
        _mm512_add_epi32,
        _mm512_xor_si512,
        quarter_avx512
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_prelude::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::{Rng, SeedableRng};

    fn reference(key: &[u8; 32], pos: u128, len: usize) -> Vec<u32> {
        let mut rng = ChaCha20Rng::from_seed(*key);
        rng.set_word_pos(pos);
        (0..len).map(|_| rng.next_u32()).collect()
    }

    #[test]
    fn equals_rand_chacha_from_any_position() {
        let key: [u8; 32] = core::array::from_fn(|i| (i * 37 + 11) as u8);
        for &pos in &[
            0u128,
            1,
            15,
            16,
            17,
            255,
            256,
            1000,
            (1 << 36) - 3,
            (1 << 40) + 7,
        ] {
            for &len in &[
                0usize, 1, 15, 16, 17, 127, 128, 129, 255, 256, 257, 1000, 4099,
            ] {
                let mut out = vec![0u32; len];
                chacha20_words(&key, pos, &mut out);
                assert_eq!(out, reference(&key, pos, len), "pos {pos} len {len}");
            }
        }
    }

    #[test]
    fn the_counter_carries_into_its_high_word() {
        let key = [3u8; 32];
        // Blocks 2^32 - 9 .. 2^32 + 23: the low counter word wraps inside
        // a group of lanes.
        let pos = ((1u128 << 32) - 9) * 16 + 5;
        let mut out = vec![0u32; 32 * 16];
        chacha20_words(&key, pos, &mut out);
        assert_eq!(out, reference(&key, pos, out.len()));
    }

    #[test]
    fn the_portable_block_is_rfc_8439s() {
        // RFC 8439, 2.3.2's key with an all-zero nonce is not its vector;
        // the all-zero key and block 0 is the classic first test vector
        // (draft-agl-tls-chacha20poly1305, 7): 76 b8 e0 ad ...
        let words = block_words(&[0; 8], 0);
        assert_eq!(words[0].to_le_bytes(), [0x76, 0xb8, 0xe0, 0xad]);
        assert_eq!(words[15].to_le_bytes(), [0xb2, 0xee, 0x65, 0x86]);
    }

    #[test]
    #[should_panic(expected = "past the end")]
    fn the_end_of_the_keystream_is_refused() {
        let mut out = [0u32; 2];
        chacha20_words(&[0; 32], (1u128 << 68) - 1, &mut out);
    }
}
