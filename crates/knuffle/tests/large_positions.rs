//! Where elements go, at n = 2^20 and 2^23, through the scatter path.
//!
//! * Block position matrix: input and output cut into 128 blocks; cell
//!   (a, b) counts the elements of input block a that land in output block
//!   b, summed over trials. For a uniform shuffle each cell expects
//!   `trials * n / 128^2`; Pearson's X^2 with 127^2 degrees of freedom (the
//!   margins are fixed, so the table is a contingency table).
//! * First positions: how often output positions 0..64 hold an element of
//!   the first 1/128 of the input (expected 1/128 of the time).
//!
//! A scatter that overloads the first output block with elements from the
//! first input block (rip_shuffle 0.2 shows output[0] from the first 1/128
//! of the input about 7% of the time at n = 2^20) must fail both checks: an
//! injected bias of that size is tested below.

mod common;

use common::{FAIL_P, PASS_P};
use knuffle::rand_core::Rng;
use knuffle::{Seed, ShuffleConfig, below, shuffle_with_config};

/// The default switch points, except that the scatter path is taken at
/// every size (by default, slices up to 16 MiB go to Durstenfeld's loop).
fn scatter_always() -> ShuffleConfig {
    ShuffleConfig {
        direct_len: 0,
        ..ShuffleConfig::for_type::<u32>()
    }
}
use statrs::distribution::{Binomial, ChiSquared, ContinuousCDF, DiscreteCDF};

const BLOCKS: usize = 128;
/// Trials at n = 2^20: enough for rip_shuffle's rate to stand out (below).
const TRIALS_2_20: usize = 120;
const FIRST: usize = 64;

struct Tally {
    n: usize,
    trials: u64,
    matrix: Vec<u64>,
    /// Output positions `0..FIRST` holding an element of input block 0.
    first_hits: u64,
    /// Trials where output[0] came from input block 0.
    zero_hits: u64,
}

impl Tally {
    fn new(n: usize) -> Tally {
        Tally {
            n,
            trials: 0,
            matrix: vec![0; BLOCKS * BLOCKS],
            first_hits: 0,
            zero_hits: 0,
        }
    }

    fn add(&mut self, output: &[u32]) {
        let block = self.n / BLOCKS;
        for (out_block, chunk) in output.chunks_exact(block).enumerate() {
            for &x in chunk {
                self.matrix[(x as usize / block) * BLOCKS + out_block] += 1;
            }
        }
        self.first_hits += output[..FIRST]
            .iter()
            .filter(|&&x| (x as usize) < block)
            .count() as u64;
        self.zero_hits += u64::from((output[0] as usize) < block);
        self.trials += 1;
    }

    /// p-value of the block position matrix.
    fn matrix_p(&self) -> (f64, f64) {
        let expected = self.trials as f64 * (self.n / BLOCKS) as f64 / BLOCKS as f64;
        let x2: f64 = self
            .matrix
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum();
        let dof = ((BLOCKS - 1) * (BLOCKS - 1)) as f64;
        (x2, ChiSquared::new(dof).unwrap().sf(x2))
    }

    /// Two-sided binomial p-value of the first-positions count (the draws
    /// within one trial are without replacement, so this is conservative).
    fn first_p(&self) -> f64 {
        let draws = self.trials * FIRST as u64;
        let binomial = Binomial::new(1.0 / BLOCKS as f64, draws).unwrap();
        let x = self.first_hits;
        let low = binomial.cdf(x);
        let high = if x == 0 { 1.0 } else { binomial.sf(x - 1) };
        (2.0 * low.min(high)).min(1.0)
    }

    fn report(&self) -> String {
        let (x2, p) = self.matrix_p();
        format!(
            "n={} trials={}: matrix X2={x2:.0} p={p:.2e}; first {FIRST} positions from block 0: {} of {} (expected {:.1}), p={:.2e}; output[0] from block 0 in {} trials",
            self.n,
            self.trials,
            self.first_hits,
            self.trials * FIRST as u64,
            (self.trials * FIRST as u64) as f64 / BLOCKS as f64,
            self.first_p(),
            self.zero_hits,
        )
    }

    fn assert_uniform(&self) {
        println!("{}", self.report());
        let (_, p) = self.matrix_p();
        assert!(p > PASS_P && self.first_p() > PASS_P, "{}", self.report());
    }
}

