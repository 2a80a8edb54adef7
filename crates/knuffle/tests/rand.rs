//! knuffle with generators from rand 0.10 and (through `Rand09`) rand_core 0.9.

use knuffle::rand_core::{Rng, SeedableRng, TryRng};
use knuffle::{Knuffle, Rand09, shuffle};

/// The same fixed words through rand_core 0.10 and 0.9.
#[derive(Clone)]
struct Words(u64);

impl Words {
    fn next(&mut self) -> u64 {
        // SplitMix64 (Steele, Lea, Flood 2014): a fixed, well-mixed stream.
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl TryRng for Words {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.next() as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.next())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            chunk.copy_from_slice(&self.next().to_le_bytes()[..chunk.len()]);
        }
        Ok(())
    }
}

impl rand_core09::RngCore for Words {
    fn next_u32(&mut self) -> u32 {
        self.next() as u32
    }
    fn next_u64(&mut self) -> u64 {
        self.next()
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(8) {
            chunk.copy_from_slice(&self.next().to_le_bytes()[..chunk.len()]);
        }
    }
}

#[test]
fn a_rand_0_9_generator_through_rand09_gives_the_same_permutation() {
    for n in [2usize, 52, 1000] {
        let mut direct: Vec<usize> = (0..n).collect();
        let mut bridged = direct.clone();
        let mut words = Words(n as u64);
        let mut old = Words(n as u64);
        shuffle(&mut direct, &mut words);
        shuffle(&mut bridged, &mut Rand09(&mut old));
        assert_eq!(direct, bridged, "n={n}");
        // Both consumed the same words.
        assert_eq!(words.next_u64(), rand_core09::RngCore::next_u64(&mut old));
    }
}

#[test]
fn rand_0_10_generators_work_directly() {
    // rand's thread-local generator: any permutation, all elements kept.
    let mut v: Vec<u32> = (0..100).collect();
    v.shuffle(&mut rand::rng());
    let mut sorted = v.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..100).collect::<Vec<_>>());

    // A seeded rand 0.10 generator is reproducible through knuffle.
    let run = || {
        let mut rng = rand::rngs::StdRng::seed_from_u64(2026);
        let mut v: Vec<u32> = (0..52).collect();
        shuffle(&mut v, &mut rng);
        (v, knuffle::below(1000, &mut rng))
    };
    assert_eq!(run(), run());
    assert_ne!(run().0, (0..52).collect::<Vec<_>>());
}