fn run(
    n: usize,
    trials: usize,
    seed: &str,
    mut shuffler: impl FnMut(&mut [u32], &mut knuffle::DefaultRng),
) -> Tally {
    let mut rng = Seed::from_text(seed).rng();
    let mut tally = Tally::new(n);
    let mut v: Vec<u32> = Vec::with_capacity(n);
    for _ in 0..trials {
        v.clear();
        v.extend(0..n as u32);
        shuffler(&mut v, &mut rng);
        tally.add(&v);
    }
    tally
}

#[test]
fn positions_are_uniform_at_2_pow_20() {
    let tally = run(1 << 20, TRIALS_2_20, "positions-2^20", |v, rng| {
        shuffle_with_config(v, rng, &scatter_always())
    });
    tally.assert_uniform();
}

/// At most eight buckets per level, Durstenfeld from 4096 down: three
/// levels of scatter (block distributions only).
const DEEP: ShuffleConfig = ShuffleConfig {
    direct_len: 0,
    base_len: 4096,
    target_len: 4096 / 16,
    max_bits: 3,
    block_len: 16,
    stripes: 8,
    max_blocks: usize::MAX,
};

#[test]
fn positions_are_uniform_at_2_pow_20_with_deep_recursion() {
    let tally = run(1 << 20, 40, "positions-2^20-deep", |v, rng| {
        shuffle_with_config(v, rng, &DEEP)
    });
    tally.assert_uniform();
}

#[test]
fn positions_are_uniform_at_2_pow_20_through_the_walk() {
    // At most 4096 blocks of 16 per distribution: the root (65536 blocks)
    // and its eight buckets are split by the walk, their buckets (about
    // 1024 blocks) distributed, then Durstenfeld from 4096 down.
    let config = ShuffleConfig {
        max_blocks: 4096,
        ..DEEP
    };
    let tally = run(1 << 20, 40, "positions-2^20-walk", |v, rng| {
        shuffle_with_config(v, rng, &config)
    });
    tally.assert_uniform();
}

#[test]
fn positions_are_uniform_at_2_pow_23() {
    let tally = run(1 << 23, 10, "positions-2^23", |v, rng| {
        shuffle_with_config(v, rng, &scatter_always())
    });
    tally.assert_uniform();
}

#[cfg(feature = "parallel")]
#[test]
fn parallel_positions_are_uniform_at_2_pow_23() {
    let tally = run(1 << 23, 6, "positions-par-2^23", |v, rng| {
        knuffle::par_shuffle_with_config(v, rng, &scatter_always())
    });
    tally.assert_uniform();
}

/// The injected bias: a scatter into 128 buckets where each element stays
/// in its own block's bucket with probability 1/16 (else a uniform bucket),
/// then a correct shuffle of each bucket. About 7% of the first output
/// block then comes from the first input block, as with rip_shuffle.
fn sticky_scatter<R: Rng>(v: &mut [u32], rng: &mut R) {
    let block = v.len() / BLOCKS;
    let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); BLOCKS];
    for (i, &x) in v.iter().enumerate() {
        let bucket = if below(16, rng) == 0 {
            i / block
        } else {
            below(BLOCKS as u64, rng) as usize
        };
        buckets[bucket].push(x);
    }
    let mut out = 0;
    for bucket in &mut buckets {
        knuffle::shuffle(bucket, rng);
        v[out..out + bucket.len()].copy_from_slice(bucket);
        out += bucket.len();
    }
}

#[test]
fn both_checks_catch_an_injected_first_block_bias() {
    let tally = run(1 << 20, TRIALS_2_20, "positions-sticky", |v, rng| {
        sticky_scatter(v, rng)
    });
    let (_, matrix_p) = tally.matrix_p();
    assert!(
        matrix_p < FAIL_P,
        "matrix missed the bias: {}",
        tally.report()
    );
    assert!(
        tally.first_p() < FAIL_P,
        "first positions missed the bias: {}",
        tally.report()
    );
}

#[test]
fn the_first_position_check_catches_rips_rate_with_these_trials() {
    // Exactly the rate reported for rip_shuffle at n = 2^20: 7% instead of
    // 1/128. With these trials x 64 positions the check must reject it.
    let draws = (TRIALS_2_20 * FIRST) as u64;
    let observed = (draws as f64 * 0.07) as u64;
    let binomial = Binomial::new(1.0 / BLOCKS as f64, draws).unwrap();
    assert!(binomial.sf(observed - 1) < FAIL_P);
}
